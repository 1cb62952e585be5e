//! Shipping a game (rule H12): `moonloop build` writes one executable that
//! carries the game, and `moonloop run game.zip` runs a zipped folder.

mod common;

use std::path::Path;
use std::process::Command;

use common::{game, moonloop};

/// Counts its runs in its save.
const COUNTER: &str = r#"
return {
  config = { id = "packaged-counter", title = "Counter", version = "0.3.1" },
  init = function(saved)
    return { runs = (if saved then saved.runs else 0) + 1 }
  end,
  update = function(s, input, dt)
    -- The same save every frame is written once.
    input:save({ runs = s.runs })
    return s
  end,
}
"#;

struct Out {
    code: i32,
    stdout: String,
    stderr: String,
}

fn run_exe(exe: &Path, args: &[&str], dir: &Path) -> Out {
    let out = Command::new(exe)
        .args(args)
        .current_dir(dir)
        .output()
        .expect("the built game runs");
    Out {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

const HEADLESS: &[&str] = &[
    "--headless",
    "--clock",
    "constant:1/60",
    "--frames",
    "60",
    "--print-state",
];

// rule: H12
#[test]
fn a_built_game_runs_anywhere_with_nothing_read_from_its_source() {
    let source = game(&[
        ("counter/main.luau", COUNTER),
        ("counter/data/level.txt", "unused, but carried"),
    ]);
    let shipped = tempfile::tempdir().unwrap();
    let exe = shipped.path().join("counter-game");
    let out = moonloop(
        &["build", "counter", "-o", exe.to_str().unwrap()],
        source.path(),
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stderr.starts_with("built "), "{}", out.stderr);
    // The source is gone: whatever the game needs, it carries.
    drop(source);

    let elsewhere = tempfile::tempdir().unwrap();
    let saves = elsewhere.path().join("saves");
    let saves = saves.to_str().unwrap();
    let first = run_exe(
        &exe,
        &[HEADLESS, &["--save-dir", saves]].concat(),
        elsewhere.path(),
    );
    assert_eq!(first.code, 0, "{}", first.stderr);
    assert!(first.stdout.contains("\"runs\": 1"), "{}", first.stdout);
    let second = run_exe(
        &exe,
        &[HEADLESS, &["--save-dir", saves]].concat(),
        elsewhere.path(),
    );
    assert_eq!(second.code, 0, "{}", second.stderr);
    assert!(
        second.stdout.contains("\"runs\": 2"),
        "the second run sees the first's save: {}",
        second.stdout
    );

    // Without --save-dir a headless run keeps its save in memory.
    let third = run_exe(&exe, HEADLESS, elsewhere.path());
    assert!(third.stdout.contains("\"runs\": 1"), "{}", third.stdout);

    // rule: H12 (its own command line: the game's name, title and
    // version, and a player's options, nothing about building or testing)
    let help = run_exe(&exe, &["--help"], elsewhere.path());
    assert_eq!(help.code, 0, "{}", help.stderr);
    assert!(
        help.stdout
            .starts_with("Counter: a game made with moonloop\n\nUsage: counter-game [OPTIONS]\n"),
        "{}",
        help.stdout
    );
    for shown in ["--audio", "--save-dir", "--headless", "--version"] {
        assert!(help.stdout.contains(shown), "{shown}: {}", help.stdout);
    }
    for hidden in [
        "--record-input",
        "--budget",
        "--clock",
        "test",
        "build",
        "<GAME>",
    ] {
        assert!(!help.stdout.contains(hidden), "{hidden}: {}", help.stdout);
    }
    let version = run_exe(&exe, &["--version"], elsewhere.path());
    assert_eq!(
        (version.code, version.stdout.as_str()),
        (0, "counter-game 0.3.1\n")
    );
    // Neither unpacks the game (it was made even for --help).
    let tmp = tempfile::tempdir().unwrap();
    let out = Command::new(&exe)
        .arg("--help")
        .env("TMPDIR", tmp.path())
        .output()
        .unwrap();
    assert!(out.status.success());
    let made: Vec<_> = std::fs::read_dir(tmp.path())
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .filter(|n| n.to_string_lossy().starts_with("moonloop-game-"))
        .collect();
    assert!(made.is_empty(), "{made:?}");

    // Hot reload is off in a built game.
    let watch = run_exe(&exe, &["--headless", "--watch"], elsewhere.path());
    assert_eq!(watch.code, 2);
    assert_eq!(
        watch.stderr.trim(),
        "moonloop: a built game does not reload; --watch is for game folders"
    );
    // A bad option gets one line, in the game's name.
    let bad = run_exe(&exe, &["--frames", "x"], elsewhere.path());
    assert_eq!(bad.code, 2);
    assert_eq!(bad.stderr.lines().count(), 1, "{}", bad.stderr);
    assert!(bad.stderr.starts_with("counter-game: "), "{}", bad.stderr);

    // Building from a built game ships the game given, not the one carried.
    let other = game(&[(
        "other/main.luau",
        "return { init = function() return { other = true } end }",
    )]);
    let rebuilt = shipped.path().join("other-game");
    let out = moonloop(
        &["build", "other", "-o", rebuilt.to_str().unwrap()],
        other.path(),
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    let other_run = run_exe(&rebuilt, HEADLESS, elsewhere.path());
    assert!(
        other_run.stdout.contains("\"other\": true"),
        "{}",
        other_run.stdout
    );
}

// rule: H12
#[test]
fn build_refuses_an_unwritable_path_and_a_broken_game_in_one_line() {
    let dir = game(&[
        ("g/main.luau", "return {}"),
        ("broken/main.luau", "return {"),
        ("a-file", "not a folder"),
    ]);
    let out = moonloop(&["build", "g", "-o", "a-file/out"], dir.path());
    assert_eq!(out.code, 2);
    assert!(
        out.stderr
            .starts_with("moonloop: cannot write a-file/out: "),
        "{}",
        out.stderr
    );
    assert_eq!(out.stderr.lines().count(), 1, "{}", out.stderr);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("a-file")).unwrap(),
        "not a folder"
    );

    // Onto a folder, a pipe or a device it would replace the node, not
    // write to it; those are refused and left as they were.
    std::fs::create_dir(dir.path().join("a-folder")).unwrap();
    let made = std::process::Command::new("mkfifo")
        .arg(dir.path().join("a-pipe"))
        .status()
        .unwrap();
    assert!(made.success());
    for (name, what) in [("a-folder", "a folder"), ("a-pipe", "a device or a pipe")] {
        let out = moonloop(&["build", "g", "-o", name], dir.path());
        assert_eq!(
            (out.code, out.stderr),
            (
                2,
                format!("moonloop: cannot write {name}: it is {what}, not a file\n")
            )
        );
    }
    use std::os::unix::fs::FileTypeExt as _;
    let pipe = std::fs::symlink_metadata(dir.path().join("a-pipe")).unwrap();
    assert!(pipe.file_type().is_fifo());
    assert!(dir.path().join("a-folder").is_dir());

    // Into the game folder, it would replace the author's own file.
    for inside in ["g/main.luau", "g/built", "./g/../g/built"] {
        let out = moonloop(&["build", "g", "-o", inside], dir.path());
        assert_eq!(out.code, 2, "{inside}: {}", out.stderr);
        assert_eq!(
            out.stderr,
            format!(
                "moonloop: cannot write {inside} inside the game folder g: write the executable elsewhere\n"
            )
        );
    }
    assert_eq!(
        std::fs::read_to_string(dir.path().join("g/main.luau")).unwrap(),
        "return {}"
    );

    // A file past what a package holds is refused before it is read (a
    // sparse 2 GiB file: reading it would take the time and the memory).
    std::fs::create_dir(dir.path().join("big")).unwrap();
    std::fs::write(dir.path().join("big/main.luau"), "return {}").unwrap();
    std::fs::File::create(dir.path().join("big/level.bin"))
        .unwrap()
        .set_len(2 << 30)
        .unwrap();
    let out = moonloop(&["build", "big", "-o", "big.exe"], dir.path());
    assert_eq!(
        (out.code, out.stderr.as_str()),
        (
            2,
            "moonloop: big is larger than 1 GiB, the most a package holds\n"
        )
    );

    // A path the built game could not unpack is refused at build time,
    // not when a player runs it (it built, and failed to start).
    let deep = format!("deep/{}a.txt", "d/".repeat(40));
    std::fs::create_dir_all(dir.path().join(&deep).parent().unwrap()).unwrap();
    std::fs::write(dir.path().join("deep/main.luau"), "return {}").unwrap();
    std::fs::write(dir.path().join(&deep), "x").unwrap();
    let out = moonloop(&["build", "deep", "-o", "deep.exe"], dir.path());
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(
        out.stderr.starts_with("moonloop: cannot build deep: ")
            && out
                .stderr
                .contains("is more than 32 folders deep; the built game could not unpack it"),
        "{}",
        out.stderr
    );
    assert!(!dir.path().join("deep.exe").exists());

    let out = moonloop(&["build", "broken", "-o", "out"], dir.path());
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.starts_with("moonloop: broken/main.luau:1: "),
        "{}",
        out.stderr
    );
    assert!(!dir.path().join("out").exists());
}

