//! The `moonloop` binary as a user meets it: exit codes and the one line a
//! bad input gets.

mod common;

use std::path::Path;
use std::process::Command;

use common::{game, moonloop};

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

const RUN: &[&str] = &[
    "run",
    "games/spinner",
    "--headless",
    "--clock",
    "constant:1/60",
    "--frames",
    "60",
];

// rule: S7
#[test]
fn print_state_shows_the_state_after_one_simulated_second() {
    let out = moonloop(&[RUN, &["--print-state"]].concat(), repo());
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout.starts_with("{\n  \"angle\": 90,\n"),
        "{}",
        out.stdout
    );
}

// rule: S7
#[test]
fn state_hash_is_the_same_on_every_run() {
    let first = moonloop(&[RUN, &["--state-hash"]].concat(), repo());
    let second = moonloop(&[RUN, &["--state-hash"]].concat(), repo());
    assert_eq!(first.code, 0, "{}", first.stderr);
    assert_eq!(
        first.stdout.trim().len(),
        16,
        "a 64-bit hash in hex: {}",
        first.stdout
    );
    assert_eq!(first.stdout, second.stdout);
    // Pinned to a value computed apart from the host: spinner's update
    // replayed in Python (Luau's `%` written out as a - floor(a/b)*b) and
    // hashed in the documented form. A wrong but stable hash fails here.
    assert_eq!(first.stdout.trim(), "3f0930b807e34ce8");
}

/// Each row: arguments, the exact stderr line, the exit code.
#[test]
fn bad_arguments_get_one_line_and_exit_2() {
    let dir = game(&[
        ("ok/main.luau", "return {}"),
        ("empty/readme.txt", ""),
        ("file.luau", "return {}"),
        ("syntax/main.luau", "local x = = 1\nreturn {}"),
        ("bad.input", "1 press space\n2 jump a\n"),
    ]);
    let pipe =
        std::ffi::CString::new(dir.path().join("pipe").as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: `pipe` is a NUL-terminated path that outlives the call.
    assert_eq!(unsafe { libc::mkfifo(pipe.as_ptr(), 0o600) }, 0);
    let rows: &[(&[&str], &str)] = &[
        (
            &["run", "ok", "--headless", "--bogus"],
            "moonloop: unexpected argument '--bogus' found (see moonloop --help)",
        ),
        (
            &["run", "ok", "--headless", "--recrod", "x.gif"],
            "moonloop: unexpected argument '--recrod' found; did you mean --record? (see moonloop --help)",
        ),
        (
            &["runn", "ok"],
            "moonloop: unrecognized subcommand 'runn'; did you mean run? (see moonloop --help)",
        ),
        (
            &["run", "missing", "--headless"],
            "moonloop: missing: no such game folder",
        ),
        (
            &["run", "pipe", "--headless"],
            "moonloop: pipe: is a pipe or a device; a game is a folder with a main.luau",
        ),
        (
            // `test` said "no such game folder" of a file.
            &["test", "file.luau"],
            "moonloop: file.luau: is a file; a game is a folder with a main.luau",
        ),
        (
            &["build", "ok"],
            "moonloop: the following required arguments were not provided: --out <FILE> (see moonloop --help)",
        ),
        (
            &["explore", "ok", "--clocks", "constant:1/60"],
            "moonloop: the following required arguments were not provided: --check-dt <SCENARIO> (see moonloop --help)",
        ),
        (
            &["bench", "--only", "web"],
            "moonloop: bench: the benchmarks are a development tool, not part of this program: in moonloop's repository run `cargo run --release -p moonloop-bench -- --only web`",
        ),
        (
            &["run", "file.luau", "--headless"],
            "moonloop: file.luau: is a file; a game is a folder with a main.luau",
        ),
        (
            &["run", "empty", "--headless"],
            "moonloop: empty: has no main.luau (or main.lua); a game is a folder with one (G1)",
        ),
        (
            &["run", "syntax", "--headless"],
            "moonloop: syntax/main.luau:1: Expected identifier when parsing expression, got '='",
        ),
        (
            &["run", "ok", "--headless", "--clock", "paced:0"],
            "moonloop: invalid value 'paced:0' for '--clock <SPEC>': bad clock `paced:0`: `0` must be above 0 (see moonloop --help)",
        ),
        (
            &["run", "ok", "--headless", "--clock", "constant:-1"],
            "moonloop: invalid value 'constant:-1' for '--clock <SPEC>': bad clock `constant:-1`: `-1` is negative; a delta is 0 or more seconds (see moonloop --help)",
        ),
        (
            &["run", "ok", "--headless", "--input", "/dev/zero"],
            "moonloop: /dev/zero: cannot read `/dev/zero` (it is a device, not a file)",
        ),
        (
            // It waited for a writer for ever, past Ctrl+C.
            &["run", "ok", "--headless", "--input", "pipe"],
            "moonloop: pipe: cannot read `pipe` (it is a pipe, not a file)",
        ),
        (
            &["run", "ok", "--headless", "--record-input", "ok/main.luau"],
            "moonloop: cannot record input to ok/main.luau: that is a Luau file, and a replay log would replace it (name the log like run.replay)",
        ),
        (
            &["run", "ok", "--headless", "--clock", "constant:1e308"],
            "moonloop: invalid value 'constant:1e308' for '--clock <SPEC>': bad clock `constant:1e308`: `1e308` is seconds a frame, and a frame is at most 1 s (see moonloop --help)",
        ),
        (
            &["run", "ok", "--headless", "--budget", "1e300"],
            "moonloop: invalid value '1e300' for '--budget <SECONDS>': `1e300` s is not a time budget from above 0 to 3600 s (see moonloop --help)",
        ),
        (
            &["run", "ok", "--headless", "--clock", "list:"],
            "moonloop: invalid value 'list:' for '--clock <SPEC>': bad clock `list:`: give one or more deltas, as in `list:1/30,1/60` (see moonloop --help)",
        ),
        (
            &[
                "run",
                "ok",
                "--headless",
                "--clock",
                "jitter:min=0.2,max=0.1",
            ],
            "moonloop: invalid value 'jitter:min=0.2,max=0.1' for '--clock <SPEC>': bad clock `jitter:min=0.2,max=0.1`: min (0.2) is above max (0.1) (see moonloop --help)",
        ),
        (
            &["run", "ok", "--headless", "--frames", "-3"],
            "moonloop: invalid value '-3' for '--frames <N>': invalid digit found in string (see moonloop --help)",
        ),
        (
            &[
                "run",
                "ok",
                "--headless",
                "--input",
                "bad.input",
                "--frames",
                "1",
            ],
            "moonloop: bad.input:2: unknown event `jump`; use press, release, tap, move, wheel, leave, text or axis",
        ),
        (
            &["run", "ok", "--headless", "--input", "nope.input"],
            "moonloop: nope.input: cannot read `nope.input` (there is no such file)",
        ),
        (
            &[
                "run",
                "ok",
                "--headless",
                "--record-input",
                "no/such/dir/x.replay",
                "--frames",
                "1",
            ],
            "moonloop: no/such/dir/x.replay: No such file or directory (os error 2)",
        ),
        (
            &["run", "ok", "--headless", "--replay", "bad.input"],
            "moonloop: bad.input:1: not a replay log: the first line should be `moonloop-replay 3`",
        ),
        (
            &[
                "run",
                "ok",
                "--headless",
                "--frames",
                "1",
                "--record",
                "/proc/nope/out.gif",
            ],
            "moonloop: recording to /proc/nope/out.gif failed: No such file or directory (os error 2)",
        ),
    ];
    for (args, line) in rows {
        let out = moonloop(args, dir.path());
        assert_eq!(out.stderr.trim_end(), *line, "{args:?}");
        assert_eq!(out.code, 2, "{args:?}");
        assert!(
            !out.stderr.contains("internal error")
                && !out.stderr.contains("panicked")
                && !out.stderr.contains("backtrace"),
            "{args:?}"
        );
    }
    // Nothing was written over the game's code.
    assert_eq!(
        std::fs::read_to_string(dir.path().join("ok/main.luau")).unwrap(),
        "return {}"
    );
}

#[cfg(unix)]
#[test]
fn a_path_that_is_not_utf8_is_named_not_panicked_on() {
    use std::os::unix::ffi::OsStrExt;
    let name = std::ffi::OsStr::from_bytes(b"caf\xe9");
    let out = Command::new(env!("CARGO_BIN_EXE_moonloop"))
        .arg("run")
        .arg(name)
        .arg("--headless")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).trim_end(),
        "moonloop: caf\u{fffd}: no such game folder"
    );
}

