//! Properties (rule X1 in docs/exploring.md): what an author says must
//! hold after every frame, whatever the input, declared in the game's
//! test files beside its tests:
//!
//! ```luau
//! property("the ball stays on the table", function(state)
//!     return state.ball.x >= 0 and state.ball.x <= 320
//! end)
//! features(function(state) return { state.level } end)
//! ```
//!
//! `moonloop explore` loads them in a VM of their own (the files run with
//! `test` doing nothing), and asks each after every frame, handing it a
//! frozen copy of the state and the frame: a property cannot change the
//! run it looks at. `features` names what makes a state new to the
//! search; states whose features were never seen guide it.

use super::errors::script;
use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use mlua::{Function, Lua, Table, Value};

use super::LuaGame;
use super::require::{self, ModuleId, Modules};
use super::vm::{self, Attached, Budget, Call, Limits};
use crate::error::{Error, Result};
use crate::state;

/// The most properties a game declares.
pub const MAX_PROPERTIES: usize = 256;

/// How long one property or features call may run.
pub const PROPERTY_BUDGET: std::time::Duration = std::time::Duration::from_secs(1);

/// The most places [`Properties::read_by`] notes.
const MAX_READS: usize = 1000;

/// A stand-in for a state that notes, in order, the path of each key
/// first asked of it or of a table under it: `(stand_in, reads)`.
const NOTING: &str = r#"
return function(state)
	local reads, seen = {}, {}
	local function stand_in(real, path)
		return setmetatable({}, {
			__index = function(_, key)
				local here = table.clone(path)
				table.insert(here, key)
				local id = table.concat(here, "\0")
				if not seen[id] and #reads < 1000 then
					seen[id] = true
					table.insert(reads, here)
				end
				local value = real[key]
				if type(value) == "table" then
					return stand_in(value, here)
				end
				return value
			end,
			__len = function()
				return #real
			end,
			__iter = function()
				return next, real
			end,
		})
	end
	return stand_in(state, {}), reads
end
"#;

/// A game's properties, loaded from its test files.
pub struct Properties {
    /// Declared before the VM: it detaches as it drops, first.
    budget: Attached,
    lua: Lua,
    list: Vec<(String, Function)>,
    features: Option<Function>,
    /// Copies each state in, frozen, in time proportional to what is new
    /// in it: a property costs about what it does, not a copy of a
    /// physics world a frame.
    copier: RefCell<state::Copier>,
    /// The files they came from, as shown.
    pub files: Vec<String>,
}

type Declared = Rc<RefCell<(Vec<(String, Function)>, Option<Function>)>>;

impl Properties {
    /// Loads the properties the test files of the game in `game_dir`
    /// declare (`tests/*.luau`, in name order).
    ///
    /// # Errors
    /// A test file does not load (its line), declares a property twice or
    /// more than [`MAX_PROPERTIES`], or declares `features` twice.
    pub fn load(game_dir: &Path) -> Result<Properties> {
        let mut files: Vec<PathBuf> = std::fs::read_dir(game_dir.join("tests"))
            .map(|entries| {
                entries
                    .filter_map(|e| e.ok().map(|e| e.path()))
                    .filter(|p| crate::assets::is_luau_source(p))
                    .collect()
            })
            .unwrap_or_default();
        files.sort();
        let display = game_dir.to_string_lossy().trim_end_matches('/').to_string();
        let modules = Modules::new(game_dir.to_path_buf(), display);
        let declared: Declared = Rc::default();
        let lua = vm::new_vm(Limits::default()).map_err(script)?;
        lua.set_app_data(modules);
        require::install(&lua).map_err(script)?;
        state::install(&lua).map_err(script)?;
        install_declarations(&lua, &declared).map_err(script)?;
        vm::seal(&lua).map_err(script)?;
        let budget = Budget::install(&lua, PROPERTY_BUDGET).map_err(script)?;
        let mut shown = Vec::new();
        for file in &files {
            let rel = file.strip_prefix(game_dir).unwrap_or(file).to_path_buf();
            let id = ModuleId::Game(rel);
            let name = lua
                .app_data_ref::<Modules>()
                .map(|m| m.chunk_name(&id))
                .unwrap_or_default();
            budget
                .guard(Call::Test, || require::run(&lua, &id))
                .map_err(script)?;
            shown.push(name);
        }
        let (list, features) = std::mem::take(&mut *declared.borrow_mut());
        Ok(Properties {
            budget,
            lua,
            list,
            features,
            copier: RefCell::default(),
            files: shown,
        })
    }

