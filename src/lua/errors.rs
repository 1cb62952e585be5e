//! Errors: the one line a game author reads when game code fails, and the
//! handler that makes it at the boundary between host and game.
//!
//! Every call from the host into game code (`init`, `update`, `render`,
//! `reload`, a transition) runs through a trampoline that calls it under
//! `xpcall` with [`explain`] as the handler. The handler turns whatever
//! the game raised into a message with the author's `file:line`: a table
//! (`error({})`), a value whose `__tostring` fails, loops or yields, an
//! `error(msg, 2)` that would blame the host's trampoline. A string that
//! already has its place, and the host's own errors, pass untouched,
//! which keeps a failing frame allocation-free where it can be.

use std::ffi::{CStr, c_int};

use mlua::ffi;

/// The host's trampolines, loaded as the `moonloop` chunk: `taking`
/// calls a function and takes its result as the state (S2, S5) inside
/// Luau, so the check needs no protected call from Rust each frame;
/// `calling` calls one whose result is not a state (`render`); `asking`
/// returns what it returns (a seek predicate's answer).
pub const TRAMPOLINES: &str = r#"
local take, explain, xpcall = ...
local function taking(f, a, b, c)
    local ok, next = xpcall(f, explain, a, b, c)
    if not ok then
        error(next, 0)
    end
    if next ~= nil then
        take(next)
    end
    return next
end
local function calling(f, a, b, c)
    local ok, err = xpcall(f, explain, a, b, c)
    if not ok then
        error(err, 0)
    end
end
local function asking(f, a, b)
    local ok, answer = xpcall(f, explain, a, b)
    if not ok then
        error(answer, 0)
    end
    return answer
end
return taking, calling, asking
"#;

/// The chunk name of the trampolines, which errors must never blame.
const HOST_CHUNK: &str = "moonloop";

/// What Luau raises when an allocation fails (it is preallocated).
const OUT_OF_MEMORY: &str = "not enough memory";

/// How the one line for a game that passed its memory cap begins.
pub const RAN_OUT_OF_MEMORY: &str = "H9: the game ran out of memory";

/// Creates the [`explain`] handler as a Luau function.
pub fn handler(lua: &mlua::Lua) -> mlua::Result<mlua::Function> {
    // SAFETY: `explain` follows the C function protocol: one argument in,
    // one result out, and it raises nothing.
    unsafe { lua.create_c_function(explain) }
}

/// The `xpcall` handler: returns the error value as the author should
/// read it (see the module's doc).
///
/// # Safety
/// Called by Luau only, as a C function, with a live `state` whose slot 1
/// holds the raised value.
unsafe extern "C-unwind" fn explain(state: *mut ffi::lua_State) -> c_int {
    // SAFETY: `state` is live and slot 1 exists (the C function protocol);
    // the helpers below read slot 1 and push at most what they pop.
    unsafe {
        let message = match ffi::lua_type(state, 1) {
            // mlua's wrapped Rust errors (a budget stop, a refused call):
            // they carry their place already and must stay typed.
            ffi::LUA_TUSERDATA | ffi::LUA_TLIGHTUSERDATA => return 1,
            ffi::LUA_TSTRING => {
                let text = string_at(state, 1);
                if text == OUT_OF_MEMORY {
                    // Nothing may be allocated now.
                    return 1;
                }
                match strip_host_place(&text) {
                    Some(rest) => rest.to_string(),
                    None if has_place(&text) => return 1,
                    None => text,
                }
            }
            other => match describe_value(state, other) {
                Ok(message) => message,
                Err(()) => return 1,
            },
        };
        let place = author_place(state);
        let line = format!("{place}{message}");
        ffi::lua_pushlstring_(state, line.as_ptr() as *const _, line.len());
        1
    }
}

