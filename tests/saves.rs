//! Saves (rule H12): a game keeps plain data between runs through
//! `input:save` and `init(saved)`, in a store the host owns.

mod common;

use std::path::Path;

use common::{game, moonloop};
use moonloop::session::Session;
use moonloop::{ConstantClock, Engine, Limits, LuaGame, Saves};

/// Counts frames; saves the best count whenever it rises.
const COUNTER: &str = r#"
return {
  config = { id = "counter" },
  init = function(saved)
    return { best = if saved then saved.best else 0, count = 0 }
  end,
  update = function(s, input, dt)
    local count = s.count + 1
    if count > s.best then
      input:save({ best = count })
      return { best = count, count = count }
    end
    return { best = s.best, count = count }
  end,
}
"#;

/// The game in `dir`, saving to `saves`, in a session as a runner has it.
fn load(dir: &Path, saves: Saves) -> Session<LuaGame> {
    let game = LuaGame::load_saving(dir, Limits::default(), saves)
        .unwrap_or_else(|e| panic!("the game loads: {e}"));
    Session::new(Engine::new(game, Box::new(ConstantClock::new(1.0 / 60.0))))
}

fn saved_file(root: &Path) -> String {
    std::fs::read_to_string(root.join("counter/save.json")).unwrap()
}

// rule: H12
#[test]
fn what_update_saves_is_what_the_next_run_starts_from() {
    let dir = game(&[("main.luau", COUNTER)]);
    let root = tempfile::tempdir().unwrap();
    let mut first = load(dir.path(), Saves::disk(root.path().into()));
    first.advance(3).unwrap();
    assert_eq!(saved_file(root.path()), "{\n  \"best\": 3\n}\n");
    drop(first);

    let mut second = load(dir.path(), Saves::disk(root.path().into()));
    assert_eq!(
        second.engine().game().loaded_save(),
        Some("{\n  \"best\": 3\n}")
    );
    second.advance(2).unwrap();
    assert!(
        second
            .engine()
            .game()
            .state_json()
            .unwrap()
            .contains("\"best\": 3")
    );
    // Nothing rose past the best, so nothing was written.
    assert_eq!(saved_file(root.path()), "{\n  \"best\": 3\n}\n");
    second.advance(2).unwrap();
    assert_eq!(saved_file(root.path()), "{\n  \"best\": 4\n}\n");
    let entries: Vec<_> = std::fs::read_dir(root.path().join("counter"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(entries, ["save.json"], "no temporary file is left");
}

// rule: H12
#[test]
fn a_frame_that_fails_saves_nothing() {
    let dir = game(&[(
        "main.luau",
        r#"return {
          config = { id = "g" },
          update = function(s, input)
            input:save({ reached = true })
            error("boom")
          end,
        }"#,
    )]);
    let root = tempfile::tempdir().unwrap();
    let mut e = load(dir.path(), Saves::disk(root.path().into()));
    let err = e.advance(1).unwrap_err().to_string();
    assert!(err.contains("boom"), "{err}");
    assert!(!root.path().join("g").join("save.json").exists());
    assert_eq!(e.engine().game().save_json(), None);
}

// rule: H12
#[test]
fn a_save_that_is_not_plain_small_data_or_has_no_id_is_refused_by_name() {
    let cases: &[(&str, &str)] = &[
        (
            "return { update = function(s, input) input:save({}) return s end }",
            "main.luau:1: input:save: the game has no config.id; set config.id = \"name\"",
        ),
        (
            r#"return { config = { id = "g" },
               update = function(s, input) input:save({ f = print }) return s end }"#,
            "main.luau:2: input:save: the save.f is a function",
        ),
        (
            r#"return { config = { id = "g" },
               update = function(s, input) input:save(string.rep("x", 2 * 1024 * 1024)) return s end }"#,
            "main.luau:2: input:save: the save's JSON is 2.0 MiB; a save is at most 1 MiB (H12)",
        ),
        (
            r#"return { config = { id = "../up" } }"#,
            "config.id `../up` may not start with a dot",
        ),
        (
            r#"return { config = { id = "a/b" } }"#,
            "config.id `a/b` is made of ASCII letters, digits, -, _ and .",
        ),
    ];
    for (main, expected) in cases {
        let dir = game(&[("main.luau", main)]);
        let err = match LuaGame::load(dir.path()) {
            Err(e) => e.to_string(),
            Ok(game) => Session::new(Engine::new(game, Box::new(ConstantClock::new(1.0 / 60.0))))
                .advance(1)
                .unwrap_err()
                .to_string(),
        };
        let err = err.replace(&format!("{}/", dir.path().display()), "");
        assert!(
            err.contains(expected),
            "{main}\n  gave: {err}\n  wanted: {expected}"
        );
    }
}

