//! History outside a test file (rules R1-R4): replays opened at a frame,
//! `moonloop seek`, the bug report folder, and their bad inputs.

mod common;

use std::path::Path;

use common::{Outcome, game, moonloop};
use moonloop::{compositor::Compositor, history, report};

/// A game that counts frames and presses, with a NaN from frame 40 on.
const COUNTER: &str = r#"
return {
  config = { title = "counter" },
  init = function() return { n = 0, presses = 0, speed = 1 } end,
  update = function(state, input, dt)
    local presses = state.presses + (if input:pressed("space") then 1 else 0)
    local speed = if state.n >= 40 then 0 / 0 else 1
    return { n = state.n + 1, presses = presses, speed = speed }
  end,
}
"#;

const INPUT: &str = "5 tap space\n20 tap space\n";

/// Records 60 frames of the counter to `run.replay` in `dir`.
fn recorded() -> tempfile::TempDir {
    let dir = game(&[
        ("g/main.luau", COUNTER),
        ("g/in.txt", INPUT),
        ("other/main.luau", "return { config = { id = \"other\" } }"),
    ]);
    let out = run(
        dir.path(),
        &[
            "run",
            "g",
            "--headless",
            "--clock",
            "constant:1/60",
            "--frames",
            "60",
            "--input",
            "g/in.txt",
            "--record-input",
            "run.replay",
        ],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    dir
}

/// Records `frames` frames of the game `main` to a replay (the run
/// exiting `recorded`), then seeks the first frame where `when` holds.
fn recorded_then_sought(main: &str, frames: &str, recorded: i32, when: &str) -> Outcome {
    let dir = game(&[("g/main.luau", main)]);
    let out = run(
        dir.path(),
        &[
            "run",
            "g",
            "--headless",
            "--clock",
            "constant:1/60",
            "--frames",
            frames,
            "--record-input",
            "run.replay",
        ],
    );
    assert_eq!(out.code, recorded, "{}", out.stderr);
    run(
        dir.path(),
        &["seek", "g", "--replay", "run.replay", "--when", when],
    )
}

fn run(dir: &Path, args: &[&str]) -> Outcome {
    moonloop(args, dir)
}

// rule: R1
#[test]
fn a_replay_opens_at_any_frame() {
    let dir = recorded();
    let out = run(
        dir.path(),
        &[
            "run",
            "g",
            "--headless",
            "--replay",
            "run.replay",
            "--until",
            "25",
            "--print-state",
        ],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.contains("\"n\": 25"), "{}", out.stdout);
    assert!(out.stdout.contains("\"presses\": 2"), "{}", out.stdout);
}

// rule: R4
#[test]
fn seek_prints_the_first_frame_an_expression_holds() {
    let dir = recorded();
    let seek = |when: &str| {
        run(
            dir.path(),
            &["seek", "g", "--replay", "run.replay", "--when", when],
        )
    };
    let out = seek("state.presses == 2");
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.starts_with("frame 20\n"), "{}", out.stdout);
    let nan = seek("state.speed ~= state.speed");
    // Frame 41's update is the first to see n = 40.
    assert!(
        nan.stdout.starts_with("frame 41\n"),
        "the first NaN: {}",
        nan.stdout
    );
    assert!(
        seek("state.n == 0").stdout.starts_with("frame 0\n"),
        "init's state counts"
    );
    // rule: R4 (the frame is in scope; it silently never held)
    let at = seek("frame == 10");
    assert!(
        at.stdout.starts_with("frame 10\n"),
        "{}{}",
        at.stdout,
        at.stderr
    );
}

// rule: R4, H11
// rule: R4, H10
#[test]
fn seek_reaches_past_a_million_cues_of_a_long_replay() {
    // seek stepped the engine alone, whose cue log a test reads and which
    // holds a million cues at most: past frame 4,000 of this game every
    // frame failed there, and `--when` never held. Runners let cues go.
    let noisy = "return {\n  init = function() return { n = 0 } end,\n  \
                 update = function(state, input)\n    \
                 for i = 1, 250 do input:cue('blip') end\n    \
                 return { n = state.n + 1 }\n  end,\n}\n";
    let out = recorded_then_sought(noisy, "4010", 0, "state.n == 4005");
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.starts_with("frame 4005\n"), "{}", out.stdout);
    assert_eq!(out.stderr, "", "no frame failed");
}

