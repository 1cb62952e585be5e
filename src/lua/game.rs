//! LuaGame: a game folder loaded into its own sandboxed VM (rules G1, G2,
//! S1-S6), stepped by the engine through the [`Game`] trait.

use super::errors::{accept, script};
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::time::Duration;

use mlua::{AnyUserData, Function, Lua, Table, Value};

use super::code::{Code, Generations, find_main, load_code};
use super::errors;
use super::handles::InputHandle;
use super::leases::Leases;
use super::moment;
use super::native;
use super::require::{self, ModuleId, Modules};
use super::scene::SceneHandle;
use super::screen::ScreenHandle;
use super::vm::{self, Attached, Budget, Call, Limits};
use crate::config::Config;
use crate::engine::{Game, Past, Reload, Reloaded, RenderCtx, UpdateCtx};
use crate::error::{Error, Result};
use crate::history::{Held, Kept};
use crate::save::Saves;
use crate::state;

/// A game folder loaded and running in its own VM.
pub struct LuaGame {
    /// The time budget, declared first: it detaches from the VM as it
    /// drops, before the VM does.
    budget: Attached,
    lua: Lua,
    dir: PathBuf,
    main: String,
    main_id: ModuleId,
    title: String,
    /// The limits the config may lower but not raise.
    ceilings: Limits,
    /// The code `update` and `render` run now: the live generation's, or
    /// an older one's while history runs the past again (R1).
    code: Rc<Code>,
    /// Every generation of code history may still run, the live one
    /// among them, and what the last reload replaced.
    generations: Generations,
    /// Calls a function and takes its result as the state, inside Luau.
    taking: Function,
    /// Calls a function whose result is not a state (`render`).
    calling: Function,
    /// The trampoline that returns a call's answer (seek predicates).
    asking: Function,
    state: Value,
    leases: Rc<Leases>,
    input: AnyUserData,
    scene: AnyUserData,
    screen: AnyUserData,
    /// Where the game's save lives (H12).
    saves: Saves,
    /// The save `init` was given, as canonical JSON, for a replay to
    /// carry; none when the game started without one.
    loaded_save: Option<String>,
    /// An update that ran to the end asked the host to quit.
    quit: bool,
    /// Frames run now are history run again: no save, no quit (R1).
    replaying: bool,
    /// History's digests of the state (R3).
    digester: state::Digester,
}

impl LuaGame {
    /// Loads the game in folder `dir`: its `main.luau` (or `main.lua`), its
    /// config, and its first state from `init()` (G1, G2).
    ///
    /// # Errors
    /// The folder or its main file is missing, the main file does not
    /// compile or fails, it returns something other than a game table, the
    /// config is malformed, or `init` fails or returns a state S2-S5 refuse.
    pub fn load(dir: &Path) -> Result<LuaGame> {
        LuaGame::load_with(dir, Limits::default())
    }

    /// Loads the game in folder `dir` like [`LuaGame::load`], under
    /// `ceilings`: the time budget and memory cap its config may lower but
    /// not raise (H10).
    ///
    /// # Errors
    /// As [`LuaGame::load`], or the config asks for more than `ceilings`.
    pub fn load_with(dir: &Path, ceilings: Limits) -> Result<LuaGame> {
        LuaGame::load_saving(dir, ceilings, Saves::memory(None))
    }

    /// Loads the game in folder `dir` like [`LuaGame::load_with`], with its
    /// save in `saves` (H12): if its config has an `id`, what was saved
    /// under it is given to `init(saved)`. A save that cannot be read back
    /// is set aside, and the game starts as if nothing had been saved
    /// ([`LuaGame::take_save_notice`] says so).
    ///
    /// # Errors
    /// As [`LuaGame::load_with`], or `saves` holds a save for a game
    /// without `config.id`.
    pub fn load_saving(dir: &Path, ceilings: Limits, saves: Saves) -> Result<LuaGame> {
        let shown = dir.to_string_lossy().trim_end_matches('/').to_string();
        LuaGame::load_shown(dir, shown, ceilings, saves)
    }

