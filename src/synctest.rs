//! `moonloop synctest GAME`: the game played on generated input (the
//! input `moonloop explore` makes, from a seed) or on an input file, with
//! every frame rolled back and run again (rule N1 in docs/netplay.md).
//! A game that passes can be rolled back the way online play rolls it
//! back when a remote player's input arrives late.

use std::path::PathBuf;

use crate::clock::ConstantClock;
use crate::engine::{Engine, Game};
use crate::error::{Error, Result};
use crate::explore::plan::{self, Inputs, Rng};
use crate::lua::LuaGame;
use crate::session::Session;

/// What to check.
#[derive(Debug, Clone)]
pub struct Options {
    /// The game folder.
    pub game: PathBuf,
    /// The frames played (1/60 s each).
    pub frames: u64,
    /// The frames rolled back after each.
    pub depth: u64,
    /// Where generated input comes from.
    pub seed: u64,
    /// An input file, played instead: a path as the shell gives it, as
    /// `run --input` takes one.
    pub input: Option<PathBuf>,
}

/// How a run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// Every frame came out the same.
    Passed(Passed),
    /// A frame came out differently (the N1 line) or failed on its own.
    Failed(String),
}

/// A run that passed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Passed {
    /// The frames played.
    pub frames: u64,
    /// The frames run again and found the same.
    pub checked: u64,
}

/// Plays the game under a sync test.
///
/// # Errors
/// The game does not load, or the input file does not.
pub fn run(options: &Options) -> Result<Outcome> {
    let game = LuaGame::load(&options.game)?;
    let config = crate::Game::config(&game);
    let script = match &options.input {
        Some(path) => crate::input::load_script(path, &config.actions)?,
        None => {
            let inputs = Inputs::of(config.every_action(), config.logical());
            let mut rng = Rng::for_run(options.seed, 0);
            plan::script(&plan::make(&inputs, &mut rng, options.frames, &[], 1))
        }
    };
    let mut engine = Engine::new(game, Box::new(ConstantClock::new(1.0 / 60.0)));
    engine.set_script(script);
    engine.set_synctest(Some(options.depth), crate::history::DEFAULT_CAP)?;
    // Sounds and saves are asked for but nothing plays them here: the
    // session lets them go.
    let mut session = Session::new(engine);
    for _ in 0..options.frames {
        let result = session.advance(1);
        let engine = session.engine();
        match result {
            Ok(()) => {}
            Err(
                failed @ Error::Rule {
                    rule: crate::Rule::N1,
                    ..
                },
            ) => {
                return Ok(Outcome::Failed(failed.to_string()));
            }
            Err(other) => {
                return Ok(Outcome::Failed(format!(
                    "frame {} failed before the sync test could check it: {}",
                    engine.frame(),
                    other.chain()
                )));
            }
        }
        if engine.game().wants_to_quit() {
            break;
        }
    }
    let engine = session.engine();
    Ok(Outcome::Passed(Passed {
        frames: engine.frame(),
        checked: engine.synctest_checked(),
    }))
}
