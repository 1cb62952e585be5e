//! What every body has, in a 2D world or a 3D one (P1, P4, P10): how it
//! moves (`kind`), what it is made of and how it behaves (its props), and
//! the walk over a world's `bodies` table that counts them and checks
//! each id before a body is read.

use mlua::{Table, Value};

use super::fields::{
    Fields, Id, MAX_ID, MAX_SIZE, flag, id_of, joined, number_or, place_of, shown, text,
};
use crate::Refusal;
use crate::terminal::Number;

/// The most bodies one world holds.
pub const MAX_BODIES: usize = 10_000;

/// A world's ids in body order as a Luau list, made for the world a step
/// writes and kept with its read, so one Luau call can write every moved
/// body (`write::Moved`). Not part of what a world reads as: two reads
/// of a world are equal whether or not one has its list.
#[derive(Debug, Clone, Default)]
pub struct IdList(pub Option<Table>);

impl PartialEq for IdList {
    fn eq(&self, _: &IdList) -> bool {
        true
    }
}

/// A body's `grounded`, written by a step in which it walked (P7): nil,
/// true or false.
pub(super) fn grounded(fields: &Fields<'_>, place: &str) -> Result<Option<bool>, Refusal> {
    match fields.get("grounded") {
        Value::Nil => Ok(None),
        Value::Boolean(on) => Ok(Some(on)),
        other => Err(refuse!(
            "{} is a {}, not true or false (a step writes it)",
            joined(place, "grounded"),
            crate::state::type_of(&other)
        )),
    }
}

/// How a body moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Moved by forces, contacts and gravity.
    Dynamic,
    /// Moved only by its velocity, which the game sets; pushes dynamic
    /// bodies, is never pushed.
    Kinematic,
    /// Never moves.
    Fixed,
}

/// What a body is made of and how it behaves, the same in 2D and 3D:
/// the fields every body may have beside its kind, shape and motion.
#[derive(Debug, Clone, PartialEq)]
pub struct Props {
    pub density: f64,
    pub friction: f64,
    pub restitution: f64,
    pub sensor: bool,
    pub bullet: bool,
    pub fixed_rotation: bool,
    pub damping: f64,
    pub angular_damping: f64,
    pub gravity_scale: f64,
    pub group: u32,
    pub mask: u32,
}

/// Reads each entry of a world's `bodies` table with `read` (given the
/// id, its key, the body's table and its place), counting them (P4), and
/// returns them in id order: 2D and 3D bodies alike.
///
/// # Errors
/// Too many bodies, an id that is not one, a body that is not a table, or
/// what `read` refuses.
pub(super) fn each_body<B>(
    table: &Table,
    key: impl Fn(&B) -> &Id,
    mut read: impl FnMut(Value, Id, Table, &str) -> Result<B, Refusal>,
) -> Result<Vec<B>, Refusal> {
    let mut bodies = Vec::new();
    for entry in table.pairs::<Value, Value>() {
        let (id, body) = entry.map_err(text)?;
        if bodies.len() == MAX_BODIES {
            return Err(refuse!("the world has more than {MAX_BODIES} bodies (P4)"));
        }
        let Some(k) = id_of(&id) else {
            return Err(refuse!(
                "a body's id is a whole number or a string of at most {MAX_ID} bytes, not {}",
                shown(&id)
            ));
        };
        let place = format!("bodies{}", place_of(&id));
        let Value::Table(body) = body else {
            return Err(refuse!(
                "{place} is a {}; a body is a table (physics.body makes one)",
                crate::state::type_of(&body)
            ));
        };
        bodies.push(read(id, k, body, &place)?);
    }
    bodies.sort_by(|a, b| key(a).cmp(key(b)));
    Ok(bodies)
}

/// What a world holds beside its bodies' own fields, read alike in 2D
/// and 3D.
pub(super) struct Whole<B, const N: usize> {
    pub gravity: [f64; N],
    pub scale: f64,
    pub steps: f64,
    pub bodies: Vec<B>,
    pub touching: super::contacts::Touching,
    pub joints: Vec<super::joints::Joint<N>>,
}

/// Reads a world's table of `fields`, in 2D or 3D: its `gravity` with
/// `gravity` (given the field, nil where it is not set), its `scale`
/// (`default` unless given, in `unit` to a meter), `steps`, its `bodies`
/// with `bodies` (each with its key by `key`), and the pairs touching and
/// the joints between them.
///
/// # Errors
/// One line naming the first field that is missing, of the wrong type,
/// out of bounds or unknown.
pub(super) fn read_world<B, const N: usize>(
    table: &Table,
    fields: &[&str],
    (default, unit): (f64, &str),
    gravity: impl FnOnce(Value) -> Result<[f64; N], Refusal>,
    (bodies, key): (
        impl FnOnce(&Table) -> Result<Vec<B>, Refusal>,
        impl Fn(&B) -> &Id,
    ),
) -> Result<Whole<B, N>, Refusal> {
    let table = &Fields::read(table, fields, "", "")?;
    let gravity = gravity(table.get("gravity"))?;
    let scale = number_or(table, "scale", default, "")?;
    if !(1e-3..=1e6).contains(&scale) {
        return Err(refuse!(
            "scale is {}; it is {unit} to a meter, from 0.001 to 1000000 (P4)",
            Number(scale)
        ));
    }
    let steps = number_or(table, "steps", 0.0, "")?;
    let bodies = match table.get("bodies") {
        Value::Table(list) => bodies(&list)?,
        Value::Nil => Vec::new(),
        other => {
            return Err(refuse!(
                "bodies is a table of bodies by id, not a {}",
                crate::state::type_of(&other)
            ));
        }
    };
    let index: std::collections::HashMap<&Id, usize> = bodies
        .iter()
        .enumerate()
        .map(|(i, b)| (key(b), i))
        .collect();
    let touching = super::contacts::read(&table.get("touching"), &index)?;
    let joints = super::joints::read(&table.get("joints"), &index)?;
    Ok(Whole {
        gravity,
        scale,
        steps,
        bodies,
        touching,
        joints,
    })
}

