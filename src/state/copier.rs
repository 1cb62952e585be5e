//! The copier: one state after another carried from a game's VM into the
//! VM its properties run in (X1), frozen, in time proportional to what is
//! new in each, as taking a state is (S2).
//!
//! A frozen table copied for the last state is the same copy again, and
//! its contents are not walked: a frozen table never changes, and the
//! copier holds each source table while it keeps its copy, so no other
//! table takes its address meanwhile. Copies kept are those the last
//! state reached.
//!
//! What is new is walked through Luau's C API, from one VM's stack onto
//! the other's: a handle made and dropped for every key and value (as
//! `Table::for_each` and `raw_set` make them) was most of what a property
//! cost a physics game, whose world is a new table every frame. Anything
//! the walk does not take as plain data (a metatable, a function, a key
//! that is not a string or a number, a state too deep) is left to the
//! safe copy in `encoding`, which says where it is.

use std::collections::HashMap;
use std::ffi::{c_int, c_void};

use mlua::ffi::{self, lua_State};
use mlua::{Lua, Table, Value};

use super::MAX_DEPTH;
use crate::Refusal;

/// Copies one state after another from one VM into another (see the
/// module's doc).
#[derive(Default)]
pub struct Copier {
    /// The copies the last state's copy made or kept, by their source's
    /// address: each one's slot in the keep tables, and whether its source
    /// was frozen (only such a copy is reused).
    last: Kept,
    /// This copy's, kept between copies for its allocation.
    now: Kept,
    /// The keep tables of the last copy, slot by slot: the sources (in the
    /// game's VM, holding their addresses theirs) and their copies.
    kept: Option<(Table, Table)>,
    /// The VM the kept sources are in: a copy from another (the next run
    /// of a search, a new game) starts afresh, as an address there says
    /// nothing of a table here.
    source: Option<mlua::WeakLua>,
    /// How many tables the next copy makes room for in the source's keep
    /// table, which is sized before the walk: the walk must not allocate
    /// in the source VM while it runs inside the other's protected call.
    room: usize,
}

type Kept = HashMap<*const c_void, (c_int, bool), rustc_hash::FxBuildHasher>;

/// The fewest tables a copy makes room for.
const LEAST_ROOM: usize = 256;

/// Stack slots of the source's walk, a key and a value a level.
const SOURCE_STACK: c_int = 2 * MAX_DEPTH as c_int + 8;

impl Copier {
    /// Copies `value`, a value of `from`, into `into`, frozen, reusing
    /// what the last copy made.
    ///
    /// # Errors
    /// The value is not plain data (the message names the path), or its
    /// copy leaves `into` past its memory cap.
    ///
    /// While it copies, `into`'s memory cap is lifted and checked once at
    /// the end instead: under a cap, mlua guards every field set and
    /// string made with a protected call of its own. The copy's size is
    /// bounded anyway by the source's own cap.
    pub fn copy(&mut self, from: &Lua, value: &Value, into: &Lua) -> Result<Value, Refusal> {
        let source = from.weak();
        if self.source.as_ref() != Some(&source) {
            self.forget();
            self.source = Some(source);
        }
        let cap = into.set_memory_limit(0).unwrap_or(0);
        let copied = match self.walk(from, value, into) {
            Ok(Some(copy)) => Ok(copy),
            // Not plain data, or past the room made for it, or no room in
            // the game's VM for the keep table (a game at its memory cap):
            // the safe copy names the place, or copies what the walk could
            // not, allocating in `into` alone.
            Ok(None) | Err(_) => {
                self.forget();
                super::encoding::copy_frozen(value, into)
            }
        };
        let _ = into.set_memory_limit(cap);
        if cap != 0 && into.used_memory() > cap {
            // What this copy made is garbage once nothing holds it.
            drop(copied);
            self.forget();
            let _ = into.gc_collect();
            return Err(refuse!(
                "state is larger than the {:.1} MiB a copy of it may hold",
                cap as f64 / f64::from(1 << 20)
            ));
        }
        copied
    }

    /// Lets go of every copy kept.
    fn forget(&mut self) {
        self.last.clear();
        self.now.clear();
        self.kept = None;
    }

