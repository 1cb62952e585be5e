//! Reading a sprite batch straight off the Luau stack (rule H15): a batch
//! of thousands of sprites costs more to read through mlua's values (two
//! references made and freed per field) than to draw. Fields that are plain
//! numbers and booleans under the sprite's own names are read here, in one
//! pass over the whole list; a sprite with anything else (a tint,
//! a named frame, a scale pair, a field it has no use for, not a table at
//! all) is marked for the ordinary reader, which reads it and words any
//! error exactly as before.

use mlua::{Lua, Table, ffi};

/// One sprite as read quickly, or marked to be read the ordinary way.
#[derive(Debug, Clone, Copy, Default)]
pub struct Quick {
    pub x: f64,
    pub y: f64,
    pub frame: f64,
    pub scale: f64,
    pub flip: [bool; 2],
    pub alpha: f64,
    /// Read it the ordinary way instead.
    pub slow: bool,
}

/// Reads the sprites of `list` (the caller has bounded its length) into
/// `out` (cleared first); `keys` are the
/// addresses of the Luau strings naming the fields, in
/// [`super::sprites::FIELDS`] order.
pub fn read(lua: &Lua, list: &Table, keys: &[usize; 8], out: &mut Vec<Quick>) -> mlua::Result<()> {
    out.clear();
    let n = list.raw_len();
    out.reserve(n);
    // Not a protected call (that makes a C closure, which is garbage, on
    // every call): nothing below can raise. Raw gets call no metamethods,
    // `lua_next` is given back the key it gave, and the stack was grown
    // first. mlua's RawLua is its own escape hatch for this.
    // SAFETY: `raw.state()` is the live main thread (mlua holds its lock
    // for the closure); every slot read is at or below the top pushed
    // here, five were checked for first, and the top is restored before
    // returning.
    lua.exec_raw_lua(|raw| unsafe {
        let state = raw.state();
        let top = ffi::lua_gettop(state);
        if ffi::lua_checkstack(state, 5) == 0 {
            return Err(mlua::Error::StackError);
        }
        raw.push(list)?;
        let at = top + 1;
        for i in 1..=n {
            let mut q = Quick {
                frame: 1.0,
                scale: 1.0,
                alpha: 1.0,
                ..Quick::default()
            };
            ffi::lua_rawgeti(state, at, i as _);
            if ffi::lua_type(state, -1) != ffi::LUA_TTABLE {
                q.slow = true;
            } else {
                ffi::lua_pushnil(state);
                while ffi::lua_next(state, -2) != 0 {
                    // Key at -2, value at -1.
                    let field = if ffi::lua_type(state, -2) == ffi::LUA_TSTRING {
                        // The string's bytes, as mlua's `to_pointer` gives
                        // them (no conversion: it is a string already).
                        let key = ffi::lua_tostring(state, -2) as usize;
                        keys.iter().position(|&k| k == key)
                    } else {
                        None
                    };
                    let kind = ffi::lua_type(state, -1);
                    let number = (kind == ffi::LUA_TNUMBER).then(|| ffi::lua_tonumber(state, -1));
                    let flag =
                        (kind == ffi::LUA_TBOOLEAN).then(|| ffi::lua_toboolean(state, -1) != 0);
                    match (field, number, flag) {
                        (Some(0), Some(v), _) => q.x = v,
                        (Some(1), Some(v), _) => q.y = v,
                        (Some(2), Some(v), _) => q.frame = v,
                        (Some(3), Some(v), _) => q.scale = v,
                        (Some(4), _, Some(b)) => q.flip[0] = b,
                        (Some(5), _, Some(b)) => q.flip[1] = b,
                        (Some(7), Some(v), _) => q.alpha = v,
                        _ => q.slow = true,
                    }
                    if q.slow {
                        // The ordinary reader takes it from here: stop,
                        // however many fields the table holds.
                        ffi::lua_pop(state, 2);
                        break;
                    }
                    ffi::lua_pop(state, 1);
                }
            }
            ffi::lua_pop(state, 1);
            out.push(q);
        }
        ffi::lua_settop(state, top);
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The mlua release whose `exec_raw_lua`, `RawLua::state` and
    /// `RawLua::push` (marked `doc(hidden)`: no promise across releases)
    /// this file was read against. Cargo.toml pins it.
    const AUDITED_MLUA: &str = "0.12.2";

    #[test]
    fn mlua_is_the_release_this_file_was_audited_against() {
        // Moving mlua means reading its RawLua again, then this constant.
        let lock = include_str!("../../../Cargo.lock");
        let version = lock
            .split("[[package]]")
            .find(|p| p.contains("name = \"mlua\"\n"))
            .and_then(|p| p.lines().find_map(|l| l.strip_prefix("version = ")))
            .map(|v| v.trim_matches('"'));
        assert_eq!(version, Some(AUDITED_MLUA));
    }

    fn keys(lua: &Lua) -> ([mlua::LuaString; 8], [usize; 8]) {
        let strings = super::super::sprites::FIELDS.map(|f| lua.create_string(f).unwrap());
        let addresses = strings.each_ref().map(|s| s.to_pointer() as usize);
        (strings, addresses)
    }

    #[test]
    fn plain_sprites_are_read_quickly_and_others_marked_for_the_reader() {
        let lua = Lua::new();
        let list: Table = lua
            .load(
                r#"return {
                    { x = 1, y = 2, frame = 3, flip_x = true, scale = 2, alpha = 0.5 },
                    { x = 4 },
                    { x = 1, tint = "red" },
                    { x = 1, frame = "walk" },
                    { x = 1, frmae = 2 },
                    7,
                    { x = "1" },
                }"#,
            )
            .eval()
            .unwrap();
        let (_alive, addresses) = keys(&lua);
        let mut out = Vec::new();
        read(&lua, &list, &addresses, &mut out).unwrap();
        let slow: Vec<bool> = out.iter().map(|q| q.slow).collect();
        assert_eq!(slow, [false, false, true, true, true, true, true]);
        let q = out[0];
        assert_eq!(
            (q.x, q.y, q.frame, q.scale, q.alpha),
            (1.0, 2.0, 3.0, 2.0, 0.5)
        );
        assert_eq!(q.flip, [true, false]);
        assert_eq!(
            (out[1].x, out[1].frame, out[1].scale, out[1].alpha),
            (4.0, 1.0, 1.0, 1.0)
        );
    }
}
