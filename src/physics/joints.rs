//! Joints between two bodies (P6): a world's `joints` table read and
//! checked like its bodies (P4), then built into the rapier world each
//! step. A joint is plain data in the state, keyed by its own id:
//! `{ kind = "revolute", a = "door", b = "frame", anchor_a = { x, y } }`.

use crate::Refusal;
use crate::terminal::Number;
use std::collections::HashMap;

use mlua::{Table, Value};

use super::fields::{
    self, Fields, Id, MAX_COORDINATE, MAX_SIZE, flag, id_of, number_or, pair, place_of, shown, text,
};

/// The most joints one world holds.
pub const MAX_JOINTS: usize = 10_000;

/// What a joint holds between its two bodies.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Kind {
    /// A hinge: the anchors stay together, the bodies turn freely (or
    /// within `limits`, radians).
    Revolute,
    /// A slide along `axis` (in body a's frame), within `limits` (pixels).
    Prismatic,
    /// Welded: neither moves nor turns against the other.
    Fixed,
    /// The anchors at most `length` apart; slack when closer.
    Rope,
}

/// One joint as read, in a world of `N` dimensions (2, or 3: P10).
#[derive(Debug, Clone, PartialEq)]
pub struct Joint<const N: usize = 2> {
    pub kind: Kind,
    /// The two bodies, by index in the world's body order.
    pub a: usize,
    pub b: usize,
    /// Where the joint holds each body, in that body's own frame.
    pub anchor_a: [f64; N],
    pub anchor_b: [f64; N],
    /// A prismatic joint's slide, in body a's frame; in 3D, a revolute
    /// joint's hinge too.
    pub axis: [f64; N],
    pub limits: Option<[f64; 2]>,
    pub length: f64,
    /// Whether the two bodies still collide with each other.
    pub collide: bool,
}

const JOINT_FIELDS: &[&str] = &[
    "kind", "a", "b", "anchor_a", "anchor_b", "axis", "limits", "length", "collide",
];

/// Reads a world's `joints` (nil for none), in id order; `bodies` maps a
/// body's id to its index.
///
/// # Errors
/// One line naming the first joint field that is wrong, or a body that is
/// not in the world.
pub fn read<const N: usize>(
    value: &Value,
    bodies: &HashMap<&Id, usize>,
) -> Result<Vec<Joint<N>>, Refusal> {
    let table = match value {
        Value::Nil => return Ok(Vec::new()),
        Value::Table(t) => t,
        other => {
            return Err(refuse!(
                "joints is a table of joints by id, not a {}",
                crate::state::type_of(other)
            ));
        }
    };
    let mut joints: Vec<(Id, Joint<N>)> = Vec::new();
    for entry in table.pairs::<Value, Value>() {
        let (id, joint) = entry.map_err(text)?;
        if joints.len() == MAX_JOINTS {
            return Err(refuse!("the world has more than {MAX_JOINTS} joints (P4)"));
        }
        let Some(key) = id_of(&id) else {
            return Err(refuse!(
                "a joint's id is a whole number or a short string, not {}",
                shown(&id)
            ));
        };
        let place = format!("joints{}", place_of(&id));
        let Value::Table(joint) = joint else {
            return Err(refuse!(
                "{place} is a {}; a joint is a table (physics.joint makes one)",
                crate::state::type_of(&joint)
            ));
        };
        joints.push((key, read_joint(&joint, &place, bodies)?));
    }
    joints.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(joints.into_iter().map(|(_, j)| j).collect())
}

