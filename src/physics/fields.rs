//! Reading one value, or one table's fields, with the place named in
//! any refusal (P4): numbers are finite, points are pairs, ids are whole
//! numbers or short strings, and a table has no field it should not.
//! Names of places are made only when something is refused.

use crate::Refusal;
use crate::terminal::Number;
use mlua::{Table, Value};

/// The farthest from the origin a position may be, in pixels; beyond it
/// single precision (rapier's) cannot tell pixels apart.
pub const MAX_COORDINATE: f64 = 1e7;

/// The largest size of a shape and speed of a body.
pub const MAX_SIZE: f64 = 1e6;

/// The longest id, in bytes.
pub const MAX_ID: usize = 256;

/// An id, ordered: whole numbers first, then strings bytewise. Bodies
/// are stepped in this order, so the same world gives the same result.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Id {
    Number(i64),
    Text(Vec<u8>),
}

/// An id: a whole number or a short string.
pub fn id_of(value: &Value) -> Option<Id> {
    match value {
        // mlua's integer is i32 on wasm32.
        #[allow(clippy::useless_conversion)]
        Value::Integer(n) => Some(Id::Number(i64::from(*n))),
        Value::Number(n) if n.fract() == 0.0 && n.abs() < 9.0e15 => Some(Id::Number(*n as i64)),
        Value::String(s) if s.as_bytes().len() <= MAX_ID => Some(Id::Text(s.as_bytes().to_vec())),
        _ => None,
    }
}

/// A finite number, or why `value` is not one; `place` names it, made
/// only when it is not.
pub(super) fn number_at(value: &Value, place: impl FnOnce() -> String) -> Result<f64, Refusal> {
    match value {
        Value::Number(n) if n.is_finite() => Ok(*n),
        Value::Integer(n) => Ok(*n as f64),
        other => finite_number(other, &place()),
    }
}

/// A finite number, or why `value` (at `place`) is not one.
pub fn finite_number(value: &Value, place: &str) -> Result<f64, Refusal> {
    let v = match value {
        Value::Number(n) => *n,
        Value::Integer(n) => *n as f64,
        other => {
            return Err(refuse!(
                "{place} is a {}, not a number",
                crate::state::type_of(other)
            ));
        }
    };
    if !v.is_finite() {
        return Err(refuse!(
            "{place} is {}; it must be a finite number (P4)",
            Number(v)
        ));
    }
    Ok(v)
}

/// `place.field`, or `field` at the top of the world; made only for a
/// message, so reading a world allocates no names.
pub(super) fn joined(place: &str, field: &str) -> String {
    if place.is_empty() {
        field.to_string()
    } else {
        format!("{place}.{field}")
    }
}

/// Field `field` of `table` (at `place`) as a finite number, or `default`.
pub(super) fn number_or(
    table: &Fields<'_>,
    field: &str,
    default: f64,
    place: &str,
) -> Result<f64, Refusal> {
    match table.get(field) {
        Value::Nil => Ok(default),
        Value::Number(n) if n.is_finite() => Ok(n),
        Value::Integer(n) => Ok(n as f64),
        value => finite_number(&value, &joined(place, field)),
    }
}

pub(super) fn flag(table: &Fields<'_>, field: &str, place: &str) -> Result<bool, Refusal> {
    match table.get(field) {
        Value::Nil => Ok(false),
        Value::Boolean(b) => Ok(b),
        other => Err(refuse!(
            "{} is a {}, not true or false",
            joined(place, field),
            crate::state::type_of(&other)
        )),
    }
}

/// `{ x = .., y = .. }`, `{ x, y }` or a vector.
pub(super) fn pair(value: &Value, place: impl Fn() -> String) -> Result<[f64; 2], Refusal> {
    point(value, place)
}

