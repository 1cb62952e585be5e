//! Scenario: one run of a game, repeated under several clocks, for
//! `moonloop check-dt` (rule K4). What must not depend on the step
//! (elapsed time, who scored, which events happened) is compared; exact
//! positions may differ and are not.
//!
//! A scenario is a Luau file beside the game:
//!
//! ```lua
//! return {
//!     seconds = 5,                                   -- simulated time to run
//!     input = { "0.5s press up", "1s release up" },  -- scripted input (or a file name)
//!     setup = function(state) return state end,      -- an initial transition
//!     outcome = function(state, cues)                -- what must match
//!         return { score = state.score, hits = #cues }
//!     end,
//! }
//! ```

use std::path::{Path, PathBuf};

use mlua::{Function, Lua, Value};

use super::errors;
use super::game::LuaGame;
use super::require::{self, ModuleId, Modules};
use super::vm::{self, Attached, Budget, Call, Limits};
use crate::clock::ClockSpec;
use crate::engine::Engine;
use crate::error::{Error, Result};
use crate::input::{Action, Script};
use crate::session::Session;
use crate::state;

/// The clocks `check-dt` uses when none are given.
pub const DEFAULT_CLOCKS: &[&str] = &[
    "constant:1/60",
    "constant:1/144",
    "list:1/30,1/90,1/240",
    "jitter:seed=7,min=0.008,max=0.033",
];

/// The longest scenario, in simulated seconds.
pub const MAX_SECONDS: f64 = 3600.0;

/// The most frames one run of a scenario takes.
pub const MAX_FRAMES: u64 = 10_000_000;

/// What one clock's run came to.
#[derive(Debug, Clone, PartialEq)]
pub struct Run {
    /// The clock.
    pub clock: String,
    /// Delivered frames.
    pub frames: u64,
    /// Simulated seconds at the end.
    pub elapsed: f64,
    /// How the run ended.
    pub outcome: Ending,
}

/// How one scenario run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ending {
    /// It ran its seconds; the outcome function's table, as canonical JSON.
    Outcome(String),
    /// It did not: why (the frame that failed, a setup that was refused).
    Failed(String),
}

impl Ending {
    /// The outcome's JSON, for a run that reached one.
    pub fn json(&self) -> Option<&str> {
        match self {
            Ending::Outcome(json) => Some(json),
            Ending::Failed(_) => None,
        }
    }
}

struct Loaded {
    /// Declared before the VM: it detaches as it drops, first.
    budget: Attached,
    lua: Lua,
    seconds: f64,
    script: Option<Script>,
    setup: Option<Function>,
    outcome: Function,
}

