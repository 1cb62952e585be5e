//! The bound on crowding (P4): a step works out contacts for every pair
//! of bodies whose boxes overlap, so ten thousand bodies dropped on one
//! spot would ask for fifty million pairs. Before a step, the pairs are
//! counted (sweep and prune over bounding squares or cubes, along the axis the
//! bodies spread most on) and a world with too many is refused by name.

use super::read::{Body, Kind, Shape};
use crate::Refusal;

/// The most pair tests the count itself makes.
const MAX_TESTS: u64 = 20_000_000;

/// A body as the count sees it: the sphere (a circle in 2D, z = 0) that
/// holds its shape, and whether it can move.
#[derive(Debug, Clone, Copy)]
pub struct Reach {
    pub at: [f64; 3],
    pub radius: f64,
    pub moves: bool,
}

/// The reach of each body of a 2D world.
pub fn of_bodies(bodies: &[Body]) -> Vec<Reach> {
    bodies
        .iter()
        .map(|b| {
            let radius = match &b.shape {
                Shape::Circle { radius } => *radius,
                Shape::Box { width, height } => 0.5 * width.hypot(*height),
                Shape::Capsule { radius, length } => radius + 0.5 * length,
                Shape::Polygon(points) | Shape::Polyline(points) => {
                    points.iter().map(|p| p[0].hypot(p[1])).fold(0.0, f64::max)
                }
            };
            Reach {
                at: [b.motion[0], b.motion[1], 0.0],
                radius,
                moves: b.kind == Kind::Dynamic,
            }
        })
        .collect()
}

/// How far apart, in meters, bodies are counted as a pair: contacts are
/// looked for a little before bodies touch (a world's units to a meter
/// is its `scale`: 1 pixel of a 2D world at its 50, 2 cm of a 3D one).
const MARGIN: f64 = 0.02;

/// The bodies' boxes in the sweep's axes (the swept one first): each
/// side's lower and upper bounds, and whether each body moves.
struct Spans {
    sides: [(Vec<f32>, Vec<f32>); 3],
    moves: Vec<bool>,
}

fn crowded(max: usize) -> Refusal {
    refuse!(
        "more than {max} pairs of bodies overlap or nearly do; a world this crowded is \
         refused (P4: spread the bodies out, or use fewer)"
    )
}

