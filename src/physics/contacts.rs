//! What touches what, for worlds of either dimension (P2): the pairs a
//! world table says were touching after its last step, the pairs a step
//! found, and the `began` and `ended` events between the two (which
//! `write::next_world` writes into the new world table). A pair is two
//! bodies by their index in the world's id order, the lower first.

use std::collections::HashMap;

use mlua::Value;

use super::fields::{Id, id_of, text};
use crate::Refusal;

/// Where and how hard two bodies met in the step their contact began: a
/// point on the first body's surface, the unit normal from the first
/// body to the second, and the total impulse along it. z is 0 in 2D.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Contact {
    pub point: [f32; 3],
    pub normal: [f32; 3],
    pub impulse: f32,
}

/// The bytes one event takes in the buffer `PAIRS` reads: kind and the
/// two bodies (three u32s), whether it has a contact (u32), then the
/// contact's point, normal and impulse (seven f32s).
pub const EVENT_BYTES: usize = 44;

/// The pairs whose contact began in a step, sorted, with where and how
/// hard they met.
pub type Began = [((usize, usize), Contact)];

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
pub(super) fn together(
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

/// The pairs touching after a step: `before` (none for a world rapier
/// built afresh, which has met no contacts yet), changed by what rapier
/// said began or ended in the step, in its order (`changes`: the two
/// colliders' arena indices and whether they began). Only the pairs that
/// changed are looked at: asking each of a heap's thousands of contact
/// pairs whether it touches, and sorting them, was a tenth of a step.
pub fn after(
    before: &[(usize, usize)],
    changes: Vec<(u32, u32, bool)>,
    owners: &super::kept::Owners,
) -> Vec<(usize, usize)> {
    // What each pair that changed ended the step as: its last change.
    let mut changed: Vec<((usize, usize), usize, bool)> = changes
        .into_iter()
        .enumerate()
        .filter_map(|(order, (a, b, began))| {
            let (a, b) = (owners.of(a)?, owners.of(b)?);
            Some(((a.min(b), a.max(b)), order, began))
        })
        .collect();
    changed.sort_unstable_by_key(|&(pair, order, _)| (pair, order));
    let mut last: Vec<((usize, usize), bool)> = Vec::with_capacity(changed.len());
    for (pair, _, began) in changed {
        match last.last_mut() {
            Some((was, touches)) if *was == pair => *touches = began,
            _ => last.push((pair, began)),
        }
    }
    let mut now = Vec::with_capacity(before.len() + last.len());
    let mut changed = last.into_iter().peekable();
    for &pair in before {
        while let Some((p, began)) = changed.next_if(|&(p, _)| p < pair) {
            if began {
                now.push(p);
            }
        }
        match changed.next_if(|&(p, _)| p == pair) {
            Some((_, false)) => {}
            _ => now.push(pair),
        }
    }
    now.extend(changed.filter(|&(_, began)| began).map(|(p, _)| p));
    now
}

/// Makes, for one rapier crate (`rapier2d` or `rapier3d`) in the module
/// that calls it, `Changes`, which hears what began and ended touching
/// in a step, and `scanned`, the pairs touching found by asking every
/// pair rapier has (what debug builds check [`after`] against).
macro_rules! touch_changes {
    ($rapier:ident) => {
        pub mod touch {
            use $rapier::prelude::*;

            /// The pairs that began (true) or stopped touching in a step,
            /// as the two colliders' arena indices, in rapier's order
            /// (behind a lock, never contended: rapier asks a handler to
            /// be `Sync`).
            #[derive(Default)]
            pub struct Changes(pub std::sync::Mutex<Vec<(u32, u32, bool)>>);

            impl EventHandler for Changes {
                fn handle_collision_event(
                    &self,
                    _: &RigidBodySet,
                    _: &ColliderSet,
                    event: CollisionEvent,
                    _: Option<&ContactPair>,
                ) {
                    let (a, b) = (event.collider1(), event.collider2());
                    let change = (a.into_raw_parts().0, b.into_raw_parts().0, event.started());
                    if let Ok(mut changes) = self.0.lock() {
                        changes.push(change);
                    }
                }

                fn handle_contact_force_event(
                    &self,
                    _: Real,
                    _: &RigidBodySet,
                    _: &ColliderSet,
                    _: &ContactPair,
                    _: Real,
                ) {
                }

                fn handle_soft_body_tear_event(&self, _: &SoftBodySet, _: &SoftBodyTearEvent) {}
            }

            /// Where and how hard each pair in `now` but not in `before`
            /// (both sorted) met: the pairs whose contact began, by body,
            /// sorted; a sensor's has none.
            pub fn began(
                world: &PhysicsWorld,
                bodies: &[RigidBodyHandle],
                before: &[(usize, usize)],
                now: &[(usize, usize)],
            ) -> Vec<((usize, usize), crate::physics::contacts::Contact)> {
                let mut out = Vec::new();
                let mut old = before.iter().peekable();
                for &(a, b) in now {
                    while old.next_if(|&&p| p < (a, b)).is_some() {}
                    if old.next_if(|&&p| p == (a, b)).is_some() {
                        continue;
                    }
                    let collider = |i: usize| world.bodies[bodies[i]].colliders().first().copied();
                    let (Some(ca), Some(cb)) = (collider(a), collider(b)) else {
                        continue;
                    };
                    let Some(pair) = world.narrow_phase.contact_pair(ca, cb) else {
                        continue;
                    };
                    // rapier's normal points from its first collider to
                    // its second: turned round when that is body b.
                    let flip = if pair.collider1 == ca { 1.0 } else { -1.0 };
                    let first = &world.colliders[pair.collider1];
                    let mut contact = crate::physics::contacts::Contact::default();
                    let mut found = false;
                    for manifold in pair.manifolds() {
                        for point in &manifold.points {
                            contact.impulse += point.data.impulse;
                            if !found {
                                found = true;
                                let p = first.position().transform_point(point.local_p1);
                                let n = manifold.data.normal * flip;
                                let (p, n) = (p.to_array(), n.to_array());
                                for k in 0..p.len() {
                                    contact.point[k] = p[k];
                                    contact.normal[k] = n[k];
                                }
                            }
                        }
                    }
                    if found {
                        out.push(((a, b), contact));
                    }
                }
                out
            }

            /// Every pair `world` has that touches, by body, sorted.
            pub fn scanned(
                world: &PhysicsWorld,
                owner: &crate::physics::kept::Owners,
            ) -> Vec<(usize, usize)> {
                let pair = |a: ColliderHandle, b: ColliderHandle| {
                    let (a, b) = (
                        owner.of(a.into_raw_parts().0)?,
                        owner.of(b.into_raw_parts().0)?,
                    );
                    Some((a.min(b), a.max(b)))
                };
                let contacts = world
                    .narrow_phase
                    .contact_pairs()
                    .filter(|c| c.has_any_active_contact())
                    .filter_map(|c| pair(c.collider1, c.collider2));
                let sensed = world
                    .narrow_phase
                    .intersection_pairs()
                    .filter(|&(_, _, on)| on)
                    .filter_map(|(a, b, _)| pair(a, b));
                let mut touching: Vec<_> = contacts.chain(sensed).collect();
                touching.sort_unstable();
                touching.dedup();
                touching
            }
        }
    };
}
pub(super) use touch_changes;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::physics::kept::Owners;

    // rule: P2
    #[test]
    fn the_pairs_after_a_step_are_those_before_changed_by_each_pair_s_last_change() {
        // Colliders 0..4 are bodies 3, 2, 1, 0; collider 4 is no body's.
        let owners = Owners(vec![3, 2, 1, 0, usize::MAX]);
        let before = [(0, 1), (1, 2), (2, 3)];
        let changes = vec![
            (1, 2, false), // bodies 1 and 2 part
            (0, 3, true),  // 0 and 3 meet, part again, and meet last
            (3, 0, false),
            (0, 3, true),
            (2, 3, false), // 0 and 1 part, then meet again
            (3, 2, true),
            (0, 2, true), // 1 and 3 meet, then part
            (2, 0, false),
            (4, 0, true), // no body's collider: not a pair
        ];
        let now = after(&before, changes, &owners);
        assert_eq!(now, vec![(0, 1), (0, 3), (2, 3)]);
        // A world built afresh starts from none.
        assert_eq!(after(&[], vec![(1, 0, true)], &owners), vec![(2, 3)]);
    }
}
