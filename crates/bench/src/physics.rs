//! The physics cases (rules P1-P3, P10): a frame of a game stepping 1,000
//! bodies through `@moonloop/physics` against rapier stepping the same
//! bodies in a world it keeps, in Rust, in 2D and in 3D; what history
//! keeps a minute of the 2D game; and how long going back 600 frames
//! through it takes.

use std::time::{Duration, Instant};

use rapier2d::prelude::*;

use super::{Row, TempGame, interleaved};
use moonloop::error::Result;

/// Balls in a grid, 40 across and 25 down, falling into a box: contacts
/// with the floor, the walls and one another within a second.
const BODIES: &str = r#"
local physics = require("@moonloop/physics")
return {
	init = function()
		local bodies = {}
		for i = 0, 999 do
			bodies[i + 1] = { x = 20 + (i % 40) * 10, y = 20 + (i // 40) * 10, shape = physics.circle(4), restitution = 0.2 }
		end
		bodies.floor = { kind = "fixed", x = 210, y = 300, shape = physics.box(440, 20) }
		bodies.left = { kind = "fixed", x = 0, y = 150, shape = physics.box(20, 300) }
		bodies.right = { kind = "fixed", x = 420, y = 150, shape = physics.box(20, 300) }
		return { world = physics.world({ gravity = { x = 0, y = 600 }, bodies = bodies }) }
	end,
	update = function(state, input, dt)
		return { world = physics.step(state.world, dt) }
	end,
}
"#;

/// What the value itself costs (P1): a frame that makes, as a step
/// does, a new table for each of 1,000 moving bodies (a clone of the
/// old one with its six numbers set), with no physics at all. Rapier's
/// step is the baseline, so this row is the part of the 1.3x target
/// that a table per moved body spends before anything else is done.
const TABLES: &str = r#"
return {
	init = function()
		local bodies = {}
		for i = 1, 1000 do
			bodies[i] = { x = i, y = i, angle = 0, vx = 0, vy = 0, spin = 0, shape = { circle = 4 }, restitution = 0.2 }
		end
		return { bodies = bodies, steps = 0 }
	end,
	update = function(state, input, dt)
		local old, bodies = state.bodies, table.create(1000)
		local n = state.steps + 1
		for i = 1, 1000 do
			local body = table.clone(old[i])
			body.x, body.y, body.angle = body.x + dt, body.y + dt, n
			body.vx, body.vy, body.spin = n, n, n
			bodies[i] = body
		end
		return { bodies = bodies, steps = n }
	end,
}
"#;

/// The same bodies, in a rapier world kept from step to step.
fn rapier_world() -> PhysicsWorld {
    let mut world = PhysicsWorld::new();
    world.gravity = Vector::new(0.0, 600.0);
    world.integration_parameters.dt = 1.0 / 60.0;
    world.integration_parameters.length_unit = 50.0;
    for i in 0..1000 {
        let (x, y) = (20.0 + (i % 40) as f32 * 10.0, 20.0 + (i / 40) as f32 * 10.0);
        let body = RigidBodyBuilder::dynamic()
            .translation(Vector::new(x, y))
            .can_sleep(false);
        let ball = ColliderBuilder::ball(4.0).restitution(0.2).friction(0.5);
        world.insert(body, ball);
    }
    for (x, y, w, h) in [
        (210.0, 300.0, 440.0, 20.0),
        (0.0, 150.0, 20.0, 300.0),
        (420.0, 150.0, 20.0, 300.0),
    ] {
        world.insert(
            RigidBodyBuilder::fixed().translation(Vector::new(x, y)),
            ColliderBuilder::cuboid(w / 2.0, h / 2.0).friction(0.5),
        );
    }
    world
}

/// A thousand balls in a 3D grid, 10 a side, falling into a box (P10).
const BODIES_3D: &str = r#"
local physics = require("@moonloop/physics")
return {
	init = function()
		local bodies = {}
		for i = 0, 999 do
			bodies[i + 1] = { x = (i % 10) * 0.5 - 2.25, y = 1 + (i // 100) * 0.5, z = (i // 10 % 10) * 0.5 - 2.25, shape = physics.ball(0.2), restitution = 0.2 }
		end
		bodies.floor = { kind = "fixed", y = -0.5, shape = physics.cuboid(6, 1, 6) }
		for i, wall in { { x = -3, z = 0, w = 0.2, d = 6 }, { x = 3, z = 0, w = 0.2, d = 6 }, { x = 0, z = -3, w = 6, d = 0.2 }, { x = 0, z = 3, w = 6, d = 0.2 } } do
			bodies[`wall{i}`] = { kind = "fixed", x = wall.x, y = 3, z = wall.z, shape = physics.cuboid(wall.w, 6, wall.d) }
		end
		return { world = physics.world3d({ gravity = { x = 0, y = -9.81, z = 0 }, bodies = bodies }) }
	end,
	update = function(state, input, dt)
		return { world = physics.step(state.world, dt) }
	end,
}
"#;

/// The same bodies, in a rapier3d world kept from step to step.
fn rapier_world_3d() -> rapier3d::prelude::PhysicsWorld {
    use rapier3d::prelude::*;
    let mut world = PhysicsWorld::new();
    world.gravity = Vector::new(0.0, -9.81, 0.0);
    world.integration_parameters.dt = 1.0 / 60.0;
    for i in 0..1000 {
        let at = Vector::new(
            (i % 10) as f32 * 0.5 - 2.25,
            1.0 + (i / 100) as f32 * 0.5,
            (i / 10 % 10) as f32 * 0.5 - 2.25,
        );
        world.insert(
            RigidBodyBuilder::dynamic().translation(at).can_sleep(false),
            ColliderBuilder::ball(0.2).restitution(0.2).friction(0.5),
        );
    }
    let mut fixed = |at: Vector, half: Vector| {
        world.insert(
            RigidBodyBuilder::fixed().translation(at),
            ColliderBuilder::cuboid(half.x, half.y, half.z).friction(0.5),
        );
    };
    fixed(Vector::new(0.0, -0.5, 0.0), Vector::new(3.0, 0.5, 3.0));
    fixed(Vector::new(-3.0, 3.0, 0.0), Vector::new(0.1, 3.0, 3.0));
    fixed(Vector::new(3.0, 3.0, 0.0), Vector::new(0.1, 3.0, 3.0));
    fixed(Vector::new(0.0, 3.0, -3.0), Vector::new(3.0, 3.0, 0.1));
    fixed(Vector::new(0.0, 3.0, 3.0), Vector::new(3.0, 3.0, 0.1));
    world
}

/// Times a frame of `game` (headless, in a session) against `step`,
/// rapier stepping the same bodies in Rust. Both settle for
/// two seconds first, so the contacts are those of a heap at rest.
fn against_rapier(game: &TempGame, mut step: impl FnMut()) -> Result<[Duration; 2]> {
    let mut luau = super::headless(&game.0, false)?;
    luau.advance(120)?;
    for _ in 0..120 {
        step();
    }
    Ok(interleaved(|case, n| {
        for _ in 0..n {
            if case == 0 {
                step();
            } else {
                luau.advance(1).expect("the game runs");
            }
        }
    }))
}

/// The 3D row: a frame of 1,000 bodies through Luau against rapier3d.
fn row_3d() -> Result<Row> {
    let game = TempGame::new("physics-bodies-3d", BODIES_3D)?;
    let mut rust = rapier_world_3d();
    let [baseline, measured] = against_rapier(&game, || rust.step())?;
    Ok(frame_row(
        "1,000 bodies in 3D: a frame stepping them through Luau vs rapier3d stepping its own world",
        [baseline, measured],
        "rapier3d",
        "",
    ))
}

/// A row timing a frame of a game against rapier's step (`rapier`
/// names which), its note the two in milliseconds and then `more`.
fn frame_row(case: &str, [baseline, measured]: [Duration; 2], rapier: &str, more: &str) -> Row {
    Row {
        case: case.into(),
        baseline,
        measured,
        note: Some(format!(
            "{:.2} ms a frame, {rapier} alone {:.2} ms{more}",
            measured.as_secs_f64() * 1e3,
            baseline.as_secs_f64() * 1e3
        )),
        ..Row::default()
    }
}

/// The rows.
///
/// # Errors
/// The game does not load or run.
pub fn rows() -> Result<Vec<Row>> {
    let game = TempGame::new("physics-bodies", BODIES)?;
    let mut rust = rapier_world();
    let [baseline, measured] = against_rapier(&game, || rust.step())?;
    let mut rows = vec![Row {
        target: Some(1.3),
        ..frame_row(
            "1,000 bodies: a frame stepping them through Luau vs rapier stepping its own world",
            [baseline, measured],
            "rapier",
            "",
        )
    }];
    let tables = TempGame::new("physics-tables", TABLES)?;
    rows.push(frame_row(
        "1,000 bodies: a frame making a new table for each (no physics) vs rapier's step",
        against_rapier(&tables, || rust.step())?,
        "rapier",
        ": what a table per moved body costs",
    ));
    let mut kept = super::headless(&game.0, true)?;
    kept.advance(3_600)?;
    let minute = kept.engine().history().map_or(0, |h| h.bytes()) as f64;
    let [live, back] = interleaved(|case, n| {
        for _ in 0..n {
            if case == 0 {
                kept.advance(1).expect("the game runs");
            } else {
                let to = kept.engine().frame() - 600;
                let started = Instant::now();
                kept.engine_mut()
                    .with_state_at(to, |_| ())
                    .expect("history holds it");
                std::hint::black_box(started.elapsed());
            }
        }
    });
    let fails = (minute > 64.0 * (1 << 20) as f64)
        .then(|| format!("{:.0} MiB a minute is over 64", minute / (1 << 20) as f64));
    rows.push(Row {
        case: "1,000 bodies: the state 600 frames back vs a frame played".into(),
        baseline: live,
        measured: back,
        target: None,
        note: Some(format!(
            "{:.1} ms back; history {:.1} MiB a minute (target 64)",
            back.as_secs_f64() * 1e3,
            minute / (1 << 20) as f64
        )),
        fails,
        ..Row::default()
    });
    rows.push(row_3d()?);
    Ok(rows)
}