    /// Loads the game in folder `dir` like [`LuaGame::load_saving`], its
    /// files named in errors as if the folder were `shown` (a zipped
    /// game's `game.zip`, not the private folder it was unpacked into).
    ///
    /// # Errors
    /// As [`LuaGame::load_saving`].
    pub fn load_shown(
        dir: &Path,
        shown: String,
        ceilings: Limits,
        saves: Saves,
    ) -> Result<LuaGame> {
        let main = find_main(dir)?;
        let display = shown;
        let lua_err = errors::script;
        let lua = vm::new_vm(ceilings).map_err(lua_err)?;
        // What game code reads names files from the game folder (H11).
        let raw_xpcall = super::places::install(&lua, &display).map_err(lua_err)?;
        lua.set_app_data(Modules::new(dir.to_path_buf(), display));
        require::install(&lua).map_err(lua_err)?;
        state::install(&lua).map_err(lua_err)?;
        vm::seal(&lua).map_err(lua_err)?;
        let budget = Budget::install(&lua, ceilings.budget).map_err(lua_err)?;

        let main_id = ModuleId::Game(PathBuf::from(&main));
        let main_name = lua.app_data_ref::<Modules>().unwrap().chunk_name(&main_id);
        let title = dir
            .canonicalize()
            .ok()
            .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
            .unwrap_or_else(|| "moonloop".into());
        let code = Rc::new(load_code(
            &lua, &budget, &main_id, &main_name, &title, ceilings,
        )?);
        budget.set_limit(code.config.budget);
        lua.set_memory_limit(code.config.memory).map_err(lua_err)?;

        let (taking, calling, asking): (Function, Function, Function) = lua
            .load(errors::TRAMPOLINES)
            .set_name("=moonloop")
            .call((
                state::take_function(&lua).map_err(lua_err)?,
                errors::handler(&lua).map_err(lua_err)?,
                raw_xpcall,
            ))
            .map_err(lua_err)?;
        let leases = Rc::new(Leases::default());
        let input = lua
            .create_userdata(InputHandle::new(leases.clone()))
            .map_err(lua_err)?;
        let scene = lua
            .create_userdata(SceneHandle::new(leases.clone()))
            .map_err(lua_err)?;
        let screen = lua
            .create_userdata(ScreenHandle::new(leases.clone()))
            .map_err(lua_err)?;

        let mut game = LuaGame {
            lua,
            dir: dir.to_path_buf(),
            main: main_name,
            main_id,
            title,
            ceilings,
            generations: Generations::new(Rc::clone(&code)),
            code,
            taking,
            calling,
            asking,
            state: Value::Nil,
            leases,
            input,
            scene,
            screen,
            budget,
            saves,
            loaded_save: None,
            quit: false,
            replaying: false,
            digester: state::Digester::default(),
        };
        let saved = game.open_save()?;
        game.state = game.first_state(saved)?;
        Ok(game)
    }

    /// Reads the save the game starts from: nil without one.
    fn open_save(&mut self) -> Result<Value> {
        let Some(id) = self.code.config.id.clone() else {
            if self.saves.current().is_some() {
                return Err(Error::script(format!(
                    "{}: the game was given a save but has no config.id; set config.id = \"name\" \
                     so its save has a folder (H12)",
                    self.main
                )));
            }
            return Ok(Value::Nil);
        };
        self.leases.allow_saving(true);
        let Some(json) = self.saves.open(&id) else {
            return Ok(Value::Nil);
        };
        let read = state::from_json(&self.lua, &json).and_then(|value| {
            state::take(&self.lua, &value)?;
            Ok(value)
        });
        match read {
            Ok(value) => {
                self.loaded_save = state::to_json(&value).ok();
                Ok(value)
            }
            Err(why) => {
                self.saves.set_aside(why);
                Ok(Value::Nil)
            }
        }
    }

