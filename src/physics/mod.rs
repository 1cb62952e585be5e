//! Physics as a value (rules P1-P5, docs/physics.md): `@moonloop/physics`
//! steps a world that lives in the game's state as plain data.
//!
//! A world is a table of bodies keyed by their ids. [`step`] reads it,
//! builds a rapier world from it, applies the tick's commands, steps once
//! and writes a new world table; the old one is never touched (P1). The
//! rapier world is made afresh every step and thrown away, so a step is a
//! pure function of the table and the commands: replays, rewind,
//! edit-the-past and saves see the same bodies as the run that made them
//! (P3). Bodies that did not move keep their tables, so history shares
//! them as it shares any unchanged part of a state.

mod body;
mod contacts;
mod control;
mod crowd;
mod fields;
mod joints;
mod kept;
mod read;
mod simulate;
mod three;
mod view;
mod walk;

use crate::Refusal;
use crate::terminal::Number;
use mlua::{Function, Lua, Table, Value};

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
    let read = kept_or_read(lua, world, read::world)?;
    let commands = read::commands(commands, &read)?;
    crowd::bound(&crowd::of_bodies(&read.bodies), read.scale, MAX_PAIRS)?;
    let stepped = contained(|| simulate::step(&read, &commands, dt))?;
    let (next, read) =
        write(lua, world, read, stepped).map_err(|e| Refusal::from(e.to_string()))?;
    keep(lua, next, read)
}

/// What reading `world` gives: kept from the step that wrote it, or read
/// now (frozen first, so that what is read cannot change after).
pub(super) fn kept_or_read<W: PartialEq + std::fmt::Debug + 'static>(
    lua: &Lua,
    world: &Table,
    read: impl Fn(&Table) -> Result<W, Refusal>,
) -> Result<W, Refusal> {
    if let Some(kept) = kept::take::<W>(lua, world) {
        kept::check(&kept, world, read);
        return Ok(kept);
    }
    kept::freeze(lua, world)?;
    read(world)
}

/// Freezes the world a step wrote and keeps its read for the next step;
/// returns the world.
pub(super) fn keep<W: 'static>(lua: &Lua, next: Table, read: W) -> Result<Table, Refusal> {
    kept::freeze(lua, &next)?;
    kept::keep(lua, next.clone(), read);
    Ok(next)
}

/// Runs `f` on what reading `world` gives: the kept read where it is the
/// world a step wrote, or read now.
pub(super) fn with_read<W: PartialEq + std::fmt::Debug + 'static, R>(
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

