//! The bound on crowding (P4): a step works out contacts for every pair
//! of bodies whose boxes overlap, so ten thousand bodies dropped on one
//! spot would ask for fifty million pairs. Before a step, the pairs are
//! counted (sweep and prune over bounding squares, along the axis the
//! bodies spread most on) and a world with too many is refused by name.

use super::read::{Body, Kind, Shape};
use crate::Refusal;

/// The most pair tests the count itself makes.
const MAX_TESTS: u64 = 20_000_000;

/// Refuses `bodies` when more than `max` pairs that could touch overlap.
///
/// # Errors
/// Too many pairs, named with the rule.
pub fn bound(bodies: &[Body], max: usize) -> Result<(), Refusal> {
    let reach = |b: &Body| -> f64 {
        let extent = match &b.shape {
            Shape::Circle { radius } => *radius,
            Shape::Box { width, height } => 0.5 * width.hypot(*height),
            Shape::Capsule { radius, length } => radius + 0.5 * length,
            Shape::Polygon(points) | Shape::Polyline(points) => {
                points.iter().map(|p| p[0].hypot(p[1])).fold(0.0, f64::max)
            }
        };
        // Contacts are looked for a little before bodies touch.
        extent + 1.0
    };
    let spread = |axis: usize| {
        let (lo, hi) = bodies.iter().fold((f64::MAX, f64::MIN), |(lo, hi), b| {
            (lo.min(b.motion[axis]), hi.max(b.motion[axis]))
        });
        hi - lo
    };
    let axis = if spread(0) >= spread(1) { 0 } else { 1 };
    let mut boxes: Vec<([f64; 4], bool)> = bodies
        .iter()
        .map(|b| {
            let r = reach(b);
            let (x, y) = (b.motion[axis], b.motion[1 - axis]);
            ([x - r, x + r, y - r, y + r], b.kind == Kind::Dynamic)
        })
        .collect();
    boxes.sort_by(|a, b| a.0[0].total_cmp(&b.0[0]));
    let (mut pairs, mut tests) = (0usize, 0u64);
    for (i, (a, a_moves)) in boxes.iter().enumerate() {
        for (b, b_moves) in &boxes[i + 1..] {
            if b[0] > a[1] {
                break;
            }
            tests += 1;
            // Bodies that never move never collide with each other.
            if (*a_moves || *b_moves) && b[2] <= a[3] && a[2] <= b[3] {
                pairs += 1;
            }
            if pairs > max || tests > MAX_TESTS {
                return Err(refuse!(
                    "more than {max} pairs of bodies overlap or nearly do; a world this \
                     crowded is refused (P4: spread the bodies out, or use fewer)"
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(x: f64, y: f64, kind: Kind) -> Body {
        let lua = mlua::Lua::new();
        Body {
            id: mlua::Value::Nil,
            key: super::super::read::Id::Number(0),
            table: lua.create_table().unwrap(),
            kind,
            motion: [x, y, 0.0, 0.0, 0.0, 0.0],
            shape: Shape::Circle { radius: 4.0 },
            density: 1.0,
            friction: 0.5,
            restitution: 0.0,
            sensor: false,
            bullet: false,
            fixed_rotation: false,
            damping: 0.0,
            angular_damping: 0.0,
            gravity_scale: 1.0,
            group: 1,
            mask: u32::MAX,
        }
    }

    // rule: P4
    #[test]
    fn a_heap_of_bodies_on_one_spot_is_refused_and_a_spread_one_is_not() {
        let heap: Vec<Body> = (0..500).map(|_| body(0.0, 0.0, Kind::Dynamic)).collect();
        let err = bound(&heap, 1000).unwrap_err();
        assert!(err.contains("more than 1000 pairs"), "{err}");
        let row: Vec<Body> = (0..500)
            .map(|i| body(f64::from(i) * 20.0, 0.0, Kind::Dynamic))
            .collect();
        bound(&row, 1000).unwrap();
        // A column is swept along its own axis.
        let column: Vec<Body> = (0..500)
            .map(|i| body(0.0, f64::from(i) * 20.0, Kind::Dynamic))
            .collect();
        bound(&column, 1000).unwrap();
        // Fixed tiles overlapping one another never make contacts.
        let tiles: Vec<Body> = (0..500).map(|_| body(0.0, 0.0, Kind::Fixed)).collect();
        bound(&tiles, 1000).unwrap();
    }
}
