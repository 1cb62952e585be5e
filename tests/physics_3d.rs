//! Worlds in three dimensions (docs/physics.md, rule P10): a 3D world is
//! a value in the state as a 2D one is (P1-P4): stepped in the same order,
//! the same on every run and through replay, rewind, reload-from and
//! saves, bounded and refused by name, and asked by rays.

mod common;

use common::{frame_error, game, moonloop};

/// A crate falling onto a table and tumbling off a wedge; frame 10 (or
/// Space) pushes it up. The state keeps what `update` saw of the crate
/// before it stepped, and the game saves every 30 frames.
const TUMBLE: &str = r#"
local physics = require("@moonloop/physics")
return {
	config = { id = "tumble" },
	init = function(saved)
		if saved then
			return saved
		end
		local w = physics.world3d({ gravity = { x = 0, y = -9.81, z = 0 } })
		w = physics.add(w, "crate", physics.body({ x = 0.3, y = 3, z = 0.2, shape = physics.cuboid(1, 1, 1), restitution = 0.3, data = { name = "crate" } }))
		w = physics.add(w, "table", physics.body({ kind = "fixed", y = -0.5, shape = physics.cuboid(10, 1, 10) }))
		w = physics.add(w, "wedge", physics.body({ kind = "fixed", y = 0.2, rotation = { x = 0, y = 0, z = 0.2, w = 0.98 }, shape = physics.cuboid(2, 0.4, 2) }))
		return { world = w, frame = 0, seen = 0, began = 0 }
	end,
	update = function(state, input, dt)
		local frame = state.frame + 1
		local commands = {}
		if frame == 10 or input:pressed("space") then
			commands = { { id = "crate", push = { x = 0.5, y = 6, z = 0 } } }
		end
		local world = physics.step(state.world, dt, commands)
		local began = state.began
		for _, e in world.events do
			if e.kind == "began" and (e.a_data or e.b_data).name == "crate" then
				began += 1
			end
		end
		local next = { world = world, frame = frame, seen = state.world.bodies.crate.y, began = began }
		if frame % 30 == 0 then
			input:save(next)
		end
		return next
	end,
}
"#;

const TUMBLE_TESTS: &str = r###"
-- rule: P10, P2
test("a push on frame 10 moves the crate in frame 10's step, and update sees it on frame 11", function()
	local e = engine.new()
	e:advance(9)
	local before = e.state.world.bodies.crate
	e:advance(1)
	local after = e.state.world.bodies.crate
	expect(after.vy > before.vy + 5).is_true()
	expect(after.x > before.x).is_true()
	expect(e.state.seen).equals(before.y)
	e:advance(1)
	expect(e.state.seen).equals(after.y)
end)

-- rule: P10, P2
test("the crate lands, turns as it tumbles, and its contacts reach the next tick as events", function()
	local e = engine.new()
	local began = 0
	for _ = 1, 240 do
		e:advance(1)
		for _, event in e.state.world.events do
			if event.kind == "began" then
				began += 1
				expect(event.a_data.name).equals("crate")
			end
		end
	end
	expect(began >= 1).is_true()
	expect(e.state.began).equals(began)
	local crate = e.state.world.bodies.crate
	expect(crate.rotation ~= nil).is_true()
	local q = crate.rotation
	expect(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w).near(1, 1e-4)
	expect(crate.y < 2).is_true()
end)

-- rule: P10, P3
test("rewinding and reloading from a frame through the landing give the hashes of running straight", function()
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
end)

-- rule: P10, P3
test("a 3D world saved, loaded and played on is the world played straight", function()
	local e = engine.new()
	e:advance(90)
	local saved = e.saved
	expect(saved.frame).equals(90)
	local loaded = engine.new({ save = saved })
	loaded:advance(60)
	e:advance(60)
	expect(loaded:hash()).equals(e:hash())
end)

-- rule: P10, P5
test("a ray finds the first body on its way, in three dimensions", function()
	local physics = require("@moonloop/physics")
	local e = engine.new()
	local world = e.state.world
	local hit = physics.ray(world, 0.3, 10, 0.2, 0.3, -10, 0.2)
	expect(hit.id).equals("crate")
	expect(hit.y).near(3.5, 1e-3)
	expect(hit.ny).near(1, 1e-3)
	local through = physics.ray(world, 0.3, 10, 0.2, 0.3, -10, 0.2, "crate")
	expect(through.id).equals("wedge")
	expect(physics.ray(world, 20, 10, 0, 20, -10, 0)).equals(nil)
end)

