//! A game's code (rules G1, R1): what its main file returns, read and
//! checked, and every generation of it that history may still run, one
//! for each reload that changed code.

use super::errors::script;
use std::collections::VecDeque;
use std::path::Path;
use std::rc::Rc;

use mlua::{Function, Lua, Table, Value};

use super::config::read_config;
use super::require::{self, ModuleId, Taken};
use super::vm::{Budget, Call, Limits};
use crate::config::Config;
use crate::error::{Error, Result};
use crate::state;

const GAME_FIELDS: &[&str] = &["init", "update", "render", "reload", "config"];

/// What the main file returned: the game's functions and config.
pub(super) struct Code {
    pub(super) module: Table,
    pub(super) init: Option<Function>,
    pub(super) update: Option<Function>,
    pub(super) render: Option<Function>,
    pub(super) reload: Option<Function>,
    pub(super) config: Config,
}

/// Runs the main module (through `require`, so its modules load too) and
/// reads the game table it returns (G1).
pub(super) fn load_code(
    lua: &Lua,
    budget: &Budget,
    main_id: &ModuleId,
    main_name: &str,
    title: &str,
    ceilings: Limits,
) -> Result<Code> {
    let table = budget
        .guard(Call::Load, || require::load(lua, main_id))
        .map_err(|e| super::errors::stopped_by(budget, script(e)))?;
    let Value::Table(table) = table else {
        return Err(Error::script(format!(
            "{main_name}: returned a {} where a game table was expected: return {{ init = ..., update = ..., render = ... }} (G1)",
            state::type_of(&table)
        )));
    };
    check_fields(&table, GAME_FIELDS, main_name, "the game table")?;
    let function = |name: &str| -> Result<Option<Function>> {
        match table.raw_get::<Value>(name).map_err(script)? {
            Value::Nil => Ok(None),
            Value::Function(f) => Ok(Some(f)),
            other => Err(Error::script(format!(
                "{main_name}: `{name}` is a {}; it should be a function (G1)",
                state::type_of(&other)
            ))),
        }
    };
    Ok(Code {
        init: function("init")?,
        update: function("update")?,
        render: function("render")?,
        reload: function("reload")?,
        config: read_config(&table, main_name, title.to_string(), ceilings)?,
        module: table,
    })
}

/// The most generations of code a game holds for history: each keeps
/// its functions, and the modules they hold, alive in the VM (counted
/// against its cap). History forgets frames that ran older ones.
pub const MAX_GENERATIONS: usize = 16;

/// What a reload replaced: the generation live before it and the modules
/// it loaded again.
struct Undo {
    previous: u32,
    modules: Taken,
}

/// The generations of a game's code history may run, oldest first.
pub(super) struct Generations {
    /// At most [`MAX_GENERATIONS`], the live one among them.
    list: VecDeque<(u32, Rc<Code>)>,
    /// The generation live play runs.
    live: u32,
    /// What the last reload replaced, to take it back.
    undo: Option<Undo>,
}

impl Generations {
    /// The code a game loaded with: generation 0, live.
    pub(super) fn new(code: Rc<Code>) -> Generations {
        Generations {
            list: VecDeque::from([(0, code)]),
            live: 0,
            undo: None,
        }
    }

    /// Returns the generation live play runs.
    pub(super) fn live(&self) -> u32 {
        self.live
    }

    /// Returns the oldest generation still held.
    pub(super) fn oldest(&self) -> u32 {
        self.list.front().map_or(self.live, |(g, _)| *g)
    }

    /// Makes `code`, which a reload loaded in place of `replaced` modules,
    /// the live generation; the oldest is forgotten past
    /// [`MAX_GENERATIONS`].
    pub(super) fn add(&mut self, code: Rc<Code>, replaced: Taken) {
        let generation = self.list.back().map_or(0, |(g, _)| g + 1);
        self.list.push_back((generation, code));
        while self.list.len() > MAX_GENERATIONS {
            self.list.pop_front();
        }
        self.undo = Some(Undo {
            previous: self.live,
            modules: replaced,
        });
        self.live = generation;
    }

    /// Takes back the last reload: the generation before it is live
    /// again. Returns its code and the modules the reload replaced, for
    /// `require` to restore.
    ///
    /// # Errors
    /// There is no reload to take back, or its code is no longer held.
    pub(super) fn undo(&mut self) -> Result<(Rc<Code>, Taken)> {
        let Some(undo) = self.undo.take() else {
            return Err(Error::rule(
                crate::Rule::R3,
                "there is no reload to take back",
            ));
        };
        let previous = Rc::clone(self.code_of(undo.previous)?);
        self.list.retain(|(g, _)| *g <= undo.previous);
        self.live = undo.previous;
        Ok((previous, undo.modules))
    }

    /// The code of generation `generation`.
    pub(super) fn code_of(&self, generation: u32) -> Result<&Rc<Code>> {
        self.list
            .iter()
            .find(|(g, _)| *g == generation)
            .map(|(_, code)| code)
            .ok_or_else(|| {
                Error::rule(
                    crate::Rule::R1,
                    format!(
                        "the code that ran these frames (reload {generation}) is no longer \
                     held: a game holds its last {MAX_GENERATIONS} reloads' code"
                    ),
                )
            })
    }
}

/// Checks that `dir` is a folder, the way every command that takes a
/// game says it is not.
///
/// # Errors
/// It is not there, or is a file, a pipe or a device.
pub fn game_folder(dir: &Path) -> Result<()> {
    let game_err = |reason: &str| Error::Game {
        path: dir.to_path_buf(),
        reason: reason.to_string(),
    };
    match std::fs::metadata(dir) {
        Err(_) => Err(game_err("no such game folder")),
        Ok(meta) if meta.is_dir() => Ok(()),
        Ok(meta) if meta.is_file() => {
            Err(game_err("is a file; a game is a folder with a main.luau"))
        }
        Ok(_) => Err(game_err(
            "is a pipe or a device; a game is a folder with a main.luau",
        )),
    }
}

pub(super) fn find_main(dir: &Path) -> Result<String> {
    let game_err = |reason: &str| Error::Game {
        path: dir.to_path_buf(),
        reason: reason.to_string(),
    };
    game_folder(dir)?;
    for name in ["main.luau", "main.lua"] {
        if dir.join(name).is_file() {
            return Ok(name.to_string());
        }
    }
    Err(game_err(
        "has no main.luau (or main.lua); a game is a folder with one (G1)",
    ))
}

/// Refuses a field whose name differs from a known one only by case, the
/// likeliest typo (`Update` for `update`); other fields are the author's.
fn check_fields(table: &Table, known: &[&str], file: &str, what: &str) -> Result {
    for pair in table.pairs::<Value, Value>() {
        let Ok((Value::String(key), _)) = pair else {
            continue;
        };
        let key = key.to_string_lossy();
        if let Some(meant) = known
            .iter()
            .find(|k| k.eq_ignore_ascii_case(&key) && **k != key)
        {
            return Err(Error::script(format!(
                "{file}: {what} has `{key}`; did you mean `{meant}`?"
            )));
        }
    }
    Ok(())
}
