//! Start-up: pong loaded, started and run for one frame headless, as
//! `moonloop run games/pong --headless --frames 1` does once the process
//! is up, against the same with every module compiled to native code as
//! it loads (what moonloop did before native code waited for the second
//! frame). The target is the issue's: start and one frame in 5 ms.

use std::path::Path;
use std::time::Duration;

use super::{Row, interleaved};
use moonloop::clock::ConstantClock;
use moonloop::engine::Engine;
use moonloop::lua::{Limits, LuaGame};

/// What start and one frame may cost.
const TARGET: Duration = Duration::from_millis(5);

fn start_and_one_frame(dir: &Path, limits: Limits) {
    let game = LuaGame::load_with(dir, limits).expect("the game loads");
    let mut engine = moonloop::session::Session::new(Engine::new(
        game,
        Box::new(ConstantClock::new(1.0 / 60.0)),
    ));
    engine.advance(1).expect("the game runs");
}

/// The row, where the game is there.
pub fn row() -> Option<Row> {
    let pong = super::repository().join("games/pong");
    if !pong.join("main.luau").is_file() {
        return None;
    }
    let [eager, lazy] = interleaved(|case, n| {
        let limits = if case == 0 {
            super::at_load()
        } else {
            Limits::default()
        };
        for _ in 0..n {
            start_and_one_frame(&pong, limits);
        }
    });
    Some(Row {
        case: "pong: start and one frame vs the same compiling every module as it loads".into(),
        baseline: eager,
        measured: lazy,
        target: None,
        note: Some(format!(
            "{:.2} ms to start and show a frame (target 5 ms), {:.2} ms before",
            lazy.as_secs_f64() * 1e3,
            eager.as_secs_f64() * 1e3
        )),
        fails: (lazy > TARGET).then(|| "start and one frame take over 5 ms".to_string()),
        ..Row::default()
    })
}
