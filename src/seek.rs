//! `moonloop seek`: the first frame of a replay at which a Luau
//! expression over the state holds (rule R4), a reverse debugger for game
//! logic: `--when 'state.ball.vy ~= state.ball.vy'` finds the frame the
//! ball's speed became NaN.
//!
//! The replay plays as `--replay` plays it (its seed, its save, its
//! deltas and input, its hashes checked), headless and unrendered; the
//! expression is asked after `init` (frame 0) and after every frame, with
//! `state` and `frame` in scope. It sees the pure libraries only: looking
//! never changes the run looked at (no `math.random`, which would draw
//! from the game's generator).

use std::path::Path;
use std::process::ExitCode;

use crate::error::{Error, Result};
use crate::lua::{Limits, Predicate};
use crate::session::Session;
use crate::terminal::{say, tell};

/// Plays `replay` against `game` until `when` holds; prints `frame N` and
/// that frame's state as canonical JSON, and exits 0. Exits 1 when it
/// never holds, and 2 when the arguments are wrong: the expression does
/// not compile or fails, the replay is another game's.
///
/// # Errors
/// The game or the replay does not load, or the expression is bad.
pub fn run(game: &Path, replay_path: &Path, when: &str) -> Result<ExitCode> {
    let shown = game.to_string_lossy().trim_end_matches('/').to_string();
    let playback = crate::playback::open(game, shown, replay_path, Limits::default())?;
    let predicate = Predicate::compile(playback.engine.game(), when)?;
    let frames = playback.frames;
    let mut session = Session::new(playback.engine);
    let mut warned = false;
    loop {
        let engine = session.engine();
        let holds = predicate
            .holds(engine.game(), engine.frame())
            .map_err(|e| {
                // The predicate is one expression: its line says nothing.
                let why = e.to_string();
                let why = why
                    .split_once(": ")
                    .filter(|(place, _)| place.starts_with("--when:"))
                    .map_or(why.as_str(), |(_, rest)| rest)
                    .to_string();
                Error::usage(format!("--when failed at frame {}: {why}", engine.frame()))
            })?;
        if holds {
            say!("frame {}", engine.frame());
            say!("{}", engine.game().state_json()?);
            return Ok(ExitCode::SUCCESS);
        }
        if engine.frame() == frames {
            break;
        }
        if let Err(err) = session.advance(1) {
            let frame = session.engine().frame();
            let line = crate::terminal::line(&err.to_string());
            if matches!(err, Error::Stopped(_)) {
                // A frame that runs out of time would make every frame
                // after it wait as long: the search ends here (H9).
                return Err(Error::usage(format!(
                    "seek stopped at frame {frame}: {line}"
                )));
            }
            if !warned {
                // The game's own error (or a divergence) is the author's
                // to read; the search goes on, as the replay would.
                tell!("moonloop: frame {frame}: {line}");
                warned = true;
            }
        }
    }
    tell!(
        "moonloop: --when `{when}` never held in the {frames} frames of {}",
        replay_path.display()
    );
    Ok(ExitCode::FAILURE)
}
