//! Where code is, as a game sees it (rule H11).
//!
//! Errors name a game's files by the folder the run was given, so the
//! author can open them: `g/main.luau:6`, or `./g/main.luau:6`, or a whole
//! path. A game that keeps such a message in its state (a caught error, a
//! `debug.info` source, a traceback) would then hold a different state
//! for `moonloop run g` than for `moonloop run ./g`, and a replay recorded
//! one way would diverge played the other. So what game code reads
//! names its files from the game folder (`main.luau:6`), whatever the run
//! was given: the functions that hand it such text (`pcall`, `xpcall`,
//! `coroutine.resume`, `coroutine.close`, `debug.info`, `debug.traceback`)
//! take the folder off. The host still prints the folder in what it
//! reports, through the untouched `xpcall` it keeps for itself.

use mlua::{Function, Lua, LuaString};

/// The wrappers, in Luau: each calls the stock function and takes the
/// folder off the text it returns. Levels are one deeper for the wrapper.
const WRAPPERS: &str = r##"
local rawpcall, rawxpcall, rawresume, rawclose, rawinfo, rawtraceback, strip, describe = ...
local function clean(e)
	if type(e) == "string" then
		return strip(e)
	elseif type(e) == "userdata" then
		-- A host call's refusal: the line the author would read.
		return describe(e)
	end
	return e
end
local function fix(ok, ...)
	if ok then
		return ok, ...
	end
	return false, clean((...))
end
local function cleanall(...)
	local n = select("#", ...)
	if n == 1 then
		return clean((...))
	end
	local t = table.pack(...)
	for i = 1, n do
		t[i] = clean(t[i])
	end
	return table.unpack(t, 1, n)
end
local function pcall(f, ...)
	return fix(rawpcall(f, ...))
end
local function xpcall(f, handler, ...)
	if type(handler) ~= "function" then
		-- Stock xpcall refuses it, in its own words.
		return rawxpcall(f, handler, ...)
	end
	return fix(rawxpcall(f, function(e)
		return handler(clean(e))
	end, ...))
end
local function resume(co, ...)
	return fix(rawresume(co, ...))
end
local function close(co)
	return fix(rawclose(co))
end
local function info(a, ...)
	if type(a) == "number" then
		return cleanall(rawinfo(a + 1, ...))
	end
	return cleanall(rawinfo(a, ...))
end
local function traceback(a, b, c)
	if type(a) == "thread" then
		return clean(rawtraceback(a, b, c))
	end
	return clean(rawtraceback(a, (b or 1) + 1))
end
return pcall, xpcall, resume, close, info, traceback
"##;

/// Takes `folder/` off the places in `text` where it starts a file's
/// name: at the start, or after a space, a quote or a bracket.
fn strip(text: &[u8], folder: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len());
    let mut i = 0;
    while i < text.len() {
        let boundary = i == 0 || b" \t\n\r(<[\"'`".contains(&text[i - 1]);
        if boundary && text[i..].starts_with(folder) && text.get(i + folder.len()) == Some(&b'/') {
            i += folder.len() + 1;
            continue;
        }
        out.push(text[i]);
        i += 1;
    }
    out
}

