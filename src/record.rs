//! Record: frames written to disk on a thread of their own (rule H4), as
//! numbered PNGs, an animated GIF or an animated PNG (APNG).
//!
//! The frame loop hands each picture over a bounded queue and goes on; it
//! never waits on disk. When the queue is full, a headless run blocks (so
//! nothing is lost) and a windowed one drops the frame and counts it (so
//! the game stays smooth), and the count is reported.
//!
//! GIF delays are whole centiseconds, so at 60 fps they alternate between 1
//! and 2 to keep the total right; APNG delays are exact fractions, which is
//! why `--record out.png` is the format for smooth loops.

use std::fs::File;
use std::io::{BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, SyncSender, TrySendError, sync_channel};
use std::thread::JoinHandle;

use tiny_skia::Pixmap;

use crate::error::{Error, Result};

mod diff;
mod ending;
mod gif_frames;

pub use gif_frames::Differ;

/// How many frames may wait for the encoder.
pub const QUEUE: usize = 8;

/// Where and how frames are written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Format {
    /// Numbered PNG files in a folder.
    Frames(PathBuf),
    /// An animated GIF.
    Gif(PathBuf),
    /// An animated PNG.
    Apng(PathBuf),
}

impl Format {
    /// Chooses the format from the path: `.gif` is a GIF, `.png` or
    /// `.apng` an animated PNG, a name with no extension (or ending in `/`)
    /// a folder of numbered PNGs.
    ///
    /// # Errors
    /// Any other extension: `x.webp` is almost surely not meant as a
    /// folder, so it is refused rather than written as one.
    pub fn from_path(path: &Path) -> Result<Format> {
        let folder = path.as_os_str().as_encoded_bytes().ends_with(b"/");
        let extension = path
            .extension()
            .map(|x| x.to_string_lossy().to_ascii_lowercase());
        match extension.as_deref() {
            _ if folder => Ok(Format::Frames(path.to_path_buf())),
            None => Ok(Format::Frames(path.to_path_buf())),
            Some("gif") => Ok(Format::Gif(path.to_path_buf())),
            Some("png") | Some("apng") => Ok(Format::Apng(path.to_path_buf())),
            Some(other) => Err(Error::usage(format!(
                "cannot record to {}: `.{other}` is not a recording format; name a .gif, \
                 a .png (animated), or a folder for numbered PNGs (end it with / if its \
                 name has a dot)",
                path.display()
            ))),
        }
    }

    /// Returns where the recording goes.
    pub fn path(&self) -> &Path {
        match self {
            Format::Frames(p) | Format::Gif(p) | Format::Apng(p) => p,
        }
    }
}

struct Shot {
    pixmap: Pixmap,
    dt: f64,
}

/// What a finished recording wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Summary {
    /// The file or folder.
    pub path: PathBuf,
    /// Frames written.
    pub frames: u64,
    /// Frames dropped because the encoder fell behind (windowed only).
    pub dropped: u64,
}

/// A recording in progress.
pub struct Recorder {
    sender: Option<SyncSender<Shot>>,
    thread: Option<JoinHandle<Result<u64>>>,
    blocking: bool,
    dropped: u64,
    path: PathBuf,
    /// The size of the first frame, which every frame has.
    size: Option<(u32, u32)>,
    /// Seconds of dropped frames, added to the next frame kept, so the
    /// recording lasts as long as the play did.
    owed: f64,
}

impl std::fmt::Debug for Recorder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Recorder")
            .field("path", &self.path)
            .finish()
    }
}

