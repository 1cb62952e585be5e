//! Reading a 3D world table and a tick's commands (P10), counted and
//! checked as a 2D world's are (P4): every refusal names its place.

use mlua::{Table, Value};

use super::super::body::{Kind, Props, each_body, each_command, kind, props, read_world};
use super::super::contacts::Touching;
use super::super::crowd::Reach;
use super::super::fields::{
    Fields, Id, MAX_COORDINATE, MAX_SIZE, finite_number, joined, number_or, point, shown,
};
use super::super::joints::Joint;
use super::super::read::MAX_COMMANDS;
use super::super::walk;
use crate::Refusal;
use crate::terminal::Number;

/// A body's shape, in the world's units, about its position.
#[derive(Debug, Clone, PartialEq)]
pub enum Shape {
    Ball {
        radius: f64,
    },
    Cuboid {
        size: [f64; 3],
    },
    /// Upright (along y): two half balls `length` apart.
    Capsule {
        radius: f64,
        length: f64,
    },
    /// Upright (along y).
    Cylinder {
        radius: f64,
        height: f64,
    },
}

impl Shape {
    /// The radius of the ball about the body's position that holds it.
    pub fn reach(&self) -> f64 {
        match *self {
            Shape::Ball { radius } => radius,
            Shape::Cuboid { size: [w, h, d] } => 0.5 * (w * w + h * h + d * d).sqrt(),
            Shape::Capsule { radius, length } => radius + 0.5 * length,
            Shape::Cylinder { radius, height } => radius.hypot(0.5 * height),
        }
    }
}

/// Where a body is and how it moves: position, rotation (a unit
/// quaternion x, y, z, w), velocity and spin (radians a second about
/// each axis).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Motion {
    pub at: [f64; 3],
    pub rotation: [f64; 4],
    pub velocity: [f64; 3],
    pub spin: [f64; 3],
}

/// The rotation of a body that was given none.
pub const UPRIGHT: [f64; 4] = [0.0, 0.0, 0.0, 1.0];

/// One body as read.
#[derive(Debug, Clone, PartialEq)]
pub struct Body {
    pub id: Value,
    pub key: Id,
    /// Its `grounded`, which a step writes where it walked (P7).
    pub grounded: Option<bool>,
    pub kind: Kind,
    pub motion: Motion,
    pub shape: Shape,
    /// What it is made of and how it behaves, beyond its shape and motion.
    pub props: Props,
}

/// A 3D world as read: bodies in id order.
#[derive(Debug, Clone, PartialEq)]
pub struct World {
    pub bodies: Vec<Body>,
    pub gravity: [f64; 3],
    /// The world's units to a meter: what rapier's tolerances are sized to.
    pub scale: f64,
    pub steps: f64,
    pub touching: Touching,
    /// Joints in id order (P6, in 3D).
    pub joints: Vec<Joint<3>>,
    pub ids: super::super::body::IdList,
}

impl World {
    /// What the crowding bound counts (P4).
    pub fn reaches(&self) -> Vec<Reach> {
        self.bodies
            .iter()
            .map(|b| Reach {
                at: b.motion.at,
                radius: b.shape.reach(),
                moves: b.kind == Kind::Dynamic,
            })
            .collect()
    }
}

/// What the game asks of one body before the step.
#[derive(Debug, Clone, Default)]
pub struct Command {
    pub body: usize,
    /// A change of velocity, whatever the mass.
    pub push: Option<[f64; 3]>,
    /// A change of momentum (mass times velocity).
    pub impulse: Option<[f64; 3]>,
    pub velocity: Option<[f64; 3]>,
    pub spin: Option<[f64; 3]>,
    pub position: Option<[f64; 3]>,
    pub rotation: Option<[f64; 4]>,
    /// A point the body is pulled to this step (a mouse joint, as in 2D),
    /// and in how many seconds it would get there (0.1 unless given).
    pub drag: Option<[f64; 3]>,
    pub drag_time: Option<f64>,
    /// A character's walk this step (P7).
    pub walk: Option<[f64; 3]>,
    pub gait: crate::physics::walk::Gait,
}