/// A point of `N` coordinates named x, y, z, w: `{ x = .., y = .. }`,
/// the numbers in order `{ x, y }`, or (up to three) a vector.
pub(super) fn point<const N: usize>(
    value: &Value,
    place: impl Fn() -> String,
) -> Result<[f64; N], Refusal> {
    const NAMES: [&str; 4] = ["x", "y", "z", "w"];
    let place = &place;
    let mut raw = [const { Value::Nil }; N];
    match value {
        Value::Vector(v) if N <= 3 => {
            for (i, slot) in raw.iter_mut().enumerate() {
                *slot = Value::Number(f64::from([v.x(), v.y(), v.z()][i]));
            }
        }
        Value::Table(t) => {
            let named = !t.raw_get::<Value>("x").map_err(text)?.is_nil();
            for (i, slot) in raw.iter_mut().enumerate() {
                *slot = if named {
                    t.raw_get(NAMES[i]).map_err(text)?
                } else {
                    t.raw_get(i + 1).map_err(text)?
                };
            }
        }
        other => {
            let names = NAMES[..N]
                .iter()
                .map(|n| format!("{n} = .."))
                .collect::<Vec<_>>();
            let vector = if N <= 3 { " or a vector" } else { "" };
            return Err(refuse!(
                "{} is a {}; it is {{ {} }}{vector}",
                place(),
                crate::state::type_of(other),
                names.join(", ")
            ));
        }
    }
    let mut out = [0.0; N];
    for (i, (slot, value)) in out.iter_mut().zip(&raw).enumerate() {
        *slot = number_at(value, || format!("{}.{}", place(), NAMES[i]))?;
    }
    Ok(out)
}

/// A table's fields read in one pass (`lua_rawiter`, no key strings
/// made), refusing any field it should not have: a typo would otherwise
/// be ignored silently.
pub(super) struct Fields<'a> {
    names: &'a [&'a str],
    values: Vec<Value>,
}

impl<'a> Fields<'a> {
    pub(super) fn read(
        table: &Table,
        names: &'a [&'a str],
        place: &str,
        hint: &str,
    ) -> Result<Self, Refusal> {
        let mut values = vec![Value::Nil; names.len()];
        let mut unknown: Option<Value> = None;
        table
            .for_each::<Value, Value>(|key, value| {
                let slot = match &key {
                    Value::String(s) => names.iter().position(|n| n.as_bytes() == &*s.as_bytes()),
                    _ => None,
                };
                match slot {
                    Some(i) => values[i] = value,
                    None => {
                        unknown.get_or_insert(key);
                    }
                }
                Ok(())
            })
            .map_err(text)?;
        if let Some(key) = unknown {
            let place = if place.is_empty() { "the world" } else { place };
            let name = match &key {
                Value::String(s) => format!("`{}`", moonloop_door::escape(&s.to_string_lossy())),
                other => place_of(other),
            };
            return Err(refuse!(
                "{place} has a field {name} it does not know (it knows {}){hint}",
                names.join(", ")
            ));
        }
        Ok(Fields { names, values })
    }

    pub(super) fn get(&self, name: &str) -> Value {
        let i = self
            .names
            .iter()
            .position(|n| *n == name)
            .expect("a field of the list");
        self.values[i].clone()
    }
}

/// An id as the author wrote it: `"ball"`, `3`, or what it is.
pub(super) fn shown(id: &Value) -> String {
    match id {
        Value::Integer(n) => n.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => {
            let cut: String = s.to_string_lossy().chars().take(MAX_ID).collect();
            format!("\"{}\"", moonloop_door::escape(&cut))
        }
        other => format!("a {}", crate::state::type_of(other)),
    }
}

/// How `key` reads after a table's name: `.ball`, `[3]`, `["two words"]`,
/// or what it is when it cannot be a key of ours (`a boolean`).
pub fn place_of(key: &Value) -> String {
    match key {
        Value::Integer(n) => format!("[{n}]"),
        Value::Number(n) => format!("[{n}]"),
        Value::String(s) => {
            let s = s.to_string_lossy();
            let word = !s.is_empty()
                && s.len() <= MAX_ID
                && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                && !s.starts_with(|c: char| c.is_ascii_digit());
            if word {
                format!(".{s}")
            } else {
                let cut: String = s.chars().take(MAX_ID).collect();
                format!("[\"{}\"]", moonloop_door::escape(&cut))
            }
        }
        other => format!("a {}", crate::state::type_of(other)),
    }
}

pub(super) fn text(e: mlua::Error) -> String {
    e.to_string()
}