/// Turns a raised value that is not a string into words: its
/// `__tostring` when that works, else what it is. `Err` leaves the
/// host's own error (a budget stop) on top of the stack instead.
///
/// # Safety
/// `state` is live, inside a C function, with the raised value in slot 1
/// and `kind` its type.
unsafe fn describe_value(state: *mut ffi::lua_State, kind: c_int) -> Result<String, ()> {
    // SAFETY: slot 1 exists (the caller's promise); each call pushes at
    // most three values, which Luau's minimum stack of a C function
    // holds, and `lua_settop(state, 1)` takes them off again.
    unsafe {
        let type_name = match kind {
            ffi::LUA_TNIL => "nil",
            ffi::LUA_TBOOLEAN => "boolean",
            ffi::LUA_TNUMBER => "number",
            ffi::LUA_TVECTOR => "vector",
            ffi::LUA_TTABLE => "table",
            ffi::LUA_TFUNCTION => "function",
            ffi::LUA_TTHREAD => "thread",
            ffi::LUA_TBUFFER => "buffer",
            _ => "value",
        };
        if kind == ffi::LUA_TNUMBER || kind == ffi::LUA_TBOOLEAN {
            let mut len = 0;
            let text = ffi::luaL_tolstring_(state, 1, &mut len);
            let text = bytes(text, len);
            ffi::lua_settop(state, 1);
            return Ok(format!("error raised with the {type_name} {text}"));
        }
        if ffi::luaL_getmetafield_(state, 1, c"__tostring".as_ptr()) != ffi::LUA_TNIL {
            // Called protected: a `__tostring` that errors, yields or loops
            // (the budget stops it) must not lose the error it describes.
            ffi::lua_pushvalue(state, 1);
            let status = ffi::lua_pcall(state, 1, 1, 0);
            if status != ffi::LUA_OK && ffi::lua_type(state, -1) == ffi::LUA_TUSERDATA {
                // The host stopped the `__tostring` (its budget ran out):
                // that stop, with its place, is the error to report.
                return Err(());
            }
            let result = if status == ffi::LUA_OK && ffi::lua_type(state, -1) == ffi::LUA_TSTRING {
                Ok(string_at(state, -1))
            } else if status == ffi::LUA_OK {
                Err("returned no string".to_string())
            } else if ffi::lua_type(state, -1) == ffi::LUA_TSTRING {
                Err(format!("failed: {}", first_line(&string_at(state, -1))))
            } else {
                Err("failed".to_string())
            };
            ffi::lua_settop(state, 1);
            return Ok(match result {
                Ok(text) => text,
                Err(why) => format!("error raised with a {type_name} whose __tostring {why}"),
            });
        }
        Ok(format!(
            "error raised with a {type_name}, not a message (error() takes a string, or a table \
             with __tostring)"
        ))
    }
}

/// Returns `"file:line: "` for the innermost frame of the author's code
/// on the stack (not the host's trampoline), or `""`.
///
/// # Safety
/// `state` is a live thread.
unsafe fn author_place(state: *mut ffi::lua_State) -> String {
    // SAFETY: `lua_getinfo` fills a zeroed `lua_Debug` (all of whose
    // fields may be zero) for a level it reports present; the strings it
    // points at live as long as the frame, longer than this copy.
    unsafe {
        for level in 1..64 {
            let mut ar: ffi::lua_Debug = std::mem::zeroed();
            if ffi::lua_getinfo(state, level, c"sl".as_ptr(), &mut ar) == 0 {
                break;
            }
            let what = cstr(ar.what);
            let short = cstr(ar.short_src);
            if what == "Lua" && short != HOST_CHUNK && ar.currentline > 0 {
                return format!("{short}:{}: ", ar.currentline);
            }
        }
        String::new()
    }
}

/// Copies a C string.
///
/// # Safety
/// `ptr` is null or points at a NUL-terminated string.
unsafe fn cstr(ptr: *const std::ffi::c_char) -> String {
    if ptr.is_null() {
        return String::new();
    }
    // SAFETY: not null, and NUL-terminated (the caller's promise).
    unsafe { CStr::from_ptr(ptr).to_string_lossy().into_owned() }
}

/// Copies the string at stack slot `idx`.
///
/// # Safety
/// `state` is live and `idx` a valid slot.
unsafe fn string_at(state: *mut ffi::lua_State, idx: c_int) -> String {
    // SAFETY: `lua_tolstring` on a valid slot gives null or `len` bytes
    // that live while the value stays on the stack, past this copy.
    unsafe {
        let mut len = 0;
        let ptr = ffi::lua_tolstring(state, idx, &mut len);
        bytes(ptr, len)
    }
}

/// Copies `len` bytes at `ptr` (at most 64 KiB of them) as text.
///
/// # Safety
/// `ptr` is null or points at `len` readable bytes.
unsafe fn bytes(ptr: *const std::ffi::c_char, len: usize) -> String {
    if ptr.is_null() {
        return String::new();
    }
    // A message is one line; at most this much of a huge one is kept.
    let len = len.min(64 << 10);
    // SAFETY: not null, and at least `len` bytes (the caller's promise).
    let slice = unsafe { std::slice::from_raw_parts(ptr as *const u8, len) };
    String::from_utf8_lossy(slice).into_owned()
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or("")
}

