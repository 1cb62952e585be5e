//! `--audio FILE.wav`: the game's mix rendered into a file instead of a
//! device, in step with simulated time (rule H13).
//!
//! After each frame the renderer mixes up to the frame's simulated time,
//! counted in whole samples from the start of the run, so the file's
//! length follows the clock and not the machine: the same run under a
//! scripted clock gives the same bytes. Streamed sounds are decoded in
//! step before each block is mixed. The header is rewritten every second
//! of sound and at the end, so the file is a valid WAV whenever it is read.

use std::fs::File;
use std::io::{BufWriter, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use super::WriteError;
use super::mixer::{Command, Mixer, RATE};
use super::stream::Feeder;

/// Frames mixed at a time.
const BLOCK: usize = 1024;

/// The most frames one frame of the game may render: 10 minutes (a clock
/// that jumps further renders silence for no one).
const MAX_STEP: u64 = 600 * RATE as u64;

/// A mix being written to a WAV file.
pub struct WavOut {
    path: PathBuf,
    /// The file; `None` once the disk refused it (what reached it stays
    /// a valid WAV, and nothing more is written).
    file: Option<BufWriter<File>>,
    mixer: Mixer,
    feeders: Vec<Feeder>,
    frames: u64,
    since_header: u64,
    mixed: Vec<f32>,
    samples: Vec<u8>,
    /// Where the disk refused the file, in seconds, and why.
    refused: Option<(f64, std::io::Error)>,
}

impl WavOut {
    /// Creates `path` (its folder too) for a 48 kHz 16-bit stereo mix.
    ///
    /// # Errors
    /// The file cannot be made: its path is a folder, a device or a pipe,
    /// or the disk refused.
    pub fn create(path: &Path) -> Result<WavOut, WriteError> {
        let fail = |source| WriteError {
            path: path.to_path_buf(),
            source,
        };
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(fail)?;
        }
        let file = moonloop_door::create(path, moonloop_door::Readers::All).map_err(fail)?;
        let mut file = BufWriter::new(file);
        file.write_all(&super::wav::header(2, RATE, 16, 0))
            .map_err(fail)?;
        Ok(WavOut {
            path: path.to_path_buf(),
            file: Some(file),
            mixer: Mixer::default(),
            feeders: Vec::new(),
            frames: 0,
            since_header: 0,
            mixed: vec![0.0; BLOCK * 2],
            samples: Vec::with_capacity(BLOCK * 4),
            refused: None,
        })
    }

    /// Hands `command` to the mixer, with the feeder of the stream it
    /// starts, if any.
    pub fn apply(&mut self, command: Command, feeder: Option<Feeder>) {
        self.feeders.extend(feeder);
        self.mixer.apply(command);
    }

    /// Mixes and writes up to `seconds` of simulated time.
    ///
    /// # Errors
    /// The disk refused the file (full, or a file-size limit): said once,
    /// at the frame it happened; the file then ends as a valid WAV of the
    /// sound that reached it, and later frames write nothing.
    pub fn render_to(&mut self, seconds: f64) -> Result<(), WriteError> {
        let Some(file) = self.file.as_mut() else {
            return Ok(());
        };
        let target = (seconds.max(0.0) * f64::from(RATE)).round() as u64;
        let mut left = target.saturating_sub(self.frames).min(MAX_STEP);
        while left > 0 {
            let n = (left as usize).min(BLOCK);
            self.feeders.retain_mut(Feeder::pump);
            self.mixer.fill(&mut self.mixed[..n * 2]);
            self.samples.clear();
            for s in &self.mixed[..n * 2] {
                let v = (s * 32767.0).round() as i16;
                self.samples.extend_from_slice(&v.to_le_bytes());
            }
            if let Err(e) = file.write_all(&self.samples) {
                return Err(self.refuse(e));
            }
            self.frames += n as u64;
            self.since_header += n as u64;
            left -= n as u64;
        }
        if self.since_header >= u64::from(RATE) {
            self.since_header = 0;
            if let Err(e) = self.write_header() {
                return Err(self.refuse(e));
            }
        }
        Ok(())
    }

    /// Rewrites the header for the frames written so far.
    fn write_header(&mut self) -> std::io::Result<()> {
        let Some(out) = self.file.as_mut() else {
            return Ok(());
        };
        out.flush()?;
        header_for(out.get_mut(), self.frames)
    }

    /// The disk refused the file: what reached it is cut to whole
    /// samples under a header that says so, the buffer is let go (it
    /// would be written on drop, past the header), and nothing more is
    /// written. Returns the frame's error.
    fn refuse(&mut self, why: std::io::Error) -> WriteError {
        let mut kept = 0;
        if let Some(out) = self.file.take() {
            let (mut file, _unwritten) = out.into_parts();
            let len = file.metadata().map_or(0, |m| m.len());
            kept = len.saturating_sub(HEADER) / 4;
            let _ = file.set_len(HEADER + kept * 4);
            let _ = header_for(&mut file, kept);
            let _ = file.sync_all();
        }
        let seconds = kept as f64 / f64::from(RATE);
        let err = WriteError {
            path: self.path.clone(),
            source: std::io::Error::new(
                why.kind(),
                format!("{why}; the sound file stops at {seconds:.2} s and holds what came before"),
            ),
        };
        self.refused = Some((seconds, why));
        err
    }

    /// Finishes the file; returns its path and how many seconds it holds.
    ///
    /// # Errors
    /// The disk refused the file, now or before: the file holds the sound
    /// up to where it did, as a valid WAV.
    pub fn finish(mut self) -> Result<(PathBuf, f64), WriteError> {
        let done = self.write_header().and_then(|()| match &self.file {
            Some(out) => out.get_ref().sync_all(),
            None => Ok(()),
        });
        if let Err(e) = done {
            self.refuse(e);
        }
        match self.refused.take() {
            Some((seconds, why)) => Err(WriteError {
                path: self.path.clone(),
                source: std::io::Error::new(
                    why.kind(),
                    format!(
                        "it holds the first {seconds:.2} s of sound; the disk refused the rest ({why})"
                    ),
                ),
            }),
            None => Ok((self.path.clone(), self.frames as f64 / f64::from(RATE))),
        }
    }
}

/// The bytes of a WAV header.
const HEADER: u64 = 44;

/// Writes the header of a file of `frames` stereo 16-bit frames at its
/// start, and goes back to its end.
fn header_for(file: &mut File, frames: u64) -> std::io::Result<()> {
    let data = (frames * 4).min(u64::from(u32::MAX - 36)) as u32;
    file.seek(SeekFrom::Start(0))?;
    file.write_all(&super::wav::header(2, RATE, 16, data))?;
    file.seek(SeekFrom::End(0))?;
    Ok(())
}