// rule: S4
#[test]
fn a_failing_game_runs_every_frame_and_exits_1() {
    let dir = game(&[(
        "g/main.luau",
        "return {\n  init = function() return { n = 0 } end,\n  update = function(s)\n    if s.n >= 3 then return nil end\n    return { n = s.n + 1 }\n  end,\n}\n",
    )]);
    let out = moonloop(
        &[
            "run",
            "g",
            "--headless",
            "--clock",
            "constant:1/60",
            "--frames",
            "10",
            "--print-state",
        ],
        dir.path(),
    );
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert_eq!(
        out.stderr,
        "frame 4: g/main.luau:3: S4: update returned nil; return the next state (the host kept the state it had)\n\
         g/main.luau:3: S4: update returned nil; return the next state (the host kept the state it had) (on 7 frames from frame 4)\n"
    );
    assert_eq!(out.stdout, "{\n  \"n\": 3\n}\n", "the last good state");
}

// rule: H9
#[test]
fn a_game_that_loops_forever_finishes_its_frames() {
    let dir = game(&[(
        "g/main.luau",
        "return { config = { budget = 0.05 }, update = function(s) while true do end end }",
    )]);
    let out = moonloop(
        &[
            "run",
            "g",
            "--headless",
            "--clock",
            "constant:1/60",
            "--frames",
            "3",
        ],
        dir.path(),
    );
    assert_eq!(out.code, 1);
    assert!(
        out.stderr.contains("(on 3 frames from frame 1)"),
        "{}",
        out.stderr
    );
}

// rule: H6
#[test]
fn record_input_then_replay_reaches_the_same_hash() {
    let dir = game(&[
        (
            "g/main.luau",
            "return { init = function() return { x = 0 } end, update = function(s, input, dt)\n  return { x = s.x + (if input:down('right') then dt * 7 else -dt) }\nend }",
        ),
        ("moves.input", "2 press right\n0.2s release right\n"),
    ]);
    let recorded = moonloop(
        &[
            "run",
            "g",
            "--headless",
            "--clock",
            "jitter:seed=9,min=0.01,max=0.04",
            "--frames",
            "30",
            "--input",
            "moves.input",
            "--record-input",
            "run.replay",
            "--state-hash",
        ],
        dir.path(),
    );
    assert_eq!(recorded.code, 0, "{}", recorded.stderr);
    let replayed = common::replay(dir.path(), "g", "run.replay", "--state-hash");
    assert_eq!(replayed.code, 0, "{}", replayed.stderr);
    assert_eq!(replayed.stdout, recorded.stdout);
}

#[test]
fn a_paced_headless_run_takes_real_time() {
    // 6 frames at 30 Hz: at least 5 intervals of real time, slept not spun.
    let start = std::time::Instant::now();
    let out = moonloop(
        &[
            "run",
            "games/spinner",
            "--headless",
            "--clock",
            "paced:30",
            "--frames",
            "6",
        ],
        repo(),
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        start.elapsed().as_secs_f64() >= 5.0 / 30.0,
        "{:?}",
        start.elapsed()
    );
}

#[test]
fn moonloop_test_reports_failures_with_file_and_line() {
    let dir = game(&[
        (
            "g/main.luau",
            "return { init = function() return { n = 1 } end, update = function(s) return { n = s.n + 1 } end }",
        ),
        (
            "g/tests/a.luau",
            "test('passes', function()\n  local e = engine.new()\n  e:advance(2)\n  expect(e.state.n).equals(3)\nend)\ntest('fails', function()\n  expect(1).equals(2)\nend)\n",
        ),
        (
            "g/tests/b.luau",
            "test('errors', function()\n  engine.new():advance(-1)\nend)\n",
        ),
    ]);
    let out = moonloop(&["test", "g"], dir.path());
    assert_eq!(out.code, 1);
    assert_eq!(
        out.stdout,
        "ok    g/tests/a.luau: passes\n\
         FAIL  g/tests/a.luau: fails\n      g/tests/a.luau:7: value: expected 2, got 1\n\
         FAIL  g/tests/b.luau: errors\n      g/tests/b.luau:2: advance(-1): the number of ticks is 0 or more\n\
         1 passed, 2 failed\n"
    );
}

