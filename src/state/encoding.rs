//! The canonical encoding of a state (rule S7): JSON for people
//! (`--print-state`), a hash for machines (`--state-hash`, replays), and
//! copies between VMs (what tests read).
//!
//! A state is a tree of plain data, but the same frozen table may sit at
//! many places in it (a state shares what it did not change). The hash
//! and the copy visit each table once, so their cost follows the number
//! of distinct tables; the JSON writes a shared table out at every place,
//! so its size is capped at [`MAX_JSON`].
//!
//! The JSON is unambiguous: every value reads back as one state.
//!
//! | value | JSON |
//! |---|---|
//! | a finite number | the shortest decimal that reads back exactly (`-0` too) |
//! | NaN, inf, -inf | `{"$number": "nan"}`, `"inf"`, `"-inf"` |
//! | a string of UTF-8 text | a JSON string |
//! | other bytes | `{"$bytes": "ff00"}`, hex |
//! | a vector | `{"$vector": [x, y, z]}` |
//! | a table with keys 1..n | an array |
//! | a table with only UTF-8 string keys | an object; a key starting with `$` gets one more (`"$$x"`) |
//! | any other table | `{"$map": [[key, value], ...]}` |
//!
//! Keys sort numbers first (by value), then strings (by bytes).

use crate::Refusal;
use std::collections::HashMap;
use std::ffi::c_void;
use std::fmt::Write as _;

use mlua::{IntoLua, Lua, Table, Value};

use super::{MAX_DEPTH, PLAIN_DATA, is_identifier, type_of};

/// The largest JSON `--print-state` writes, in bytes.
pub const MAX_JSON: usize = 64 << 20;

/// Writes a number exactly: the shortest decimal that reads back to the
/// same `f64`, without a trailing `.0` on whole numbers. NaN and the
/// infinities are written `nan`, `inf` and `-inf` (the JSON wraps them).
pub fn number(n: f64) -> String {
    if n.is_nan() {
        "nan".to_string()
    } else if n.is_infinite() {
        if n > 0.0 { "inf" } else { "-inf" }.to_string()
    } else {
        format!("{n}")
    }
}

/// A key of a table in canonical order: numbers by value, then strings by bytes.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Key {
    Number(f64),
    String(Vec<u8>),
}

pub(super) fn sorted_entries(table: &Table) -> mlua::Result<Vec<(Key, Value)>> {
    let mut entries = Vec::new();
    for pair in table.pairs::<Value, Value>() {
        let (k, v) = pair?;
        let key = match k {
            Value::Integer(i) => Key::Number(i as f64),
            Value::Number(n) => Key::Number(n),
            Value::String(s) => Key::String(s.as_bytes().to_vec()),
            other => {
                return Err(mlua::Error::RuntimeError(format!(
                    "a key is a {} (S5: keys are strings or numbers)",
                    type_of(&other)
                )));
            }
        };
        entries.push((key, v));
    }
    entries.sort_by(|(a, _), (b, _)| match (a, b) {
        (Key::Number(x), Key::Number(y)) => x.total_cmp(y),
        (Key::Number(_), Key::String(_)) => std::cmp::Ordering::Less,
        (Key::String(_), Key::Number(_)) => std::cmp::Ordering::Greater,
        (Key::String(x), Key::String(y)) => x.cmp(y),
    });
    Ok(entries)
}

/// How a table is written: an array, an object, or a `$map`.
#[derive(PartialEq)]
enum Shape {
    Array,
    Object,
    Map,
}

fn shape(entries: &[(Key, Value)]) -> Shape {
    let array = entries
        .iter()
        .enumerate()
        .all(|(i, (k, _))| *k == Key::Number((i + 1) as f64));
    let object = entries
        .iter()
        .all(|(k, _)| matches!(k, Key::String(s) if std::str::from_utf8(s).is_ok()));
    if array && !entries.is_empty() {
        Shape::Array
    } else if object {
        Shape::Object
    } else {
        Shape::Map
    }
}

/// Writes `value` as canonical JSON, indented by two spaces a level.
///
/// # Errors
/// The value is not plain data, or its JSON would pass [`MAX_JSON`].
pub fn to_json(value: &Value) -> mlua::Result<String> {
    let mut json = Json { out: String::new() };
    json.value(value, 0)?;
    Ok(json.out)
}

struct Json {
    out: String,
}

impl Json {
    fn check(&self) -> mlua::Result<()> {
        if self.out.len() > MAX_JSON {
            return Err(mlua::Error::RuntimeError(format!(
                "S7: the state's JSON is larger than {} (a table shared at many places \
                 in the state is written out at each; --state-hash reads it at any size)",
                crate::assets::bytes(MAX_JSON as u64)
            )));
        }
        Ok(())
    }

