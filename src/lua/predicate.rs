//! A seek's predicate (rule R4): a Luau expression over `state` and
//! `frame`, compiled in the game's VM but seeing only the pure libraries,
//! so looking never changes the run looked at. `moonloop seek`, a
//! window's Shift+F9 (`--when`) and their tests ask it.

use mlua::{Function, Lua, Table, Value};

use super::errors::{describe, script};
use super::game::LuaGame;
use crate::error::{Error, Result};

/// A compiled `--when` expression.
#[derive(Debug, Clone)]
pub struct Predicate(Function);

impl Predicate {
    /// Compiles `expression` in `game`'s VM.
    ///
    /// # Errors
    /// The expression does not compile: the message quotes it and says
    /// why.
    pub fn compile(game: &LuaGame, expression: &str) -> Result<Predicate> {
        let quoted = crate::terminal::line(expression);
        // On a line of its own, so what the parser says of it is about
        // the author's text; the place (`--when:2:`) is dropped.
        let source = format!("local state, frame = ...\nreturn (\n{expression}\n)");
        let lua = game.lua();
        let env = environment(lua).map_err(|e| Error::usage_of("--when", describe(&e)))?;
        lua.load(source)
            .set_name("=--when")
            .set_environment(env)
            .into_function()
            .map(Predicate)
            .map_err(|e| {
                let why = describe(&e);
                let why = why
                    .split_once(": ")
                    .filter(|(place, _)| place.starts_with("--when:"))
                    .map_or(why.as_str(), |(_, rest)| rest);
                Error::usage(format!("--when `{quoted}` is not an expression: {why}"))
            })
    }

    /// Says whether the predicate holds for `game`'s current state at
    /// `frame`: any value but nil and false.
    ///
    /// # Errors
    /// The predicate failed or ran past the game's budget.
    pub fn holds(&self, game: &LuaGame, frame: u64) -> Result<bool> {
        game.ask(&self.0, frame)
            .map(|v| !matches!(v, Value::Nil | Value::Boolean(false)))
            .map_err(script)
    }
}

/// The globals a predicate sees: the pure libraries and functions, and
/// nothing that changes the game's run. `math.random` would draw from the
/// game's generator (the run seeking would differ from the run seen),
/// `tostring` of a table advances the game's table numbering, `print`
/// writes; they are refused by name.
fn environment(lua: &Lua) -> mlua::Result<Table> {
    let globals = lua.globals();
    let env = lua.create_table()?;
    for name in [
        "string", "table", "vector", "bit32", "utf8", "assert", "error", "ipairs", "next", "pairs",
        "rawequal", "rawget", "rawlen", "select", "tonumber", "type", "typeof", "unpack",
    ] {
        // The game's globals see the libraries through the sandbox.
        let value: Value = globals.get(name)?;
        env.raw_set(name, value)?;
    }
    let math: Table = globals.get("math")?;
    let safe = lua.create_table_from(math.pairs::<Value, Value>().flatten())?;
    for name in ["random", "randomseed"] {
        let refusal = lua.create_function(move |_, ()| -> mlua::Result<()> {
            Err(mlua::Error::RuntimeError(format!(
                "--when cannot call math.{name}: it would draw from the game's random generator \
                 and change the run it looks at"
            )))
        })?;
        safe.raw_set(name, refusal)?;
    }
    safe.set_readonly(true);
    env.raw_set("math", safe)?;
    for name in ["tostring", "print"] {
        let refusal = lua.create_function(move |_, _: mlua::MultiValue| -> mlua::Result<()> {
            Err(mlua::Error::RuntimeError(format!(
                "--when cannot call {name}: it would change the run it looks at (compare values \
                 instead)"
            )))
        })?;
        env.raw_set(name, refusal)?;
    }
    env.set_readonly(true);
    Ok(env)
}