// rule: R4, H9
#[test]
fn seek_ends_at_a_frame_that_runs_out_of_time() {
    // Every frame after it would wait as long: the search ends there, by
    // the error's type (it was found by its words).
    let hangs = "return {\n  config = { budget = 0.1 },\n  \
                 init = function() return { n = 0 } end,\n  \
                 update = function(state)\n    \
                 if state.n == 2 then while true do end end\n    \
                 return { n = state.n + 1 }\n  end,\n}\n";
    let out = recorded_then_sought(hangs, "4", 1, "state.n == 3");
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(
        out.stderr.starts_with("moonloop: seek stopped at frame 3: g/main.luau:5: H9: update ran past its time budget of 0.1 s"),
        "{}",
        out.stderr
    );
}

#[test]
fn seeking_never_changes_the_run_it_looks_at() {
    let dir = recorded();
    let seek = |when: &str| {
        run(
            dir.path(),
            &["seek", "g", "--replay", "run.replay", "--when", when],
        )
    };
    for (when, says) in [
        (
            "math.random() > 2",
            "--when failed at frame 0: --when cannot call math.random",
        ),
        (
            "state.n == 3 and tostring({})",
            "--when failed at frame 3: --when cannot call tostring",
        ),
        (
            "error({})",
            "--when failed at frame 0: error raised with a table, not a message",
        ),
        (
            "state.n >",
            "--when `state.n >` is not an expression: Expected identifier",
        ),
    ] {
        let out = seek(when);
        assert_eq!(out.code, 2, "{when}: {}", out.stderr);
        assert!(
            out.stderr.starts_with(&format!("moonloop: {says}")),
            "{when}: {}",
            out.stderr
        );
        assert!(!out.stderr.contains("0x"), "no address: {}", out.stderr);
        assert!(
            !out.stderr.contains("--when:"),
            "no place in a one-line expression: {}",
            out.stderr
        );
    }
}

#[test]
fn bad_history_arguments_get_one_line_each() {
    let dir = recorded();
    let rows: &[(&[&str], i32, &str)] = &[
        (
            &[
                "run",
                "g",
                "--headless",
                "--replay",
                "run.replay",
                "--until",
                "61",
            ],
            2,
            "moonloop: --until 61: run.replay holds 60 frames",
        ),
        (
            &[
                "run",
                "other",
                "--headless",
                "--replay",
                "run.replay",
                "--until",
                "3",
            ],
            2,
            "moonloop: run.replay: this replay was recorded from the game `counter`, not `other`",
        ),
        (
            &["run", "g", "--headless", "--until", "3"],
            2,
            "moonloop: the following required arguments were not provided:",
        ),
        (
            &["seek", "g", "--replay", "run.replay", "--when", "state.n +"],
            2,
            "moonloop: --when `state.n +` is not an expression: Expected identifier",
        ),
        (
            &[
                "seek",
                "g",
                "--replay",
                "run.replay",
                "--when",
                "state.nope.x",
            ],
            2,
            "moonloop: --when failed at frame 0: attempt to index nil with 'x'",
        ),
        (
            &[
                "seek",
                "g",
                "--replay",
                "run.replay",
                "--when",
                "state.n > 1000",
            ],
            1,
            "moonloop: --when `state.n > 1000` never held in the 60 frames of run.replay",
        ),
        (
            &["seek", "other", "--replay", "run.replay", "--when", "true"],
            2,
            "moonloop: run.replay: this replay was recorded from the game `counter`",
        ),
    ];
    for (args, code, line) in rows {
        let out = run(dir.path(), args);
        assert_eq!(out.code, *code, "{args:?}: {}", out.stderr);
        let first = out.stderr.lines().next().unwrap_or("");
        assert!(first.starts_with(line), "{args:?}: {first}");
        assert_eq!(
            out.stderr.lines().count(),
            1,
            "{args:?}: one line: {}",
            out.stderr
        );
    }
}