const WORLD_FIELDS: &[&str] = &[
    "dimensions",
    "gravity",
    "scale",
    "bodies",
    "joints",
    "touching",
    "events",
    "steps",
];
const BODY_FIELDS: &[&str] = &[
    "kind",
    "x",
    "y",
    "z",
    "rotation",
    "vx",
    "vy",
    "vz",
    "spin",
    "shape",
    "density",
    "friction",
    "restitution",
    "sensor",
    "bullet",
    "fixed_rotation",
    "damping",
    "angular_damping",
    "gravity_scale",
    "group",
    "mask",
    "data",
    "grounded",
];
const SHAPE_FIELDS: &[&str] = &["kind", "radius", "width", "height", "depth", "length"];
const COMMAND_FIELDS: &[&str] = &[
    "id",
    "push",
    "impulse",
    "velocity",
    "spin",
    "position",
    "rotation",
    "drag",
    "drag_time",
    "walk",
    "slope",
    "stairs",
];

/// Reads `table` as a 3D world.
///
/// # Errors
/// One line naming the first field that is missing, of the wrong type,
/// out of bounds or unknown.
pub fn world(table: &Table) -> Result<World, Refusal> {
    let gravity = |value: Value| match value {
        Value::Nil => Ok([0.0; 3]),
        value => far_point(&value, "gravity"),
    };
    let whole = read_world(
        table,
        WORLD_FIELDS,
        (1.0, "the world's units"),
        gravity,
        (read_bodies, |b: &Body| &b.key),
    )?;
    Ok(World {
        bodies: whole.bodies,
        gravity: whole.gravity,
        scale: whole.scale,
        steps: whole.steps,
        touching: whole.touching,
        joints: whole.joints,
        ids: Default::default(),
    })
}

/// A point whose coordinates are each within [`MAX_COORDINATE`] of 0.
fn far_point(value: &Value, place: &str) -> Result<[f64; 3], Refusal> {
    let p = point::<3>(value, || place.to_string())?;
    if p.iter().any(|c| c.abs() > MAX_COORDINATE) {
        return Err(refuse!(
            "{place} is farther than {MAX_COORDINATE} from 0 (P4)"
        ));
    }
    Ok(p)
}

/// A rotation: a quaternion `{ x, y, z, w }` of any length but 0, made
/// a unit one.
fn rotation(value: &Value, place: &str) -> Result<[f64; 4], Refusal> {
    unit(point::<4>(value, || place.to_string())?).ok_or_else(|| {
        refuse!(
            "{place} is no rotation: a quaternion {{ x, y, z, w }} of length 0 (the rotation \
             that turns nothing is {{ x = 0, y = 0, z = 0, w = 1 }})"
        )
    })
}

/// `q` made a unit quaternion, as a rotation is read; `None` for length 0.
pub fn unit(q: [f64; 4]) -> Option<[f64; 4]> {
    // Scaled by its largest part first, so no square overflows or
    // vanishes: { 1e300, 1e300, 0, 0 } turns as { 1, 1, 0, 0 } does.
    let largest = q.iter().fold(0.0f64, |m, c| m.max(c.abs()));
    let q = q.map(|c| c / largest);
    let length = q.iter().map(|c| c * c).sum::<f64>().sqrt();
    (largest > 0.0 && length.is_finite()).then(|| q.map(|c| c / length))
}

fn read_bodies(table: &Table) -> Result<Vec<Body>, Refusal> {
    each_body(table, |b: &Body| &b.key, read_body)
}

fn read_body(id: Value, key: Id, table: Table, place: &str) -> Result<Body, Refusal> {
    let fields = Fields::read(&table, BODY_FIELDS, place, "; your own values go in data")?;
    let at = |field: &str| format!("{place}.{field}");
    let kind = kind(&fields, place)?;
    let coordinate = |field: &str| -> Result<f64, Refusal> {
        let v = number_or(&fields, field, 0.0, place)?;
        if v.abs() > MAX_COORDINATE {
            return Err(refuse!(
                "{} is {}, farther than {MAX_COORDINATE} from 0 (P4)",
                at(field),
                Number(v)
            ));
        }
        Ok(v)
    };
    let motion = Motion {
        at: [coordinate("x")?, coordinate("y")?, coordinate("z")?],
        rotation: match fields.get("rotation") {
            Value::Nil => UPRIGHT,
            value => rotation(&value, &at("rotation"))?,
        },
        velocity: [coordinate("vx")?, coordinate("vy")?, coordinate("vz")?],
        spin: match fields.get("spin") {
            Value::Nil => [0.0; 3],
            value => far_point(&value, &at("spin"))?,
        },
    };
    let shape = match fields.get("shape") {
        Value::Table(table) => shape(&table, &at("shape"))?,
        other => {
            return Err(refuse!(
                "{} is a {}; a body in 3D has a shape (physics.ball, cuboid, capsule or cylinder)",
                at("shape"),
                crate::state::type_of(&other)
            ));
        }
    };
    Ok(Body {
        props: props(&fields, place)?,
        grounded: super::super::body::grounded(&fields, place)?,
        id,
        key,
        kind,
        motion,
        shape,
    })
}

