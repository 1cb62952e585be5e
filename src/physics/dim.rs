//! What makes a world two-dimensional to the code written once for both:
//! physics/simulate.rs is compiled here against rapier2d, and again in
//! physics/three/ against rapier3d (as rapier builds its own two crates
//! from one source). This module is the 2D half of that pair: vectors
//! and angles, the numbers of a body's motion, shapes, joints, and the
//! walk (P7) and contact events (P2) made for rapier2d.

use rapier::prelude::*;
pub use rapier2d as rapier;

use super::read::Shape;
use crate::Refusal;

/// The world's dimensions.
pub const N: usize = 2;

/// A point or a direction in the world, in pixels.
pub type Point = [f64; 2];

/// A body's motion as a world table holds it: x, y, angle, vx, vy, spin.
pub type Motion = [f64; 6];

/// How many numbers a body's motion is read back from rapier as.
pub const MOTION: usize = 6;

/// The field each of those numbers is written to, as an error names it.
pub const MOTION_FIELDS: [&str; MOTION] = ["x", "y", "angle", "vx", "vy", "spin"];

/// Up for a character where nothing falls: screen y grows downwards.
pub const UP: Vector = Vector::NEG_Y;

/// A point as rapier's vector.
pub fn v([x, y]: Point) -> Vector {
    Vector::new(x as f32, y as f32)
}

/// Rapier's vector as a point.
pub fn point(v: Vector) -> Point {
    [f64::from(v.x), f64::from(v.y)]
}

/// An angle (radians) as rapier's rotation.
pub fn rotation(angle: f64) -> Rotation {
    Rotation::new(angle as f32)
}

/// A spin (radians a second) as rapier's angular velocity.
pub fn spin(spin: f64) -> f32 {
    spin as f32
}

/// `builder` placed and moving as `motion` says.
pub fn placed(builder: RigidBodyBuilder, motion: &Motion) -> RigidBodyBuilder {
    let [x, y, angle, vx, vy, spin] = *motion;
    builder
        .translation(v([x, y]))
        .rotation(angle as f32)
        .linvel(v([vx, vy]))
        .angvel(spin as f32)
}

/// A body's motion as rapier has it after a step, in [`MOTION_FIELDS`]'
/// order.
pub fn motion_of(rb: &RigidBody) -> [f32; MOTION] {
    let (t, l) = (rb.translation(), rb.linvel());
    [t.x, t.y, rb.rotation().angle(), l.x, l.y, rb.angvel()]
}

/// The motion a body is written with after a step: rapier's `out`, but
/// the author's own number wherever single precision did not change it
/// (a body at rest keeps its table); a character that `walked` moved
/// this step only, and stands still after it.
pub fn kept(mine: &Motion, mut out: [f32; MOTION], walked: bool) -> Motion {
    if walked {
        (out[3], out[4]) = (0.0, 0.0);
    }
    let mut motion = *mine;
    for (m, o) in motion.iter_mut().zip(out) {
        if (*m as f32) != o {
            *m = f64::from(o);
        }
    }
    motion
}

/// What a shape of ours is to rapier.
///
/// # Errors
/// A polygon whose points lie on one line (`place` names it).
pub fn shared(shape: &Shape, place: impl FnOnce() -> String) -> Result<SharedShape, Refusal> {
    let v = |p: &[f64; 2]| v(*p);
    Ok(match shape {
        Shape::Circle { radius } => SharedShape::ball(*radius as f32),
        Shape::Box { width, height } => {
            SharedShape::cuboid(0.5 * *width as f32, 0.5 * *height as f32)
        }
        Shape::Capsule { radius, length } => {
            SharedShape::capsule_y(0.5 * *length as f32, *radius as f32)
        }
        Shape::Polygon(points) => {
            let points: Vec<Vector> = points.iter().map(v).collect();
            // parry panics on points that all coincide, where it returns
            // None for points on one line: both are the author's polygon.
            crate::error::contain_panic(|| SharedShape::convex_hull(&points))
                .flatten()
                .ok_or_else(|| {
                    format!(
                        "{}'s points make no polygon (they lie on one line)",
                        place()
                    )
                })?
        }
        Shape::Polyline(points) => SharedShape::polyline(points.iter().map(v).collect(), None),
    })
}

/// A revolute joint: in 2D every one turns about the axis out of the
/// screen, so its `axis` says nothing.
pub fn revolute(_axis: Point) -> GenericJoint {
    RevoluteJointBuilder::new().build().into()
}

super::walk::walker!(rapier2d, 2);
super::contacts::touch_changes!(rapier2d);