    fn value(&mut self, value: &Value, indent: usize) -> mlua::Result<()> {
        self.check()?;
        match value {
            Value::Nil => self.out.push_str("null"),
            Value::Boolean(b) => self.out.push_str(if *b { "true" } else { "false" }),
            Value::Integer(i) => self.number(*i as f64),
            Value::Number(n) => self.number(*n),
            Value::Vector(v) => {
                self.out.push_str("{\"$vector\": [");
                for (i, c) in [v.x(), v.y(), v.z()].into_iter().enumerate() {
                    if i > 0 {
                        self.out.push_str(", ");
                    }
                    self.number(c as f64);
                }
                self.out.push_str("]}");
            }
            Value::String(s) => self.string(&s.as_bytes()),
            Value::Table(t) => self.table(t, indent)?,
            other => {
                return Err(mlua::Error::RuntimeError(format!(
                    "a {} is not plain data ({PLAIN_DATA})",
                    type_of(other)
                )));
            }
        }
        Ok(())
    }

    fn number(&mut self, n: f64) {
        if n.is_finite() {
            let _ = write!(self.out, "{n}");
        } else {
            let _ = write!(self.out, "{{\"$number\": \"{}\"}}", number(n));
        }
    }

    fn string(&mut self, bytes: &[u8]) {
        match std::str::from_utf8(bytes) {
            Ok(text) => quote(&mut self.out, text, ""),
            Err(_) => {
                self.out.push_str("{\"$bytes\": \"");
                for b in bytes {
                    let _ = write!(self.out, "{b:02x}");
                }
                self.out.push_str("\"}");
            }
        }
    }

    fn key(&mut self, key: &Key) {
        match key {
            Key::Number(n) => self.number(*n),
            Key::String(s) => self.string(s),
        }
    }

    fn table(&mut self, table: &Table, indent: usize) -> mlua::Result<()> {
        // A taken state is never this deep; a value that was not taken (a
        // test's) may refer back to itself.
        if indent / 2 >= MAX_DEPTH {
            return Err(mlua::Error::RuntimeError(format!(
                "tables nest more than {MAX_DEPTH} deep, or refer back to themselves (S5)"
            )));
        }
        let entries = sorted_entries(table)?;
        if entries.is_empty() {
            self.out.push_str("{}");
            return Ok(());
        }
        let shape = shape(&entries);
        let inner = indent + 2;
        let newline = |out: &mut String, i: usize, at: usize| {
            out.push_str(if i == 0 { "\n" } else { ",\n" });
            out.extend(std::iter::repeat_n(' ', at));
        };
        match shape {
            Shape::Array => self.out.push('['),
            Shape::Object => self.out.push('{'),
            Shape::Map => {
                self.out.push_str("{\"$map\": [");
            }
        }
        for (i, (key, v)) in entries.iter().enumerate() {
            match shape {
                Shape::Array => newline(&mut self.out, i, inner),
                Shape::Object => {
                    newline(&mut self.out, i, inner);
                    let Key::String(s) = key else {
                        unreachable!("object keys are strings")
                    };
                    let text = std::str::from_utf8(s).expect("object keys are UTF-8");
                    // `$` marks the typed forms; a key of the game's that
                    // starts with one gets another.
                    quote(
                        &mut self.out,
                        text,
                        if text.starts_with('$') { "$" } else { "" },
                    );
                    self.out.push_str(": ");
                }
                Shape::Map => {
                    newline(&mut self.out, i, inner);
                    self.out.push('[');
                    self.key(key);
                    self.out.push_str(", ");
                }
            }
            self.value(v, inner)?;
            if shape == Shape::Map {
                self.out.push(']');
            }
        }
        self.out.push('\n');
        self.out.extend(std::iter::repeat_n(' ', indent));
        self.out.push_str(match shape {
            Shape::Array => "]",
            Shape::Object => "}",
            Shape::Map => "]}",
        });
        Ok(())
    }
}

