//! The bodies a step moved, written into new tables (P1) through Luau's
//! C API in one protected call: each moved body's table is a clone of
//! its old one with its numbers set. Written in Luau (a clone and six
//! stores a body) this was a sixth of a 1,000-ball frame; a call through
//! mlua per store would be more.

use std::ffi::c_int;

use mlua::{Lua, LuaString, MultiValue, Table, Value, ffi};

/// The names a moved body's numbers are written under, in the order the
/// writer takes them from the stack (after the old bodies and the ids).
pub(super) const NAMES: [&str; 11] = [
    "x", "y", "z", "angle", "vx", "vy", "vz", "spin", "rotation", "w", "grounded",
];

/// Where each name is among [`NAMES`].
const X: c_int = 0;
const Y: c_int = 1;
const Z: c_int = 2;
const ANGLE: c_int = 3;
const VX: c_int = 4;
const VY: c_int = 5;
const VZ: c_int = 6;
const SPIN: c_int = 7;
const ROTATION: c_int = 8;
const W: c_int = 9;
const GROUNDED: c_int = 10;

/// Stack places of the writer's arguments.
const OLD: c_int = 1;
const IDS: c_int = 2;
const NAME: c_int = 3;

/// The bodies that moved in a step, gathered for one write.
#[derive(Default)]
pub(super) struct Moved {
    /// Each moved body's place in the id list, from 1.
    at: Vec<c_int>,
    /// Their numbers: six a body in 2D (x, y, angle, vx, vy, spin),
    /// thirteen in 3D (x, y, z, the rotation's x, y, z, w, vx, vy, vz,
    /// the spin's x, y, z).
    numbers: Vec<f64>,
    /// 1: the rotation turned, 2: the spin changed (3D: each is a table
    /// of its own, made new only then), 4: `grounded` is written, 8: its
    /// value.
    flags: Vec<u8>,
}

impl Moved {
    /// Body `i` (from 0, in id order) moved to `numbers`; `turned` and
    /// `spun` (3D) say its rotation or spin changed; `stands`, when
    /// given, is its new `grounded`.
    pub fn add(
        &mut self,
        i: usize,
        numbers: &[f64],
        [turned, spun]: [bool; 2],
        stands: Option<bool>,
    ) {
        self.at.push(c_int::try_from(i + 1).unwrap_or(c_int::MAX));
        self.numbers.extend_from_slice(numbers);
        let grounded = match stands {
            None => 0,
            Some(false) => 4,
            Some(true) => 4 | 8,
        };
        self.flags
            .push(u8::from(turned) | (u8::from(spun) << 1) | grounded);
    }

    pub fn is_empty(&self) -> bool {
        self.at.is_empty()
    }

    /// `old` (a world's `bodies`) cloned, with a new table for each moved
    /// body; `ids` is the world's ids in order, `names` [`NAMES`] as
    /// strings of this VM, `three` says the world is 3D.
    pub fn write(
        &self,
        lua: &Lua,
        (old, ids): (Table, Table),
        names: &[LuaString],
        three: bool,
    ) -> mlua::Result<Table> {
        let mut args = Vec::with_capacity(2 + names.len());
        args.push(Value::Table(old));
        args.push(Value::Table(ids));
        args.extend(names.iter().cloned().map(Value::String));
        // Safety: `write_raw` keeps to the stack it is given, checks each
        // value it reads is a table before it writes into it, and
        // holds nothing that needs dropping when an error (out of
        // memory) unwinds it.
        unsafe {
            lua.exec_raw::<Table>(MultiValue::from_vec(args), |state| {
                write_raw(state, self, three);
            })
        }
    }
}

/// Writes the moved bodies with the arguments of [`Moved::write`] on
/// the stack, leaving the new bodies table alone on it.
unsafe fn write_raw(state: *mut ffi::lua_State, moved: &Moved, three: bool) {
    // Safety: the stack holds `Moved::write`'s arguments, room is made for
    // what is pushed, and each value written into is checked a table.
    unsafe {
        if ffi::lua_checkstack(state, 8) == 0 {
            fail(state, c"no room on the stack to write the bodies");
        }
        if ffi::lua_type(state, OLD) != ffi::LUA_TTABLE
            || ffi::lua_type(state, IDS) != ffi::LUA_TTABLE
        {
            fail(state, c"a world's bodies are a table");
        }
        ffi::lua_clonetable(state, OLD);
        let bodies = ffi::lua_gettop(state);
        // Sets field `name` of the table at the top to `n`.
        let number = |name: c_int, n: f64| {
            ffi::lua_pushvalue(state, NAME + name);
            ffi::lua_pushnumber(state, n);
            ffi::lua_rawset(state, -3);
        };
        let width = if three { 13 } else { 6 };
        for ((&at, &flag), n) in moved
            .at
            .iter()
            .zip(&moved.flags)
            .zip(moved.numbers.chunks_exact(width))
        {
            ffi::lua_rawgeti_(state, IDS, at);
            ffi::lua_pushvalue(state, -1);
            if ffi::lua_rawget(state, OLD) != ffi::LUA_TTABLE {
                fail(state, c"each of a world's bodies is a table");
            }
            ffi::lua_clonetable(state, -1);
            ffi::lua_remove(state, -2);
            if three {
                for (name, k) in [(X, 0), (Y, 1), (Z, 2), (VX, 7), (VY, 8), (VZ, 9)] {
                    number(name, n[k]);
                }
                if flag & 1 != 0 {
                    ffi::lua_pushvalue(state, NAME + ROTATION);
                    ffi::lua_createtable(state, 0, 4);
                    for (name, k) in [(X, 3), (Y, 4), (Z, 5), (W, 6)] {
                        number(name, n[k]);
                    }
                    ffi::lua_rawset(state, -3);
                }
                if flag & 2 != 0 {
                    ffi::lua_pushvalue(state, NAME + SPIN);
                    ffi::lua_createtable(state, 0, 3);
                    for (name, k) in [(X, 10), (Y, 11), (Z, 12)] {
                        number(name, n[k]);
                    }
                    ffi::lua_rawset(state, -3);
                }
            } else {
                for (name, k) in [(X, 0), (Y, 1), (ANGLE, 2), (VX, 3), (VY, 4), (SPIN, 5)] {
                    number(name, n[k]);
                }
            }
            if flag & 4 != 0 {
                ffi::lua_pushvalue(state, NAME + GROUNDED);
                ffi::lua_pushboolean(state, c_int::from(flag & 8 != 0));
                ffi::lua_rawset(state, -3);
            }
            // bodies[id] = the new table.
            ffi::lua_rawset(state, bodies);
        }
        ffi::lua_replace(state, OLD);
        ffi::lua_settop(state, OLD);
    }
}

/// Raises `message` as a Lua error (unwinding to the protected call).
unsafe fn fail(state: *mut ffi::lua_State, message: &std::ffi::CStr) -> ! {
    // Safety: inside a protected call, as `write_raw` is.
    unsafe {
        ffi::lua_pushstring_(state, message.as_ptr());
        ffi::lua_error(state)
    }
}
