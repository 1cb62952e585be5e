//! The last world a step wrote, kept beside what was read from it and
//! the rapier world that stepped it (P1, P3): the next step, ray or cast
//! on that same table reads nothing, and the next step goes on from that
//! rapier world.
//!
//! Reading a world is most of a step's cost that is not rapier's: a
//! thousand body tables, each field checked (P4). A game steps the world
//! the last step returned, so that read is known already: it is what the
//! step wrote. It may be trusted only while the table cannot change, so
//! a step's world is frozen, every table in it, as the state is when
//! `update` returns (S3): a world read afresh is frozen first, and the
//! world a step writes is frozen before it is kept. Its identity is then
//! its content. The table itself is held here, so its address is never
//! another's. The kept read equals reading the table, which debug builds
//! check on every use (so every physics test checks it).
//!
//! Rapier's world is more than the table: contacts and their impulses
//! carry from step to step. What is kept is shared (`Rc`) with any held
//! or kept state that took it (`beside`), and a step on a shared one
//! steps a copy, so the moment held stays as it was. One world a
//! dimension is kept per VM; a world met with nothing kept for it (a
//! rewind to a keyframe that held none, a load, a world made or changed
//! this tick) is read and built afresh.

use std::rc::Rc;

use mlua::{Lua, Table, Value};

use crate::Refusal;

/// A world's read, whose kind names the rapier world that steps it.
pub trait Read: Clone + 'static {
    /// Rapier's world as the last step left it (P3).
    type Engine: Engine;
}

/// A rapier world kept between steps.
pub trait Engine: Clone + 'static {
    /// About what a copy of it holds, in bytes (history counts it).
    fn bytes(&self) -> usize;
}

/// Which body each collider of a rapier world is, by the collider's
/// index in rapier's arena: a look-up for each of a heap's thousands of
/// touching pairs every step, where a hash map's was a tenth of a frame.
#[derive(Clone, Debug, Default)]
pub struct Owners(pub Vec<usize>);

impl Owners {
    /// The body whose collider has arena index `index`.
    pub fn of(&self, index: u32) -> Option<usize> {
        self.0
            .get(index as usize)
            .copied()
            .filter(|&body| body != usize::MAX)
    }
}

/// Notes that the collider at arena index `index` is body `body`'s.
pub fn own(owners: &mut Vec<usize>, index: u32, body: usize) {
    let at = index as usize;
    if owners.len() <= at {
        owners.resize(at + 1, usize::MAX);
    }
    owners[at] = body;
}

/// About what a copy of a rapier world with `bodies` bodies and `pairs`
/// pairs of colliders near each other holds, in bytes: measured on the
/// bench's 1,000 balls (1,003 bodies, 5,148 pairs: 1.5 MB a copy).
pub fn bytes_of(bodies: usize, pairs: usize) -> usize {
    bodies * 600 + pairs * 180
}

/// A copy of rapier's `world` (2D or 3D) that steps as it does: every
/// part rapier keeps between steps (what its snapshots hold), with
/// workspaces of its own.
macro_rules! copy_world {
    ($world:expr) => {{
        let w = $world;
        let mut copy = PhysicsWorld::new();
        copy.gravity = w.gravity;
        copy.integration_parameters = w.integration_parameters;
        copy.islands = w.islands.clone();
        copy.broad_phase = w.broad_phase.clone();
        copy.narrow_phase = w.narrow_phase.clone();
        copy.bodies = w.bodies.clone();
        copy.colliders = w.colliders.clone();
        copy.impulse_joints = w.impulse_joints.clone();
        copy.multibody_joints = w.multibody_joints.clone();
        copy.soft_bodies = w.soft_bodies.clone();
        copy.ccd_solver = w.ccd_solver.clone();
        copy
    }};
}
pub(super) use copy_world;

/// What is kept for a world a step wrote: its read and the rapier world
/// that wrote it; shared with a held or kept state until the next step
/// (which then steps a copy).
#[derive(Clone)]
pub struct Inner<W: Read> {
    pub read: W,
    pub engine: W::Engine,
}

