//! State: the value a game's frames replace (rules S2, S5, S7).
//!
//! Taking a state deep-freezes it (S2) and checks that it is plain data
//! (S5) in one walk over the Luau C API: no per-entry conversion into Rust
//! values, and no walk at all below a table an earlier take already
//! checked, so the cost follows what is new in the state rather than its
//! size. Frozen is not the same as checked: the game freezes tables itself,
//! the sandbox freezes the libraries, and a refused state leaves the tables
//! above its offender frozen; all of those are walked when they join a
//! state. A table is marked checked only once everything below it passed.
//!
//! Where the running Luau's table layout is the one [`layout`] knows, the
//! walk reads each table's slots in place, asks the API only about the
//! entries that need a look, and keeps the checked mark in the table
//! itself. Otherwise it asks the API about every entry and remembers
//! checked tables in a weak set.
//!
//! The canonical encoding (S7) sorts keys (numbers by value, then strings
//! by bytes) and writes floats exactly; `--print-state` shows it as JSON,
//! and `--state-hash` hashes a typed binary form of it, so that `1` and
//! `"1"` as keys can never collide.

use std::fmt::Write as _;

use mlua::{Lua, Value, ffi};

use layout::RawTable;

mod changes;
mod copier;
mod decoding;
mod digest;
mod encoding;
mod layout;

pub use changes::{changes, place, read_first};
pub use copier::Copier;
pub use decoding::from_json;
pub use digest::{Digester, lend as lend_digester};
pub use encoding::{MAX_JSON, copy, hash, number, to_json};

/// Registry field of the weak set of tables the walk that asks the API
/// has checked.
const CHECKED: &std::ffi::CStr = c"moonloop.checked";

/// How deep a state may nest.
pub const MAX_DEPTH: usize = 200;

/// How many entries of one table the walk leaves on the stack at once.
const BATCH: i32 = 16;

/// The rule's reminder appended to every S5 refusal.
const PLAIN_DATA: &str =
    "S5: a state is plain data: tables without metatables, strings, numbers, booleans, vectors";

/// Registry field of the host's `take` function.
const TAKE: &str = "moonloop.take";

/// What the `take` C function raises when it refuses a state: the words
/// travel beside it, typed ([`take_refusal`]), not inside it.
const REFUSED: &str = "the state was refused (S5)";

thread_local! {
    /// The last refusal of a `take` on this thread, until it is taken.
    /// A VM runs on one thread, and the binding takes the refusal as soon
    /// as the call that raised it returns.
    static REFUSAL: std::cell::RefCell<Option<Refused>> = const { std::cell::RefCell::new(None) };
}

/// Takes the refusal the last failed `take` on this thread left: why the
/// state was refused, naming its path (`state.enemies[3].think is a
/// function (S5: ...)`), or `None` when the failure was not a refusal.
pub fn take_refusal() -> Option<String> {
    taken_refusal("state")
}

/// As [`take_refusal`], with the path written from `root`.
fn taken_refusal(root: &str) -> Option<String> {
    REFUSAL
        .with(|r| r.borrow_mut().take())
        .map(|refused| refused.message(root))
}

/// Installs what taking a state needs in `lua`: the `take` C function,
/// and the weak set of checked tables for when it cannot read tables in
/// place.
pub fn install(lua: &Lua) -> mlua::Result<()> {
    let set = lua.create_table()?;
    let weak = lua.create_table()?;
    weak.raw_set("__mode", "k")?;
    set.set_metatable(Some(weak))?;
    lua.set_named_registry_value(CHECKED.to_str().unwrap(), set)?;
    install_take(lua, tables_read_in_place(lua)?)
}

/// Whether the walk can read `lua`'s tables in place ([`layout::known`]).
fn tables_read_in_place(lua: &Lua) -> mlua::Result<bool> {
    // SAFETY: `known` leaves the stack as it found it.
    unsafe {
        lua.exec_raw::<bool>((), |state| {
            let known = layout::known(state);
            ffi::lua_pushboolean(state, known.into());
        })
    }
}

/// Like [`install`], but the walk asks the C API about every entry instead
/// of reading tables in place: the reference the fuzzer compares against.
#[doc(hidden)]
pub fn install_asking_the_api(lua: &Lua) -> mlua::Result<()> {
    install(lua)?;
    install_take(lua, false)
}

