//! Reading the canonical JSON back (rule S7): every document
//! [`super::to_json`] writes reads back as the same value, so saves are
//! JSON a person can read and the host can load.
//!
//! The reader takes exactly the forms the writer makes, typed ones
//! included (`$number`, `$bytes`, `$vector`, `$map`, a `$$` key), and
//! refuses anything else with the line and column. It is bounded: tables
//! nest at most [`MAX_DEPTH`] deep, and the caller caps the text's length.

use crate::Refusal;
use mlua::{Lua, Table, Value};

use super::MAX_DEPTH;

/// Reads `text` (canonical JSON) into a value in `lua`. The tables are not
/// frozen or taken; the caller takes the value as a state.
///
/// # Errors
/// The text is not a document the writer makes: the message gives the
/// line and column.
pub fn from_json(lua: &Lua, text: &str) -> Result<Value, Refusal> {
    let mut reader = Reader {
        lua,
        text: text.as_bytes(),
        at: 0,
    };
    reader.space();
    let value = reader.value(0)?;
    reader.space();
    if reader.at < reader.text.len() {
        return Err(reader.fail("more text after the value"));
    }
    Ok(value)
}

struct Reader<'a> {
    lua: &'a Lua,
    text: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    /// An error at the current place, as `line L, column C: why`.
    fn fail(&self, why: &str) -> Refusal {
        let done = &self.text[..self.at.min(self.text.len())];
        let line = done.iter().filter(|&&b| b == b'\n').count() + 1;
        let column = done.iter().rev().take_while(|&&b| b != b'\n').count() + 1;
        refuse!("line {line}, column {column}: {why}")
    }

    fn lua_fail(&self, e: mlua::Error) -> Refusal {
        self.fail(&e.to_string())
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

    fn value(&mut self, depth: usize) -> Result<Value, Refusal> {
        self.space();
        match self.peek() {
            Some(b'{') => self.object(depth),
            Some(b'[') => self.array(depth),
            Some(b'"') => {
                let text = self.string()?;
                self.lua
                    .create_string(text)
                    .map(Value::String)
                    .map_err(|e| self.lua_fail(e))
            }
            Some(b't') => self.word("true", Value::Boolean(true)),
            Some(b'f') => self.word("false", Value::Boolean(false)),
            Some(b'n') if depth == 0 => self.word("null", Value::Nil),
            Some(b'n') => Err(self.fail("null is only a whole document (a table holds no nil)")),
            Some(b'-' | b'0'..=b'9') => self.number().map(Value::Number),
            Some(_) => Err(self.fail("expected a value")),
            None => Err(self.fail("the text ends where a value should be")),
        }
    }

    fn word(&mut self, word: &str, value: Value) -> Result<Value, Refusal> {
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

    fn table(&self) -> Result<Table, Refusal> {
        self.lua.create_table().map_err(|e| self.lua_fail(e))
    }

    fn deeper(&self, depth: usize) -> Result<usize, Refusal> {
        if depth >= MAX_DEPTH {
            return Err(self.fail(&format!("tables nest more than {MAX_DEPTH} deep (S5)")));
        }
        Ok(depth + 1)
    }

    fn array(&mut self, depth: usize) -> Result<Value, Refusal> {
        let depth = self.deeper(depth)?;
        self.expect(b'[')?;
        let table = self.table()?;
        self.space();
        if self.peek() == Some(b']') {
            self.at += 1;
            return Ok(Value::Table(table));
        }
        loop {
            let value = self.value(depth)?;
            table.raw_push(value).map_err(|e| self.lua_fail(e))?;
            if !self.more(b']')? {
                return Ok(Value::Table(table));
            }
        }
    }

    fn object(&mut self, depth: usize) -> Result<Value, Refusal> {
        let depth = self.deeper(depth)?;
        self.expect(b'{')?;
        let table = self.table()?;
        self.space();
        if self.peek() == Some(b'}') {
            self.at += 1;
            return Ok(Value::Table(table));
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
                    self.set(
                        &table,
                        Value::String(self.text_value(game_key)?),
                        value,
                        key_at,
                    )?;
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
                self.set(&table, Value::String(self.text_value(&key)?), value, key_at)?;
            }
            first = false;
            if !self.more(b'}')? {
                return Ok(Value::Table(table));
            }
        }
    }

    fn text_value(&self, text: &str) -> Result<mlua::LuaString, Refusal> {
        self.lua.create_string(text).map_err(|e| self.lua_fail(e))
    }

    /// Sets `key` once: a key written twice is not a canonical document.
    fn set(
        &mut self,
        table: &Table,
        key: Value,
        value: Value,
        key_at: usize,
    ) -> Result<(), Refusal> {
        let had: Value = table.raw_get(&key).map_err(|e| self.lua_fail(e))?;
        if !had.is_nil() {
            self.at = key_at;
            return Err(self.fail("a key appears twice"));
        }
        table.raw_set(key, value).map_err(|e| self.lua_fail(e))
    }

    /// Reads the value of a typed form `{"$name": ...}`.
    fn typed(&mut self, name: &str, depth: usize, key_at: usize) -> Result<Value, Refusal> {
        self.space();
        match name {
            "number" => match self.string()?.as_str() {
                "nan" => Ok(Value::Number(f64::NAN)),
                "inf" => Ok(Value::Number(f64::INFINITY)),
                "-inf" => Ok(Value::Number(f64::NEG_INFINITY)),
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
                let bytes = hex
                    .as_bytes()
                    .chunks_exact(2)
                    .map(|pair| Some(digit(pair[0])? << 4 | digit(pair[1])?))
                    .collect::<Option<Vec<u8>>>()
                    .ok_or_else(|| self.fail("$bytes takes hex digits"))?;
                self.lua
                    .create_string(bytes)
                    .map(Value::String)
                    .map_err(|e| self.lua_fail(e))
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
                Ok(Value::Vector(mlua::Vector::new(xyz[0], xyz[1], xyz[2])))
            }
            "map" => {
                let table = self.table()?;
                self.expect(b'[')?;
                self.space();
                if self.peek() == Some(b']') {
                    self.at += 1;
                    return Ok(Value::Table(table));
                }
                loop {
                    self.space();
                    let pair_at = self.at;
                    self.expect(b'[')?;
                    let key = self.value(depth)?;
                    let key = match key {
                        Value::Number(n) if !n.is_nan() => Value::Number(n),
                        Value::String(s) => Value::String(s),
                        _ => {
                            self.at = pair_at;
                            return Err(self.fail("a $map key is a number or a string"));
                        }
                    };
                    self.expect(b',')?;
                    let value = self.value(depth)?;
                    self.expect(b']')?;
                    self.set(&table, key, value, pair_at)?;
                    if !self.more(b']')? {
                        return Ok(Value::Table(table));
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

#[cfg(test)]
mod tests;
