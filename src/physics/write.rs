//! Writing a stepped world back as tables (P1): a new world table whose
//! moved bodies have new tables and whose unmoved bodies keep theirs, the
//! pairs touching, and the step's events. Each list is written in one
//! call (the moved bodies through the C API, in `moved`; the pairs and
//! events by Luau): a call through mlua is a protected call, and one per
//! body and per pair cost a third of a 1,000-body step.

use mlua::{Function, Lua, Table, Value};

use super::body::IdList;
use super::moved::{self, Moved};
use super::{contacts, read, simulate};

/// The names a step writes and the Luau that writes, made once a VM: a
/// key given as `&str` is a new Lua string, pushed under a protected
/// call, at every write.
pub(super) struct Keys {
    pub clone: Function,
    /// Makes a world's `touching` list and its events (`PAIRS`).
    pub pairs: Function,
    names: Vec<(&'static str, mlua::LuaString)>,
    /// [`moved::NAMES`], what a moved body's numbers are written under.
    fields: Vec<mlua::LuaString>,
}

/// A world's `touching` list of `n` pairs and its `m` events
/// (`contacts::next_world`): entry `i` of the list is the old list's
/// entry `k` where `order` holds `k` > 0 at `i`, else the pair of event
/// `-k`; event `j` is kind (0 ended, 1 began) then its two bodies'
/// places in `ids`, three u32s at `44 (j - 1)` of `happened`, then whether
/// a contact follows and its point, normal and impulse
/// ([`contacts::EVENT_BYTES`]); `three` says whether they have a z.
const PAIRS: &str = r#"
local _ = ...
local i32, u32 = buffer.readi32, buffer.readu32
local f32 = buffer.readf32
return function(old, ids, bodies, order, n, happened, m, three)
	local events = table.create(m)
	for j = 1, m do
		local at = (j - 1) * 44
		local a, b = ids[u32(happened, at + 4)], ids[u32(happened, at + 8)]
		local kind = if u32(happened, at) == 1 then "began" else "ended"
		local event = { kind = kind, a = a, b = b, a_data = bodies[a].data, b_data = bodies[b].data }
		if u32(happened, at + 12) == 1 then
			local x, y, z = f32(happened, at + 16), f32(happened, at + 20), f32(happened, at + 24)
			local nx, ny, nz = f32(happened, at + 28), f32(happened, at + 32), f32(happened, at + 36)
			event.point = if three then { x = x, y = y, z = z } else { x = x, y = y }
			event.normal = if three then { x = nx, y = ny, z = nz } else { x = nx, y = ny }
			event.impulse = f32(happened, at + 40)
		end
		events[j] = event
	end
	local list = table.create(n)
	for i = 1, n do
		local k = i32(order, (i - 1) * 4)
		if k > 0 then
			list[i] = old[k]
		else
			local event = events[-k]
			list[i] = { a = event.a, b = event.b }
		end
	end
	return list, events
end
"#;

const WRITTEN: &[&str] = &["bodies", "steps", "touching", "events"];

impl Keys {
    pub fn of(lua: &Lua) -> mlua::Result<mlua::AppDataRef<'_, Keys>> {
        if lua.app_data_ref::<Keys>().is_none() {
            let names = WRITTEN
                .iter()
                .map(|&n| Ok((n, lua.create_string(n)?)))
                .collect::<mlua::Result<_>>()?;
            let fields = moved::NAMES
                .iter()
                .map(|&n| lua.create_string(n))
                .collect::<mlua::Result<_>>()?;
            let clone: Function = lua.globals().get::<Table>("table")?.get("clone")?;
            let pairs = lua.load(PAIRS).set_name("=physics").call::<Function>(())?;
            lua.set_app_data(Keys {
                clone,
                pairs,
                names,
                fields,
            });
        }
        Ok(lua.app_data_ref::<Keys>().expect("just set"))
    }

    pub fn get(&self, name: &str) -> &mlua::LuaString {
        &self
            .names
            .iter()
            .find(|(n, _)| *n == name)
            .expect("a written name")
            .1
    }
}

/// What a world's read holds that a step changes beside its bodies.
pub(super) struct Rest<'a> {
    pub ids: &'a mut IdList,
    pub steps: &'a mut f64,
    pub touching: &'a mut contacts::Touching,
}

/// The world after a step, 2D or 3D (`three`): `old` with its `moved`
/// bodies written (`old`'s `bodies` when none moved), the pairs touching
/// and the events (`contacts::next_world`). `id(i)` is body `i`'s id, of
/// `count`; `rest` is brought up to date with it.
pub(super) fn after<'a>(
    moved: &Moved,
    lua: &Lua,
    (old, three): (&Table, bool),
    (id, count): (impl Fn(usize) -> &'a Value, usize),
    rest: Rest<'_>,
    stepped: (Vec<(usize, usize)>, bool, &contacts::Began),
) -> mlua::Result<Table> {
    let keys = Keys::of(lua)?;
    // A world made by hand may have no `bodies` (it reads as none).
    let mut bodies = match old.raw_get::<Option<Table>>(keys.get("bodies"))? {
        Some(bodies) => bodies,
        None => lua.create_table()?,
    };
    // The world's ids as a list, made once for the worlds after it.
    let list = |ids: &mut IdList| -> mlua::Result<Table> {
        if let Some(list) = &ids.0 {
            return Ok(list.clone());
        }
        let list = lua.create_sequence_from((0..count).map(&id))?;
        ids.0 = Some(list.clone());
        Ok(list)
    };
    if !moved.is_empty() {
        bodies = moved.write(lua, (bodies, list(rest.ids)?), &keys.fields, three)?;
    }
    let (now, timeless, began) = stepped;
    // A step of no time counts none (P2).
    *rest.steps += if timeless { 0.0 } else { 1.0 };
    let before = std::mem::take(rest.touching);
    let (world, touching) = contacts::next_world(
        lua,
        (&keys, three),
        old,
        (bodies, *rest.steps),
        (before, now, began),
        || list(rest.ids),
    )?;
    *rest.touching = touching;
    Ok(world)
}

/// A walked body's new `grounded` (P7): what the step found (`on`), where
/// that is not what its table says already (`was`).
pub(super) fn standing(was: Option<bool>, on: Option<bool>) -> Option<bool> {
    on.filter(|&on| was != Some(on))
}

/// The 2D world after a step: a new table; bodies that moved get new
/// tables, the rest keep theirs (P1). Returns it with what reading it
/// gives.
pub(super) fn world(
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
        let stands = standing(body.grounded, *grounded);
        if body.motion == *motion && stands.is_none() {
            continue;
        }
        moved.add(i, motion, [false, false], stands);
        body.motion = *motion;
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
        (old, false),
        (|i| &read.bodies[i].id, read.bodies.len()),
        rest,
        (stepped.touching, stepped.timeless, &stepped.began),
    )?;
    Ok((world, read))
}
