//! The Luau test API: what a file in a game's `tests/` folder sees
//! (`engine.new`, `test`, `expect`), and the runner that executes one file.
//!
//! A test file runs in a VM of its own; each engine it builds loads its
//! game into another. State crosses between them as copies of plain data,
//! which S5 guarantees a state is.

use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::Arc;
use std::time::Duration;

use mlua::{Function, Lua, Table, Value};

use super::engines::Member;
use super::errors;
use super::game::LuaGame;
use super::require::{self, ModuleId, Modules};
use super::test_engine::{EngineHandle, check_options, fail};
use super::vm::{self, Attached, Budget, Call, Limits};
use crate::clock::ClockSpec;
use crate::engine::Engine;
use crate::save::Saves;
use crate::state;

/// How long one test may run before it is stopped, unless `moonloop test
/// --budget` says otherwise. Default: 10 s.
pub const TEST_BUDGET: Duration = Duration::from_secs(10);

/// The outcome of one test file.
#[derive(Debug)]
pub struct TestReport {
    /// The file, as shown in messages.
    pub file: String,
    /// Each test, in the order it ran.
    pub results: Vec<Outcome>,
}

/// How one test ended: it passed unless it has a failure, the line the
/// author reads (with the place it failed at).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// The test's name as it was given.
    pub name: String,
    /// Why it failed, if it did.
    pub failure: Option<String>,
}

impl Outcome {
    /// A test that passed.
    pub fn passed(name: String) -> Outcome {
        Outcome {
            name,
            failure: None,
        }
    }

    /// A test that failed, for `why`.
    pub fn failed(name: String, why: String) -> Outcome {
        Outcome {
            name,
            failure: Some(why),
        }
    }
}

