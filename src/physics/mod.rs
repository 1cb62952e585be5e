//! Physics as a value (rules P1-P5, docs/physics.md): `@moonloop/physics`
//! steps a world that lives in the game's state as plain data.
//!
//! A world is a table of bodies keyed by their ids. [`step`] steps the
//! rapier world the last step left beside that table (or one built from
//! the table, for a world met first), after the tick's commands, and
//! writes a new world table; the old one is never touched (P1). Rapier's
//! world is part of the state's value the way the table is: the host
//! holds and puts it back wherever it holds and puts back a state
//! (`beside`), so replays, rewind, edit-the-past, rollback and saves see
//! the same bodies as the run that made them (P3). Bodies that did not
//! move keep their tables, so history shares them as it shares any
//! unchanged part of a state.

mod beside;
mod body;
mod contacts;
mod crowd;
mod dim;
mod fields;
mod joints;
mod kept;
mod moved;
mod read;
mod simulate;
mod three;
mod view;
mod walk;
mod write;

use crate::Refusal;
use crate::terminal::Number;
use mlua::{Lua, Table, Value};

pub use beside::{Apart, Held, apart, forget, hold, put, rejoin};
pub use joints::MAX_JOINTS;
pub use read::{MAX_BODIES, MAX_COMMANDS, MAX_POINTS, MAX_WORLD_POINTS};
pub use view::colliders;

/// The most pairs of bodies whose boxes may overlap in one step (P4): the
/// contacts a step works out grow with these pairs, not with bodies.
pub const MAX_PAIRS: usize = 100_000;

/// The native half of `@moonloop/physics`, handed to `runtime/physics.luau`
/// as its chunk's argument: `step(world, dt, commands)` and
/// `ray(world, x1, y1, x2, y2)`.
///
/// # Errors
/// Lua cannot make the functions.
pub fn native(lua: &Lua) -> mlua::Result<Table> {
    let table = lua.create_table()?;
    table.raw_set(
        "step",
        lua.create_function(
            |lua, (world, dt, commands): (Value, Value, Value)| -> mlua::Result<Table> {
                step(lua, &world, &dt, &commands).map_err(|why| refused(lua, "step", &why))
            },
        )?,
    )?;
    table.raw_set(
        "ray",
        lua.create_function(|lua, args: mlua::Variadic<Value>| {
            ray(lua, &args).map_err(|why| refused(lua, "ray", &why))
        })?,
    )?;
    table.raw_set(
        "cast",
        lua.create_function(|lua, args: mlua::Variadic<Value>| {
            cast(lua, &args).map_err(|why| refused(lua, "cast", &why))
        })?,
    )?;
    table.set_readonly(true);
    Ok(table)
}

/// Runs rapier on a world the game handed in: a panic inside it, on a
/// world the checks above let through, is that world's refusal (P4), not
/// the host's end.
fn contained<T>(run: impl FnOnce() -> Result<T, Refusal>) -> Result<T, Refusal> {
    crate::error::contain_panic(run).unwrap_or_else(|| {
        Err(
            "the physics engine failed on this world (a shape or joint it cannot take); \
             it is left as it was"
                .into(),
        )
    })
}

/// One named error at the author's line: `game/main.luau:12: physics.step:
/// bodies.ball.x is NaN (P4)`.
fn refused(lua: &Lua, call: &str, why: &Refusal) -> mlua::Error {
    mlua::Error::RuntimeError(format!(
        "{}physics.{call}: {why}",
        crate::lua::location(lua, 1)
    ))
}

/// A Luau error met writing what a call returns (out of memory, mostly),
/// in the words the host gives any (H9's at the memory cap).
fn write_failed(e: &mlua::Error) -> Refusal {
    Refusal::from(crate::lua::describe(e))
}

/// `value` as a world's table, or why it is not one.
fn world_table(value: &Value) -> Result<&Table, Refusal> {
    match value {
        Value::Table(world) => Ok(world),
        other => Err(refuse!(
            "the world is a table made by physics.world, not a {}",
            crate::state::type_of(other)
        )),
    }
}

