//! Any bytes as a game's `main.luau`, and as a module it requires, load or
//! are refused with a line (rule H10): code enters only as source text, so
//! bytes that would be bytecode are refused before Luau sees them.
#![no_main]

use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::Duration;

use libfuzzer_sys::fuzz_target;
use moonloop::{Limits, LuaGame};

fn folders() -> &'static (tempfile::TempDir, PathBuf, PathBuf) {
    static DIRS: OnceLock<(tempfile::TempDir, PathBuf, PathBuf)> = OnceLock::new();
    DIRS.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let main = dir.path().join("as_main");
        let module = dir.path().join("as_module");
        std::fs::create_dir_all(&main).unwrap();
        std::fs::create_dir_all(&module).unwrap();
        std::fs::write(
            module.join("main.luau"),
            "local m = require('./m')\nreturn { init = function() return { ok = true } end }\n",
        )
        .unwrap();
        (dir, main, module)
    })
}

fuzz_target!(|bytes: &[u8]| {
    let (_, main, module) = folders();
    let limits = Limits {
        budget: Duration::from_millis(50),
        memory: 64 << 20,
        ..Limits::default()
    };
    std::fs::write(main.join("main.luau"), bytes).unwrap();
    std::fs::write(module.join("m.luau"), bytes).unwrap();
    for dir in [main, module] {
        if let Err(err) = LuaGame::load_with(dir, limits) {
            let text = err.to_string();
            assert!(!text.is_empty(), "a refusal says why");
            if bytes.first().is_some_and(|&b| b < b'\t') {
                assert!(text.contains("not Luau source text"), "{text}");
            }
        }
    }
});
