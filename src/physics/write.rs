//! Writing a stepped world back as tables (P1): a new world table whose
//! moved bodies have new tables and whose unmoved bodies keep theirs, the
//! pairs touching, and the step's events. Each list is written in one
//! call (the moved bodies through the C API, in `moved`; the pairs and
//! events by Luau): a call through mlua is a protected call, and one per
//! body and per pair cost a third of a 1,000-body step.

use mlua::{Function, Lua, Table, Value};

use super::body::IdList;
use super::contacts::{self, Began, Contact, Touching};
use super::moved::{self, Moved};
use super::{read, simulate};

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
/// ([`next_world`]): entry `i` of the list is the old list's
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
/// and the events ([`next_world`]). `id(i)` is body `i`'s id, of
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
    let (world, touching) = next_world(
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

/// The world a step writes, 2D or 3D: a new table with `old`'s fields,
/// its new `bodies` and `steps`, `touching` (the pairs touching `now`)
/// and `events`; `old`'s pairs were `before`. `ids()` gives the world's
/// ids in order as a list. Returns the table and its pairs as reading
/// its `touching` would give them.
pub fn next_world(
    lua: &Lua,
    (keys, three): (&Keys, bool),
    old: &Table,
    (bodies, steps): (Table, f64),
    (before, now, contacts): (Touching, Vec<(usize, usize)>, &Began),
    ids: impl FnOnce() -> mlua::Result<Table>,
) -> mlua::Result<(Table, Touching)> {
    let k = |name| keys.get(name);
    let world: Table = keys.clone.call(old.clone())?;
    world.raw_set(k("bodies"), &bodies)?;
    world.raw_set(k("steps"), steps)?;
    let listed = old.raw_get::<Value>(k("touching"))?;
    if now == before.pairs {
        // Nothing began or ended: the old list stands.
        world.raw_set(k("touching"), listed)?;
        world.raw_set(k("events"), lua.create_table()?)?;
        return Ok((world, before));
    }
    // One Luau call (`PAIRS`) makes the list and the events from two
    // buffers. A pair still touching keeps its table (most of a heap's
    // do, and history shares what did not change): `order` holds its
    // slot in the old list, counted from 1; a pair that began holds
    // minus its place among the events, which name its bodies (`happened`:
    // kind, 0 ended or 1 began, then the two bodies' places in `ids`, as
    // u32s). A call through mlua for each pair was a sixth of a step.
    let mut order = Vec::with_capacity(now.len() * 4);
    let (mut ended, mut began) = (Vec::new(), Vec::new());
    let mut count = 0i32;
    contacts::together(&before.pairs, &now, |(a, b), was, is| {
        let slot = was.and_then(|i| before.slots[i]);
        let event = |out: &mut Vec<u8>, kind: u32, contact: Option<&Contact>| {
            let head = [
                kind,
                a as u32 + 1,
                b as u32 + 1,
                u32::from(contact.is_some()),
            ];
            out.extend(head.iter().flat_map(|v| v.to_le_bytes()));
            let c = contact.copied().unwrap_or_default();
            let tail = [c.point, c.normal].concat();
            out.extend(
                tail.iter()
                    .chain([&c.impulse])
                    .flat_map(|v| v.to_le_bytes()),
            );
        };
        match (was, is) {
            (Some(_), false) => event(&mut ended, 0, None),
            (None, true) => {
                let contact = contacts
                    .binary_search_by_key(&(a, b), |(pair, _)| *pair)
                    .ok()
                    .map(|i| &contacts[i].1);
                event(&mut began, 1, contact);
            }
            _ => {}
        }
        if is {
            let at = slot.unwrap_or_else(|| {
                count += 1;
                -count
            });
            order.extend_from_slice(&at.to_le_bytes());
        }
    });
    // A pair that began is event `ended + k`, where `-k` is its order.
    let gone = i32::try_from(ended.len() / contacts::EVENT_BYTES).map_err(mlua::Error::external)?;
    for at in order.chunks_exact_mut(4) {
        let k = i32::from_le_bytes(at.try_into().expect("four bytes"));
        if k < 0 {
            at.copy_from_slice(&(k - gone).to_le_bytes());
        }
    }
    ended.append(&mut began);
    let events = ended.len() / contacts::EVENT_BYTES;
    let (list, happened): (Table, Table) = keys.pairs.call((
        listed,
        ids()?,
        &bodies,
        lua.create_buffer(order)?,
        now.len(),
        lua.create_buffer(ended)?,
        events,
        three,
    ))?;
    world.raw_set(k("touching"), list)?;
    world.raw_set(k("events"), happened)?;
    // A slot for each pair: the list was written in pair order.
    let slots = (1..).take(now.len()).map(Some).collect();
    Ok((world, Touching { pairs: now, slots }))
}
