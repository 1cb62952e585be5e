//! Determinism: what game code may read that could differ between runs
//! (rule H11).
//!
//! Stock Luau seeds `math.random` from the time and an address, and `os`
//! reads the wall clock and the time zone. Here `math.random` is Luau's
//! own generator (PCG32, the same numbers stock Luau gives after the same
//! `math.randomseed`) started from a seed the run chooses and a replay
//! records, and the `os` functions that read the clock say so and stop.

use std::cell::Cell;
use std::rc::Rc;

use mlua::{Lua, Table, Value};

/// The seed `math.random` starts from unless the run gives another (the
/// one a replay log without a `seed` line was recorded from).
pub use moonloop_core::replay::DEFAULT_SEED;

const PCG32_INC: u64 = 105;

/// Luau's PCG32 step (`lmathlib.cpp`), bit for bit.
fn pcg32(state: &Cell<u64>) -> u32 {
    let old = state.get();
    state.set(
        old.wrapping_mul(6364136223846793005)
            .wrapping_add(PCG32_INC | 1),
    );
    let xorshifted = (((old >> 18) ^ old) >> 27) as u32;
    let rot = (old >> 59) as u32;
    xorshifted.rotate_right(rot)
}

/// Luau's `pcg32_seed`.
fn seed(state: &Cell<u64>, seed: u64) {
    state.set(0);
    pcg32(state);
    state.set(state.get().wrapping_add(seed));
    pcg32(state);
}

/// The generator `math.random` draws from, where history can read and
/// set it (R1: a frame built again draws what it drew the first time).
struct Generator(Rc<Cell<u64>>);

/// Returns the state of `lua`'s generator.
pub fn random_state(lua: &Lua) -> Option<u64> {
    lua.app_data_ref::<Generator>().map(|g| g.0.get())
}

/// Sets the state of `lua`'s generator.
pub fn set_random_state(lua: &Lua, state: u64) {
    if let Some(g) = lua.app_data_ref::<Generator>() {
        g.0.set(state);
    }
}

/// Reads an integer argument the way `luaL_checkinteger` does.
fn integer(lua: &Lua, call: &str, position: usize, value: f64) -> mlua::Result<i32> {
    if !value.is_finite() {
        return Err(mlua::Error::RuntimeError(format!(
            "{}invalid argument #{position} to '{call}' (number has no integer representation)",
            super::location(lua, 1)
        )));
    }
    Ok(value as i32)
}

fn empty(lua: &Lua, position: usize, why: &str) -> mlua::Error {
    mlua::Error::RuntimeError(format!(
        "{}invalid argument #{position} to 'random' ({why})",
        super::location(lua, 1)
    ))
}

