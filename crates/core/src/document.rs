//! The canonical JSON of a state (rule S7) read as plain data, with no
//! VM: a save, a kept moment or a replay's `saved` line is checked here,
//! and the Luau binding builds its tables from the [`Doc`] read.
//!
//! The reader takes exactly the forms the writer makes, typed ones
//! included (`$number`, `$bytes`, `$vector`, `$map`, a `$$` key), and
//! refuses anything else with the line and column. It is bounded: tables
//! nest at most `max_depth` deep, and the caller caps the text's length.

use std::collections::HashSet;

use crate::Refusal;

/// A value of a state document.
#[derive(Debug, Clone, PartialEq)]
pub enum Doc {
    /// `null`: only ever a whole document (a table holds no nil).
    Nil,
    /// `true` or `false`.
    Bool(bool),
    /// A number: every f64, NaN and the infinities as `$number`.
    Number(f64),
    /// A string's bytes: UTF-8 as a JSON string, any bytes as `$bytes`.
    Text(Vec<u8>),
    /// A Luau vector (`$vector`).
    Vector([f32; 3]),
    /// A table written as an array: its values at 1, 2, 3...
    List(Vec<Doc>),
    /// A table written as an object (string keys) or a `$map` (number and
    /// string keys), each key once, in the order written.
    Table(Vec<(Doc, Doc)>),
}

/// Reads `text`, a document the writer makes, tables nesting at most
/// `max_depth` deep.
///
/// # Errors
/// The text is not such a document: the message gives the line and
/// column, and the rule (S5) where the nesting is too deep.
pub fn read(text: &str, max_depth: usize) -> Result<Doc, Refusal> {
    let mut reader = Reader {
        text: text.as_bytes(),
        at: 0,
        max_depth,
    };
    reader.space();
    let value = reader.value(0)?;
    reader.space();
    if reader.at < reader.text.len() {
        return Err(reader.fail("more text after the value"));
    }
    Ok(value)
}

/// A key as a Luau table tells keys apart: a number by its value (0 and
/// -0 are one key), a string by its bytes.
#[derive(PartialEq, Eq, Hash)]
enum Key {
    Number(u64),
    Text(Vec<u8>),
}

impl Key {
    fn of(doc: &Doc) -> Option<Key> {
        match doc {
            Doc::Number(n) if !n.is_nan() => {
                Some(Key::Number(if *n == 0.0 { 0 } else { n.to_bits() }))
            }
            Doc::Text(bytes) => Some(Key::Text(bytes.clone())),
            _ => None,
        }
    }
}

struct Reader<'a> {
    text: &'a [u8],
    at: usize,
    max_depth: usize,
}

