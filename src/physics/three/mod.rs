//! Worlds in three dimensions (rule P10, docs/physics.md): the bodies of
//! a scene game, stepped by rapier3d exactly as a 2D world is by rapier2d
//! (P1-P4): a plain table in the state with rapier3d's world kept beside
//! it, stepped once and written as a new table, the old one untouched. A
//! 3D world says so in its `dimensions` field; `physics.step` and
//! `physics.ray` look there.

mod dim;
pub(super) mod read;
// One source for both dimensions, as rapier builds rapier2d and rapier3d:
// this is physics/simulate.rs again, against this module's `dim`.
#[allow(
    clippy::duplicate_mod,
    reason = "the 2D and 3D steps are one source compiled twice"
)]
#[path = "../simulate.rs"]
mod simulate;
pub(super) mod view;

use mlua::{Lua, Table, Value};

use super::moved::Moved;
use super::write::{Rest, after, standing};
use super::{MAX_PAIRS, contained, crowd, fields, write_failed};
use crate::Refusal;

/// One step of the 3D `world` by `dt` seconds after `commands` (P2).
///
/// # Errors
/// One line naming what is wrong with the world or the commands (P4).
pub fn step(lua: &Lua, world: &Table, dt: f64, commands: &Value) -> Result<Table, Refusal> {
    let (read, engine) = super::kept_or_read(lua, world, read::world)?;
    let commands = read::commands(commands, &read)?;
    crowd::bound(&read.reaches(), read.scale, MAX_PAIRS)?;
    let (stepped, engine) = contained(|| simulate::step(&read, engine, &commands, dt))?;
    let (next, read) = write(lua, world, read, stepped).map_err(|e| write_failed(&e))?;
    super::keep(lua, next, read, engine)
}

/// The first body the segment from (x1, y1, z1) to (x2, y2, z2) meets
/// (P10): its id, where, the surface's normal there and the fraction of
/// the way, or nil.
///
/// # Errors
/// A coordinate is not a finite number, the world is not one, or
/// `ignore` names no body.
pub fn ray(lua: &Lua, world: &Table, ends: &[Value], ignore: &Value) -> Result<Value, Refusal> {
    let mut at = [0.0; 6];
    for (i, (value, name)) in ends
        .iter()
        .zip(["x1", "y1", "z1", "x2", "y2", "z2"])
        .enumerate()
    {
        at[i] = fields::finite_number(value, name)?;
    }
    super::with_read(lua, world, read::world, |read| {
        let ignore = super::ignored(read.bodies.iter().map(|b| &b.key), ignore)?;
        let from = [at[0], at[1], at[2]];
        let to = [at[3], at[4], at[5]];
        let hit = contained(|| simulate::ray(read, from, to, ignore))?;
        hit_table(lua, read, hit)
    })
}

/// The first body `shape` meets swept from (x, y, z) by (dx, dy, dz)
/// (P10): its id, where the shape's centre is when it touches, the
/// normal there and the fraction of the way, or nil. `at` holds the six
/// numbers.
///
/// # Errors
/// A number is not finite, the shape is not a 3D one, the world is not
/// one, or `ignore` names no body.
pub fn cast(
    lua: &Lua,
    world: &Table,
    shape: &Value,
    at: &[Value],
    ignore: &Value,
) -> Result<Value, Refusal> {
    let mut xyz = [0.0; 6];
    for (i, (value, name)) in at.iter().zip(["x", "y", "z", "dx", "dy", "dz"]).enumerate() {
        xyz[i] = fields::finite_number(value, name)?;
    }
    let Value::Table(shape) = shape else {
        return Err(refuse!(
            "the shape is a table made by physics.ball, cuboid, capsule or cylinder, not a {}",
            crate::state::type_of(shape)
        ));
    };
    let shape = read::shape(shape, "the shape")?;
    super::with_read(lua, world, read::world, |read| {
        let ignore = super::ignored(read.bodies.iter().map(|b| &b.key), ignore)?;
        let from = [xyz[0], xyz[1], xyz[2]];
        let by = [xyz[3], xyz[4], xyz[5]];
        let hit = contained(|| simulate::cast(read, &shape, from, by, ignore))?;
        hit_table(lua, read, hit)
    })
}

/// A query's hit as the table the author reads, or nil.
fn hit_table(lua: &Lua, read: &read::World, hit: Option<simulate::Hit>) -> Result<Value, Refusal> {
    let Some(hit) = hit else {
        return Ok(Value::Nil);
    };
    let out = || -> mlua::Result<Value> {
        let table = lua.create_table_with_capacity(0, 8)?;
        table.raw_set("id", read.bodies[hit.body].id.clone())?;
        for (name, value) in ["x", "y", "z"].iter().zip(hit.point) {
            table.raw_set(*name, value)?;
        }
        for (name, value) in ["nx", "ny", "nz"].iter().zip(hit.normal) {
            table.raw_set(*name, value)?;
        }
        table.raw_set("fraction", hit.fraction)?;
        Ok(Value::Table(table))
    };
    out().map_err(|e| write_failed(&e))
}

/// The world after a step: a new table; bodies that moved get new tables
/// (and a new `rotation` or `spin` table where that changed), the rest
/// keep theirs (P1). Returns it with what reading it gives.
fn write(
    lua: &Lua,
    old: &Table,
    mut read: read::World,
    stepped: simulate::Stepped,
) -> mlua::Result<(Table, read::World)> {
    let mut moved = Moved::default();
    for (i, ((body, motion), grounded)) in read
        .bodies
        .iter_mut()
        .zip(&stepped.motions)
        .zip(&stepped.grounded)
        .enumerate()
    {
        let was = body.motion;
        let stands = standing(body.grounded, *grounded);
        if was == *motion && stands.is_none() {
            continue;
        }
        let mut numbers = [0.0; 13];
        let all = motion.at.iter().chain(&motion.rotation);
        for (n, m) in numbers
            .iter_mut()
            .zip(all.chain(&motion.velocity).chain(&motion.spin))
        {
            *n = *m;
        }
        let turned = was.rotation != motion.rotation;
        moved.add(i, &numbers, [turned, was.spin != motion.spin], stands);
        // As the next read will have it: a rotation written is read as a
        // unit, one kept is what was read.
        body.motion = read::Motion {
            rotation: match turned {
                true => read::unit(motion.rotation).unwrap_or(motion.rotation),
                false => was.rotation,
            },
            ..*motion
        };
        body.grounded = stands.or(body.grounded);
    }
    let rest = Rest {
        ids: &mut read.ids,
        steps: &mut read.steps,
        touching: &mut read.touching,
    };
    let world = after(
        &moved,
        lua,
        (old, true),
        (|i| &read.bodies[i].id, read.bodies.len()),
        rest,
        (stepped.touching, stepped.timeless, &stepped.began),
    )?;
    Ok((world, read))
}
