//! Recordings that end as valid files or not at all (rule H4, and "bad
//! input loses nothing"): a full disk, a file-size limit (`ulimit -f`;
//! SIGXFSZ is ignored, so the write fails instead of killing the run) or
//! a write error part-way leaves the frames written so far as a file a
//! viewer opens, or no file, never a cut one.
//!
//! - A GIF is flushed at each frame's end, and the offset kept. When a
//!   write fails, the file is cut back to the last whole frame and given
//!   its one-byte trailer: the disk room the cut frees is where it goes.
//! - A numbered PNG is written beside its name and renamed onto it, so
//!   each frame file is whole or absent.
//! - An animated PNG states its frame count first, so it is written at
//!   the end from a spool; when that write fails the file is removed.

use std::fs::File;
use std::io::{BufWriter, Seek as _, Write};
use std::path::{Path, PathBuf};

/// A writer that counts the bytes it was given.
pub struct Counted {
    inner: BufWriter<File>,
    written: u64,
}

impl Write for Counted {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.written += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// An animated GIF being written, which a failed write leaves valid.
pub struct GifFile {
    path: PathBuf,
    encoder: Option<gif::Encoder<Counted>>,
    /// Where the last whole frame (or the header) ends on disk.
    whole: u64,
    /// Frames whole on disk.
    pub frames: u64,
}

impl GifFile {
    /// Creates `path` with a GIF header for `size` pictures that loop.
    ///
    /// # Errors
    /// The file cannot be made or its header written; nothing is left.
    pub fn create(path: &Path, size: (u16, u16)) -> std::io::Result<GifFile> {
        let file = moonloop_door::create(path, moonloop_door::Readers::All)?;
        let out = Counted {
            inner: BufWriter::new(file),
            written: 0,
        };
        let started = gif::Encoder::new(out, size.0, size.1, &[])
            .map_err(io)
            .and_then(|mut e| {
                e.set_repeat(gif::Repeat::Infinite).map_err(io)?;
                e.get_mut().flush()?;
                Ok(e)
            });
        match started {
            Ok(encoder) => Ok(GifFile {
                path: path.to_path_buf(),
                whole: encoder.get_ref().written,
                encoder: Some(encoder),
                frames: 0,
            }),
            Err(why) => {
                let _ = std::fs::remove_file(path);
                Err(why)
            }
        }
    }

    /// Writes `frame` whole, or ends the file at the frame before.
    ///
    /// # Errors
    /// The write failed: the file now ends after the frames before this
    /// one (or is gone, when even that could not be written), and the
    /// message says which.
    pub fn write(&mut self, frame: &gif::Frame<'_>) -> std::io::Result<()> {
        let Some(encoder) = self.encoder.as_mut() else {
            return Err(std::io::Error::other("the recording has ended"));
        };
        let written = encoder
            .write_frame(frame)
            .map_err(io)
            .and_then(|()| encoder.get_mut().flush());
        match written {
            Ok(()) => {
                self.whole = encoder.get_ref().written;
                self.frames += 1;
                Ok(())
            }
            Err(why) => Err(self.end_at_last_whole_frame(why)),
        }
    }

    /// Writes the trailer.
    ///
    /// # Errors
    /// As [`GifFile::write`].
    pub fn finish(mut self) -> std::io::Result<u64> {
        let Some(encoder) = self.encoder.take() else {
            return Ok(self.frames);
        };
        match encoder.into_inner().map_err(io).and_then(|mut out| {
            out.flush()?;
            out.inner.get_ref().sync_data()
        }) {
            Ok(()) => Ok(self.frames),
            Err(why) => Err(self.end_at_last_whole_frame(why)),
        }
    }

    /// Cuts the file back to its last whole frame and ends it there.
    fn end_at_last_whole_frame(&mut self, why: std::io::Error) -> std::io::Error {
        // Whatever the encoder still writes as it drops is cut off below.
        drop(self.encoder.take());
        let ended = (|| -> std::io::Result<()> {
            let mut file = std::fs::OpenOptions::new().write(true).open(&self.path)?;
            file.set_len(self.whole)?;
            file.seek(std::io::SeekFrom::Start(self.whole))?;
            // The GIF trailer.
            file.write_all(b";")?;
            file.sync_data()
        })();
        let said = match ended {
            Ok(()) if self.frames > 0 => format!(
                "{why}; the recording ends after the {} frame{} written before",
                self.frames,
                if self.frames == 1 { "" } else { "s" }
            ),
            _ => {
                let _ = std::fs::remove_file(&self.path);
                format!("{why}; no frame was written whole, and no file is left")
            }
        };
        // The kind stays the cause's: a full disk is the machine's (H12).
        std::io::Error::new(why.kind(), said)
    }
}

/// An encoder's error as the I/O error it is, or as bad data.
fn io(e: gif::EncodingError) -> std::io::Error {
    match e {
        gif::EncodingError::Io(e) => e,
        other => std::io::Error::new(std::io::ErrorKind::InvalidData, other.to_string()),
    }
}