/// The last world a step of one dimension wrote, and what is kept for it.
struct Kept<W: Read> {
    table: Table,
    inner: Rc<Inner<W>>,
}

/// Freezes `world` and everything in it, checking it is plain data as
/// the state walk does (S5): what a step reads may not change after.
///
/// # Errors
/// Something in it is not plain data (`the world.bodies.a.data is a
/// function`).
pub fn freeze(lua: &Lua, world: &Table) -> Result<(), Refusal> {
    crate::state::take_as(lua, &Value::Table(world.clone()), "the world")
}

/// The read and the rapier world kept for `table`, taken out (a step
/// writes a new one; a held state sharing them keeps its own), or
/// `None` when `table` is not the world the last step wrote.
pub fn take<W: Read>(lua: &Lua, table: &Table) -> Option<Inner<W>> {
    let mut kept = lua.app_data_mut::<Option<Kept<W>>>()?;
    if kept.as_ref().is_some_and(|k| k.table == *table) {
        let inner = kept.take()?.inner;
        return Some(Rc::try_unwrap(inner).unwrap_or_else(|shared| (*shared).clone()));
    }
    None
}

/// Runs `f` on the read kept for `table` (a ray or a cast, which leave
/// it kept), or returns `None` when `table` is not the one kept.
pub fn with<W: Read, R>(lua: &Lua, table: &Table, f: impl FnOnce(&W) -> R) -> Option<R> {
    let kept = lua.app_data_ref::<Option<Kept<W>>>()?;
    match kept.as_ref() {
        Some(k) if k.table == *table => Some(f(&k.inner.read)),
        _ => None,
    }
}

/// Keeps `inner` for `table`, which the caller froze whole.
pub fn keep<W: Read>(lua: &Lua, table: Table, inner: Inner<W>) {
    put(lua, Some((table, Rc::new(inner))));
}

/// What is kept now, shared: to be put back with [`put`].
pub fn held<W: Read>(lua: &Lua) -> Option<(Table, Rc<Inner<W>>)> {
    let kept = lua.app_data_ref::<Option<Kept<W>>>()?;
    kept.as_ref()
        .map(|k| (k.table.clone(), Rc::clone(&k.inner)))
}

/// Keeps what [`held`] gave, or nothing.
pub fn put<W: Read>(lua: &Lua, held: Option<(Table, Rc<Inner<W>>)>) {
    let kept = held.map(|(table, inner)| Kept { table, inner });
    match lua.app_data_mut::<Option<Kept<W>>>() {
        Some(mut slot) => *slot = kept,
        None => {
            lua.set_app_data(kept);
        }
    }
}

/// In debug builds, that `kept` is what reading `table` gives: the
/// promise that lets a step skip the read (P3).
pub fn check<W: PartialEq + std::fmt::Debug>(
    kept: &W,
    table: &Table,
    read: impl FnOnce(&Table) -> Result<W, Refusal>,
) {
    if cfg!(debug_assertions) {
        let fresh = read(table).expect("a kept world reads as it was written");
        assert!(
            fresh == *kept,
            "the kept read of a world differs from reading it:\nkept {kept:#?}\nread {fresh:#?}"
        );
    }
}

#[cfg(test)]
mod tests {
    use mlua::{Function, Lua, Table};

    use super::super::read;