/// Refuses a world whose bodies reach each other in more than `max`
/// pairs that could touch; `scale` is the world's units to a meter.
///
/// # Errors
/// Too many pairs, named with the rule.
pub fn bound(bodies: &[Reach], scale: f64, max: usize) -> Result<(), Refusal> {
    let spread = |axis: usize| {
        let (lo, hi) = bodies.iter().fold((f64::MAX, f64::MIN), |(lo, hi), b| {
            (lo.min(b.at[axis]), hi.max(b.at[axis]))
        });
        hi - lo
    };
    // Swept along the axis the bodies spread most on.
    let axis = (0..3)
        .max_by(|&a, &b| spread(a).total_cmp(&spread(b)))
        .unwrap_or(0);
    // Each body's box, in the order of where it begins along the sweep,
    // a list for each side (the count below then runs over slices, in
    // steps the processor takes several at a time). Single precision
    // is plenty for a bound.
    let mut order: Vec<(f32, usize)> = bodies
        .iter()
        .enumerate()
        .map(|(i, b)| ((b.at[axis] - b.radius - MARGIN * scale) as f32, i))
        .collect();
    order.sort_unstable_by(|a, b| a.0.total_cmp(&b.0));
    let n = bodies.len();
    let side = || (Vec::with_capacity(n), Vec::with_capacity(n));
    let mut spans = Spans {
        sides: [side(), side(), side()],
        moves: Vec::with_capacity(n),
    };
    for &(_, i) in &order {
        let b = &bodies[i];
        let r = b.radius + MARGIN * scale;
        let c = |k: usize| b.at[(axis + k) % 3];
        for (k, (lo, hi)) in spans.sides.iter_mut().enumerate() {
            lo.push((c(k) - r) as f32);
            hi.push((c(k) + r) as f32);
        }
        spans.moves.push(b.moves);
    }
    let [(lo0, hi0), (lo1, hi1), (lo2, hi2)] = &spans.sides;
    let (mut pairs, mut tests) = (0usize, 0u64);
    for i in 0..order.len() {
        // The boxes after `i` that reach it along the sweep: a run, as
        // they are sorted by where they begin.
        let from = i + 1;
        // (Walked, not searched: a run is short but for a floor's, and a
        // search per body mispredicts at each of its steps.)
        let to = from + lo0[from..].iter().take_while(|&&lo| lo <= hi0[i]).count();
        tests += (to - from) as u64;
        if tests > MAX_TESTS {
            return Err(crowded(max));
        }
        // Counted without a branch a pair: whether two neighbours along
        // the sweep overlap across it is a coin toss to the processor.
        let (l1, h1, l2, h2, m) = (lo1[i], hi1[i], lo2[i], hi2[i], spans.moves[i]);
        pairs += lo1[from..to]
            .iter()
            .zip(&hi1[from..to])
            .zip(lo2[from..to].iter().zip(&hi2[from..to]))
            .zip(&spans.moves[from..to])
            .map(|(((&lo1, &hi1), (&lo2, &hi2)), &moves)| {
                let across = (lo1 <= h1) & (l1 <= hi1) & (lo2 <= h2) & (l2 <= hi2);
                // Bodies that never move never collide with each other.
                usize::from(across & (m | moves))
            })
            .sum::<usize>();
        if pairs > max {
            return Err(crowded(max));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(x: f64, y: f64, kind: Kind) -> Body {
        Body {
            id: mlua::Value::Nil,
            key: super::super::read::Id::Number(0),
            grounded: None,
            kind,
            motion: [x, y, 0.0, 0.0, 0.0, 0.0],
            shape: Shape::Circle { radius: 4.0 },
            props: super::super::read::Props {
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
            },
        }
    }

    // rule: P4
    #[test]
    fn a_heap_of_bodies_on_one_spot_is_refused_and_a_spread_one_is_not() {
        let heap: Vec<Body> = (0..500).map(|_| body(0.0, 0.0, Kind::Dynamic)).collect();
        let err = bound(&of_bodies(&heap), 50.0, 1000).unwrap_err();
        assert!(err.contains("more than 1000 pairs"), "{err}");
        let row: Vec<Body> = (0..500)
            .map(|i| body(f64::from(i) * 20.0, 0.0, Kind::Dynamic))
            .collect();
        bound(&of_bodies(&row), 50.0, 1000).unwrap();
        // A column is swept along its own axis.
        let column: Vec<Body> = (0..500)
            .map(|i| body(0.0, f64::from(i) * 20.0, Kind::Dynamic))
            .collect();
        bound(&of_bodies(&column), 50.0, 1000).unwrap();
        // Fixed tiles overlapping one another never make contacts.
        let tiles: Vec<Body> = (0..500).map(|_| body(0.0, 0.0, Kind::Fixed)).collect();
        bound(&of_bodies(&tiles), 50.0, 1000).unwrap();
    }

    // rule: P10, P4
    #[test]
    fn a_3d_world_in_meters_is_counted_in_meters() {
        // A thousand balls of 20 cm, 50 cm apart in a cube: each touches
        // none; counted with a margin of a meter, every one would reach
        // its 26 neighbours.
        let grid: Vec<Reach> = (0..1000)
            .map(|i| Reach {
                at: [
                    f64::from(i % 10) * 0.5,
                    f64::from(i / 100) * 0.5,
                    f64::from(i / 10 % 10) * 0.5,
                ],
                radius: 0.2,
                moves: true,
            })
            .collect();
        bound(&grid, 1.0, 100).unwrap();
        // The same heap on one spot is refused.
        let heap: Vec<Reach> = grid.iter().map(|r| Reach { at: [0.0; 3], ..*r }).collect();
        assert!(bound(&heap, 1.0, 1000).is_err());
    }
}
