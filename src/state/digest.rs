//! A fast digest of a state, for history to tell two runs of a frame apart
//! (rules R1, R3).
//!
//! History keeps a digest of every frame's state, and a reload from the
//! past compares the new run's digests with the old run's. S7's hash
//! would do, but it sorts every table's keys and hashes each with BLAKE3,
//! which for 1,000 new balls a frame costs more than the frame. This
//! digest is for comparing within one process, not for writing down:
//!
//! - tables are read in place ([`layout`]), and a table's digest is the
//!   sum of its entries' mixed key and value digests, so key order does
//!   not matter and nothing is sorted;
//! - strings are digested by their length and the hash Luau keeps of
//!   their bytes, numbers by their bits (one NaN), so equal states digest
//!   alike however they were built;
//! - a table the last digested state held is not read again: frozen, it
//!   cannot have changed, and its digest is remembered by address. The
//!   last digested state is held, so none of its tables can be collected
//!   and its address reused by a new one before the next digest is done.
//!
//! The take walk (S5) reads every new table of a state anyway, right
//! after `update` made it. Lent a digester ([`lend`]), it digests each
//! table it walks as it finishes it, while its slots are still in the
//! cache, and [`Digester::digest`] then only picks up the root's digest:
//! the same digest the walk here would give, at a fraction of the cost.
//! The plain entries it passes over without a look ([`layout`]'s
//! `next_to_check`) are summed right there, in registers; a number under
//! a string key, most entries of most states, takes about twenty
//! instructions. (Summed in a second pass over each table, as first
//! written, history cost the 1,000-balls frame 1.2x; in the same pass,
//! 1.04x to 1.07x.)
//!
//! Where tables cannot be read in place, [`Digester::digest`] answers
//! `None` and the caller uses S7's hash.

use std::cell::Cell;

use mlua::{Lua, Value, ffi};
use rustc_hash::FxHashMap;

use super::layout::{self, Raw, RawTable};

/// Where a string's hash, length and bytes are in Luau's `TString`.
const STRING_HASH: usize = 16;
const STRING_LEN: usize = 20;
const STRING_DATA: usize = 24;

/// Digests states, remembering the tables of the last one.
#[derive(Default)]
pub struct Digester {
    /// Each table of the last digested state that the walk reached.
    last: FxHashMap<usize, u64>,
    /// The tables of the state being digested.
    next: FxHashMap<usize, u64>,
    /// Holds the last digested state once its owner lets it go
    /// ([`Digester::retire`]), so its tables stay where they are until
    /// the next digest is done. Handed over, not copied: a copy of a
    /// reference allocates its count. Not a slot of a table of ours
    /// either: Luau's collector, in its second marking stage, marks at
    /// once whatever is stored into a table it has marked, and a large
    /// state stored every frame kept that stage from ever ending, so
    /// nothing was collected again (a 1,000-body physics game passed its
    /// memory cap in 25 seconds).
    held: Option<Value>,
    /// Whether a digest was done since the last [`Digester::retire`]:
    /// whether `last` holds the tables of the state retired last.
    fresh: bool,
    /// Whether tables and strings can be read in place (checked once).
    in_place: Option<bool>,
    /// The root the last take walked while lent, and its digest.
    taken: Option<(usize, u64)>,
}

thread_local! {
    /// The digester lent to this thread's takes, while one is.
    static LENT: Cell<*mut Digester> = const { Cell::new(std::ptr::null_mut()) };
}

/// Lends `digester` to the takes `run` makes on this thread (the one that
/// takes `update`'s state), so they digest what they walk. Lends nothing
/// until a first [`Digester::digest`] found tables readable in place.
pub fn lend<R>(digester: &mut Digester, run: impl FnOnce() -> R) -> R {
    if digester.in_place != Some(true) {
        return run();
    }
    digester.next.clear();
    digester.taken = None;
    /// Puts back what was lent before, however `run` ends.
    struct Restore(*mut Digester);
    impl Drop for Restore {
        fn drop(&mut self) {
            LENT.with(|lent| lent.set(self.0));
        }
    }
    let _restore = Restore(LENT.with(|lent| lent.replace(digester)));
    run()
}

