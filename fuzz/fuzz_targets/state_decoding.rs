//! Any text read as a save or a replay's `saved` line (rule S7) reads back
//! or is refused with a line, never a panic; and what reads back writes
//! out as the same canonical text, with the same hash, read again.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mlua::Lua;
use moonloop::state;

fuzz_target!(|bytes: &[u8]| {
    // Texts and byte strings alike: the first byte picks whether the rest
    // is read as a document, or stored as one string and written out.
    let lua = Lua::new();
    let Some((&mode, rest)) = bytes.split_first() else {
        return;
    };
    let value = if mode % 2 == 0 {
        let Ok(text) = std::str::from_utf8(rest) else {
            return;
        };
        match state::from_json(&lua, text) {
            Ok(value) => value,
            Err(why) => {
                assert!(why.starts_with("line "), "a refusal names its place: {why}");
                return;
            }
        }
    } else {
        mlua::Value::String(lua.create_string(rest).expect("a string"))
    };
    let Ok(json) = state::to_json(&value) else {
        return;
    };
    let back = state::from_json(&lua, &json).expect("what the writer writes reads back");
    assert_eq!(state::to_json(&back).expect("writes again"), json);
    assert_eq!(
        state::hash(&back).expect("hashes"),
        state::hash(&value).expect("hashes")
    );
});
