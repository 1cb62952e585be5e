//! One run of exploration (rule X1): the game loaded afresh, given a
//! plan's input under a constant 1/60 s clock, and asked after every
//! frame whether it broke: an error of the frame (`update` failed,
//! returned nil, ran past its budget or the memory cap: the properties
//! every game has) or a property of the author's that does not hold.

use std::collections::HashSet;
use std::path::Path;

use super::plan::{self, Step};
use crate::clock::ConstantClock;
use crate::engine::Engine;
use crate::error::Result;
use crate::input::{Script, When};
use crate::lua::LuaGame;
use crate::lua::properties::Properties;
use crate::session::Session;

/// What broke.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Broke {
    /// A property did not hold: its name, and why when it failed rather
    /// than answered false.
    Property(String, Option<String>),
    /// The frame failed (the properties every game has).
    Frame(String),
}

impl Broke {
    /// Whether `other` is the same breakage, for shrinking: the same
    /// property, or a frame error of the same words (numbers aside, which
    /// name frames and values that shrinking moves).
    pub fn same_as(&self, other: &Broke) -> bool {
        let words = |s: &str| {
            s.chars()
                .filter(|c| !c.is_ascii_digit())
                .collect::<String>()
        };
        match (self, other) {
            (Broke::Property(a, _), Broke::Property(b, _)) => a == b,
            (Broke::Frame(a), Broke::Frame(b)) => words(a) == words(b),
            _ => false,
        }
    }

    /// One line for the author.
    pub fn describe(&self) -> String {
        match self {
            Broke::Property(name, None) => format!("property `{name}` does not hold"),
            Broke::Property(name, Some(why)) => format!("property `{name}` failed: {why}"),
            Broke::Frame(why) => format!("the frame failed: {why}"),
        }
    }
}

/// Where a run broke.
#[derive(Debug, Clone)]
pub struct Failure {
    /// The frame after which it broke (0: `init`'s state).
    pub frame: u64,
    /// What broke.
    pub broke: Broke,
}

/// What a run did.
#[derive(Debug, Default)]
pub struct Played {
    /// Where it broke, if it did.
    pub failure: Option<Failure>,
    /// The frames it ran.
    pub frames: u64,
    /// The frames at which it first reached features not in the search's
    /// `seen` set, with them.
    pub new: Vec<(u64, u64)>,
}

/// A check-dt scenario that every run must pass (X1): its `outcome`,
/// given the run's input at the same simulated times, is the same under
/// every clock.
#[derive(Debug, Clone)]
pub struct DtCheck {
    /// The scenario file.
    pub scenario: std::path::PathBuf,
    /// The clocks, the first (the run's own, 1/60 s) the reference.
    pub clocks: Vec<crate::clock::ClockSpec>,
}

/// The name a check-dt breakage goes by.
pub const CHECK_DT: &str = "check-dt (K4)";

impl DtCheck {
    /// Plays `steps` for `frames` frames' worth of simulated time under
    /// each clock; what differs, if anything.
    fn differs(&self, dir: &Path, steps: &[Step], frames: u64) -> Result<Option<String>> {
        // Frame N of a 1/60 s run ends at N/60 s: the same input at the
        // same simulated time, under any clock.
        let timed = Script::new(
            steps
                .iter()
                .map(|s| (When::Time(s.frame as f64 / 60.0 - 1e-6), s.event))
                .collect(),
        );
        let runs = crate::lua::check_dt_with(
            dir,
            &self.scenario,
            &self.clocks,
            Some((timed, frames as f64 / 60.0)),
        )?;
        let shown: Vec<String> = self.clocks.iter().map(|c| c.to_string()).collect();
        Ok(crate::lua::disagreements(&runs, &shown).into_iter().next())
    }
}

/// Runs the game in `dir` on `steps` for `frames` frames, asking
/// `properties` after each (and `dt`'s scenario after a run that held
/// them); features not in `seen` are noted. A run still playing at
/// `deadline` stops there, as if its frames had ended (`--time`).
///
/// # Errors
/// The game does not load, or its `features` fails.
pub fn play(
    dir: &Path,
    steps: &[Step],
    frames: u64,
    properties: &Properties,
    seen: &HashSet<u64>,
    dt: Option<&DtCheck>,
    deadline: Option<std::time::Instant>,
) -> Result<Played> {
    let game = LuaGame::load(dir)?;
    let mut engine = Engine::new(game, Box::new(ConstantClock::new(1.0 / 60.0)));
    engine.set_script(plan::script(steps));
    let mut session = Session::new(engine);
    let mut played = Played::default();
    let mut noted: HashSet<u64> = HashSet::new();
    let mut look = |engine: &Engine<LuaGame>, played: &mut Played| -> Result<bool> {
        let frame = engine.frame();
        if let Some((name, why)) = properties.broken(engine.game(), frame)? {
            played.failure = Some(Failure {
                frame,
                broke: Broke::Property(name, why),
            });
            return Ok(true);
        }
        if let Some(feature) = properties.features(engine.game(), frame)?
            && !seen.contains(&feature)
            && noted.insert(feature)
        {
            played.new.push((frame, feature));
        }
        Ok(false)
    };
    if look(session.engine(), &mut played)? {
        return Ok(played);
    }
    for _ in 0..frames {
        if deadline.is_some_and(|d| std::time::Instant::now() >= d) {
            // Out of time: what ran counts; the check-dt replay of a
            // run cut short would not be the run's.
            played.frames = session.engine().frame();
            return Ok(played);
        }
        if let Err(err) = session.advance(1) {
            played.frames = session.engine().frame();
            played.failure = Some(Failure {
                frame: played.frames,
                broke: Broke::Frame(err.to_string()),
            });
            return Ok(played);
        }
        if look(session.engine(), &mut played)? {
            break;
        }
    }
    played.frames = session.engine().frame();
    if played.failure.is_none()
        && let Some(dt) = dt
        && let Some(why) = dt.differs(dir, steps, played.frames)?
    {
        played.failure = Some(Failure {
            frame: played.frames,
            broke: Broke::Property(CHECK_DT.into(), Some(why)),
        });
    }
    Ok(played)
}
