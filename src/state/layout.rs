//! Luau's tables read in place, so the state walk can skip the entries that
//! need nothing from it.
//!
//! Asking the C API about every entry of every new table (`lua_rawiter`,
//! then the key's and the value's types) made taking a state cost more than
//! the update that built it: 63 µs of a 123 µs frame for 1,000 new balls.
//! Most entries are a number or a string under a string key; reading the
//! slots straight from memory finds the few that need a look (a table to
//! descend into, a value or key that is not plain data) and leaves the API
//! to handle only those.
//!
//! The walk also keeps its mark for a table it has checked in the table
//! itself: bit 7 of `readonly`. Luau reads that byte as a flag (zero or
//! not), apart from bit 1, its metamethod cache; unfreezing a table clears
//! the byte, and with it the mark, and `table.clone` starts at zero. The
//! start-up check cannot see how Luau uses the byte: whoever updates Luau
//! reads the `readonly` field's comment in `lobject.h` and its uses.
//!
//! The structs mirror `VM/src/lobject.h` of the vendored Luau (0.740, with
//! 3-wide vectors). [`known`] checks them against the C API on real tables
//! when the first VM starts; when they disagree (a Luau update moved a
//! field), the walk asks the API about every entry as before: slower, never
//! wrong.

use std::ffi::{c_int, c_void};
use std::sync::OnceLock;

use mlua::ffi;

/// `TValue`: a value and its type tag.
#[repr(C)]
struct TValue {
    value: u64,
    extra: c_int,
    tt: c_int,
}

/// `LuaNode`: one slot of a table's hash part.
#[repr(C)]
struct Node {
    val: TValue,
    key_value: u64,
    key_extra: c_int,
    /// The key's type tag in the low 4 bits, its chain link above them.
    key_tt_next: u32,
}

/// `LuaTable`.
#[repr(C)]
struct LuaTable {
    gc_header: [u8; 3],
    tmcache: u8,
    readonly: u8,
    safeenv: u8,
    lsizenode: u8,
    nodemask8: u8,
    sizearray: c_int,
    lastfree: c_int,
    metatable: *const LuaTable,
    array: *const TValue,
    node: *const Node,
    gclist: *const c_void,
}

// Luau's own sizes, on any target; [`known`] checks the rest.
const _: () = {
    assert!(size_of::<TValue>() == 16);
    assert!(size_of::<Node>() == 32);
};

/// A table on the Lua stack, read in place.
///
/// Made only from a live table (by [`RawTable::at`], or from a slot of
/// one), which its methods rely on. Valid while the table stays on the
/// stack and no Luau code runs: nothing the walk does moves a table or
/// resizes the ones it reads.
#[derive(Clone, Copy)]
pub(super) struct RawTable(*mut LuaTable);

impl RawTable {
    /// The table at stack index `idx`.
    ///
    /// # Safety
    /// The value at `idx` is a table and [`known`] returned true.
    pub(super) unsafe fn at(state: *mut ffi::lua_State, idx: c_int) -> RawTable {
        // SAFETY: `idx` holds a table (the caller's promise), whose
        // pointer is a `LuaTable` of the layout `known` checked.
        RawTable(unsafe { ffi::lua_topointer(state, idx) } as *mut LuaTable)
    }

    // The methods below read or write the table in place.
    //
    // # Safety
    // The table is alive and unmoved: it is on the stack (or in a slot of
    // a table that is) and no Luau code has run since it was reached.

    /// The table's address, which identifies it.
    pub(super) fn addr(self) -> *const c_void {
        self.0 as *const c_void
    }

    /// Whether the table is frozen.
    pub(super) unsafe fn readonly(self) -> bool {
        // SAFETY: alive and unmoved (the methods' promise above).
        unsafe { (*self.0).readonly != 0 }
    }

    /// Whether the walk marked this table checked (it is frozen too).
    pub(super) unsafe fn checked(self) -> bool {
        // SAFETY: alive and unmoved (the methods' promise above).
        unsafe { (*self.0).readonly & CHECKED != 0 }
    }

    /// Marks this frozen table checked.
    pub(super) unsafe fn mark_checked(self) {
        // SAFETY: alive and unmoved, and no other reference to it is
        // held while the walk runs (the methods' promise above).
        unsafe { (*self.0).readonly |= CHECKED }
    }

    /// Whether the table has a metatable.
    pub(super) unsafe fn has_metatable(self) -> bool {
        // SAFETY: alive and unmoved (the methods' promise above).
        unsafe { !(*self.0).metatable.is_null() }
    }