    fn first_state(&mut self, saved: Value) -> Result<Value> {
        let Some(init) = self.code.init.clone() else {
            // G2: without init the state is {}.
            let empty = self.lua.create_table().map_err(script)?;
            let empty = Value::Table(empty);
            state::take(&self.lua, &empty).map_err(|r| Error::script(String::from(r)))?;
            return Ok(empty);
        };
        let result = self
            .budget
            .guard(Call::Init, || self.taking.call::<Value>((&init, saved)));
        accept(&init, "init", result).map_err(|e| errors::stopped_by(&self.budget, e))
    }

    /// Reloads the game after the files `changed` (relative to its folder)
    /// changed on disk (H8): the changed Luau modules and every module
    /// that requires them, up to main, run again in this VM; `update` and
    /// `render` are replaced; the state carries over, through the new
    /// code's `reload(state)` if it has one.
    ///
    /// # Errors
    /// A file fails to load, the new main is not a game, or `reload`
    /// fails or returns a refused state. Nothing changes then: the old code
    /// keeps running on the state it had.
    pub fn reload(&mut self, changed: &[PathBuf]) -> Result<Reloaded> {
        let mut reloaded = Reloaded {
            assets: changed.iter().any(|p| !crate::assets::is_luau_source(p)),
            ..Reloaded::default()
        };
        let ids: Vec<ModuleId> = changed
            .iter()
            .filter(|p| crate::assets::reloads_code(p))
            .map(|p| ModuleId::Game(p.clone()))
            .collect();
        let saved = require::invalidate(&self.lua, &ids, &self.main_id);
        if saved.is_empty() {
            return Ok(reloaded);
        }
        reloaded.modules = {
            let modules = self
                .lua
                .app_data_ref::<Modules>()
                .expect("modules installed");
            saved.iter().map(|(id, _)| modules.chunk_name(id)).collect()
        };
        // Reloaded code runs in Luau's interpreter (native.rs says why).
        native::close(&self.lua);
        let attempt = load_code(
            &self.lua,
            &self.budget,
            &self.main_id,
            &self.main,
            &self.title,
            self.ceilings,
        )
        .and_then(|code| {
            let state = match &code.reload {
                None => self.state.clone(),
                Some(migrate) => {
                    let result = self.budget.guard(Call::Reload, || {
                        self.taking.call::<Value>((migrate, &self.state))
                    });
                    accept(migrate, "reload", result)?
                }
            };
            Ok((code, state))
        });
        match attempt {
            Ok((code, state)) => {
                reloaded.migrated = code.reload.is_some();
                let code = Rc::new(code);
                self.generations.add(Rc::clone(&code), saved);
                self.use_code(code);
                self.replace_state(state);
                Ok(reloaded)
            }
            Err(err) => {
                require::restore(&self.lua, saved);
                Err(err)
            }
        }
    }

    /// Makes `code` the code that runs, with its limits.
    fn use_code(&mut self, code: Rc<Code>) {
        self.budget.set_limit(code.config.budget);
        let _ = self.lua.set_memory_limit(code.config.memory);
        self.code = code;
    }