fn load(game_dir: &Path, file: &Path, actions: &[Action]) -> Result<Loaded> {
    let display = game_dir.to_string_lossy().trim_end_matches('/').to_string();
    let rel = file
        .strip_prefix(game_dir)
        .map(Path::to_path_buf)
        .unwrap_or_else(|_| file.to_path_buf());
    if rel.is_absolute() || !game_dir.join(&rel).is_file() {
        return Err(Error::Game {
            path: file.to_path_buf(),
            reason: "no such scenario file in the game folder".into(),
        });
    }
    let modules = Modules::new(game_dir.to_path_buf(), display);
    let id = ModuleId::Game(rel);
    let name = modules.chunk_name(&id);
    let script = |e: mlua::Error| Error::script(errors::describe(&e));
    let lua = vm::new_vm(Limits::default()).map_err(script)?;
    lua.set_app_data(modules);
    require::install(&lua).map_err(script)?;
    state::install(&lua).map_err(script)?;
    vm::seal(&lua).map_err(script)?;
    let budget = Budget::install(&lua, super::testing::TEST_BUDGET).map_err(script)?;
    let value = budget
        .guard(Call::Load, || require::load(&lua, &id))
        .map_err(script)?;
    let bad = |what: &str| Error::script(format!("{name}: {what}"));
    let Value::Table(table) = value else {
        return Err(bad(
            "a scenario returns a table: { seconds = ..., outcome = function(state, cues) ... end }",
        ));
    };
    let seconds = match table.raw_get::<Value>("seconds").map_err(script)? {
        Value::Integer(i) if i > 0 && i as f64 <= MAX_SECONDS => i as f64,
        Value::Number(n) if n > 0.0 && n <= MAX_SECONDS => n,
        _ => {
            return Err(bad(&format!(
                "`seconds` is the simulated time to run, above 0 and at most {MAX_SECONDS}"
            )));
        }
    };
    let outcome: Function = table
        .raw_get::<Option<Function>>("outcome")
        .map_err(script)?
        .ok_or_else(|| bad("`outcome` is a function(state, cues) returning what must match"))?;
    let setup: Option<Function> = table.raw_get("setup").map_err(script)?;
    let script = match table.raw_get::<Value>("input").map_err(script)? {
        Value::Nil => None,
        // A file the scenario names is game content: through the door (H10).
        Value::String(s) => Some(crate::input::load_script_in(
            game_dir,
            &s.to_string_lossy(),
            actions,
        )?),
        Value::Table(lines) => {
            let text = lines
                .sequence_values::<String>()
                .collect::<mlua::Result<Vec<_>>>()
                .map_err(|_| bad("`input` is a list of lines such as \"0.5s press up\""))?
                .join("\n");
            let script =
                Script::parse_with(&text, actions).map_err(|(line, reason)| Error::Input {
                    path: PathBuf::from(format!("{name} input")),
                    line,
                    reason,
                })?;
            Some(script)
        }
        _ => {
            return Err(bad(
                "`input` is a list of lines or the name of an input file",
            ));
        }
    };
    Ok(Loaded {
        lua,
        budget,
        seconds,
        script,
        setup,
        outcome,
    })
}

/// Runs the scenario `file` of the game in `game_dir` under each clock.
///
/// # Errors
/// The scenario or the game does not load, or a clock SPEC is bad.
pub fn check_dt(game_dir: &Path, file: &Path, clocks: &[ClockSpec]) -> Result<Vec<Run>> {
    check_dt_with(game_dir, file, clocks, None)
}

/// As [`check_dt`], with `input` (a script and the seconds to run it for)
/// in place of the scenario's own: how `moonloop explore --check-dt`
/// plays generated input under every clock (X1).
///
/// # Errors
/// As [`check_dt`].
pub fn check_dt_with(
    game_dir: &Path,
    file: &Path,
    clocks: &[ClockSpec],
    input: Option<(Script, f64)>,
) -> Result<Vec<Run>> {
    // A scenario's input may name the game's actions.
    let actions = crate::Game::config(&LuaGame::load(game_dir)?)
        .actions
        .clone();
    let mut scenario = load(game_dir, file, &actions)?;
    if let Some((script, seconds)) = input {
        scenario.script = Some(script);
        scenario.seconds = seconds.clamp(1e-3, MAX_SECONDS);
    }
    // Every run must end: each clock must be scripted and reach the
    // scenario's length within MAX_FRAMES (H10).
    for clock in clocks {
        let bad = |reason: String| {
            Error::from(crate::clock::BadSpec {
                spec: clock.to_string(),
                reason,
            })
        };
        match clock.mean_delta() {
            None => {
                return Err(bad(
                    "check-dt steps scripted clocks (constant, list, jitter); this one follows real time".into(),
                ));
            }
            Some(mean) if mean <= 0.0 => {
                return Err(bad(
                    "its deltas are all 0, so no scenario would ever end".into()
                ));
            }
            Some(mean) if scenario.seconds / mean > MAX_FRAMES as f64 => {
                return Err(bad(format!(
                    "it would take {:.0} frames to run {} s, more than check-dt runs ({MAX_FRAMES})",
                    scenario.seconds / mean,
                    scenario.seconds
                )));
            }
            Some(_) => {}
        }
    }
    let mut runs = Vec::new();
    for clock in clocks {
        let game = LuaGame::load(game_dir)?;
        let mut engine = Engine::new(game, clock.build());
        if let Some(script) = &scenario.script {
            engine.set_script(script.clone());
        }
        // The cues stay in the log (the outcome reads them), each looked
        // up as a run does: a cue with no sound fails the run (H7).
        let mut session = Session::new(engine).look_up_cues();
        let outcome = match run_one(&scenario, &mut session) {
            Ok(json) => Ending::Outcome(json),
            Err(why) => Ending::Failed(why),
        };
        runs.push(Run {
            clock: clock.to_string(),
            frames: session.engine().frame(),
            elapsed: session.engine().time(),
            outcome,
        });
    }
    Ok(runs)
}

