//! The physics view of a 3D world (P9 in P10): each body's wireframe in
//! world space (a cuboid's twelve edges, three rings for a ball, rings
//! and sides for a capsule or a cylinder), its joints from anchor to
//! anchor; `colliders::draw` sees them through the scene's camera.

use glam::{DQuat, DVec3, Vec3};

use super::read::{self, Shape};
use crate::colliders::{Colliders, Motion, Wire};
use crate::physics::body::Kind;

/// Segments of a ring.
const RING: usize = 24;

/// Adds the wireframes of the 3D world `table` to `out`, when it reads
/// as one (a world that does not is the next step's to report).
pub fn add_table(lua: &mlua::Lua, table: &mlua::Table, out: &mut Colliders) {
    let _ = super::super::with_read(lua, table, read::world, |world| {
        add(world, out);
        Ok(())
    });
}

/// Adds the wireframes of `world`'s bodies and its joints to `out`.
fn add(world: &read::World, out: &mut Colliders) {
    let mut touching = vec![false; world.bodies.len()];
    for &(a, b) in &world.touching.pairs {
        (touching[a], touching[b]) = (true, true);
    }
    for (body, &touches) in world.bodies.iter().zip(&touching) {
        let m = &body.motion;
        let turn = turn_of(m.rotation);
        let at = DVec3::from_array(m.at);
        let place = |p: DVec3| (at + turn * p).as_vec3();
        let motion = match body.kind {
            Kind::Dynamic => Motion::Dynamic,
            Kind::Kinematic => Motion::Kinematic,
            Kind::Fixed => Motion::Fixed,
        };
        for (points, closed) in lines(&body.shape) {
            out.wires.push(Wire {
                points: points.into_iter().map(place).collect(),
                closed,
                motion,
                sensor: body.props.sensor,
                touching: touches,
            });
        }
    }
    for joint in &world.joints {
        let anchor = |i: usize, local: [f64; 3]| -> Vec3 {
            let m = &world.bodies[i].motion;
            (DVec3::from_array(m.at) + turn_of(m.rotation) * DVec3::from_array(local)).as_vec3()
        };
        out.joints3.push([
            anchor(joint.a, joint.anchor_a),
            anchor(joint.b, joint.anchor_b),
        ]);
    }
}

/// A body's rotation as a unit quaternion (the reader refused length 0).
fn turn_of([x, y, z, w]: [f64; 4]) -> DQuat {
    DQuat::from_xyzw(x, y, z, w).normalize()
}

/// A ring of `radius` about the axis `normal` (x, y or z: 0, 1, 2),
/// centred at `centre`, from angle `from` through `sweep` radians.
fn arc(centre: DVec3, radius: f64, normal: usize, from: f64, sweep: f64) -> Vec<DVec3> {
    let (u, v) = match normal {
        0 => (DVec3::Y, DVec3::Z),
        1 => (DVec3::Z, DVec3::X),
        _ => (DVec3::X, DVec3::Y),
    };
    let whole = sweep >= std::f64::consts::TAU;
    let n = if whole { RING } else { RING / 2 + 1 };
    let step = sweep / if whole { n as f64 } else { (n - 1) as f64 };
    (0..n)
        .map(|k| {
            let (s, c) = (from + step * k as f64).sin_cos();
            centre + (u * c + v * s) * radius
        })
        .collect()
}

/// The lines that draw `shape` about its own centre: each a list of
/// points, and whether it closes.
fn lines(shape: &Shape) -> Vec<(Vec<DVec3>, bool)> {
    use std::f64::consts::{PI, TAU};
    let ring = |centre, radius, normal| (arc(centre, radius, normal, 0.0, TAU), true);
    let sides = |radius: f64, half: f64| {
        [(1.0, 0.0), (-1.0, 0.0), (0.0, 1.0), (0.0, -1.0)].map(|(x, z)| {
            let foot = DVec3::new(x * radius, 0.0, z * radius);
            (vec![foot - DVec3::Y * half, foot + DVec3::Y * half], false)
        })
    };
    match *shape {
        Shape::Ball { radius } => (0..3).map(|axis| ring(DVec3::ZERO, radius, axis)).collect(),
        Shape::Cuboid { size: [w, h, d] } => {
            let (x, y, z) = (w / 2.0, h / 2.0, d / 2.0);
            let face = |y: f64| {
                vec![
                    DVec3::new(-x, y, -z),
                    DVec3::new(x, y, -z),
                    DVec3::new(x, y, z),
                    DVec3::new(-x, y, z),
                ]
            };
            let mut out = vec![(face(-y), true), (face(y), true)];
            for (a, b) in face(-y).into_iter().zip(face(y)) {
                out.push((vec![a, b], false));
            }
            out
        }
        Shape::Capsule { radius, length } => {
            let half = length / 2.0;
            let (top, bottom) = (DVec3::Y * half, -DVec3::Y * half);
            let mut out = vec![ring(top, radius, 1), ring(bottom, radius, 1)];
            out.extend(sides(radius, half));
            // The rounded ends, across x and across z.
            out.push((arc(top, radius, 2, 0.0, PI), false));
            out.push((arc(bottom, radius, 2, PI, PI), false));
            out.push((arc(top, radius, 0, 0.0, PI), false));
            out.push((
                arc(bottom, radius, 0, -PI, -PI).into_iter().rev().collect(),
                false,
            ));
            out
        }
        Shape::Cylinder { radius, height } => {
            let half = height / 2.0;
            let mut out = vec![
                ring(DVec3::Y * half, radius, 1),
                ring(-DVec3::Y * half, radius, 1),
            ];
            out.extend(sides(radius, half));
            out
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // rule: P9, P10
    #[test]
    fn wireframes_go_round_each_shape_at_its_size() {
        let farthest = |shape: Shape| {
            lines(&shape)
                .iter()
                .flat_map(|(points, _)| points.iter().map(|p| p.abs()))
                .fold(DVec3::ZERO, DVec3::max)
        };
        let close = |a: DVec3, b: DVec3| (a - b).abs().max_element() < 1e-9;
        assert!(close(
            farthest(Shape::Cuboid {
                size: [2.0, 4.0, 6.0]
            }),
            DVec3::new(1.0, 2.0, 3.0)
        ));
        assert!(close(
            farthest(Shape::Ball { radius: 0.5 }),
            DVec3::splat(0.5)
        ));
        // A capsule of radius 1 with 2 between its centres is 4 tall.
        assert!(close(
            farthest(Shape::Capsule {
                radius: 1.0,
                length: 2.0
            }),
            DVec3::new(1.0, 2.0, 1.0)
        ));
        assert!(close(
            farthest(Shape::Cylinder {
                radius: 1.0,
                height: 3.0
            }),
            DVec3::new(1.0, 1.5, 1.0)
        ));
        // A cuboid is twelve edges: two faces of four, four sides.
        let edges: usize = lines(&Shape::Cuboid { size: [1.0; 3] })
            .iter()
            .map(|(p, closed)| if *closed { p.len() } else { p.len() - 1 })
            .sum();
        assert_eq!(edges, 12);
    }
}
