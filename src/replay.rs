//! Replay logs on disk (H6, H11): written by `--record-input` as frames
//! are delivered, read back by `--replay`. What a log says and how its
//! text reads are core's ([`moonloop_core::replay`], where the format is
//! described); here are the file it is written to and read from, and the
//! checks that need the game: its save read as a save, its game's name.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::input::InputEvent;

pub use moonloop_core::replay::{BadLine, HEADER, MAX_LOG, Replay, game_name, one_line};

/// Writes a replay log as frames are delivered.
#[derive(Debug)]
pub struct ReplayWriter {
    path: PathBuf,
    out: BufWriter<File>,
    /// The frames written, and the last hash, for the `end` line.
    frames: u64,
    last_hash: Option<String>,
}

impl ReplayWriter {
    /// Creates the log at `path` for a run whose `math.random` starts from
    /// `seed` and whose game started from the save `saved` (JSON).
    ///
    /// # Errors
    /// The file cannot be created, or is named like Luau source.
    pub fn create(path: &Path, seed: u64, game: Option<&str>, saved: Option<&str>) -> Result<Self> {
        // `--record-input g/main.luau` (for `--input`) would put the log
        // over the author's code.
        if crate::assets::is_luau_source(path) {
            return Err(Error::usage(format!(
                "cannot record input to {}: that is a Luau file, and a replay log would \
                 replace it (name the log like run.replay)",
                path.display()
            )));
        }
        let file = moonloop_door::create(path, moonloop_door::Readers::All)
            .map_err(|e| Error::io(path, e))?;
        let mut writer = ReplayWriter {
            path: path.to_path_buf(),
            out: BufWriter::new(file),
            frames: 0,
            last_hash: None,
        };
        writer.line(format_args!("{HEADER}"))?;
        writer.line(format_args!("seed {seed}"))?;
        if let Some(game) = game {
            writer.line(format_args!("game {game}"))?;
        }
        if let Some(saved) = saved {
            writer.line(format_args!("saved {}", one_line(saved)))?;
        }
        Ok(writer)
    }

    fn line(&mut self, args: std::fmt::Arguments<'_>) -> Result {
        writeln!(self.out, "{args}").map_err(|e| Error::io(&self.path, e))
    }

    /// Records that frame `frame` was delivered with `dt` seconds.
    pub fn frame(&mut self, frame: u64, dt: f64) -> Result {
        self.frames = frame;
        self.last_hash = None;
        self.line(format_args!("frame {frame} {dt:?}"))
    }

    /// Returns where the log is written.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Records an event the current frame applied.
    pub fn event(&mut self, event: InputEvent) -> Result {
        self.line(format_args!("{event}"))
    }

    /// Records the state's hash at the end of the current frame.
    pub fn hash(&mut self, hash: &str) -> Result {
        self.last_hash = Some(hash.to_string());
        self.line(format_args!("hash {hash}"))?;
        // Each frame reaches the file as it ends, so a disk that refuses
        // the log refuses it at the frame it happens on, and the log on
        // disk holds every frame before it.
        self.out.flush().map_err(|e| Error::io(&self.path, e))
    }

    /// Says, at the top of the log, that playing it checks the game's
    /// properties after every frame (a log `moonloop explore` wrote, which
    /// breaks one).
    ///
    /// # Errors
    /// The log could not be written.
    pub fn properties(&mut self) -> Result {
        self.line(format_args!("properties"))
    }

    /// Ends the log with its `end` line and writes it all to disk.
    ///
    /// # Errors
    /// The log could not be written.
    pub fn finish(mut self) -> Result {
        let hash = self.last_hash.take().unwrap_or_else(|| "-".into());
        let frames = self.frames;
        self.line(format_args!("end {frames} {hash}"))?;
        self.out.flush().map_err(|e| Error::io(&self.path, e))?;
        self.out
            .get_ref()
            .sync_data()
            .map_err(|e| Error::io(&self.path, e))
    }
}