-- rule: P10, P5
test("a cast shape stops where it first touches a body, in three dimensions", function()
	local physics = require("@moonloop/physics")
	local world = engine.new().state.world
	-- A ball of 0.5 dropped from y = 8 meets the crate's top (y = 3.5).
	local hit = physics.cast(world, physics.ball(0.5), 0.3, 8, 0.2, 0, -10, 0)
	expect(hit.id).equals("crate")
	expect(hit.y).near(4, 1e-2)
	expect(hit.ny).near(1, 1e-3)
	expect(physics.cast(world, physics.ball(0.5), 8, 8, 8, 0, 1, 0)).equals(nil)
end)

-- rule: P10, P6
test("a hinge holds a bob at its arm's length, swinging across its axis; a rope holds at most its length", function()
	local physics = require("@moonloop/physics")
	local w = physics.world3d({ gravity = { x = 0, y = -9.81, z = 0 } })
	w = physics.add(w, "pin", physics.body({ kind = "fixed", y = 5, shape = physics.ball(0.1) }))
	w = physics.add(w, "bob", physics.body({ x = 2, y = 5, shape = physics.ball(0.3) }))
	w = physics.add(w, "hook", physics.body({ kind = "fixed", x = 10, y = 5, shape = physics.ball(0.1) }))
	w = physics.add(w, "weight", physics.body({ x = 10, y = 4, shape = physics.ball(0.3) }))
	w = physics.join(w, "arm", physics.joint({
		kind = "revolute",
		a = "pin",
		b = "bob",
		axis = { x = 0, y = 0, z = 1 },
		anchor_b = { x = -2, y = 0, z = 0 },
	}))
	w = physics.join(w, "rope", physics.joint({ kind = "rope", a = "hook", b = "weight", length = 1.5 }))
	for _ = 1, 40 do
		w = physics.step(w, 1 / 60)
	end
	local bob = w.bodies.bob
	expect(math.sqrt(bob.x ^ 2 + (bob.y - 5) ^ 2 + bob.z ^ 2)).near(2, 0.05)
	expect(bob.y < 4.5).is_true()
	expect(bob.z).near(0, 1e-3)
	local weight = w.bodies.weight
	expect(5 - weight.y).near(1.5, 0.05)
	-- Removing a body takes its joints with it.
	expect(physics.remove(w, "bob").joints.arm).equals(nil)
end)

-- rule: P10, P6
test("an axis counts by its direction alone, however short", function()
	local physics = require("@moonloop/physics")
	local w = physics.world3d({ gravity = { x = 0, y = -9.81, z = 0 } })
	w = physics.add(w, "a", physics.body({ shape = physics.ball(0.5) }))
	w = physics.add(w, "b", physics.body({ x = 3, shape = physics.ball(0.5) }))
	w = physics.join(w, "slide", physics.joint({ kind = "prismatic", a = "a", b = "b", axis = { x = 1e-300, y = 0, z = 0 } }))
	for _ = 1, 30 do
		w = physics.step(w, 1 / 60)
	end
	-- Both fall together, held level by the slide along x.
	expect(w.bodies.a.y < -1).is_true()
	expect(w.bodies.b.y).near(w.bodies.a.y, 1e-3)
end)

-- rule: P10, P8
test("tiles in a 3D world are blocks on the ground, rows along z, merged as in 2D", function()
	local physics = require("@moonloop/physics")
	local collide = require("@moonloop/collide")
	local level = collide.grid({
		"##..",
		"##..",
		"...#",
	}, 2)
	local w = physics.world3d({ gravity = { x = 0, y = -9.81, z = 0 } })
	w = physics.tiles(w, "level", level, 4, 3, { height = 0.5, base = 1, friction = 0.9 })
	local square = w.bodies["level/1"]
	expect(square.x).equals(2)
	expect(square.z).equals(2)
	expect(square.y).equals(1.25)
	expect(square.shape.kind).equals("cuboid")
	expect(square.shape.width).equals(4)
	expect(square.shape.depth).equals(4)
	expect(square.shape.height).equals(0.5)
	expect(square.friction).equals(0.9)
	local corner = w.bodies["level/2"]
	expect(corner.x).equals(7)
	expect(corner.z).equals(5)
	expect(w.bodies["level/3"]).equals(nil)
	-- Unless told, a block is as tall as a tile and stands on 0.
	local plain = physics.tiles(physics.world3d(), "t", level, 4, 3)
	expect(plain.bodies["t/1"].y).equals(1)
	expect(plain.bodies["t/1"].shape.height).equals(2)
	w = physics.add(w, "ball", physics.body({ x = 2, y = 4, z = 2, shape = physics.ball(0.5) }))
	for _ = 1, 90 do
		w = physics.step(w, 1 / 60)
	end
	expect(w.bodies.ball.y).near(2, 0.02)
end)

