//! What changed between two states, place by place: how `moonloop
//! explore` shows the frame a property broke on (X3 in docs/exploring.md).
//!
//! Both states are walked in canonical key order (S7), side by side; a
//! table both share is not entered (frozen, it cannot differ), so the
//! walk follows what the frame made new, as the state's take does.

use mlua::Value;

use super::encoding::{Key, number, sorted_entries};

/// How deep the walk goes before it shows a whole table as changed.
const DEPTH: usize = 32;

/// The places where `new` differs from `old`, one line each (`ball.x: 3
/// -> 4.5`), at most `limit` of them, then a line saying how many more.
///
/// # Errors
/// A key is not a string or a number (the states were not plain data).
pub fn changes(old: &Value, new: &Value, limit: usize) -> mlua::Result<Vec<String>> {
    let mut walk = Walk {
        lines: Vec::new(),
        more: 0,
        limit,
    };
    walk.value("state", old, new, 0)?;
    if walk.more > 0 {
        walk.lines.push(format!("... and {} more", walk.more));
    }
    Ok(walk.lines)
}

/// The place `keys` name under the state, written as [`changes`] writes
/// places (`state.ball.x`, `state.list[3]`, `state["a b"]`).
pub fn place(keys: &[Value]) -> String {
    keys.iter()
        .fold("state".to_string(), |place, key| match key {
            Value::String(s) => join(&place, &Key::String(s.as_bytes().to_vec())),
            Value::Integer(i) => join(&place, &Key::Number(*i as f64)),
            Value::Number(n) => join(&place, &Key::Number(*n)),
            other => format!("{place}[{}]", other.type_name()),
        })
}

/// `lines` (as [`changes`] wrote them) with those at or under a place of
/// `read`, or holding one, first, in `read`'s order, the rest after in
/// theirs: the changes a broken property looked at, before a copy of the
/// world it did not.
pub fn read_first(lines: Vec<String>, read: &[String]) -> Vec<String> {
    let touches = |line: &str, place: &str| {
        let at = line.split(": ").next().unwrap_or(line);
        let under = |a: &str, b: &str| {
            a == b || (a.starts_with(b) && matches!(a.as_bytes().get(b.len()), Some(b'.' | b'[')))
        };
        under(at, place) || under(place, at)
    };
    let mut first = Vec::new();
    let mut rest: Vec<Option<String>> = lines.into_iter().map(Some).collect();
    for place in read {
        for slot in rest.iter_mut() {
            if slot.as_deref().is_some_and(|line| touches(line, place)) {
                first.extend(slot.take());
            }
        }
    }
    first.extend(rest.into_iter().flatten());
    first
}

struct Walk {
    lines: Vec<String>,
    more: usize,
    limit: usize,
}

impl Walk {
    fn note(&mut self, line: String) {
        if self.lines.len() < self.limit {
            self.lines.push(line);
        } else {
            self.more += 1;
        }
    }

    fn value(&mut self, place: &str, old: &Value, new: &Value, depth: usize) -> mlua::Result<()> {
        match (old, new) {
            (Value::Table(a), Value::Table(b)) if depth < DEPTH => {
                if a == b {
                    return Ok(());
                }
                let (a, b) = (sorted_entries(a)?, sorted_entries(b)?);
                let (mut i, mut j) = (0, 0);
                while i < a.len() || j < b.len() {
                    let order = match (a.get(i), b.get(j)) {
                        (Some((x, _)), Some((y, _))) => compare(x, y),
                        (Some(_), None) => std::cmp::Ordering::Less,
                        _ => std::cmp::Ordering::Greater,
                    };
                    match order {
                        std::cmp::Ordering::Less => {
                            let (key, value) = &a[i];
                            self.note(format!("{}: {} -> none", join(place, key), show(value)));
                            i += 1;
                        }
                        std::cmp::Ordering::Greater => {
                            let (key, value) = &b[j];
                            self.note(format!("{}: none -> {}", join(place, key), show(value)));
                            j += 1;
                        }
                        std::cmp::Ordering::Equal => {
                            let inner = join(place, &a[i].0);
                            self.value(&inner, &a[i].1, &b[j].1, depth + 1)?;
                            i += 1;
                            j += 1;
                        }
                    }
                }
                Ok(())
            }
            _ if same(old, new) => Ok(()),
            _ => {
                self.note(format!("{place}: {} -> {}", show(old), show(new)));
                Ok(())
            }
        }
    }
}

/// Canonical key order: numbers by value, then strings by bytes.
fn compare(a: &Key, b: &Key) -> std::cmp::Ordering {
    match (a, b) {
        (Key::Number(x), Key::Number(y)) => x.total_cmp(y),
        (Key::Number(_), Key::String(_)) => std::cmp::Ordering::Less,
        (Key::String(_), Key::Number(_)) => std::cmp::Ordering::Greater,
        (Key::String(x), Key::String(y)) => x.cmp(y),
    }
}

