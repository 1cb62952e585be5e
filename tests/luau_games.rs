//! Every example game's Luau tests and the runtime library's, run as
//! `moonloop test` runs them, so that `cargo test` is the one command that
//! runs every test.

use std::path::Path;

use moonloop::lua::run_test_file;

#[test]
fn every_game_passes_its_luau_tests() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut failures = Vec::new();
    let mut count = 0;
    // Every game, and the host's own Luau library (`moonloop test runtime`).
    let mut folders: Vec<_> = std::fs::read_dir(root.join("games"))
        .unwrap()
        .map(|g| g.unwrap().path())
        .collect();
    folders.push(root.join("runtime"));
    for game in folders {
        let Ok(tests) = std::fs::read_dir(game.join("tests")) else {
            continue;
        };
        for file in tests {
            let file = file.unwrap().path();
            if file.extension().is_none_or(|x| x != "luau") {
                continue;
            }
            for outcome in run_test_file(&game, &file).results {
                count += 1;
                let name = outcome.name;
                if let Some(why) = outcome.failure {
                    failures.push(format!("{}: {name}\n  {why}", file.display()));
                }
            }
        }
    }
    assert!(count > 0, "no Luau tests found under games/");
    assert!(
        failures.is_empty(),
        "{} of {count} Luau tests failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