/// The digester lent to this thread's takes, or null.
pub(super) fn lent() -> *mut Digester {
    LENT.with(Cell::get)
}

impl std::fmt::Debug for Digester {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Digester")
            .field("tables", &self.last.len())
            .finish()
    }
}

impl Digester {
    /// Returns the digest of `value`, a state the host took (S5: plain
    /// data, no cycles, at most [`super::MAX_DEPTH`] deep); `None` where
    /// tables cannot be read in place.
    pub fn digest(&mut self, lua: &Lua, value: &Value) -> Option<u64> {
        if *self.in_place.get_or_insert_with(|| readable(lua)) {
            let raw = value_raw(value);
            let digest = match self.taken.take() {
                // The take walked this very state while lent: its tables'
                // digests are in `next` already.
                Some((root, digest)) if raw.tt == ffi::LUA_TTABLE && raw.bits as usize == root => {
                    digest
                }
                _ => {
                    self.next.clear();
                    // SAFETY: the state is alive (the caller holds it),
                    // plain data, and no Luau code runs during the walk.
                    unsafe { self.value(raw) }
                }
            };
            std::mem::swap(&mut self.last, &mut self.next);
            self.fresh = true;
            Some(digest)
        } else {
            None
        }
    }

    /// Takes the state its owner has just replaced, to hold while the
    /// digests remembered by address are of its tables. Where no digest
    /// was done since the last one retired, they are of a state no longer
    /// held: they are forgotten.
    pub fn retire(&mut self, old: Value) {
        if !std::mem::take(&mut self.fresh) {
            self.last.clear();
        }
        self.held = Some(old);
    }

    /// Digests a table the take walk met already checked: remembered, or
    /// digested now.
    ///
    /// # Safety
    /// The table is alive and part of a state being taken; no Luau code
    /// runs until the walk ends.
    pub(super) unsafe fn checked_table(&mut self, table: RawTable) -> u64 {
        // SAFETY: the caller's promise is `table`'s.
        unsafe { self.table(table) }
    }

    /// Digests a table the take walk has just walked: `sums` are its
    /// entries' parts, the plain ones summed as the walk passed them over
    /// and the tables' from the digests the walk gave back.
    ///
    /// # Safety
    /// As [`Digester::checked_table`].
    pub(super) unsafe fn walked_table(&mut self, table: RawTable, sums: Sums) -> u64 {
        let digest = sums.digest();
        // SAFETY: `table` is alive (the caller's promise).
        if unsafe { table.slots() } > SMALL {
            self.next.insert(table.addr() as usize, digest);
        }
        digest
    }

    /// Notes the digest of the root a lent take walked.
    pub(super) fn took(&mut self, root: usize, digest: u64) {
        self.taken = Some((root, digest));
    }

    /// Digests a value read in place.
    ///
    /// # Safety
    /// The value is a live one of a state the host took.
    unsafe fn value(&mut self, raw: Raw) -> u64 {
        match raw.tt {
            // SAFETY: a table slot of a live table holds a live table.
            ffi::LUA_TTABLE => unsafe { self.table(RawTable::from_bits(raw.bits)) },
            // SAFETY: as the caller promises.
            _ => unsafe { plain(raw) },
        }
    }

    /// Digests a table: remembered, or the sum of its entries' digests.
    ///
    /// # Safety
    /// The table is alive and part of a state the host took.
    unsafe fn table(&mut self, table: RawTable) -> u64 {
        // A small table (a ball, a vector of fields) is digested about as
        // fast as it is looked up: only larger ones are remembered. Its
        // larger tables are, so an unchanged world under a small root is
        // not read again.
        // SAFETY: `table` is alive (the caller's promise).
        let leaf = unsafe { table.slots() } <= SMALL;
        let addr = table.addr() as usize;
        if !leaf && let Some(&digest) = self.last.get(&addr).or_else(|| self.next.get(&addr)) {
            self.next.insert(addr, digest);
            return digest;
        }
        let mut sums = Sums::default();
        // Entries are summed, so their order does not matter. Reading a
        // table inside another's walk is only reading memory: no Luau
        // code runs, nothing moves.
        // SAFETY: `table` is alive, so are its keys and values (a taken
        // state holds only plain data and tables), and nothing runs that
        // could collect or move them.
        unsafe {
            table.for_each(|key, value| {
                let v = self.value(value);
                sums.add(plain(key), v);
            });
        }
        let digest = sums.digest();
        if !leaf {
            self.next.insert(addr, digest);
        }
        digest
    }
}

