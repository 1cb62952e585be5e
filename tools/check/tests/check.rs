//! `moonloop-check` against planted mistakes, the example games, the
//! runtime and every game in docs/ (rule T1 in docs/checking.md).

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Runs the checker on `args` from `dir`; returns its exit code and output.
fn check(dir: &Path, args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_moonloop-check"))
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.code().unwrap_or(-1), text)
}

/// A game folder holding `files`.
fn game(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        let path = dir.path().join("g").join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    dir
}

/// A typed game whose render runs `body`.
fn rendering(body: &str) -> String {
    format!(
        "type State = {{ x: number }}\n\
         local game: Game<State> = {{\n\
         \tinit = function() return {{ x = 0 }} end,\n\
         \trender = function(state, scene, screen)\n\
         \t\t{body}\n\
         \tend,\n\
         }}\n\
         return game\n"
    )
}

// rule: T1
#[test]
fn a_planted_type_error_is_named_at_its_line_and_column() {
    let dir = game(&[("main.luau", &rendering("screen:rect(0, 0, 10, \"wide\")"))]);
    let (code, out) = check(dir.path(), &["g"]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("g/main.luau:5:25: error: Expected this to be 'number', but got 'string'"),
        "{out}"
    );
    assert!(out.contains("1 file checked, 1 error"), "{out}");
}

// rule: T1
#[test]
fn a_misspelled_api_call_is_named() {
    let dir = game(&[("main.luau", &rendering("screen:rectt(0, 0, 10, 10)"))]);
    let (code, out) = check(dir.path(), &["g"]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("g/main.luau:5:3: error: Key 'rectt' not found in external type 'Screen'"),
        "{out}"
    );
}

// rule: T1
#[test]
fn requires_carry_their_types_and_a_missing_module_is_named() {
    let dir = game(&[
        (
            "main.luau",
            "local rules = require(\"./rules\")\n\
             local timer = require(\"@moonloop/timer\")\n\
             local nothing = require(\"./nothing\")\n\
             local also = require('@moonloop/nothing')\n\
             local speed: string = rules.SPEED\n\
             local t: number = timer.new(1)\n\
             local typed: rules.Speed = rules.SPEED\n\
             print(speed, t, typed, nothing, also)\n",
        ),
        (
            "rules.luau",
            "export type Speed = number\nlocal SPEED: Speed = 120\nreturn { SPEED = SPEED }\n",
        ),
    ]);
    let (code, out) = check(dir.path(), &["g"]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("g/main.luau:3:17: error: Unknown require: no module `./nothing`"),
        "{out}"
    );
    assert!(
        out.contains("g/main.luau:4:14: error: Unknown require: no module `@moonloop/nothing`"),
        "{out}"
    );
    // What a module returns crosses the require, the runtime's too, and
    // its exported types with it.
    assert!(
        out.contains("g/main.luau:5:1: error: Expected this to be 'string', but got 'number'"),
        "{out}"
    );
    assert!(out.contains("g/main.luau:6:1: error:"), "{out}");
    assert!(!out.contains("g/main.luau:7:"), "{out}");
    assert!(!out.contains("shadows"), "{out}");
    assert!(out.contains("2 files checked, 4 errors"), "{out}");
}

// rule: T1
#[test]
fn a_require_cannot_leave_the_game_folder() {
    let dir = game(&[("main.luau", "local x = require(\"../outside\")\nreturn x\n")]);
    std::fs::write(dir.path().join("outside.luau"), "return 1\n").unwrap();
    let (code, out) = check(dir.path(), &["g"]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("g/main.luau:1:11: error: Unknown require: no module `../outside`"),
        "{out}"
    );
}

// rule: T1
#[test]
fn bad_arguments_exit_2_with_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let (code, out) = check(dir.path(), &["nowhere"]);
    assert_eq!(code, 2);
    assert_eq!(
        out.trim(),
        "moonloop check: `nowhere` is not a game folder or a .luau file"
    );
    let (code, out) = check(dir.path(), &["--strictest"]);
    assert_eq!(code, 2, "{out}");
}

