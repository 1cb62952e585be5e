//! The Luau binding: loading games, `require`, the sandbox, and one file
//! per object handed to game code. Nothing outside this folder (and the
//! state walk in `state.rs`) touches mlua.

mod args;
mod code;

pub use code::game_folder;
mod config;
mod determinism;
mod engines;
mod errors;
mod game;
mod handles;
mod leases;
mod moment;
mod native;
pub mod picture;
mod places;
mod players;
mod predicate;
pub mod properties;
mod require;
mod scenario;
mod scene;
mod screen;
mod sounds;
mod strings;
mod test_engine;
mod testing;
mod tiled;
mod vm;

pub use game::LuaGame;
pub use predicate::Predicate;
pub use require::RUNTIME;
pub use scenario::{
    DEFAULT_CLOCKS, Ending, Run, check_dt, check_dt_with, compact, disagreements, split_clocks,
};
pub use testing::{Outcome, TEST_BUDGET, TestReport, TestRun, run_test_file, run_test_file_with};

pub use determinism::DEFAULT_SEED;
pub use errors::describe;
pub use vm::{Budget, Call, DEFAULT_MEMORY_CAP, Limits, new_vm};

use mlua::Lua;

/// Returns `"file:line: "` for the innermost Luau code at or above stack
/// `level` (0 is the running function), or `""` when there is none.
///
/// Host functions raise their errors with this prefix, so a game author
/// sees the line of their own code that made the bad call.
pub fn location(lua: &Lua, level: usize) -> String {
    for level in level..level + 4 {
        let found = lua.inspect_stack(level, |debug| {
            let source = debug.source();
            let line = debug.current_line();
            match (source.what, source.short_src, line) {
                // The host's trampolines are never the author's place.
                // Nor are mlua's own Luau helpers (`__mlua_index`), nor
                // the host's library calling in on the author's behalf.
                ("Lua", Some(src), Some(line))
                    if line > 0
                        && src != "moonloop"
                        && !src.starts_with("__mlua")
                        && !src.starts_with("@moonloop/") =>
                {
                    Some(format!("{src}:{line}: "))
                }
                _ => None,
            }
        });
        match found {
            Some(Some(place)) => return place,
            Some(None) => continue,
            None => break,
        }
    }
    String::new()
}