    /// Returns the game's modules: what is loaded, and the edits a test
    /// made of the game's files (`e:reload(edits)`).
    pub(super) fn modules(&self) -> mlua::AppDataRefMut<'_, Modules> {
        self.lua
            .app_data_mut::<Modules>()
            .expect("modules installed")
    }

    /// Returns the game's Luau files loaded so far, relative to its folder.
    pub fn loaded_files(&self) -> Vec<PathBuf> {
        let modules = self
            .lua
            .app_data_ref::<Modules>()
            .expect("modules installed");
        modules.loaded_game_files()
    }

    /// Returns the current state (S1).
    pub fn state(&self) -> &Value {
        &self.state
    }

    /// Returns the table the game's main file returned.
    pub fn main_table(&self) -> &Table {
        &self.code.module
    }

    /// Returns the VM the game runs in.
    pub fn lua(&self) -> &Lua {
        &self.lua
    }

    /// Returns the game folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Runs a transition between frames (S6): `transition(state)` returns
    /// the next state, under the same rules as `update`.
    ///
    /// # Errors
    /// The transition fails or its result is refused; the state is kept.
    pub fn apply(&mut self, transition: &Function) -> Result {
        let result = self.budget.guard(Call::Apply, || {
            self.taking.call::<Value>((transition, &self.state))
        });
        let next = accept(transition, "apply's transition", result)?;
        self.replace_state(next);
        Ok(())
    }

    /// Makes `next` the state; the one it replaces goes to history's
    /// digester, which may remember digests of its tables by address.
    fn replace_state(&mut self, next: Value) {
        let old = std::mem::replace(&mut self.state, next);
        self.digester.retire(old);
    }

    /// Takes `value`, made elsewhere in this VM, as the next state (S6).
    ///
    /// # Errors
    /// The value is refused (S4, S5); the state is kept.
    pub fn set_state(&mut self, value: Value) -> Result {
        if value.is_nil() {
            return Err(Error::rule(
                crate::Rule::S4,
                "the transition returned nil; return the next state (the host kept the state it had)",
            ));
        }
        state::take(&self.lua, &value)
            .map_err(|why| Error::script(format!("the transition returned a state where {why}")))?;
        self.replace_state(value);
        Ok(())
    }

    /// Returns the state as canonical JSON (S7).
    ///
    /// # Errors
    /// Never for a state the host took; kept for safety.
    pub fn state_json(&self) -> Result<String> {
        state::to_json(&self.state).map_err(script)
    }

    /// Returns the hash of the state's canonical encoding (S7).
    ///
    /// # Errors
    /// Never for a state the host took; kept for safety.
    pub fn state_hash(&self) -> Result<String> {
        state::hash(&self.state).map_err(script)
    }

    /// Returns the save as it stands (what was loaded or last written), as
    /// canonical JSON.
    pub fn save_json(&self) -> Option<&str> {
        self.saves.current()
    }

    /// Returns the save `init` was given, as canonical JSON.
    pub fn loaded_save(&self) -> Option<&str> {
        self.loaded_save.as_deref()
    }

    /// Takes the line about the save the author should read (a save set
    /// aside, a store that cannot be used), once.
    pub fn take_save_notice(&mut self) -> Option<String> {
        self.saves.take_notice()
    }

    /// Calls `function` on the current state and `frame` under the
    /// budget (a seek's predicate, R4), and returns what it answers.
    pub(super) fn ask(&self, function: &Function, frame: u64) -> mlua::Result<Value> {
        self.budget.guard(Call::Seek, || {
            self.asking.call::<Value>((function, &self.state, frame))
        })
    }

    /// Sets each call's time budget.
    pub fn set_budget(&self, limit: Duration) {
        self.budget.set_limit(limit);
    }

    /// Returns the main file's name as errors show it.
    pub fn main_name(&self) -> &str {
        &self.main
    }
}

impl Game for LuaGame {
    fn update(&mut self, ctx: UpdateCtx<'_>, dt: f64) -> Result {
        native::frame_begins(&self.lua);
        let Some(update) = &self.code.update else {
            return Ok(());
        };
        let pick = ctx.pick();
        // The take at the end of the call digests the new state for
        // history as it walks it (R1).
        let result = state::lend_digester(&mut self.digester, || {
            self.leases
                .lend_update(ctx.frame, ctx.input, ctx.cues, pick, || {
                    self.budget.guard(Call::Update, || {
                        self.taking
                            .call::<Value>((update, &self.state, &self.input, dt))
                    })
                })
        });
        let pending = self.leases.take_save();
        let quit = self.leases.take_quit();
        let next =
            accept(update, "update", result).map_err(|e| errors::stopped_by(&self.budget, e))?;
        self.replace_state(next);
        if self.replaying {
            // A frame run again already had its effects the first time.
            return Ok(());
        }
        self.quit |= quit;
        // The save is an effect of a frame that happened: written only
        // once update's state is taken (H12).
        match pending {
            Some(json) => self.saves.write(json),
            None => Ok(()),
        }
    }