    // rule: P1, P3
    #[test]
    fn a_step_keeps_the_world_it_wrote_frozen_and_only_that_one() {
        let lua = Lua::new();
        crate::state::install(&lua).unwrap();
        let step: Function = super::super::native(&lua).unwrap().get("step").unwrap();
        let world: Table = lua
            .load(
                "return { gravity = { x = 0, y = 600 }, bodies = { ball = { x = 0, y = 0, \
                 shape = { kind = 'circle', radius = 4 } } } }",
            )
            .eval()
            .unwrap();
        let kept = |t: &Table| super::with::<read::World, _>(&lua, t, |w| w.steps);
        let next: Table = step.call((&world, 1.0 / 60.0)).unwrap();
        assert_eq!(kept(&world), None, "a world met first is read");
        assert_eq!(kept(&next), Some(1.0));
        assert!(world.is_readonly() && next.is_readonly());
        let ball: Table = next.get::<Table>("bodies").unwrap().get("ball").unwrap();
        assert!(ball.is_readonly(), "every table in it");
        let after: Table = step.call((&next, 1.0 / 60.0)).unwrap();
        assert_eq!(kept(&after), Some(2.0));
        assert_eq!(kept(&next), None, "one world a dimension is kept");
        // Stepping an older world again reads it and gives the same world.
        let again: Table = step.call((&next, 1.0 / 60.0)).unwrap();
        let y = |t: &Table| -> f64 {
            t.get::<Table>("bodies")
                .unwrap()
                .get::<Table>("ball")
                .unwrap()
                .get("y")
                .unwrap()
        };
        assert_eq!(y(&again), y(&after));
    }

    /// Forty balls heaped in a bin, stepped two seconds in `lua`.
    fn heap(lua: &Lua, step: &Function) -> Table {
        let mut world: Table = lua
            .load(
                "local bodies = {}
                 for i = 1, 40 do
                     bodies[i] = { x = 60 + (i % 8) * 12, y = 20 + (i // 8) * 12,
                                   shape = { kind = 'circle', radius = 5 } }
                 end
                 bodies.floor = { kind = 'fixed', x = 100, y = 160,
                                  shape = { kind = 'box', width = 200, height = 10 } }
                 bodies.left = { kind = 'fixed', x = 45, y = 100,
                                 shape = { kind = 'box', width = 10, height = 140 } }
                 bodies.right = { kind = 'fixed', x = 165, y = 100,
                                  shape = { kind = 'box', width = 10, height = 140 } }
                 return { gravity = { x = 0, y = 600 }, bodies = bodies }",
            )
            .eval()
            .unwrap();
        for _ in 0..120 {
            world = step.call((&world, 1.0 / 60.0)).unwrap();
        }
        world
    }

    fn heights(world: &Table) -> Vec<f64> {
        let bodies: Table = world.get("bodies").unwrap();
        (1..=40)
            .map(|i| bodies.get::<Table>(i).unwrap().get("y").unwrap())
            .collect()
    }

    // rule: P3
    #[test]
    fn a_step_carries_rapier_s_contacts_on_and_a_held_moment_puts_them_back() {
        let lua = Lua::new();
        crate::state::install(&lua).unwrap();
        let step: Function = super::super::native(&lua).unwrap().get("step").unwrap();
        let world = heap(&lua, &step);
        let held = super::super::hold(&lua);
        let kept: Table = step.call((&world, 1.0 / 60.0)).unwrap();
        // The same bodies in a table of their own: rapier's world is
        // built afresh, with no contacts to start from.
        let copy: Table = lua
            .load("local function copy(t) local c = {} for k, v in t do c[k] = if type(v) == 'table' then copy(v) else v end return c end return copy(...)")
            .call(&world)
            .unwrap();
        let afresh: Table = step.call((&copy, 1.0 / 60.0)).unwrap();
        assert_ne!(
            heights(&kept),
            heights(&afresh),
            "the heap's contacts carry on"
        );
        // Back at the held moment, the world steps as it did.
        super::super::put(&lua, &held);
        let again: Table = step.call((&world, 1.0 / 60.0)).unwrap();
        assert_eq!(heights(&again), heights(&kept));
        // A world no longer kept (the copy's step was kept last) is
        // built afresh: what it gives depends on what is kept beside it.
        let unkept: Table = step.call((&world, 1.0 / 60.0)).unwrap();
        assert_eq!(heights(&unkept), heights(&afresh));
    }
}