fn engine_library(lua: &Lua, game_dir: PathBuf) -> mlua::Result<Table> {
    let library = lua.create_table()?;
    let new = lua.create_function(move |lua, options: Option<Table>| {
        let options = match options {
            Some(t) => t,
            None => lua.create_table()?,
        };
        check_options(
            lua,
            &options,
            &[
                "game", "clock", "save", "budget", "input", "record", "synctest",
            ],
            "engine.new",
        )?;
        // A test sees its game's folder and nothing else (H10): another
        // game it builds lives inside it.
        let dir = match options.get::<Option<String>>("game")? {
            Some(name) => crate::assets::find_folder(&game_dir, &name)
                .map_err(|why| fail(lua, format!("engine.new: game: {why}")))?,
            None => game_dir.clone(),
        };
        let clock: ClockSpec = options
            .get::<Option<String>>("clock")?
            .unwrap_or_else(|| "constant:1/60".to_string())
            .parse()
            .map_err(|e: crate::clock::BadSpec| fail(lua, format!("engine.new: {e}")))?;
        // A test's save lives in memory, seeded from `save` (H12).
        // It stands for a save file, so it holds what a file may (1 MiB).
        let seed = match options.get::<Value>("save")? {
            Value::Nil => None,
            value => {
                let json = state::to_json(&value)
                    .map_err(|e| fail(lua, format!("engine.new: save: {}", super::describe(&e))))?;
                crate::save::check_size(&json, "its")
                    .map_err(|why| fail(lua, format!("engine.new: save: {why}")))?;
                Some(json)
            }
        };
        let (member, share) =
            Member::join(lua).map_err(|why| fail(lua, format!("engine.new: {why}")))?;
        let limits = Limits {
            memory: share.min(Limits::default().memory),
            ..Limits::default()
        };
        let game = LuaGame::load_saving(&dir, limits, Saves::memory(seed)).map_err(|e| {
            let why = e.chain();
            // Loading ran out of what the other engines left it, not of
            // its own cap: say whose memory it was (H10).
            if share < Limits::default().memory && matches!(e, crate::Error::OutOfMemory(_)) {
                fail(
                    lua,
                    format!("engine.new: {}", super::engines::exhausted(share)),
                )
            } else {
                fail(lua, format!("engine.new: {why}"))
            }
        })?;
        member.bind(game.lua());
        if let Some(secs) = options.get::<Option<f64>>("budget")? {
            if !(secs > 0.0 && secs <= TEST_BUDGET.as_secs_f64()) {
                return Err(fail(
                    lua,
                    format!(
                        "engine.new: budget is seconds above 0 and at most a test's own {} s",
                        TEST_BUDGET.as_secs_f64()
                    ),
                ));
            }
            game.set_budget(Duration::from_secs_f64(secs));
        }
        let actions = crate::Game::config(&game).actions.clone();
        let mut engine = Engine::new(game, clock.build());
        // Tests can rewind and edit the past (R1-R3), within the test's
        // own budget: a re-simulation stops when the test's time is up.
        engine
            .keep_history(super::engines::HISTORY_CAP)
            .map_err(|e| fail(lua, format!("engine.new: {e}")))?;
        if let Some(budget) = lua.app_data_ref::<Arc<Budget>>().map(|b| Arc::clone(&b)) {
            engine.set_resimulation_limit(Some(Box::new(move || {
                budget.overran().then(|| budget.stopped_line())
            })));
        }
        // N1: every frame is rolled back and run again; a frame that
        // comes out differently fails the `advance` that ran it.
        let depth = match options.get::<Value>("synctest")? {
            Value::Nil | Value::Boolean(false) => None,
            Value::Boolean(true) => Some(crate::engine::SYNCTEST_DEPTH),
            Value::Integer(n) if n > 0 => Some(n as u64),
            Value::Number(n) if n.fract() == 0.0 && n > 0.0 && n < 1e6 => Some(n as u64),
            _ => {
                return Err(fail(
                    lua,
                    format!(
                        "engine.new: synctest is true or the frames to roll back, 1 to {}",
                        crate::engine::SYNCTEST_MAX_DEPTH
                    ),
                ));
            }
        };
        engine
            .set_synctest(depth, super::engines::HISTORY_CAP)
            .map_err(|e| fail(lua, format!("engine.new: {e}")))?;
        if let Some(name) = options.get::<Option<String>>("input")? {
            let script = crate::input::load_script_in(&dir, &name, &actions)
                .map_err(|e| fail(lua, format!("engine.new: input: {e}")))?;
            engine.set_script(script);
        }
        let capture = match options.get::<Option<String>>("record")? {
            None => None,
            Some(name) => {
                // A test writes only inside its game's folder, and never
                // through a link (H10).
                // The format is checked before any folder is made.
                crate::record::Format::from_path(Path::new(&name))
                    .map_err(|e| fail(lua, format!("engine.new: record: {e}")))?;
                let mut path = crate::assets::output(&dir, &name)
                    .map_err(|why| fail(lua, format!("engine.new: record: {why}")))?;
                if name.ends_with('/') {
                    path.push(""); // still a folder, whatever its name
                }
                // Named as the test named it: the game's folder is the
                // test's whole world (H10), not where it lies on disk.
                let capture = crate::capture::Capture::start(&path, true).map_err(|e| match e {
                    crate::Error::Record { source, .. } => fail(
                        lua,
                        format!(
                            "engine.new: record: `{}`: {source}",
                            crate::terminal::escape(&name)
                        ),
                    ),
                    other => fail(lua, format!("engine.new: {}", other.chain())),
                })?;
                Some(capture)
            }
        };
        Ok(EngineHandle::new(engine, capture, member))
    })?;
    library.raw_set("new", new)?;
    Ok(library)
}

/// The tests a file registered with `test(name, fn)`.
type Registered = Rc<RefCell<Vec<(String, Function)>>>;