/// The names a step writes, made once a VM: a key given as `&str` is a
/// new Lua string, pushed under a protected call, at every write.
pub(super) struct Keys {
    clone: Function,
    /// Writes a moved 2D body in one call (`MOVED`).
    moved: Function,
    /// Writes a moved 3D body in one call (`MOVED_3D`).
    moved3: Function,
    names: Vec<(&'static str, mlua::LuaString)>,
}

/// A moved 2D body's new table, made and put in `bodies` by Luau in one
/// call from Rust, where eight calls through mlua (each a protected call)
/// cost a fifth of a step of a thousand bodies. `clone` is `table.clone`
/// as the VM began; `grounded` is written only when it is not nil.
const MOVED: &str = r#"
local clone = ...
return function(bodies, id, old, x, y, angle, vx, vy, spin, grounded)
	local t = clone(old)
	t.x, t.y, t.angle, t.vx, t.vy, t.spin = x, y, angle, vx, vy, spin
	if grounded ~= nil then
		t.grounded = grounded
	end
	bodies[id] = t
	return t
end
"#;

/// `MOVED` for a body of a 3D world (P10), its thirteen numbers (x, y,
/// z, the rotation's x, y, z, w, vx, vy, vz, the spin's x, y, z) read
/// from `motions` at `at`: more than a call takes. Its rotation and spin
/// are tables of their own, made new only where they changed.
const MOVED_3D: &str = r#"
local clone = ...
local f = buffer.readf64
return function(bodies, id, old, motions, at, turned, spun, grounded)
	local t = clone(old)
	t.x, t.y, t.z = f(motions, at), f(motions, at + 8), f(motions, at + 16)
	t.vx, t.vy, t.vz = f(motions, at + 56), f(motions, at + 64), f(motions, at + 72)
	if turned then
		t.rotation = { x = f(motions, at + 24), y = f(motions, at + 32), z = f(motions, at + 40), w = f(motions, at + 48) }
	end
	if spun then
		t.spin = { x = f(motions, at + 80), y = f(motions, at + 88), z = f(motions, at + 96) }
	end
	if grounded ~= nil then
		t.grounded = grounded
	end
	bodies[id] = t
	return t
end
"#;

const WRITTEN: &[&str] = &[
    "x", "y", "angle", "vx", "vy", "spin", "bodies", "steps", "touching", "events", "kind", "a",
    "b", "a_data", "b_data", "data", "grounded", "z", "vz", "w", "rotation",
];

impl Keys {
    fn of(lua: &Lua) -> mlua::Result<mlua::AppDataRef<'_, Keys>> {
        if lua.app_data_ref::<Keys>().is_none() {
            let names = WRITTEN
                .iter()
                .map(|&n| Ok((n, lua.create_string(n)?)))
                .collect::<mlua::Result<_>>()?;
            let clone: Function = lua.globals().get::<Table>("table")?.get("clone")?;
            let made = |code: &str| lua.load(code).set_name("=physics").call::<Function>(&clone);
            let (moved, moved3) = (made(MOVED)?, made(MOVED_3D)?);
            lua.set_app_data(Keys {
                clone,
                moved,
                moved3,
                names,
            });
        }
        Ok(lua.app_data_ref::<Keys>().expect("just set"))
    }

    pub(super) fn get(&self, name: &str) -> &mlua::LuaString {
        &self
            .names
            .iter()
            .find(|(n, _)| *n == name)
            .expect("a written name")
            .1
    }
}

/// What a character's `grounded` becomes after a step in which it
/// walked (P7) and found itself standing `on` something or not, where
/// that is not what its table says already.
fn standing(body: &Table, on: Option<bool>, keys: &Keys) -> mlua::Result<Option<bool>> {
    let Some(on) = on else { return Ok(None) };
    let was: Option<bool> = body.raw_get(keys.get("grounded"))?;
    Ok((was != Some(on)).then_some(on))
}

/// The world after a step: a new table; bodies that moved get new tables,
/// the rest keep theirs (P1). Returns it with what reading it gives.
fn write(
    lua: &Lua,
    old: &Table,
    mut read: read::World,
    stepped: simulate::Stepped,
) -> mlua::Result<(Table, read::World)> {
    let keys = Keys::of(lua)?;
    let bodies = lua.create_table_with_capacity(0, read.bodies.len())?;
    for ((body, motion), grounded) in read
        .bodies
        .iter_mut()
        .zip(&stepped.motions)
        .zip(&stepped.grounded)
    {
        let stands = standing(&body.table, *grounded, &keys)?;
        if body.motion == *motion && stands.is_none() {
            bodies.raw_set(body.id.clone(), body.table.clone())?;
            continue;
        }
        let [x, y, angle, vx, vy, spin] = *motion;
        body.table = keys.moved.call((
            &bodies,
            &body.id,
            &body.table,
            x,
            y,
            angle,
            vx,
            vy,
            spin,
            stands,
        ))?;
        body.motion = *motion;
    }
    // A step of no time counts none (P2).
    read.steps += if stepped.timeless { 0.0 } else { 1.0 };
    let touching = std::mem::take(&mut read.touching);
    let (world, touching) = contacts::next_world(
        lua,
        &keys,
        old,
        (bodies, read.steps),
        (touching, stepped.touching),
        |i| (&read.bodies[i].id, &read.bodies[i].table),
    )?;
    read.touching = touching;
    Ok((world, read))
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
        let hit = contained(|| simulate::ray(read, at, ignore))?;
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
    out().map_err(|e| Refusal::from(e.to_string()))
}
