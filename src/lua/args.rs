//! Args: the checks both drawing bindings make of their Luau arguments,
//! written once so `scene` and `screen` take the same values and refuse
//! them in the same words (as LÖVE keeps its `luax_check*` helpers).
//!
//! Each check returns the reason alone; the binding adds the call and the
//! author's line.

use crate::Refusal;
use crate::terminal::Number;
use mlua::{LuaString, Table, Value};

use crate::color::Rgba;
use crate::state::type_of;

/// The longest name of a scene object or light, in bytes.
pub const MAX_NAME: usize = 256;

/// Reads a number (`name` is how the author wrote the argument).
///
/// # Errors
/// The value is not a number.
pub fn number(name: &str, value: &Value) -> Result<f64, Refusal> {
    match value {
        Value::Integer(i) => Ok(*i as f64),
        Value::Number(n) => Ok(*n),
        other => Err(refuse!(
            "`{name}` should be a number, not a {}",
            type_of(other)
        )),
    }
}

/// Reads a finite number.
///
/// # Errors
/// The value is not a number, or is NaN or infinite.
pub fn finite(name: &str, value: &Value) -> Result<f64, Refusal> {
    let v = number(name, value)?;
    if v.is_finite() {
        Ok(v)
    } else {
        Err(refuse!(
            "`{name}` is {}; it must be a finite number",
            Number(v)
        ))
    }
}

/// Reads a color: a string (`"#ff8800"`, `"orange"`) or a table of 0-1
/// channels, `{r, g, b, a}` by position or by name (`a` defaults to 1).
///
/// # Errors
/// Says why the value is not a color.
pub fn color(value: &Value) -> Result<Rgba, Refusal> {
    match value {
        Value::String(s) => {
            if s.as_bytes().len() > 64 {
                return Err("a color name is at most 64 bytes".into());
            }
            Rgba::parse(&s.to_string_lossy())
        }
        Value::Table(t) => {
            let channel = |i: i64, name: &str, default: Option<f64>| -> Result<f64, Refusal> {
                let get = |t: &Table| -> mlua::Result<Value> {
                    let v: Value = t.raw_get(i)?;
                    if v.is_nil() { t.raw_get(name) } else { Ok(v) }
                };
                match (get(t).map_err(|e| e.to_string())?, default) {
                    (Value::Nil, Some(d)) => Ok(d),
                    (v, _) => number(name, &v),
                }
            };
            Rgba::from_unit(
                channel(1, "r", None)?,
                channel(2, "g", None)?,
                channel(3, "b", None)?,
                channel(4, "a", Some(1.0))?,
            )
        }
        other => Err(refuse!(
            "a {} is not a color (give \"#rrggbb\", a name, or {{r, g, b, a}} from 0 to 1)",
            type_of(other)
        )),
    }
}

/// Reads the name of an object or light: a string of at most
/// [`MAX_NAME`] bytes, checked before it is copied.
///
/// # Errors
/// The value is not a string, or is too long.
pub fn name(what: &str, value: &LuaString) -> Result<String, Refusal> {
    let len = value.as_bytes().len();
    if len > MAX_NAME {
        return Err(refuse!(
            "{what} of {len} bytes is too long (names are at most {MAX_NAME} bytes, H10)"
        ));
    }
    Ok(value.to_string_lossy())
}

/// Reads a string argument of at most `max` bytes, checked before it is
/// copied.
///
/// # Errors
/// The string is longer than `max`.
pub fn text(what: &str, value: &LuaString, max: usize) -> Result<String, Refusal> {
    let len = value.as_bytes().len();
    if len > max {
        return Err(refuse!(
            "{what} of {} is too long (at most {}, H10)",
            moonloop_door::sizes(len as u64, max as u64).0,
            moonloop_door::sizes(len as u64, max as u64).1
        ));
    }
    Ok(value.to_string_lossy())
}
