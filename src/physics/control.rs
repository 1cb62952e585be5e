//! Moving shapes through a built world without stepping it: a shape cast
//! (P5) and a character walking (P7, written once for 2D and 3D in
//! physics/walk.rs).

use crate::Refusal;
use rapier2d::parry::query::details::ShapeCastOptions;
use rapier2d::prelude::*;

use super::read::Shape;

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

super::walk::walker!(rapier2d, 2);
