//! Characters (rule P7), in 2D and 3D worlds alike: how a walk command
//! is read, and a walk through a built world, which slides along walls,
//! climbs slopes up to its limit, steps up stairs and keeps to the
//! ground, as rapier's kinematic character controller does. The walk is
//! written once and made for rapier2d and rapier3d by [`walker!`]: the
//! two crates have the same API over different vector types.

use super::fields::{Fields, MAX_COORDINATE, MAX_SIZE, number_at};
use crate::Refusal;
use crate::terminal::Number;

/// How a character walks (P7): the steepest slope it climbs, in radians,
/// and the highest stair it steps up, in the world's units (0: none).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Gait {
    pub slope: f64,
    pub stairs: f64,
}

impl Default for Gait {
    fn default() -> Self {
        Gait {
            slope: std::f64::consts::FRAC_PI_4,
            stairs: 0.0,
        }
    }
}

/// Reads a command's `slope` and `stairs`; `walks` says whether it has a
/// `walk` and `kinematic` whether its body may have one.
///
/// # Errors
/// A walk for a body that is not kinematic, a gait out of its range, or
/// a gait with no walk.
pub(super) fn gait(
    command: &Fields,
    place: &str,
    walks: bool,
    kinematic: bool,
    id: &str,
) -> Result<Gait, Refusal> {
    if walks && !kinematic {
        return Err(refuse!(
            "{place}.walk moves a character, a kinematic body; {id} is not one"
        ));
    }
    let number = |field: &str, default: f64| -> Result<f64, Refusal> {
        let value = command.get(field);
        if value.is_nil() {
            return Ok(default);
        }
        let v = number_at(&value, || format!("{place}.{field}"))?;
        if v.abs() > MAX_COORDINATE {
            return Err(refuse!(
                "{place}.{field} is {}, beyond {MAX_COORDINATE} (P4)",
                Number(v)
            ));
        }
        Ok(v)
    };
    let default = Gait::default();
    let slope = number("slope", default.slope)?;
    if !(0.0..=std::f64::consts::FRAC_PI_2).contains(&slope) {
        return Err(refuse!(
            "{place}.slope is {}; it is the steepest slope climbed, from 0 to pi/2 radians",
            Number(slope)
        ));
    }
    let stairs = number("stairs", default.stairs)?;
    if !(0.0..=MAX_SIZE).contains(&stairs) {
        return Err(refuse!(
            "{place}.stairs is {}; it is the highest stair stepped up, from 0",
            Number(stairs)
        ));
    }
    let gaited = !(command.get("slope").is_nil() && command.get("stairs").is_nil());
    if gaited && !walks {
        return Err(refuse!("{place} has slope or stairs but no walk"));
    }
    Ok(Gait { slope, stairs })
}

/// Where a walk took a character.
#[derive(Debug, Clone, Copy)]
pub struct Walked<const N: usize> {
    /// The movement the world allowed, in the world's units.
    pub by: [f64; N],
    /// Whether it stands on something after it.
    pub grounded: bool,
}