    /// Freezes the table as `table.freeze` does.
    ///
    /// Luau's `lua_setreadonly` may also build a metamethod cache, which
    /// only speeds up a frozen table used as a metatable; without it such a
    /// table still works, its metamethods looked up by name.
    pub(super) unsafe fn freeze(self) {
        // SAFETY: alive and unmoved, and no other reference to it is
        // held while the walk runs (the methods' promise above).
        unsafe { (*self.0).readonly = 1 }
    }

    /// Returns the first slot at or after `iter`, in `lua_rawiter`'s
    /// numbering (array part, then hash part), whose entry the walk must
    /// look at: a table not yet checked (any table, with `tables`: a walk
    /// that digests wants them all), or a value or key that is not plain
    /// data. Each entry passed over on the way goes to `passed` (a walk
    /// that digests sums them there, while the slot is at hand).
    pub(super) unsafe fn next_to_check<P: Passed>(
        self,
        iter: c_int,
        tables: bool,
        passed: &mut P,
    ) -> Option<Slot> {
        let passes = |value: &TValue| passes(value) && !(tables && value.tt == ffi::LUA_TTABLE);
        // Kept in registers through the loops, stored once at the end.
        let mut sum = *passed;
        // SAFETY: the sizes and pointers are the table's own, read now.
        let found = unsafe {
            'found: {
                let t = &*self.0;
                let (array, nodes, sizearray) = (t.array, t.node, t.sizearray);
                let mut iter = iter;
                while iter < sizearray {
                    let value = &*array.add(iter as usize);
                    let key = ((iter + 1) as f64).to_bits();
                    if !passes(value) {
                        break 'found Some(Slot::new(iter, ffi::LUA_TNUMBER, key, value));
                    }
                    if value.tt != ffi::LUA_TNIL {
                        sum = sum.pass(Raw::number(key), Raw::of(value));
                    }
                    iter += 1;
                }
                // The hash part is walked by pointer; a slot's number is
                // worked out only for the one returned.
                let mut at = nodes.add((iter - sizearray) as usize);
                let end = nodes.add(1 << t.lsizenode);
                while at < end {
                    let node = &*at;
                    at = at.add(1);
                    let key_type = (node.key_tt_next & 0xf) as c_int;
                    // Most entries of most states: a number under a name.
                    if node.val.tt == ffi::LUA_TNUMBER && key_type == ffi::LUA_TSTRING {
                        sum = sum.pass_named_number(node.key_value, node.val.value);
                        continue;
                    }
                    if node.val.tt != ffi::LUA_TNIL {
                        if !(plain_key(key_type) && passes(&node.val)) {
                            let iter = sizearray + at.offset_from(nodes) as c_int - 1;
                            break 'found Some(Slot::new(
                                iter,
                                key_type,
                                node.key_value,
                                &node.val,
                            ));
                        }
                        sum = sum.pass(Raw::key(node), Raw::of(&node.val));
                    }
                }
                None
            }
        };
        *passed = sum;
        found
    }
}

impl RawTable {
    /// The table a table value's bits point at.
    ///
    /// # Safety
    /// `bits` are a table value's, read from a live table, or the address
    /// of a live table.
    pub(super) unsafe fn from_bits(bits: u64) -> RawTable {
        RawTable(bits as *mut LuaTable)
    }

    /// Returns how many slots the table has, array and hash parts.
    pub(super) unsafe fn slots(self) -> usize {
        // SAFETY: the sizes are the table's own, read now.
        unsafe {
            let t = &*self.0;
            t.sizearray.max(0) as usize + (1usize << t.lsizenode)
        }
    }

    /// Calls `each` with every entry's key and value as read in place: the
    /// array part's keys are its indices, as numbers.
    pub(super) unsafe fn for_each(self, mut each: impl FnMut(Raw, Raw)) {
        // SAFETY: the sizes and pointers are the table's own, read now.
        unsafe {
            let t = &*self.0;
            for i in 0..t.sizearray.max(0) as usize {
                let value = &*t.array.add(i);
                if value.tt != ffi::LUA_TNIL {
                    each(Raw::number(((i + 1) as f64).to_bits()), Raw::of(value));
                }
            }
            for n in 0..1usize << t.lsizenode {
                let node = &*t.node.add(n);
                if node.val.tt != ffi::LUA_TNIL {
                    each(Raw::key(node), Raw::of(&node.val));
                }
            }
        }
    }
}