-- rule: P10, P1
test("a step gives a new world and leaves the one it was given as it was", function()
	local physics = require("@moonloop/physics")
	local e = engine.new()
	e:advance(5)
	local world = e.state.world
	local y = world.bodies.crate.y
	local next = physics.step(world, 1 / 60)
	expect(world.bodies.crate.y).equals(y)
	expect(next.bodies.crate.y < y).is_true()
	expect(rawequal(next.bodies.table, world.bodies.table)).is_true()
	expect(next.dimensions).equals(3)
end)
"###;

// rule: P10, P1, P2, P3, P5, P8
#[test]
fn the_physics_rules_hold_for_a_3d_world_in_a_game_s_own_tests() {
    let dir = game(&[("main.luau", TUMBLE), ("tests/tumble.luau", TUMBLE_TESTS)]);
    let out = moonloop(&["test", "."], dir.path());
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(out.stdout.contains("10 passed, 0 failed"), "{}", out.stdout);
}

// rule: P10, P3
#[test]
fn a_3d_game_gives_the_same_hash_on_five_runs_and_a_replay_reproduces_it() {
    common::five_runs_and_a_replay_agree(TUMBLE);
}

/// A character in a 3D world (P7, P10): a capsule on a floor with a
/// stair, a wall and a ramp too steep to climb; the game walks it by
/// the arrow keys and falls it by gravity of its own.
const WALKER: &str = r#"
local physics = require("@moonloop/physics")
return {
	init = function()
		local w = physics.world3d({ gravity = { x = 0, y = -9.81, z = 0 } })
		w = physics.add(w, "floor", physics.body({ kind = "fixed", y = -0.5, shape = physics.cuboid(40, 1, 40) }))
		w = physics.add(w, "stair", physics.body({ kind = "fixed", x = 3, y = 0.15, shape = physics.cuboid(2, 0.3, 4) }))
		w = physics.add(w, "wall", physics.body({ kind = "fixed", z = -3, y = 1, shape = physics.cuboid(40, 2, 0.4) }))
		w = physics.add(w, "ramp", physics.body({ kind = "fixed", x = -5, y = 0, rotation = { x = 0, y = 0, z = -0.6, w = 0.8 }, shape = physics.cuboid(4, 0.2, 4) }))
		w = physics.add(w, "hero", physics.body({ kind = "kinematic", y = 1, shape = physics.capsule(0.3, 0.8) }))
		w = physics.add(w, "box", physics.body({ x = 0, y = 0.25, z = 2, shape = physics.cuboid(0.5, 0.5, 0.5) }))
		return { world = w, fall = 0 }
	end,
	update = function(state, input, dt)
		local hero = state.world.bodies.hero
		local fall = state.fall - 9.81 * dt * dt
		if hero.grounded then
			fall = -0.01
		end
		local speed = 3 * dt
		local x = (if input:down("right") then speed else 0) - (if input:down("left") then speed else 0)
		local z = (if input:down("down") then speed else 0) - (if input:down("up") then speed else 0)
		if input:pressed("space") then
			x += 0.4
		end
		local walk = { id = "hero", walk = { x = x, y = fall, z = z }, stairs = 0.35 }
		return { world = physics.step(state.world, dt, { walk }), fall = fall }
	end,
}
"#;

const WALKER_TESTS: &str = r#"
-- rule: P7, P10
test("the hero falls to the floor and stands on it, still", function()
	local e = engine.new()
	e:advance(60)
	local hero = e.state.world.bodies.hero
	expect(hero.grounded).equals(true)
	-- A capsule of radius 0.3 and length 0.8 stands 0.7 above its feet.
	expect(hero.y).near(0.7, 0.05)
	expect(hero.vx).equals(0)
	expect(hero.vy).equals(0)
	expect(hero.vz).equals(0)
end)

