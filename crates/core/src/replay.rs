//! Replay: a log of every delivered delta and input event, written by
//! `--record-input` and played back by `--replay` to the same state (H6),
//! with the state hash of every frame, so a replay that goes another way
//! names the frame where it did (H11).
//!
//! The log is text, one line a fact, with deltas written in Rust's shortest
//! round-trip form so they read back bit for bit:
//!
//! ```text
//! moonloop-replay 3
//! seed 0
//! saved {"best": 12}
//! frame 1 0.016666666666666666
//! press space
//! hash 3f1c0a9be2d45e17
//! frame 2 0.016666666666666666
//! release space
//! hash 77e0b1c2d3a4f506
//! end 2 77e0b1c2d3a4f506
//! ```
//!
//! The last line, `end FRAMES HASH`, is written when the run ends: a log
//! without it was cut short (a crash, a full disk, a copy cut off), and
//! plays only to its last whole frame, with a warning and exit 1, never
//! silently as if it were whole.
//!
//! Event lines use the scripted input syntax and belong to the frame above;
//! `hash` is the state's at the end of that frame; `seed` is what
//! `math.random` started from; `game`
//! names the game the log was recorded from (its id, or its title), so that playing it against
//! another game is one clear error rather than a divergence; `saved`, when there is one, is the save
//! (H12) the game started from, its canonical JSON on one line, so the
//! replay starts where the recorded run did. Version 1 logs (no seed, no
//! hashes) and version 2 logs (no `end`) still play.

use crate::clock::{ListClock, MAX_DELTA};
use crate::config::Config;
use crate::input::{InputEvent, Script, When};

/// The first line of a log this host writes.
pub const HEADER: &str = "moonloop-replay 3";
const HEADER_V2: &str = "moonloop-replay 2";
const HEADER_V1: &str = "moonloop-replay 1";

/// The largest replay log read, in bytes.
pub const MAX_LOG: u64 = 256 << 20;

/// What `math.random` starts from when nothing says otherwise: a log
/// before version 2 has no `seed` line and was recorded from this.
pub const DEFAULT_SEED: u64 = 0;

/// A line of a replay log that cannot be read: its number (from 1) and
/// why, for the reader's door to place in its file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {reason}")]
pub struct BadLine {
    /// The line, counted from 1.
    pub line: usize,
    /// What is wrong with it.
    pub reason: String,
}

/// Puts canonical JSON on one line: its line breaks all fall between
/// tokens (a string's are escaped), so joining the trimmed lines keeps it
/// the same document.
pub fn one_line(json: &str) -> String {
    json.lines().map(str::trim).collect::<Vec<_>>().join(" ")
}

/// Returns the name a replay records its game by: the config's id, or
/// its title when it has none.
pub fn game_name(config: &Config) -> &str {
    config.id.as_deref().unwrap_or(&config.title)
}

/// A replay log read back: the deltas to play once and the input by frame.
#[derive(Debug, Clone)]
pub struct Replay {
    /// Every delivered delta, in order.
    pub deltas: Vec<f64>,
    /// The events, each on the frame that applied it.
    pub script: Script,
    /// What `math.random` started from.
    pub seed: u64,
    /// The `config.id` of the game the log was recorded from.
    pub game: Option<String>,
    /// The save the recorded run started from, as JSON.
    pub saved: Option<String>,
    /// Each frame's state hash as recorded, by frame (from 1); `None` where
    /// the log has none.
    pub hashes: Vec<Option<String>>,
    /// Where a log without its `end` line was cut: the line it ends at;
    /// its frames are those before (the last whole one kept).
    pub cut: Option<usize>,
    /// Whether playing it checks the game's properties (X1).
    pub properties: bool,
}

impl Replay {
    /// Reads a log from `text`.
    ///
    /// # Errors
    /// A line that is not a replay log's, with its number and the reason.
    pub fn parse(whole: &str) -> Result<Replay, BadLine> {
        Replay::parse_lines(whole).map_err(|(line, reason)| BadLine { line, reason })
    }

