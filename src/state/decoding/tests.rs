//! Tests of `state/decoding`.

use super::*;

fn round_trip(chunk: &str) {
    let lua = Lua::new();
    let value: Value = lua.load(chunk).eval().unwrap();
    let json = super::super::to_json(&value).unwrap();
    let back = from_json(&lua, &json).unwrap_or_else(|e| panic!("{json}\n{e}"));
    assert_eq!(super::super::to_json(&back).unwrap(), json, "{chunk}");
    assert_eq!(
        super::super::hash(&back).unwrap(),
        super::super::hash(&value).unwrap(),
        "{chunk}"
    );
}

// rule: S7
#[test]
fn what_the_writer_writes_reads_back_alike() {
    for chunk in [
        "return 1",
        "return -0.0",
        "return 0.1 + 0.2",
        "return 1e300 * 10",
        "return -(1e300 * 10)",
        "return 0/0",
        "return 'text with \"quotes\", \\\\ and \\n a newline, and é'",
        "return '\\xff\\x00'",
        "return vector.create(1.5, -2, 0/0)",
        "return {}",
        "return { 1, 2, 3 }",
        "return { a = 1, b = { c = true } }",
        "return { [1] = 'a', ['1'] = 'b' }",
        "return { [2] = 'x', [0.5] = 'y', [-1] = 'z' }",
        "return { ['$x'] = 1, ['$$y'] = 2, plain = 3 }",
        "return { ['\\xff'] = 1 }",
        "return { name = '\\u{2028}\\u{1f600}' }",
        "return { list = { { x = 1 }, { x = 2 } }, n = 3 }",
    ] {
        round_trip(chunk);
    }
}

#[test]
fn what_the_writer_never_writes_is_refused_with_its_place() {
    let lua = Lua::new();
    for (text, why) in [
        (
            "",
            "line 1, column 1: the text ends where a value should be",
        ),
        ("{\"a\": 1,}", "line 1, column 9: expected `\"`"),
        (
            "{\"a\": 1}\n x",
            "line 2, column 2: more text after the value",
        ),
        ("[1, null]", "null is only a whole document"),
        (
            "{\"a\": 1, \"a\": 2}",
            "line 1, column 10: a key appears twice",
        ),
        ("{\"$vector\": [1, 2]}", "expected `,`"),
        ("{\"$what\": 1}", "`$what` is not a typed form"),
        ("{\"a\": 1, \"$map\": []}", "stands alone"),
        ("{\"$bytes\": \"f\"}", "even number"),
        // A character of two bytes, cut by the pairs (panicked).
        ("{\"$bytes\": \"aé\"}", "hex digits"),
        ("{\"$bytes\": \"éé\"}", "hex digits"),
        ("{\"$bytes\": \"+1\"}", "hex digits"),
        (
            "{\"$map\": [[true, 1]]}",
            "a $map key is a number or a string",
        ),
        ("1e999", "is not a number"),
        ("\"\\ud800\"", "lone surrogate"),
        ("tru", "expected a value"),
    ] {
        let err = from_json(&lua, text).unwrap_err();
        assert!(err.contains(why), "{text:?}: {err}");
    }
}

/// Byte strings of every shape a game can make: ASCII, whole UTF-8
/// characters, characters cut short, lone continuation bytes and
/// control characters, from a fixed seed (xorshift64).
fn byte_strings(count: usize) -> Vec<Vec<u8>> {
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let pieces: [&[u8]; 12] = [
        b"a",
        b"$",
        b"\"",
        b"\\",
        b"\n",
        b"\x00",
        b"\x7f",
        "é".as_bytes(),
        "\u{1f600}".as_bytes(),
        "\u{2028}".as_bytes(),
        b"\xc3",
        b"\x80",
    ];
    (0..count)
        .map(|_| {
            let len = (next() % 12) as usize;
            let mut out = Vec::new();
            for _ in 0..len {
                match next() % 3 {
                    0 => out.push(next() as u8),
                    _ => out.extend_from_slice(pieces[(next() % 12) as usize]),
                }
            }
            out
        })
        .collect()
}

// rule: S7
#[test]
fn every_byte_string_reads_back_as_itself_as_a_value_and_a_key() {
    let lua = Lua::new();
    for bytes in byte_strings(4000) {
        let s = lua.create_string(&bytes).unwrap();
        let table = lua.create_table().unwrap();
        table.raw_set(s.clone(), 1).unwrap();
        table.raw_set("v", s.clone()).unwrap();
        for value in [Value::String(s.clone()), Value::Table(table)] {
            let json = super::super::to_json(&value).unwrap();
            let back = from_json(&lua, &json).unwrap_or_else(|e| panic!("{bytes:?}\n{json}\n{e}"));
            assert_eq!(super::super::to_json(&back).unwrap(), json, "{bytes:?}");
            assert_eq!(
                super::super::hash(&back).unwrap(),
                super::super::hash(&value).unwrap(),
                "{bytes:?}"
            );
        }
    }
}

#[test]
fn no_text_panics_the_reader() {
    // Every document cut at every byte, and with each byte replaced
    // by one that ends or starts a UTF-8 character.
    let lua = Lua::new();
    let doc = "{\"$map\": [[1, {\"$bytes\": \"ff00\"}], [\"é\", {\"$vector\": [1, {\"$number\": \"nan\"}, 3]}]]}";
    for cut in 0..=doc.len() {
        if let Some(prefix) = doc.get(..cut) {
            let _ = from_json(&lua, prefix);
        }
    }
    for at in 0..doc.len() {
        for b in ["é", "\u{1f600}", "0", "\"", "{", "$"] {
            let mut text = doc.as_bytes().to_vec();
            text.splice(at..at + 1, b.bytes());
            if let Ok(text) = String::from_utf8(text) {
                let _ = from_json(&lua, &text);
            }
        }
    }
}

#[test]
fn nesting_is_bounded() {
    let lua = Lua::new();
    let deep = "[".repeat(MAX_DEPTH + 1) + &"]".repeat(MAX_DEPTH + 1);
    assert!(
        from_json(&lua, &deep)
            .unwrap_err()
            .contains("nest more than")
    );
    let ok = "[".repeat(MAX_DEPTH) + &"]".repeat(MAX_DEPTH);
    assert!(from_json(&lua, &ok).is_ok());
}