/// Whether `world` is a 3D world (P10): its `dimensions` is 3, where a
/// 2D world's is 2 or not given.
fn is_3d(world: &Table) -> Result<bool, Refusal> {
    match world.raw_get::<Value>("dimensions").map_err(fields::text)? {
        Value::Nil => Ok(false),
        Value::Integer(2) => Ok(false),
        Value::Integer(3) => Ok(true),
        Value::Number(n) if n == 2.0 || n == 3.0 => Ok(n == 3.0),
        other => Err(refuse!(
            "dimensions is {}; a world has 2 (physics.world) or 3 (physics.world3d)",
            fields::shown(&other)
        )),
    }
}

/// One step of `world` by `dt` seconds after `commands` (P2).
fn step(lua: &Lua, world: &Value, dt: &Value, commands: &Value) -> Result<Table, Refusal> {
    let world = world_table(world)?;
    let dt = match dt {
        Value::Number(n) => *n,
        Value::Integer(n) => *n as f64,
        other => {
            return Err(refuse!(
                "dt is a number of seconds, not a {}",
                crate::state::type_of(other)
            ));
        }
    };
    // A frame of no time (a window's first, or the first after a pause)
    // is a step of no time: the commands apply, nothing moves (P2).
    if !(dt.is_finite() && (0.0..=1.0).contains(&dt)) {
        return Err(refuse!(
            "dt is {}; a step is from 0 to 1 second (P4)",
            Number(dt)
        ));
    }
    if is_3d(world)? {
        return three::step(lua, world, dt, commands);
    }
    let (read, engine) = kept_or_read(lua, world, read::world)?;
    let commands = read::commands(commands, &read)?;
    crowd::bound(&crowd::of_bodies(&read.bodies), read.scale, MAX_PAIRS)?;
    let (stepped, engine) = contained(|| simulate::step(&read, engine, &commands, dt))?;
    let (next, read) = write::world(lua, world, read, stepped).map_err(|e| write_failed(&e))?;
    keep(lua, next, read, engine)
}

/// What reading `world` gives, with the rapier world that wrote it when
/// it is the world the last step returned; or read now (frozen first, so
/// that what is read cannot change after) with none.
pub(super) fn kept_or_read<W: kept::Read + PartialEq + std::fmt::Debug>(
    lua: &Lua,
    world: &Table,
    read: impl Fn(&Table) -> Result<W, Refusal>,
) -> Result<(W, Option<W::Engine>), Refusal> {
    if let Some(kept) = kept::take::<W>(lua, world) {
        kept::check(&kept.read, world, read);
        return Ok((kept.read, Some(kept.engine)));
    }
    kept::freeze(lua, world)?;
    Ok((read(world)?, None))
}

/// Freezes the world a step wrote and keeps its read and rapier's world
/// for the next step; returns the world.
pub(super) fn keep<W: kept::Read>(
    lua: &Lua,
    next: Table,
    read: W,
    engine: W::Engine,
) -> Result<Table, Refusal> {
    kept::freeze(lua, &next)?;
    kept::keep(lua, next.clone(), kept::Inner { read, engine });
    Ok(next)
}

/// Runs `f` on what reading `world` gives: the kept read where it is the
/// world a step wrote, or read now.
pub(super) fn with_read<W: kept::Read + PartialEq + std::fmt::Debug, R>(
    lua: &Lua,
    world: &Table,
    read: impl Fn(&Table) -> Result<W, Refusal>,
    f: impl FnOnce(&W) -> Result<R, Refusal>,
) -> Result<R, Refusal> {
    let mut f = Some(f);
    let kept = kept::with::<W, _>(lua, world, |kept| {
        kept::check(kept, world, &read);
        (f.take().expect("called once"))(kept)
    });
    match kept {
        Some(result) => result,
        None => f.take().expect("not called")(&read(world)?),
    }
}