/// Runs one test file of the game in `game_dir` and reports each test.
///
/// A file that registers no tests but loads without error counts as one
/// passing test named after the file, unless it declares properties: a
/// file of properties alone is `moonloop explore`'s, and counts as none.
pub fn run_test_file(game_dir: &Path, file: &Path) -> TestReport {
    run_test_file_with(game_dir, file, TestRun::default())
}

/// How a test file runs: `moonloop test`'s options.
#[derive(Debug, Clone, Copy)]
pub struct TestRun {
    /// Each test's time budget (`--budget`). Default: [`TEST_BUDGET`].
    pub budget: Duration,
    /// Whether a picture's golden that is missing or differs is written
    /// rather than failed (`--bless`). Default: no.
    pub bless: bool,
}

impl Default for TestRun {
    fn default() -> TestRun {
        TestRun {
            budget: TEST_BUDGET,
            bless: false,
        }
    }
}

/// Runs one test file like [`run_test_file`], as `run` says.
pub fn run_test_file_with(game_dir: &Path, file: &Path, run: TestRun) -> TestReport {
    let test_budget = run.budget;
    let display_dir = game_dir.to_string_lossy().trim_end_matches('/').to_string();
    let rel = file.strip_prefix(game_dir).unwrap_or(file).to_path_buf();
    let modules = Modules::new(game_dir.to_path_buf(), display_dir);
    let id = ModuleId::Game(rel);
    let shown = modules.chunk_name(&id);
    let mut report = TestReport {
        file: shown.clone(),
        results: Vec::new(),
    };
    let registered: Registered = Rc::default();
    let declares = Rc::new(std::cell::Cell::new(false));
    let setup = || -> mlua::Result<(Lua, Attached)> {
        let lua = vm::new_vm(Limits::default())?;
        lua.set_app_data(modules);
        if run.bless {
            lua.set_app_data(super::picture::Blessing);
        }
        require::install(&lua)?;
        state::install(&lua)?;
        let globals = lua.globals();
        globals.raw_set("engine", engine_library(&lua, game_dir.to_path_buf())?)?;
        let list = registered.clone();
        globals.raw_set(
            "test",
            lua.create_function(move |_, (name, body): (String, Function)| {
                list.borrow_mut().push((name, body));
                Ok(())
            })?,
        )?;
        let testlib: Table = require::load(&lua, &ModuleId::Runtime("test".into()))?
            .as_table()
            .cloned()
            .ok_or_else(|| mlua::Error::RuntimeError("@moonloop/test is not a table".into()))?;
        globals.raw_set("expect", testlib.raw_get::<Value>("expect")?)?;
        // Properties are `moonloop explore`'s: a test file that declares
        // them runs its tests as any other.
        for name in ["property", "features"] {
            let declares = Rc::clone(&declares);
            globals.raw_set(
                name,
                lua.create_function(move |_, _: mlua::MultiValue| {
                    declares.set(true);
                    Ok(())
                })?,
            )?;
        }
        vm::seal(&lua)?;
        let budget = Budget::install(&lua, test_budget)?;
        lua.set_app_data(Arc::clone(&budget));
        Ok((lua, budget))
    };
    let (lua, attached) = match setup() {
        Ok(vm) => vm,
        Err(e) => {
            report
                .results
                .push(Outcome::failed(shown, errors::describe(&e)));
            return report;
        }
    };
    // Declared after the VM, so it drops (detaching) first.
    let budget = attached;
    if let Err(e) = budget.guard(Call::Test, || require::run(&lua, &id)) {
        report.results.push(Outcome::failed(
            "(loading the file)".into(),
            errors::describe(&e),
        ));
        return report;
    }
    let tests = std::mem::take(&mut *registered.borrow_mut());
    if tests.is_empty() && !declares.get() {
        report.results.push(Outcome::passed(shown));
    }
    for (name, body) in tests {
        let outcome = budget.guard(Call::Test, || body.call::<()>(()));
        report.results.push(Outcome {
            name,
            failure: outcome.err().map(|e| errors::describe(&e)),
        });
    }
    report
}