// rule: H12
#[test]
fn a_save_that_cannot_be_read_back_is_set_aside_in_one_line() {
    let dir = game(&[("main.luau", COUNTER)]);
    for corrupt in [
        "{\"best\": 3",
        "[1, 2,",
        "{\"best\": 1, \"best\": 2}",
        "\u{0}\u{1}",
    ] {
        let root = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(root.path().join("counter")).unwrap();
        std::fs::write(root.path().join("counter/save.json"), corrupt).unwrap();
        let mut e = load(dir.path(), Saves::disk(root.path().into()));
        let notice = e
            .engine_mut()
            .game_mut()
            .take_save_notice()
            .expect("a notice");
        assert!(!notice.contains('\n'), "{notice}");
        assert!(notice.contains("save.json.corrupt"), "{notice}");
        assert_eq!(
            e.engine().game().loaded_save(),
            None,
            "{corrupt}: starts without a save"
        );
        assert_eq!(
            std::fs::read_to_string(root.path().join("counter/save.json.corrupt")).unwrap(),
            corrupt,
            "the unreadable save is kept aside, not lost"
        );
        e.advance(1).unwrap();
        assert_eq!(saved_file(root.path()), "{\n  \"best\": 1\n}\n");
    }
}

// rule: H12
#[test]
fn the_command_line_saves_to_save_dir_and_a_replay_brings_its_save() {
    let dir = game(&[("counter/main.luau", COUNTER)]);
    let root = dir.path().join("saves");
    let game_dir = dir.path().join("counter");
    let run = |extra: &[&str]| {
        let mut args = vec![
            "run",
            game_dir.to_str().unwrap(),
            "--headless",
            "--clock",
            "constant:1/60",
            "--frames",
            "5",
        ];
        args.extend_from_slice(extra);
        moonloop(&args, dir.path())
    };
    // Headless runs keep saves in memory unless given a folder.
    let out = run(&["--print-state"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(!root.exists());

    let saves = root.to_str().unwrap();
    let out = run(&["--save-dir", saves]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(saved_file(&root), "{\n  \"best\": 5\n}\n");

    // The second run starts from the save, and its replay carries it.
    let log = dir.path().join("run.replay");
    let out = run(&[
        "--save-dir",
        saves,
        "--record-input",
        log.to_str().unwrap(),
        "--state-hash",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let hash = out.stdout.clone();
    let text = std::fs::read_to_string(&log).unwrap();
    assert_eq!(
        text.lines().find(|l| l.starts_with("saved ")),
        Some("saved { \"best\": 5 }"),
        "{text}"
    );

    // Played back with no save folder at all, it ends in the same state,
    // and the store on disk is not touched.
    std::fs::remove_dir_all(&root).unwrap();
    let out = moonloop(
        &[
            "run",
            game_dir.to_str().unwrap(),
            "--headless",
            "--replay",
            log.to_str().unwrap(),
            "--state-hash",
        ],
        dir.path(),
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.stdout, hash);
    assert!(!root.exists());

    // A save dir and a replay do not mix: the replay brings its save.
    let out = moonloop(
        &[
            "run",
            game_dir.to_str().unwrap(),
            "--headless",
            "--save-dir",
            saves,
            "--replay",
            log.to_str().unwrap(),
        ],
        dir.path(),
    );
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("--save-dir"), "{}", out.stderr);
}

// rule: H12
#[test]
fn a_corrupt_save_gets_one_line_on_the_command_line_and_the_game_runs() {
    let dir = game(&[("counter/main.luau", COUNTER)]);
    let root = dir.path().join("saves");
    std::fs::create_dir_all(root.join("counter")).unwrap();
    std::fs::write(root.join("counter/save.json"), "{\"best\": ").unwrap();
    let out = moonloop(
        &[
            "run",
            "counter",
            "--headless",
            "--frames",
            "2",
            "--clock",
            "constant:1/60",
            "--save-dir",
            root.to_str().unwrap(),
        ],
        dir.path(),
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let lines: Vec<&str> = out.stderr.lines().collect();
    assert_eq!(lines.len(), 1, "{}", out.stderr);
    assert!(
        lines[0].starts_with("moonloop: the save ") && lines[0].contains("could not be read"),
        "{}",
        lines[0]
    );
    assert_eq!(saved_file(&root), "{\n  \"best\": 2\n}\n");
}