/// Whether two values that are not both tables are the same.
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Integer(x), Value::Number(y)) | (Value::Number(y), Value::Integer(x)) => {
            (*x as f64).to_bits() == y.to_bits()
        }
        (Value::Number(x), Value::Number(y)) => x.to_bits() == y.to_bits(),
        _ => a == b,
    }
}

/// `place.key`, or `place[key]` for a number or a key that is not a name.
fn join(place: &str, key: &Key) -> String {
    match key {
        Key::Number(n) => format!("{place}[{}]", number(*n)),
        Key::String(bytes) => {
            let name = String::from_utf8_lossy(bytes);
            let plain = !name.is_empty()
                && !name.starts_with(|c: char| c.is_ascii_digit())
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            if plain {
                format!("{place}.{name}")
            } else {
                format!("{place}[{}]", quoted(&name))
            }
        }
    }
}

/// `text` in double quotes, its quotes, backslashes and control
/// characters escaped.
fn quoted(text: &str) -> String {
    let inner = text.replace('\\', "\\\\").replace('"', "\\\"");
    format!("\"{}\"", crate::terminal::escape(&inner))
}

/// A value in a line: numbers exactly, strings quoted and escaped (cut
/// past 60 characters), a table by its size.
fn show(value: &Value) -> String {
    match value {
        Value::Nil => "nil".into(),
        Value::Boolean(b) => b.to_string(),
        Value::Integer(i) => number(*i as f64),
        Value::Number(n) => number(*n),
        Value::Vector(v) => format!(
            "vector({}, {}, {})",
            number(v.x().into()),
            number(v.y().into()),
            number(v.z().into())
        ),
        Value::String(s) => {
            let text = s.to_string_lossy();
            let cut: String = text.chars().take(60).collect();
            let tail = if cut.len() < text.len() { "..." } else { "" };
            format!("{}{tail}", quoted(&cut))
        }
        Value::Table(t) => format!("a table of {} entries", t.pairs::<Value, Value>().count()),
        other => other.type_name().to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn states(lua: &mlua::Lua, old: &str, new: &str) -> (Value, Value) {
        let load = |code: &str| lua.load(format!("return {code}")).eval::<Value>().unwrap();
        (load(old), load(new))
    }

    #[test]
    fn changes_are_named_by_their_place_in_canonical_order() {
        let lua = mlua::Lua::new();
        let (old, new) = states(
            &lua,
            "{ ball = { x = 3, y = 1 }, score = { 1, 2 }, name = 'a' }",
            "{ ball = { x = 4.5, y = 1 }, score = { 1, 2, 5 }, ['two words'] = true, name = 'a' }",
        );
        assert_eq!(
            changes(&old, &new, 10).unwrap(),
            vec![
                "state.ball.x: 3 -> 4.5",
                "state.score[3]: none -> 5",
                "state[\"two words\"]: none -> true",
            ]
        );
    }

    #[test]
    fn equal_states_have_no_changes_and_many_are_counted() {
        let lua = mlua::Lua::new();
        let (old, new) = states(&lua, "{ a = { 1, 2 } }", "{ a = { 1, 2 } }");
        assert!(changes(&old, &new, 10).unwrap().is_empty());
        let (old, new) = states(&lua, "{ 1, 2, 3, 4 }", "{ 5, 6, 7, 8 }");
        let lines = changes(&old, &new, 2).unwrap();
        assert_eq!(lines.len(), 3);
        assert_eq!(lines[2], "... and 2 more");
    }

    #[test]
    fn a_value_that_became_a_table_is_shown_by_size() {
        let lua = mlua::Lua::new();
        let (old, new) = states(&lua, "{ a = 1 }", "{ a = { 1, 2 } }");
        assert_eq!(
            changes(&old, &new, 10).unwrap(),
            vec!["state.a: 1 -> a table of 2 entries"]
        );
    }

    // rule: X3
    #[test]
    fn the_places_read_come_first_and_nothing_is_lost() {
        let lines = [
            "state.previous.x: 1 -> 2",
            "state.world.puck.y: 3 -> 4",
            "state.worlds: 1 -> 2",
            "state.world.t: 5 -> 6",
            "state.list[2]: 1 -> 2",
        ];
        let lines: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
        let read = ["state.world.puck".to_string(), "state.list".to_string()];
        assert_eq!(
            read_first(lines, &read),
            [
                "state.world.puck.y: 3 -> 4",
                "state.list[2]: 1 -> 2",
                "state.previous.x: 1 -> 2",
                "state.worlds: 1 -> 2",
                "state.world.t: 5 -> 6",
            ]
        );
    }

    #[test]
    fn a_place_is_written_as_changes_writes_it() {
        let lua = mlua::Lua::new();
        let keys = [
            Value::String(lua.create_string("world").unwrap()),
            Value::Integer(3),
            Value::String(lua.create_string("two words").unwrap()),
        ];
        assert_eq!(place(&keys), "state.world[3][\"two words\"]");
    }
}
