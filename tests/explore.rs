//! `moonloop explore` (rules X1-X4 in docs/exploring.md): the machine
//! plays a game, checks its properties after every frame, and shrinks
//! what breaks one to a replay that breaks it again.
//!
//! The bugs are planted in copies of the example games made here, never
//! in the games themselves, whose own properties hold.

mod common;

use std::path::Path;

use common::{game, moonloop};

/// Copies the example game `name` into `dir`, with `find` replaced by
/// `plant` in its file `file`.
fn planted(dir: &Path, name: &str, file: &str, find: &str, plant: &str) {
    let from = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("games")
        .join(name);
    let to = dir.join(name);
    copy(&from, &to);
    let path = to.join(file);
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains(find), "{file} holds {find:?}");
    std::fs::write(&path, text.replacen(find, plant, 1)).unwrap();
}

fn copy(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// A small game with a planted bug: walking right past x = 95 is stopped
/// at the wall, unless three jumps came first.
const WALL: &str = "return {\n  config = { width = 100, height = 100, actions = { jump = { \"space\" }, left = { \"left\" }, right = { \"right\" } } },\n  init = function() return { x = 50, jumps = 0 } end,\n  update = function(s, input, dt)\n    local x = s.x\n    if input:down(\"left\") then x -= 1 end\n    if input:down(\"right\") then x += 1 end\n    local jumps = s.jumps + (if input:pressed(\"jump\") then 1 else 0)\n    if x > 95 and jumps < 3 then x = 95 end\n    return { x = x, jumps = jumps }\n  end,\n}\n";

const WALL_PROPERTY: &str = "property(\"x stays on the screen\", function(state)\n\treturn state.x <= 95\nend)\nfeatures(function(state)\n\treturn { math.floor(state.x / 10), math.min(state.jumps, 5) }\nend)\n";

/// A bug four levels deep: each level is passed by walking from the
/// middle to one edge (right on odd levels, left on even ones), so a
/// search guided by the level starts its runs from the levels reached.
const DEEP: &str = "return {\n  config = { width = 100, height = 100, actions = { left = { \"left\" }, right = { \"right\" } } },\n  init = function() return { x = 50, level = 1 } end,\n  update = function(s, input, dt)\n    local x = math.clamp(s.x + (if input:down(\"right\") then 5 else 0) - (if input:down(\"left\") then 5 else 0), 0, 100)\n    local edge = if s.level % 2 == 1 then 100 else 0\n    if x == edge then return { x = 50, level = s.level + 1 } end\n    return { x = x, level = s.level }\n  end,\n}\n";

const DEEP_PROPERTY: &str = "property(\"level 5 is never passed\", function(state)\n\treturn state.level <= 5\nend)\nfeatures(function(state)\n\treturn { state.level }\nend)\n";

fn explore(dir: &Path, game: &str, extra: &[&str]) -> common::Outcome {
    moonloop(&[&["explore", game], extra].concat(), dir)
}

// rule: X1, X3
#[test]
fn a_planted_bug_is_found_shrunk_and_replayed() {
    let dir = game(&[("g/main.luau", WALL), ("g/tests/props.luau", WALL_PROPERTY)]);
    let out = explore(dir.path(), "g", &["--runs", "64", "--frames", "600"]);
    assert_eq!(out.code, 1, "{}{}", out.stdout, out.stderr);
    assert!(
        out.stdout.contains("broke at frame")
            && out
                .stdout
                .contains("property `x stays on the screen` does not hold"),
        "{}",
        out.stdout
    );
    // Shrunk: the three jumps and a walk right, nothing more.
    let replay = std::fs::read_to_string(dir.path().join("moonloop-explore/replay.txt")).unwrap();
    let presses = replay.lines().filter(|l| l.starts_with("press")).count();
    assert_eq!(presses, 4, "{replay}");
    let frame: u64 = out
        .stdout
        .split("over ")
        .last()
        .and_then(|s| s.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap();
    // The replay breaks it again, at the same frame.
    let replayed = moonloop(
        &[
            "run",
            "g",
            "--headless",
            "--replay",
            "moonloop-explore/replay.txt",
        ],
        dir.path(),
    );
    assert_eq!(replayed.code, 1, "{}", replayed.stderr);
    assert!(
        replayed.stderr.starts_with(&format!(
            "frame {frame}: X1: property `x stays on the screen` does not hold"
        )),
        "{}",
        replayed.stderr
    );
}

// rule: X3
#[test]
fn a_shrunk_plan_is_minimal_no_step_of_it_can_go() {
    use moonloop::explore::plan::Step;
    use moonloop::explore::play::play;
    use moonloop::lua::properties::Properties;
    let dir = game(&[("g/main.luau", WALL), ("g/tests/props.luau", WALL_PROPERTY)]);
    let out = explore(
        dir.path(),
        "g",
        &["--runs", "64", "--frames", "600", "-j", "1"],
    );
    assert_eq!(out.code, 1, "{}", out.stdout);
    let replay = moonloop::replay::load(&dir.path().join("moonloop-explore/replay.txt")).unwrap();
    let steps: Vec<Step> = replay
        .script
        .frame_events()
        .map(|(frame, event)| Step { frame, event })
        .collect();
    let frames = replay.deltas.len() as u64;
    let game_dir = dir.path().join("g");
    let properties = Properties::load(&game_dir).unwrap();
    let breaks = |steps: &[Step]| {
        play(
            &game_dir,
            steps,
            frames,
            &properties,
            &Default::default(),
            None,
            None,
        )
        .unwrap()
        .failure
        .is_some()
    };
    assert!(breaks(&steps), "the shrunk plan breaks it");
    for i in 0..steps.len() {
        let mut fewer = steps.clone();
        fewer.remove(i);
        assert!(
            !breaks(&fewer),
            "without step {i} ({:?}) it still breaks",
            steps[i]
        );
    }
}

// rule: X2, X4
#[test]
fn the_same_seed_finds_the_same_failure_with_any_number_of_workers_or_shards() {
    let dir = game(&[("g/main.luau", WALL), ("g/tests/props.luau", WALL_PROPERTY)]);
    let line = |out: &common::Outcome| {
        out.stdout
            .lines()
            .find(|l| l.starts_with("run "))
            .unwrap_or_default()
            .to_string()
    };
    let args = [
        "--runs",
        "64",
        "--frames",
        "600",
        "--seed",
        "7",
        "--unguided",
    ];
    let one = explore(dir.path(), "g", &[&args[..], &["-j", "1"]].concat());
    let two = explore(dir.path(), "g", &[&args[..], &["-j", "2"]].concat());
    assert!(!line(&one).is_empty(), "{}", one.stdout);
    assert_eq!(line(&one), line(&two), "workers change nothing");
    // Unguided, each run's input is its seed and index alone: the shards
    // of a search between them find its first failing run.
    let run = |out: &common::Outcome| -> Option<u64> {
        line(out)
            .strip_prefix("run ")?
            .split(' ')
            .next()?
            .parse()
            .ok()
    };
    let shards: Vec<Option<u64>> = (0..2)
        .map(|i| {
            run(&explore(
                dir.path(),
                "g",
                &[&args[..], &["--shard", &format!("{i}/2")]].concat(),
            ))
        })
        .collect();
    assert_eq!(
        shards.iter().flatten().min().copied(),
        run(&one),
        "{shards:?}"
    );
    // And a shard is reproducible on its own.
    let again = explore(dir.path(), "g", &[&args[..], &["--shard", "1/2"]].concat());
    assert_eq!(run(&again), shards[1]);
    // Guided, each lane learns from its own runs, so a run's input is the
    // same in any shard: four shards between them find the failure, and
    // shrink it, as the whole search does (with one corpus for a shard's
    // runs, the shards of this search found runs 39, 40, 54 and 81, the
    // whole search run 34).
    let deep = game(&[("d/main.luau", DEEP), ("d/tests/props.luau", DEEP_PROPERTY)]);
    let guided = ["--runs", "400", "--frames", "200", "--seed", "3"];
    let whole = explore(deep.path(), "d", &guided);
    assert!(!line(&whole).is_empty(), "{}", whole.stdout);
    let quarters: Vec<common::Outcome> = (0..4)
        .map(|i| {
            explore(
                deep.path(),
                "d",
                &[&guided[..], &["--shard", &format!("{i}/4")]].concat(),
            )
        })
        .collect();
    let first = quarters
        .iter()
        .filter(|out| run(out).is_some())
        .min_by_key(|out| run(out))
        .expect("a shard finds it");
    assert_eq!(line(first), line(&whole), "the same run, shrunk alike");
    let too_many = explore(
        deep.path(),
        "d",
        &[&guided[..], &["--shard", "0/17"]].concat(),
    );
    assert_eq!(too_many.code, 2, "{}", too_many.stderr);
    assert!(
        too_many.stderr.contains("at most 16 shards"),
        "{}",
        too_many.stderr
    );
}

// rule: X4
#[test]
fn reports_are_junit_a_ci_system_reads_and_json_lines() {
    let dir = game(&[("g/main.luau", WALL), ("g/tests/props.luau", WALL_PROPERTY)]);
    let out = explore(
        dir.path(),
        "g",
        &["--runs", "64", "--frames", "600", "--report", "explore.xml"],
    );
    assert_eq!(out.code, 1, "{}", out.stdout);
    let xml = std::fs::File::open(dir.path().join("explore.xml")).unwrap();
    let suites = junit_parser::from_reader(std::io::BufReader::new(xml)).unwrap();
    assert_eq!(suites.suites.len(), 1);
    let suite = &suites.suites[0];
    assert_eq!((suite.tests, suite.failures), (2, 1));
    let broken = suite
        .cases
        .iter()
        .find(|c| c.original_name == "x stays on the screen" && c.classname.as_deref() == Some("g"))
        .unwrap();
    assert!(broken.status.is_failure());
    // `moonloop test` writes the same, one case a test (the file of
    // properties is explore's, and no test).
    std::fs::write(
        dir.path().join("g/tests/one.luau"),
        "test('one', function() end)\n",
    )
    .unwrap();
    let test = moonloop(&["test", "g", "--report", "tests.jsonl"], dir.path());
    assert_eq!(test.code, 0, "{}", test.stdout);
    let lines = std::fs::read_to_string(dir.path().join("tests.jsonl")).unwrap();
    assert!(lines.contains("\"passed\": true"), "{lines}");
    // A report that could not be written is refused before the search or
    // the tests run, not after (a search runs for minutes).
    for args in [
        &["explore", "g", "--report", "explore.txt"][..],
        &["test", "g", "--report", "g"][..],
    ] {
        let refused = moonloop(args, dir.path());
        assert_eq!(refused.code, 2, "{args:?}: {}", refused.stdout);
        assert_eq!(refused.stdout, "", "{args:?}: nothing ran");
        assert!(
            refused.stderr.starts_with("moonloop: --report "),
            "{}",
            refused.stderr
        );
    }
}

// rule: X1
#[test]
fn the_example_games_properties_hold_over_a_short_search() {
    for name in ["pong", "catch"] {
        let games = Path::new(env!("CARGO_MANIFEST_DIR")).join("games");
        let out = moonloop(
            &[
                "explore",
                name,
                "--runs",
                "4",
                "--frames",
                "600",
                "--out",
                "/tmp/moonloop-explore-examples",
            ],
            &games,
        );
        assert_eq!(out.code, 0, "{name}: {}{}", out.stdout, out.stderr);
    }
}

// rule: X1, X3
#[test]
fn a_ball_that_escapes_after_a_paddle_edge_hit_is_found_in_pong() {
    let dir = tempfile::tempdir().unwrap();
    planted(
        dir.path(),
        "pong",
        "rules.luau",
        "\t\t\tlocal angle = offset * 0.9\n",
        "\t\t\tlocal angle = offset * 0.9\n\t\t\tif math.abs(offset) > 0.9 then\n\t\t\t\tspeed = speed * 40\n\t\t\tend\n",
    );
    let out = explore(dir.path(), "pong", &["--runs", "16", "--frames", "900"]);
    assert_eq!(out.code, 1, "{}{}", out.stdout, out.stderr);
    assert!(
        out.stdout
            .contains("property `the ball stays on the table` does not hold"),
        "{}",
        out.stdout
    );
}

// rule: X1, X3
#[test]
fn a_score_that_goes_negative_after_a_catch_at_the_wall_is_found_in_catch() {
    let dir = tempfile::tempdir().unwrap();
    planted(
        dir.path(),
        "catch",
        "main.luau",
        "\t\t\tscore += 1\n",
        "\t\t\tscore += if basket <= BASKET_W / 2 + 1 and score >= 1 then -5 else 1\n",
    );
    let out = explore(dir.path(), "catch", &["--runs", "64", "--frames", "900"]);
    assert_eq!(out.code, 1, "{}{}", out.stdout, out.stderr);
    assert!(
        out.stdout
            .contains("property `the score never goes below zero` does not hold"),
        "{}",
        out.stdout
    );
}

/// Charging counts frames where it should count seconds: a shot comes
/// after 60 frames held, sooner at 144 frames a second than at 60.
const CHARGE: &str = "return {\n  config = { width = 100, height = 100, actions = { charge = { \"space\" }, left = { \"left\" } } },\n  init = function() return { charge = 0, shots = 0 } end,\n  update = function(s, input, dt)\n    local charge = if input:down(\"charge\") then s.charge + CHARGE_STEP else 0\n    local shots = s.shots\n    if charge >= 1 and s.charge < 1 then shots += 1 end\n    return { charge = charge, shots = shots }\n  end,\n}\n";

const SHOTS: &str = "return {\n  seconds = 2,\n  outcome = function(state) return { shots = state.shots } end,\n}\n";

// rule: X1, K4
#[test]
fn explore_check_dt_finds_input_whose_outcome_depends_on_the_step_and_passes_a_game_that_integrates()
 {
    let buggy = CHARGE.replace("CHARGE_STEP", "1 / 60");
    let dir = game(&[("g/main.luau", &buggy), ("g/shots.scenario.luau", SHOTS)]);
    // The scenario's own input (none) passes check-dt: only generated
    // holds of the right length show the bug.
    let alone = moonloop(
        &["check-dt", "g", "--scenario", "shots.scenario.luau"],
        dir.path(),
    );
    assert_eq!(alone.code, 0, "{}", alone.stdout);
    let args = [
        "--runs",
        "64",
        "--frames",
        "300",
        "--check-dt",
        "shots.scenario.luau",
    ];
    let out = explore(dir.path(), "g", &args);
    assert_eq!(out.code, 1, "{}{}", out.stdout, out.stderr);
    assert!(
        out.stdout
            .contains("property `check-dt (K4)` failed: under ")
            && out.stdout.contains("the outcome was { \"shots\": "),
        "{}",
        out.stdout
    );
    // Shrunk to one held key.
    let replay = std::fs::read_to_string(dir.path().join("moonloop-explore/replay.txt")).unwrap();
    let presses: Vec<&str> = replay.lines().filter(|l| l.starts_with("press")).collect();
    assert_eq!(presses, ["press space"], "{replay}");
    // Charging by dt agrees under every clock, whatever is held.
    let fixed = CHARGE.replace("CHARGE_STEP", "dt");
    let dir = game(&[("g/main.luau", &fixed), ("g/shots.scenario.luau", SHOTS)]);
    let out = explore(dir.path(), "g", &args);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
}

// rule: X2, H9
#[test]
fn features_that_fail_end_the_search_with_their_line_and_time_is_kept_within_a_run() {
    let dir = game(&[
        ("g/main.luau", WALL),
        (
            "g/tests/props.luau",
            "features(function(state)\n\treturn function() end\nend)\n",
        ),
    ]);
    let out = explore(dir.path(), "g", &["--runs", "8", "--frames", "50"]);
    assert_eq!(out.code, 2, "{}{}", out.stdout, out.stderr);
    assert_eq!(
        out.stderr.trim(),
        "moonloop: features failed at frame 0: a function is not plain data (S5: a state is plain \
         data: tables without metatables, strings, numbers, booleans, vectors)"
    );
    // Features that take most of their second each frame: --time 2 ends
    // the search inside its first run of 1,800 frames, not after it.
    let slow = "features(function(state)\n\tlocal t = {}\n\tfor i = 1, 1000000 do t[i] = i end\n\treturn state.x\nend)\n";
    std::fs::write(dir.path().join("g/tests/props.luau"), slow).unwrap();
    let started = std::time::Instant::now();
    let out = explore(
        dir.path(),
        "g",
        &["--runs", "2", "--jobs", "1", "--time", "2"],
    );
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(
        started.elapsed() < std::time::Duration::from_secs(30),
        "{:?}",
        started.elapsed()
    );
}

// rule: X1
#[test]
fn a_file_of_properties_alone_is_not_counted_as_a_test() {
    // pong has three test files, one of them properties only: its tests
    // are those of the other two, as `moonloop test` counts them.
    let games = Path::new(env!("CARGO_MANIFEST_DIR")).join("games");
    let out = moonloop(&["test", "pong"], &games);
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(!out.stdout.contains("explore.luau"), "{}", out.stdout);
    let dir = common::game(&[
        (
            "main.luau",
            "return { init = function() return { n = 0 } end }",
        ),
        (
            "tests/props.luau",
            "property('fine', function(state) return true end)",
        ),
        ("tests/one.luau", "test('one', function() end)"),
        ("tests/script.luau", "assert(1 + 1 == 2)"),
    ]);
    let out = moonloop(&["test", "."], dir.path());
    assert!(out.stdout.contains("2 passed, 0 failed"), "{}", out.stdout);
}

// rule: X3
#[test]
fn time_bounds_the_whole_search_shrinking_included() {
    // A property that costs a few milliseconds a frame: the search finds
    // the wall's failure in its first run, and shrinking it fully would
    // take over a hundred runs. --time 8 ends the command near 8 s, with
    // the shortest replay found by then written.
    let property = "property(\"x stays on the screen\", function(state)\n\tlocal t = 0\n\tfor i = 1, 200000 do\n\t\tt += i\n\tend\n\treturn state.x <= 95\nend)\n";
    let dir = game(&[("g/main.luau", WALL), ("g/tests/props.luau", property)]);
    let started = std::time::Instant::now();
    let out = explore(
        dir.path(),
        "g",
        &["--runs", "200", "--frames", "300", "-j", "1", "--time", "8"],
    );
    let took = started.elapsed();
    assert_eq!(out.code, 1, "{}{}", out.stdout, out.stderr);
    assert!(
        out.stderr
            .contains("explore: --time ran out while shrinking; the replay is the shortest plan"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains("explore: shrinking: "),
        "progress is shown"
    );
    assert!(dir.path().join("moonloop-explore/replay.txt").is_file());
    assert!(took < std::time::Duration::from_secs(14), "{took:?}");
}

// rule: X3
#[test]
fn the_changes_the_broken_property_read_are_shown_first() {
    // A dozen places change every frame (a copy kept for drawing, sorted
    // first); the property reads only the puck, which leaves the table.
    let main = "return {\n  config = { width = 100, height = 100, actions = { right = { \"right\" } } },\n  init = function()\n    local previous = {}\n    for _, k in { \"a\", \"b\", \"c\", \"d\", \"e\", \"f\", \"g\", \"h\", \"i\", \"j\", \"k\", \"l\", \"m\", \"n\" } do previous[k] = 0 end\n    return { previous = previous, world = { puck = { y = 0 }, t = 0 } }\n  end,\n  update = function(s, input, dt)\n    local previous = {}\n    for k in s.previous do previous[k] = s.world.t end\n    local y = s.world.puck.y + (if input:down(\"right\") then 1 else 0)\n    return { previous = previous, world = { puck = { y = y }, t = s.world.t + 1 } }\n  end,\n}\n";
    let property = "property(\"the puck stays on the table\", function(state)\n\treturn state.world.puck.y < 20\nend)\n";
    let dir = game(&[("g/main.luau", main), ("g/tests/props.luau", property)]);
    let out = explore(dir.path(), "g", &["--runs", "32", "--frames", "300"]);
    assert_eq!(out.code, 1, "{}{}", out.stdout, out.stderr);
    let summary: Vec<&str> = out
        .stdout
        .lines()
        .skip_while(|l| !(l.starts_with("frame ") && l.ends_with(" changed:")))
        .skip(1)
        .collect();
    assert!(
        summary
            .first()
            .is_some_and(|l| l.trim().starts_with("state.world.puck.y: 19 -> 20")),
        "{}",
        out.stdout
    );
    let changes = std::fs::read_to_string(dir.path().join("moonloop-explore/changes.txt")).unwrap();
    assert!(
        changes.starts_with("state.world.puck.y: 19 -> 20\n"),
        "{changes}"
    );
    // Nothing is lost: the copy's changes follow.
    assert!(changes.contains("state.previous.a: "), "{changes}");
}