    fn render(&mut self, ctx: RenderCtx<'_>) -> Result {
        let Some(render) = &self.code.render else {
            return Ok(());
        };
        self.leases
            .lend_render(ctx.screen, ctx.scene, ctx.assets, || {
                self.budget.guard(Call::Render, || {
                    self.calling
                        .call::<()>((render, &self.state, &self.scene, &self.screen))
                })
            })
            .map_err(|e| errors::stopped_by(&self.budget, script(e)))
    }

    fn config(&self) -> &Config {
        &self.code.config
    }

    fn folder(&self) -> Option<PathBuf> {
        Some(self.dir.clone())
    }

    fn wants_to_quit(&self) -> bool {
        self.quit
    }

    fn colliders(&self) -> crate::colliders::Colliders {
        crate::physics::colliders(self.lua(), &self.state)
    }
}

impl Past for LuaGame {
    fn state_hash(&self) -> Option<String> {
        LuaGame::state_hash(self).ok()
    }

    fn digest(&mut self) -> Option<u64> {
        match self.digester.digest(&self.lua, &self.state) {
            Some(digest) => Some(digest),
            None => state::hash(&self.state)
                .ok()
                .as_deref()
                .and_then(crate::history::hash_bits),
        }
    }

    fn keep(&self) -> Option<Kept> {
        moment::kept(&self.lua, &self.state)
    }

    fn restore(&mut self, kept: &Kept) -> Result {
        self.set_state(moment::read_back(&self.lua, kept)?)?;
        moment::rejoin(&self.lua, &self.state, kept);
        Ok(())
    }

    fn hold(&self) -> Option<Held> {
        moment::held(&self.lua, &self.state)
    }

    fn put(&mut self, held: &Held) -> Result {
        let state = moment::put_back(&self.lua, held)?;
        self.replace_state(state.clone());
        Ok(())
    }

    fn changes_from(&self, held: &Held, limit: usize) -> Vec<String> {
        let Some(value) = moment::state_of(held) else {
            return Vec::new();
        };
        state::changes(value, &self.state, limit).unwrap_or_default()
    }

    fn set_replaying(&mut self, replaying: bool) {
        self.replaying = replaying;
    }
}

impl Reload for LuaGame {
    fn reload(&mut self, changed: &[PathBuf]) -> Result<Reloaded> {
        LuaGame::reload(self, changed)
    }

    fn generation(&self) -> u32 {
        self.generations.live()
    }

    fn oldest_generation(&self) -> u32 {
        self.generations.oldest()
    }

    fn run_generation(&mut self, generation: u32) -> Result {
        let code = self.generations.code_of(generation)?;
        if !Rc::ptr_eq(&self.code, code) {
            let code = Rc::clone(code);
            self.use_code(code);
        }
        Ok(())
    }

    fn undo_reload(&mut self) -> Result {
        let (previous, modules) = self.generations.undo()?;
        require::restore(&self.lua, modules);
        self.use_code(previous);
        Ok(())
    }

    fn migrate(&mut self) -> Result {
        let Some(migrate) = &self.code.reload else {
            return Ok(());
        };
        let result = self.budget.guard(Call::Reload, || {
            self.taking.call::<Value>((migrate, &self.state))
        });
        let next = accept(migrate, "reload", result)?;
        self.replace_state(next);
        Ok(())
    }
}