fn run_one(
    scenario: &Loaded,
    session: &mut Session<LuaGame>,
) -> std::result::Result<String, String> {
    let lua = &scenario.lua;
    if let Some(setup) = &scenario.setup {
        let engine = session.engine_mut();
        let copy = state::copy(engine.game().state(), lua)?;
        let next: Value = scenario
            .budget
            .guard(Call::Apply, || setup.call(copy))
            .map_err(|e| errors::describe(&e))?;
        let next = state::copy(&next, engine.game().lua()).map_err(|e| format!("setup: {e}"))?;
        engine
            .game_mut()
            .set_state(next)
            .map_err(|e| format!("setup: {e}"))?;
    }
    // Run until the simulated time reaches the scenario's length.
    while session.engine().time() < scenario.seconds - 1e-9 {
        if session.engine().frame() >= MAX_FRAMES {
            return Err(format!(
                "the run did not reach {} s in {MAX_FRAMES} frames",
                scenario.seconds
            ));
        }
        session
            .advance(1)
            .map_err(|e| format!("frame {}: {e}", session.engine().frame()))?;
    }
    let engine = session.engine();
    let state = state::copy(engine.game().state(), lua)?;
    let cues =
        super::test_engine::cue_list(lua, engine.cues().cues()).map_err(|e| e.to_string())?;
    let outcome: Value = scenario
        .budget
        .guard(Call::Test, || scenario.outcome.call((state, cues)))
        .map_err(|e| errors::describe(&e))?;
    state::to_json(&outcome)
        .map_err(|e| format!("the outcome is not plain data: {}", errors::describe(&e)))
}

/// What the runs disagree on: a line for each run that failed or whose
/// outcome differs from the first's, naming its clock as `shown`.
pub fn disagreements(runs: &[Run], shown: &[String]) -> Vec<String> {
    let reference = runs.first().and_then(|r| r.outcome.json());
    let mut lines = Vec::new();
    for (i, run) in runs.iter().enumerate() {
        match (&run.outcome, reference) {
            (Ending::Failed(why), _) => {
                lines.push(format!("under {} the run failed: {why}", shown[i]));
            }
            (Ending::Outcome(json), Some(reference)) if json != reference => lines.push(format!(
                "under {} the outcome was {}, not {}",
                shown[i],
                compact(json),
                compact(reference)
            )),
            _ => {}
        }
    }
    lines
}

/// Makes a table's worth of JSON fit on one line.
pub fn compact(json: &str) -> String {
    json.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Splits `--clocks` at the commas that start a new clock: `list:1/30,1/60`
/// keeps its own commas.
pub fn split_clocks(text: &str) -> Vec<String> {
    let mut specs: Vec<String> = Vec::new();
    for part in text.split(',') {
        let starts = ["wall", "paced:", "constant:", "list:", "jitter"]
            .iter()
            .any(|k| part.trim_start().starts_with(k));
        match specs.last_mut() {
            Some(last) if !starts => {
                last.push(',');
                last.push_str(part);
            }
            _ => specs.push(part.trim().to_string()),
        }
    }
    specs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clock_lists_split_where_a_clock_starts() {
        assert_eq!(
            split_clocks("constant:1/60,list:1/30,1/90,jitter:seed=7,min=0.008,max=0.033,paced:60"),
            [
                "constant:1/60",
                "list:1/30,1/90",
                "jitter:seed=7,min=0.008,max=0.033",
                "paced:60"
            ]
        );
    }
}