impl Recorder {
    /// Starts recording to `path`; `blocking` says whether a full queue
    /// waits (headless) or drops (windowed).
    ///
    /// # Errors
    /// The file or folder cannot be created.
    pub fn start(path: &Path, blocking: bool) -> Result<Recorder> {
        let format = Format::from_path(path)?;
        let cannot = |source: std::io::Error| Error::Record {
            path: path.to_path_buf(),
            source,
        };
        // Missing folders are made the same way for every format.
        match &format {
            // A name without an extension is a folder of frames; over a
            // file of that name the OS would only say "File exists".
            Format::Frames(dir) if dir.exists() && !dir.is_dir() => {
                return Err(Error::usage(format!(
                    "cannot record to {}: it is a file, and a name without .gif or .png is a \
                     folder of numbered PNGs; name a .gif or a .png, or a new folder",
                    path.display()
                )));
            }
            Format::Frames(dir) => std::fs::create_dir_all(dir).map_err(cannot)?,
            Format::Gif(file) | Format::Apng(file) => {
                if let Some(parent) = file.parent().filter(|p| !p.as_os_str().is_empty()) {
                    std::fs::create_dir_all(parent).map_err(cannot)?;
                }
                moonloop_door::create(file, moonloop_door::Readers::All).map_err(cannot)?;
            }
        }
        let (sender, receiver) = sync_channel(QUEUE);
        let thread = std::thread::Builder::new()
            .name("moonloop-recorder".into())
            .spawn(move || encode(format, receiver))
            .map_err(cannot)?;
        Ok(Recorder {
            sender: Some(sender),
            thread: Some(thread),
            blocking,
            dropped: 0,
            path: path.to_path_buf(),
            size: None,
            owed: 0.0,
        })
    }

    /// Returns where the recording goes.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Returns the frames dropped so far.
    pub fn dropped(&self) -> u64 {
        self.dropped
    }

    /// Returns the size every frame has: the first frame's, once there
    /// is one.
    pub fn size(&self) -> Option<(u32, u32)> {
        self.size
    }

    /// Hands a frame worth `dt` seconds to the encoder.
    ///
    /// A frame of another size than the first is dropped (the compositor
    /// draws every picture at the recording's size, so none should come).
    /// A dropped frame's time goes to the next frame kept.
    pub fn push(&mut self, pixmap: Pixmap, dt: f64) {
        let Some(sender) = &self.sender else { return };
        let size = (pixmap.width(), pixmap.height());
        if *self.size.get_or_insert(size) != size {
            self.dropped += 1;
            self.owed += dt;
            return;
        }
        let shot = Shot {
            pixmap,
            dt: dt + self.owed,
        };
        if self.blocking {
            let _ = sender.send(shot);
            self.owed = 0.0;
        } else {
            match sender.try_send(shot) {
                Err(TrySendError::Full(_)) => {
                    self.dropped += 1;
                    self.owed += dt;
                }
                _ => self.owed = 0.0,
            }
        }
    }

    /// Finishes the file and waits for the encoder.
    ///
    /// # Errors
    /// Writing failed; the message names the path.
    pub fn finish(mut self) -> Result<Summary> {
        self.sender = None;
        let frames = match self.thread.take().map(JoinHandle::join) {
            Some(Ok(result)) => result?,
            _ => {
                return Err(Error::Record {
                    path: self.path.clone(),
                    source: std::io::Error::other("the recorder stopped unexpectedly"),
                });
            }
        };
        Ok(Summary {
            path: self.path.clone(),
            frames,
            dropped: self.dropped,
        })
    }
}