/// The first body a ray from (x1, y1) to (x2, y2) meets (P5), or from
/// (x1, y1, z1) to (x2, y2, z2) in a 3D world (P10): its id, where, the
/// surface's normal there and the fraction of the way, or nil. `args`
/// are the world, the ends' coordinates and the id to pass through.
fn ray(lua: &Lua, args: &[Value]) -> Result<Value, Refusal> {
    let (world, ends, ignore) = query(args, 0, "")?;
    if ends.len() == 6 {
        return three::ray(lua, world, &ends, ignore);
    }
    let mut at = [0.0; 4];
    for (i, (value, name)) in ends.iter().zip(["x1", "y1", "x2", "y2"]).enumerate() {
        at[i] = fields::finite_number(value, name)?;
    }
    with_read(lua, world, read::world, |read| {
        let ignore = ignored(read.bodies.iter().map(|b| &b.key), ignore)?;
        let (from, to) = ([at[0], at[1]], [at[2], at[3]]);
        let hit = contained(|| simulate::ray(read, from, to, ignore))?;
        hit_table(lua, read, hit)
    })
}

/// The first body `shape` meets swept from (x, y) by (dx, dy) (P5): its
/// id, where the shape is when it touches, the normal and the fraction.
fn cast(lua: &Lua, args: &[Value]) -> Result<Value, Refusal> {
    let (world, at, ignore) = query(args, 1, " a shape,")?;
    let shape = args.get(1).unwrap_or(&Value::Nil);
    if at.len() == 6 {
        return three::cast(lua, world, shape, &at, ignore);
    }
    let mut xy = [0.0; 4];
    for (i, (value, name)) in at.iter().zip(["x", "y", "dx", "dy"]).enumerate() {
        xy[i] = fields::finite_number(value, name)?;
    }
    let Value::Table(shape) = shape else {
        return Err(refuse!(
            "the shape is a table made by physics.circle, box, capsule or polygon, not a {}",
            crate::state::type_of(shape)
        ));
    };
    let shape = read::shape(shape, "the shape")?;
    if matches!(shape, read::Shape::Polyline(_)) {
        return Err(
            "a polyline has no inside to cast; cast a circle, box, capsule or polygon".into(),
        );
    }
    with_read(lua, world, read::world, |read| {
        let ignore = ignored(read.bodies.iter().map(|b| &b.key), ignore)?;
        let hit =
            contained(|| simulate::cast(read, &shape, [xy[0], xy[1]], [xy[2], xy[3]], ignore))?;
        hit_table(lua, read, hit)
    })
}

/// A query's arguments: the world, then `before` others (a cast's
/// shape), then its coordinates (4 in a 2D world, 6 in a 3D one), then
/// the id of a body to pass through.
fn query<'a>(
    args: &'a [Value],
    before: usize,
    named: &str,
) -> Result<(&'a Table, Vec<Value>, &'a Value), Refusal> {
    const NIL: &Value = &Value::Nil;
    let arg = |i: usize| args.get(i).unwrap_or(NIL);
    let world = world_table(arg(0))?;
    let n = if is_3d(world)? { 6 } else { 4 };
    if args.len() > 1 + before + n + 1 {
        return Err(refuse!(
            "takes the world,{named} {n} numbers and the id of a body to pass through; it was \
             given {} values",
            args.len()
        ));
    }
    let numbers = (1 + before..1 + before + n)
        .map(|i| arg(i).clone())
        .collect();
    Ok((world, numbers, arg(1 + before + n)))
}

/// The body a query passes through: nil, or the id of a body.
fn ignored<'a>(
    mut keys: impl Iterator<Item = &'a fields::Id>,
    id: &Value,
) -> Result<Option<usize>, Refusal> {
    if id.is_nil() {
        return Ok(None);
    }
    let key = fields::id_of(id);
    keys.position(|k| Some(k) == key.as_ref())
        .map(Some)
        .ok_or_else(|| "the body to pass through names no body of the world".into())
}

fn hit_table(lua: &Lua, read: &read::World, hit: Option<simulate::Hit>) -> Result<Value, Refusal> {
    let Some(hit) = hit else {
        return Ok(Value::Nil);
    };
    let out = || -> mlua::Result<Value> {
        let table = lua.create_table_with_capacity(0, 6)?;
        table.raw_set("id", read.bodies[hit.body].id.clone())?;
        table.raw_set("x", hit.point[0])?;
        table.raw_set("y", hit.point[1])?;
        table.raw_set("nx", hit.normal[0])?;
        table.raw_set("ny", hit.normal[1])?;
        table.raw_set("fraction", hit.fraction)?;
        Ok(Value::Table(table))
    };
    out().map_err(|e| write_failed(&e))
}
