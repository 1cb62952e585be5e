//! The last world a step wrote, kept beside what was read from it (P1,
//! P3): the next step, ray or cast on that same table reads nothing.
//!
//! Reading a world is most of a step's cost that is not rapier's: a
//! thousand body tables, each field checked (P4), a third of a frame of
//! the 1,000-body bench. A game steps the world the last step returned,
//! so that read is known already: it is what the step wrote. It may be
//! trusted only while the table cannot change, so a step's world is
//! frozen, every table in it, as the state is when `update` returns
//! (S3): a world read afresh is frozen first, and the world a step
//! writes is frozen before it is kept. Its identity is then its content.
//! The table itself is held here, so its address is never another's.
//!
//! A step is still a function of the table alone: the kept read equals
//! reading the table, which debug builds check on every use (so every
//! physics test checks it), and a world met for the first time (a
//! rewind, a load, a world made this tick) is read as before. One world
//! a dimension is kept per VM.

use mlua::{Lua, Table, Value};

use crate::Refusal;

/// The last world a step of one dimension wrote and its read, `W`.
struct Kept<W> {
    table: Table,
    world: W,
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

/// The read kept for `table`, taken out (a step writes a new one), or
/// `None` when `table` is not the world the last step wrote.
pub fn take<W: 'static>(lua: &Lua, table: &Table) -> Option<W> {
    let mut kept = lua.app_data_mut::<Option<Kept<W>>>()?;
    if kept.as_ref().is_some_and(|k| k.table == *table) {
        return kept.take().map(|k| k.world);
    }
    None
}

/// Runs `f` on the read kept for `table` (a ray or a cast, which leave
/// it kept), or returns `None` when `table` is not the one kept.
pub fn with<W: 'static, R>(lua: &Lua, table: &Table, f: impl FnOnce(&W) -> R) -> Option<R> {
    let kept = lua.app_data_ref::<Option<Kept<W>>>()?;
    match kept.as_ref() {
        Some(k) if k.table == *table => Some(f(&k.world)),
        _ => None,
    }
}

/// Keeps `world`, read from `table`, which the caller froze whole.
pub fn keep<W: 'static>(lua: &Lua, table: Table, world: W) {
    let kept = Some(Kept { table, world });
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
}
