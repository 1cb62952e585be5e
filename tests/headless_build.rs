//! The headless host (rule B1): `cargo build --no-default-features` runs
//! every example game to the default build's state hashes, and a run that
//! asks it for a door it was built without gets one line naming the
//! feature. ./test.sh builds it into target/headless/ before the tests
//! run; `MOONLOOP_HEADLESS` names another.

mod common;

use std::path::{Path, PathBuf};

use common::Outcome;

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The headless build, or `None` (said on stderr) when it was not built:
/// a plain `cargo test` skips these rows, ./test.sh and CI never do.
fn headless_binary() -> Option<PathBuf> {
    let path = std::env::var_os("MOONLOOP_HEADLESS")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo().join("target/headless/moonloop"));
    if path.is_file() {
        return Some(path);
    }
    assert!(
        std::env::var_os("CI").is_none() && std::env::var_os("MOONLOOP_TEST_SH").is_none(),
        "{} is missing: ./test.sh builds it",
        path.display()
    );
    eprintln!(
        "skipped: {} is missing (./test.sh builds it)",
        path.display()
    );
    None
}

fn run(binary: &Path, args: &[&str]) -> Outcome {
    common::run_binary(binary, args, repo())
}

fn hash(binary: &Path, game: &str, frames: &str) -> String {
    let out = run(
        binary,
        &[
            "run",
            game,
            "--headless",
            "--clock",
            "constant:1/60",
            "--frames",
            frames,
            "--state-hash",
        ],
    );
    assert_eq!(out.code, 0, "{game}: {}", out.stderr);
    out.stdout.trim().to_string()
}

// rule: B1
#[test]
fn every_example_game_runs_to_the_same_hash_in_both_builds() {
    let Some(headless) = headless_binary() else {
        return;
    };
    let full = PathBuf::from(common::binary());
    let mut games: Vec<PathBuf> = std::fs::read_dir(repo().join("games"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("main.luau").is_file())
        .collect();
    games.sort();
    assert!(games.len() >= 5, "{games:?}");
    for game in games {
        let game = game
            .strip_prefix(repo())
            .unwrap()
            .to_str()
            .unwrap()
            .to_string();
        let frames = if game.ends_with("pong") || game.ends_with("plinko") {
            "600"
        } else {
            "240"
        };
        let (a, b) = (hash(&full, &game, frames), hash(&headless, &game, frames));
        assert_eq!(a.len(), 16, "{game}: {a}");
        assert_eq!(
            a, b,
            "{game}: the default build and the headless one differ"
        );
    }
}

// rule: B1
#[test]
fn a_replay_recorded_by_one_build_verifies_in_the_other() {
    let Some(headless) = headless_binary() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("plinko.replay");
    let log = log.to_str().unwrap();
    let full = PathBuf::from(common::binary());
    let recorded = run(
        &full,
        &[
            "run",
            "games/plinko",
            "--headless",
            "--clock",
            "constant:1/60",
            "--frames",
            "300",
            "--record-input",
            log,
        ],
    );
    assert_eq!(recorded.code, 0, "{}", recorded.stderr);
    let played = run(
        &headless,
        &["run", "games/plinko", "--headless", "--replay", log],
    );
    assert_eq!(played.code, 0, "{}{}", played.stdout, played.stderr);
}

// rule: B1
#[test]
fn the_headless_build_names_each_door_it_lacks_in_one_line() {
    let Some(headless) = headless_binary() else {
        return;
    };
    let rows: [(&[&str], &str); 4] = [
        (&["run", "games/pong"], "`window`; add --headless"),
        (
            &["host", "games/pong"],
            "no online play: it was built without the Cargo feature `net`",
        ),
        (
            &[
                "run",
                "games/pong",
                "--headless",
                "--watch",
                "--frames",
                "2",
            ],
            "`watch`; leave out --watch",
        ),
        (
            &["join", "127.0.0.1:9", "games/pong"],
            "no online play: it was built without the Cargo feature `net`",
        ),
    ];
    for (args, says) in rows {
        let out = run(&headless, args);
        assert_eq!(out.code, 3, "{args:?}: {}", out.stderr);
        let lines: Vec<&str> = out.stderr.lines().collect();
        assert_eq!(lines.len(), 1, "{args:?}: {}", out.stderr);
        assert!(
            lines[0].starts_with("moonloop: this moonloop has no "),
            "{}",
            lines[0]
        );
        assert!(lines[0].contains(says), "{args:?}: {}", lines[0]);
    }
}

// rule: B1
#[test]
fn a_scene_game_records_its_screen_layer_and_says_the_scene_is_missing() {
    let Some(headless) = headless_binary() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let png = dir.path().join("marble.png");
    let out = run(
        &headless,
        &[
            "run",
            "games/marble",
            "--headless",
            "--clock",
            "constant:1/60",
            "--frames",
            "3",
            "--record",
            png.to_str().unwrap(),
        ],
    );
    assert!(
        out.stderr.contains("has no renderer for the 3D scene"),
        "{}",
        out.stderr
    );
    assert_eq!(out.code, 1, "{}", out.stderr);
    // The recording still ends as a valid file, of the game's size.
    let (w, h) = moonloop::assets::png::size(&std::fs::read(&png).unwrap()).unwrap();
    assert!(w > 0 && h > 0);
}
