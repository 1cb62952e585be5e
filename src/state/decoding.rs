//! Reading the canonical JSON back (rule S7): every document
//! [`super::to_json`] writes reads back as the same value, so saves are
//! JSON a person can read and the host can load.
//!
//! The text is read as plain data by core's reader
//! ([`moonloop_core::document`], which names the line and column of
//! anything the writer never makes), and the tables are built from it
//! here.

use crate::Refusal;
use mlua::{Lua, Value};
use moonloop_core::document::{self, Doc};

use super::MAX_DEPTH;

/// Reads `text` (canonical JSON) into a value in `lua`. The tables are not
/// frozen or taken; the caller takes the value as a state.
///
/// # Errors
/// The text is not a document the writer makes: the message gives the
/// line and column.
pub fn from_json(lua: &Lua, text: &str) -> Result<Value, Refusal> {
    let doc = document::read(text, MAX_DEPTH)?;
    build(lua, &doc).map_err(|e| refuse!("{e}"))
}

/// Makes `doc` a value in `lua`.
fn build(lua: &Lua, doc: &Doc) -> mlua::Result<Value> {
    Ok(match doc {
        Doc::Nil => Value::Nil,
        Doc::Bool(b) => Value::Boolean(*b),
        Doc::Number(n) => Value::Number(*n),
        Doc::Text(bytes) => Value::String(lua.create_string(bytes)?),
        Doc::Vector([x, y, z]) => Value::Vector(mlua::Vector::new(*x, *y, *z)),
        Doc::List(values) => {
            let table = lua.create_table_with_capacity(values.len(), 0)?;
            for value in values {
                table.raw_push(build(lua, value)?)?;
            }
            Value::Table(table)
        }
        Doc::Table(entries) => {
            let table = lua.create_table_with_capacity(0, entries.len())?;
            for (key, value) in entries {
                table.raw_set(build(lua, key)?, build(lua, value)?)?;
            }
            Value::Table(table)
        }
    })
}

#[cfg(test)]
mod tests;