/// What a table's digest starts from.
const TABLE_TAG: u64 = 0x7461_626c;

/// A table's digest as its entries are added: the sum of their parts.
///
/// There is no count beside it: with one, the two were added as one SIMD
/// pair, and the walk reading the sum back out of that register stalled
/// on it (a fifth of the take's time with history on). A sum of mixed
/// words tells tables of different sizes apart as well.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Sums {
    sum: u64,
}

impl Sums {
    /// Adds an entry whose key and value are digested already.
    #[inline(always)]
    pub(super) fn add(&mut self, key: u64, value: u64) {
        self.sum = self.sum.wrapping_add(pair(key, value));
    }

    /// The table's digest.
    pub(super) fn digest(self) -> u64 {
        mix(TABLE_TAG, self.sum)
    }
}

impl layout::Passed for Sums {
    /// Adds an entry of plain key and value.
    #[inline(always)]
    unsafe fn pass(mut self, key: Raw, value: Raw) -> Sums {
        // Most entries are a number under a string key: those skip the
        // match.
        let key = match key.tt {
            // SAFETY: the trait's promise: `key` and `value` are a live
            // entry of a table being walked, so a string is a live
            // `TString`.
            ffi::LUA_TSTRING => unsafe { string(key.bits as *const u8) },
            // SAFETY: as above.
            _ => unsafe { plain(key) },
        };
        let value = match value.tt {
            ffi::LUA_TNUMBER => number(value.bits),
            // SAFETY: as above.
            _ => unsafe { plain(value) },
        };
        self.add(key, value);
        self
    }

    #[inline(always)]
    unsafe fn pass_named_number(mut self, key: u64, value: u64) -> Sums {
        // SAFETY: the trait's promise: `key` is a live `TString`.
        self.add(unsafe { string(key as *const u8) }, number(value));
        self
    }
}

/// The most slots a table may have to be digested without being remembered.
const SMALL: usize = 16;

/// Digests a value that is not a table (a key, or a plain value): a word
/// that differs for different values, cheap to make (a frame digests
/// every entry of every new table).
///
/// # Safety
/// A string is a live `TString`, and [`readable`] said its layout is known.
pub(super) unsafe fn plain(raw: Raw) -> u64 {
    match raw.tt {
        ffi::LUA_TNUMBER => number(raw.bits),
        // A string by the hash Luau made of all its bytes, and its length.
        // SAFETY: a live `TString` of a known layout (the caller's promise).
        ffi::LUA_TSTRING => unsafe { string(raw.bits as *const u8) },
        ffi::LUA_TBOOLEAN => 0xb001_0000 | u64::from(raw.bits & 0xffff_ffff != 0),
        ffi::LUA_TVECTOR => {
            let x = float(raw.bits as u32);
            let y = float((raw.bits >> 32) as u32);
            let z = float(raw.extra as u32);
            mix(mix(3, u64::from(x) | u64::from(y) << 32), u64::from(z))
        }
        ffi::LUA_TNIL => 0x6e69_6c00,
        // Not plain data: a state the host took holds none.
        other => mix(7, other as u64),
    }
}

/// A number by its bits, every NaN alike.
#[inline(always)]
fn number(bits: u64) -> u64 {
    if f64::from_bits(bits).is_nan() {
        f64::NAN.to_bits()
    } else {
        bits
    }
}

/// One entry's part of its table's digest: one multiply. Summed, so the
/// order of the entries does not matter.
#[inline(always)]
pub(super) fn pair(key: u64, value: u64) -> u64 {
    let x =
        (key ^ value.rotate_left(23) ^ 0x2545_f491_4f6c_dd1d).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    x ^ (x >> 31)
}