impl Reader<'_> {
    /// An error at the current place, as `line L, column C: why`.
    fn fail(&self, why: &str) -> Refusal {
        let done = &self.text[..self.at.min(self.text.len())];
        let line = done.iter().filter(|&&b| b == b'\n').count() + 1;
        let column = done.iter().rev().take_while(|&&b| b != b'\n').count() + 1;
        crate::refuse!("line {line}, column {column}: {why}")
    }

    fn space(&mut self) {
        while self
            .text
            .get(self.at)
            .is_some_and(|b| b" \t\r\n".contains(b))
        {
            self.at += 1;
        }
    }

    fn peek(&self) -> Option<u8> {
        self.text.get(self.at).copied()
    }

    fn expect(&mut self, byte: u8) -> Result<(), Refusal> {
        self.space();
        if self.peek() == Some(byte) {
            self.at += 1;
            Ok(())
        } else {
            Err(self.fail(&format!("expected `{}`", byte as char)))
        }
    }

    /// Reads `,` and says true, or reads `close` and says false.
    fn more(&mut self, close: u8) -> Result<bool, Refusal> {
        self.space();
        match self.peek() {
            Some(b',') => {
                self.at += 1;
                Ok(true)
            }
            Some(b) if b == close => {
                self.at += 1;
                Ok(false)
            }
            _ => Err(self.fail(&format!("expected `,` or `{}`", close as char))),
        }
    }

    fn value(&mut self, depth: usize) -> Result<Doc, Refusal> {
        self.space();
        match self.peek() {
            Some(b'{') => self.object(depth),
            Some(b'[') => self.array(depth),
            Some(b'"') => Ok(Doc::Text(self.string()?.into_bytes())),
            Some(b't') => self.word("true", Doc::Bool(true)),
            Some(b'f') => self.word("false", Doc::Bool(false)),
            Some(b'n') if depth == 0 => self.word("null", Doc::Nil),
            Some(b'n') => Err(self.fail("null is only a whole document (a table holds no nil)")),
            Some(b'-' | b'0'..=b'9') => self.number().map(Doc::Number),
            Some(_) => Err(self.fail("expected a value")),
            None => Err(self.fail("the text ends where a value should be")),
        }
    }

    fn word(&mut self, word: &str, value: Doc) -> Result<Doc, Refusal> {
        if self.text[self.at..].starts_with(word.as_bytes()) {
            self.at += word.len();
            Ok(value)
        } else {
            Err(self.fail("expected a value"))
        }
    }

    fn number(&mut self) -> Result<f64, Refusal> {
        let start = self.at;
        while self
            .peek()
            .is_some_and(|b| b.is_ascii_digit() || b"+-.eE".contains(&b))
        {
            self.at += 1;
        }
        let text = std::str::from_utf8(&self.text[start..self.at]).unwrap_or("");
        // Rust's parse rounds correctly, so the writer's shortest decimal
        // reads back as the very same f64.
        match text.parse::<f64>() {
            Ok(n) if n.is_finite() => Ok(n),
            _ => {
                self.at = start;
                Err(self.fail(&format!("`{text}` is not a number")))
            }
        }
    }

    /// Reads a JSON string into its UTF-8 bytes.
    fn string(&mut self) -> Result<String, Refusal> {
        self.expect(b'"')?;
        let mut out = String::new();
        loop {
            let Some(b) = self.peek() else {
                return Err(self.fail("the text ends inside a string"));
            };
            match b {
                b'"' => {
                    self.at += 1;
                    return Ok(out);
                }
                b'\\' => {
                    self.at += 1;
                    let escaped = self
                        .peek()
                        .ok_or_else(|| self.fail("the text ends inside a string"))?;
                    self.at += 1;
                    match escaped {
                        b'"' => out.push('"'),
                        b'\\' => out.push('\\'),
                        b'/' => out.push('/'),
                        b'n' => out.push('\n'),
                        b'r' => out.push('\r'),
                        b't' => out.push('\t'),
                        b'b' => out.push('\u{8}'),
                        b'f' => out.push('\u{c}'),
                        b'u' => {
                            let first = self.hex4()?;
                            let c = if (0xd800..0xdc00).contains(&first) {
                                if !self.text[self.at..].starts_with(b"\\u") {
                                    return Err(self.fail("a lone surrogate in \\u escapes"));
                                }
                                self.at += 2;
                                let second = self.hex4()?;
                                if !(0xdc00..0xe000).contains(&second) {
                                    return Err(self.fail("a lone surrogate in \\u escapes"));
                                }
                                char::from_u32(
                                    0x10000 + ((first - 0xd800) << 10) + (second - 0xdc00),
                                )
                            } else {
                                char::from_u32(first)
                            };
                            out.push(
                                c.ok_or_else(|| self.fail("a lone surrogate in \\u escapes"))?,
                            );
                        }
                        _ => return Err(self.fail("an unknown escape in a string")),
                    }
                }
                b if b < 0x20 => return Err(self.fail("a control character inside a string")),
                _ => {
                    // Copy one UTF-8 character (the text is a &str).
                    let rest = &self.text[self.at..];
                    let len = match rest[0] {
                        0x00..=0x7f => 1,
                        0xc0..=0xdf => 2,
                        0xe0..=0xef => 3,
                        _ => 4,
                    };
                    out.push_str(
                        std::str::from_utf8(&rest[..len.min(rest.len())])
                            .map_err(|_| self.fail("text that is not UTF-8"))?,
                    );
                    self.at += len;
                }
            }
        }
    }

    fn hex4(&mut self) -> Result<u32, Refusal> {
        let digits = self
            .text
            .get(self.at..self.at + 4)
            .and_then(|d| std::str::from_utf8(d).ok())
            .and_then(|d| u32::from_str_radix(d, 16).ok())
            .ok_or_else(|| self.fail("\\u takes four hex digits"))?;
        self.at += 4;
        Ok(digits)
    }

    fn deeper(&self, depth: usize) -> Result<usize, Refusal> {
        if depth >= self.max_depth {
            return Err(self.fail(&format!(
                "tables nest more than {} deep (S5)",
                self.max_depth
            )));
        }
        Ok(depth + 1)
    }

    fn array(&mut self, depth: usize) -> Result<Doc, Refusal> {
        let depth = self.deeper(depth)?;
        self.expect(b'[')?;
        let mut list = Vec::new();
        self.space();
        if self.peek() == Some(b']') {
            self.at += 1;
            return Ok(Doc::List(list));
        }
        loop {
            list.push(self.value(depth)?);
            if !self.more(b']')? {
                return Ok(Doc::List(list));
            }
        }
    }

    fn object(&mut self, depth: usize) -> Result<Doc, Refusal> {
        let depth = self.deeper(depth)?;
        self.expect(b'{')?;
        let mut table = Entries::default();
        self.space();
        if self.peek() == Some(b'}') {
            self.at += 1;
            return Ok(table.done());
        }
        let mut first = true;
        loop {
            self.space();
            let key_at = self.at;
            let key = self.string()?;
            self.expect(b':')?;
            if let Some(rest) = key.strip_prefix('$') {
                if let Some(game_key) = rest.strip_prefix('$').map(|_| rest) {
                    // `$$x` is the game's key `$x`.
                    let value = self.value(depth)?;
                    self.set(&mut table, Doc::Text(game_key.into()), value, key_at)?;
                } else if first {
                    // A typed form is the object's only entry.
                    let value = self.typed(rest, depth, key_at)?;
                    self.expect(b'}')?;
                    return Ok(value);
                } else {
                    self.at = key_at;
                    return Err(self.fail(&format!(
                        "`${rest}` is a typed form and stands alone in its object"
                    )));
                }
            } else {
                let value = self.value(depth)?;
                self.set(&mut table, Doc::Text(key.into_bytes()), value, key_at)?;
            }
            first = false;
            if !self.more(b'}')? {
                return Ok(table.done());
            }
        }
    }

    /// Sets `key` once: a key written twice is not a canonical document.
    fn set(
        &mut self,
        table: &mut Entries,
        key: Doc,
        value: Doc,
        key_at: usize,
    ) -> Result<(), Refusal> {
        if table.insert(key, value) {
            Ok(())
        } else {
            self.at = key_at;
            Err(self.fail("a key appears twice"))
        }
    }

    /// Reads the value of a typed form `{"$name": ...}`.
    fn typed(&mut self, name: &str, depth: usize, key_at: usize) -> Result<Doc, Refusal> {
        self.space();
        match name {
            "number" => match self.string()?.as_str() {
                "nan" => Ok(Doc::Number(f64::NAN)),
                "inf" => Ok(Doc::Number(f64::INFINITY)),
                "-inf" => Ok(Doc::Number(f64::NEG_INFINITY)),
                other => Err(self.fail(&format!("`{other}` is not nan, inf or -inf"))),
            },
            "bytes" => {
                let hex = self.string()?;
                if hex.len() % 2 != 0 {
                    return Err(self.fail("$bytes takes an even number of hex digits"));
                }
                // Pairs of bytes, never slices of the text: a character of
                // several bytes is not a digit, wherever it is cut.
                let digit = |b: u8| (b as char).to_digit(16).map(|d| d as u8);
                hex.as_bytes()
                    .chunks_exact(2)
                    .map(|pair| Some(digit(pair[0])? << 4 | digit(pair[1])?))
                    .collect::<Option<Vec<u8>>>()
                    .map(Doc::Text)
                    .ok_or_else(|| self.fail("$bytes takes hex digits"))
            }
            "vector" => {
                self.expect(b'[')?;
                let mut xyz = [0.0f32; 3];
                for (i, c) in xyz.iter_mut().enumerate() {
                    if i > 0 {
                        self.expect(b',')?;
                    }
                    self.space();
                    *c = self.component()? as f32;
                }
                self.expect(b']')?;
                Ok(Doc::Vector(xyz))
            }
            "map" => {
                let mut table = Entries::default();
                self.expect(b'[')?;
                self.space();
                if self.peek() == Some(b']') {
                    self.at += 1;
                    return Ok(table.done());
                }
                loop {
                    self.space();
                    let pair_at = self.at;
                    self.expect(b'[')?;
                    let key = self.value(depth)?;
                    if Key::of(&key).is_none() {
                        self.at = pair_at;
                        return Err(self.fail("a $map key is a number or a string"));
                    }
                    self.expect(b',')?;
                    let value = self.value(depth)?;
                    self.expect(b']')?;
                    self.set(&mut table, key, value, pair_at)?;
                    if !self.more(b']')? {
                        return Ok(table.done());
                    }
                }
            }
            other => {
                self.at = key_at;
                Err(self.fail(&format!("`${other}` is not a typed form (a key of the game's that starts with $ is written $$)")))
            }
        }
    }

    /// A vector component: a number, or a `$number` form.
    fn component(&mut self) -> Result<f64, Refusal> {
        if self.peek() == Some(b'{') {
            self.at += 1;
            self.space();
            let key = self.string()?;
            if key != "$number" {
                return Err(self.fail("a vector holds numbers"));
            }
            self.expect(b':')?;
            self.space();
            let n = match self.string()?.as_str() {
                "nan" => f64::NAN,
                "inf" => f64::INFINITY,
                "-inf" => f64::NEG_INFINITY,
                _ => return Err(self.fail("a vector holds numbers")),
            };
            self.expect(b'}')?;
            return Ok(n);
        }
        self.number()
    }
}

