//! `@moonloop/physics` (docs/physics.md, rules P1-P5): the world is a
//! value in the state, stepped in the seed engine's order, the same on
//! every run and through replay, rewind, reload-from and saves, bounded,
//! and asked by rays.

mod common;

use common::{frame_error, game, moonloop};

/// A box falling onto a floor; Space (or frame 10) pushes it up. The state
/// keeps what `update` saw of the box before it stepped.
const FALLING: &str = r#"
local physics = require("@moonloop/physics")
return {
	config = { id = "falling" },
	init = function(saved)
		if saved then
			return saved
		end
		local w = physics.world({ gravity = { x = 0, y = 600 } })
		w = physics.add(w, "box", physics.body({ x = 100, y = 50, shape = physics.box(16, 16), restitution = 0.5, data = { name = "crate" } }))
		w = physics.add(w, "floor", physics.body({ kind = "fixed", x = 100, y = 200, shape = physics.box(400, 20) }))
		w = physics.add(w, "ramp", physics.body({ kind = "fixed", x = 20, y = 150, angle = 0.4, shape = physics.polygon({ -30, -5, 30, -5, 30, 5, -30, 5 }) }))
		return { world = w, frame = 0, seen = 0, began = 0 }
	end,
	update = function(state, input, dt)
		local frame = state.frame + 1
		local commands = {}
		if frame == 10 or input:pressed("space") then
			commands = { { id = "box", push = { x = 30, y = -500 } } }
		end
		local world = physics.step(state.world, dt, commands)
		local began = state.began
		for _, e in world.events do
			if e.kind == "began" and (e.a_data or e.b_data).name == "crate" then
				began += 1
			end
		end
		if frame % 30 == 0 then
			input:save({ world = world, frame = frame, seen = state.world.bodies.box.y, began = began })
		end
		return { world = world, frame = frame, seen = state.world.bodies.box.y, began = began }
	end,
}
"#;

const FALLING_TESTS: &str = r#"
-- rule: P2
test("a push on frame 10 moves the box in frame 10's step, and update sees it on frame 11", function()
	local e = engine.new()
	e:advance(9)
	local before = e.state.world.bodies.box
	e:advance(1)
	local after = e.state.world.bodies.box
	expect(after.vy < before.vy - 400).is_true()
	expect(after.x > before.x).is_true()
	-- update on frame 10 saw frame 9's box; on frame 11, frame 10's.
	expect(e.state.seen).equals(before.y)
	e:advance(1)
	expect(e.state.seen).equals(after.y)
end)

-- rule: P2
test("contacts reach the next tick as began and ended events with the bodies' data", function()
	local e = engine.new()
	local began, ended = 0, 0
	for _ = 1, 240 do
		e:advance(1)
		for _, event in e.state.world.events do
			if event.kind == "began" then
				began += 1
				expect(event.a).equals("box")
				expect(event.a_data.name).equals("crate")
			else
				ended += 1
			end
		end
	end
	expect(began >= 2).is_true()
	expect(ended >= 1).is_true()
	expect(e.state.began).equals(began)
end)

-- rule: P3
test("rewinding and reloading from a frame through a bounce give the hashes of running straight", function()
	local straight = engine.new()
	straight:advance(200)
	local e = engine.new()
	e:advance(200)
	expect(e:hash()).equals(straight:hash())
	e:rewind(150)
	e:advance(150)
	expect(e:hash()).equals(straight:hash())
	expect(e:reload({}, { from = 20 })).equals(nil)
	expect(e:hash()).equals(straight:hash())
	local at = e:state_at(120)
	straight = engine.new()
	straight:advance(120)
	expect(at.world.bodies.box.y).equals(straight.state.world.bodies.box.y)
end)

-- rule: P3
test("a world saved, loaded and played on is the world played straight", function()
	local e = engine.new()
	e:advance(90)
	local saved = e.saved
	expect(saved.frame).equals(90)
	local loaded = engine.new({ save = saved })
	loaded:advance(60)
	e:advance(60)
	expect(loaded:hash()).equals(e:hash())
end)

-- rule: P1
test("a step gives a new world and leaves the one it was given as it was", function()
	local physics = require("@moonloop/physics")
	local e = engine.new()
	e:advance(5)
	local world = e.state.world
	local y = world.bodies.box.y
	local next = physics.step(world, 1 / 60, { { id = "box", velocity = { 0, 0 } } })
	expect(world.bodies.box.y).equals(y)
	expect(next.steps).equals(world.steps + 1)
	expect(rawequal(next.bodies.floor, world.bodies.floor)).is_true()
	expect(rawequal(next.bodies.box, world.bodies.box)).is_false()
end)

-- rule: P5
test("a ray down from above the floor hits its top, facing up", function()
	local physics = require("@moonloop/physics")
	local e = engine.new()
	e:advance(1)
	local hit = physics.ray(e.state.world, 300, 0, 300, 400)
	expect(hit.id).equals("floor")
	expect(hit.y).near(190, 0.01)
	expect(hit.ny).near(-1, 0.001)
	expect(hit.fraction).near(190 / 400, 0.001)
	expect(physics.ray(e.state.world, 300, 0, 300, 100)).equals(nil)
end)
"#;

// rule: P1, P2, P3, P5
#[test]
fn the_physics_rules_hold_in_a_game_s_own_tests() {
    let dir = game(&[
        ("main.luau", FALLING),
        ("tests/physics.luau", FALLING_TESTS),
    ]);
    let out = moonloop(&["test", "."], dir.path());
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(out.stdout.contains("6 passed, 0 failed"), "{}", out.stdout);
}