/// What [`RawTable::next_to_check`] does with the entries it passes over:
/// a small value, carried in registers through its loops.
pub(super) trait Passed: Copy {
    /// Takes in an entry of plain key and value.
    ///
    /// # Safety
    /// The entry is read from a live table.
    unsafe fn pass(self, key: Raw, value: Raw) -> Self;

    /// Takes in a number under a string key, given their bits (the
    /// string's address): the common entry, spared the types' match.
    ///
    /// # Safety
    /// As [`Passed::pass`].
    unsafe fn pass_named_number(self, key: u64, value: u64) -> Self;
}

/// Passing over entries and doing nothing with them.
impl Passed for () {
    unsafe fn pass(self, _: Raw, _: Raw) {}
    unsafe fn pass_named_number(self, _: u64, _: u64) {}
}

/// A key or a value as a table's slot holds it: its type tag, its eight
/// bytes (a number's bits, a boolean, an object's address, a vector's x
/// and y) and the extra four (a vector's z).
#[derive(Debug, Clone, Copy)]
pub(super) struct Raw {
    pub tt: c_int,
    pub bits: u64,
    pub extra: c_int,
}

impl Raw {
    fn of(value: &TValue) -> Raw {
        Raw {
            tt: value.tt,
            bits: value.value,
            extra: value.extra,
        }
    }

    /// A number, from its bits (an array slot's index).
    fn number(bits: u64) -> Raw {
        Raw {
            tt: ffi::LUA_TNUMBER,
            bits,
            extra: 0,
        }
    }

    /// A hash slot's key.
    fn key(node: &Node) -> Raw {
        Raw {
            tt: (node.key_tt_next & 0xf) as c_int,
            bits: node.key_value,
            extra: node.key_extra,
        }
    }
}

/// An entry [`RawTable::next_to_check`] found.
pub(super) struct Slot {
    /// Its slot number, for `lua_rawiter`.
    pub iter: c_int,
    pub key_type: c_int,
    /// The key's eight bytes (a number's bits, a string's address).
    pub key_bits: u64,
    pub value_type: c_int,
    /// The value, when it is a table.
    pub table: Option<RawTable>,
}

impl Slot {
    fn new(iter: c_int, key_type: c_int, key_bits: u64, value: &TValue) -> Slot {
        Slot {
            iter,
            key_type,
            key_bits,
            value_type: value.tt,
            table: (value.tt == ffi::LUA_TTABLE).then_some(RawTable(value.value as *mut LuaTable)),
        }
    }
}

/// True for nil, the plain values that hold no table, and checked tables.
///
/// A checked table is never one the walk is inside of (those are marked
/// when done), so passing it by cannot miss a cycle.
fn passes(value: &TValue) -> bool {
    match value.tt {
        ffi::LUA_TNIL
        | ffi::LUA_TBOOLEAN
        | ffi::LUA_TNUMBER
        | ffi::LUA_TVECTOR
        | ffi::LUA_TSTRING => true,
        // SAFETY: a table slot of a live table holds a live table.
        ffi::LUA_TTABLE => unsafe { RawTable(value.value as *mut LuaTable).checked() },
        _ => false,
    }
}

fn plain_key(tt: c_int) -> bool {
    tt == ffi::LUA_TNUMBER || tt == ffi::LUA_TSTRING
}

/// The walk's mark in `LuaTable::readonly`: frozen and checked.
const CHECKED: u8 = 0x80;

static KNOWN: OnceLock<bool> = OnceLock::new();

/// The Luau version whose `lobject.h` and whose uses of the `readonly`
/// byte were read against this file. Any other version, which a routine
/// `cargo update` can bring with no diff anyone would review, takes the
/// walk that asks the API: slower, never wrong. To move it, read the
/// comments at the top of this file against the new Luau, then change it.
pub(super) const AUDITED_LUAU: &str = "0.740";

/// Whether tables can be read in place: the running Luau is the audited
/// version and the mirror structs above match it. Checked once, on the
/// first VM that asks.
///
/// # Safety
/// `state` is a live Lua state with room for a few stack slots.
pub(super) unsafe fn known(state: *mut ffi::lua_State) -> bool {
    // SAFETY: `state` is live with room on its stack (the caller's
    // promise); `check` builds its tables on top and the top is put back.
    *KNOWN.get_or_init(|| unsafe {
        if ffi::luau_version() != Some(AUDITED_LUAU) {
            return false;
        }
        let top = ffi::lua_gettop(state);
        let known = check(state);
        ffi::lua_settop(state, top);
        known
    })
}