// rule: H8
#[test]
fn a_headless_run_with_watch_reloads_an_edited_file() {
    use std::io::{BufRead, BufReader};
    let dir = game(&[(
        "g/main.luau",
        "return { init = function() return { v = 1 } end, update = function(s) return { v = 1 } end }",
    )]);
    let mut child = Command::new(env!("CARGO_BIN_EXE_moonloop"))
        .args([
            "run",
            "g",
            "--headless",
            "--watch",
            "--clock",
            "paced:60",
            "--frames",
            "120",
            "--print-state",
        ])
        .current_dir(dir.path())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    assert_eq!(lines.next().unwrap().unwrap(), "watching g for changes");
    std::fs::write(
        dir.path().join("g/main.luau"),
        "return { init = function() return { v = 1 } end, update = function(s) return { v = 2 } end }",
    )
    .unwrap();
    assert_eq!(lines.next().unwrap().unwrap(), "reloaded g/main.luau");
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "{\n  \"v\": 2\n}\n",
        "the new update ran"
    );
}

// rule: H1
#[test]
fn a_window_runs_its_frames_and_records_them_under_xvfb() {
    let x = common::Xvfb::start();
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_moonloop"))
        .args([
            "run",
            "games/spinner",
            "--frames",
            "20",
            "--no-watch",
            "--print-state",
            "--record",
        ])
        .arg(dir.path().join("frames"))
        .current_dir(repo())
        .env("DISPLAY", &x.display)
        .env_remove("WAYLAND_DISPLAY")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("\"angle\""));
    // A window's recorder drops a frame rather than stall the game when
    // its queue is full; every frame is either written or counted.
    let frames = std::fs::read_dir(dir.path().join("frames"))
        .unwrap()
        .count();
    let dropped: usize = stderr
        .split(" dropped")
        .next()
        .and_then(|s| s.rsplit('(').next())
        .and_then(|n| n.trim().parse().ok())
        .unwrap_or(0);
    assert!(
        stderr.contains(&format!("recorded {frames} frames to")),
        "{stderr}"
    );
    assert_eq!(frames + dropped, 20, "{stderr}");
}

