//! Replay: a log of every delivered delta and input event, written by
//! `--record-input` and played back by `--replay` to the same state (H6).
//!
//! The log is text, one line a fact, with deltas written in Rust's shortest
//! round-trip form so they read back bit for bit:
//!
//! ```text
//! moonloop-replay 1
//! frame 1 0.016666666666666666
//! press space
//! frame 2 0.016666666666666666
//! release space
//! ```
//!
//! Event lines use the scripted input syntax and belong to the frame above.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use crate::clock::ListClock;
use crate::error::{Error, Result};
use crate::input::{InputEvent, Script, When};

const HEADER: &str = "moonloop-replay 1";

/// Writes a replay log as frames are delivered.
#[derive(Debug)]
pub struct ReplayWriter {
    path: PathBuf,
    out: BufWriter<File>,
}

impl ReplayWriter {
    /// Creates the log at `path`.
    ///
    /// # Errors
    /// The file cannot be created.
    pub fn create(path: &Path) -> Result<Self> {
        let file = File::create(path).map_err(|e| Error::io(path, e))?;
        let mut writer = ReplayWriter {
            path: path.to_path_buf(),
            out: BufWriter::new(file),
        };
        writer.line(format_args!("{HEADER}"))?;
        Ok(writer)
    }

    fn line(&mut self, args: std::fmt::Arguments<'_>) -> Result {
        writeln!(self.out, "{args}").map_err(|e| Error::io(&self.path, e))
    }

    /// Records that frame `frame` was delivered with `dt` seconds.
    pub fn frame(&mut self, frame: u64, dt: f64) -> Result {
        self.line(format_args!("frame {frame} {dt:?}"))
    }

    /// Records an event the current frame applied.
    pub fn event(&mut self, event: InputEvent) -> Result {
        self.line(format_args!("{event}"))
    }

    /// Writes everything buffered to disk.
    pub fn flush(&mut self) -> Result {
        self.out.flush().map_err(|e| Error::io(&self.path, e))
    }
}

/// A replay log read back: the deltas to play once and the input by frame.
#[derive(Debug, Clone)]
pub struct Replay {
    /// Every delivered delta, in order.
    pub deltas: Vec<f64>,
    /// The events, each on the frame that applied it.
    pub script: Script,
}

impl Replay {
    /// Reads the log at `path`.
    ///
    /// # Errors
    /// The file cannot be read or is not a replay log; the error names the line.
    pub fn load(path: &Path) -> Result<Replay> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        Replay::parse(&text).map_err(|(line, reason)| Error::Input {
            path: path.to_path_buf(),
            line,
            reason,
        })
    }

    /// Reads a log from `text`; an error gives the line and the reason.
    pub fn parse(text: &str) -> std::result::Result<Replay, (usize, String)> {
        let mut lines = text.lines().enumerate();
        match lines.next() {
            Some((_, HEADER)) => {}
            _ => {
                return Err((
                    1,
                    format!("not a replay log: the first line should be `{HEADER}`"),
                ));
            }
        }
        let mut deltas = Vec::new();
        let mut events = Vec::new();
        for (i, line) in lines {
            let words: Vec<&str> = line.split_whitespace().collect();
            match words.as_slice() {
                [] => {}
                ["frame", n, dt] => {
                    let expected = deltas.len() as u64 + 1;
                    if n.parse::<u64>().ok() != Some(expected) {
                        return Err((i + 1, format!("expected frame {expected}, found `{n}`")));
                    }
                    let dt = dt
                        .parse::<f64>()
                        .ok()
                        .filter(|d| d.is_finite() && *d >= 0.0)
                        .ok_or_else(|| (i + 1, format!("`{dt}` is not a delta in seconds")))?;
                    deltas.push(dt);
                }
                event => {
                    if deltas.is_empty() {
                        return Err((i + 1, "an event before the first `frame` line".to_string()));
                    }
                    let event = InputEvent::parse(event).map_err(|r| (i + 1, r))?;
                    events.push((When::Frame(deltas.len() as u64), event));
                }
            }
        }
        Ok(Replay {
            deltas,
            script: Script::new(events),
        })
    }

    /// Returns a clock that gives the recorded deltas once.
    pub fn clock(&self) -> ListClock {
        ListClock::once(self.deltas.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::Key;

    #[test]
    fn replay_logs_read_back_exactly() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.replay");
        let space = Key::from_name("space").unwrap();
        let mut writer = ReplayWriter::create(&path).unwrap();
        writer.frame(1, 1.0 / 60.0).unwrap();
        writer.event(InputEvent::Press(space)).unwrap();
        writer.frame(2, 0.1 + 0.2).unwrap();
        writer.event(InputEvent::Move(1.5, -2.0)).unwrap();
        writer.flush().unwrap();
        let replay = Replay::load(&path).unwrap();
        assert_eq!(
            replay.deltas,
            vec![1.0 / 60.0, 0.1 + 0.2],
            "deltas round-trip bit for bit"
        );
        assert_eq!(
            replay.script,
            Script::new(vec![
                (When::Frame(1), InputEvent::Press(space)),
                (When::Frame(2), InputEvent::Move(1.5, -2.0)),
            ])
        );
    }

    #[test]
    fn bad_replay_lines_are_named() {
        let cases = [
            (
                "hello\n",
                (
                    1,
                    "not a replay log: the first line should be `moonloop-replay 1`",
                ),
            ),
            (
                "moonloop-replay 1\npress a\n",
                (2, "an event before the first `frame` line"),
            ),
            (
                "moonloop-replay 1\nframe 2 0.1\n",
                (2, "expected frame 1, found `2`"),
            ),
            (
                "moonloop-replay 1\nframe 1 -0.1\n",
                (2, "`-0.1` is not a delta in seconds"),
            ),
        ];
        for (text, (line, reason)) in cases {
            assert_eq!(Replay::parse(text).unwrap_err(), (line, reason.to_string()));
        }
    }
}
