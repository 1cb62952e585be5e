//! Reading a world table and a tick's commands into plain Rust values,
//! counting and checking as it goes (P4): every refusal names the place
//! in the world (`bodies.ball.shape.radius is -2`) before anything is
//! built from it.

use crate::Refusal;
use crate::terminal::Number;

use mlua::{Table, Value};

pub use super::body::{Kind, MAX_BODIES, Props};
use super::body::{each_body, each_command, kind, props, read_world};
pub use super::fields::Id;
use super::fields::{Fields, finite_number, joined, number_at, number_or, pair, shown, text};

/// The most points one polygon or polyline has.
pub const MAX_POINTS: usize = 1024;

/// The most points all the shapes of one world have together.
pub const MAX_WORLD_POINTS: usize = 100_000;

/// The most commands one step takes.
pub const MAX_COMMANDS: usize = 10_000;

pub use super::fields::{MAX_COORDINATE, MAX_SIZE};

/// A body's shape, in pixels, around its position.
#[derive(Debug, Clone, PartialEq)]
pub enum Shape {
    Circle {
        radius: f64,
    },
    Box {
        width: f64,
        height: f64,
    },
    /// Upright: two half circles `length` apart.
    Capsule {
        radius: f64,
        length: f64,
    },
    /// Convex: the hull of its points.
    Polygon(Vec<[f64; 2]>),
    /// An open chain of segments (ground, tile edges); for fixed and
    /// kinematic bodies.
    Polyline(Vec<[f64; 2]>),
}

/// One body as read.
#[derive(Debug, Clone, PartialEq)]
pub struct Body {
    pub id: Value,
    pub key: Id,
    /// Its `grounded`, which a step writes where it walked (P7).
    pub grounded: Option<bool>,
    pub kind: Kind,
    /// x, y, angle, vx, vy, spin.
    pub motion: [f64; 6],
    pub shape: Shape,
    /// What it is made of and how it behaves, beyond its shape and motion.
    pub props: Props,
}

/// A world as read: bodies in id order.
#[derive(Debug, Clone, PartialEq)]
pub struct World {
    pub bodies: Vec<Body>,
    pub gravity: [f64; 2],
    /// Pixels to a meter: the size rapier's tolerances are scaled to.
    pub scale: f64,
    pub steps: f64,
    /// Pairs touching after the last step.
    pub touching: super::contacts::Touching,
    /// Joints in id order (P6).
    pub joints: Vec<super::joints::Joint>,
    pub ids: super::body::IdList,
}