fn read_joint<const N: usize>(
    table: &Table,
    place: &str,
    bodies: &HashMap<&Id, usize>,
) -> Result<Joint<N>, Refusal> {
    let fields = Fields::read(table, JOINT_FIELDS, place, "")?;
    let kind = match fields.get("kind") {
        Value::String(s) => match &*s.as_bytes() {
            b"revolute" => Kind::Revolute,
            b"prismatic" => Kind::Prismatic,
            b"fixed" => Kind::Fixed,
            b"rope" => Kind::Rope,
            _ => {
                return Err(refuse!(
                    "{place}.kind is \"{}\"; a joint is \"revolute\", \"prismatic\", \"fixed\" or \"rope\"",
                    moonloop_door::escape(&s.to_string_lossy())
                ));
            }
        },
        other => {
            return Err(refuse!(
                "{place}.kind is a {}; a joint is \"revolute\", \"prismatic\", \"fixed\" or \"rope\"",
                crate::state::type_of(&other)
            ));
        }
    };
    let body = |field: &str| -> Result<usize, Refusal> {
        let id = fields.get(field);
        id_of(&id)
            .and_then(|k| bodies.get(&k).copied())
            .ok_or_else(|| {
                refuse!(
                    "{place}.{field} is {}, which names no body of the world",
                    shown(&id)
                )
            })
    };
    let (a, b) = (body("a")?, body("b")?);
    if a == b {
        return Err(refuse!(
            "{place} joins a body to itself; a and b are two bodies"
        ));
    }
    let point = |field: &str, default: [f64; N]| -> Result<[f64; N], Refusal> {
        let v = match fields.get(field) {
            Value::Nil => return Ok(default),
            value => fields::point::<N>(&value, || format!("{place}.{field}"))?,
        };
        if v.iter().any(|c| c.abs() > MAX_COORDINATE) {
            return Err(refuse!(
                "{place}.{field} is farther than {MAX_COORDINATE} (P4)"
            ));
        }
        Ok(v)
    };
    let mut along_x = [0.0; N];
    along_x[0] = 1.0;
    let axis = point("axis", along_x)?;
    if axis.iter().all(|c| *c == 0.0) {
        let zeros = ["x = 0", "y = 0", "z = 0"][..N].join(", ");
        return Err(refuse!(
            "{place}.axis is {{ {zeros} }}; an axis has a direction"
        ));
    }
    // Only its direction counts, made a unit one here, where its length
    // is still a double: { x = 1e-300 } is x, not a zero in single
    // precision that rapier would divide by.
    let largest = axis.iter().fold(0.0f64, |m, c| m.max(c.abs()));
    let axis = axis.map(|c| c / largest);
    let length = axis.iter().map(|c| c * c).sum::<f64>().sqrt();
    let axis = axis.map(|c| c / length);
    let limits = match fields.get("limits") {
        Value::Nil => None,
        value => {
            let [lo, hi] = pair(&value, || format!("{place}.limits"))?;
            if lo > hi || lo.abs() > MAX_COORDINATE || hi.abs() > MAX_COORDINATE {
                return Err(refuse!(
                    "{place}.limits is {{ {lo}, {hi} }}; it is {{ least, most }}, least first (P4)"
                ));
            }
            Some([lo, hi])
        }
    };
    if limits.is_some() && matches!(kind, Kind::Fixed | Kind::Rope) {
        return Err(refuse!(
            "{place} is a {} joint, which takes no limits (revolute and prismatic joints do)",
            if kind == Kind::Fixed { "fixed" } else { "rope" }
        ));
    }
    let length = number_or(&fields, "length", 0.0, place)?;
    if !(0.0..=MAX_SIZE).contains(&length) {
        return Err(refuse!(
            "{place}.length is {}; it is from 0 to {MAX_SIZE} (P4)",
            Number(length)
        ));
    }
    if kind == Kind::Rope && fields.get("length").is_nil() {
        return Err(refuse!(
            "{place} is a rope with no length (the most its anchors may be apart)"
        ));
    }
    Ok(Joint {
        kind,
        a,
        b,
        anchor_a: point("anchor_a", [0.0; N])?,
        anchor_b: point("anchor_b", [0.0; N])?,
        axis,
        limits,
        length,
        collide: flag(&fields, "collide", place)?,
    })
}