/// A value as a slot would hold it, for the walk to start from.
fn value_raw(value: &Value) -> Raw {
    let raw = |tt, bits| Raw { tt, bits, extra: 0 };
    match value {
        Value::Table(t) => raw(ffi::LUA_TTABLE, t.to_pointer() as u64),
        Value::String(s) => raw(ffi::LUA_TSTRING, s.to_pointer() as u64),
        Value::Number(n) => raw(ffi::LUA_TNUMBER, n.to_bits()),
        Value::Integer(i) => raw(ffi::LUA_TNUMBER, (*i as f64).to_bits()),
        Value::Boolean(b) => raw(ffi::LUA_TBOOLEAN, u64::from(*b)),
        Value::Vector(v) => Raw {
            tt: ffi::LUA_TVECTOR,
            bits: u64::from(v.x().to_bits()) | u64::from(v.y().to_bits()) << 32,
            extra: v.z().to_bits() as i32,
        },
        _ => raw(ffi::LUA_TNIL, 0),
    }
}

/// A 64-bit mix of two words (the folded 128-bit product, as wyhash does).
fn mix(a: u64, b: u64) -> u64 {
    let m = u128::from(a ^ 0xa076_1d64_78bd_642f) * u128::from(b ^ 0xe703_7ed1_a0b4_28db);
    (m as u64) ^ (m >> 64) as u64
}

fn float(bits: u32) -> u32 {
    let f = f32::from_bits(bits);
    if f.is_nan() { f32::NAN.to_bits() } else { bits }
}

/// Digests a `TString` by its length and the hash Luau keeps of its bytes
/// (two equal strings always agree; two different ones of one length
/// collide one time in 2^32, which at worst hides a difference that
/// nothing else in the state shows).
///
/// # Safety
/// `string` is a live `TString`, and [`readable`] said its layout is known.
#[inline(always)]
unsafe fn string(string: *const u8) -> u64 {
    // SAFETY: the hash and length fields are inside a live `TString` at
    // the offsets `readable` checked; the read is unaligned-safe.
    unsafe {
        // The hash and the length side by side, read as one word.
        const _: () = assert!(STRING_LEN == STRING_HASH + 4);
        let both = (string.add(STRING_HASH) as *const u64).read_unaligned();
        both ^ 0x5354_5200_0000_0000
    }
}

/// Luau's `luaS_hash` for a string shorter than 32 bytes (Lua 5.1's).
fn short_hash(bytes: &[u8]) -> u32 {
    let mut h = bytes.len() as u32;
    for &b in bytes.iter().rev() {
        h ^= (h << 5).wrapping_add(h >> 2).wrapping_add(u32::from(b));
    }
    h
}