/// What the game asks of one body before the step.
#[derive(Debug, Clone, Default)]
pub struct Command {
    pub body: usize,
    /// A change of velocity, whatever the mass (px/s).
    pub push: Option<[f64; 2]>,
    /// A change of momentum (mass times px/s).
    pub impulse: Option<[f64; 2]>,
    pub velocity: Option<[f64; 2]>,
    pub spin: Option<f64>,
    pub position: Option<[f64; 2]>,
    /// The angle to set, in radians.
    pub rotation: Option<f64>,
    /// A point the body is pulled to this step (a mouse joint), and in
    /// how many seconds it would get there (0.1 unless given).
    pub drag: Option<[f64; 2]>,
    pub drag_time: Option<f64>,
    /// A character's walk this step, in pixels (P7).
    pub walk: Option<[f64; 2]>,
    pub gait: super::walk::Gait,
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
    "angle",
    "vx",
    "vy",
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
const SHAPE_FIELDS: &[&str] = &["kind", "radius", "width", "height", "length", "points"];
const COMMAND_FIELDS: &[&str] = &[
    "id",
    "push",
    "impulse",
    "velocity",
    "spin",
    "position",
    "angle",
    "walk",
    "slope",
    "stairs",
    "drag",
    "drag_time",
];

/// Reads `table` as a world.
///
/// # Errors
/// One line naming the first field that is missing, of the wrong type,
/// out of bounds or unknown.
pub fn world(table: &Table) -> Result<World, Refusal> {
    let gravity = |value: Value| -> Result<[f64; 2], Refusal> {
        let gravity = match value {
            Value::Nil => [0.0, 0.0],
            value => pair(&value, || "gravity".to_string())?,
        };
        for (axis, g) in ["x", "y"].iter().zip(gravity) {
            if g.abs() > MAX_COORDINATE {
                return Err(refuse!(
                    "gravity.{axis} is {}, farther than {MAX_COORDINATE} from 0 (P4)",
                    Number(g)
                ));
            }
        }
        Ok(gravity)
    };
    let whole = read_world(
        table,
        WORLD_FIELDS,
        (50.0, "pixels"),
        gravity,
        (read_bodies, |b: &Body| &b.key),
    )?;
    Ok(World {
        joints: whole.joints,
        bodies: whole.bodies,
        gravity: whole.gravity,
        scale: whole.scale,
        steps: whole.steps,
        touching: whole.touching,
        ids: Default::default(),
    })
}

fn read_bodies(table: &Table) -> Result<Vec<Body>, Refusal> {
    let mut points = 0;
    each_body(
        table,
        |b: &Body| &b.key,
        |id, key, body, place| {
            let read = read_body(id, key, body, place)?;
            points += match &read.shape {
                Shape::Polygon(p) | Shape::Polyline(p) => p.len(),
                _ => 0,
            };
            if points > MAX_WORLD_POINTS {
                return Err(refuse!(
                    "the world's shapes have more than {MAX_WORLD_POINTS} points (P4)"
                ));
            }
            Ok(read)
        },
    )
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
    let motion = [
        coordinate("x")?,
        coordinate("y")?,
        coordinate("angle")?,
        coordinate("vx")?,
        coordinate("vy")?,
        coordinate("spin")?,
    ];
    let shape = match fields.get("shape") {
        Value::Table(table) => shape(&table, &at("shape"))?,
        other => {
            return Err(refuse!(
                "{} is a {}; a body has a shape (physics.circle, box, capsule, polygon or polyline)",
                at("shape"),
                crate::state::type_of(&other)
            ));
        }
    };
    if matches!(shape, Shape::Polyline(_)) && kind == Kind::Dynamic {
        return Err(refuse!(
            "{place} is dynamic with a polyline; a polyline has no inside, so it is for fixed and \
             kinematic bodies (use a polygon)"
        ));
    }
    Ok(Body {
        props: props(&fields, place)?,
        grounded: super::body::grounded(&fields, place)?,
        id,
        key,
        kind,
        motion,
        shape,
    })
}

/// Reads `table` (at `place`) as a shape.
///
/// # Errors
/// One line naming what is wrong with it.
pub fn shape(table: &Table, place: &str) -> Result<Shape, Refusal> {
    let table = &Fields::read(table, SHAPE_FIELDS, place, "")?;
    let size = |field: &str| -> Result<f64, Refusal> {
        let v = match table.get(field) {
            Value::Nil => return Err(refuse!("{} is missing", joined(place, field))),
            Value::Number(n) if n.is_finite() => n,
            Value::Integer(n) => n as f64,
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
    let kind = table.get("kind");
    let kind = match &kind {
        Value::String(s) => s.to_string_lossy(),
        other => {
            return Err(refuse!(
                "{place}.kind is a {}; physics.circle, box, capsule, polygon and polyline make shapes",
                crate::state::type_of(other)
            ));
        }
    };
    Ok(match kind.as_str() {
        "circle" => Shape::Circle {
            radius: size("radius")?,
        },
        "box" => Shape::Box {
            width: size("width")?,
            height: size("height")?,
        },
        "capsule" => Shape::Capsule {
            radius: size("radius")?,
            length: match table.get("length") {
                Value::Nil => 0.0,
                _ => size("length")?,
            },
        },
        "polygon" => Shape::Polygon(points(table, place, 3)?),
        "polyline" => Shape::Polyline(points(table, place, 2)?),
        other => {
            return Err(refuse!(
                "{place}.kind is \"{}\"; a shape is a circle, box, capsule, polygon or polyline",
                moonloop_door::escape(other)
            ));
        }
    })
}

/// A shape's `points`: a flat list x1, y1, x2, y2, ...
fn points(table: &Fields<'_>, place: &str, least: usize) -> Result<Vec<[f64; 2]>, Refusal> {
    let at = format!("{place}.points");
    let Value::Table(list) = table.get("points") else {
        return Err(refuse!("{at} is a list of numbers x1, y1, x2, y2, ..."));
    };
    let n = list.raw_len();
    if n > 2 * MAX_POINTS {
        return Err(refuse!("{at} has more than {MAX_POINTS} points (P4)"));
    }
    if n % 2 != 0 || n < 2 * least {
        return Err(refuse!(
            "{at} has {n} numbers; it is pairs x, y, at least {least} of them"
        ));
    }
    let mut out = Vec::with_capacity(n / 2);
    for i in 0..n / 2 {
        let mut xy = [0.0; 2];
        for (j, v) in xy.iter_mut().enumerate() {
            let value: Value = list.raw_get(2 * i + j + 1).map_err(text)?;
            *v = number_at(&value, || format!("{at}[{}]", 2 * i + j + 1))?;
            if v.abs() > MAX_SIZE {
                return Err(refuse!(
                    "{at}[{}] is {}, farther than {MAX_SIZE} (P4)",
                    2 * i + j + 1,
                    Number(*v)
                ));
            }
        }
        out.push(xy);
    }
    Ok(out)
}

/// Reads a tick's commands: a list of `{ id = ..., push = {x, y}, ... }`.
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
            let vector = |field: &str| -> Result<Option<[f64; 2]>, Refusal> {
                match command.get(field) {
                    Value::Nil => Ok(None),
                    value => {
                        let v = pair(&value, || format!("{place}.{field}"))?;
                        if v.iter().any(|c| c.abs() > MAX_COORDINATE) {
                            return Err(refuse!(
                                "{place}.{field} is farther than {MAX_COORDINATE} (P4)"
                            ));
                        }
                        Ok(Some(v))
                    }
                }
            };
            let scalar = |field: &str| -> Result<Option<f64>, Refusal> {
                match command.get(field) {
                    Value::Nil => Ok(None),
                    value => {
                        let v = number_at(&value, || format!("{place}.{field}"))?;
                        if v.abs() > MAX_COORDINATE {
                            return Err(refuse!(
                                "{place}.{field} is {}, beyond {MAX_COORDINATE} (P4)",
                                Number(v)
                            ));
                        }
                        Ok(Some(v))
                    }
                }
            };
            let walk = vector("walk")?;
            let drag_time = scalar("drag_time")?;
            if drag_time.is_some_and(|t| t <= 0.0) {
                return Err(refuse!("{place}.drag_time is in seconds, above 0 (P4)"));
            }
            let kinematic = world.bodies[body].kind == Kind::Kinematic;
            let gait = super::walk::gait(command, place, walk.is_some(), kinematic, &shown(id))?;
            Ok(Command {
                walk,
                gait,
                body,
                push: vector("push")?,
                impulse: vector("impulse")?,
                velocity: vector("velocity")?,
                spin: scalar("spin")?,
                position: vector("position")?,
                rotation: scalar("angle")?,
                drag: vector("drag")?,
                drag_time,
            })
        },
    )
}
