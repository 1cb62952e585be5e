//! Luau's table layout, read directly so the state walk can look at every
//! entry's type without a C API call per entry (rule S2's cost).
//!
//! The structs mirror `LuaTable`, `TValue` and `LuaNode` in Luau's
//! `VM/src/lobject.h` for the vendored Luau (vectors of 3 floats). The
//! layout is not part of Luau's API, so [`layout_holds`] checks it against
//! the API once per process; where it does not hold the walk keeps to the
//! API alone.

use std::ffi::{c_int, c_void};
use std::sync::OnceLock;

use mlua::{Lua, ffi};

/// `TValue`: a value and its type tag.
#[repr(C)]
pub struct RawValue {
    value: u64,
    extra: c_int,
    /// The `lua_type` of the value.
    pub tt: c_int,
}

/// `LuaNode`: one entry of a table's hash part.
#[repr(C)]
pub struct RawNode {
    /// The entry's value; `LUA_TNIL` for a free node.
    pub val: RawValue,
    key_value: u64,
    key_extra: c_int,
    /// `unsigned tt : 4; int next : 28;`: the key's type in the low bits.
    key_tt_next: c_int,
}

impl RawNode {
    /// Returns the `lua_type` of the entry's key.
    pub fn key_type(&self) -> c_int {
        self.key_tt_next & 0xf
    }
}

/// `LuaTable`, up to the parts the walk reads.
#[repr(C)]
pub struct RawTable {
    tt: u8,
    marked: u8,
    memcat: u8,
    tmcache: u8,
    readonly: u8,
    safeenv: u8,
    lsizenode: u8,
    nodemask8: u8,
    sizearray: c_int,
    lastfree: c_int,
    metatable: *const c_void,
    array: *const RawValue,
    node: *const RawNode,
}

impl RawTable {
    /// Returns the table at stack index `idx` of `state`.
    ///
    /// # Safety
    /// The value at `idx` is a table, and the pointer is used only while
    /// the table is reachable and no entry is added to it.
    pub unsafe fn at<'a>(state: *mut ffi::lua_State, idx: c_int) -> &'a RawTable {
        unsafe { &*(ffi::lua_topointer(state, idx) as *const RawTable) }
    }

    /// The array part: slot `i` holds key `i + 1`.
    pub fn array(&self) -> &[RawValue] {
        if self.sizearray <= 0 {
            return &[];
        }
        // SAFETY: `array` holds `sizearray` values while the table lives.
        unsafe { std::slice::from_raw_parts(self.array, self.sizearray as usize) }
    }

    /// The hash part; free nodes hold nil values.
    pub fn nodes(&self) -> &[RawNode] {
        // SAFETY: `node` holds 2^lsizenode nodes (one shared dummy node for
        // an empty hash part).
        unsafe { std::slice::from_raw_parts(self.node, 1usize << self.lsizenode) }
    }
}

static HOLDS: OnceLock<bool> = OnceLock::new();

/// Says whether the mirrored layout matches the linked Luau, by comparing
/// what it reads of a sample table with what the C API says. Checked once
/// per process.
pub fn layout_holds(lua: &Lua) -> bool {
    *HOLDS.get_or_init(|| check(lua).unwrap_or(false))
}

/// Says whether [`layout_holds`] found the layout good; false before it ran.
pub fn layout_checked() -> bool {
    HOLDS.get().copied().unwrap_or(false)
}

fn check(lua: &Lua) -> mlua::Result<bool> {
    let sample: mlua::Table = lua
        .load(
            "local t = table.create(3) t[1] = 1 t[2] = 'two' t[3] = {} \
             t.a = true t[2.5] = vector.create(1, 2, 3) t.f = print return t",
        )
        .set_name("=layout check")
        .eval()?;
    let meta = lua.create_table()?;
    sample.set_metatable(Some(meta))?;
    // SAFETY: the function only reads the table it is given.
    let compare = unsafe { lua.create_c_function(compare_c)? };
    let holds: bool = compare.call(&sample)?;
    sample.set_metatable(None)?;
    Ok(holds)
}

/// Walks argument 1 both ways and returns whether they agree.
unsafe extern "C-unwind" fn compare_c(state: *mut ffi::lua_State) -> c_int {
    unsafe {
        let raw = RawTable::at(state, 1);
        let mut direct: Vec<(c_int, c_int, c_int)> = Vec::new();
        let size = raw.array().len();
        for (i, v) in raw.array().iter().enumerate() {
            if v.tt != ffi::LUA_TNIL {
                direct.push((i as c_int, ffi::LUA_TNUMBER, v.tt));
            }
        }
        for (j, node) in raw.nodes().iter().enumerate() {
            if node.val.tt != ffi::LUA_TNIL {
                direct.push(((size + j) as c_int, node.key_type(), node.val.tt));
            }
        }
        let mut by_api = Vec::new();
        let mut iter = 0;
        loop {
            let next = ffi::lua_rawiter(state, 1, iter);
            if next < 0 {
                break;
            }
            by_api.push((next - 1, ffi::lua_type(state, -2), ffi::lua_type(state, -1)));
            ffi::lua_settop(state, 1);
            iter = next;
        }
        let holds = raw.tt as c_int == ffi::LUA_TTABLE
            && size >= 3
            && raw.metatable == ffi::lua_getmetatablepointer(state, 1)
            && !raw.metatable.is_null()
            && direct.len() == 6
            && direct == by_api;
        ffi::lua_pushboolean(state, holds as c_int);
        1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mirrored_layout_matches_the_vendored_luau() {
        // If this fails after a Luau update, update the structs above from
        // VM/src/lobject.h; until then the state walk uses the C API alone.
        assert!(layout_holds(&Lua::new()));
    }
}