/// Reads a tick's commands, a list of `{ id = ..., push = ..., ... }`,
/// in 2D or 3D: each is checked to be a table of `fields` naming one of
/// the world's bodies (whose keys `keys` lists in body order), then read
/// by `read` (given its fields, the body's index, its place and its id).
///
/// # Errors
/// Not a list of tables, more than `most` of them, a field not in
/// `fields`, an id that names no body, or what `read` refuses.
pub(super) fn each_command<'a, C>(
    value: &Value,
    keys: impl Iterator<Item = &'a Id>,
    (fields, most): (&[&str], usize),
    mut read: impl FnMut(&Fields<'_>, usize, &str, &Value) -> Result<C, Refusal>,
) -> Result<Vec<C>, Refusal> {
    let list = match value {
        Value::Nil => return Ok(Vec::new()),
        Value::Table(list) => list,
        other => {
            return Err(refuse!(
                "the commands are a list of tables, not a {}",
                crate::state::type_of(other)
            ));
        }
    };
    let n = list.raw_len();
    if n > most {
        return Err(refuse!("more than {most} commands in one step (P4)"));
    }
    let index: std::collections::HashMap<&Id, usize> =
        keys.enumerate().map(|(i, key)| (key, i)).collect();
    let mut out = Vec::with_capacity(n);
    for i in 1..=n {
        let place = format!("commands[{i}]");
        let Value::Table(command) = list.raw_get::<Value>(i).map_err(text)? else {
            return Err(refuse!("{place} is not a table {{ id = ..., push = ... }}"));
        };
        let command = Fields::read(&command, fields, &place, "")?;
        let id: Value = command.get("id");
        let Some(body) = id_of(&id).and_then(|k| index.get(&k).copied()) else {
            return Err(refuse!(
                "{place}.id is {}, which names no body of the world",
                shown(&id)
            ));
        };
        out.push(read(&command, body, &place, &id)?);
    }
    Ok(out)
}

/// A body's `kind` (dynamic unless given), in 2D or 3D.
pub(super) fn kind(fields: &Fields<'_>, place: &str) -> Result<Kind, Refusal> {
    Ok(match fields.get("kind") {
        Value::Nil => Kind::Dynamic,
        Value::String(s) => match &*s.as_bytes() {
            b"dynamic" => Kind::Dynamic,
            b"kinematic" => Kind::Kinematic,
            b"fixed" => Kind::Fixed,
            _ => {
                return Err(refuse!(
                    "{} is \"{}\"; a body is \"dynamic\", \"kinematic\" or \"fixed\"",
                    joined(place, "kind"),
                    moonloop_door::escape(&s.to_string_lossy())
                ));
            }
        },
        other => {
            return Err(refuse!(
                "{} is a {}; it is \"dynamic\", \"kinematic\" or \"fixed\"",
                joined(place, "kind"),
                crate::state::type_of(&other)
            ));
        }
    })
}

/// A body's [`Props`], each within its bounds (P4).
pub(super) fn props(fields: &Fields<'_>, place: &str) -> Result<Props, Refusal> {
    let within = |field: &str, default: f64, lo: f64, hi: f64| {
        within(fields, place, field, default, [lo, hi])
    };
    let group = |field: &str, default: f64| -> Result<u32, Refusal> {
        let v = within(field, default, 0.0, u32::MAX as f64)?;
        if v.fract() != 0.0 {
            return Err(refuse!(
                "{} is {}; groups are whole numbers (bits)",
                joined(place, field),
                Number(v)
            ));
        }
        Ok(v as u32)
    };
    Ok(Props {
        density: within("density", 1.0, 0.0, MAX_SIZE)?,
        friction: within("friction", 0.5, 0.0, 1000.0)?,
        restitution: within("restitution", 0.0, 0.0, 1000.0)?,
        sensor: flag(fields, "sensor", place)?,
        bullet: flag(fields, "bullet", place)?,
        fixed_rotation: flag(fields, "fixed_rotation", place)?,
        damping: within("damping", 0.0, 0.0, MAX_SIZE)?,
        angular_damping: within("angular_damping", 0.0, 0.0, MAX_SIZE)?,
        gravity_scale: within("gravity_scale", 1.0, -MAX_SIZE, MAX_SIZE)?,
        group: group("group", 1.0)?,
        mask: group("mask", u32::MAX as f64)?,
    })
}

/// A body's number `field` from `lo` to `hi`, or `default`.
pub(super) fn within(
    fields: &Fields<'_>,
    place: &str,
    field: &str,
    default: f64,
    [lo, hi]: [f64; 2],
) -> Result<f64, Refusal> {
    let v = number_or(fields, field, default, place)?;
    if !(lo..=hi).contains(&v) {
        return Err(refuse!(
            "{} is {}; it is from {} to {} (P4)",
            joined(place, field),
            Number(v),
            Number(lo),
            Number(hi)
        ));
    }
    Ok(v)
}
