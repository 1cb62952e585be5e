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
    file: BufWriter<File>,
    mixer: Mixer,
    feeders: Vec<Feeder>,
    frames: u64,
    since_header: u64,
    mixed: Vec<f32>,
    samples: Vec<u8>,
}

impl WavOut {
    /// Creates `path` (its folder too) for a 48 kHz 16-bit stereo mix.
    ///
    /// # Errors
    /// The file cannot be written.
    pub fn create(path: &Path) -> Result<WavOut, String> {
        let fail = |e: std::io::Error| format!("cannot write `{}` ({e})", path.display());
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(fail)?;
        }
        let mut file = BufWriter::new(File::create(path).map_err(fail)?);
        file.write_all(&super::wav::header(2, RATE, 16, 0))
            .map_err(fail)?;
        Ok(WavOut {
            path: path.to_path_buf(),
            file,
            mixer: Mixer::default(),
            feeders: Vec::new(),
            frames: 0,
            since_header: 0,
            mixed: vec![0.0; BLOCK * 2],
            samples: Vec::with_capacity(BLOCK * 4),
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
    /// The file cannot be written (a full disk).
    pub fn render_to(&mut self, seconds: f64) -> Result<(), String> {
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
            self.file
                .write_all(&self.samples)
                .map_err(|e| self.fail(e))?;
            self.frames += n as u64;
            self.since_header += n as u64;
            left -= n as u64;
        }
        if self.since_header >= u64::from(RATE) {
            self.since_header = 0;
            self.write_header()?;
        }
        Ok(())
    }

    fn fail(&self, e: std::io::Error) -> String {
        format!("writing `{}` failed ({e})", self.path.display())
    }

    fn write_header(&mut self) -> Result<(), String> {
        let data = (self.frames * 4).min(u64::from(u32::MAX - 36)) as u32;
        let header = super::wav::header(2, RATE, 16, data);
        let result = (|| {
            self.file.flush()?;
            let file = self.file.get_mut();
            file.seek(SeekFrom::Start(0))?;
            file.write_all(&header)?;
            file.seek(SeekFrom::End(0))?;
            Ok(())
        })();
        result.map_err(|e| self.fail(e))
    }

    /// Finishes the file; returns its path and how many seconds it holds.
    ///
    /// # Errors
    /// The file cannot be written.
    pub fn finish(mut self) -> Result<(PathBuf, f64), String> {
        self.write_header()?;
        self.file.get_ref().sync_all().map_err(|e| self.fail(e))?;
        Ok((self.path.clone(), self.frames as f64 / f64::from(RATE)))
    }
}
