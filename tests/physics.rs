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

-- rule: P1
test("the world a step returns is frozen, and so is the one it was handed", function()
	local physics = require("@moonloop/physics")
	local w = physics.world({ gravity = { x = 0, y = 600 } })
	w = physics.add(w, "ball", physics.body({ x = 10, y = 10, shape = physics.circle(4), data = { hp = 3 } }))
	expect(table.isfrozen(w)).is_false()
	local next = physics.step(w, 1 / 60)
	for _, world in { w, next } do
		expect(table.isfrozen(world)).is_true()
		expect(table.isfrozen(world.bodies)).is_true()
		expect(table.isfrozen(world.bodies.ball)).is_true()
		expect(table.isfrozen(world.bodies.ball.data)).is_true()
	end
	expect(pcall(function()
		next.bodies.ball.x = 0
	end)).is_false()
	-- A body changes through a new world, which steps from where it says.
	local moved = table.clone(next.bodies.ball)
	moved.x = 200
	local after = physics.step(physics.add(physics.remove(next, "ball"), "ball", moved), 1 / 60)
	expect(after.bodies.ball.x).equals(200)
	expect(physics.step(next, 1 / 60).bodies.ball.x).equals(10)
	-- A world made by hand with no bodies steps as an empty one.
	local bare = physics.step({ gravity = { x = 0, y = 600 } }, 1 / 60)
	expect(bare.steps).equals(1)
	local count = 0
	for _ in bare.bodies do
		count += 1
	end
	expect(count).equals(0)
end)

