//! Every example game's Luau tests, run as `moonloop test` runs them, so
//! that `cargo test` is the one command that runs every test.

use std::path::Path;

use moonloop::lua::run_test_file;

#[test]
fn every_game_passes_its_luau_tests() {
    let games = Path::new(env!("CARGO_MANIFEST_DIR")).join("games");
    let mut failures = Vec::new();
    let mut count = 0;
    for game in std::fs::read_dir(&games).unwrap() {
        let game = game.unwrap().path();
        let Ok(tests) = std::fs::read_dir(game.join("tests")) else {
            continue;
        };
        for file in tests {
            let file = file.unwrap().path();
            if file.extension().is_none_or(|x| x != "luau") {
                continue;
            }
            for (name, outcome) in run_test_file(&game, &file).results {
                count += 1;
                if let Err(why) = outcome {
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