    /// Says whether any property or `features` was declared.
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    /// Returns the properties' names, in the order declared.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.list.iter().map(|(name, _)| name.as_str())
    }

    /// Copies `game`'s state into this VM, frozen.
    fn copy_in(&self, game: &LuaGame) -> Result<Value> {
        self.copier
            .borrow_mut()
            .copy(game.lua(), game.state(), &self.lua)
            .map_err(|e| Error::rule(crate::Rule::X1, format!("the state does not copy: {e}")))
    }

    /// Asks every property of `state` (a value of the game's VM) at
    /// `frame`; returns the name of the first that does not hold, with
    /// why when it failed rather than answered false.
    ///
    /// # Errors
    /// The state does not copy.
    pub fn broken(&self, game: &LuaGame, frame: u64) -> Result<Option<(String, Option<String>)>> {
        if self.list.is_empty() {
            return Ok(None);
        }
        let copied = self.copy_in(game)?;
        for (name, holds) in &self.list {
            let answer = self
                .budget
                .guard(Call::Test, || holds.call::<Value>((copied.clone(), frame)));
            match answer {
                Ok(Value::Nil | Value::Boolean(false)) => return Ok(Some((name.clone(), None))),
                Ok(_) => {}
                Err(e) => return Ok(Some((name.clone(), Some(super::describe(&e))))),
            }
        }
        Ok(None)
    }

    /// The places of `state` property `name` reads at `frame`, in the
    /// order it first reads them (`state.world.bodies.puck.y`): what
    /// `moonloop explore` shows first of the frame that broke it. The
    /// property asks a stand-in of the state that notes each key asked
    /// for; what it reads with `pairs` or `next` is not noted (the
    /// stand-in's own table is empty), and its answer is not used.
    ///
    /// # Errors
    /// The state does not copy.
    pub fn read_by(&self, name: &str, game: &LuaGame, frame: u64) -> Result<Vec<String>> {
        let Some((_, holds)) = self.list.iter().find(|(n, _)| n == name) else {
            return Ok(Vec::new());
        };
        let copied = self.copy_in(game)?;
        let noting: Function = self
            .lua
            .load(NOTING)
            .set_name("=read_by")
            .eval()
            .map_err(|e| Error::rule(crate::Rule::X1, format!("{e}")))?;
        let paths = self.budget.guard(Call::Test, || {
            let (stand_in, reads): (Value, Table) = noting.call(copied)?;
            let _ = holds.call::<Value>((stand_in, frame));
            mlua::Result::Ok(reads)
        });
        let Ok(paths) = paths else {
            return Ok(Vec::new());
        };
        Ok(paths
            .sequence_values::<Table>()
            .take(MAX_READS)
            .filter_map(|path| path.ok())
            .map(|path| {
                let keys: Vec<Value> = path.sequence_values().filter_map(|k| k.ok()).collect();
                state::place(&keys)
            })
            .collect())
    }

    /// The hash of what `features` says of `state`, when it was declared:
    /// two states with the same features are the same to the search.
    ///
    /// # Errors
    /// `features` failed, ran past its time, or returned what does not
    /// hash (a function): the search cannot be guided by it, and a search
    /// that went on unguided would hide it (each call would cost its whole
    /// second).
    pub fn features(&self, game: &LuaGame, frame: u64) -> Result<Option<u64>> {
        let Some(features) = self.features.as_ref() else {
            return Ok(None);
        };
        let copied = self.copy_in(game)?;
        let failed =
            |why: String| Error::script(format!("features failed at frame {frame}: {why}"));
        let value = self
            .budget
            .guard(Call::Test, || features.call::<Value>((copied, frame)))
            .map_err(|e| failed(super::describe(&e)))?;
        let hash = state::hash(&value).map_err(|e| failed(super::describe(&e)))?;
        Ok(crate::history::hash_bits(&hash))
    }
}

fn install_declarations(lua: &Lua, declared: &Declared) -> mlua::Result<()> {
    let globals = lua.globals();
    let list = declared.clone();
    globals.raw_set(
        "property",
        lua.create_function(move |lua, (name, holds): (String, Function)| {
            let mut declared = list.borrow_mut();
            if declared.0.iter().any(|(n, _)| *n == name) {
                return Err(mlua::Error::RuntimeError(format!(
                    "{}property `{}` is declared twice",
                    super::location(lua, 1),
                    crate::terminal::line(&name)
                )));
            }
            if declared.0.len() == MAX_PROPERTIES {
                return Err(mlua::Error::RuntimeError(format!(
                    "{}a game declares at most {MAX_PROPERTIES} properties",
                    super::location(lua, 1)
                )));
            }
            declared.0.push((name, holds));
            Ok(())
        })?,
    )?;
    let slot = declared.clone();
    globals.raw_set(
        "features",
        lua.create_function(move |lua, f: Function| {
            let mut declared = slot.borrow_mut();
            if declared.1.is_some() {
                return Err(mlua::Error::RuntimeError(format!(
                    "{}features is declared once, for the whole game",
                    super::location(lua, 1)
                )));
            }
            declared.1 = Some(f);
            Ok(())
        })?,
    )?;
    // Tests are `moonloop test`'s: loading a file for its properties runs
    // none of them, and has no engines to make.
    globals.raw_set(
        "test",
        lua.create_function(|_, _: mlua::MultiValue| Ok(()))?,
    )?;
    let engine = lua.create_table()?;
    engine.raw_set(
        "new",
        lua.create_function(|lua, _: mlua::MultiValue| -> mlua::Result<()> {
            Err(mlua::Error::RuntimeError(format!(
                "{}engine.new is for tests; moonloop explore runs the game itself (call it \
                 inside test(...))",
                super::location(lua, 1)
            )))
        })?,
    )?;
    globals.raw_set("engine", engine)?;
    let testlib: Table = require::load(lua, &ModuleId::Runtime("test".into()))?
        .as_table()
        .cloned()
        .ok_or_else(|| mlua::Error::RuntimeError("@moonloop/test is not a table".into()))?;
    globals.raw_set("expect", testlib.raw_get::<Value>("expect")?)?;
    Ok(())
}