/// Writes `text` as a JSON string, after `prefix`.
fn quote(out: &mut String, text: &str, prefix: &str) {
    out.push('"');
    out.push_str(prefix);
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            // Control characters, and the ones that reorder a terminal's
            // text, are escaped so the JSON prints as it reads.
            c if c.is_control()
                || matches!(c, '\u{2028}' | '\u{2029}' | '\u{202a}'..='\u{202e}') =>
            {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    let _ = write!(out, "\\u{unit:04x}");
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Hashes the canonical form of `value` (BLAKE3, first 8 bytes as hex).
///
/// The form is typed and binary: the same values, keys and order as the
/// JSON. Each table is hashed once however often the state shares it.
///
/// # Errors
/// The value is not plain data.
pub fn hash(value: &Value) -> mlua::Result<String> {
    let mut hasher = blake3::Hasher::new();
    let mut seen = HashMap::new();
    hash_value(&mut hasher, value, &mut seen)?;
    let digest = hasher.finalize();
    Ok(digest.as_bytes()[..8]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect())
}

type Digests = HashMap<*const c_void, [u8; 32]>;

fn hash_value(h: &mut blake3::Hasher, value: &Value, seen: &mut Digests) -> mlua::Result<()> {
    match value {
        Value::Nil => {
            h.update(b"z");
        }
        Value::Boolean(b) => {
            h.update(if *b { b"t" } else { b"f" });
        }
        Value::Integer(i) => hash_number(h, *i as f64),
        Value::Number(n) => hash_number(h, *n),
        Value::Vector(v) => {
            h.update(b"v");
            for c in [v.x(), v.y(), v.z()] {
                // Every NaN is one NaN, as in the JSON (a sign or payload
                // is not part of the canonical form).
                let c = if c.is_nan() { f32::NAN } else { c };
                h.update(&c.to_bits().to_le_bytes());
            }
        }
        Value::String(s) => hash_bytes(h, &s.as_bytes()),
        Value::Table(t) => {
            let digest = match seen.get(&t.to_pointer()) {
                Some(digest) => *digest,
                None => {
                    let mut inner = blake3::Hasher::new();
                    let entries = sorted_entries(t)?;
                    inner.update(&(entries.len() as u64).to_le_bytes());
                    for (key, v) in &entries {
                        match key {
                            Key::Number(n) => hash_number(&mut inner, *n),
                            Key::String(s) => hash_bytes(&mut inner, s),
                        }
                        hash_value(&mut inner, v, seen)?;
                    }
                    let digest = *inner.finalize().as_bytes();
                    seen.insert(t.to_pointer(), digest);
                    digest
                }
            };
            h.update(b"T");
            h.update(&digest);
        }
        other => {
            return Err(mlua::Error::RuntimeError(format!(
                "a {} is not plain data ({PLAIN_DATA})",
                type_of(other)
            )));
        }
    }
    Ok(())
}

fn hash_bytes(h: &mut blake3::Hasher, bytes: &[u8]) {
    h.update(b"s");
    h.update(&(bytes.len() as u64).to_le_bytes());
    h.update(bytes);
}

fn hash_number(h: &mut blake3::Hasher, n: f64) {
    // One NaN, whatever its payload; -0 and 0 stay distinct (exact floats).
    let bits = if n.is_nan() {
        f64::NAN.to_bits()
    } else {
        n.to_bits()
    };
    h.update(b"n");
    h.update(&bits.to_le_bytes());
}

/// Copies plain data from one VM into `into` (tests read a game's state
/// and hand transitions back this way). A table shared at many places is
/// copied once and shared in the copy too.
///
/// # Errors
/// The value is not plain data; the message names the path.
pub fn copy(value: &Value, into: &Lua) -> Result<Value, Refusal> {
    let mut tables = Tables {
        now: Copies::default(),
        freeze: false,
        spare: Vec::new(),
    };
    copy_at(value, into, &Place::Root, 0, &mut tables)
}

/// Copies plain data from one VM into `into`, frozen all the way down:
/// what [`super::Copier`] falls back on where its walk declines, to name
/// the place that is not plain data.
///
/// # Errors
/// The value is not plain data; the message names the path.
pub(super) fn copy_frozen(value: &Value, into: &Lua) -> Result<Value, Refusal> {
    let mut tables = Tables {
        now: Copies::default(),
        freeze: true,
        spare: Vec::new(),
    };
    copy_at(value, into, &Place::Root, 0, &mut tables)
}

/// Copies of tables by their source's address, so a table met twice is
/// copied once. Looked up once a table copied, so the hash is a fast one.
type Copies = rustc_hash::FxHashMap<*const c_void, Table>;

/// The tables of one copy: those copied so far, by the source's address.
struct Tables {
    now: Copies,
    /// Whether copies are frozen as they are made.
    freeze: bool,
    /// Lists of a table's pairs, emptied, for the next table read.
    spare: Vec<Vec<(Value, Value)>>,
}

/// Where a value is in the state, written out only for an error message
/// (a path string made for every field was most of a copy's cost).
enum Place<'a> {
    Root,
    Field(&'a Place<'a>, &'a Value),
}

impl Place<'_> {
    fn shown(&self) -> String {
        match self {
            Place::Root => "state".to_string(),
            Place::Field(parent, key) => {
                let path = parent.shown();
                match key {
                    Value::String(s) if is_identifier(&s.to_string_lossy()) => {
                        format!("{path}.{}", s.to_string_lossy())
                    }
                    Value::String(s) => format!("{path}[{:?}]", s.to_string_lossy()),
                    Value::Integer(i) => format!("{path}[{i}]"),
                    Value::Number(n) => format!("{path}[{}]", number(*n)),
                    _ => path,
                }
            }
        }
    }
}

fn copy_at(
    value: &Value,
    into: &Lua,
    place: &Place<'_>,
    depth: usize,
    tables: &mut Tables,
) -> Result<Value, Refusal> {
    Ok(match value {
        Value::Table(t) => {
            let at = copy_table(t, into, place, depth, tables)?;
            Value::Table(tables.now[&at].clone())
        }
        other => copy_plain(other, into, place)?,
    })
}

/// Copies a value that is not a table.
fn copy_plain(value: &Value, into: &Lua, place: &Place<'_>) -> Result<Value, Refusal> {
    Ok(match value {
        Value::Nil => Value::Nil,
        Value::Boolean(b) => Value::Boolean(*b),
        Value::Integer(i) => Value::Integer(*i),
        Value::Number(n) => Value::Number(*n),
        Value::Vector(v) => Value::Vector(*v),
        Value::String(s) => Value::String(
            into.create_string(s.as_bytes())
                .map_err(|e| e.to_string())?,
        ),
        other => {
            return Err(refuse!(
                "{} is a {} ({PLAIN_DATA})",
                place.shown(),
                type_of(other)
            ));
        }
    })
}

/// Copies table `t` (or finds its copy, made earlier in this copy) and
/// answers its source's address, under which
/// `tables.now` holds the copy. Fields are set straight from the source's
/// keys and the copies' own handles: a handle made and dropped for each
/// key and value was most of the cost of a table whose values are copies
/// reused.
fn copy_table(
    t: &Table,
    into: &Lua,
    place: &Place<'_>,
    depth: usize,
    tables: &mut Tables,
) -> Result<*const c_void, Refusal> {
    let at = t.to_pointer();
    if tables.now.contains_key(&at) {
        return Ok(at);
    }
    if depth == MAX_DEPTH {
        return Err(refuse!(
            "{} nests more than {MAX_DEPTH} tables deep (S5)",
            place.shown()
        ));
    }
    if t.metatable().is_some() {
        return Err(refuse!("{} has a metatable ({PLAIN_DATA})", place.shown()));
    }
    // Made at its size: a table grown key by key rehashes as it goes.
    let listed = t.raw_len();
    let mut pairs = tables.spare.pop().unwrap_or_default();
    t.for_each::<Value, Value>(|k, v| {
        pairs.push((k, v));
        Ok(())
    })
    .map_err(|e| e.to_string())?;
    let out = into
        .create_table_with_capacity(listed, pairs.len().saturating_sub(listed))
        .map_err(|e| e.to_string())?;
    for (k, v) in pairs.drain(..) {
        let (k, v) = (&k, &v);
        if !matches!(k, Value::String(_) | Value::Integer(_) | Value::Number(_)) {
            return Err(refuse!(
                "{} has a key that is a {} (S5: keys are strings or numbers)",
                place.shown(),
                type_of(k)
            ));
        }
        let child = Place::Field(place, k);
        let set = match v {
            Value::Table(inner) => {
                let inner = copy_table(inner, into, &child, depth + 1, tables)?;
                set_field(&out, (k, into), &tables.now[&inner])
            }
            v => set_field(&out, (k, into), copy_plain(v, into, &child)?),
        };
        set?;
    }
    tables.spare.push(pairs);
    if tables.freeze {
        out.set_readonly(true);
    }
    tables.now.insert(at, out);
    Ok(at)
}

/// Sets `out[key] = value`, `key` being a key (a string or a number) of
/// the source table, in VM `into`: a string key is pushed from its bytes,
/// never made into a handle first.
fn set_field(out: &Table, (key, into): (&Value, &Lua), value: impl IntoLua) -> Result<(), Refusal> {
    let set = match key {
        Value::String(s) => {
            let bytes = s.as_bytes();
            match std::str::from_utf8(&bytes) {
                Ok(text) => out.raw_set(text, value),
                Err(_) => into
                    .create_string(&*bytes)
                    .and_then(|key| out.raw_set(key, value)),
            }
        }
        Value::Integer(i) => out.raw_set(*i, value),
        Value::Number(n) => out.raw_set(*n, value),
        // The caller refuses these first, naming the place.
        other => return Err(refuse!("a key that is a {} (S5)", type_of(other))),
    };
    set.map_err(|e| refuse!("{e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn json_of(chunk: &str) -> String {
        let lua = Lua::new();
        to_json(&lua.load(chunk).eval::<Value>().unwrap()).unwrap()
    }

    fn one_line(json: &str) -> String {
        json.split_whitespace().collect::<Vec<_>>().join(" ")
    }

    // rule: S7
    #[test]
    fn values_that_differ_never_print_alike() {
        let pairs = [
            (
                "return { [1] = 'a', ['1'] = 'b' }",
                "return { ['1'] = 'b' }",
            ),
            ("return 0/0", "return 'nan'"),
            (
                "return vector.create(1, 2, 3)",
                "return { vector = { 1, 2, 3 } }",
            ),
            (
                "return vector.create(1, 2, 3)",
                "return { ['$vector'] = { 1, 2, 3 } }",
            ),
            ("return '\\xff'", "return 'ÿ'"),
            ("return '\\xff'", "return { ['$bytes'] = 'ff' }"),
            ("return { [2] = true }", "return { ['2'] = true }"),
            ("return -0", "return 0"),
        ];
        for (a, b) in pairs {
            assert_ne!(json_of(a), json_of(b), "{a} and {b}");
        }
    }

    // rule: S7
    #[test]
    fn the_json_reads_as_documented() {
        let cases = [
            ("return { 1, 'two', true }", "[ 1, \"two\", true ]"),
            ("return { b = 1, a = { } }", "{ \"a\": {}, \"b\": 1 }"),
            (
                "return { [1] = 'a', ['1'] = 'b' }",
                "{\"$map\": [ [1, \"a\"], [\"1\", \"b\"] ]}",
            ),
            ("return { ['$x'] = 1 }", "{ \"$$x\": 1 }"),
            (
                "return { x = 0/0, y = math.huge }",
                "{ \"x\": {\"$number\": \"nan\"}, \"y\": {\"$number\": \"inf\"} }",
            ),
            ("return '\\xff\\x00'", "{\"$bytes\": \"ff00\"}"),
            (
                "return vector.create(0.5, -0, 3)",
                "{\"$vector\": [0.5, -0, 3]}",
            ),
            ("return 'a\\27[2Kb'", "\"a\\u001b[2Kb\""),
        ];
        for (chunk, expected) in cases {
            assert_eq!(one_line(&json_of(chunk)), expected, "{chunk}");
        }
    }

    // rule: S7
    #[test]
    fn a_state_sharing_one_table_everywhere_costs_its_distinct_tables() {
        let lua = Lua::new();
        // 40 levels, each holding the level below twice: 2^40 places.
        let value: Value = lua
            .load("local t = { leaf = 1 } for i = 1, 40 do t = { a = t, b = t } end return t")
            .eval()
            .unwrap();
        let started = std::time::Instant::now();
        let hash = hash(&value).unwrap();
        assert_eq!(hash.len(), 16);
        let copy = copy(&value, &lua).unwrap();
        assert!(
            started.elapsed().as_secs() < 5,
            "hashing and copying are linear"
        );
        assert_eq!(
            super::hash(&copy).unwrap(),
            hash,
            "the copy is the same state"
        );
        let err = to_json(&value).unwrap_err().to_string();
        assert!(
            err.contains("S7: the state's JSON is larger than 64 MiB"),
            "{err}"
        );
    }

    // rule: S7
    #[test]
    fn hashes_tell_apart_what_the_json_tells_apart() {
        let lua = Lua::new();
        let h = |chunk: &str| hash(&lua.load(chunk).eval::<Value>().unwrap()).unwrap();
        assert_ne!(h("return { [1] = 'a' }"), h("return { ['1'] = 'a' }"));
        assert_ne!(h("return 0/0"), h("return 'nan'"));
        assert_eq!(
            h("return { a = { 1 }, b = { 1 } }"),
            h("local t = { 1 } return { a = t, b = t }"),
            "sharing is not part of the value"
        );
        // Pinned: a wrong but stable encoding must fail here.
        assert_eq!(
            h("return { angle = 90, name = 'spinner', v = vector.create(1, 2, 3) }"),
            PINNED
        );
    }

    /// Computed by an independent implementation of the documented form
    /// (Python's `blake3` over `b"T" + blake3(count, entries)`), so a wrong
    /// but stable encoding cannot pass.
    const PINNED: &str = "f86d8074cefa6a52";
}