    /// The walk: `None` where it met what it does not take (the safe copy
    /// then runs).
    fn walk(&mut self, from: &Lua, value: &Value, into: &Lua) -> mlua::Result<Option<Value>> {
        let Value::Table(root) = value else {
            return Ok(None);
        };
        let room = self.room.max(LEAST_ROOM).max(2 * self.last.len());
        let keep_from = from.create_table_with_capacity(room, 0)?;
        let keep_into = into.create_table_with_capacity(room, 0)?;
        let (last_from, last_into) = match &self.kept {
            Some((a, b)) => (Value::Table(a.clone()), Value::Table(b.clone())),
            None => (Value::Nil, Value::Nil),
        };
        self.now.clear();
        let mut walk = Walk {
            last: &mut self.last,
            now: &mut self.now,
            slots: 0,
            room: c_int::try_from(room).unwrap_or(c_int::MAX),
            outcome: Outcome::Copied,
        };
        let mut copied: Option<mlua::Result<Value>> = None;
        // SAFETY: each closure runs inside its own VM's protected call
        // with the arguments at slots 1.. of a fresh frame (`exec_raw`),
        // and touches only its own frame of each VM: the source's keep
        // table, its last keep table and the root at 2, 3 and 1; the
        // copy's keep tables at 1 and 2. Nothing in the source VM
        // allocates inside the copy's call (its stack is grown and its
        // keep table sized first, and `lua_next`, `lua_tolstring` on a
        // string and `lua_rawseti_` within the array part do not), so
        // an error can only be the copy's VM's, raised inside its own
        // protected call. Each frame is emptied of all but the result.
        unsafe {
            from.exec_raw::<()>((root, &keep_from, last_from), |src| {
                if ffi::lua_checkstack(src, SOURCE_STACK) != 0 {
                    copied = Some(into.exec_raw::<Value>((&keep_into, last_into), |dst| {
                        if walk.table(src, 1, dst, 0) {
                            ffi::lua_replace(dst, 1);
                            ffi::lua_settop(dst, 1);
                        } else {
                            ffi::lua_settop(dst, 0);
                            ffi::lua_pushnil(dst);
                        }
                    }));
                } else {
                    walk.outcome = Outcome::Declined;
                }
                ffi::lua_settop(src, 0);
            })?;
        }
        let outcome = walk.outcome;
        let copy = match copied {
            Some(copy) => copy?,
            None => Value::Nil,
        };
        match outcome {
            Outcome::Copied => {
                std::mem::swap(&mut self.last, &mut self.now);
                self.kept = Some((keep_from, keep_into));
                Ok(Some(copy))
            }
            Outcome::Cramped(needed) => {
                self.room = needed;
                Ok(None)
            }
            Outcome::Declined => Ok(None),
        }
    }
}

/// How a walk ended.
#[derive(Clone, Copy)]
enum Outcome {
    Copied,
    /// The state holds more tables than the room made: make this much.
    Cramped(usize),
    /// It met what the walk does not take.
    Declined,
}

/// One copy's walk over the source VM's stack, building on the other's.
struct Walk<'a> {
    last: &'a mut Kept,
    now: &'a mut Kept,
    /// Slots used in the keep tables.
    slots: c_int,
    /// Slots the source's keep table has room for.
    room: c_int,
    outcome: Outcome,
}

/// Where the keep tables are on each stack (see `Copier::walk`).
const SOURCE_KEEP: c_int = 2;
const COPY_KEEP: c_int = 1;
const COPY_LAST: c_int = 2;