// rule: P3
#[test]
fn the_same_input_gives_the_same_hash_on_five_runs_and_a_replay_reproduces_it() {
    let dir = game(&[
        ("g/main.luau", FALLING),
        ("g/in.txt", "40 tap space\n90 tap space\n"),
    ]);
    // Its saves go to a folder of the test's own.
    let saves = tempfile::tempdir().unwrap();
    let run_with = |args: &[&str]| {
        let out = std::process::Command::new(common::binary())
            .args(args)
            .current_dir(dir.path())
            .env("XDG_DATA_HOME", saves.path())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(0), "{stderr}");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let run = |extra: &[&str]| {
        run_with(
            &[
                &[
                    "run",
                    "g",
                    "--headless",
                    "--clock",
                    "jitter:seed=3,min=0.008,max=0.033",
                    "--frames",
                    "180",
                    "--input",
                    "g/in.txt",
                    "--state-hash",
                ][..],
                extra,
            ]
            .concat(),
        )
    };
    let first = run(&["--record-input", "run.replay"]);
    for _ in 0..4 {
        assert_eq!(run(&[]), first);
    }
    let replayed = run_with(&[
        "run",
        "g",
        "--headless",
        "--replay",
        "run.replay",
        "--state-hash",
    ]);
    assert_eq!(replayed, first);
}

fn refusal(update: &str) -> String {
    let main = format!(
        r#"
local physics = require("@moonloop/physics")
return {{
	init = function()
		local w = physics.world({{ gravity = {{ x = 0, y = 600 }} }})
		w = physics.add(w, "ball", physics.body({{ x = 10, y = 10, shape = physics.circle(4) }}))
		return {{ world = w }}
	end,
	update = function(state, input, dt)
		local world = state.world
{update}
		return {{ world = world }}
	end,
}}
"#
    );
    frame_error(&main)
}

// rule: P4
#[test]
fn bad_worlds_and_commands_are_refused_with_one_line_at_the_author_s_line() {
    let cases: &[(&str, &str)] = &[
        (
            "world = physics.step(physics.add(world, 'bad', physics.body({ x = 0 / 0, y = 0, shape = physics.circle(2) })), dt)",
            "main.luau:11: physics.step: bodies.bad.x is NaN; it must be a finite number (P4)",
        ),
        (
            "world = physics.step(physics.add(world, 'bad', physics.body({ x = 0, y = 0, restituion = 1, shape = physics.circle(2) })), dt)",
            "main.luau:11: physics.step: bodies.bad has a field `restituion` it does not know",
        ),
        (
            "world = physics.step(physics.add(world, 'bad', physics.body({ x = 0, y = 0, shape = physics.circle(-2) })), dt)",
            "bodies.bad.shape.radius is -2; a size is more than 0",
        ),
        (
            "world = physics.step(physics.add(world, 'line', physics.body({ x = 0, y = 0, shape = physics.polyline({ 0, 0, 10, 0 }) })), dt)",
            "bodies.line is dynamic with a polyline",
        ),
        (
            "world = physics.step(physics.add(world, 'flat', physics.body({ kind = 'fixed', x = 0, y = 0, shape = physics.polygon({ 0, 0, 5, 0, 10, 0 }) })), dt)",
            "bodies.flat.shape's points make no polygon",
        ),
        (
            "world = physics.step(world, 0)",
            "physics.step: dt is 0; a step is more than 0 and at most 1 second (P4)",
        ),
        (
            "world = physics.step(world, dt, { { id = 'nobody', push = { x = 1, y = 0 } } })",
            "physics.step: commands[1].id is \"nobody\", which names no body of the world",
        ),
        (
            "world = physics.step(world, dt, { { id = 'ball', push = { x = math.huge, y = 0 } } })",
            "physics.step: commands[1].push.x is inf; it must be a finite number (P4)",
        ),
        (
            "local many = {}\n\t\tfor i = 1, 10001 do many[i] = { x = i * 3, y = 0, shape = physics.circle(1) } end\n\t\tworld = physics.step(physics.world({ bodies = many }), dt)",
            "physics.step: the world has more than 10000 bodies (P4)",
        ),
        (
            "local heap = {}\n\t\tfor i = 1, 600 do heap[i] = { x = 0, y = 0, shape = physics.circle(5) } end\n\t\tworld = physics.step(physics.world({ bodies = heap }), dt)",
            "physics.step: more than 100000 pairs of bodies overlap or nearly do",
        ),
        (
            "world = physics.step(world, dt, { { id = 'ball', shove = 3 } })",
            "commands[1] has a field `shove` it does not know",
        ),
    ];
    for (update, expected) in cases {
        let err = refusal(update);
        assert!(
            err.contains(expected),
            "{update}\n  gave: {err}\n  not: {expected}"
        );
        assert_eq!(err.lines().count(), 1, "one line: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
}

// rule: P4
#[test]
fn a_world_that_is_not_a_world_is_named() {
    let err = refusal("world = physics.step(42, dt)");
    assert!(
        err.contains("physics.step: the world is a table made by physics.world, not a number"),
        "{err}"
    );
    let err = refusal("world = physics.step({ bodies = { ball = 3 } }, dt)");
    assert!(
        err.contains("bodies.ball is a number; a body is a table"),
        "{err}"
    );
    let err = refusal("world = physics.step({ planets = {} }, dt)");
    assert!(
        err.contains("the world has a field `planets` it does not know"),
        "{err}"
    );
}