-- rule: P7, P10
test("the hero steps up the stair and stands on top of it", function()
	local e = engine.new()
	e:advance(30)
	e:press("right")
	e:advance(60)
	local hero = e.state.world.bodies.hero
	expect(hero.x > 2.5).is_true()
	expect(hero.grounded).equals(true)
	expect(hero.y).near(1, 0.05)
end)

-- rule: P7, P10
test("the hero walks into the wall and stops at it, sliding along it", function()
	local e = engine.new()
	e:advance(30)
	e:press("up")
	e:advance(90)
	local hero = e.state.world.bodies.hero
	-- The wall's face is at z = -2.8; the capsule's radius keeps it off.
	expect(hero.z).near(-2.5, 0.05)
	e:press("left")
	e:advance(30)
	local slid = e.state.world.bodies.hero
	expect(slid.x < hero.x - 1).is_true()
	expect(slid.z).near(-2.5, 0.05)
end)

-- rule: P7, P10
test("a ramp steeper than the slope the hero climbs stops it", function()
	local e = engine.new()
	e:advance(30)
	e:press("left")
	e:advance(120)
	local hero = e.state.world.bodies.hero
	-- The ramp rises leftwards at about 74 degrees, its face at x = -4.98
	-- where the hero's foot meets it; the hero climbs 45 degrees, and its
	-- stairs (0.35) do not take it up a stair's height at a time.
	expect(hero.x).near(-4.98 + 0.3, 0.05)
	expect(hero.y).near(0.7, 0.05)
	expect(hero.grounded).equals(true)
end)

-- rule: P7, P10
test("the hero pushes a box out of its way", function()
	local e = engine.new()
	e:advance(30)
	e:press("down")
	e:advance(60)
	local box = e.state.world.bodies.box
	expect(box.z > 2.3).is_true()
end)
"#;

// rule: P7, P10
#[test]
fn a_character_walks_in_a_3d_world_climbing_stairs_and_stopped_by_walls() {
    let dir = game(&[("main.luau", WALKER), ("tests/walk.luau", WALKER_TESTS)]);
    let out = moonloop(&["test", "."], dir.path());
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(out.stdout.contains("5 passed, 0 failed"), "{}", out.stdout);
}

// rule: P7, P10, P3
#[test]
fn a_3d_character_walks_alike_on_five_runs_and_in_a_replay() {
    common::five_runs_and_a_replay_agree(WALKER);
}