// rule: T1
#[test]
fn the_runtime_and_every_example_game_pass() {
    let mut args = vec!["runtime".to_string()];
    for entry in std::fs::read_dir(root().join("games")).unwrap() {
        let path = entry.unwrap().path();
        if path.join("main.luau").is_file() {
            args.push(format!(
                "games/{}",
                path.file_name().unwrap().to_string_lossy()
            ));
        }
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (code, out) = check(&root(), &args);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains(" 0 errors"), "{out}");
}

// rule: T1
#[test]
fn every_game_in_the_docs_passes() {
    // Each `-- game` block, with the `-- test` blocks after it, as
    // tests/docs.rs runs them.
    let dir = tempfile::tempdir().unwrap();
    let mut games = Vec::new();
    let mut pages: Vec<_> = std::fs::read_dir(root().join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    pages.sort();
    for page in pages {
        let text = std::fs::read_to_string(&page).unwrap();
        let stem = page.file_stem().unwrap().to_string_lossy().into_owned();
        let mut block: Option<(String, usize)> = None;
        let mut current: Option<PathBuf> = None;
        for (i, line) in text.lines().enumerate() {
            match (&mut block, line.trim_start().strip_prefix("```")) {
                (None, Some("luau")) => block = Some((String::new(), i + 1)),
                (None, Some(_)) => block = Some(("\u{0}".into(), i + 1)),
                (Some((body, start)), Some(_)) => {
                    if body.starts_with("-- game") {
                        let folder = dir.path().join(format!("{stem}-{start}"));
                        std::fs::create_dir_all(&folder).unwrap();
                        std::fs::write(folder.join("main.luau"), &body).unwrap();
                        games.push(folder.clone());
                        current = Some(folder);
                    } else if body.starts_with("-- test")
                        && let Some(folder) = &current
                    {
                        std::fs::create_dir_all(folder.join("tests")).unwrap();
                        std::fs::write(folder.join(format!("tests/line{start}.luau")), &body)
                            .unwrap();
                    }
                    block = None;
                }
                (Some((body, _)), None) => {
                    body.push_str(line);
                    body.push('\n');
                }
                (None, None) => {}
            }
        }
    }
    assert!(
        games.len() >= 20,
        "only {} games found in docs/",
        games.len()
    );
    let args: Vec<String> = games.iter().map(|g| g.display().to_string()).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (code, out) = check(dir.path(), &args);
    assert_eq!(code, 0, "{out}");
}

// rule: H10, T1
#[test]
fn the_checker_reads_through_the_hosts_door() {
    let dir = game(&[
        ("main.luau", "return {}\n"),
        ("big.luau", &"local x = 1\n".repeat(200_000)),
    ]);
    let g = dir.path().join("g");
    std::fs::create_dir_all(dir.path().join("outside")).unwrap();
    std::fs::write(
        dir.path().join("outside/secret.luau"),
        "local x: number = 'the-secret-line'\nreturn x\n",
    )
    .unwrap();
    std::os::unix::fs::symlink("../outside/secret.luau", g.join("leak.luau")).unwrap();
    std::os::unix::fs::symlink("/dev/zero", g.join("zero.luau")).unwrap();
    let fifo = std::ffi::CString::new(g.join("pipe.luau").to_str().unwrap()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc_mkfifo(fifo.as_ptr(), 0o600) }, 0);
    std::fs::write(
        g.join("e\x1b]0;title\x07.luau"),
        "local x: number = 'a'\nreturn x\n",
    )
    .unwrap();
    let started = std::time::Instant::now();
    let (code, out) = check(dir.path(), &["g"]);
    assert!(
        started.elapsed().as_secs() < 60,
        "a pipe or a device is never waited on"
    );
    assert_eq!(code, 1, "{out}");
    assert!(
        !out.contains("secret-line"),
        "nothing outside is read: {out}"
    );
    for line in [
        "g/leak.luau:1:1: error: a link that leads outside the game folder",
        "g/zero.luau:1:1: error: a link that leads outside the game folder",
        "g/pipe.luau:1:1: error: it is a pipe, not a file (H10)",
        "g/big.luau:1:1: error: it is 2.3 MiB; the most read is 1 MiB (H10)",
    ] {
        assert!(out.contains(line), "{line}\n{out}");
    }
    assert!(
        out.contains("g/e\\x1b]0;title\\x07.luau"),
        "names are escaped: {out}"
    );
    assert!(!out.contains('\x1b'), "{out}");
}