/// A table's entries as they are read, each key once.
#[derive(Default)]
struct Entries {
    entries: Vec<(Doc, Doc)>,
    keys: HashSet<Key>,
}

impl Entries {
    /// Adds `key`, a number (not NaN) or a string; false if it is there.
    fn insert(&mut self, key: Doc, value: Doc) -> bool {
        let fresh = Key::of(&key).is_some_and(|k| self.keys.insert(k));
        if fresh {
            self.entries.push((key, value));
        }
        fresh
    }

    fn done(self) -> Doc {
        Doc::Table(self.entries)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_form_reads_as_plain_data() {
        let doc = read(
            r#"{"a": [1, 2.5, true], "$$b": {"$bytes": "00ff"}, "v": {"$vector": [1, {"$number": "inf"}, 3]}, "m": {"$map": [[1, "x"], ["1", {"$number": "nan"}]]}}"#,
            200,
        )
        .unwrap();
        let Doc::Table(entries) = doc else {
            panic!("{doc:?}")
        };
        assert_eq!(
            entries[0],
            (
                Doc::Text(b"a".to_vec()),
                Doc::List(vec![Doc::Number(1.0), Doc::Number(2.5), Doc::Bool(true)])
            )
        );
        assert_eq!(
            entries[1],
            (Doc::Text(b"$b".to_vec()), Doc::Text(vec![0, 255]))
        );
        assert_eq!(entries[2].1, Doc::Vector([1.0, f32::INFINITY, 3.0]));
        let Doc::Table(map) = &entries[3].1 else {
            panic!("{:?}", entries[3])
        };
        assert_eq!(map[0], (Doc::Number(1.0), Doc::Text(b"x".to_vec())));
        assert_eq!(map[1].0, Doc::Text(b"1".to_vec()));
        assert_eq!(read("null", 200).unwrap(), Doc::Nil);
    }

    #[test]
    fn a_key_twice_is_refused_as_a_table_would_see_it() {
        let twice = |text: &str| read(text, 200).unwrap_err().line().to_string();
        assert!(twice(r#"{"a": 1, "a": 2}"#).contains("a key appears twice"));
        // 0 and -0 are one key of a Luau table; 1 and "1" are two.
        assert!(twice(r#"{"$map": [[0, 1], [-0, 2]]}"#).contains("a key appears twice"));
        read(r#"{"$map": [[1, 1], ["1", 2]]}"#, 200).unwrap();
    }

    #[test]
    fn what_the_writer_never_makes_is_refused_with_its_place() {
        let why = read("{\n  \"a\": [1,\n  null]}", 200).unwrap_err();
        assert!(why.contains("line 3, column 3"), "{why}");
        assert!(why.contains("null is only a whole document"), "{why}");
        let deep = "[".repeat(5) + &"]".repeat(5);
        assert!(
            read(&deep, 4)
                .unwrap_err()
                .contains("nest more than 4 deep (S5)")
        );
        read(&deep, 5).unwrap();
    }
}