/// Whether tables can be read in place, and strings' hash, length and
/// bytes found where [`string`] looks: checked on a string made through
/// the C API.
fn readable(lua: &Lua) -> bool {
    // SAFETY: the check pushes two values and leaves the stack as it was.
    unsafe {
        lua.exec_raw::<bool>((), |state| {
            let top = ffi::lua_gettop(state);
            let mut ok = layout::known(state) && ffi::lua_checkstack(state, 2) != 0;
            if ok {
                let text = b"moonloop: a digest's string";
                ffi::lua_pushlstring(state, text.as_ptr().cast(), text.len());
                let p = ffi::lua_topointer(state, -1) as *const u8;
                let len = (p.add(STRING_LEN) as *const u32).read_unaligned() as usize;
                let hash = (p.add(STRING_HASH) as *const u32).read_unaligned();
                ok = len == text.len()
                    && std::slice::from_raw_parts(p.add(STRING_DATA), len) == text
                    && hash == short_hash(text);
            }
            ffi::lua_settop(state, top);
            ffi::lua_pushboolean(state, ok.into());
        })
        .unwrap_or(false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state(lua: &Lua, code: &str) -> Value {
        let value: Value = lua.load(code).eval().unwrap();
        super::super::install(lua).unwrap();
        value
    }

    // rule: R3
    #[test]
    fn equal_states_digest_alike_however_they_were_built() {
        let lua = Lua::new();
        let mut d = Digester::default();
        let a = state(
            &lua,
            "return { x = 1, y = 'two', list = { 1, 2, 3 }, v = vector.create(1, 2, 3) }",
        );
        let b = state(
            &lua,
            "local t = {}; t.v = vector.create(1, 2, 3); t.list = {}; t.list[3] = 3; t.list[1] = 1; t.list[2] = 2; t.y = 'tw' .. 'o'; t.x = 1; return t",
        );
        let c = state(
            &lua,
            "return { x = 1, y = 'two', list = { 1, 2, 4 }, v = vector.create(1, 2, 3) }",
        );
        let da = d.digest(&lua, &a).unwrap();
        let db = d.digest(&lua, &b).unwrap();
        let dc = d.digest(&lua, &c).unwrap();
        assert_eq!(da, db);
        assert_ne!(da, dc, "one number differs, three levels down");
        let swapped = state(
            &lua,
            "return { x = 'two', y = 1, list = { 1, 2, 3 }, v = vector.create(1, 2, 3) }",
        );
        assert_ne!(
            da,
            d.digest(&lua, &swapped).unwrap(),
            "keys and values are paired"
        );
        let sizes = [
            "return {}",
            "return { 0 }",
            "return { 0, 0 }",
            "return { a = {} }",
        ];
        let sized: Vec<u64> = sizes
            .iter()
            .map(|code| d.digest(&lua, &state(&lua, code)).unwrap())
            .collect();
        for (i, a) in sized.iter().enumerate() {
            for b in &sized[i + 1..] {
                assert_ne!(a, b, "tables of different sizes: {sizes:?}");
            }
        }
    }

    // rule: R3
    #[test]
    fn a_shared_table_remembered_from_the_last_state_gives_the_same_digest() {
        let lua = Lua::new();
        let mut d = Digester::default();
        let shared: Value = lua.load("return { deep = { 1, 2, 3 } }").eval().unwrap();
        let make = |n: f64| -> Value {
            let t = lua.create_table().unwrap();
            t.raw_set("shared", shared.clone()).unwrap();
            t.raw_set("n", n).unwrap();
            t.set_readonly(true);
            Value::Table(t)
        };
        let first = d.digest(&lua, &make(1.0)).unwrap();
        let second = d.digest(&lua, &make(1.0)).unwrap();
        let fresh = Digester::default().digest(&lua, &make(1.0)).unwrap();
        assert_eq!(first, second);
        assert_eq!(first, fresh, "remembering changes nothing");
        assert_ne!(first, d.digest(&lua, &make(2.0)).unwrap());
    }

    // rule: R1
    #[test]
    fn a_take_lent_a_digester_gives_the_digest_the_walk_gives() {
        let lua = Lua::new();
        super::super::install(&lua).unwrap();
        let mut lent = Digester::default();
        // The first digest finds out whether tables read in place.
        lent.digest(&lua, &Value::Boolean(true)).unwrap();
        let states: Vec<Value> = lua
            .load(
                r#"
                local big = {}
                for i = 1, 40 do big["k" .. i] = i * 1.5 end
                local balls = table.create(300)
                for i = 1, 300 do balls[i] = { x = i, y = -i, name = "b" .. i, on = i % 2 == 0 } end
                local first = { big = big, balls = balls, v = vector.create(1, 2, 3), list = { 1, 2, { 3 } } }
                local second = { big = big, balls = balls, v = vector.create(1, 2, 4), list = { 1, 2, { 3 } } }
                local third = { big = big, balls = table.clone(balls), extra = { deep = { deeper = { 0 / 0 } } },
                    sparse = { [10] = 1, [2.5] = "x", [-1] = true, [1e300] = vector.create(0, 0, 1) } }
                return { first, second, third, second }
                "#,
            )
            .eval::<Vec<Value>>()
            .unwrap();
        let mut digests = Vec::new();
        for state in &states {
            super::lend(&mut lent, || super::super::take(&lua, state)).unwrap();
            assert!(lent.taken.is_some(), "the take walked it lent");
            let fused = lent.digest(&lua, state).unwrap();
            let walked = Digester::default().digest(&lua, state).unwrap();
            assert_eq!(fused, walked, "the take's digest is the walk's");
            digests.push(fused);
        }
        assert_ne!(digests[0], digests[1], "one vector differs");
        assert_ne!(digests[1], digests[2]);
        assert_eq!(digests[1], digests[3], "the same state again");
    }
}