impl Drop for Recorder {
    fn drop(&mut self) {
        self.sender = None;
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn encode(format: Format, frames: Receiver<Shot>) -> Result<u64> {
    let path = format.path().to_path_buf();
    let failed = |e: &dyn std::fmt::Display| Error::Record {
        path: path.clone(),
        source: std::io::Error::other(e.to_string()),
    };
    // A write that failed, its kind kept (a full disk, a device).
    let lost = |source: std::io::Error| Error::Record {
        path: path.clone(),
        source,
    };
    match format {
        Format::Frames(dir) => {
            let mut count = 0;
            for shot in frames {
                let file = dir.join(format!("frame-{:05}.png", count + 1));
                let png = shot.pixmap.encode_png().map_err(|e| failed(&e))?;
                moonloop_door::write_whole(&file, &png, moonloop_door::Readers::All).map_err(
                    |e| {
                        failed(&format!(
                            "{e}; the {count} frame{} before are in the folder",
                            if count == 1 { "" } else { "s" }
                        ))
                    },
                )?;
                count += 1;
            }
            Ok(count)
        }
        Format::Gif(file) => {
            let mut out: Option<ending::GifFile> = None;
            let mut rgba = Vec::new();
            let mut differ = gif_frames::Differ::default();
            let (mut elapsed, mut written_cs) = (0.0f64, 0u64);
            for shot in frames {
                let (w, h) = (shot.pixmap.width() as u16, shot.pixmap.height() as u16);
                if out.is_none() {
                    out = Some(ending::GifFile::create(&file, (w, h)).map_err(lost)?);
                }
                // Whole centiseconds that keep the running total exact.
                elapsed += shot.dt;
                let target = (elapsed * 100.0).round() as u64;
                let delay = (target - written_cs.min(target)).max(1);
                written_cs += delay;
                straight_rgba(&shot.pixmap, &mut rgba);
                let mut frame = differ.frame(&rgba, (w, h));
                frame.delay = delay.min(u16::MAX as u64) as u16;
                out.as_mut()
                    .expect("made above")
                    .write(&frame)
                    .map_err(lost)?;
            }
            // The trailer is written here, where a full disk is seen and
            // reported, not on a silent drop.
            match out {
                Some(out) => out.finish().map_err(lost),
                None => {
                    // No frame: no file (an empty one is no GIF).
                    let _ = std::fs::remove_file(&file);
                    Ok(0)
                }
            }
        }
        Format::Apng(file) => {
            // APNG states its frame count first: frames go to a spool file
            // until the recording ends. (Packing them with fdeflate on the
            // way was tried: it made the game's frames slower, not faster.)
            let spool_path = file.with_extension("png.frames");
            let mut spool = BufWriter::new(
                moonloop_door::create(&spool_path, moonloop_door::Readers::Owner)
                    .map_err(|e| failed(&e))?,
            );
            let (mut count, mut size) = (0u64, (0u32, 0u32));
            let mut delays = Vec::new();
            let mut rgba = Vec::new();
            let spooled = || -> std::io::Result<()> {
                for shot in frames {
                    size = (shot.pixmap.width(), shot.pixmap.height());
                    let bytes = if is_opaque(&shot.pixmap) {
                        shot.pixmap.data()
                    } else {
                        straight_rgba(&shot.pixmap, &mut rgba);
                        &rgba
                    };
                    spool.write_all(bytes)?;
                    delays.push(rational(shot.dt));
                    count += 1;
                }
                spool.flush()
            };
            let result = spooled().and_then(|()| {
                if count > 0 {
                    write_apng(&file, &spool_path, size, &delays)
                } else {
                    Ok(())
                }
            });
            // The spool goes whatever happened: it is never the recording.
            // An animated PNG cut short is no PNG: none is left.
            drop(spool);
            let _ = std::fs::remove_file(&spool_path);
            if result.is_err() || count == 0 {
                let _ = std::fs::remove_file(&file);
            }
            result.map_err(lost)?;
            Ok(count)
        }
    }
}

fn write_apng(
    file: &Path,
    spool: &Path,
    size: (u32, u32),
    delays: &[(u16, u16)],
) -> std::io::Result<()> {
    let mut out = BufWriter::new(moonloop_door::create(file, moonloop_door::Readers::All)?);
    let mut input = std::io::BufReader::new(File::open(spool)?);
    apng(&mut out, size, delays, false, |frame| {
        input.read_exact(frame)
    })?;
    out.flush()
}

/// Writes an animated PNG of `delays.len()` frames of `size` to `out`,
/// reading each frame's straight RGBA bytes with `read`. After the first,
/// frames are written as their difference from the one before unless
/// `whole` (the bench's baseline) asks for every frame whole.
///
/// # Errors
/// A frame cannot be read or the PNG cannot be written: the I/O error,
/// its kind kept (a full disk is the machine's), or the encoder's.
pub fn apng(
    out: &mut impl Write,
    size: (u32, u32),
    delays: &[(u16, u16)],
    whole: bool,
    mut read: impl FnMut(&mut [u8]) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let mut encoder = png::Encoder::new(out, size.0, size.1);
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Eight);
    // Game frames are flat colors that any deflate packs well; the fast
    // one finishes a long recording several times sooner than the
    // default (which kept a closing window waiting seconds).
    encoder.set_compression(png::Compression::Fast);
    encoder.set_animated(delays.len() as u32, 0).map_err(io)?;
    let mut writer = encoder.write_header().map_err(io)?;
    let (w, h) = (size.0 as usize, size.1 as usize);
    let mut frame = vec![0u8; w * h * 4];
    let mut shown = Vec::with_capacity(frame.len());
    let mut area = Vec::new();
    for &(num, den) in delays {
        read(&mut frame)?;
        writer.set_frame_delay(num, den).map_err(io)?;
        if shown.is_empty() || whole {
            // The first frame is the PNG's own image: whole.
            writer.write_image_data(&frame).map_err(io)?;
            shown.clear();
            shown.extend_from_slice(&frame);
            continue;
        }
        let [x0, y0, x1, y1] = diff::changed(&shown, &frame, w, h).unwrap_or([0, 0, 1, 1]);
        let blend = difference(&shown, &frame, w, [x0, y0, x1, y1], &mut area);
        writer.set_frame_position(0, 0).map_err(io)?;
        writer
            .set_frame_dimension((x1 - x0) as u32, (y1 - y0) as u32)
            .map_err(io)?;
        writer
            .set_frame_position(x0 as u32, y0 as u32)
            .map_err(io)?;
        writer.set_blend_op(blend).map_err(io)?;
        writer.set_dispose_op(png::DisposeOp::None).map_err(io)?;
        writer.write_image_data(&area).map_err(io)?;
        shown.copy_from_slice(&frame);
    }
    writer.finish().map_err(io)
}

/// The encoder's error as an I/O error: the write's own where it was one
/// (its kind tells a full disk), the encoding fault otherwise.
fn io(e: png::EncodingError) -> std::io::Error {
    match e {
        png::EncodingError::IoError(e) => e,
        other => std::io::Error::other(other),
    }
}

/// Writes into `area` the pixels of `new` inside `rect` as an APNG frame
/// over `old`; returns how it goes on. Where every changed pixel is opaque,
/// unchanged ones are transparent and the frame is blended over the last
/// (which packs far smaller); otherwise the area replaces what was there.
fn difference(
    old: &[u8],
    new: &[u8],
    width: usize,
    [x0, y0, x1, y1]: [usize; 4],
    area: &mut Vec<u8>,
) -> png::BlendOp {
    area.clear();
    let rows = || (y0..y1).map(|y| (y * width + x0) * 4..(y * width + x1) * 4);
    let opaque = rows().all(|r| new[r].chunks_exact(4).all(|p| p[3] == 255));
    for r in rows() {
        if !opaque {
            area.extend_from_slice(&new[r]);
            continue;
        }
        for (n, o) in new[r.clone()].chunks_exact(4).zip(old[r].chunks_exact(4)) {
            area.extend_from_slice(if n == o { &[0, 0, 0, 0] } else { n });
        }
    }
    if opaque {
        png::BlendOp::Over
    } else {
        png::BlendOp::Source
    }
}

/// Says whether every pixel is opaque, when premultiplied and straight
/// bytes are the same.
fn is_opaque(pixmap: &Pixmap) -> bool {
    pixmap.data().chunks_exact(4).all(|p| p[3] == 255)
}

/// Writes the straight RGBA bytes of a premultiplied pixmap into `out`.
///
/// Opaque pixels are the same either way, and frames are mostly opaque:
/// the bytes are copied whole and only the others are divided.
fn straight_rgba(pixmap: &Pixmap, out: &mut Vec<u8>) {
    out.clear();
    out.extend_from_slice(pixmap.data());
    for (bytes, p) in out.chunks_exact_mut(4).zip(pixmap.pixels()) {
        if bytes[3] != 255 {
            let c = p.demultiply();
            bytes.copy_from_slice(&[c.red(), c.green(), c.blue(), c.alpha()]);
        }
    }
}

/// The fraction nearest `seconds` with both terms under 65,536, found by
/// continued fractions: 1/60 s is exactly `(1, 60)`.
pub fn rational(seconds: f64) -> (u16, u16) {
    if seconds.is_nan() || seconds <= 0.0 {
        return (0, 1);
    }
    let (mut h0, mut h1, mut k0, mut k1) = (0u64, 1u64, 1u64, 0u64);
    let mut x = seconds;
    for _ in 0..32 {
        let a = x.floor() as u64;
        let (h2, k2) = (a * h1 + h0, a * k1 + k0);
        if h2 > u16::MAX as u64 || k2 > u16::MAX as u64 {
            break;
        }
        (h0, h1, k0, k1) = (h1, h2, k1, k2);
        let frac = x - a as f64;
        if frac < 1e-9 || (h1 as f64 / k1 as f64 - seconds).abs() < 1e-12 {
            break;
        }
        x = 1.0 / frac;
    }
    if k1 == 0 {
        (u16::MAX, 1)
    } else {
        (h1 as u16, k1 as u16)
    }
}

#[cfg(test)]
mod tests;