/// Reads the log at `path`.
///
/// # Errors
/// The file cannot be read or is not a replay log; the error names the line.
pub fn load(path: &Path) -> Result<Replay> {
    let bytes = crate::assets::read_path(path, &path.to_string_lossy(), MAX_LOG)
        .map_err(|why| Error::io(path, why.into()))?;
    let text = String::from_utf8_lossy(&bytes);
    let replay = Replay::parse(&text).map_err(|BadLine { line, reason }| Error::Input {
        path: path.to_path_buf(),
        line,
        reason,
    })?;
    // The save it starts from is read as a save is, here, where the
    // line it stands on can be named.
    if let Some(saved) = &replay.saved {
        let line = text
            .lines()
            .position(|l| l.starts_with("saved "))
            .map_or(0, |i| i + 1);
        let bad = |reason: String| Error::Input {
            path: path.to_path_buf(),
            line,
            reason,
        };
        crate::save::check_size(saved, "its saved").map_err(|r| bad(r.into()))?;
        moonloop_core::document::read(saved, crate::state::MAX_DEPTH)
            .map_err(|why| bad(format!("the saved line is not a save ({why})")))?;
    }
    Ok(replay)
}

/// The warning for a log cut short, naming where it plays to.
pub fn cut_warning(replay: &Replay, path: &Path) -> Option<String> {
    replay.cut.map(|line| {
        format!(
            "{}:{line}: the log ends without its `end` line (cut short?); it plays to frame {}, the last whole one",
            crate::terminal::escape(&path.to_string_lossy()),
            replay.deltas.len()
        )
    })
}

/// Checks that the log at `path`, whose `game` line says it was
/// `recorded` from that game, is a log of the game named `name` (its
/// [`game_name`]); a log from before the `game` line fits any game.
///
/// # Errors
/// It was recorded from another game: a usage error naming both.
pub fn check_game(recorded: Option<&str>, path: &Path, name: &str) -> Result {
    match recorded {
        Some(recorded) if recorded != name => Err(Error::usage_of(
            path.display().to_string(),
            format!(
                "this replay was recorded from the game `{recorded}`, not `{name}` (its config.id, or its title)"
            ),
        )),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::{Key, Script, When};

    #[test]
    fn replay_logs_read_back_exactly() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.replay");
        let space = Key::from_name("space").unwrap();
        let saved = "{\n  \"best\": 12,\n  \"name\": \"a  b\"\n}";
        let mut writer = ReplayWriter::create(&path, 42, Some("pong"), Some(saved)).unwrap();
        writer.frame(1, 1.0 / 60.0).unwrap();
        writer.event(InputEvent::Press(space)).unwrap();
        writer.hash("00112233445566ff").unwrap();
        writer.frame(2, 0.1 + 0.2).unwrap();
        writer.event(InputEvent::Move(1.5, -2.0)).unwrap();
        writer.finish().unwrap();
        let replay = load(&path).unwrap();
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
        assert_eq!(replay.seed, 42);
        assert_eq!(
            replay.saved.as_deref(),
            Some("{ \"best\": 12, \"name\": \"a  b\" }"),
            "the save is on one line, its strings untouched"
        );
        assert_eq!(replay.hashes, [Some("00112233445566ff".to_string()), None]);
        assert_eq!(
            replay.to_text(),
            std::fs::read_to_string(&path).unwrap(),
            "written back, the log is the same text"
        );
    }

    #[test]
    fn a_cut_log_says_where_it_plays_to() {
        let cut = Replay::parse(
            "moonloop-replay 3\nseed 0\nframe 1 0.5\nhash 0000000000000001\nframe 2 0.0166\n",
        )
        .unwrap();
        assert_eq!(
            cut_warning(&cut, Path::new("run.replay")).unwrap(),
            "run.replay:5: the log ends without its `end` line (cut short?); it plays to frame 1, the last whole one"
        );
    }
}