// rule: H7
#[test]
fn a_headless_run_with_nothing_to_play_on_still_names_a_missing_sound_once() {
    // A CI run of a game with a misspelt sound fails as its window would,
    // though it renders no sound (no --audio file).
    let dir = game(&[(
        "g/main.luau",
        "return {\n  init = function() return { n = 0 } end,\n  update = function(s, input)\n    input:cue('coin')\n    if s.n >= 2 then input:cue('jmup') end\n    return { n = s.n + 1 }\n  end,\n}\n",
    )]);
    let out = Command::new(env!("CARGO_BIN_EXE_moonloop"))
        .args(["run", "g", "--headless", "--frames", "10"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert_eq!(
        stderr.lines().collect::<Vec<_>>(),
        [
            "frame 3: cue `jmup`: no sounds/jmup.wav or sounds/jmup.ogg in the game folder, \
             and `jmup` is not a built-in sound (they are blip, coin, hit, jump, explosion, powerup)"
        ],
    );
}

// rule: H7
#[test]
fn a_game_s_own_test_fails_on_a_cue_with_no_sound_and_reads_the_cues_it_has() {
    // `moonloop test` in CI catches the misspelt sound a window would name.
    let dir = game(&[
        (
            "g/main.luau",
            "return {\n  config = { sounds = { wall = 'blip' } },\n  init = function() return { n = 0 } end,\n  update = function(s, input)\n    input:cue('wall')\n    input:cue('coin')\n    if s.n >= 2 then input:cue('jmup') end\n    return { n = s.n + 1 }\n  end,\n}\n",
        ),
        (
            "g/tests/cues.luau",
            "test('two frames cue their sounds', function()\n\tlocal e = engine.new()\n\te:advance(2)\n\texpect(#e.cues).equals(4)\nend)\n\ntest('the third cues a sound that is not there', function()\n\tlocal e = engine.new()\n\te:advance(3)\nend)\n",
        ),
    ]);
    let out = Command::new(env!("CARGO_BIN_EXE_moonloop"))
        .args(["test", "g"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(
        stdout.contains("ok    g/tests/cues.luau: two frames cue their sounds"),
        "{stdout}"
    );
    assert!(
        stdout.contains("FAIL  g/tests/cues.luau: the third cues a sound that is not there"),
        "{stdout}"
    );
    assert!(
        stdout.contains("g/tests/cues.luau:9: cue `jmup`: no sounds/jmup.wav or sounds/jmup.ogg"),
        "{stdout}"
    );
    assert!(stdout.contains("1 passed, 1 failed"), "{stdout}");
}

// rule: H7
#[test]
fn a_window_plays_cues_and_names_a_missing_sound_once() {
    let x = common::Xvfb::start();
    let dir = game(&[(
        "g/main.luau",
        "return {\n  config = { sounds = { wall = 'blip' } },\n  init = function() return { n = 0 } end,\n  update = function(s, input)\n    input:cue('wall')\n    input:cue('coin', { pan = -1 })\n    input:cue('boing')\n    return { n = s.n + 1 }\n  end,\n}\n",
    )]);
    let run = |audio: &str| {
        let out = Command::new(env!("CARGO_BIN_EXE_moonloop"))
            .args(["run", "g", "--frames", "10", "--no-watch", "--audio", audio])
            .current_dir(dir.path())
            .env("DISPLAY", &x.display)
            .env_remove("WAYLAND_DISPLAY")
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    // ALSA's `null` device takes the sound and needs no sound card.
    let (code, stderr) = run("null");
    let (code_missing, stderr_missing) = run("no-such-device");
    // A sound that cannot play is a frame's error, in a window as in a
    // headless run (one session drives both): named once, and exit 1.
    assert_eq!(code, Some(1), "{stderr}");
    let lines: Vec<&str> = stderr
        .lines()
        .filter(|l| !l.contains("XDG_RUNTIME_DIR"))
        .collect();
    assert_eq!(
        lines,
        [
            "frame 1: cue `boing`: no sounds/boing.wav or sounds/boing.ogg in the game folder, \
          and `boing` is not a built-in sound (they are blip, coin, hit, jump, explosion, powerup)"
        ],
        "played on 10 frames, named once"
    );
    assert_eq!(
        code_missing,
        Some(1),
        "no device is not an error, the missing sound is: {stderr_missing}"
    );
    assert!(
        stderr_missing
            .lines()
            .next()
            .unwrap()
            .starts_with("moonloop: no sound: none (no ALSA device `no-such-device`)"),
        "{stderr_missing}"
    );
}

// rule: H1
#[test]
fn without_a_display_a_window_suggests_headless() {
    let out = Command::new(env!("CARGO_BIN_EXE_moonloop"))
        .args(["run", "games/spinner"])
        .current_dir(repo())
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).trim_end(),
        "moonloop: there is no display to open a window on (DISPLAY and WAYLAND_DISPLAY are unset); add --headless"
    );
}

// rule: K4
#[test]
fn check_dt_names_a_clock_whose_outcome_differs() {
    let dir = game(&[
        (
            "g/main.luau",
            "return { init = function() return { frames = 0, t = 0 } end, update = function(s, input, dt) return { frames = s.frames + 1, t = s.t + dt } end }",
        ),
        (
            "g/good.luau",
            "return { seconds = 1, outcome = function(state) return { done = state.t > 0.999 } end }",
        ),
        (
            "g/bad.luau",
            "return { seconds = 1, outcome = function(state) return { frames = state.frames } end }",
        ),
    ]);
    let good = moonloop(&["check-dt", "g", "--scenario", "good.luau"], dir.path());
    assert_eq!(good.code, 0, "{}{}", good.stdout, good.stderr);
    assert!(
        good.stdout.ends_with("all 4 clocks agree\n"),
        "{}",
        good.stdout
    );
    let bad = moonloop(
        &[
            "check-dt",
            "g",
            "--scenario",
            "bad.luau",
            "--clocks",
            "constant:1/60,constant:1/30",
        ],
        dir.path(),
    );
    assert_eq!(bad.code, 1);
    assert!(
        bad.stdout.contains(
            "K4: under constant:1/30 the outcome was { \"frames\": 30 }, not { \"frames\": 60 }"
        ),
        "{}",
        bad.stdout
    );
}

#[test]
fn a_gpu_run_without_a_runtime_dir_prints_nothing_the_author_need_not_read() {
    let dir = game(&[(
        "g/main.luau",
        "return { render = function(s, scene, screen) screen:rect(0, 0, 10, 10) end }",
    )]);
    let out = Command::new(env!("CARGO_BIN_EXE_moonloop"))
        .args([
            "run",
            "g",
            "--headless",
            "--clock",
            "constant:1/60",
            "--frames",
            "2",
            "--record",
            "o.png",
        ])
        .current_dir(dir.path())
        .env_remove("XDG_RUNTIME_DIR")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert_eq!(stderr.trim(), "recorded 2 frames to o.png", "{stderr}");
}

#[test]
fn check_dt_prints_clocks_as_written_and_counts_one_clock_in_the_singular() {
    let dir = game(&[
        (
            "g/main.luau",
            "return { init = function() return { t = 0 } end, update = function(s, input, dt) return { t = s.t + dt } end }",
        ),
        (
            "g/s.luau",
            "return { seconds = 1, outcome = function(state) return { done = state.t > 0.999 } end }",
        ),
    ]);
    let out = moonloop(
        &[
            "check-dt",
            "g",
            "--scenario",
            "s.luau",
            "--clocks",
            "list:1/20,1/200,1/75",
        ],
        dir.path(),
    );
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(
        out.stdout.contains("\nlist:1/20,1/200,1/75 "),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout
            .ends_with("the one clock ran; name two or more with --clocks to compare them\n"),
        "{}",
        out.stdout
    );
}

// rule: H7
#[test]
fn check_dt_fails_a_run_that_cues_a_sound_that_is_not_there() {
    // A scenario looks cues up as a window would: the misspelt sound is
    // named under every clock, with the frame it was cued on.
    let dir = game(&[
        (
            "g/main.luau",
            "return {\n  config = { sounds = { wall = 'blip' } },\n  init = function() return { t = 0 } end,\n  update = function(s, input, dt)\n    input:cue('wall')\n    if s.t > 0.5 then input:cue('jmup') end\n    return { t = s.t + dt }\n  end,\n}\n",
        ),
        (
            "g/s.luau",
            "return { seconds = 1, outcome = function(state, cues) return { cues = #cues } end }",
        ),
    ]);
    let out = moonloop(
        &[
            "check-dt",
            "g",
            "--scenario",
            "s.luau",
            "--clocks",
            "constant:1/60,constant:1/30",
        ],
        dir.path(),
    );
    assert_eq!(out.code, 1, "{}{}", out.stdout, out.stderr);
    assert!(
        out.stdout
            .contains("cue `jmup`: no sounds/jmup.wav or sounds/jmup.ogg"),
        "{}",
        out.stdout
    );
    assert!(!out.stdout.contains("clocks agree"), "{}", out.stdout);
}

/// A scenario's cues have the shape tests' `e.cues` has, and its input may
/// name the game's actions instead of keys.
#[test]
fn scenarios_see_whole_cues_and_script_actions() {
    let dir = game(&[
        (
            "g/main.luau",
            r#"return {
                config = { actions = { fire = { "x", "space" } }, sounds = { shot = "blip" } },
                init = function() return { shots = 0 } end,
                update = function(s, input, dt)
                    if input:pressed("fire") then
                        input:cue("shot", { volume = 0.5, pitch = 2, pan = -1 })
                        return { shots = s.shots + 1 }
                    end
                    return s
                end,
            }"#,
        ),
        (
            "g/s.luau",
            r#"return {
                seconds = 1,
                input = { "0.25s tap fire", "0.5s tap space" },
                outcome = function(state, cues)
                    local c = cues[1]
                    return { shots = state.shots, cue = { c.name, c.volume, c.pitch, c.pan, #cues } }
                end,
            }"#,
        ),
    ]);
    let out = moonloop(&["check-dt", "g", "--scenario", "s.luau"], dir.path());
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(
        out.stdout
            .contains(r#"{ "cue": [ "shot", 0.5, 2, -1, 2 ], "shots": 2 } (reference)"#),
        "{}",
        out.stdout
    );
}

#[test]
fn an_input_file_may_press_an_action() {
    let dir = game(&[
        (
            "g/main.luau",
            r#"return {
                config = { actions = { fire = { "x" } } },
                init = function() return { shots = 0 } end,
                update = function(s, input, dt)
                    return if input:pressed("x") then { shots = s.shots + 1 } else s
                end,
            }"#,
        ),
        ("g/play.txt", "2 tap fire\n4 tap x\n"),
    ]);
    let out = moonloop(
        &[
            "run",
            "g",
            "--headless",
            "--clock",
            "constant:1/60",
            "--frames",
            "6",
            "--input",
            "g/play.txt",
            "--print-state",
        ],
        dir.path(),
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("\"shots\": 2"), "{}", out.stdout);
    let bad = game(&[
        ("g/main.luau", "return {}"),
        ("g/play.txt", "1 press fire\n"),
    ]);
    let out = common::headless(
        bad.path(),
        "g",
        "constant:1/60",
        2,
        &["--input", "g/play.txt"],
    );
    assert_eq!(out.code, 2);
    assert!(
        out.stderr.contains("play.txt:1: unknown key `fire`"),
        "{}",
        out.stderr
    );
}

#[test]
fn an_action_named_like_a_key_must_bind_that_key() {
    let dir = game(&[(
        "g/main.luau",
        r#"return { config = { actions = { up = { "w" } } } }"#,
    )]);
    let out = common::headless(dir.path(), "g", "constant:1/60", 1, &[]);
    assert_eq!(out.code, 2);
    assert_eq!(
        out.stderr.trim_end(),
        "moonloop: g/main.luau: config.actions.up is named like the key `up` but does not bind it, \
         so input:down(\"up\") would stop reading that key; add \"up\" to its keys or rename the action"
    );
    // Binding the key it is named after is how pong does it.
    let ok = game(&[(
        "g/main.luau",
        r#"return { config = { actions = { up = { "w", "up" } } } }"#,
    )]);
    let out = moonloop(
        &[
            "run",
            "g",
            "--headless",
            "--frames",
            "1",
            "--clock",
            "constant:1/60",
        ],
        ok.path(),
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
}

/// Every format makes the folders it needs; a name that is no format is
/// refused before anything is written.
#[test]
fn recordings_make_their_folders_and_refuse_unknown_formats() {
    let dir = game(&[(
        "g/main.luau",
        "return { render = function(s, scene, screen) screen:rect(0, 0, 10, 10) end }",
    )]);
    let record = |to: &str| {
        moonloop(
            &[
                "run",
                "g",
                "--headless",
                "--clock",
                "constant:1/60",
                "--frames",
                "2",
                "--record",
                to,
            ],
            dir.path(),
        )
    };
    for to in [
        "out/play.gif",
        "out/a/b/play.png",
        "out/frames/",
        "out/shots.v2/",
    ] {
        let out = record(to);
        assert_eq!(out.code, 0, "{to}: {}", out.stderr);
    }
    assert!(dir.path().join("out/play.gif").is_file());
    assert!(dir.path().join("out/a/b/play.png").is_file());
    assert!(dir.path().join("out/frames/frame-00002.png").is_file());
    assert!(dir.path().join("out/shots.v2/frame-00002.png").is_file());
    let out = record("x.webp");
    assert_eq!(out.code, 2);
    assert_eq!(
        out.stderr.trim_end(),
        "moonloop: cannot record to x.webp: `.webp` is not a recording format; name a .gif, \
         a .png (animated), or a folder for numbered PNGs (end it with / if its name has a dot)"
    );
    assert!(!dir.path().join("x.webp").exists());
    // No extension names a folder of frames: over a file, one line says so.
    std::fs::write(dir.path().join("notes"), "mine").unwrap();
    let out = record("notes");
    assert_eq!(
        (out.code, out.stderr.trim_end()),
        (
            2,
            "moonloop: cannot record to notes: it is a file, and a name without .gif or .png is \
             a folder of numbered PNGs; name a .gif or a .png, or a new folder"
        )
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("notes")).unwrap(),
        "mine"
    );
}

/// `moonloop ... | head -1`: once the reader has gone, the host stops (or,
/// for a run, carries on) without a word, never as an internal error.
#[test]
fn a_closed_pipe_is_not_an_internal_error() {
    use std::os::unix::process::ExitStatusExt;
    use std::process::Stdio;
    let closed = |args: &[&str]| {
        let mut child = Command::new(env!("CARGO_BIN_EXE_moonloop"))
            .args(args)
            .current_dir(repo())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        drop(child.stdout.take()); // the reader goes away at once
        let out = child.wait_with_output().unwrap();
        (
            out.status,
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (status, stderr) = closed(&["test", "runtime"]);
    assert_eq!(stderr, "", "{status:?}");
    assert_eq!(status.signal(), Some(libc::SIGPIPE), "{status:?}");
    let (status, stderr) = closed(&[RUN, &["--print-state"]].concat());
    assert_eq!(stderr, "");
    assert_eq!(status.code(), Some(0));
}

// rule: C1 (docs/input.md, "Quitting")
#[test]
fn a_game_that_asks_to_quit_ends_the_run_after_that_frame() {
    let dir = game(&[(
        "g/main.luau",
        r#"local failed_once = false
        return {
          init = function() return { n = 0 } end,
          update = function(s, input)
            local n = s.n + 1
            if n == 3 and not failed_once then
              failed_once = true
              input:quit()
              error("a frame that fails does not quit")
            end
            if n == 5 then input:quit() end
            return { n = n }
          end,
        }"#,
    )]);
    // Without --frames a wall clock would run forever; the game ends it.
    let out = moonloop(
        &["run", "g", "--headless", "--clock", "wall", "--print-state"],
        dir.path(),
    );
    assert_eq!(out.code, 1, "frame 3 failed: {}", out.stderr);
    assert!(
        out.stderr.contains("a frame that fails does not quit"),
        "{}",
        out.stderr
    );
    assert!(out.stdout.contains("\"n\": 5"), "{}", out.stdout);
}

// rule: T1
#[test]
fn moonloop_check_without_the_checker_says_how_to_build_it() {
    // A copy of the binary in a folder of its own has no checker beside it.
    let dir = tempfile::tempdir().unwrap();
    let alone = dir.path().join("moonloop");
    // Copied by `cp`, not in this process: a file this process holds
    // open for writing is inherited by any child another test thread
    // forks meanwhile, and running it then fails ("text file busy").
    let copied = std::process::Command::new("cp")
        .arg(common::binary())
        .arg(&alone)
        .status()
        .unwrap();
    assert!(copied.success());
    let out = std::process::Command::new(&alone)
        .args(["check", "."])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        stderr.trim(),
        "moonloop check: the type checker is not built; build it with \
         `cargo build --release -p moonloop-check` (it goes beside moonloop)"
    );
}

// rule: T2
#[test]
fn moonloop_new_makes_a_game_that_runs_and_passes_its_test() {
    let dir = tempfile::tempdir().unwrap();
    let out = moonloop(&["new", "space-trip"], dir.path());
    assert_eq!(out.code, 0, "{}", out.stderr);
    let game = dir.path().join("space-trip");
    for file in [
        "main.luau",
        "tests/main.luau",
        "README.md",
        ".luaurc",
        ".vscode/settings.json",
        ".moonloop/moonloop.d.luau",
        ".moonloop/runtime/timer.luau",
    ] {
        assert!(game.join(file).is_file(), "no {file}");
    }
    let main = std::fs::read_to_string(game.join("main.luau")).unwrap();
    assert!(main.contains("local game: Game<State> = {"), "{main}");
    assert!(main.contains("title = \"Space Trip\""), "{main}");
    let readme = std::fs::read_to_string(game.join("README.md")).unwrap();
    assert!(readme.contains("## Running"), "{readme}");
    let tested = moonloop(&["test", "space-trip"], dir.path());
    assert_eq!(tested.code, 0, "{}{}", tested.stdout, tested.stderr);
    assert!(
        tested.stdout.contains("1 passed, 0 failed"),
        "{}",
        tested.stdout
    );
    let ran = moonloop(
        &[
            "run",
            "space-trip",
            "--headless",
            "--clock",
            "constant:1/60",
            "--frames",
            "5",
        ],
        dir.path(),
    );
    assert_eq!(ran.code, 0, "{}", ran.stderr);
    // A second time, or with a name that is no name, is one line and exit 2.
    let again = moonloop(&["new", "space-trip"], dir.path());
    assert_eq!(again.code, 2);
    assert_eq!(
        again.stderr.trim(),
        "moonloop: `space-trip` exists already; name a folder that does not"
    );
    let bad = moonloop(&["new", "two words"], dir.path());
    assert_eq!(bad.code, 2);
    assert!(bad.stderr.contains("is not a game name"), "{}", bad.stderr);
}

// rule: T2
#[test]
fn moonloop_new_refuses_names_its_game_could_not_use_and_quotes_the_commands_it_prints() {
    let dir = tempfile::tempdir().unwrap();
    // A name read as an option by every command printed, one longer than
    // config.id may be, a path with a line break (written into the game's
    // Luau): refused, one line each, nothing made.
    let long = "a".repeat(65);
    for (name, said) in [
        ("-rf", "is not a game name: a letter or a digit, then"),
        (long.as_str(), "at most 64 in all"),
        ("x\nerror('boom')\n--/game", "holds a control character"),
    ] {
        let out = moonloop(&["new", "--", name], dir.path());
        assert_eq!(out.code, 2, "{name:?}: {}", out.stderr);
        assert!(out.stderr.contains(said), "{name:?}: {}", out.stderr);
        assert_eq!(out.stderr.lines().count(), 1, "{}", out.stderr);
    }
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        0,
        "nothing made"
    );
    // 64 characters is a name; a folder with a space is quoted in what is
    // printed and written, and the game passes its own test.
    let most = "b".repeat(64);
    let out = moonloop(&["new", &most], dir.path());
    assert_eq!(out.code, 0, "{}", out.stderr);
    let tested = moonloop(&["test", &most], dir.path());
    assert!(
        tested.stdout.contains("1 passed, 0 failed"),
        "{}{}",
        tested.stdout,
        tested.stderr
    );
    std::fs::create_dir(dir.path().join("my games")).unwrap();
    let out = moonloop(&["new", "my games/orb"], dir.path());
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout.contains("`moonloop run 'my games/orb'`"),
        "{}",
        out.stdout
    );
    let readme = std::fs::read_to_string(dir.path().join("my games/orb/README.md")).unwrap();
    assert!(readme.contains("moonloop run 'my games/orb'"), "{readme}");
    let tested = moonloop(&["test", "my games/orb"], dir.path());
    assert!(
        tested.stdout.contains("1 passed, 0 failed"),
        "{}{}",
        tested.stdout,
        tested.stderr
    );
}

// rule: T2
#[test]
fn the_2d_template_uses_a_sheet_a_sound_a_font_a_save_and_a_scenario_and_passes() {
    let dir = tempfile::tempdir().unwrap();
    let out = moonloop(&["new", "orb-run", "--template", "2d"], dir.path());
    assert_eq!(out.code, 0, "{}", out.stderr);
    let game = dir.path().join("orb-run");
    for file in [
        "sprites.png",
        "sounds/pickup.wav",
        "fonts/pixel5x7.ttf",
        "fly.scenario.luau",
        "tests/main.luau",
    ] {
        assert!(game.join(file).is_file(), "no {file}");
    }
    let main = std::fs::read_to_string(game.join("main.luau")).unwrap();
    for used in [
        "\"sprites.png\"",
        "\"sounds/pickup.wav\"",
        "\"fonts/pixel5x7.ttf\"",
        "input:save(",
        "init(saved",
        "scaling = \"whole\"",
    ] {
        assert!(main.contains(used), "main.luau uses {used}");
    }
    let tested = moonloop(&["test", "orb-run"], dir.path());
    assert_eq!(tested.code, 0, "{}{}", tested.stdout, tested.stderr);
    assert!(
        tested.stdout.contains("4 passed, 0 failed"),
        "{}",
        tested.stdout
    );
    let agreed = moonloop(
        &["check-dt", "orb-run", "--scenario", "fly.scenario.luau"],
        dir.path(),
    );
    assert_eq!(agreed.code, 0, "{}{}", agreed.stdout, agreed.stderr);
    assert!(
        agreed.stdout.contains("all 4 clocks agree"),
        "{}",
        agreed.stdout
    );
    let unknown = moonloop(&["new", "x", "--template", "4d"], dir.path());
    assert_eq!(unknown.code, 2);
    assert!(
        unknown.stderr.contains("possible values: blank, 2d, 3d"),
        "{}",
        unknown.stderr
    );
}

// rule: T2
#[test]
fn the_3d_template_has_a_model_shadows_a_sky_and_picking_and_passes() {
    let dir = tempfile::tempdir().unwrap();
    let out = moonloop(&["new", "grove", "--template", "3d"], dir.path());
    assert_eq!(out.code, 0, "{}", out.stderr);
    let game = dir.path().join("grove");
    assert!(game.join("models/tree.gltf").is_file());
    let main = std::fs::read_to_string(game.join("main.luau")).unwrap();
    for used in [
        "\"models/tree.gltf\"",
        "kind = \"directional\"",
        "scene:sky(",
        "scene:fog(",
        "input:hover()",
    ] {
        assert!(main.contains(used), "main.luau uses {used}");
    }
    let tested = moonloop(&["test", "grove"], dir.path());
    assert_eq!(tested.code, 0, "{}{}", tested.stdout, tested.stderr);
    assert!(
        tested.stdout.contains("3 passed, 0 failed"),
        "{}",
        tested.stdout
    );
    // The model draws whole: nothing in it is said to be left out.
    assert!(!tested.stderr.contains("note:"), "{}", tested.stderr);
    let checked = moonloop(&["check", "grove"], dir.path());
    assert_eq!(checked.code, 0, "{}{}", checked.stdout, checked.stderr);
    // The shadow test is a real one: without shadows it fails.
    let unshadowed = main.replace("intensity = 0.9 }", "intensity = 0.9, shadows = false }");
    assert_ne!(unshadowed, main);
    std::fs::write(game.join("main.luau"), unshadowed).unwrap();
    let tested = moonloop(&["test", "grove"], dir.path());
    assert!(
        tested.stdout.contains("2 passed, 1 failed"),
        "{}",
        tested.stdout
    );
}

/// Starts a headless run of `main` and returns it once its first frame
/// has printed `started`, with what it wrote to stderr before.
#[cfg(unix)]
fn started_run(
    main: &str,
    extra: &[&str],
) -> (
    std::process::Child,
    tempfile::TempDir,
    std::thread::JoinHandle<String>,
) {
    use std::io::{BufRead, BufReader};
    let dir = game(&[("g/main.luau", main)]);
    let mut child = Command::new(common::binary())
        .args([
            "run",
            "g",
            "--headless",
            "--clock",
            "paced:60",
            "--frames",
            "100000",
        ])
        .args(extra)
        .current_dir(dir.path())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let first = lines.next().expect("a line").unwrap();
    assert!(first.contains("started"), "{first}");
    // The rest of stderr drains in the background.
    let rest = std::thread::spawn(move || {
        lines
            .map_while(Result::ok)
            .collect::<Vec<String>>()
            .join("\n")
    });
    (child, dir, rest)
}

#[cfg(unix)]
#[test]
fn a_signal_sent_twice_at_once_is_one_interrupt() {
    // A closing terminal hangs up its whole process group and the shell
    // passes SIGHUP on to its jobs: the run gets it twice, and must still
    // stop between frames and finish its recording, not die at once.
    let main = r#"return {
  init = function() return { n = 0 } end,
  update = function(s) if s.n == 0 then print("started") end return { n = s.n + 1 } end,
  render = function(s, scene, screen) screen:rect(0, 0, 10, 10, { fill = "white" }) end,
}"#;
    let (mut child, dir, rest) = started_run(main, &["--record", "out.gif"]);
    // The second a little after the first, so both arrive (two sent at
    // once may merge into one pending signal).
    for _ in 0..2 {
        // SAFETY: signalling a child we spawned.
        unsafe { libc::kill(child.id() as i32, libc::SIGHUP) };
        std::thread::sleep(std::time::Duration::from_millis(30));
    }
    let status = child.wait().unwrap();
    let rest = rest.join().unwrap();
    assert_eq!(
        status.code(),
        Some(130),
        "stopped between frames, not at once: {rest}"
    );
    assert!(rest.contains("moonloop: interrupted after frame"), "{rest}");
    let gif = std::fs::read(dir.path().join("out.gif")).unwrap();
    assert!(
        gif.starts_with(b"GIF89a") && gif.ends_with(b";"),
        "a whole GIF"
    );
}

#[cfg(unix)]
#[test]
fn a_second_signal_later_ends_the_run_at_once() {
    // The first Ctrl+C lands in a frame that takes 3 s; a second one half
    // a second later does not wait for it.
    let main = r#"return {
  init = function() return { n = 0 } end,
  update = function(s)
    print("started")
    local x = 0
    for i = 1, 3e9 do x += i % 7 end
    return { n = s.n + 1, x = x }
  end,
}"#;
    let (mut child, _dir, rest) = started_run(main, &["--budget", "60"]);
    let began = std::time::Instant::now();
    // SAFETY: signalling a child we spawned.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    std::thread::sleep(moonloop::interrupt::ECHO * 2);
    // SAFETY: as above.
    unsafe { libc::kill(child.id() as i32, libc::SIGINT) };
    let status = child.wait().unwrap();
    let rest = rest.join().unwrap();
    assert_eq!(status.code(), Some(130), "{rest}");
    assert!(!rest.contains("interrupted after frame"), "{rest}");
    assert!(
        began.elapsed() < std::time::Duration::from_secs(2),
        "ended at once, not after the frame: {:?}",
        began.elapsed()
    );
}

