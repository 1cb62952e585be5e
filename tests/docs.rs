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
use moonloop::session::Session;
use moonloop::{LuaGame, lua::run_test_file};

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
                    let mut session = Session::new(Engine::new(
                        loaded,
                        Box::new(ConstantClock::new(1.0 / 60.0)),
                    ));
                    session
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
                    for outcome in run_test_file(dir.path(), &file).results {
                        let test = outcome.name;
                        if let Some(why) = outcome.failure {
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

/// The rule ids `// rule:` and `-- rule:` comments under `dir` name.
fn rules_named_under(dir: &Path, into: &mut std::collections::BTreeSet<String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            rules_named_under(&path, into);
            continue;
        }
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        for line in text.lines() {
            let Some(at) = line.find("rule: ") else {
                continue;
            };
            let before = line[..at].trim_end();
            if !(before.ends_with("//") || before.ends_with("--")) {
                continue;
            }
            for id in line[at + 6..].split([',', ' ']) {
                let id = id.trim();
                let mut chars = id.chars();
                if chars.next().is_some_and(|c| c.is_ascii_uppercase())
                    && id.len() >= 2
                    && chars.all(|c| c.is_ascii_digit())
                {
                    into.insert(id.to_string());
                }
            }
        }
    }
}

// The contract in the repository is whole: every rule a test names is
// written down in docs/contract.md, every rule written there is named by
// a test, and every source file it points at exists.
#[test]
fn the_contract_names_every_rule_the_tests_check_and_no_other() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let contract = std::fs::read_to_string(root.join("docs/contract.md")).unwrap();
    let mut written = std::collections::BTreeSet::new();
    let mut places = Vec::new();
    for row in contract.lines().filter(|l| l.starts_with("| ")) {
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        let id = cells[1];
        if id == "id" || id.starts_with('-') {
            continue;
        }
        written.insert(id.to_string());
        for place in cells[cells.len() - 2].split(", ") {
            places.push((id.to_string(), place.trim_matches('`').to_string()));
        }
    }
    let mut named = std::collections::BTreeSet::new();
    for dir in ["tests", "games", "src", "crates", "runtime", "tools/check"] {
        rules_named_under(&root.join(dir), &mut named);
    }
    let unwritten: Vec<_> = named.difference(&written).collect();
    assert!(
        unwritten.is_empty(),
        "tests name rules docs/contract.md lacks: {unwritten:?}"
    );
    let untested: Vec<_> = written.difference(&named).collect();
    assert!(
        untested.is_empty(),
        "no test names these rules of docs/contract.md: {untested:?}"
    );
    for (id, place) in places {
        assert!(
            root.join(&place).exists(),
            "{id} points at {place}, which is not there"
        );
    }
}
