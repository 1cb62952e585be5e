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

/// The pairs that stopped touching, then those that began, each in pair
/// order: what the next tick reads as the step's events.
pub fn events(
    before: &[(usize, usize)],
    now: &[(usize, usize)],
) -> Vec<(&'static str, (usize, usize))> {
    let ended = before
        .iter()
        .filter(|p| now.binary_search(p).is_err())
        .map(|&p| ("ended", p));
    let began = now
        .iter()
        .filter(|p| before.binary_search(p).is_err())
        .map(|&p| ("began", p));
    ended.chain(began).collect()
}

/// The world a step writes, 2D or 3D: a new table with `old`'s fields,
/// its new `bodies` and `steps`, `touching` (the pairs touching `now`)
/// and `events`; `old`'s pairs were `before`. `body(i)` gives body `i`'s
/// id. Returns the table and its pairs as reading its `touching` would
/// give them.
pub fn next_world<'a>(
    lua: &Lua,
    keys: &Keys,
    old: &Table,
    (bodies, steps): (Table, f64),
    (before, now): (Touching, Vec<(usize, usize)>),
    body: impl Fn(usize) -> &'a Value,
) -> mlua::Result<(Table, Touching)> {
    let k = |name| keys.get(name);
    let world: Table = keys.clone.call(old.clone())?;
    world.raw_set(k("bodies"), &bodies)?;
    world.raw_set(k("steps"), steps)?;
    // The pairs touching now; the old list when nothing changed.
    let listed = old.raw_get::<Value>(k("touching"))?;
    let slots = if now == before.pairs {
        world.raw_set(k("touching"), listed)?;
        before.slots
    } else {
        // Made by one Luau call (`PAIRS`) from where each pair's table is:
        // a slot of the old list (a pair still touching keeps its table:
        // most of a heap's are, and history shares what did not change),
        // or a new pair, whose ids go in `ids`. A call through mlua for
        // each of a heap's thousands of pairs was a sixth of a step.
        let ids = lua.create_table()?;
        let mut order = Vec::with_capacity(now.len() * 4);
        let mut made = 0;
        for &(a, b) in &now {
            let slot = match before.pairs.binary_search(&(a, b)) {
                Ok(i) => before.slots[i],
                Err(_) => None,
            };
            let at = slot.unwrap_or_else(|| {
                made += 1;
                -made
            });
            if slot.is_none() {
                ids.raw_push(body(a))?;
                ids.raw_push(body(b))?;
            }
            order.extend_from_slice(&at.to_le_bytes());
        }
        let order = lua.create_buffer(order)?;
        let list: Table = keys.pairs.call((listed, ids, order, now.len()))?;
        world.raw_set(k("touching"), list)?;
        (1..).take(now.len()).map(Some).collect()
    };
    let list = lua.create_table()?;
    for (kind, (a, b)) in events(&before.pairs, &now) {
        let event = lua.create_table_with_capacity(0, 5)?;
        let (a, b) = (body(a), body(b));
        let data =
            |id: &Value| -> mlua::Result<Value> { bodies.raw_get::<Table>(id)?.raw_get(k("data")) };
        event.raw_set(k("kind"), kind)?;
        event.raw_set(k("a"), a)?;
        event.raw_set(k("b"), b)?;
        event.raw_set(k("a_data"), data(a)?)?;
        event.raw_set(k("b_data"), data(b)?)?;
        list.raw_push(event)?;
    }
    world.raw_set(k("events"), list)?;
    Ok((world, Touching { pairs: now, slots }))
}
