//! The rollback cases (rule N1): a frame played live under the sync test
//! at a depth of 8, which holds the frame and then goes back 8 frames and
//! runs them again, as online play does when late input arrives, against
//! the same frame played live alone; for pong and the 1,000-balls game.
//! The target is the issue's: the 8 frames run again fit in one 16.7 ms
//! frame for pong.

use std::path::Path;

use super::{BALLS, Row, TempGame, interleaved};
use moonloop::clock::ConstantClock;
use moonloop::engine::Engine;
use moonloop::error::Result;
use moonloop::history::DEFAULT_CAP;
use moonloop::lua::LuaGame;

/// Frames rolled back each frame.
const DEPTH: u64 = 8;

/// One 60 Hz frame, in seconds.
const FRAME: f64 = 1.0 / 60.0;

fn engine(dir: &Path, synctest: bool) -> Result<Engine<LuaGame>> {
    let game = LuaGame::load(dir)?;
    let mut engine = Engine::new(game, Box::new(ConstantClock::new(FRAME)));
    engine.keep_history(DEFAULT_CAP)?;
    if synctest {
        engine.set_synctest(Some(DEPTH), DEFAULT_CAP)?;
    }
    // Past the start, so every frame measured rolls back the full depth.
    engine.advance(2 * DEPTH)?;
    Ok(engine)
}

fn row(name: &str, dir: &Path, target_frame: bool) -> Result<Row> {
    let mut live = engine(dir, false)?;
    let mut rolled = engine(dir, true)?;
    let [baseline, measured] = interleaved(|case, n| {
        let engine = if case == 0 { &mut live } else { &mut rolled };
        for _ in 0..n {
            engine.advance(1).expect("the game runs");
            engine.cues_mut().drain().for_each(drop);
        }
    });
    let again = measured.saturating_sub(baseline);
    let fails = (target_frame && again.as_secs_f64() > FRAME).then(|| {
        format!(
            "{:.2} ms to run {DEPTH} frames again is over one frame (16.7 ms)",
            again.as_secs_f64() * 1e3
        )
    });
    Ok(Row {
        case: format!(
            "{name}: a frame with {DEPTH} frames rolled back and run again vs one played live"
        ),
        baseline,
        measured,
        target: None,
        note: Some(format!(
            "{DEPTH} frames again in {:.2} ms ({:.0}% of a 60 Hz frame); a live frame {:.3} ms",
            again.as_secs_f64() * 1e3,
            again.as_secs_f64() / FRAME * 100.0,
            baseline.as_secs_f64() * 1e3
        )),
        fails,
        ..Row::default()
    })
}

/// The rows.
///
/// # Errors
/// A game does not load or run.
pub fn rows() -> Result<Vec<Row>> {
    let mut rows = Vec::new();
    let pong = super::repository().join("games/pong");
    if pong.join("main.luau").is_file() {
        rows.push(row("pong", &pong, true)?);
    }
    let balls = TempGame::new(
        "rollback-balls",
        &format!("{BALLS}return {{ init = init, update = update }}\n"),
    )?;
    rows.push(row("1,000 balls", &balls.0, false)?);
    rows.extend(super::online::row()?);
    Ok(rows)
}
