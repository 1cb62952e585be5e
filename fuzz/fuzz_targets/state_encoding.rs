//! Arbitrary nested tables built from bytes (shared subtables, cycles,
//! metatables and tables the game froze itself among them): taking them
//! as a state either
//! succeeds or names the offender (and names it again when taken again),
//! the canonical encoding and hash of what is taken are stable, and the
//! walk that reads tables in place agrees with the one that asks the API.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mlua::{Lua, Value};

/// Builds a value from bytes: a tiny stack language of scalars and tables.
/// Also says whether a table or function became a key somewhere: such keys
/// hash by address, so the order of a table's entries (and so which of two
/// offenders a refusal names first) differs from one VM to the next.
fn build(lua: &Lua, bytes: &[u8]) -> mlua::Result<(Value, bool)> {
    let mut stack: Vec<Value> = Vec::new();
    let mut address_keys = false;
    let mut i = 0;
    while i < bytes.len() {
        let op = bytes[i];
        let arg = *bytes.get(i + 1).unwrap_or(&0);
        i += 2;
        match op % 13 {
            0 => stack.push(Value::Number(arg as f64 / 7.0 - 10.0)),
            1 => stack.push(Value::Integer(arg as i64)),
            2 => stack.push(Value::Boolean(arg % 2 == 0)),
            3 => stack.push(Value::String(lua.create_string(vec![
                b'k';
                (arg % 5) as usize
                    + 1
            ])?)),
            4 => stack.push(Value::Number(
                [f64::NAN, f64::INFINITY, -0.0, 1e308][(arg % 4) as usize],
            )),
            5 => stack.push(Value::Vector(mlua::Vector::new(arg as f32, 1.0, -2.0))),
            6 => {
                // Pop a key and value into a new table.
                let t = lua.create_table()?;
                if let (Some(v), Some(k)) = (stack.pop(), stack.pop())
                    && !matches!(k, Value::Nil)
                    && !matches!(k, Value::Number(n) if n.is_nan())
                {
                    address_keys |= matches!(k, Value::Table(_) | Value::Function(_));
                    t.raw_set(k, v)?;
                }
                stack.push(Value::Table(t));
            }
            7 => {
                // Insert the top into the table below it.
                if let (Some(v), Some(Value::Table(t))) = (stack.pop(), stack.last()) {
                    t.raw_push(v)?;
                }
            }
            8 => stack.push(Value::Function(lua.create_function(|_, ()| Ok(()))?)),
            9 => {
                // The same value again: shared subtables, the checked mark's
                // fast path.
                if let Some(top) = stack.last().cloned() {
                    stack.push(top);
                }
            }
            10 => {
                // A table that holds itself, or its parent: a cycle.
                if let Some(Value::Table(t)) = stack.last() {
                    t.raw_set(arg % 3, t.clone())?;
                }
            }
            11 => {
                if let Some(Value::Table(t)) = stack.last() {
                    let _ = t.set_metatable(Some(lua.create_table()?));
                }
            }
            _ => {
                // A table the game froze itself, checked or not.
                if let Some(Value::Table(t)) = stack.last() {
                    t.set_readonly(true);
                }
            }
        }
    }
    Ok((stack.pop().unwrap_or(Value::Nil), address_keys))
}

/// Whether every table reachable from `value` is frozen.
fn all_frozen(value: &Value, depth: usize) -> bool {
    let Value::Table(t) = value else { return true };
    if depth > moonloop::state::MAX_DEPTH + 1 {
        return true;
    }
    t.is_readonly()
        && t.pairs::<Value, Value>()
            .all(|e| e.is_ok_and(|(k, v)| all_frozen(&k, depth + 1) && all_frozen(&v, depth + 1)))
}

/// Takes the value the bytes build, with the walk that reads tables in
/// place or the one that asks the C API about every entry.
fn take(bytes: &[u8], in_place: bool) -> Option<(Result<(String, String), moonloop::Refusal>, bool)> {
    let lua = moonloop::lua::new_vm(moonloop::Limits::default()).expect("a VM");
    if in_place {
        moonloop::state::install(&lua).expect("installed");
    } else {
        moonloop::state::install_asking_the_api(&lua).expect("installed");
    }
    let (value, address_keys) = build(&lua, bytes).ok()?;
    let taken = match moonloop::state::take(&lua, &value) {
        Ok(()) => {
            let json = moonloop::state::to_json(&value).expect("a taken state encodes");
            let hash = moonloop::state::hash(&value).expect("a taken state hashes");
            assert_eq!(moonloop::state::to_json(&value).unwrap(), json);
            assert_eq!(moonloop::state::hash(&value).unwrap(), hash);
            assert!(
                all_frozen(&value, 0),
                "taken tables are frozen, all the way down"
            );
            Ok((json, hash))
        }
        Err(why) => {
            assert!(why.contains("S4") || why.contains("S5"), "{why}");
            // What the refusal left frozen is not taken as checked.
            let again = moonloop::state::take(&lua, &value);
            assert_eq!(again.as_ref(), Err(&why), "refused again, alike");
            Err(why)
        }
    };
    Some((taken, address_keys))
}

fuzz_target!(|bytes: &[u8]| {
    let (Some((in_place, address_keys)), Some((asking, _))) = (take(bytes, true), take(bytes, false))
    else {
        return;
    };
    if address_keys && in_place.is_err() && asking.is_err() {
        // Both refuse; with entries in address order, each VM may meet a
        // different offender first (each names a real one, checked above).
        return;
    }
    assert_eq!(in_place, asking, "both walks take a state alike");
});