/// Registers the `take` C function; `in_place`: the walk reads tables in
/// place, which needs [`layout::known`].
fn install_take(lua: &Lua, in_place: bool) -> mlua::Result<()> {
    // SAFETY: `take_c` follows the C function protocol: it reads its one
    // argument and raises errors only from its outermost frame.
    let take = unsafe {
        if in_place {
            lua.create_c_function(take_c::<true>)?
        } else {
            lua.create_c_function(take_c::<false>)?
        }
    };
    lua.set_named_registry_value(TAKE, take)
}

/// Returns the `take` function installed in `lua`: called with a value, it
/// deep-freezes it and checks it is plain data, raising an error when it
/// is not, whose words [`take_refusal`] returns.
///
/// Being a plain C function, it can be called from Luau every frame
/// without creating garbage (a protected call from Rust would make a new
/// closure each time).
pub fn take_function(lua: &Lua) -> mlua::Result<mlua::Function> {
    lua.named_registry_value(TAKE)
}

/// Deep-freezes `value` and checks it is plain data (S2, S5).
///
/// Tables an earlier take checked are not walked again.
///
/// # Errors
/// A message naming the offending path, like
/// `state.enemies[3].think is a function (S5: ...)`. Tables walked before the
/// offender may be left frozen, but not checked: they are walked again, and
/// refused again, if they come back.
pub fn take(lua: &Lua, value: &Value) -> Result<(), crate::Refusal> {
    if value.is_nil() {
        return Err("the state is nil (S4)".into());
    }
    take_as(lua, value, "state")
}

/// As [`take`], for a value the game calls something else: a refusal's
/// path starts at `root` (`the save.enemies[3] is a function`), and nil
/// is refused as any other value that is not plain data.
///
/// # Errors
/// As [`take`].
pub fn take_as(lua: &Lua, value: &Value, root: &str) -> Result<(), crate::Refusal> {
    let take = take_function(lua).map_err(|e| e.to_string())?;
    taken_refusal(root);
    take.call::<()>(value).map_err(|e| {
        taken_refusal(root)
            .unwrap_or_else(|| crate::lua::describe(&e))
            .into()
    })
}

/// The `take` function; `RAW`: read tables in place (see [`layout`]).
///
/// # Safety
/// Called by Luau only, as a C function with its argument in slot 1;
/// `RAW` only where [`layout::known`] said so.
unsafe extern "C-unwind" fn take_c<const RAW: bool>(state: *mut ffi::lua_State) -> std::ffi::c_int {
    // Everything with a destructor lives in `walk_and_report`, which has
    // returned by the time `lua_error` unwinds through this frame.
    // SAFETY: as this function's own promise.
    if unsafe { walk_and_report::<RAW>(state) } {
        // SAFETY: the message is on top, and nothing here needs dropping.
        unsafe { ffi::lua_error(state) }
    }
    0
}

/// Walks argument 1; on a refusal pushes the message and returns true.
///
/// # Safety
/// As [`take_c`].
unsafe fn walk_and_report<const RAW: bool>(state: *mut ffi::lua_State) -> bool {
    // SAFETY: slot 1 is the argument; the registry's checked set goes in
    // slot 2 and the root in slot 3, the walk's own promise (its table is
    // on top) from there.
    unsafe {
        let result = match ffi::lua_type(state, 1) {
            ffi::LUA_TTABLE => {
                ffi::lua_rawgetfield(state, ffi::LUA_REGISTRYINDEX, CHECKED.as_ptr());
                ffi::lua_pushvalue(state, 1);
                let root = RAW.then(|| RawTable::at(state, 3));
                let mut walk = Walk::<RAW> {
                    state,
                    checked: 2,
                    ancestors: [0; MAX_DEPTH],
                    raw_ancestors: [std::ptr::null(); MAX_DEPTH],
                    depth: 0,
                    reserved: 0,
                    digester: if RAW {
                        digest::lent()
                    } else {
                        std::ptr::null_mut()
                    },
                };
                walk.table(3, root).map(|d| {
                    if let (Some(root), Some(digester)) = (root, walk.digester.as_mut()) {
                        digester.took(root.addr() as usize, d);
                    }
                })
            }
            ffi::LUA_TBOOLEAN | ffi::LUA_TNUMBER | ffi::LUA_TSTRING | ffi::LUA_TVECTOR => Ok(()),
            other => Err(Refused::new(Offense::Type(type_name(other)))),
        };
        match result {
            Ok(()) => false,
            Err(refusal) => report(state, refusal),
        }
    }
}

