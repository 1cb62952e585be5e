//! A game's state taken out of the present, to stand on again (R1): kept
//! apart from the VM for history's keyframes, or held in it for a rewind,
//! a rollback or a sync test. Either way with what else a frame reads
//! besides the state: the random generator (H11) and rapier's worlds
//! beside the physics worlds in it (P3).

use mlua::{Lua, Value};

use crate::error::{Error, Result};
use crate::history::{Held, Kept};
use crate::state;

/// What a [`Held`] holds for a Luau game.
struct Moment {
    state: Value,
    random: u64,
    physics: crate::physics::Held,
}

/// `state` and the rest, encoded apart from the VM.
pub(super) fn kept(lua: &Lua, state: &Value) -> Option<Kept> {
    Some(Kept {
        state: state::to_json(state).ok()?,
        random: super::determinism::random_state(lua)?,
        physics: crate::physics::apart(lua, state),
    })
}

/// The state `kept` keeps, read back into new tables.
///
/// # Errors
/// It does not read back.
pub(super) fn read_back(lua: &Lua, kept: &Kept) -> Result<Value> {
    state::from_json(lua, &kept.state).map_err(|why| {
        Error::rule(
            crate::Rule::R1,
            format!("a kept state does not read back: {why}"),
        )
    })
}

/// Puts back the rest of `kept` beside `state`, its state read back.
pub(super) fn rejoin(lua: &Lua, state: &Value, kept: &Kept) {
    crate::physics::rejoin(lua, state, &kept.physics);
    super::determinism::set_random_state(lua, kept.random);
}

/// `state` and the rest, held as they are.
pub(super) fn held(lua: &Lua, state: &Value) -> Option<Held> {
    let random = super::determinism::random_state(lua)?;
    let physics = crate::physics::hold(lua);
    Some(Held(Box::new(Moment {
        state: state.clone(),
        random,
        physics,
    })))
}

/// Puts back the rest of `held`; returns its state.
///
/// # Errors
/// `held` is not a Luau game's.
pub(super) fn put_back<'h>(lua: &Lua, held: &'h Held) -> Result<&'h Value> {
    let moment = held
        .0
        .downcast_ref::<Moment>()
        .ok_or_else(|| Error::rule(crate::Rule::R1, "a held state is not this game's"))?;
    crate::physics::put(lua, &moment.physics);
    super::determinism::set_random_state(lua, moment.random);
    Ok(&moment.state)
}

/// The state `held` holds, if a Luau game's.
pub(super) fn state_of(held: &Held) -> Option<&Value> {
    held.0.downcast_ref::<Moment>().map(|m| &m.state)
}
