//! What makes a world three-dimensional to the code written once for
//! both (physics/simulate.rs, compiled here against rapier3d): vectors
//! and rotations (unit quaternions), the numbers of a body's motion,
//! shapes, and the walk (P7) and contact events (P2) made for rapier3d.
//! physics/dim.rs is the 2D half of the pair.

use rapier::prelude::*;
pub use rapier3d as rapier;

pub use super::read::Motion;
use super::read::Shape;
use crate::Refusal;

/// The world's dimensions.
pub const N: usize = 3;

/// A point or a direction in the world.
pub type Point = [f64; 3];

/// How many numbers a body's motion is read back from rapier as.
pub const MOTION: usize = 13;

/// The field each of those numbers is written to, as an error names it.
pub const MOTION_FIELDS: [&str; MOTION] = [
    "x", "y", "z", "rotation", "rotation", "rotation", "rotation", "vx", "vy", "vz", "spin",
    "spin", "spin",
];

/// Up for a character where nothing falls: a scene's y grows upwards.
pub const UP: Vector = Vector::Y;

/// A point as rapier's vector.
pub fn v([x, y, z]: Point) -> Vector {
    Vector::new(x as f32, y as f32, z as f32)
}

/// Rapier's vector as a point.
pub fn point(v: Vector) -> Point {
    [v.x, v.y, v.z].map(f64::from)
}

/// A rotation (a quaternion x, y, z, w) as rapier's, made a unit.
pub fn rotation([x, y, z, w]: [f64; 4]) -> Rotation {
    Rotation::from_xyzw(x as f32, y as f32, z as f32, w as f32).normalize()
}

/// A spin (radians a second about each axis) as rapier's angular
/// velocity.
pub fn spin(spin: [f64; 3]) -> Vector {
    v(spin)
}

/// `builder` placed and moving as `motion` says.
pub fn placed(builder: RigidBodyBuilder, m: &Motion) -> RigidBodyBuilder {
    builder
        .pose(Pose::from_parts(v(m.at), rotation(m.rotation)))
        .linvel(v(m.velocity))
        .angvel(v(m.spin))
}

/// A body's motion as rapier has it after a step, in [`MOTION_FIELDS`]'
/// order.
pub fn motion_of(rb: &RigidBody) -> [f32; MOTION] {
    let (t, r, l, a) = (rb.translation(), rb.rotation(), rb.linvel(), rb.angvel());
    [
        t.x, t.y, t.z, r.x, r.y, r.z, r.w, l.x, l.y, l.z, a.x, a.y, a.z,
    ]
}

/// The motion a body is written with after a step: rapier's `out`, but
/// the author's own number wherever single precision did not change it
/// (a body at rest keeps its table); a character that `walked` moved
/// this step only, and stands still after it.
pub fn kept(m: &Motion, out: [f32; MOTION], walked: bool) -> Motion {
    let keep = |mine: f64, new: f32| {
        if (mine as f32) == new {
            mine
        } else {
            f64::from(new)
        }
    };
    let three = |mine: [f64; 3], new: &[f32]| {
        [
            keep(mine[0], new[0]),
            keep(mine[1], new[1]),
            keep(mine[2], new[2]),
        ]
    };
    Motion {
        at: three(m.at, &out[0..3]),
        rotation: [
            keep(m.rotation[0], out[3]),
            keep(m.rotation[1], out[4]),
            keep(m.rotation[2], out[5]),
            keep(m.rotation[3], out[6]),
        ],
        velocity: match walked {
            true => [0.0; 3],
            false => three(m.velocity, &out[7..10]),
        },
        spin: three(m.spin, &out[10..13]),
    }
}

/// What a shape of ours is to rapier; every 3D shape makes one.
///
/// # Errors
/// None (the 2D half refuses a polygon on one line).
pub fn shared(shape: &Shape, _place: impl FnOnce() -> String) -> Result<SharedShape, Refusal> {
    Ok(match *shape {
        Shape::Ball { radius } => SharedShape::ball(radius as f32),
        Shape::Cuboid { size: [w, h, d] } => {
            SharedShape::cuboid(0.5 * w as f32, 0.5 * h as f32, 0.5 * d as f32)
        }
        Shape::Capsule { radius, length } => {
            SharedShape::capsule_y(0.5 * length as f32, radius as f32)
        }
        Shape::Cylinder { radius, height } => {
            SharedShape::cylinder(0.5 * height as f32, radius as f32)
        }
    })
}

/// A revolute joint, turning about `axis`.
pub fn revolute(axis: Point) -> GenericJoint {
    RevoluteJointBuilder::new(v(axis).normalize())
        .build()
        .into()
}

crate::physics::walk::walker!(rapier3d, 3);
crate::physics::contacts::touch_changes!(rapier3d);
