//! What touches what, for worlds of either dimension (P2): the pairs a
//! world table says were touching after its last step, the pairs a step
//! found, the `began` and `ended` events between the two, and writing
//! both back into the new world table. A pair is two bodies by their
//! index in the world's id order, the lower first.

use std::collections::HashMap;

use mlua::{Lua, Table, Value};

use super::fields::{Id, id_of, text};
use super::write::Keys;
use crate::Refusal;

/// Pairs touching after a step, sorted, each with where its table is in
/// the world's `touching` list (counted from 1) where that table names
/// the lower body first (as a step writes it): a pair still touching
/// keeps its table, so history shares it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Touching {
    pub pairs: Vec<(usize, usize)>,
    pub slots: Vec<Option<i32>>,
}

/// Reads a world's `touching` list; `index` maps a body's id to its
/// index. A pair one of whose bodies has gone is no longer touching.
///
/// # Errors
/// An entry is not a table.
pub fn read(value: &Value, index: &HashMap<&Id, usize>) -> Result<Touching, Refusal> {
    let Value::Table(list) = value else {
        return Ok(Touching::default());
    };
    let mut touching: Vec<((usize, usize), Option<i32>)> = Vec::new();
    for (slot, pair) in (1..).zip(list.sequence_values::<Value>().take(super::MAX_PAIRS + 1)) {
        let Value::Table(pair) = pair.map_err(text)? else {
            return Err("touching holds pairs { a = id, b = id }".into());
        };
        // Read by walking the pair's two fields: a key given as `&str`
        // is a new Lua string made under a protected call, and a heap's
        // thousands of pairs made that a tenth of a step.
        let (mut a, mut b) = (None, None);
        pair.for_each::<Value, Value>(|key, value| {
            if let Value::String(key) = key {
                match &*key.as_bytes() {
                    b"a" => a = id_of(&value),
                    b"b" => b = id_of(&value),
                    _ => {}
                }
            }
            Ok(())
        })
        .map_err(text)?;
        if let (Some(a), Some(b)) = (a, b)
            && let (Some(&a), Some(&b)) = (index.get(&a), index.get(&b))
        {
            touching.push(((a.min(b), a.max(b)), (a < b).then_some(slot)));
        }
    }
    touching.sort_by_key(|(pair, _)| *pair);
    touching.dedup_by_key(|(pair, _)| *pair);
    let (pairs, slots) = touching.into_iter().unzip();
    Ok(Touching { pairs, slots })
}

/// Walks two sorted lists of pairs as one: `f(pair, where it is in
/// before, whether it is in now)` for each pair of either, in order.
fn together(
    before: &[(usize, usize)],
    now: &[(usize, usize)],
    mut f: impl FnMut((usize, usize), Option<usize>, bool),
) {
    let (mut i, mut j) = (0, 0);
    while i < before.len() || j < now.len() {
        match (before.get(i), now.get(j)) {
            (Some(&a), Some(&b)) if a == b => {
                f(a, Some(i), true);
                (i, j) = (i + 1, j + 1);
            }
            (Some(&a), Some(&b)) if a < b => {
                f(a, Some(i), false);
                i += 1;
            }
            (Some(&a), None) => {
                f(a, Some(i), false);
                i += 1;
            }
            (_, Some(&b)) => {
                f(b, None, true);
                j += 1;
            }
            (None, None) => unreachable!("the loop ends first"),
        }
    }
}

/// The world a step writes, 2D or 3D: a new table with `old`'s fields,
/// its new `bodies` and `steps`, `touching` (the pairs touching `now`)
/// and `events`; `old`'s pairs were `before`. `ids()` gives the world's
/// ids in order as a list. Returns the table and its pairs as reading
/// its `touching` would give them.
pub fn next_world(
    lua: &Lua,
    keys: &Keys,
    old: &Table,
    (bodies, steps): (Table, f64),
    (before, now): (Touching, Vec<(usize, usize)>),
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
    together(&before.pairs, &now, |(a, b), was, is| {
        let slot = was.and_then(|i| before.slots[i]);
        let event = |kind: u32| [kind, a as u32 + 1, b as u32 + 1].map(u32::to_le_bytes);
        match (was, is) {
            (Some(_), false) => ended.extend(event(0).concat()),
            (None, true) => began.extend(event(1).concat()),
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
    let gone = i32::try_from(ended.len() / 12).map_err(mlua::Error::external)?;
    for at in order.chunks_exact_mut(4) {
        let k = i32::from_le_bytes(at.try_into().expect("four bytes"));
        if k < 0 {
            at.copy_from_slice(&(k - gone).to_le_bytes());
        }
    }
    ended.append(&mut began);
    let events = ended.len() / 12;
    let (list, happened): (Table, Table) = keys.pairs.call((
        listed,
        ids()?,
        &bodies,
        lua.create_buffer(order)?,
        now.len(),
        lua.create_buffer(ended)?,
        events,
    ))?;
    world.raw_set(k("touching"), list)?;
    world.raw_set(k("events"), happened)?;
    // A slot for each pair: the list was written in pair order.
    let slots = (1..).take(now.len()).map(Some).collect();
    Ok((world, Touching { pairs: now, slots }))
}