    fn parse_lines(whole: &str) -> Result<Replay, (usize, String)> {
        // A log that ends inside a line was cut there (a full disk, a
        // crash): that line is not read, whatever it holds, and the frame
        // it was part of is not whole (below).
        let text = if whole.starts_with(HEADER) && !whole.ends_with('\n') {
            &whole[..whole.rfind('\n').map_or(0, |i| i + 1)]
        } else {
            whole
        };
        let mut lines = text.lines().enumerate().peekable();
        let version = match lines.next() {
            Some((_, HEADER)) => 3,
            Some((_, HEADER_V2)) => 2,
            Some((_, HEADER_V1)) => 1,
            _ => {
                return Err((
                    1,
                    format!("not a replay log: the first line should be `{HEADER}`"),
                ));
            }
        };
        let mut seed = DEFAULT_SEED;
        if version >= 2 {
            match lines.next() {
                Some((i, line)) => {
                    seed = line
                        .strip_prefix("seed ")
                        .and_then(|n| n.trim().parse().ok())
                        .ok_or_else(|| (i + 1, "the second line should be `seed N`".to_string()))?;
                }
                None => return Err((2, "the second line should be `seed N`".to_string())),
            }
        }
        let game = lines
            .next_if(|(_, line)| line.starts_with("game "))
            .map(|(_, line)| line["game ".len()..].trim().to_string());
        let saved = lines
            .next_if(|(_, line)| line.starts_with("saved "))
            .map(|(_, line)| line["saved ".len()..].to_string());
        let properties = lines.next_if(|(_, line)| *line == "properties").is_some();
        let mut deltas = Vec::new();
        let mut hashes: Vec<Option<String>> = Vec::new();
        let mut events = Vec::new();
        let mut end = None;
        for (i, line) in lines {
            let words: Vec<&str> = line.split_whitespace().collect();
            if end.is_some() && !words.is_empty() {
                return Err((i + 1, "a line after the `end` line".to_string()));
            }
            match words.as_slice() {
                [] => {}
                ["end", frames, hash] if version >= 3 => {
                    if frames.parse::<u64>().ok() != Some(deltas.len() as u64) {
                        return Err((
                            i + 1,
                            format!(
                                "the `end` line says {frames} frames; the log holds {}",
                                deltas.len()
                            ),
                        ));
                    }
                    let last = hashes.last().cloned().flatten();
                    if (*hash == "-") != last.is_none() || last.is_some_and(|h| h != *hash) {
                        return Err((
                            i + 1,
                            "the `end` line's hash is not the last frame's".to_string(),
                        ));
                    }
                    end = Some(i + 1);
                }
                ["frame", n, dt] => {
                    let expected = deltas.len() as u64 + 1;
                    if n.parse::<u64>().ok() != Some(expected) {
                        return Err((i + 1, format!("expected frame {expected}, found `{n}`")));
                    }
                    let word = *dt;
                    let dt = dt
                        .parse::<f64>()
                        .ok()
                        .filter(|d| d.is_finite() && *d >= 0.0)
                        .ok_or_else(|| (i + 1, format!("`{dt}` is not a delta in seconds")))?;
                    // No clock gives more (H10): such a log was not recorded.
                    if dt > MAX_DELTA {
                        return Err((
                            i + 1,
                            format!("`{word}` s is longer than a frame may be ({} s)", MAX_DELTA),
                        ));
                    }
                    deltas.push(dt);
                    hashes.push(None);
                }
                ["hash", hash] => {
                    let Some(slot) = hashes.last_mut() else {
                        return Err((i + 1, "a hash before the first `frame` line".to_string()));
                    };
                    if hash.len() != 16 || !hash.bytes().all(|b| b.is_ascii_hexdigit()) {
                        return Err((i + 1, format!("`{hash}` is not a state hash")));
                    }
                    *slot = Some(hash.to_string());
                }
                _ => {
                    if deltas.is_empty() {
                        return Err((i + 1, "an event before the first `frame` line".to_string()));
                    }
                    for event in InputEvent::parse_line(line, &[]).map_err(|r| (i + 1, r.into()))? {
                        events.push((When::Frame(deltas.len() as u64), event));
                    }
                }
            }
        }
        // A log cut short keeps its frames up to the last whole one: a
        // frame with its hash, on a line that ended.
        let mut cut = None;
        if version >= 3 && end.is_none() {
            let lines = whole.lines().count();
            cut = Some(lines.max(1));
            let mut keep = deltas.len();
            // A frame without its hash was not written whole: the log is
            // whole only up to the first such frame.
            if let Some(hole) = hashes[..keep].iter().position(Option::is_none) {
                keep = hole;
            }
            deltas.truncate(keep);
            hashes.truncate(keep);
            events.retain(|(when, _)| matches!(when, When::Frame(f) if *f <= keep as u64));
        }
        Ok(Replay {
            deltas,
            script: Script::new(events),
            seed,
            game,
            saved,
            hashes,
            cut,
            properties,
        })
    }