-- rule: P1
test("a pair still touching keeps its table when others begin", function()
	local physics = require("@moonloop/physics")
	local w = physics.world({ gravity = { x = 0, y = 600 } })
	w = physics.add(w, "floor", physics.body({ kind = "fixed", x = 100, y = 200, shape = physics.box(400, 20) }))
	w = physics.add(w, "a", physics.body({ x = 50, y = 185, shape = physics.box(10, 10) }))
	w = physics.add(w, "b", physics.body({ x = 150, y = 150, shape = physics.box(10, 10) }))
	local function pair(world, id)
		for _, p in world.touching do
			if p.a == id or p.b == id then
				return p
			end
		end
		return nil
	end
	local steps = 0
	while pair(w, "a") == nil and steps < 120 do
		w = physics.step(w, 1 / 60)
		steps += 1
	end
	local resting = pair(w, "a")
	expect(resting ~= nil).is_true()
	while pair(w, "b") == nil and steps < 240 do
		w = physics.step(w, 1 / 60)
		steps += 1
	end
	expect(pair(w, "b") ~= nil).is_true()
	expect(rawequal(pair(w, "a"), resting)).is_true()
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

/// A machine of joints (a hinge, a rope, a slide, a weld) and a character
/// that walks over a stair and up a ramp to a wall.
const MACHINE: &str = r#"
local physics = require("@moonloop/physics")

local function machine()
	local w = physics.world({ gravity = { x = 0, y = 600 } })
	local function add(id, body)
		w = physics.add(w, id, physics.body(body))
	end
	add("floor", { kind = "fixed", x = 200, y = 210, shape = physics.box(1000, 20) })
	add("ramp", { kind = "fixed", shape = physics.polygon({ -40, 200, -200, 200, -200, 142 }) })
	add("step", { kind = "fixed", x = 100, y = 196, shape = physics.box(40, 8) })
	add("wall", { kind = "fixed", x = 250, y = 160, shape = physics.box(20, 80) })
	add("hero", { kind = "kinematic", x = 50, y = 184, shape = physics.box(12, 32) })
	add("pin", { kind = "fixed", x = 300, y = 40, shape = physics.circle(2), sensor = true })
	add("bob", { x = 360, y = 40, shape = physics.circle(6) })
	add("hook", { kind = "fixed", x = 420, y = 20, shape = physics.circle(2), sensor = true })
	add("weight", { x = 420, y = 40, shape = physics.circle(5) })
	add("rail", { kind = "fixed", x = 500, y = 100, shape = physics.circle(2), sensor = true })
	add("slider", { x = 500, y = 100, shape = physics.box(10, 10) })
	add("left", { x = 560, y = 60, shape = physics.box(10, 10) })
	add("right", { x = 580, y = 60, shape = physics.box(10, 10) })
	local function join(id, joint)
		w = physics.join(w, id, physics.joint(joint))
	end
	join("hinge", { kind = "revolute", a = "pin", b = "bob", anchor_b = { x = -60, y = 0 } })
	join("rope", { kind = "rope", a = "hook", b = "weight", length = 50 })
	join("slide", { kind = "prismatic", a = "rail", b = "slider", axis = { x = 1, y = 0 }, limits = { -20, 20 } })
	join("weld", { kind = "fixed", a = "left", b = "right", anchor_a = { x = 10, y = 0 }, anchor_b = { x = -10, y = 0 } })
	return w
end

return {
	config = { id = "machine" },
	init = function()
		return { world = machine(), fall = 0 }
	end,
	update = function(state, input, dt)
		-- The hero falls as gravity says until it stands on something.
		local hero = state.world.bodies.hero
		local fall = if hero.grounded then 1 else state.fall + 600 * dt * dt
		local x = if input:down("left") then -2 elseif input:down("right") then 2 else 0
		local commands = { { id = "hero", walk = { x = x, y = fall }, stairs = 10 } }
		if input:pressed("space") then
			table.insert(commands, { id = "slider", push = { x = 300, y = 0 } })
		end
		return { world = physics.step(state.world, dt, commands), fall = fall }
	end,
}
"#;

const MACHINE_TESTS: &str = r#"
local physics = require("@moonloop/physics")

local function distance(a, b)
	return math.sqrt((a.x - b.x) ^ 2 + (a.y - b.y) ^ 2)
end

-- rule: P6
test("a hinge keeps its bob at its length, a rope never past its own, a slide within its limits, a weld together", function()
	local e = engine.new()
	e:advance(30)
	e:tap("space")
	local farthest, slid, lowest = 0, 0, 0
	for _ = 1, 180 do
		e:advance(1)
		local b = e.state.world.bodies
		expect(distance(b.bob, b.pin)).near(60, 0.5)
		farthest = math.max(farthest, distance(b.weight, b.hook))
		slid = math.max(slid, b.slider.x - b.rail.x)
		expect(b.slider.y).near(100, 0.01)
		expect(distance(b.left, b.right)).near(20, 0.1)
		lowest = math.max(lowest, b.bob.y)
	end
	local b = e.state.world.bodies
	-- The bob swung through the bottom, under the pin; the weight hangs
	-- at the rope's end.
	expect(lowest).near(100, 1)
	expect(farthest).near(50, 0.5)
	expect(b.weight.y).near(70, 0.5)
	expect(slid).near(20, 0.1)
	-- The welded pair fell to the floor without turning apart.
	expect(b.left.y).near(195, 0.5)
end)

-- rule: P6
test("removing a body removes the joints that held it", function()
	local e = engine.new()
	local world = physics.remove(e.state.world, "bob")
	expect(world.joints.hinge).equals(nil)
	expect(world.joints.rope ~= nil).is_true()
	expect(e.state.world.joints.hinge ~= nil).is_true()
	world = physics.unjoin(world, "rope")
	expect(world.joints.rope).equals(nil)
	local fell = physics.step(world, 1 / 60)
	expect(fell.bodies.weight.vy > 0).is_true()
end)

-- rule: P7
test("a character walks up a stair lower than its stairs, stops flush at a wall, and says it stands", function()
	local e = engine.new()
	e:press("right")
	local top = math.huge
	for _ = 1, 150 do
		e:advance(1)
		top = math.min(top, e.state.world.bodies.hero.y)
	end
	local hero = e.state.world.bodies.hero
	-- On the stair: its top (192) less half the hero (16) and the gap the
	-- controller keeps.
	expect(top).near(176, 0.5)
	-- Flush at the wall's face (240) less half the hero.
	expect(hero.x).near(234, 0.5)
	expect(hero.y).near(184, 0.5)
	expect(hero.grounded).equals(true)
	expect(hero.vx).equals(0)
end)

-- rule: P7
test("a character climbs a ramp gentler than its slope, and falls when it walks off", function()
	local e = engine.new()
	e:press("left")
	e:advance(105)
	local hero = e.state.world.bodies.hero
	-- 105 frames of 2 pixels a frame, and up the ramp (20 degrees).
	expect(hero.x).near(50 - 210, 0.5)
	expect(hero.y < 140).is_true()
	expect(hero.grounded).equals(true)
	e:advance(60)
	hero = e.state.world.bodies.hero
	expect(hero.x).near(50 - 330, 0.5)
	expect(hero.y).near(184, 0.5)
	expect(hero.grounded).equals(true)
end)

-- rule: P5
test("a circle cast down stops on the floor's top; a ray passes through the body it is told to", function()
	local e = engine.new()
	e:advance(1)
	local world = e.state.world
	local hit = physics.cast(world, physics.circle(5), 650, 0, 0, 400)
	expect(hit.id).equals("floor")
	expect(hit.y).near(195, 0.01)
	expect(hit.ny).near(-1, 0.001)
	expect(hit.fraction).near(195 / 400, 0.001)
	local hero = world.bodies.hero
	expect(physics.ray(world, hero.x, hero.y, hero.x, 400).id).equals("hero")
	expect(physics.ray(world, hero.x, hero.y, hero.x, 400, "hero").id).equals("floor")
	expect(physics.cast(world, physics.box(4, 4), 650, 0, 0, 100)).equals(nil)
end)

-- rule: P2
test("a step of no time (a window's first frame, the first after a pause) applies the commands and moves nothing", function()
	local e = engine.new()
	e:advance(10)
	local world = e.state.world
	local still = physics.step(world, 0, { { id = "bob", push = { x = 0, y = -100 } }, { id = "hero", walk = { x = 5, y = 0 } } })
	expect(still.steps).equals(world.steps)
	expect(#still.events).equals(0)
	expect(still.bodies.bob.x).equals(world.bodies.bob.x)
	expect(still.bodies.bob.y).equals(world.bodies.bob.y)
	expect(still.bodies.bob.vy).near(world.bodies.bob.vy - 100, 0.01)
	expect(still.bodies.hero.x).equals(world.bodies.hero.x)
end)

-- rule: P8
test("solid tiles become a few fixed boxes, a floor one seamless body, and a ball lands on it", function()
	local collide = require("@moonloop/collide")
	local level = collide.grid({
		"..........",
		"......==..",
		"=........=",
		"==========",
		"==========",
	}, 16, "=")
	local world = physics.tiles(physics.world({ gravity = { x = 0, y = 600 } }), "level", level, 10, 5)
	local names = {}
	for id, body in world.bodies do
		table.insert(names, `{id} {body.x} {body.y} {body.shape.width}x{body.shape.height}`)
	end
	table.sort(names)
	expect(table.concat(names, ", ")).equals("level/1 112 24 32x16, level/2 8 40 16x16, level/3 152 40 16x16, level/4 80 64 160x32")
	expect(world.bodies["level/4"].data.tiles).equals("level")
	world = physics.add(world, "ball", physics.body({ x = 40, y = 0, shape = physics.circle(4) }))
	for _ = 1, 120 do
		world = physics.step(world, 1 / 60)
	end
	expect(world.bodies.ball.y).near(44, 0.1)
end)

-- rule: P3
test("rewinding through joints and walks gives the hashes of running straight", function()
	local straight = engine.new()
	straight:press("right")
	straight:advance(120)
	local e = engine.new()
	e:press("right")
	e:advance(120)
	e:rewind(100)
	e:advance(100)
	expect(e:hash()).equals(straight:hash())
end)
"#;

// rule: P3, P5, P6, P7, P8
#[test]
fn joints_hold_characters_walk_and_shapes_cast_in_a_game_s_own_tests() {
    let dir = game(&[
        ("main.luau", MACHINE),
        ("tests/machine.luau", MACHINE_TESTS),
    ]);
    let out = moonloop(&["test", "."], dir.path());
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(out.stdout.contains("8 passed, 0 failed"), "{}", out.stdout);
}

/// A character standing on the ground exactly (its feet on the ground's
/// top), a crate on the ground ahead of it; the right arrow walks it,
/// pressing down into the ground as a game keeping to it does.
const PUSHER: &str = r#"
local physics = require("@moonloop/physics")
return {
	init = function()
		local w = physics.world({ gravity = { x = 0, y = 900 } })
		w = physics.add(w, "ground", physics.body({ kind = "fixed", x = 160, y = 230, shape = physics.box(320, 20) }))
		w = physics.add(w, "hero", physics.body({ kind = "kinematic", x = 40, y = 204, shape = physics.box(12, 32) }))
		w = physics.add(w, "crate", physics.body({ x = 80, y = 210, shape = physics.box(20, 20) }))
		return { world = w }
	end,
	update = function(state, input, dt)
		local x = if input:down("right") then 2 else 0
		return { world = physics.step(state.world, dt, { { id = "hero", walk = { x = x, y = 1 } } }) }
	end,
}
"#;

const PUSHER_TESTS: &str = r#"
-- rule: P7
test("a character walks into a crate and pushes it along the ground", function()
	local e = engine.new()
	e:press("right")
	e:advance(60)
	local b = e.state.world.bodies
	-- It reached the crate (at 64) and went on, slower for the crate's
	-- weight (about its own), with the crate ahead of it.
	expect(b.hero.x > 100).is_true()
	expect(b.crate.x > b.hero.x + 15).is_true()
	expect(b.crate.y).near(210, 0.5)
end)

-- rule: P7
test("a character that stood still before walking is not stuck in the ground", function()
	local e = engine.new()
	e:advance(30)
	e:press("right")
	e:advance(30)
	local hero = e.state.world.bodies.hero
	-- Stuck, it stayed at 54; it walks on, to the crate and pushing it.
	expect(hero.x > 75).is_true()
	expect(hero.y).near(204, 0.5)
	expect(hero.grounded).equals(true)
end)
"#;

// rule: P7
#[test]
fn a_character_pushes_what_is_in_its_way_and_never_sticks_in_the_ground() {
    let dir = game(&[("main.luau", PUSHER), ("tests/push.luau", PUSHER_TESTS)]);
    let out = moonloop(&["test", "."], dir.path());
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(out.stdout.contains("2 passed, 0 failed"), "{}", out.stdout);
}

// rule: P1, P2, P3, P5
#[test]
fn the_physics_rules_hold_in_a_game_s_own_tests() {
    let dir = game(&[
        ("main.luau", FALLING),
        ("tests/physics.luau", FALLING_TESTS),
    ]);
    let out = moonloop(&["test", "."], dir.path());
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(out.stdout.contains("8 passed, 0 failed"), "{}", out.stdout);
}

/// Forty balls and boxes heaped in a bin: every body touches others for
/// most of the run, so what rapier carries from step to step (contacts
/// and their impulses) shapes every step. Saves on frame 150.
const HEAP: &str = r#"
local physics = require("@moonloop/physics")
return {
	config = { id = "heap" },
	init = function(saved)
		if saved then
			return saved
		end
		local bodies = {}
		for i = 1, 40 do
			local shape = if i % 2 == 0 then physics.circle(5) else physics.box(9, 9)
			bodies[i] = { x = 60 + (i % 8) * 12, y = 20 + (i // 8) * 12, shape = shape, restitution = 0.1 }
		end
		bodies.floor = { kind = "fixed", x = 100, y = 160, shape = physics.box(200, 10) }
		bodies.left = { kind = "fixed", x = 45, y = 100, shape = physics.box(10, 140) }
		bodies.right = { kind = "fixed", x = 165, y = 100, shape = physics.box(10, 140) }
		return { world = physics.world({ gravity = { x = 0, y = 600 }, bodies = bodies }), frame = 0 }
	end,
	update = function(state, input, dt)
		local frame = state.frame + 1
		local commands = {}
		if frame % 40 == 0 then
			commands = { { id = frame // 40, push = { x = 40, y = -200 } } }
		end
		local world = physics.step(state.world, dt, commands)
		if frame == 150 then
			input:save({ world = world, frame = frame })
		end
		return { world = world, frame = frame }
	end,
}
"#;

const HEAP_TESTS: &str = r#"
-- rule: P3
test("rewinding and reloading into a heap, past a keyframe, give the hashes of running straight", function()
	local straight = engine.new()
	straight:advance(300)
	local e = engine.new()
	e:advance(300)
	expect(e:hash()).equals(straight:hash())
	e:rewind(70)
	e:advance(70)
	expect(e:hash()).equals(straight:hash())
	expect(e:reload({}, { from = 200 })).equals(nil)
	expect(e:hash()).equals(straight:hash())
	local at = engine.new()
	at:advance(250)
	expect(e:state_at(250).world.bodies[7].y).equals(at.state.world.bodies[7].y)
end)

-- rule: P3
test("a heap saved, loaded and played on is the heap played straight", function()
	local e = engine.new()
	e:advance(150)
	local loaded = engine.new({ save = e.saved })
	loaded:advance(120)
	e:advance(120)
	expect(loaded:hash()).equals(e:hash())
end)

-- rule: P3, N1
test("the sync test rolls a heap back and steps it again the same", function()
	local e = engine.new({ synctest = 5 })
	e:advance(200)
	expect(e.state.frame).equals(200)
end)
"#;

// rule: P3
#[test]
fn a_heap_rewinds_reloads_loads_and_rolls_back_as_it_ran() {
    let dir = game(&[("main.luau", HEAP), ("tests/heap.luau", HEAP_TESTS)]);
    let out = moonloop(&["test", "."], dir.path());
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(out.stdout.contains("3 passed, 0 failed"), "{}", out.stdout);
}

// rule: P3
#[test]
fn the_same_input_gives_the_same_hash_on_five_runs_and_a_replay_reproduces_it() {
    common::five_runs_and_a_replay_agree(FALLING);
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
            "main.luau:11: physics.step: bodies.bad.x is nan; it must be a finite number (P4)",
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
            // parry panics on points that all coincide (it took the host down).
            "world = physics.step(physics.add(world, 'dot', physics.body({ x = 0, y = 0, shape = physics.polygon({ 1, 1, 1, 1, 1, 1, 1, 1 }) })), dt)",
            "main.luau:11: physics.step: bodies.dot.shape's points make no polygon",
        ),
        (
            "world = physics.step(physics.add(world, 'odd', physics.body({ x = 0, y = 0, shape = physics.circle(2), data = { on = print } })), dt)",
            "main.luau:11: physics.step: the world.bodies.odd.data.on is a function",
        ),
        (
            "world = physics.step(world, dt)\n\t\tworld.bodies.ball.x = 3",
            "main.luau:12: attempt to modify a readonly table (S3",
        ),
        (
            "world = physics.step(world, -1 / 60)",
            "physics.step: dt is -0.016666666666666666; a step is from 0 to 1 second (P4)",
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
        (
            "world = physics.step(physics.join(world, 'j', physics.joint({ kind = 'revolute', a = 'ball', b = 'moon' })), dt)",
            "physics.step: joints.j.b is \"moon\", which names no body of the world",
        ),
        (
            "world = physics.step(physics.join(world, 'j', physics.joint({ kind = 'rope', a = 'ball', b = 'ball', length = 3 })), dt)",
            "physics.step: joints.j joins a body to itself",
        ),
        (
            "world = physics.add(world, 'top', physics.body({ kind = 'fixed', x = 0, y = 0, shape = physics.circle(1) }))\n\t\tworld = physics.step(physics.join(world, 'j', physics.joint({ kind = 'rope', a = 'ball', b = 'top' })), dt)",
            "physics.step: joints.j is a rope with no length",
        ),
        (
            "world = physics.add(world, 'top', physics.body({ kind = 'fixed', x = 0, y = 0, shape = physics.circle(1) }))\n\t\tworld = physics.step(physics.join(world, 'j', physics.joint({ kind = 'hinge', a = 'ball', b = 'top' })), dt)",
            "physics.step: joints.j.kind is \"hinge\"; a joint is \"revolute\", \"prismatic\", \"fixed\" or \"rope\"",
        ),
        (
            "world = physics.step(world, dt, { { id = 'ball', walk = { x = 1, y = 0 } } })",
            "physics.step: commands[1].walk moves a character, a kinematic body; \"ball\" is not one",
        ),
        (
            "world = physics.step(world, dt, { { id = 'ball', stairs = 4 } })",
            "physics.step: commands[1] has slope or stairs but no walk",
        ),
        (
            "local hit = physics.cast(world, physics.polyline({ 0, 0, 1, 1 }), 0, 0, 1, 1)",
            "physics.cast: a polyline has no inside to cast",
        ),
        (
            "local hit = physics.cast(world, physics.circle(2), 0, 0 / 0, 1, 1)",
            "physics.cast: y is nan; it must be a finite number (P4)",
        ),
        (
            "world = physics.tiles(world, 'level', { size = 8, solid = function() return true end }, 2000, 2000)",
            "main.luau:11: physics.tiles: 2000x2000 is more than 1048576 tiles (P4)",
        ),
        (
            "world = physics.step(physics.add(world, 'sun', physics.body({ x = 0, y = 0, shape = physics.circle(1e300) })), dt)",
            "physics.step: bodies.sun.shape.radius is 1e300; a size is more than 0 and at most 1000000 (P4)",
        ),
        (
            "local heavy = table.clone(world)\n\t\theavy.gravity = { x = 0, y = 1e308 }\n\t\tworld = physics.step(heavy, dt)",
            "physics.step: gravity.y is 1e308, farther than 10000000 from 0 (P4)",
        ),
        (
            "local many = {}\n\t\tfor i = 1, 10001 do many[i] = { kind = 'rope', a = 'ball', b = 'top', length = 1 } end\n\t\tworld = physics.add(world, 'top', physics.body({ kind = 'fixed', x = 0, y = 0, shape = physics.circle(1) }))\n\t\tlocal roped = table.clone(world)\n\t\troped.joints = many\n\t\tworld = physics.step(roped, dt)",
            "physics.step: the world has more than 10000 joints (P4)",
        ),
        (
            "local hit = physics.ray(world, 0, 0, 1, 1, 'nobody')",
            "physics.ray: the body to pass through names no body of the world",
        ),
        (
            "local x = physics.blend(world, world, 'missing', 0.5)",
            "main.luau:11: physics.blend: the world has no body missing",
        ),
        (
            "local tiles = require('@moonloop/collide').grid({ '#..' })",
            "main.luau:11: collide.grid: size is the side of a tile, a number above 0, not nil",
        ),
        (
            "local tiles = require('@moonloop/collide').grid({ '#..', 7 }, 16)",
            "main.luau:11: collide.grid: row 2 is number; each row is a string",
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

// rule: P9
#[test]
fn the_physics_view_finds_every_world_in_the_state_with_its_contacts_and_joints() {
    use moonloop::Game;
    use moonloop::colliders::{Form, Motion};
    // Two worlds, one of them deep in the state.
    let main = MACHINE
        .replace(
            "return { world = machine(), fall = 0 }",
            "return { world = machine(), fall = 0, levels = { { second = physics.world({ bodies = { lone = physics.body({ x = 1, y = 2, shape = physics.circle(3) }) } }) } } }",
        )
        .replace("fall = fall }", "fall = fall, levels = state.levels }");
    let dir = game(&[("main.luau", &main)]);
    let mut session = common::session(dir.path());
    session.advance(60).unwrap();
    let view = session.engine().game().colliders();
    let state = session.engine().game().state_json().unwrap();
    assert!(state.contains("\"lone\""), "{state}");
    // The machine's 13 bodies and the lone ball.
    assert_eq!(view.outlines.len(), 14, "{view:?}");
    let lone = view
        .outlines
        .iter()
        .find(|o| o.form == Form::Circle(3.0))
        .unwrap();
    assert_eq!((lone.x, lone.y, lone.motion), (1.0, 2.0, Motion::Dynamic));
    // The hero stands on the floor: both touch.
    let touching = view.outlines.iter().filter(|o| o.touching).count();
    assert!(touching >= 2, "{view:?}");
    // Four joints; the hinge runs from the pin (300, 40) to the bob's anchor,
    // which the bob's turn carries, 60 from the pin.
    assert_eq!(view.joints.len(), 4);
    let hinge = view.joints[0];
    assert_eq!((hinge[0], hinge[1]), (300.0, 40.0));
    assert!(
        ((hinge[2] - 300.0).hypot(hinge[3] - 40.0)).abs() < 1.0,
        "{hinge:?}"
    );
}

/// Keeps every world it steps, under a small memory cap.
const HOARDER: &str = r#"
local physics = require("@moonloop/physics")
return {
	config = { memory = 16 },
	init = function()
		local bodies = {}
		for i = 0, 999 do
			bodies[i + 1] = { x = 20 + (i % 40) * 10, y = 20 + (i // 40) * 10, shape = physics.circle(4) }
		end
		bodies.floor = { kind = "fixed", x = 210, y = 600, shape = physics.box(440, 20) }
		return { world = physics.world({ gravity = { x = 0, y = 600 }, bodies = bodies }), kept = {} }
	end,
	update = function(state, input, dt)
		local world = physics.step(state.world, dt)
		local kept = table.clone(state.kept)
		table.insert(kept, world)
		return { world = world, kept = kept }
	end,
}
"#;

// rule: P4, H9
#[test]
fn a_step_past_the_memory_cap_says_so_at_the_author_s_line() {
    let dir = game(&[("main.luau", HOARDER)]);
    let mut session = common::session(dir.path());
    let err = (0..400)
        .find_map(|_| session.advance(1).err())
        .expect("the cap is reached")
        .to_string();
    // The step makes most of what the game allocates (a new table for
    // each of its 1,000 balls), so it is where the cap is met.
    assert!(
        err.contains("main.luau:14: physics.step: H9: the game ran out of memory"),
        "{err}"
    );
}

// rule: P4
#[test]
fn speeds_within_the_documented_bound_are_kept_and_fast_bodies_stop_at_thin_walls() {
    // rapier capped every body at 400 meters a second (20,000 pixels at the
    // default scale) without a word; the docs bound velocities at
    // 10,000,000. And a body 10,000 pixels a step from a 4-pixel wall
    // stops at it, `bullet` or not: contacts are predicted from velocity.
    let main = r#"
local physics = require("@moonloop/physics")
return {
	init = function()
		local world = physics.world({ gravity = { x = 0, y = 0 } })
		world = physics.add(world, "fast", physics.body({ x = 0, y = 0, vx = 60000, shape = physics.circle(4) }))
		world = physics.add(world, "bullet", physics.body({ x = 0, y = 100, vx = 600000, bullet = true, shape = physics.circle(4) }))
		world = physics.add(world, "plain", physics.body({ x = 0, y = 200, vx = 600000, shape = physics.circle(4) }))
		world = physics.add(world, "wall1", physics.body({ kind = "fixed", x = 5000, y = 100, shape = physics.box(4, 60) }))
		world = physics.add(world, "wall2", physics.body({ kind = "fixed", x = 5000, y = 200, shape = physics.box(4, 60) }))
		return { world = world }
	end,
	update = function(state, input, dt)
		return { world = physics.step(state.world, dt, {}) }
	end,
}
"#;
    let tests = r#"
test("speeds are kept and walls hold", function()
	local e = engine.new({ clock = "constant:1/60" })
	e:advance(3)
	local b = e.state.world.bodies
	expect(b.fast.vx).equals(60000)
	expect(b.fast.x).near(3000, 0.01)
	expect(b.bullet.x < 5000).is_true()
	expect(b.plain.x < 5000).is_true()
end)
"#;
    let dir = game(&[("main.luau", main), ("tests/speed.luau", tests)]);
    let out = moonloop(&["test", "."], dir.path());
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
}

// rule: P2
#[test]
fn a_contact_that_begins_says_where_which_way_and_how_hard() {
    // A ball dropped onto a floor: its `began` event has the point on the
    // ball's surface where they met, the normal from the ball (a) to the
    // floor (b), down the screen, and an impulse that grows with the
    // drop. A sensor's has none.
    let main = r#"
local physics = require("@moonloop/physics")
local function drop(height)
	local world = physics.world({ gravity = { x = 0, y = 600 } })
	world = physics.add(world, "ball", physics.body({ x = 100, y = 200 - height, shape = physics.circle(10) }))
	world = physics.add(world, "floor", physics.body({ kind = "fixed", x = 100, y = 220, shape = physics.box(400, 20) }))
	world = physics.add(world, "zone", physics.body({ kind = "fixed", sensor = true, x = 100, y = 150, shape = physics.box(400, 10) }))
	return world
end
return {
	init = function()
		return { low = drop(20), high = drop(150) }
	end,
	update = function(state, input, dt)
		return { low = physics.step(state.low, dt, {}), high = physics.step(state.high, dt, {}) }
	end,
}
"#;
    let tests = r#"
local function first_hit(e, which)
	for _ = 1, 240 do
		e:advance(1)
		for _, event in e.state[which].events do
			if event.kind == "began" and event.b == "floor" then
				return event
			end
		end
	end
	error("no hit")
end

test("a hit says where, which way and how hard", function()
	local low = first_hit(engine.new({ clock = "constant:1/60" }), "low")
	expect(low.point.x).near(100, 0.5)
	expect(low.point.y).near(210, 1)
	expect(low.normal.x).near(0, 1e-4)
	expect(low.normal.y).near(1, 1e-4)
	expect(low.point.z).equals(nil)
	local high = first_hit(engine.new({ clock = "constant:1/60" }), "high")
	expect(low.impulse > 0).is_true()
	expect(high.impulse > 2 * low.impulse).is_true()
end)

test("a sensor's contact has no point", function()
	local e = engine.new({ clock = "constant:1/60" })
	for _ = 1, 240 do
		e:advance(1)
		for _, event in e.state.high.events do
			if event.kind == "began" and event.b == "zone" then
				expect(event.point).equals(nil)
				expect(event.impulse).equals(nil)
				return
			end
		end
	end
	error("the ball never passed the zone")
end)
"#;
    let dir = game(&[("main.luau", main), ("tests/hits.luau", tests)]);
    let out = moonloop(&["test", "."], dir.path());
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(out.stdout.contains("2 passed, 0 failed"), "{}", out.stdout);
}

// rule: P2, P4
#[test]
fn a_dragged_body_follows_the_point_and_still_collides() {
    // A mouse joint as a command: each step the puck gets the velocity
    // that would take it to the pointer in `drag_time`. It reaches a point
    // in the open, and stops at a wall in the way.
    let main = r#"
local physics = require("@moonloop/physics")
return {
	config = { width = 400, height = 300 },
	init = function()
		local world = physics.world({ gravity = { x = 0, y = 0 } })
		world = physics.add(world, "puck", physics.body({ x = 100, y = 100, shape = physics.circle(10) }))
		world = physics.add(world, "wall", physics.body({ kind = "fixed", x = 250, y = 200, shape = physics.box(10, 100) }))
		return { world = world, target = { x = 200, y = 100 } }
	end,
	update = function(state, input, dt)
		local world = physics.step(state.world, dt, { { id = "puck", drag = state.target } })
		return { world = world, target = state.target }
	end,
}
"#;
    let tests = r#"
local physics = require("@moonloop/physics")

local function aim(e, x, y)
	e:apply(function(state)
		return { world = state.world, target = { x = x, y = y } }
	end)
end

test("the puck reaches the point in the open", function()
	local e = engine.new({ clock = "constant:1/60" })
	e:advance(60)
	local puck = e.state.world.bodies.puck
	expect(puck.x).near(200, 0.5)
	expect(puck.y).near(100, 0.5)
end)

test("a wall in the way stops it", function()
	local e = engine.new({ clock = "constant:1/60" })
	aim(e, 350, 200)
	e:advance(60)
	local puck = e.state.world.bodies.puck
	expect(puck.x < 245 - 9).is_true()
end)

test("a drag time of 0 is refused by name", function()
	local e = engine.new()
	expect(function()
		physics.step(e.state.world, 1 / 60, { { id = "puck", drag = { x = 0, y = 0 }, drag_time = 0 } })
	end).errors("drag_time is in seconds, above 0")
end)
"#;
    let dir = game(&[("main.luau", main), ("tests/drag.luau", tests)]);
    let out = moonloop(&["test", "."], dir.path());
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(out.stdout.contains("3 passed, 0 failed"), "{}", out.stdout);
}