// rule: R1
#[test]
fn a_bug_report_reopens_at_any_frame_and_names_changed_files() {
    let dir = game(&[("g/main.luau", COUNTER), ("g/notes.txt", "v1")]);
    let mut e = common::session(&dir.path().join("g"));
    e.engine_mut().keep_history(history::DEFAULT_CAP).unwrap();
    for frame in 1..=90 {
        if frame % 30 == 0 {
            e.engine_mut().input_mut().push(moonloop::InputEvent::Tap(
                moonloop::Key::from_name("space").unwrap(),
            ));
        }
        e.advance(1).unwrap();
    }
    let at_90 = e.engine().game().state_hash().unwrap();
    let Ok(mut compositor) = Compositor::headless() else {
        eprintln!("no adapter: the report's GIF is not checked here");
        return;
    };
    // Asked for while frame 40 is shown (scrubbed back in a window): the
    // replay is the whole session, the GIF is around frame 40, and the
    // engine is left on frame 40.
    e.engine_mut().show(40).unwrap();
    let at_40 = e.engine().game().state_hash().unwrap();
    let folder = dir.path().join("report");
    let written = report::write(
        e.engine_mut(),
        &mut compositor,
        &folder,
        &report::Origin::default(),
    )
    .unwrap();
    assert_eq!(written.frames, 90);
    assert_eq!(
        written.gif_frames, 91,
        "frames 0 to 90: all of a short history"
    );
    assert_eq!(e.engine().frame(), 40, "the engine is left where it stood");
    assert_eq!(e.engine().game().state_hash().unwrap(), at_40);
    for file in ["replay.txt", "files.txt", "around-40.gif", "README.txt"] {
        assert!(folder.join(file).is_file(), "{file}");
    }
    let open = |until: &str| {
        run(
            dir.path(),
            &[
                "run",
                "g",
                "--headless",
                "--replay",
                "report/replay.txt",
                "--until",
                until,
                "--state-hash",
            ],
        )
    };
    let out = open("90");
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(
        out.stdout.trim(),
        at_90,
        "the report's replay reaches the same state"
    );
    assert!(out.stderr.is_empty(), "the same files: {}", out.stderr);
    std::fs::write(dir.path().join("g/notes.txt"), "v2").unwrap();
    let out = open("45");
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stderr.contains(
            "the game's files are not the ones report/files.txt lists: notes.txt changed"
        ),
        "{}",
        out.stderr
    );
}

// rule: R1
#[test]
fn history_holds_its_cap_over_a_long_run_of_a_real_game() {
    let dir = game(&[("g/main.luau", COUNTER)]);
    let mut e = common::session(&dir.path().join("g"));
    let cap = 64 << 10;
    e.engine_mut().keep_history(cap).unwrap();
    for _ in 0..20 {
        e.advance(1_000).unwrap();
        let h = e.engine().history().unwrap();
        assert!(h.bytes() <= cap + 4096, "{} bytes", h.bytes());
    }
    let h = e.engine().history().unwrap();
    assert_eq!(h.last(), 20_000);
    let oldest = *h.frames().start();
    assert!(oldest > 0, "the oldest frames were dropped");
    // What is left rebuilds exactly.
    let now = e.engine().game().state_json().unwrap();
    let at = e
        .engine_mut()
        .with_state_at(oldest + 30, |g| g.state_json().unwrap())
        .unwrap();
    assert!(at.contains(&format!("\"n\": {}", oldest + 30)), "{at}");
    assert_eq!(e.engine().game().state_json().unwrap(), now);
    let err = e.engine_mut().rewind(20_000 - oldest + 1).unwrap_err();
    // The rule is the error's, not only its text's.
    assert!(
        matches!(
            err,
            moonloop::Error::Rule {
                rule: moonloop::Rule::R1,
                ..
            }
        ),
        "{err:?}"
    );
    let err = err.to_string();
    assert!(err.starts_with("R1: show frame "), "{err}");
    assert!(
        err.contains("older frames were dropped to stay within its memory cap"),
        "{err}"
    );
}