impl Walk<'_> {
    /// Pushes onto `dst` the copy of the table at `at` on `src`, frozen;
    /// `false` where it cannot (the outcome says why).
    ///
    /// # Safety
    /// As `Copier::walk` sets up: `at` is a table on `src`, whose stack
    /// has room for two slots a level, and the keep tables are in place.
    unsafe fn table(
        &mut self,
        src: *mut lua_State,
        at: c_int,
        dst: *mut lua_State,
        depth: usize,
    ) -> bool {
        // SAFETY: the caller's promise; every push below is popped or
        // kept as the copy, and the copy's stack is grown for it first.
        unsafe {
            let address = ffi::lua_topointer(src, at);
            if let Some(&(slot, _)) = self.now.get(&address) {
                ffi::lua_rawgeti_(dst, COPY_KEEP, slot);
                return true;
            }
            // Frozen when it was copied, frozen still: Luau has no way to
            // thaw.
            if let Some((slot, true)) = self.last.remove(&address) {
                if ffi::lua_checkstack(dst, 2) == 0 {
                    return self.decline();
                }
                ffi::lua_rawgeti_(dst, COPY_LAST, slot);
                return self.keep(src, at, dst, address, true);
            }
            if depth == MAX_DEPTH || ffi::lua_checkstack(dst, 4) == 0 {
                return self.decline();
            }
            if ffi::lua_getmetatable(src, at) != 0 {
                ffi::lua_pop(src, 1);
                return self.decline();
            }
            // Made at its size: a table grown key by key rehashes as it
            // goes.
            let listed = ffi::lua_objlen(src, at);
            let mut pairs = 0usize;
            ffi::lua_pushnil(src);
            while ffi::lua_next(src, at) != 0 {
                pairs += 1;
                ffi::lua_pop(src, 1);
            }
            let hashed = pairs.saturating_sub(listed);
            ffi::lua_createtable(
                dst,
                c_int::try_from(listed).unwrap_or(0),
                c_int::try_from(hashed).unwrap_or(0),
            );
            let out = ffi::lua_gettop(dst);
            ffi::lua_pushnil(src);
            while ffi::lua_next(src, at) != 0 {
                let value = ffi::lua_gettop(src);
                if !(self.key(src, value - 1, dst) && self.value(src, value, dst, depth)) {
                    return false;
                }
                ffi::lua_rawset(dst, out);
                ffi::lua_pop(src, 1);
            }
            ffi::lua_setreadonly(dst, out, 1);
            let frozen = ffi::lua_getreadonly(src, at) != 0;
            self.keep(src, at, dst, address, frozen)
        }
    }

    /// Pushes onto `dst` the key at `at` on `src`: a string or a number.
    ///
    /// # Safety
    /// `at` is a slot of `src`; `dst` has room for one more.
    unsafe fn key(&mut self, src: *mut lua_State, at: c_int, dst: *mut lua_State) -> bool {
        // SAFETY: the caller's promise; `lua_tolstring` is asked of a
        // string only, so it converts nothing under `lua_next`.
        unsafe {
            match ffi::lua_type(src, at) {
                ffi::LUA_TSTRING => push_string(src, at, dst),
                ffi::LUA_TNUMBER => ffi::lua_pushnumber(dst, ffi::lua_tonumber(src, at)),
                _ => return self.decline(),
            }
        }
        true
    }

    /// Pushes onto `dst` the copy of the value at `at` on `src`.
    ///
    /// # Safety
    /// As [`Walk::table`], for a value of a table `depth` deep.
    unsafe fn value(
        &mut self,
        src: *mut lua_State,
        at: c_int,
        dst: *mut lua_State,
        depth: usize,
    ) -> bool {
        // SAFETY: the caller's promise.
        unsafe {
            match ffi::lua_type(src, at) {
                ffi::LUA_TBOOLEAN => ffi::lua_pushboolean(dst, ffi::lua_toboolean(src, at)),
                ffi::LUA_TNUMBER => ffi::lua_pushnumber(dst, ffi::lua_tonumber(src, at)),
                ffi::LUA_TSTRING => push_string(src, at, dst),
                ffi::LUA_TVECTOR => {
                    let v = ffi::lua_tovector(src, at);
                    ffi::lua_pushvector(dst, *v, *v.add(1), *v.add(2));
                }
                ffi::LUA_TTABLE => return self.table(src, at, dst, depth + 1),
                _ => return self.decline(),
            }
        }
        true
    }

    /// Keeps the copy on top of `dst` and its source at `at` on `src` in
    /// this copy's keep tables, under the source's `address`.
    ///
    /// # Safety
    /// As [`Walk::table`], with the copy on top of `dst`.
    unsafe fn keep(
        &mut self,
        src: *mut lua_State,
        at: c_int,
        dst: *mut lua_State,
        address: *const c_void,
        frozen: bool,
    ) -> bool {
        if self.slots == self.room {
            self.outcome = Outcome::Cramped(4 * self.room as usize);
            return false;
        }
        self.slots += 1;
        // SAFETY: the caller's promise; the source's keep table has room
        // for this slot in its array part, so setting it allocates nothing.
        unsafe {
            ffi::lua_pushvalue(dst, -1);
            ffi::lua_rawseti_(dst, COPY_KEEP, self.slots);
            ffi::lua_pushvalue(src, at);
            ffi::lua_rawseti_(src, SOURCE_KEEP, self.slots);
        }
        self.now.insert(address, (self.slots, frozen));
        true
    }

    fn decline(&mut self) -> bool {
        self.outcome = Outcome::Declined;
        false
    }
}

/// Pushes onto `dst` the string at `at` on `src`.
///
/// # Safety
/// `at` holds a string; `dst` has room for one more.
unsafe fn push_string(src: *mut lua_State, at: c_int, dst: *mut lua_State) {
    let mut len = 0usize;
    // SAFETY: the caller's promise; the bytes are the source's, alive
    // while the string is on its stack, and copied by the push.
    unsafe {
        let bytes = ffi::lua_tolstring(src, at, &mut len);
        ffi::lua_pushlstring_(dst, bytes, len);
    }
}