/// Replaces `math.random` and `math.randomseed` in `lua` with the
/// generator started from `start`, and the clock-reading `os` functions
/// with ones that refuse.
///
/// Call before the libraries are frozen.
pub fn install(lua: &Lua, start: u64) -> mlua::Result<()> {
    let state = Rc::new(Cell::new(0));
    seed(&state, start);
    lua.set_app_data(Generator(state.clone()));
    let math: Table = lua.globals().raw_get("math")?;
    let rng = state.clone();
    math.raw_set(
        "random",
        lua.create_function(move |lua, (m, n): (Option<f64>, Option<f64>)| {
            Ok(match (m, n) {
                (None, None) => {
                    let low = pcg32(&rng) as u64;
                    let high = pcg32(&rng) as u64;
                    Value::Number((low | high << 32) as f64 * (-64f64).exp2())
                }
                (Some(u), None) => {
                    let u = integer(lua, "random", 1, u)?;
                    if u < 1 {
                        return Err(empty(lua, 1, "interval is empty"));
                    }
                    let x = u as u64 * pcg32(&rng) as u64;
                    // A number: mlua's integer is i32 on wasm32, and
                    // Luau has numbers only.
                    Value::Number((1 + (x >> 32) as i64) as f64)
                }
                (low, Some(u)) => {
                    let l = integer(lua, "random", 1, low.unwrap_or(0.0))?;
                    let u = integer(lua, "random", 2, u)?;
                    if l > u {
                        return Err(empty(lua, 2, "interval is empty"));
                    }
                    let span = (u as u32).wrapping_sub(l as u32);
                    if span == u32::MAX {
                        return Err(empty(lua, 2, "interval is too large"));
                    }
                    let x = (span as u64 + 1) * pcg32(&rng) as u64;
                    Value::Number((l as i64 + (x >> 32) as i64) as f64)
                }
            })
        })?,
    )?;
    let rng = state.clone();
    math.raw_set(
        "randomseed",
        lua.create_function(move |lua, n: f64| {
            let n = integer(lua, "randomseed", 1, n)?;
            // Luau widens the int to 64 bits, sign and all.
            seed(&rng, n as i64 as u64);
            Ok(())
        })?,
    )?;
    // `tostring` of a table, function or userdata is an address, which
    // differs on every run: such a value is named by a number instead, in
    // the order tostring first meets each (`table: 1`), which stays unique
    // while the value lives. Written in Luau so that a call allocates
    // nothing on the host's heap.
    let tostring: mlua::Function = lua
        .load(TOSTRING)
        .set_name("=moonloop")
        .set_mode(mlua::prelude::LuaChunkMode::Text)
        .call(lua.globals().raw_get::<mlua::Function>("tostring")?)?;
    lua.globals().raw_set("tostring", tostring)?;
    // Luau's memory count depends on the game folder's name as the run
    // was given it (`g` or `./g`), and on the build.
    lua.globals().raw_set(
        "collectgarbage",
        lua.create_function(
            |lua, option: Option<mlua::LuaString>| -> mlua::Result<i32> {
                let option = option.map(|o| o.to_string_lossy());
                match option.as_deref() {
                    // Ported code asks for a collection now and then; the host
                    // collects on its own schedule, so this does nothing.
                    None | Some("collect") => Ok(0),
                    Some("count") => Err(mlua::Error::RuntimeError(format!(
                        "{}H11: collectgarbage(\"count\") reads the memory in use, which differs \
                     between runs and builds; a game's state cannot depend on it",
                        super::location(lua, 1)
                    ))),
                    Some(other) => Err(mlua::Error::RuntimeError(format!(
                        "{}H9: collectgarbage(\"{}\") is not offered: the host runs the \
                     collector itself (collectgarbage() and collectgarbage(\"collect\") do \
                     nothing, and are safe to leave in)",
                        super::location(lua, 1),
                        crate::terminal::line(other)
                    ))),
                }
            },
        )?,
    )?;
    // gcinfo() is the same count in kilobytes.
    lua.globals().raw_set(
        "gcinfo",
        lua.create_function(|lua, ()| -> mlua::Result<()> {
            Err(mlua::Error::RuntimeError(format!(
                "{}H11: gcinfo() reads the memory in use, which differs between runs and \
                 builds; a game's state cannot depend on it",
                super::location(lua, 1)
            )))
        })?,
    )?;
    let os: Table = lua.globals().raw_get("os")?;
    for (name, reads) in [
        ("clock", "the processor clock"),
        ("time", "the wall clock"),
        ("date", "the wall clock and the time zone"),
    ] {
        let message = format!(
            "H11: os.{name} reads {reads}, which would make two runs of the same game differ; \
             use dt, or keep time in the state (engine time is the sum of the deltas)"
        );
        os.raw_set(
            name,
            lua.create_function(move |lua, ()| -> mlua::Result<()> {
                Err(mlua::Error::RuntimeError(format!(
                    "{}{message}",
                    super::location(lua, 1)
                )))
            })?,
        )?;
    }
    Ok(())
}

/// The `tostring` that names tables, functions and userdata by number.
const TOSTRING: &str = r#"
local rawtostring = ...
local kinds = { table = true, ["function"] = true, userdata = true, thread = true, buffer = true }
local ids = setmetatable({}, { __mode = "k" })
local count = 0
return function(...)
	local text = rawtostring(...)
	local value = ...
	if kinds[type(value)] then
		local name = string.match(text, "^(.*): 0x%x+$")
		if name then
			local id = ids[value]
			if id == nil then
				count += 1
				id = count
				ids[value] = id
			end
			return name .. ": " .. id
		end
	end
	return text
end
"#;

#[cfg(test)]
mod tests {
    use super::*;

    // rule: H11
    #[test]
    fn random_is_luaus_own_generator_from_a_fixed_seed() {
        // Stock Luau, seeded the same way, is the independent reference.
        let stock = Lua::new();
        let ours = Lua::new();
        install(&ours, 0).unwrap();
        let draw = "math.randomseed(...) local t = {} for i = 1, 8 do t[#t + 1] = math.random() t[#t + 1] = math.random(6) t[#t + 1] = math.random(-3, 3) end return t";
        for seed in [0, 7, -5, 123456] {
            let a: Vec<f64> = stock.load(draw).call(seed).unwrap();
            let b: Vec<f64> = ours.load(draw).call(seed).unwrap();
            assert_eq!(a, b, "seed {seed}");
        }
        // Unseeded, two VMs agree (stock Luau would not).
        let first = || {
            let lua = Lua::new();
            install(&lua, DEFAULT_SEED).unwrap();
            lua.load("return math.random()").eval::<f64>().unwrap()
        };
        assert_eq!(first(), first());
    }

    // rule: H11
    #[test]
    fn clock_reading_functions_refuse_by_name() {
        let lua = Lua::new();
        install(&lua, 0).unwrap();
        for name in ["clock", "time", "date"] {
            let err = lua
                .load(format!("os.{name}()"))
                .exec()
                .unwrap_err()
                .to_string();
            assert!(err.contains(&format!("H11: os.{name} reads")), "{err}");
        }
        assert_eq!(
            lua.load("return os.difftime(5, 3)").eval::<f64>().unwrap(),
            2.0
        );
        let err = lua
            .load("return math.random(0)")
            .exec()
            .unwrap_err()
            .to_string();
        assert!(err.contains("interval is empty"), "{err}");
    }
}