// rule: H12
#[test]
fn a_zipped_game_folder_runs_like_the_folder() {
    let dir = game(&[("counter/main.luau", COUNTER)]);
    let zip = moonloop::package::zip_folder(&dir.path().join("counter")).unwrap();
    std::fs::write(dir.path().join("counter.zip"), zip).unwrap();
    let from_zip = moonloop(&[&["run", "counter.zip"], HEADLESS].concat(), dir.path());
    let from_folder = moonloop(&[&["run", "counter"], HEADLESS].concat(), dir.path());
    assert_eq!(from_zip.code, 0, "{}", from_zip.stderr);
    assert_eq!(from_zip.stdout, from_folder.stdout);

    let watch = moonloop(&["run", "counter.zip", "--headless", "--watch"], dir.path());
    assert_eq!(watch.code, 2);
    assert_eq!(
        watch.stderr.trim(),
        "moonloop: a zipped game does not reload; --watch is for game folders"
    );

    std::fs::write(dir.path().join("bad.zip"), "PK not a zip").unwrap();
    let bad = moonloop(&["run", "bad.zip", "--headless"], dir.path());
    assert_eq!(bad.code, 2);
    assert!(
        bad.stderr
            .starts_with("moonloop: bad.zip: not a zip archive"),
        "{}",
        bad.stderr
    );
    assert_eq!(bad.stderr.lines().count(), 1);
}

