//! Any bytes as a zipped game (`moonloop run game.zip`, or the game a built
//! executable carries) unpack inside their private folder, within the
//! documented caps, or are refused with a line (rules H10, H12).
#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;
use moonloop::package;

/// Walks `dir`: every entry is a plain file or folder (no link), and the
/// files' bytes add up to at most the cap.
fn check(dir: &Path, total: &mut u64) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let entry = entry.unwrap();
        let kind = entry.file_type().unwrap();
        assert!(!kind.is_symlink(), "{:?} is a link", entry.path());
        if kind.is_dir() {
            check(&entry.path(), total);
        } else {
            *total += entry.metadata().unwrap().len();
        }
    }
}

fuzz_target!(|bytes: &[u8]| {
    static HOOK: std::sync::Once = std::sync::Once::new();
    HOOK.call_once(moonloop::error::forward_uncontained_panics);
    match package::unpack(bytes, "fuzz.zip") {
        Ok(unpacked) => {
            let game = unpacked.game();
            let top = game
                .ancestors()
                .find(|p| p.file_name().is_some_and(|n| n.to_string_lossy().starts_with("moonloop-game-")))
                .expect("the game is inside its private folder")
                .to_path_buf();
            assert!(game.join("main.luau").is_file() || game.join("main.lua").is_file());
            let mut total = 0;
            check(&top, &mut total);
            assert!(total <= package::MAX_UNPACKED);
        }
        Err(why) => {
            let why = why.to_string();
            assert!(why.starts_with("fuzz.zip: "), "{why}");
            assert!(!why.contains('\n'), "{why}");
        }
    }
});