    /// Writes the log back out as text, as [`ReplayWriter`] would have:
    /// reading it gives this replay again.
    pub fn to_text(&self) -> String {
        use std::fmt::Write as _;
        let mut out = format!("{HEADER}\nseed {}\n", self.seed);
        if let Some(game) = &self.game {
            let _ = writeln!(out, "game {game}");
        }
        if let Some(saved) = &self.saved {
            let _ = writeln!(out, "saved {}", one_line(saved));
        }
        if self.properties {
            out.push_str("properties\n");
        }
        let mut events = self.script.frame_events().peekable();
        for (i, dt) in self.deltas.iter().enumerate() {
            let frame = i as u64 + 1;
            let _ = writeln!(out, "frame {frame} {dt:?}");
            while let Some((_, event)) = events.next_if(|(f, _)| *f == frame) {
                let _ = writeln!(out, "{event}");
            }
            if let Some(Some(hash)) = self.hashes.get(i) {
                let _ = writeln!(out, "hash {hash}");
            }
        }
        let last = self.hashes.last().cloned().flatten();
        let _ = writeln!(
            out,
            "end {} {}",
            self.deltas.len(),
            last.as_deref().unwrap_or("-")
        );
        out
    }

    /// Returns a clock that gives the recorded deltas once.
    pub fn clock(&self) -> ListClock {
        ListClock::once(self.deltas.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // rule: H11
    #[test]
    fn a_log_cut_short_plays_to_its_last_whole_frame_and_says_so() {
        let whole = "moonloop-replay 3\nseed 0\nframe 1 0.5\nhash 0000000000000001\nframe 2 0.5\npress a\nhash 0000000000000002\nend 2 0000000000000002\n";
        let replay = Replay::parse(whole).unwrap();
        assert_eq!((replay.deltas.len(), replay.cut), (2, None));
        assert_eq!(replay.to_text(), whole, "written back alike");
        // Cut at every byte: never read as whole, never a frame too many,
        // and past its header always read (a partial hash or event was
        // refused as a bad line: the log a full disk left did not play).
        let frames_begin = whole.find("frame 1").unwrap();
        for at in 0..whole.len() - 1 {
            let replay = match Replay::parse(&whole[..at]) {
                Ok(replay) => replay,
                Err(_) if at < frames_begin => continue,
                Err(why) => panic!("cut at {at}: {:?}: {why:?}", &whole[..at]),
            };
            let kept = replay.deltas.len();
            assert!(replay.cut.is_some(), "cut at {at}: {:?}", &whole[..at]);
            assert!(replay.hashes.iter().all(Option::is_some), "cut at {at}");
            // A frame is whole once its hash line has ended.
            let ended = |hash: &str| at >= whole.find(hash).unwrap() + hash.len();
            let whole_frames = if ended("hash 0000000000000002\n") {
                2
            } else if ended("hash 0000000000000001\n") {
                1
            } else {
                0
            };
            assert_eq!(kept, whole_frames, "cut at {at}: {:?}", &whole[..at]);
        }
        let cut = Replay::parse(
            "moonloop-replay 3\nseed 0\nframe 1 0.5\nhash 0000000000000001\nframe 2 0.0166\n",
        )
        .unwrap();
        assert_eq!((cut.cut, cut.deltas.len()), (Some(5), 1));
        for (text, why) in [
            (
                "moonloop-replay 3\nseed 0\nframe 1 0.5\nhash 0000000000000001\nend 2 0000000000000001\n",
                "says 2 frames; the log holds 1",
            ),
            (
                "moonloop-replay 3\nseed 0\nframe 1 0.5\nhash 0000000000000001\nend 1 0000000000000009\n",
                "is not the last frame's",
            ),
            (
                "moonloop-replay 3\nseed 0\nend 0 -\nframe 1 0.5\n",
                "a line after the `end` line",
            ),
        ] {
            let BadLine { reason, .. } = Replay::parse(text).unwrap_err();
            assert!(reason.contains(why), "{reason}");
        }
        // Older logs had no `end` line and play whole.
        let v2 = Replay::parse("moonloop-replay 2\nseed 0\nframe 1 0.5\n").unwrap();
        assert_eq!((v2.deltas.len(), v2.cut), (1, None));
    }

    #[test]
    fn bad_replay_lines_are_named() {
        let cases = [
            (
                "hello\n",
                (
                    1,
                    "not a replay log: the first line should be `moonloop-replay 3`",
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
            (
                "moonloop-replay 1\nframe 1 1e308\n",
                (2, "`1e308` s is longer than a frame may be (1 s)"),
            ),
            (
                "moonloop-replay 2\nframe 1 0.1\n",
                (2, "the second line should be `seed N`"),
            ),
            (
                "moonloop-replay 2\nseed 1\nframe 1 0.1\nhash nothex\n",
                (4, "`nothex` is not a state hash"),
            ),
        ];
        for (text, (line, reason)) in cases {
            assert_eq!(
                Replay::parse(text).unwrap_err(),
                BadLine {
                    line,
                    reason: reason.to_string()
                }
            );
        }
    }
}
