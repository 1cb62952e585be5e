//! Playback: a game built to play a replay log (rules H6, H11), the one
//! way `run --replay` and `seek` both build it.
//!
//! The game starts from the replay's seed and save; the log must be the
//! game's (its `game` line); the clock gives the recorded deltas once,
//! the recorded input is fed on its frames, and each frame's hash is
//! checked against the log's. What is worth saying on the way is said
//! once, on stderr: a save notice, a bug report whose files changed, a
//! log cut short.

use std::path::Path;

use crate::engine::Engine;
use crate::error::Result;
use crate::lua::{Limits, LuaGame};
use crate::replay;
use crate::save::Saves;
use crate::terminal::tell;

/// A game standing at frame 0 of a replay, ready to play it.
pub struct Playback {
    /// The engine, its clock, input and hashes the log's.
    pub engine: Engine<LuaGame>,
    /// The frames the log holds.
    pub frames: u64,
    /// What `math.random` started from: the log's seed.
    pub seed: u64,
    /// Whether the log asks for the game's properties to be checked.
    pub properties: bool,
    /// Whether the log was cut short (it plays to its last whole frame,
    /// and the run should end with exit 1).
    pub cut_short: bool,
}

/// Builds the game in `game` (shown as `shown` in errors) to play the
/// replay log at `path`, under `limits` (whose seed the log's replaces).
///
/// # Errors
/// The log does not read, or was recorded from another game; the game
/// does not load.
pub fn open(game: &Path, shown: String, path: &Path, limits: Limits) -> Result<Playback> {
    let replay = replay::load(path)?;
    let name = replay.game.clone();
    let cut_short = replay::cut_warning(&replay, path);
    let playback = start(game, shown, replay, limits)?;
    let playing = replay::game_name(playback.engine.config());
    replay::check_game(name.as_deref(), path, playing)?;
    if let Some(line) = crate::report::check_files(game, path) {
        tell!("moonloop: {}", crate::terminal::line(&line));
    }
    if let Some(warning) = &cut_short {
        tell!("moonloop: {warning}");
    }
    Ok(Playback {
        cut_short: cut_short.is_some(),
        ..playback
    })
}

/// Builds the game in `game` (shown as `shown` in errors) to play
/// `replay`, a log already read and checked (one online play kept: its
/// frames drawn again for `--record`).
///
/// # Errors
/// The game does not load.
pub fn start(
    game: &Path,
    shown: String,
    replay: replay::Replay,
    limits: Limits,
) -> Result<Playback> {
    let limits = Limits {
        seed: replay.seed,
        ..limits
    };
    let mut loaded = LuaGame::load_shown(game, shown, limits, Saves::memory(replay.saved.clone()))?;
    if let Some(notice) = loaded.take_save_notice() {
        tell!("moonloop: {}", crate::terminal::line(&notice));
    }
    let frames = replay.deltas.len() as u64;
    let properties = replay.properties;
    let mut engine = Engine::new(loaded, Box::new(replay.clock()));
    engine.set_script(replay.script);
    engine.set_expected_hashes(replay.hashes);
    Ok(Playback {
        engine,
        frames,
        seed: limits.seed,
        properties,
        cut_short: false,
    })
}
