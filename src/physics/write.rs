//! Writing a stepped world back as tables (P1): a new world table whose
//! moved bodies have new tables and whose unmoved bodies keep theirs, the
//! pairs touching, and the step's events. Luau does the writing, in one
//! call per list: a call through mlua is a protected call, and one per
//! body and per pair cost a third of a 1,000-body step.

use mlua::{Function, Lua, Table, Value};

use super::body::IdList;
use super::{contacts, read, simulate};

/// The names a step writes and the Luau that writes, made once a VM: a
/// key given as `&str` is a new Lua string, pushed under a protected
/// call, at every write.
pub(super) struct Keys {
    pub clone: Function,
    /// Writes the moved bodies of a world (`BODIES`).
    bodies: Function,
    /// Makes a world's `touching` list (`PAIRS`).
    pub pairs: Function,
    names: Vec<(&'static str, mlua::LuaString)>,
}

/// A world's `bodies` after a step: `old`'s, with a new table for each
/// of the `n` moved bodies. Body `i` moved is `ids[moved[i]]` (a u32 in
/// the buffer), its flags byte `i` of `flags`: 4 says `grounded` is
/// written, and 8 its value. In a 2D world its six numbers (x, y, angle,
/// vx, vy, spin) are at `48 i` of `motions`; in a 3D one (`three`, P10)
/// its thirteen (x, y, z, the rotation's x, y, z, w, vx, vy, vz, the
/// spin's x, y, z) at `104 i`, and flag 1 says the rotation turned and 2
/// the spin changed, which are tables of their own, made new only then.
/// `clone` is `table.clone` as the VM began.
const BODIES: &str = r#"
local clone = ...
local f, u32, u8, btest = buffer.readf64, buffer.readu32, buffer.readu8, bit32.btest
return function(old, ids, moved, motions, flags, n, three)
	local bodies = clone(old)
	for i = 0, n - 1 do
		local id = ids[u32(moved, i * 4)]
		local t = clone(old[id])
		local flag = u8(flags, i)
		if three then
			local at = i * 104
			t.x, t.y, t.z = f(motions, at), f(motions, at + 8), f(motions, at + 16)
			t.vx, t.vy, t.vz = f(motions, at + 56), f(motions, at + 64), f(motions, at + 72)
			if btest(flag, 1) then
				t.rotation = { x = f(motions, at + 24), y = f(motions, at + 32), z = f(motions, at + 40), w = f(motions, at + 48) }
			end
			if btest(flag, 2) then
				t.spin = { x = f(motions, at + 80), y = f(motions, at + 88), z = f(motions, at + 96) }
			end
		else
			local at = i * 48
			t.x, t.y, t.angle = f(motions, at), f(motions, at + 8), f(motions, at + 16)
			t.vx, t.vy, t.spin = f(motions, at + 24), f(motions, at + 32), f(motions, at + 40)
		end
		if btest(flag, 4) then
			t.grounded = btest(flag, 8)
		end
		bodies[id] = t
	end
	return bodies
end
"#;

/// A world's `touching` list of `n` pairs and its `m` events
/// (`contacts::next_world`): entry `i` of the list is the old list's
/// entry `k` where `order` holds `k` > 0 at `i`, else the pair of event
/// `-k`; event `j` is kind (0 ended, 1 began) then its two bodies'
/// places in `ids`, three u32s at `12 (j - 1)` of `happened`.
const PAIRS: &str = r#"
local _ = ...
local i32, u32 = buffer.readi32, buffer.readu32
return function(old, ids, bodies, order, n, happened, m)
	local events = table.create(m)
	for j = 1, m do
		local at = (j - 1) * 12
		local a, b = ids[u32(happened, at + 4)], ids[u32(happened, at + 8)]
		local kind = if u32(happened, at) == 1 then "began" else "ended"
		events[j] = { kind = kind, a = a, b = b, a_data = bodies[a].data, b_data = bodies[b].data }
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
            let clone: Function = lua.globals().get::<Table>("table")?.get("clone")?;
            let made = |code: &str| lua.load(code).set_name("=physics").call::<Function>(&clone);
            let (bodies, pairs) = (made(BODIES)?, made(PAIRS)?);
            lua.set_app_data(Keys {
                clone,
                bodies,
                pairs,
                names,
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

/// The bodies that moved in a step, gathered for one Luau call.
#[derive(Default)]
pub(super) struct Moved {
    /// Each moved body's place in the id list, from 1, as u32s.
    at: Vec<u8>,
    /// Their numbers, as f64s.
    motions: Vec<u8>,
    flags: Vec<u8>,
}

/// What a world's read holds that a step changes beside its bodies.
pub(super) struct Rest<'a> {
    pub ids: &'a mut IdList,
    pub steps: &'a mut f64,
    pub touching: &'a mut contacts::Touching,
}

impl Moved {
    /// Body `i` (from 0, in id order) moved to `numbers`; `turned` and
    /// `spun` (3D) say its rotation or spin changed; `stands`, when
    /// given, is its new `grounded`.
    pub fn add(
        &mut self,
        i: usize,
        numbers: &[f64],
        [turned, spun]: [bool; 2],
        stands: Option<bool>,
    ) {
        self.at.extend_from_slice(&(i as u32 + 1).to_le_bytes());
        for n in numbers {
            self.motions.extend_from_slice(&n.to_le_bytes());
        }
        let grounded = match stands {
            None => 0,
            Some(false) => 4,
            Some(true) => 4 | 8,
        };
        self.flags
            .push(u8::from(turned) | (u8::from(spun) << 1) | grounded);
    }

    /// The world after a step, 2D or 3D (`three`): `old` with its moved
    /// bodies written (`BODIES`; `old`'s `bodies` when none moved), the
    /// pairs touching and the events (`contacts::next_world`). `id(i)` is
    /// body `i`'s id, of `count`; `rest` is brought up to date with it.
    pub fn world<'a>(
        self,
        lua: &Lua,
        (old, three): (&Table, bool),
        (id, count): (impl Fn(usize) -> &'a Value, usize),
        rest: Rest<'_>,
        stepped: (Vec<(usize, usize)>, bool),
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
        if !self.flags.is_empty() {
            let n = self.flags.len();
            bodies = keys.bodies.call((
                bodies,
                list(rest.ids)?,
                lua.create_buffer(self.at)?,
                lua.create_buffer(self.motions)?,
                lua.create_buffer(self.flags)?,
                n,
                three,
            ))?;
        }
        let (now, timeless) = stepped;
        // A step of no time counts none (P2).
        *rest.steps += if timeless { 0.0 } else { 1.0 };
        let before = std::mem::take(rest.touching);
        let (world, touching) = contacts::next_world(
            lua,
            &keys,
            old,
            (bodies, *rest.steps),
            (before, now),
            || list(rest.ids),
        )?;
        *rest.touching = touching;
        Ok(world)
    }
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
    let world = moved.world(
        lua,
        (old, false),
        (|i| &read.bodies[i].id, read.bodies.len()),
        rest,
        (stepped.touching, stepped.timeless),
    )?;
    Ok((world, read))
}