/// Returns what follows a `moonloop:N: ` place (an `error(msg, 2)` that
/// named the host's trampoline), or `None`.
fn strip_host_place(text: &str) -> Option<&str> {
    let rest = text.strip_prefix(HOST_CHUNK)?.strip_prefix(':')?;
    let (line, rest) = rest.split_once(": ")?;
    line.bytes().all(|b| b.is_ascii_digit()).then_some(rest)
}

/// Says whether `text` starts with `file:line: `.
fn has_place(text: &str) -> bool {
    text.split_once(": ").is_some_and(|(head, _)| {
        head.rsplit_once(':').is_some_and(|(file, line)| {
            !file.is_empty() && !line.is_empty() && line.bytes().all(|b| b.is_ascii_digit())
        })
    })
}

/// Shortens `a:1: b:2: b:2: ... c:3: why`, an error passed up through
/// nested coroutines (each `coroutine.wrap` adds its place), to its first
/// and last places and the reason, which would otherwise be cut off the
/// end of the line.
fn collapse_places(text: String) -> String {
    let mut places = Vec::new();
    let mut rest = text.as_str();
    while has_place(rest) {
        let (_, after) = rest.split_once(": ").expect("has a place");
        places.push(&rest[..rest.len() - after.len()]);
        rest = after;
    }
    if places.len() <= 3 {
        return text;
    }
    format!(
        "{}{}{rest} (passed up through {} places between)",
        places[0],
        places[places.len() - 1],
        places.len() - 2
    )
}

/// Returns the first `file:line` of the author's code in a Luau traceback.
fn traceback_place(traceback: &str) -> Option<&str> {
    traceback
        .lines()
        .map(str::trim)
        .find(|l| {
            !l.is_empty()
                && !l.starts_with("[C]")
                && !l.starts_with("moonloop:")
                && !l.starts_with("stack traceback")
        })
        .and_then(|l| l.split_once(": in ").map(|(place, _)| place))
        .filter(|place| has_place(&format!("{place}: ")))
}

/// Turns what `function` (named `name`) returned through the taking
/// trampoline into the next state, or the error its author reads (S4,
/// S5).
///
/// A call returning nothing reads as nil: telling the two apart would
/// cost a heap allocation every frame.
pub(super) fn accept(
    function: &mlua::Function,
    name: &str,
    result: mlua::Result<mlua::Value>,
) -> crate::Result<mlua::Value> {
    use crate::Error;
    use mlua::Value;
    match result {
        Ok(Value::Nil) => Err(Error::Script(failure_in(
            function,
            format!(
                "S4: {name} returned nil; return the next state (the host kept the state it had)"
            ),
        ))),
        Ok(value) => Ok(value),
        Err(err) => Err(match crate::state::take_refusal() {
            Some(why) => Error::Script(failure_in(
                function,
                format!("{name} returned a state where {why}"),
            )),
            None => script(err),
        }),
    }
}

/// A failure placed where `function` is defined.
fn failure_in(function: &mlua::Function, what: String) -> crate::Failure {
    let info = function.info();
    let line = info.line_defined.and_then(|l| u32::try_from(l).ok());
    crate::Failure {
        at: info.short_src.map(|file| crate::Spot { file, line }),
        what,
    }
}

/// Turns an error raised in Luau into the host's error, worded for the
/// author by [`describe`].
pub(super) fn script(err: mlua::Error) -> crate::Error {
    if out_of_memory(&err) {
        crate::Error::OutOfMemory(describe(&err).into())
    } else {
        crate::Error::script(describe(&err))
    }
}

/// Says whether `err` is Luau running out of the memory it may hold,
/// however mlua wrapped it (as [`describe`] words it).
fn out_of_memory(err: &mlua::Error) -> bool {
    match err {
        mlua::Error::MemoryError(_) => true,
        mlua::Error::RuntimeError(msg) => msg.starts_with(OUT_OF_MEMORY),
        mlua::Error::CallbackError { cause, .. } | mlua::Error::WithContext { cause, .. } => {
            out_of_memory(cause)
        }
        _ => false,
    }
}

/// Gives `err` the type that says the call was stopped for its time
/// budget, when `budget` stopped the last call it ran (H9).
pub(super) fn stopped_by(budget: &super::vm::Budget, err: crate::Error) -> crate::Error {
    match err {
        crate::Error::Script(failure) if budget.last_call_stopped() => {
            crate::Error::Stopped(failure)
        }
        other => other,
    }
}