/// Installs the wrappers in `lua`, for a game whose files are shown under
/// `folder` (nothing to do when they are shown from the folder itself).
/// Returns the stock `xpcall`, for the host's own calls.
///
/// # Errors
/// Only if Luau fails to build the functions.
pub fn install(lua: &Lua, folder: &str) -> mlua::Result<Function> {
    let globals = lua.globals();
    let raw_xpcall: Function = globals.raw_get("xpcall")?;
    let folder = folder.trim_end_matches('/');
    let folder = match folder {
        "" | "." => Vec::new(),
        folder => folder.as_bytes().to_vec(),
    };
    let folder = std::rc::Rc::new(folder);
    let stripping = folder.clone();
    let stripper = lua.create_function(move |lua, text: LuaString| {
        let bytes = text.as_bytes();
        if stripping.is_empty()
            || !bytes
                .windows(stripping.len())
                .any(|w| w == stripping.as_slice())
        {
            return Ok(text);
        }
        lua.create_string(strip(&bytes, &stripping))
    })?;
    // A refusal from a host function reaches a game's pcall as mlua's
    // error value, whose text is a whole traceback naming the folder;
    // the game gets the one line the host would print, from the folder.
    let describer = lua.create_function(move |lua, e: mlua::Value| match e {
        mlua::Value::Error(err) => {
            let line = super::errors::describe(&err);
            let line = match folder.is_empty() {
                true => line.into_bytes(),
                false => strip(line.as_bytes(), &folder),
            };
            lua.create_string(line).map(mlua::Value::String)
        }
        other => Ok(other),
    })?;
    let coroutine: mlua::Table = globals.raw_get("coroutine")?;
    let debug: mlua::Table = globals.raw_get("debug")?;
    let (pcall, xpcall, resume, close, info, traceback): (
        Function,
        Function,
        Function,
        Function,
        Function,
        Function,
    ) = lua
        .load(WRAPPERS)
        .set_name("=moonloop")
        .set_mode(mlua::prelude::LuaChunkMode::Text)
        .call((
            globals.raw_get::<Function>("pcall")?,
            raw_xpcall.clone(),
            coroutine.raw_get::<Function>("resume")?,
            coroutine.raw_get::<Function>("close")?,
            debug.raw_get::<Function>("info")?,
            debug.raw_get::<Function>("traceback")?,
            stripper,
            describer,
        ))?;
    globals.raw_set("pcall", pcall)?;
    globals.raw_set("xpcall", xpcall)?;
    coroutine.raw_set("resume", resume)?;
    coroutine.raw_set("close", close)?;
    debug.raw_set("info", info)?;
    debug.raw_set("traceback", traceback)?;
    Ok(raw_xpcall)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_folder_comes_off_where_a_file_name_starts() {
        let s = |t: &str, f: &str| String::from_utf8(strip(t.as_bytes(), f.as_bytes())).unwrap();
        assert_eq!(s("g/main.luau:6: boom", "g"), "main.luau:6: boom");
        assert_eq!(
            s("./g/a.luau:1 function f\n./g/main.luau:3", "./g"),
            "a.luau:1 function f\nmain.luau:3"
        );
        // Not inside another word.
        assert_eq!(s("a bug/g/x", "g"), "a bug/g/x");
        assert_eq!(s("in `g/x.png`", "g"), "in `x.png`");
        assert_eq!(s("g", "g"), "g");
    }

    // rule: H11
    #[test]
    fn what_game_code_reads_names_files_from_the_game_folder() {
        let lua = Lua::new();
        let raw = install(&lua, "./g").unwrap();
        let code = r#"
            local function boom() error("boom") end
            local _, caught = pcall(boom)
            local _, handled = xpcall(boom, function(e) return e end)
            local co = coroutine.create(boom)
            local _, resumed = coroutine.resume(co)
            return caught, handled, resumed, debug.info(1, "s"), debug.traceback("t")
        "#;
        let got: (String, String, String, String, String) =
            lua.load(code).set_name("@./g/main.luau").eval().unwrap();
        assert_eq!(got.0, "main.luau:2: boom");
        assert_eq!(got.1, "main.luau:2: boom");
        assert_eq!(got.2, "main.luau:2: boom");
        assert_eq!(got.3, "main.luau");
        // A handler that is not a function is refused as stock Luau does.
        let refused = lua.load("return xpcall(print, nil)").exec().unwrap_err();
        assert!(refused.to_string().contains("xpcall"), "{refused}");
        assert!(got.4.starts_with("t\nmain.luau:7"), "{}", got.4);
        // The host's own xpcall still sees the folder.
        let f: Function = lua
            .load("return function() error('boom') end")
            .set_name("@./g/main.luau")
            .eval()
            .unwrap();
        let (_, e): (bool, String) = raw
            .call((f, lua.create_function(|_, e: String| Ok(e)).unwrap()))
            .unwrap();
        assert_eq!(e, "./g/main.luau:1: boom");
    }
}