// rule: H12
#[test]
fn a_packaged_games_errors_name_the_package_not_its_private_folder() {
    let dir = game(&[(
        "oops/main.luau",
        "return { update = function(s) error('boom') end }",
    )]);
    let zip = moonloop::package::zip_folder(&dir.path().join("oops")).unwrap();
    std::fs::write(dir.path().join("oops.zip"), zip).unwrap();
    let out = moonloop(
        &["run", "oops.zip", "--headless", "--frames", "1"],
        dir.path(),
    );
    assert_eq!(out.code, 1);
    assert!(
        out.stderr
            .starts_with("frame 1: oops.zip/main.luau:1: boom"),
        "{}",
        out.stderr
    );

    let exe = dir.path().join("oops-game");
    let built = moonloop(&["build", "oops", "-o", exe.to_str().unwrap()], dir.path());
    assert_eq!(built.code, 0, "{}", built.stderr);
    let out = run_exe(&exe, &["--headless", "--frames", "1"], dir.path());
    assert_eq!(out.code, 1);
    assert!(
        out.stderr
            .starts_with("frame 1: oops-game/main.luau:1: boom"),
        "{}",
        out.stderr
    );
}

// rule: H12
#[test]
fn an_ignore_file_keeps_source_art_tests_and_notes_out_of_the_build() {
    let dir = game(&[
        (
            "g/main.luau",
            "return { init = function() return { n = 1 } end }",
        ),
        (
            "g/.moonloopignore",
            "# stays home\n*.psd\ntests/\nnotes.txt\n",
        ),
        ("g/art/ship.psd", "layers"),
        ("g/art/ship.png", "pixels"),
        ("g/tests/t.luau", "test('x', function() end)"),
        ("g/notes.txt", "todo"),
    ]);
    let exe = dir.path().join("g-game");
    let out = moonloop(
        &["build", "g", "-o", exe.to_str().unwrap(), "--verbose"],
        dir.path(),
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        out.stdout, "packed art/ship.png\npacked main.luau\n",
        "what was packed, and nothing left out"
    );
    // The built game carries nothing else: its folder has only those.
    let run = run_exe(
        &exe,
        &["--headless", "--frames", "1", "--print-state"],
        dir.path(),
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
}

// rule: B3
#[test]
fn a_game_that_poses_a_scene_is_refused_for_the_web_in_one_line() {
    let dir = game(&[
        (
            "cubes/main.luau",
            r#"return {
    update = function(state, input, dt) return { t = (state.t or 0) + dt } end,
    render = function(state, scene, screen)
        if state.t and state.t > 0.5 then
            scene:object("cube", { mesh = "cube" })
        end
        screen:text("hello", 4, 4)
    end,
}"#,
        ),
        (
            "flat/main.luau",
            r#"return { render = function(state, scene, screen) screen:text("hello", 4, 4) end }"#,
        ),
    ]);
    // The runtime is never looked for: the refusal comes first, whatever
    // is built here.
    let out = moonloop(
        &["build", "cubes", "--target", "web", "-o", "site"],
        dir.path(),
    );
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert_eq!(
        out.stderr.trim(),
        "moonloop: cubes: the game poses a 3D scene (frame 31), which a web page cannot draw \
         yet: the page draws the screen layer alone; ship it as an executable (--target here \
         or windows)"
    );
    assert!(!dir.path().join("site").exists());
    // A game that draws only its screen layer gets past the look: what
    // stops it here, if anything, is the runtime.
    let out = moonloop(
        &[
            "build",
            "flat",
            "--target",
            "web",
            "-o",
            "site",
            "--runtime",
            "no-such-runtime",
        ],
        dir.path(),
    );
    assert!(!out.stderr.contains("3D scene"), "{}", out.stderr);
    // Executables carry a scene's renderer: no look is made.
    let out = moonloop(&["build", "cubes", "-o", "cubes.bin"], dir.path());
    assert_eq!(out.code, 0, "{}", out.stderr);
}