unsafe extern "C" {
    #[link_name = "mkfifo"]
    fn libc_mkfifo(path: *const std::ffi::c_char, mode: u32) -> i32;
}

// rule: T1
#[test]
fn the_readme_style_game_is_checked_as_a_game() {
    // `return { ... }` with no annotation: the API is checked, a correct
    // `state.n + 1` is no error, and the docs' types are there to name.
    let dir = game(&[(
        "main.luau",
        "local sky: Gradient = { linear = { 0, 0, 0, 100 }, stops = { { 0, \"#000\" }, { 1, \"#fff\" } } }\n\
         return {\n\
         \tinit = function() return { n = 0 } end,\n\
         \tupdate = function(state, input, dt) return { n = state.n + 1 } end,\n\
         \trender = function(state, scene, screen)\n\
         \t\tscreen:rect(0, 0, 10, \"wide\")\n\
         \t\tscreen:rect(0, 0, 10, 10, { fill = sky })\n\
         \tend,\n\
         }\n",
    )]);
    let (code, out) = check(dir.path(), &["g"]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("g/main.luau:6:25: error: Expected this to be 'number', but got 'string'"),
        "{out}"
    );
    assert!(out.contains("1 error"), "only the wrong call: {out}");
}

// rule: T1
#[test]
fn a_game_is_checked_however_its_folder_is_named() {
    // A game with one error in a required module, so both the file's own
    // line and a line about another module name the files as given.
    let dir = game(&[
        ("main.luau", &rendering("screen:rect(0, 0, 10, \"wide\")")),
        ("rules.luau", "local x: number = 'a'\nreturn x\n"),
    ]);
    let g = dir.path().join("g");
    std::fs::create_dir_all(dir.path().join("elsewhere")).unwrap();
    let absolute = g.canonicalize().unwrap().display().to_string();
    for (from, args, prefix) in [
        (g.clone(), vec!["."], ""),
        (g.clone(), vec!["./"], ""),
        (g.clone(), vec![], ""),
        (dir.path().join("elsewhere"), vec!["../g"], "../g/"),
        (dir.path().to_path_buf(), vec!["./g"], "g/"),
        (dir.path().join("elsewhere"), vec![absolute.as_str()], ""),
        (g.clone(), vec!["main.luau"], ""),
        (
            dir.path().join("elsewhere"),
            vec!["../g/main.luau"],
            "../g/",
        ),
    ] {
        let (code, out) = check(&from, &args);
        let prefix = if prefix.is_empty() && args.first() == Some(&absolute.as_str()) {
            format!("{absolute}/")
        } else {
            prefix.to_string()
        };
        assert_eq!(code, 1, "{args:?}: {out}");
        assert!(
            out.contains(&format!(
                "{prefix}main.luau:5:25: error: Expected this to be 'number', but got 'string'"
            )),
            "{args:?}: {out}"
        );
        assert!(!out.contains("no such file"), "{args:?}: {out}");
        if !args.first().is_some_and(|a| a.ends_with(".luau")) {
            assert!(
                out.contains(&format!("{prefix}rules.luau:1:1: error:")),
                "{args:?}: {out}"
            );
            assert!(out.contains("2 files checked, 2 errors"), "{args:?}: {out}");
        }
    }
}

// rule: T1
#[test]
fn scene_colors_are_typed_as_the_screen_s_are() {
    // docs/scene.md: a color is a string or {r, g, b, a}, as on the screen
    // layer; the checker refused a table for objects and lights.
    let dir = game(&[(
        "main.luau",
        &rendering(
            "scene:object(\"box\", { mesh = \"cube\", color = { 1, 0, 0, 0.5 } })\n\
             \t\tscene:light(\"sun\", { kind = \"directional\", color = { 1, 0.9, 0.8 } })\n\
             \t\tscene:object(\"named\", { color = \"tomato\" })",
        ),
    )]);
    let (code, out) = check(dir.path(), &["g"]);
    assert_eq!(code, 0, "{out}");
}