/// Four hundred balls heaped in a bin: a large state, most of it new
/// every frame.
const CHURN: &str = r#"
local physics = require("@moonloop/physics")
return {
  init = function()
    local bodies = {}
    for i = 0, 399 do
      bodies[i + 1] = { x = 20 + (i % 20) * 10, y = 20 + (i // 20) * 10, shape = physics.circle(4), restitution = 0.2 }
    end
    bodies.floor = { kind = "fixed", x = 110, y = 300, shape = physics.box(240, 20) }
    bodies.left = { kind = "fixed", x = 0, y = 150, shape = physics.box(20, 300) }
    bodies.right = { kind = "fixed", x = 220, y = 150, shape = physics.box(20, 300) }
    return { world = physics.world({ gravity = { x = 0, y = 600 }, bodies = bodies }) }
  end,
  update = function(state, input, dt)
    return { world = physics.step(state.world, dt) }
  end,
}
"#;

// rule: R1
#[test]
fn history_s_digest_of_a_changing_state_never_stops_the_collector() {
    // Holding the last digested state in a slot of a table of its own
    // kept Luau's collector in its second marking stage for good (each
    // frame's state, stored there, was marked at once): memory grew by a
    // state a frame until the cap.
    let dir = game(&[("main.luau", CHURN)]);
    let mut session = common::session(dir.path());
    session
        .engine_mut()
        .keep_history(history::DEFAULT_CAP)
        .unwrap();
    let mut most = 0;
    for _ in 0..60 {
        session.advance(10).unwrap();
        most = most.max(session.engine().game().lua().used_memory());
    }
    // The state is about 150 KiB: ten of them is a collector that works.
    assert!(
        most < 32 << 20,
        "{} MiB in use after 600 frames",
        most >> 20
    );
}

/// Counts frames; a frame on which space is tapped is refused (the
/// update errors, the game runs on with the state it had).
const REFUSES_ON_SPACE: &str = r#"
return {
	config = { actions = { boom = { "space" } } },
	init = function()
		return { n = 0 }
	end,
	update = function(state, input, dt)
		if input:pressed("boom") then
			error("boom")
		end
		return { n = state.n + 1 }
	end,
}
"#;

// rule: R1, R2, R5
#[test]
fn a_frame_refused_when_it_ran_is_refused_again_when_the_past_runs_again() {
    let dir = game(&[("g/main.luau", REFUSES_ON_SPACE)]);
    let mut e = common::session(&dir.path().join("g"));
    e.engine_mut().keep_history(history::DEFAULT_CAP).unwrap();
    e.engine_mut()
        .set_synctest(Some(4), history::DEFAULT_CAP)
        .unwrap();
    let space = || moonloop::InputEvent::Tap(moonloop::Key::from_name("space").unwrap());
    let mut hashes = vec![e.engine().game().state_hash().unwrap()];
    for frame in 1..=60 {
        if frame % 9 == 0 {
            e.engine_mut().input_mut().push(space());
        }
        let ran = e.advance(1);
        assert_eq!(ran.is_err(), frame % 9 == 0, "frame {frame}: {ran:?}");
        hashes.push(e.engine().game().state_hash().unwrap());
    }
    // The sync test ran every frame back over the refused ones.
    assert!(e.engine().synctest_checked() > 0);
    // Back past refused frames, and on again: the same frames.
    e.engine_mut().rewind(40).unwrap();
    assert_eq!(e.engine().game().state_hash().unwrap(), hashes[20]);
    e.engine_mut().show(50).unwrap();
    assert_eq!(e.engine().game().state_hash().unwrap(), hashes[50]);
    let n_at = |e: &mut moonloop::session::Session<moonloop::LuaGame>, frame| {
        e.engine_mut()
            .with_state_at(frame, |g| g.state_hash().unwrap())
            .unwrap()
    };
    assert_eq!(n_at(&mut e, 37), hashes[37]);
    // The same code reloaded from frame 5 runs the refused frames as
    // they ran, and nothing differs.
    e.engine_mut().show(60).unwrap();
    let (_, differs) = e.engine_mut().reload_from(&[], 5).unwrap();
    assert_eq!(differs, None);
    assert_eq!(e.engine().game().state_hash().unwrap(), hashes[60]);
}