/// Reads `table` (at `place`) as a 3D shape.
///
/// # Errors
/// One line naming what is wrong with it.
pub fn shape(table: &Table, place: &str) -> Result<Shape, Refusal> {
    let table = &Fields::read(table, SHAPE_FIELDS, place, "")?;
    let size = |field: &str| -> Result<f64, Refusal> {
        let v = match table.get(field) {
            Value::Nil => return Err(refuse!("{} is missing", joined(place, field))),
            value => finite_number(&value, &joined(place, field))?,
        };
        if !(v > 0.0 && v <= MAX_SIZE) {
            return Err(refuse!(
                "{} is {}; a size is more than 0 and at most {MAX_SIZE} (P4)",
                joined(place, field),
                Number(v)
            ));
        }
        Ok(v)
    };
    let kind = match table.get("kind") {
        Value::String(s) => s.to_string_lossy(),
        other => {
            return Err(refuse!(
                "{place}.kind is a {}; physics.ball, cuboid, capsule and cylinder make shapes",
                crate::state::type_of(&other)
            ));
        }
    };
    Ok(match kind.as_str() {
        "ball" => Shape::Ball {
            radius: size("radius")?,
        },
        "cuboid" => Shape::Cuboid {
            size: [size("width")?, size("height")?, size("depth")?],
        },
        "capsule" => Shape::Capsule {
            radius: size("radius")?,
            length: match table.get("length") {
                Value::Nil => 0.0,
                _ => size("length")?,
            },
        },
        "cylinder" => Shape::Cylinder {
            radius: size("radius")?,
            height: size("height")?,
        },
        flat @ ("circle" | "box" | "polygon" | "polyline") => {
            return Err(refuse!(
                "{place} is a {flat}, a 2D shape; a body of a 3D world is a ball, cuboid, \
                 capsule or cylinder"
            ));
        }
        other => {
            return Err(refuse!(
                "{place}.kind is \"{}\"; a shape in 3D is a ball, cuboid, capsule or cylinder",
                moonloop_door::escape(other)
            ));
        }
    })
}

/// Reads a tick's commands for a 3D world.
///
/// # Errors
/// As [`world`], for the commands.
pub fn commands(value: &Value, world: &World) -> Result<Vec<Command>, Refusal> {
    let keys = world.bodies.iter().map(|b| &b.key);
    each_command(
        value,
        keys,
        (COMMAND_FIELDS, MAX_COMMANDS),
        |command, body, place, id| {
            let vector = |field: &str| -> Result<Option<[f64; 3]>, Refusal> {
                match command.get(field) {
                    Value::Nil => Ok(None),
                    value => far_point(&value, &format!("{place}.{field}")).map(Some),
                }
            };
            let walk = vector("walk")?;
            let drag_time = match command.get("drag_time") {
                Value::Nil => None,
                value => {
                    let time = finite_number(&value, &format!("{place}.drag_time"))?;
                    if time <= 0.0 {
                        return Err(refuse!("{place}.drag_time is in seconds, above 0 (P4)"));
                    }
                    if time > MAX_COORDINATE {
                        return Err(refuse!(
                            "{place}.drag_time is {}, beyond {MAX_COORDINATE} (P4)",
                            Number(time)
                        ));
                    }
                    Some(time)
                }
            };
            let kinematic = world.bodies[body].kind == Kind::Kinematic;
            let gait = walk::gait(command, place, walk.is_some(), kinematic, &shown(id))?;
            Ok(Command {
                body,
                walk,
                gait,
                push: vector("push")?,
                impulse: vector("impulse")?,
                velocity: vector("velocity")?,
                spin: vector("spin")?,
                position: vector("position")?,
                rotation: match command.get("rotation") {
                    Value::Nil => None,
                    value => Some(rotation(&value, &format!("{place}.rotation"))?),
                },
                drag: vector("drag")?,
                drag_time,
            })
        },
    )
}
