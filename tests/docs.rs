//! Every example in docs/ runs, so the guide cannot drift from the host.
//!
//! In a `luau` block, `-- game` on the first line makes it a game (loaded
//! and stepped ten frames), `-- test` a test of the page's last game (run
//! as `moonloop test` would, and it must pass); any other block must
//! compile. In a `sh` block, each line starting with `moonloop ` runs from
//! the repository root and must exit 0. A game block's folder also holds
//! the files of docs/assets/ (the sprite sheet the examples draw from).

use std::path::Path;
use std::process::Command;

use moonloop::ConstantClock;
use moonloop::Engine;
use moonloop::{LuaGame, internals::lua::run_test_file};

fn blocks(text: &str) -> Vec<(String, String, usize)> {
    let mut out = Vec::new();
    let mut current: Option<(String, String, usize)> = None;
    for (i, line) in text.lines().enumerate() {
        match (&mut current, line.trim_start().strip_prefix("```")) {
            (None, Some(lang)) => current = Some((lang.trim().to_string(), String::new(), i + 1)),
            (Some(_), Some(_)) => out.push(current.take().unwrap()),
            (Some((_, body, _)), None) => {
                body.push_str(line);
                body.push('\n');
            }
            (None, None) => {}
        }
    }
    out
}

#[test]
fn every_docs_example_runs() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut pages: Vec<_> = std::fs::read_dir(root.join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    pages.sort();
    let mut ran = 0;
    for page in pages {
        let text = std::fs::read_to_string(&page).unwrap();
        let name = page.file_name().unwrap().to_string_lossy().into_owned();
        let mut game: Option<tempfile::TempDir> = None;
        for (lang, body, line) in blocks(&text) {
            let place = format!("docs/{name}:{line}");
            match lang.as_str() {
                "luau" if body.starts_with("-- game") => {
                    let dir = tempfile::tempdir().unwrap();
                    std::fs::write(dir.path().join("main.luau"), &body).unwrap();
                    for asset in std::fs::read_dir(root.join("docs/assets")).unwrap() {
                        let asset = asset.unwrap().path();
                        std::fs::copy(&asset, dir.path().join(asset.file_name().unwrap())).unwrap();
                    }
                    let loaded =
                        LuaGame::load(dir.path()).unwrap_or_else(|e| panic!("{place}: {e}"));
                    let mut engine = Engine::new(loaded, Box::new(ConstantClock::new(1.0 / 60.0)));
                    engine
                        .advance(10)
                        .unwrap_or_else(|e| panic!("{place}: {e}"));
                    game = Some(dir);
                }
                "luau" if body.starts_with("-- test") => {
                    let dir = game
                        .as_ref()
                        .unwrap_or_else(|| panic!("{place}: a test needs a game block before it"));
                    let tests = dir.path().join("tests");
                    std::fs::create_dir_all(&tests).unwrap();
                    let file = tests.join(format!("line{line}.luau"));
                    std::fs::write(&file, &body).unwrap();
                    for (test, outcome) in run_test_file(dir.path(), &file).results {
                        if let Err(why) = outcome {
                            panic!("{place}: test `{test}` failed: {why}");
                        }
                    }
                }
                // Scripted input is written into the game before it as
                // `input.txt`, for a test after it to name.
                "input" => {
                    let dir = game.as_ref().unwrap_or_else(|| {
                        panic!("{place}: an input block needs a game block before it")
                    });
                    std::fs::write(dir.path().join("input.txt"), &body).unwrap();
                }
                "luau" => {
                    let lua = mlua::Lua::new();
                    lua.load(&body)
                        .set_name(&place)
                        .into_function()
                        .unwrap_or_else(|e| panic!("{place}: {e}"));
                }
                "sh" => {
                    for command in body.lines().filter(|l| l.starts_with("moonloop ")) {
                        let args: Vec<&str> = command.split_whitespace().skip(1).collect();
                        let out = Command::new(env!("CARGO_BIN_EXE_moonloop"))
                            .args(&args)
                            .current_dir(root)
                            .output()
                            .unwrap();
                        assert!(
                            out.status.success(),
                            "{place}: `{command}` failed: {}",
                            String::from_utf8_lossy(&out.stderr)
                        );
                    }
                }
                _ => continue,
            }
            ran += 1;
        }
    }
    assert!(ran >= 10, "only {ran} examples found in docs/");
}