/// Runs the host from `dir` with files capped at 20,000 bytes (as
/// `ulimit -f` caps them) and its temporary folder in `dir`.
fn under_a_file_size_limit(args: &[&str], dir: &std::path::Path) -> common::Outcome {
    let out = std::process::Command::new("prlimit")
        .arg("--fsize=20000")
        .arg("--")
        .arg(common::binary())
        .args(args)
        .env("TMPDIR", dir)
        .current_dir(dir)
        .output()
        .unwrap();
    common::Outcome {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// A trivial game that draws nothing.
const STILL: &str = "return { init = function() return {} end, update = function(s) return s end }";

// docs/cli.md, "Exit codes"
#[test]
fn a_run_the_machine_stops_exits_3_and_one_the_person_s_input_stops_exits_2() {
    let dir = game(&[("g/main.luau", STILL)]);
    // A disk that refuses more (here a file-size limit, as `ulimit -f`
    // sets): the machine's doing.
    let noisy = "return { render = function(s, scene, screen) for i = 1, 50 do \
                 screen:rect(math.random() * 300, math.random() * 200, 20, 20, \
                 { fill = 'red' }) end end }";
    std::fs::write(dir.path().join("g/main.luau"), noisy).unwrap();
    let out = under_a_file_size_limit(
        &[
            "run",
            "g",
            "--headless",
            "--frames",
            "60",
            "--record",
            "full.gif",
        ],
        dir.path(),
    );
    assert_eq!(out.code, 3, "{}", out.stderr);
    assert_eq!(out.stderr.lines().count(), 1, "{}", out.stderr);
    assert!(out.stderr.contains("File too large"), "{}", out.stderr);
    std::fs::write(dir.path().join("g/main.luau"), STILL).unwrap();
    // A device named as the file is the person's input: it is refused
    // (it was written into).
    std::os::unix::fs::symlink("/dev/full", dir.path().join("full-device.gif")).unwrap();
    let out = moonloop(
        &[
            "run",
            "g",
            "--headless",
            "--frames",
            "2",
            "--record",
            "full-device.gif",
        ],
        dir.path(),
    );
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(
        out.stderr.contains("it is a device or a pipe, not a file"),
        "{}",
        out.stderr
    );
    // A folder that is not there is the person's: they named it.
    let out = moonloop(
        &[
            "run",
            "g",
            "--headless",
            "--frames",
            "2",
            "--record",
            "/proc/nowhere/x.gif",
        ],
        dir.path(),
    );
    assert_eq!(out.code, 2, "{}", out.stderr);
    // A replay the person named that is a device, or is not there, is
    // their input too (the reason was read as a string and exited 3).
    for replay in ["/dev/zero", "nowhere.replay"] {
        let out = moonloop(
            &["seek", "g", "--replay", replay, "--when", "true"],
            dir.path(),
        );
        assert_eq!(out.code, 2, "{replay}: {}", out.stderr);
        let out = moonloop(&["run", "g", "--headless", "--replay", replay], dir.path());
        assert_eq!(out.code, 2, "{replay}: {}", out.stderr);
    }
    let out = moonloop(&["build", "g", "-o", "/proc/x.bin"], dir.path());
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(
        out.stderr
            .starts_with("moonloop: cannot write /proc/x.bin: "),
        "{}",
        out.stderr
    );
    // What the person typed: a missing game, a bad clock, a place the
    // executable may not go.
    assert_eq!(moonloop(&["run", "nope", "--headless"], dir.path()).code, 2);
    let out = moonloop(
        &["run", "g", "--headless", "--clock", "sundial"],
        dir.path(),
    );
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert_eq!(
        moonloop(&["build", "g", "-o", "g/x.bin"], dir.path()).code,
        2
    );
    // A zipped game that does not unpack is the person's; one the disk
    // will not take as it unpacks is the machine's (it exited 2 too).
    std::fs::write(dir.path().join("g/big.txt"), "x".repeat(100_000)).unwrap();
    let zip = moonloop::package::zip_folder(&dir.path().join("g")).unwrap();
    std::fs::write(dir.path().join("g.zip"), &zip).unwrap();
    std::fs::write(dir.path().join("bad.zip"), "not a zip").unwrap();
    let out = moonloop(
        &["run", "bad.zip", "--headless", "--frames", "1"],
        dir.path(),
    );
    assert_eq!(out.code, 2, "{}", out.stderr);
    let out = under_a_file_size_limit(&["run", "g.zip", "--headless", "--frames", "1"], dir.path());
    assert_eq!(out.code, 3, "{}", out.stderr);
    assert_eq!(
        out.stderr.trim(),
        "moonloop: g.zip: cannot unpack g/big.txt: File too large (os error 27)"
    );
}

/// A game a person might be standing in: state that moves, a caught
/// error from `require` kept in the state (so a message that named the
/// folder as given would change the hash), a test and a scenario.
const FORMS_GAME: &[(&str, &str)] = &[
    (
        "g/main.luau",
        "local ok, err = pcall(require, \"../outside\")\n\
         return {\n\
         \tinit = function() return { n = 0, err = tostring(err), ok = ok } end,\n\
         \tupdate = function(state, input, dt) return { n = state.n + dt, err = state.err, ok = state.ok } end,\n\
         \trender = function(state, scene, screen) end,\n\
         }\n",
    ),
    (
        "g/tests/count.luau",
        "test(\"it counts\", function()\n\
         \tlocal e = engine.new({ clock = \"constant:1/60\" })\n\
         \te:advance(60)\n\
         \texpect(e.state.n).near(1, 1e-9)\n\
         end)\n",
    ),
    (
        "g/one.scenario.luau",
        "return { seconds = 1, outcome = function(state) return { whole = math.floor(state.n + 0.5) } end }\n",
    ),
    ("elsewhere/.keep", ""),
];

// rule: G1
#[test]
fn every_command_takes_a_game_folder_in_every_form() {
    let dir = game(FORMS_GAME);
    let root = dir.path();
    let g = root.join("g");
    let elsewhere = root.join("elsewhere");
    let absolute = g.canonicalize().unwrap().display().to_string();
    // (where the command runs, how it names the game)
    let forms: [(&Path, &str); 5] = [
        (root, "g"),
        (&g, "."),
        (&g, "./"),
        (&elsewhere, "../g"),
        (&elsewhere, &absolute),
    ];
    let hash = |from: &Path, name: &str| {
        let out = common::headless(from, name, "constant:1/60", 30, &["--state-hash"]);
        assert_eq!(out.code, 0, "run {name}: {}", out.stderr);
        out.stdout
    };
    let first = hash(root, "g");
    for (from, name) in forms {
        assert_eq!(
            hash(from, name),
            first,
            "`run {name}` plays the same game to the same hash"
        );
        let out = moonloop(&["test", name], from);
        assert_eq!(out.code, 0, "test {name}: {}{}", out.stdout, out.stderr);
        assert!(
            out.stdout.contains("1 passed, 0 failed"),
            "test {name}: {}",
            out.stdout
        );
        let out = moonloop(&["synctest", name, "--frames", "20"], from);
        assert_eq!(out.code, 0, "synctest {name}: {}{}", out.stdout, out.stderr);
        let out = moonloop(&["check-dt", name, "--scenario", "one.scenario.luau"], from);
        assert_eq!(out.code, 0, "check-dt {name}: {}{}", out.stdout, out.stderr);
        let report = root.join("explored");
        let out = moonloop(
            &[
                "explore",
                name,
                "--runs",
                "2",
                "--frames",
                "10",
                "-j",
                "1",
                "--out",
                &report.display().to_string(),
            ],
            from,
        );
        assert_eq!(out.code, 0, "explore {name}: {}{}", out.stdout, out.stderr);
    }
    // With no game named, `test` tests the game it stands in.
    let out = moonloop(&["test"], &g);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(out.stdout.contains("1 passed, 0 failed"), "{}", out.stdout);
}