/// Turns an mlua error into the one line a game author reads: the Luau
/// message (which starts with `file:line:`), without the traceback and
/// without mlua's wrapping, with the rule and fix added where Luau's own
/// words would not say them.
pub fn describe(err: &mlua::Error) -> String {
    let text = match err {
        mlua::Error::CallbackError { cause, traceback } => {
            // A host function refused its arguments: the traceback's first
            // Luau frame is the author's call.
            let text = describe(cause);
            return match traceback_place(traceback) {
                Some(place) if !has_place(&text) => format!("{place}: {text}"),
                _ => text,
            };
        }
        mlua::Error::WithContext { context, cause } => {
            return format!("{context}: {}", describe(cause));
        }
        // A memory error re-raised by a trampoline reads as a string.
        mlua::Error::RuntimeError(msg) if msg.starts_with(OUT_OF_MEMORY) => {
            return describe(&mlua::Error::MemoryError(msg.clone()));
        }
        mlua::Error::BadArgument {
            to,
            pos,
            name,
            cause,
        } => {
            return bad_argument(to.as_deref(), *pos, name.as_deref(), cause);
        }
        mlua::Error::RuntimeError(msg) => msg.clone(),
        mlua::Error::SyntaxError { message, .. } => message.clone(),
        mlua::Error::MemoryError(_) => format!(
            "{RAN_OUT_OF_MEMORY}: it passed its memory cap (512 MiB unless config.memory \
             lowers it or --memory raises it; look for a table that grows every frame)"
        ),
        mlua::Error::ExternalError(e) => e.to_string(),
        other => other.to_string(),
    };
    let (message, traceback) = text.split_once("\nstack traceback:").unwrap_or((&text, ""));
    let mut text = message.trim_end().lines().next().unwrap_or("").to_string();
    // An error raised inside a built-in (`rawset`, `setmetatable`) carries
    // no place; the traceback's first Luau frame is the author's line.
    // (The host's own trampoline chunk, `moonloop`, is not the author's;
    // a refused state is named by the binding, which knows the function.)
    if !has_place(&text)
        && let Some(place) = traceback_place(traceback)
    {
        text = format!("{place}: {text}");
    }
    let text = collapse_places(text);
    if text.contains("attempt to modify a readonly table") {
        return format!(
            "{text} (S3: the state is frozen, as are the libraries; return a new table instead, table.clone copies one)"
        );
    }
    if text.contains("stack overflow") {
        return format!("{text} (H9: recursion too deep)");
    }
    text
}

/// Words for an argument mlua could not convert: a handle method called
/// with a dot instead of a colon, or a value of the wrong type.
fn bad_argument(to: Option<&str>, pos: usize, name: Option<&str>, cause: &mlua::Error) -> String {
    // mlua names a method `ScreenHandle.rect`; the author wrote `screen:rect`.
    let call = to.map(|to| {
        let (handle, method) = to.split_once('.').unwrap_or(("", to));
        match handle.strip_suffix("Handle") {
            Some(handle) => format!("{}:{method}", handle.to_ascii_lowercase()),
            None => to.to_string(),
        }
    });
    let method = call.as_deref().is_some_and(|c| c.contains(':'));
    let call = call.as_deref().unwrap_or("a host function");
    if name == Some("self") {
        let dotted = call.replacen(':', ".", 1);
        return format!("{dotted}(...) was called with a dot; call it with a colon: {call}(...)");
    }
    let what = match cause {
        // A number where a whole one goes (a count of frames): 1.5, NaN
        // or 1e308 is a number, but not one the host can count to.
        mlua::Error::FromLuaConversionError { from, to, .. }
            if luau_type(from) == "number" && to.starts_with(['u', 'i']) =>
        {
            let sign = if to.starts_with('u') {
                ", 0 or more,"
            } else {
                ""
            };
            format!(
                "a whole number{sign} was expected; this one has a fraction, is too large or is NaN"
            )
        }
        mlua::Error::FromLuaConversionError { from, to, .. } => {
            format!(
                "a {} was expected, not a {}",
                luau_type(to),
                luau_type(from)
            )
        }
        other => describe(other),
    };
    // mlua counts a method's `self` as argument 1; the author does not.
    let pos = if method { pos.saturating_sub(1) } else { pos };
    format!("{call}: argument {pos}: {what}")
}

/// Names a type as Luau does, whatever name Rust or mlua gave it.
fn luau_type(name: &str) -> &str {
    match name {
        "f64" | "f32" | "i64" | "i32" | "u64" | "u32" | "usize" | "isize" | "integer"
        | "Integer" | "Number" => "number",
        "String" | "LuaString" | "str" | "BString" => "string",
        "Table" => "table",
        "Function" => "function",
        "bool" | "Boolean" => "boolean",
        "Vector" => "vector",
        other => other,
    }
}
