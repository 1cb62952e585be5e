//! Native code, one module a frame once the game runs.
//!
//! Luau compiles a module to machine code in about a million instructions
//! a function: for pong's 40 functions that was three quarters of a
//! headless one-frame run (measured with callgrind, `moonloop run
//! games/pong --headless --frames 1`). Modules therefore load into the
//! interpreter, which starts at once, and each frame that runs `update`
//! compiles the next module waiting; closures already made from a module
//! run natively from their next call. Luau's native code computes what its
//! interpreter does, so a frame's state is the same either way (N1 and the
//! hashes of every example game check it).

use std::collections::VecDeque;

use mlua::{Function, Lua};

/// The modules waiting for native code, oldest first.
#[derive(Default)]
struct Waiting {
    modules: VecDeque<Function>,
    /// Off once code is reloaded: native code lives in an arena Luau never
    /// gives back, so compiling every edit would grow the process by about
    /// 16 KiB per reload of a small file (measured with moonloop soak).
    /// Restarting the game brings native speed back.
    closed: bool,
    /// Whether a frame has run: the first one compiles nothing, so a game
    /// starts and shows its first frame at the interpreter's speed.
    started: bool,
}

/// Readies `lua` to compile modules natively later, or, `at_load`, as
/// each loads (Luau's own way, the start-up bench's baseline).
pub fn install(lua: &Lua, at_load: bool) {
    #[cfg(not(target_family = "wasm"))]
    lua.enable_jit(at_load);
    lua.set_app_data(Waiting {
        closed: at_load,
        ..Waiting::default()
    });
}

/// Queues a module's chunk, loaded but not yet run, for native code.
pub fn queue(lua: &Lua, chunk: &Function) {
    if let Some(mut waiting) = lua.app_data_mut::<Waiting>()
        && !waiting.closed
    {
        waiting.modules.push_back(chunk.clone());
    }
}

/// Called as each frame's update begins: from the second frame on,
/// compiles the oldest module waiting, if any.
pub fn frame_begins(lua: &Lua) {
    let next = match lua.app_data_mut::<Waiting>() {
        Some(mut waiting) if waiting.started => waiting.modules.pop_front(),
        Some(mut waiting) => {
            waiting.started = true;
            None
        }
        None => None,
    };
    let Some(chunk) = next else {
        return;
    };
    // No native code in the browser: the interpreter runs every module.
    #[cfg(target_family = "wasm")]
    let compiled = drop(chunk);
    // SAFETY: the chunk is the one argument on the stack, and Luau's
    // compile reads the function at the top and leaves the stack as it
    // was; it raises no Luau error.
    #[cfg(not(target_family = "wasm"))]
    let compiled = unsafe {
        lua.exec_raw::<()>(&chunk, |state| {
            if mlua::ffi::luau_codegen_supported() != 0 {
                mlua::ffi::luau_codegen_compile(state, -1);
            }
        })
    };
    // Native code is a speed-up only: where it cannot be made, the
    // interpreter goes on running the module.
    let _ = compiled;
}

/// No module loaded from now on is compiled, and those waiting stay in the
/// interpreter.
pub fn close(lua: &Lua) {
    #[cfg(not(target_family = "wasm"))]
    lua.enable_jit(false);
    if let Some(mut waiting) = lua.app_data_mut::<Waiting>() {
        waiting.modules.clear();
        waiting.closed = true;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn waiting(lua: &Lua) -> usize {
        lua.app_data_ref::<Waiting>()
            .map_or(0, |waiting| waiting.modules.len())
    }

    #[test]
    fn modules_wait_for_the_second_frame_then_compile_one_a_frame() {
        let lua = Lua::new();
        install(&lua, false);
        for source in ["return 1", "return function(x) return x * 2 end"] {
            let chunk = lua.load(source).into_function().unwrap();
            queue(&lua, &chunk);
        }
        assert_eq!(waiting(&lua), 2);
        frame_begins(&lua);
        assert_eq!(waiting(&lua), 2, "the first frame compiles nothing");
        frame_begins(&lua);
        assert_eq!(waiting(&lua), 1);
        frame_begins(&lua);
        assert_eq!(waiting(&lua), 0);
        frame_begins(&lua);
    }

    #[test]
    fn reloaded_code_stays_in_the_interpreter() {
        let lua = Lua::new();
        install(&lua, false);
        let chunk = lua.load("return 1").into_function().unwrap();
        queue(&lua, &chunk);
        close(&lua);
        assert_eq!(waiting(&lua), 0);
        queue(&lua, &chunk);
        assert_eq!(waiting(&lua), 0);
    }
}