/// Makes `walk` and `up` for one rapier crate (`rapier2d` or `rapier3d`)
/// of `N` dimensions, in the module that calls it.
macro_rules! walker {
    ($rapier:ident, $n:literal) => {
        /// Which way is up in a world falling by `gravity`: against it, or
        /// the y axis's up where nothing falls (screen y grows downwards,
        /// a scene's upwards).
        pub fn up(
            gravity: $rapier::prelude::Vector,
            none: $rapier::prelude::Vector,
        ) -> $rapier::prelude::Vector {
            if gravity.length() > 0.0 {
                -gravity.normalize()
            } else {
                none
            }
        }

        /// Walks `body` (a kinematic body of `world`, whose broad phase is
        /// up to date) by `want`, with `up` pointing away from gravity, and
        /// pushes the dynamic bodies in its way (impulses on them in
        /// `world`, by the character's mass: its shape's at its density).
        /// Stairs are our own: rapier's autostep refuses to rise beside the
        /// very stair that stopped the character (it lies within the
        /// controller's offset of it), so a walk that was stopped short is
        /// tried again raised by the stair's height, and kept when it gets
        /// farther and stands on ground no steeper than the gait climbs.
        fn walk(
            world: &mut $rapier::prelude::PhysicsWorld,
            body: $rapier::prelude::RigidBodyHandle,
            want: [f64; $n],
            gait: $crate::physics::walk::Gait,
            up: $rapier::prelude::Vector,
            dt: f64,
        ) -> $crate::physics::walk::Walked<$n> {
            use $rapier::control::{CharacterCollision, KinematicCharacterController};
            use $rapier::parry::query::details::ShapeCastOptions;
            use $rapier::prelude::*;
            let rb = &world.bodies[body];
            let Some(&collider) = rb.colliders().first() else {
                return $crate::physics::walk::Walked {
                    by: [0.0; $n],
                    grounded: false,
                };
            };
            let (shape, mass) = (
                world.colliders[collider].shared_shape().clone(),
                world.colliders[collider].mass(),
            );
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
            let start = *rb.position();
            let go = |from: &Pose, by: Vector, met: &mut Vec<CharacterCollision>| {
                controller.move_shape(dt as f32, &queries, shape.as_ref(), from, by, |c| {
                    met.push(c)
                })
            };
            let want = Vector::from_array(want.map(|c| c as f32));
            let mut met = Vec::new();
            // A character sunk into a body (placed there, or a walk that
            // started touching the ground exactly and went into it) is
            // lifted out first: rapier's controller only does that for a
            // walk of nothing, and a sunk character stays stuck. Sunk is
            // deeper than half the gap the controller keeps.
            let extents = shape.compute_local_aabb().extents();
            let sink = 0.005 * extents.dot(up.abs());
            let sunk = queries
                .intersect_shape(start, shape.as_ref())
                .any(|(_, other)| {
                    $rapier::parry::query::contact(
                        &start,
                        shape.as_ref(),
                        other.position(),
                        other.shape(),
                        0.0,
                    )
                    .is_ok_and(|c| c.is_some_and(|c| c.dist < -sink))
                });
            let out = if sunk {
                go(&start, Vector::ZERO, &mut met).translation
            } else {
                Vector::ZERO
            };
            let at = Pose::from_parts(start.translation + out, start.rotation);
            let first = go(&at, want, &mut met);
            let mut moved = (first.translation, first.grounded);
            let across = want - up * want.dot(up);
            let got = first.translation - up * first.translation.dot(up);
            if gait.stairs > 0.0 && across.length() > 1e-4 && got.length() + 1e-3 < across.length()
            {
                let mut climbing = Vec::new();
                let rise = go(&at, up * gait.stairs as f32, &mut climbing).translation;
                let raised = Pose::from_parts(at.translation + rise, at.rotation);
                let over = go(&raised, across, &mut climbing).translation;
                if over.length() > got.length() + 1e-3 {
                    let moved_over = Pose::from_parts(raised.translation + over, at.rotation);
                    let drop = rise.length() + (-want.dot(up)).max(0.0);
                    let down = go(&moved_over, -up * drop, &mut climbing);
                    let landed =
                        Pose::from_parts(moved_over.translation + down.translation, at.rotation);
                    // A stair has a top to stand on, looked for half the
                    // character's width ahead (a rounded foot on a
                    // stair's edge meets the edge, not the top): a slope
                    // too steep to climb is not climbed a stair's height
                    // at a time. Where nothing is ahead, the character
                    // walks off an edge and falls as it would.
                    let side = (extents - up.abs() * extents.dot(up.abs())).length();
                    let ahead = Pose::from_parts(
                        landed.translation + across.normalize_or_zero() * (0.5 * side),
                        at.rotation,
                    );
                    let options = ShapeCastOptions {
                        max_time_of_impact: 1.0,
                        target_distance: 0.0,
                        stop_at_penetration: true,
                        compute_impact_geometry_on_penetration: true,
                    };
                    let floor = queries.cast_shape(
                        &ahead,
                        -up * gait.stairs as f32,
                        shape.as_ref(),
                        options,
                    );
                    let level = (gait.slope as f32).cos() - 1e-3;
                    if floor.is_none_or(|(_, hit)| hit.normal1.dot(up) >= level) {
                        moved = (rise + over + down.translation, down.grounded);
                        met = climbing;
                    }
                }
            }
            let mut pushed = world.broad_phase.as_query_pipeline_mut(
                world.narrow_phase.query_dispatcher(),
                &mut world.bodies,
                &mut world.colliders,
                filter,
            );
            controller.solve_character_collision_impulses(
                dt as f32,
                &mut pushed,
                shape.as_ref(),
                mass,
                &met,
            );
            $crate::physics::walk::Walked {
                by: (out + moved.0).to_array().map(f64::from),
                grounded: moved.1,
            }
        }

        /// Walks each character of `walks` (its index among `handles`, its
        /// walk, its gait) against `ground`, a world built from the table
        /// as the step began with its contacts found, and sets the velocity
        /// that covers the walk on the same body of `built`, the world that
        /// steps, with what the walks pushed; `grounded` says, for each
        /// body that walked, whether it then stands on something.
        pub fn walk_all(
            ground: &mut $rapier::prelude::PhysicsWorld,
            built: &mut $rapier::prelude::PhysicsWorld,
            handles: &[$rapier::prelude::RigidBodyHandle],
            walks: impl Iterator<Item = (usize, [f64; $n], $crate::physics::walk::Gait)>,
            level: $rapier::prelude::Vector,
            dt: f64,
            grounded: &mut [Option<bool>],
        ) {
            let up = up(ground.gravity, level);
            let before = velocities(ground, handles);
            for (body, want, gait) in walks {
                let walked = walk(ground, handles[body], want, gait, up, dt);
                let velocity = walked.by.map(|c| (c / dt) as f32);
                built.bodies[handles[body]]
                    .set_linvel($rapier::prelude::Vector::from_array(velocity), true);
                grounded[body] = Some(walked.grounded);
            }
            hand_on(&before, ground, built, handles);
        }

        /// The velocities of the bodies `handles` of `world`, to see later
        /// what walks gave them.
        fn velocities(
            world: &$rapier::prelude::PhysicsWorld,
            handles: &[$rapier::prelude::RigidBodyHandle],
        ) -> Vec<($rapier::prelude::Vector, $rapier::prelude::AngVector)> {
            handles
                .iter()
                .map(|&h| (world.bodies[h].linvel(), world.bodies[h].angvel()))
                .collect()
        }

        /// Adds to each body of `to` what walks in `from` added to the
        /// same body's velocity there since `before` (the two worlds built
        /// alike from one table, `handles` the bodies of both).
        fn hand_on(
            before: &[($rapier::prelude::Vector, $rapier::prelude::AngVector)],
            from: &$rapier::prelude::PhysicsWorld,
            to: &mut $rapier::prelude::PhysicsWorld,
            handles: &[$rapier::prelude::RigidBodyHandle],
        ) {
            for (&h, &(linvel, angvel)) in handles.iter().zip(before) {
                let after = &from.bodies[h];
                if after.linvel() != linvel || after.angvel() != angvel {
                    let body = &mut to.bodies[h];
                    body.set_linvel(body.linvel() + after.linvel() - linvel, true);
                    body.set_angvel(body.angvel() + after.angvel() - angvel, true);
                }
            }
        }
    };
}
pub(super) use walker;