/// The frame error of a 3D game whose update runs `update` on `world`.
fn refusal(update: &str) -> String {
    let main = format!(
        r#"
local physics = require("@moonloop/physics")
return {{
	init = function()
		local w = physics.world3d({{ gravity = {{ x = 0, y = -9.81, z = 0 }} }})
		w = physics.add(w, "ball", physics.body({{ y = 2, shape = physics.ball(0.5) }}))
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

// rule: P10, P4
#[test]
fn bad_3d_worlds_and_commands_are_refused_with_one_line_at_the_author_s_line() {
    let cases: &[(&str, &str)] = &[
        (
            "world = physics.step(physics.add(world, 'bad', physics.body({ z = 0 / 0, shape = physics.ball(1) })), dt)",
            "main.luau:11: physics.step: bodies.bad.z is nan; it must be a finite number (P4)",
        ),
        (
            "world = physics.step(physics.add(world, 'flat', physics.body({ shape = physics.circle(1) })), dt)",
            "main.luau:11: physics.step: bodies.flat.shape is a circle, a 2D shape; a body of a 3D world is a ball, cuboid, capsule or cylinder",
        ),
        (
            "world = physics.step(physics.add(world, 'q', physics.body({ rotation = { x = 0, y = 0, z = 0, w = 0 }, shape = physics.ball(1) })), dt)",
            "physics.step: bodies.q.rotation is no rotation: a quaternion { x, y, z, w } of length 0",
        ),
        (
            "world = physics.step(physics.add(world, 'big', physics.body({ shape = physics.cuboid(1, 1, 1e9) })), dt)",
            "physics.step: bodies.big.shape.depth is 1000000000; a size is more than 0 and at most 1000000 (P4)",
        ),
        (
            "world = physics.step(physics.add(world, 'far', physics.body({ x = 1e8, shape = physics.ball(1) })), dt)",
            "physics.step: bodies.far.x is 100000000, farther than 10000000 from 0 (P4)",
        ),
        (
            "world = physics.step(physics.add(world, 'typo', physics.body({ shape = physics.ball(1), resitution = 1 })), dt)",
            "physics.step: bodies.typo has a field `resitution` it does not know",
        ),
        (
            "world = physics.step(world, dt, { { id = 'ball', push = { x = 0, y = math.huge, z = 0 } } })",
            "physics.step: commands[1].push.y is inf; it must be a finite number (P4)",
        ),
        (
            "world = physics.step(world, dt, { { id = 'ball', walk = { x = 1, y = 0, z = 0 } } })",
            "main.luau:11: physics.step: commands[1].walk moves a character, a kinematic body; \"ball\" is not one",
        ),
        (
            "world = physics.step(world, dt, { { id = 'ball', push = { x = 1, y = 0, z = 0 }, stairs = 1 } })",
            "main.luau:11: physics.step: commands[1] has slope or stairs but no walk",
        ),
        (
            "world = physics.step(world, dt, { { id = 'ball', spin = { x = 1, y = 2 } } })",
            "physics.step: commands[1].spin.z is a nil, not a number",
        ),
        (
            "local heap = {}\n\t\tfor i = 1, 600 do heap[i] = { y = 0, shape = physics.ball(1) } end\n\t\tworld = physics.step(physics.world3d({ bodies = heap }), dt)",
            "physics.step: more than 100000 pairs of bodies overlap or nearly do",
        ),
        (
            "local w = table.clone(world)\n\t\tw.dimensions = 4\n\t\tworld = physics.step(w, dt)",
            "physics.step: dimensions is 4; a world has 2 (physics.world) or 3 (physics.world3d)",
        ),
        (
            "world = physics.step(physics.join(physics.add(world, 'b2', physics.body({ x = 2, shape = physics.ball(1) })), 'j', physics.joint({ kind = 'prismatic', a = 'ball', b = 'b2', axis = { x = 0, y = 0, z = 0 } })), dt)",
            "main.luau:11: physics.step: joints.j.axis is { x = 0, y = 0, z = 0 }; an axis has a direction",
        ),
        (
            "world = physics.step(physics.join(world, 'j', physics.joint({ kind = 'fixed', a = 'ball', b = 'moon' })), dt)",
            "main.luau:11: physics.step: joints.j.b is \"moon\", which names no body of the world",
        ),
        (
            "physics.cast(world, physics.circle(1), 0, 0, 0, 1, 0, 0)",
            "main.luau:11: physics.cast: the shape is a circle, a 2D shape; a body of a 3D world is a ball",
        ),
        (
            "physics.cast(world, physics.ball(1), 0, 0, 0, 1, 0, 0, 'ball', 'more')",
            "main.luau:11: physics.cast: takes the world, a shape, 6 numbers and the id of a body to pass through; it was given 10 values",
        ),
        (
            "physics.ray(world, 0, 0, 0, 1, 1)",
            "main.luau:11: physics.ray: z2 is a nil, not a number",
        ),
    ];
    for (update, expected) in cases {
        let err = refusal(update);
        assert!(
            err.contains(expected),
            "{update}\n  gave: {err}\n  want: {expected}"
        );
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(!err.contains("panicked"), "{err}");
    }
}

// rule: P10, K4
#[test]
fn the_crates_example_throws_alike_under_every_clock() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = moonloop(
        &[
            "check-dt",
            "games/crates",
            "--scenario",
            "goal.scenario.luau",
        ],
        root,
    );
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(out.stdout.contains("all 4 clocks agree"), "{}", out.stdout);
}

// rule: P10, T1
#[test]
fn strict_code_reads_a_3d_body_s_place_without_or_0_and_blends_its_rotation() {
    // A body in a world always has x, y and z (a step writes them):
    // physics.Body3 says so, so strict code needs no `or 0`; what
    // physics.body takes may leave them out. interpolate.slerp takes the
    // keyed rotations a 3D world holds.
    let main = r#"--!strict
local physics = require("@moonloop/physics")
local blend = require("@moonloop/interpolate")

local function init(): { world: physics.World3 }
	local world = physics.world3d({ gravity = { x = 0, y = -9.8, z = 0 } })
	world = physics.add(world, "ball", physics.body({ y = 2, shape = physics.ball(0.5) }))
	return { world = world }
end

local function update(state: { world: physics.World3 }, input: Input, dt: number): { world: physics.World3 }
	return { world = physics.step(state.world, dt, {}) }
end

local function render(state: { world: physics.World3 }, scene: Scene, screen: Screen)
	local ball: physics.Body3 = state.world.bodies.ball
	local height: number = ball.y + 1
	local turn = blend.slerp(ball.rotation or { x = 0, y = 0, z = 0, w = 1 }, { x = 0, y = 0, z = 0, w = 1 }, 0.5)
	scene:object("ball", { mesh = "sphere", position = vector.create(ball.x, height - 1, ball.z), rotation = turn })
end

local game: Game<{ world: physics.World3 }> = { init = init, update = update, render = render }
return game
"#;
    let dir = game(&[("main.luau", main)]);
    let out = moonloop(&["check", "."], dir.path());
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    let ran = moonloop(&["run", ".", "--headless", "--frames", "10"], dir.path());
    assert_eq!(ran.code, 0, "{}{}", ran.stdout, ran.stderr);
}

// rule: P2, P10
#[test]
fn a_3d_contact_that_begins_says_where_which_way_and_how_hard() {
    let main = r#"
local physics = require("@moonloop/physics")
return {
	init = function()
		local world = physics.world3d({ gravity = { x = 0, y = -9.8, z = 0 } })
		world = physics.add(world, "ball", physics.body({ x = 1, y = 3, z = 2, shape = physics.ball(0.5) }))
		world = physics.add(world, "floor", physics.body({ kind = "fixed", y = -0.5, shape = physics.cuboid(10, 1, 10) }))
		return { world = world }
	end,
	update = function(state, input, dt)
		return { world = physics.step(state.world, dt, {}) }
	end,
}
"#;
    let tests = r#"
test("a 3D hit says where, which way and how hard", function()
	local e = engine.new({ clock = "constant:1/60" })
	for _ = 1, 240 do
		e:advance(1)
		for _, event in e.state.world.events do
			if event.kind == "began" then
				expect(event.point.x).near(1, 0.05)
				expect(event.point.y).near(0, 0.05)
				expect(event.point.z).near(2, 0.05)
				expect(event.normal.y).near(-1, 1e-4)
				expect(event.impulse > 0).is_true()
				return
			end
		end
	end
	error("no hit")
end)
"#;
    let dir = game(&[("main.luau", main), ("tests/hits.luau", tests)]);
    let out = moonloop(&["test", "."], dir.path());
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
}

// rule: P2, P4, P10
#[test]
fn a_dragged_3d_body_follows_the_point_and_still_collides() {
    // The mouse joint of a 2D world, in 3D (one step written for both):
    // each step the ball gets the velocity that would take it to the
    // point in `drag_time`. It reaches a point in the open, and stops at
    // a wall in the way.
    let main = r#"
local physics = require("@moonloop/physics")
return {
	init = function()
		local world = physics.world3d({})
		world = physics.add(world, "ball", physics.body({ x = 0, y = 1, z = 0, shape = physics.ball(0.25) }))
		world = physics.add(world, "wall", physics.body({ kind = "fixed", x = 3, y = 1, z = 0, shape = physics.cuboid(0.2, 4, 4) }))
		return { world = world, target = { x = 1, y = 2, z = -1 } }
	end,
	update = function(state, input, dt)
		local world = physics.step(state.world, dt, { { id = "ball", drag = state.target } })
		return { world = world, target = state.target }
	end,
}
"#;
    let tests = r#"
local physics = require("@moonloop/physics")

local function aim(e, x, y, z)
	e:apply(function(state)
		return { world = state.world, target = { x = x, y = y, z = z } }
	end)
end

test("the ball reaches the point in the open", function()
	local e = engine.new({ clock = "constant:1/60" })
	e:advance(60)
	local ball = e.state.world.bodies.ball
	expect(ball.x).near(1, 0.01)
	expect(ball.y).near(2, 0.01)
	expect(ball.z).near(-1, 0.01)
end)

test("a wall in the way stops it", function()
	local e = engine.new({ clock = "constant:1/60" })
	aim(e, 5, 1, 0)
	e:advance(60)
	expect(e.state.world.bodies.ball.x < 3 - 0.1 - 0.24).is_true()
end)

test("a drag time of 0 is refused by name", function()
	local e = engine.new()
	expect(function()
		physics.step(e.state.world, 1 / 60, { { id = "ball", drag = { x = 0, y = 0, z = 0 }, drag_time = 0 } })
	end).errors("drag_time is in seconds, above 0")
end)
"#;
    let dir = game(&[("main.luau", main), ("tests/drag.luau", tests)]);
    let out = moonloop(&["test", "."], dir.path());
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(out.stdout.contains("3 passed, 0 failed"), "{}", out.stdout);
}