/// Builds tables through the C API and reads them back in place: every
/// slot's key and value types, pointers and numbers, the frozen flag and
/// the metatable must agree.
///
/// # Safety
/// As [`known`]; the caller restores the stack's top.
unsafe fn check(state: *mut ffi::lua_State) -> bool {
    // SAFETY: eight slots are checked for first; the tables read in place
    // are on the stack, so alive and unmoved; each pointer is read only
    // as far as the mirror structs' sizes, which the Luau build shares.
    unsafe {
        if ffi::lua_checkstack(state, 8) == 0 {
            return false;
        }
        ffi::lua_createtable(state, 2, 4);
        let t = ffi::lua_gettop(state);
        ffi::lua_pushnumber(state, 1.5);
        ffi::lua_rawseti(state, t, 1);
        ffi::lua_pushstring(state, c"s".as_ptr());
        ffi::lua_rawseti(state, t, 2);
        ffi::lua_createtable(state, 0, 0);
        ffi::lua_rawsetfield(state, t, c"a".as_ptr());
        ffi::lua_pushboolean(state, 1);
        ffi::lua_rawsetfield(state, t, c"b".as_ptr());
        ffi::lua_pushnumber(state, 7.0);
        ffi::lua_pushnumber(state, -2.25);
        ffi::lua_rawset(state, t);

        let raw = RawTable::at(state, t);
        let table = &*raw.0;
        if c_int::from(table.gc_header[0]) != ffi::LUA_TTABLE
            || table.sizearray != 2
            || table.lsizenode != 2
            || raw.readonly()
            || raw.has_metatable()
        {
            return false;
        }
        // Every slot as the API sees it against the slot read in place.
        let mut found = 0;
        for slot in 0..table.sizearray + (1 << table.lsizenode) {
            let (key_tt, val_tt, bits) = if slot < table.sizearray {
                let v = &*table.array.add(slot as usize);
                (ffi::LUA_TNUMBER, v.tt, v.value)
            } else {
                let n = &*table.node.add((slot - table.sizearray) as usize);
                ((n.key_tt_next & 0xf) as c_int, n.val.tt, n.val.value)
            };
            let next = ffi::lua_rawiter(state, t, slot);
            if val_tt == ffi::LUA_TNIL {
                // The API skips an empty slot: it must report a later one.
                if next >= 0 && next <= slot + 1 {
                    return false;
                }
                ffi::lua_settop(state, t);
                continue;
            }
            found += 1;
            let key = t + 1;
            let value = t + 2;
            let same_value = match val_tt {
                ffi::LUA_TNUMBER => ffi::lua_tonumber(state, value).to_bits() == bits,
                ffi::LUA_TTABLE | ffi::LUA_TSTRING => {
                    ffi::lua_topointer(state, value) as u64 == bits
                }
                ffi::LUA_TBOOLEAN => ffi::lua_toboolean(state, value) as u64 == bits & 0xffff_ffff,
                _ => false,
            };
            if next != slot + 1
                || ffi::lua_type(state, key) != key_tt
                || ffi::lua_type(state, value) != val_tt
                || !same_value
            {
                return false;
            }
            ffi::lua_settop(state, t);
        }
        let table_slot = raw.next_to_check(0, false, &mut ());
        ffi::lua_rawgetfield(state, t, c"a".as_ptr());
        if found != 5
            || table_slot.as_ref().map(|s| s.iter) != Some(slot_of_table(raw))
            || table_slot
                .and_then(|s| s.table)
                .map(|t| t.0 as *const c_void)
                != Some(ffi::lua_topointer(state, -1))
        {
            return false;
        }
        // The frozen flag and the checked mark both ways, and the metatable.
        raw.freeze();
        raw.mark_checked();
        if ffi::lua_getreadonly(state, t) == 0 || !raw.checked() {
            return false;
        }
        ffi::lua_setreadonly(state, t, 0);
        if raw.readonly() || raw.checked() {
            return false;
        }
        ffi::lua_createtable(state, 0, 0);
        let meta = ffi::lua_topointer(state, -1);
        ffi::lua_setmetatable(state, t);
        std::ptr::eq(table.metatable as *const c_void, meta)
    }
}

/// The slot holding the check's one table value.
///
/// # Safety
/// `raw` is the check's live table.
unsafe fn slot_of_table(raw: RawTable) -> c_int {
    // SAFETY: the table is alive; its node array holds `1 << lsizenode`
    // entries.
    unsafe {
        let t = &*raw.0;
        (0..1 << t.lsizenode)
            .find(|&n| (*t.node.add(n as usize)).val.tt == ffi::LUA_TTABLE)
            .map_or(-2, |n| t.sizearray + n)
    }
}
