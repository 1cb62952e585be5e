//! Moving shapes through a built world without stepping it: a shape cast
//! (P5) and a character walking (P7), which slides along walls, climbs
//! slopes up to its limit, steps up stairs and keeps to the ground, as
//! rapier's kinematic character controller does.

use crate::Refusal;
use rapier2d::control::KinematicCharacterController;
use rapier2d::parry::query::details::ShapeCastOptions;
use rapier2d::prelude::*;

use super::read::{Gait, Shape};

/// What a shape of ours is to rapier.
///
/// # Errors
/// A polygon whose points lie on one line (`place` names it).
pub fn shared(shape: &Shape, place: impl FnOnce() -> String) -> Result<SharedShape, Refusal> {
    let v = |p: &[f64; 2]| Vector::new(p[0] as f32, p[1] as f32);
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

/// Where a cast shape first touched a body.
#[derive(Debug)]
pub struct Touch {
    pub collider: ColliderHandle,
    /// Where the shape's centre is when it touches.
    pub at: [f64; 2],
    /// The surface's normal there, out of the body touched.
    pub normal: [f64; 2],
    pub fraction: f64,
}

/// Sweeps `shape` from `from` by `by` through `world` (whose broad phase
/// is up to date), passing through sensors and the body `ignore`.
pub fn cast(
    world: &PhysicsWorld,
    shape: &SharedShape,
    from: [f64; 2],
    by: [f64; 2],
    ignore: Option<RigidBodyHandle>,
) -> Option<Touch> {
    let mut filter = QueryFilter::default().exclude_sensors();
    if let Some(body) = ignore {
        filter = filter.exclude_rigid_body(body);
    }
    let pose = Pose::from_translation(Vector::new(from[0] as f32, from[1] as f32));
    let velocity = Vector::new(by[0] as f32, by[1] as f32);
    let options = ShapeCastOptions {
        max_time_of_impact: 1.0,
        target_distance: 0.0,
        stop_at_penetration: true,
        compute_impact_geometry_on_penetration: true,
    };
    let (collider, hit) = world.cast_shape(&pose, velocity, shape.as_ref(), options, filter)?;
    let fraction = f64::from(hit.time_of_impact);
    Some(Touch {
        collider,
        at: [from[0] + by[0] * fraction, from[1] + by[1] * fraction],
        normal: [f64::from(hit.normal1.x), f64::from(hit.normal1.y)],
        fraction,
    })
}

/// Where a walk took a character.
#[derive(Debug, Clone, Copy)]
pub struct Walked {
    /// The movement the world allowed, in pixels.
    pub by: [f64; 2],
    /// Whether it stands on something after it.
    pub grounded: bool,
}

/// Walks `body` (a kinematic body of `world`, whose broad phase is up to
/// date) by `want` pixels, with `up` pointing away from gravity. Stairs
/// are our own: rapier's autostep refuses to rise beside the very stair
/// that stopped the character (it lies within the controller's offset of
/// it), so a walk that was stopped short is tried again raised by the
/// stair's height, and kept when it gets farther.
pub fn walk(
    world: &PhysicsWorld,
    body: RigidBodyHandle,
    want: [f64; 2],
    gait: Gait,
    up: Vector,
    dt: f64,
) -> Walked {
    let rb = &world.bodies[body];
    let Some(&collider) = rb.colliders().first() else {
        return Walked {
            by: [0.0, 0.0],
            grounded: false,
        };
    };
    let shape = world.colliders[collider].shape();
    let controller = KinematicCharacterController {
        up,
        max_slope_climb_angle: gait.slope as f32,
        min_slope_slide_angle: gait.slope as f32,
        ..KinematicCharacterController::default()
    };
    let filter = QueryFilter::default()
        .exclude_sensors()
        .exclude_rigid_body(body);
    let queries = world.query_pipeline_with_filter(filter);
    let at = *rb.position();
    let go = |from: &Pose, by: Vector| {
        controller.move_shape(dt as f32, &queries, shape, from, by, |_| {})
    };
    let want = Vector::new(want[0] as f32, want[1] as f32);
    let first = go(&at, want);
    let mut moved = (first.translation, first.grounded);
    let across = want - up * want.dot(up);
    let got = first.translation - up * first.translation.dot(up);
    if gait.stairs > 0.0 && across.length() > 1e-4 && got.length() + 1e-3 < across.length() {
        let rise = go(&at, up * gait.stairs as f32).translation;
        let raised = Pose::from_parts(at.translation + rise, at.rotation);
        let over = go(&raised, across).translation;
        if over.length() > got.length() + 1e-3 {
            let moved_over = Pose::from_parts(raised.translation + over, at.rotation);
            let drop = rise.length() + (-want.dot(up)).max(0.0);
            let down = go(&moved_over, -up * drop);
            moved = (rise + over + down.translation, down.grounded);
        }
    }
    Walked {
        by: [f64::from(moved.0.x), f64::from(moved.0.y)],
        grounded: moved.1,
    }
}