/// Keeps `refusal` for [`take_refusal`] and pushes the error `take_c`
/// raises; returns true for it to raise it.
///
/// # Safety
/// `state` is live with room for one more slot (a C function has 20).
unsafe fn report(state: *mut ffi::lua_State, refused: Refused) -> bool {
    REFUSAL.with(|r| *r.borrow_mut() = Some(refused));
    // SAFETY: as the caller promises; the bytes are a static string's.
    unsafe { ffi::lua_pushlstring_(state, REFUSED.as_ptr() as *const _, REFUSED.len()) };
    true
}

struct Walk<const RAW: bool> {
    state: *mut ffi::lua_State,
    /// Stack index of the weak set of checked tables (when not `RAW`).
    checked: i32,
    /// Stack indices of the tables being walked, outermost first.
    ancestors: [i32; MAX_DEPTH],
    /// The same tables' addresses, when read in place.
    raw_ancestors: [*const std::ffi::c_void; MAX_DEPTH],
    depth: usize,
    /// Depth up to which the stack is known to have room.
    reserved: usize,
    /// The digester lent to this take, or null: then each table walked
    /// is digested as it is finished ([`digest`]).
    digester: *mut digest::Digester,
}

enum Offense {
    Type(&'static str),
    Metatable,
    Key(&'static str),
    Cycle,
    TooDeep,
}

enum Segment {
    Field(String),
    Index(f64),
}

struct Refused {
    offense: Offense,
    /// Innermost segment first (pushed while unwinding).
    path: Vec<Segment>,
}

impl Refused {
    fn new(offense: Offense) -> Self {
        Refused {
            offense,
            path: Vec::new(),
        }
    }

    /// The line, with the path written from `root` (`state`, `the save`).
    fn message(&self, root: &str) -> String {
        let mut path = String::from(root);
        for segment in self.path.iter().rev() {
            match segment {
                Segment::Field(name) if is_identifier(name) => {
                    let _ = write!(path, ".{name}");
                }
                Segment::Field(name) => {
                    let _ = write!(path, "[{name:?}]");
                }
                Segment::Index(n) => {
                    let _ = write!(path, "[{}]", number(*n));
                }
            }
        }
        match self.offense {
            Offense::Type(name) => format!("{path} is a {name} ({PLAIN_DATA})"),
            Offense::Metatable => format!("{path} has a metatable ({PLAIN_DATA})"),
            Offense::Key(name) => {
                format!("{path} has a key that is a {name} (S5: keys are strings or numbers)")
            }
            Offense::Cycle => format!(
                "{path} refers back to a table that holds it (S5: a state is a tree of plain data)"
            ),
            Offense::TooDeep => format!("{path} nests more than {MAX_DEPTH} tables deep (S5)"),
        }
    }
}

fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

impl<const RAW: bool> Walk<RAW> {
    /// Walks the table at stack index `idx`, which must be the top; `raw`
    /// is the same table read in place, when the layout is known.
    ///
    /// Keeping the table on top lets the walk find each key at `idx + 1`
    /// and value at `idx + 2` without asking Luau: every C API call costs a
    /// few nanoseconds, and a state of 1,000 new tables makes thousands.
    ///
    /// Returns the table's digest when a digester is lent, else 0.
    ///
    /// # Safety
    /// `self.state` is the take call's live thread, the table is at `idx`
    /// on top of its stack, and `raw`, when given, is that table.
    unsafe fn table(&mut self, idx: i32, raw: Option<RawTable>) -> Result<u64, Refused> {
        // SAFETY: as the promise above; every value pushed is popped
        // before return, and the stack is grown (`reserve_stack`) before
        // each level's batch is pushed.
        unsafe {
            let state = self.state;
            let frozen = match raw {
                Some(raw) => raw.readonly(),
                None => ffi::lua_getreadonly(state, idx) != 0,
            };
            if frozen {
                if self.is_checked(idx, raw) {
                    return Ok(match (raw, self.digester.as_mut()) {
                        (Some(raw), Some(digester)) => digester.checked_table(raw),
                        _ => 0,
                    });
                }
                // Frozen but never checked: walk it. Unless it is being
                // walked now, which makes a cycle.
                let ancestor = match raw {
                    Some(raw) => self.raw_ancestors[..self.depth].contains(&raw.addr()),
                    None => self.ancestors[..self.depth]
                        .iter()
                        .any(|&a| ffi::lua_rawequal(state, a, idx) != 0),
                };
                if ancestor {
                    return Err(Refused::new(Offense::Cycle));
                }
            }
            let has_metatable = match raw {
                Some(raw) => raw.has_metatable(),
                None => !ffi::lua_getmetatablepointer(state, idx).is_null(),
            };
            if has_metatable {
                return Err(Refused::new(Offense::Metatable));
            }
            if self.depth == MAX_DEPTH || !self.reserve_stack() {
                return Err(Refused::new(Offense::TooDeep));
            }
            // Freezing before the children makes a cycle meet a frozen table
            // (and the ancestor check) instead of recursing forever.
            if !frozen {
                match raw {
                    Some(raw) => raw.freeze(),
                    None => ffi::lua_setreadonly(state, idx, 1),
                }
            }
            self.ancestors[self.depth] = idx;
            if let Some(raw) = raw {
                self.raw_ancestors[self.depth] = raw.addr();
            }
            self.depth += 1;
            let result = self.entries(idx, raw);
            self.depth -= 1;
            let sums = result?;
            self.mark_checked(idx, raw);
            Ok(match (raw, self.digester.as_mut()) {
                (Some(raw), Some(digester)) => digester.walked_table(raw, sums),
                _ => 0,
            })
        }
    }

    /// Walks the entries of the table at `idx`, the top of the stack.
    /// Returns, when a digester is lent and the table is read in place,
    /// the sum of its entries' parts of its digest and their count (every
    /// table entry is visited then; the plain ones are summed as they are
    /// passed over).
    ///
    /// # Safety
    /// As [`Walk::table`].
    unsafe fn entries(&mut self, idx: i32, raw: Option<RawTable>) -> Result<digest::Sums, Refused> {
        // SAFETY: as [`Walk::table`]: keys and values are pushed in
        // batches the stack was grown for, and the top is put back to
        // `idx` before return; a raw read sees a table on the stack.
        unsafe {
            let state = self.state;
            let digesting = !self.digester.is_null();
            let mut sums = digest::Sums::default();
            // Entries pile up on the stack and are popped in batches: one
            // `lua_settop` per entry would cost a tenth of the walk.
            let mut key = idx + 1;
            let mut iter = 0;
            let result = loop {
                if key > idx + 2 * BATCH {
                    ffi::lua_settop(state, idx);
                    key = idx + 1;
                }
                let value = key + 1;
                // The entry's key and value types, and the value in place.
                let (key_type, key_bits, value_type, child) = match raw {
                    Some(raw) => {
                        // Skip what needs no look; the API pushes the rest.
                        let next = if digesting {
                            raw.next_to_check(iter, true, &mut sums)
                        } else {
                            raw.next_to_check(iter, false, &mut ())
                        };
                        let Some(slot) = next else {
                            break Ok(sums);
                        };
                        iter = ffi::lua_rawiter(state, idx, slot.iter);
                        (slot.key_type, slot.key_bits, slot.value_type, slot.table)
                    }
                    None => {
                        iter = ffi::lua_rawiter(state, idx, iter);
                        if iter < 0 {
                            break Ok(sums);
                        }
                        (
                            ffi::lua_type(state, key),
                            0,
                            ffi::lua_type(state, value),
                            None,
                        )
                    }
                };
                let outcome = match value_type {
                    ffi::LUA_TBOOLEAN | ffi::LUA_TNUMBER | ffi::LUA_TSTRING | ffi::LUA_TVECTOR => {
                        Ok(None)
                    }
                    ffi::LUA_TTABLE => self.table(value, child).map(Some),
                    other => Err(Refused::new(Offense::Type(type_name(other)))),
                };
                if key_type != ffi::LUA_TSTRING && key_type != ffi::LUA_TNUMBER {
                    break Err(Refused::new(Offense::Key(type_name(key_type))));
                }
                match outcome {
                    Err(mut refusal) => {
                        refusal.path.push(segment(state, key));
                        break Err(refusal);
                    }
                    Ok(Some(digest)) if digesting => {
                        let key = layout::Raw {
                            tt: key_type,
                            bits: key_bits,
                            extra: 0,
                        };
                        sums.add(digest::plain(key), digest);
                    }
                    Ok(_) => {}
                }
                key += 2;
            };
            if key != idx + 1 {
                ffi::lua_settop(state, idx);
            }
            result
        }
    }

    /// Whether an earlier walk checked the frozen table at `idx`.
    ///
    /// # Safety
    /// As [`Walk::table`].
    unsafe fn is_checked(&self, idx: i32, raw: Option<RawTable>) -> bool {
        if let Some(raw) = raw {
            // SAFETY: `raw` is the table at `idx`, alive on the stack.
            return unsafe { raw.checked() };
        }
        // SAFETY: one slot pushed (the stack has room: `reserve_stack`)
        // and the top put back.
        unsafe {
            ffi::lua_pushvalue(self.state, idx);
            let checked = ffi::lua_rawget(self.state, self.checked) != ffi::LUA_TNIL;
            ffi::lua_settop(self.state, idx);
            checked
        }
    }

    /// Marks the table at `idx`, the top of the stack, as checked.
    ///
    /// # Safety
    /// As [`Walk::table`].
    unsafe fn mark_checked(&self, idx: i32, raw: Option<RawTable>) {
        if let Some(raw) = raw {
            // SAFETY: `raw` is the table at `idx`, alive on the stack.
            return unsafe { raw.mark_checked() };
        }
        // SAFETY: two slots pushed and taken by `lua_rawset` (the stack
        // has room: `reserve_stack`).
        unsafe {
            ffi::lua_pushvalue(self.state, idx);
            ffi::lua_pushboolean(self.state, 1);
            ffi::lua_rawset(self.state, self.checked);
        }
    }

    /// Makes sure the stack has room for the tables at this depth and a few
    /// below: a batch of keys and values each, and the checked-set lookup.
    /// Asks Luau only every few levels.
    ///
    /// # Safety
    /// `self.state` is the take call's live thread.
    unsafe fn reserve_stack(&mut self) -> bool {
        const LEVELS: usize = 8;
        if self.depth < self.reserved {
            return true;
        }
        self.reserved = self.depth + LEVELS;
        // SAFETY: as the promise above.
        unsafe { ffi::lua_checkstack(self.state, (2 * BATCH + 4) * LEVELS as i32) != 0 }
    }
}

/// The path segment a key at `idx` makes (a number or a field name).
///
/// # Safety
/// `state` is live and `idx` holds a number or a string.
unsafe fn segment(state: *mut ffi::lua_State, idx: i32) -> Segment {
    // SAFETY: a string slot gives `len` bytes that live while the key is
    // on the stack, past this copy.
    unsafe {
        if ffi::lua_type(state, idx) == ffi::LUA_TNUMBER {
            Segment::Index(ffi::lua_tonumber(state, idx))
        } else {
            let mut len = 0;
            let ptr = ffi::lua_tolstring(state, idx, &mut len);
            let bytes = std::slice::from_raw_parts(ptr as *const u8, len);
            Segment::Field(String::from_utf8_lossy(bytes).into_owned())
        }
    }
}

fn type_name(t: i32) -> &'static str {
    match t {
        ffi::LUA_TNIL => "nil",
        ffi::LUA_TBOOLEAN => "boolean",
        ffi::LUA_TLIGHTUSERDATA | ffi::LUA_TUSERDATA => "userdata",
        ffi::LUA_TNUMBER => "number",
        ffi::LUA_TVECTOR => "vector",
        ffi::LUA_TSTRING => "string",
        ffi::LUA_TTABLE => "table",
        ffi::LUA_TFUNCTION => "function",
        ffi::LUA_TTHREAD => "thread (coroutine)",
        ffi::LUA_TBUFFER => "buffer",
        _ => "value the host does not know",
    }
}

/// Returns the Luau name of `value`'s type (`number` for integers too).
pub fn type_of(value: &Value) -> &'static str {
    match value {
        Value::Integer(_) | Value::Number(_) => "number",
        Value::Thread(_) => "thread (coroutine)",
        other => other.type_name(),
    }
}

#[cfg(test)]
mod tests;
