//! One step of a 3D world on rapier3d (P10), as a 2D world's is (P2,
//! P3): on the rapier world the last step left (or one built afresh from
//! what was read), the commands applied, one step of `dt`, the bodies and
//! contacts read back.

use rapier3d::parry::query::details::ShapeCastOptions;
use rapier3d::prelude::*;

use super::read::{self, Motion, Shape};
use crate::Refusal;
use crate::physics::joints::{Joint, Kind as JointKind};
use crate::physics::read::Kind;

/// What one step made.
#[derive(Debug)]
pub struct Stepped {
    /// Each body's motion after the step, in the world's order.
    pub motions: Vec<Motion>,
    /// Pairs (by index, lower first) touching in this step, sorted.
    pub touching: Vec<(usize, usize)>,
    /// Where and how hard the pairs whose contact began this step met.
    pub began: Vec<((usize, usize), crate::physics::contacts::Contact)>,
    /// Whether each body that walked this step stands on something (P7).
    pub grounded: Vec<Option<bool>>,
    /// The step took no time: the commands applied, nothing moved.
    pub timeless: bool,
}

/// A ray's first hit.
#[derive(Debug)]
pub struct Hit {
    pub body: usize,
    pub point: [f64; 3],
    pub normal: [f64; 3],
    pub fraction: f64,
}

/// Rapier3d's world for a world table, as a 2D world's (`Built` there).
pub struct Built {
    world: PhysicsWorld,
    bodies: Vec<RigidBodyHandle>,
    owner: crate::physics::kept::Owners,
}

impl Clone for Built {
    fn clone(&self) -> Built {
        Built {
            world: crate::physics::kept::copy_world!(&self.world),
            bodies: self.bodies.clone(),
            owner: self.owner.clone(),
        }
    }
}

impl crate::physics::kept::Read for read::World {
    type Engine = Built;
}

impl crate::physics::kept::Engine for Built {
    fn bytes(&self) -> usize {
        crate::physics::kept::bytes_of(
            self.bodies.len(),
            self.world.narrow_phase.contact_pairs().count(),
        )
    }
}

fn v([x, y, z]: [f64; 3]) -> Vector {
    Vector::new(x as f32, y as f32, z as f32)
}

fn q([x, y, z, w]: [f64; 4]) -> Rotation {
    Rotation::from_xyzw(x as f32, y as f32, z as f32, w as f32).normalize()
}

fn shared(shape: &Shape) -> SharedShape {
    match *shape {
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
    }
}

fn build(read: &read::World, dt: f64) -> Built {
    let mut world = PhysicsWorld::new();
    world.gravity = v(read.gravity);
    world.integration_parameters.dt = dt as f32;
    world.integration_parameters.length_unit = read.scale as f32;
    // rapier caps a body's speed at 400 meters a second (20,000 pixels at
    // the default scale) without a word; the bound the docs give for
    // velocities is MAX_COORDINATE, refused by name when a body is read.
    world.integration_parameters.normalized_max_linear_velocity =
        (super::fields::MAX_COORDINATE / read.scale) as f32;
    let mut bodies = Vec::with_capacity(read.bodies.len());
    let mut owner = Vec::with_capacity(read.bodies.len());
    for (i, body) in read.bodies.iter().enumerate() {
        let m = &body.motion;
        let mut builder = match body.kind {
            Kind::Dynamic => RigidBodyBuilder::dynamic(),
            Kind::Kinematic => RigidBodyBuilder::kinematic_velocity_based(),
            Kind::Fixed => RigidBodyBuilder::fixed(),
        }
        .pose(Pose::from_parts(v(m.at), q(m.rotation)))
        .linvel(v(m.velocity))
        .angvel(v(m.spin))
        .linear_damping(body.props.damping as f32)
        .angular_damping(body.props.angular_damping as f32)
        .gravity_scale(body.props.gravity_scale as f32)
        .ccd_enabled(body.props.bullet)
        // Sleep is not in the table: a world built from it again would
        // wake every body, so no body sleeps in a kept world either.
        .can_sleep(false);
        if body.props.fixed_rotation {
            builder = builder.lock_rotations();
        }
        let handle = world.bodies.insert(builder.build());
        let collider = ColliderBuilder::new(shared(&body.shape))
            .density(body.props.density as f32)
            .friction(body.props.friction as f32)
            .restitution(body.props.restitution as f32)
            .sensor(body.props.sensor)
            // What began and ended touching is heard, not looked for.
            .active_events(ActiveEvents::COLLISION_EVENTS)
            .collision_groups(InteractionGroups::new(
                Group::from(body.props.group),
                Group::from(body.props.mask),
                InteractionTestMode::And,
            ));
        let collider =
            world
                .colliders
                .insert_with_parent(collider.build(), handle, &mut world.bodies);
        bodies.push(handle);
        crate::physics::kept::own(&mut owner, collider.into_raw_parts().0, i);
    }
    join(&read.joints, &bodies, &mut world);
    Built {
        world,
        bodies,
        owner: crate::physics::kept::Owners(owner),
    }
}

/// Builds a 3D world's joints between its bodies (`handles`, in the
/// world's order), as a 2D world's are (P6): a revolute joint turns about
/// its `axis`, a prismatic one slides along it.
fn join(joints: &[Joint<3>], handles: &[RigidBodyHandle], world: &mut PhysicsWorld) {
    for joint in joints {
        let axis = v(joint.axis).normalize();
        let (mut built, limited): (GenericJoint, _) = match joint.kind {
            JointKind::Revolute => (
                RevoluteJointBuilder::new(axis).build().into(),
                JointAxis::AngX,
            ),
            JointKind::Prismatic => (
                PrismaticJointBuilder::new(axis).build().into(),
                JointAxis::LinX,
            ),
            JointKind::Fixed => (FixedJointBuilder::new().build().into(), JointAxis::LinX),
            JointKind::Rope => (
                RopeJointBuilder::new(joint.length as f32).build().into(),
                JointAxis::LinX,
            ),
        };
        built
            .set_local_anchor1(v(joint.anchor_a))
            .set_local_anchor2(v(joint.anchor_b))
            .set_contacts_enabled(joint.collide);
        if let Some([lo, hi]) = joint.limits {
            built.set_limits(limited, [lo as f32, hi as f32]);
        }
        world
            .impulse_joints
            .insert(handles[joint.a], handles[joint.b], built, true);
    }
}

/// Steps `read` once by `dt` after `commands`, on `kept`, the rapier3d
/// world the step that wrote `read` left, or on one built from `read`.
///
/// # Errors
/// A body's motion is no longer finite after the step (forces past what
/// single precision holds).
pub fn step(
    read: &read::World,
    kept: Option<Built>,
    commands: &[read::Command],
    dt: f64,
) -> Result<(Stepped, Built), Refusal> {
    let fresh = kept.is_none();
    let mut built = match kept {
        Some(mut built) => {
            built.world.integration_parameters.dt = dt as f32;
            built
        }
        None => build(read, dt),
    };
    for c in commands {
        let body = &mut built.world.bodies[built.bodies[c.body]];
        if let Some(at) = c.position {
            body.set_translation(v(at), true);
        }
        if let Some(rotation) = c.rotation {
            body.set_rotation(q(rotation), true);
        }
        if let Some(velocity) = c.velocity {
            body.set_linvel(v(velocity), true);
        }
        if let Some(spin) = c.spin {
            body.set_angvel(v(spin), true);
        }
        if let Some(push) = c.push {
            let now = body.linvel();
            body.set_linvel(now + v(push), true);
        }
        if let Some(impulse) = c.impulse {
            body.apply_impulse(v(impulse), true);
        }
    }
    let timeless = dt == 0.0;
    let grounded = walks(read, commands, dt, &mut built);
    let changes = touch::Changes::default();
    if !timeless {
        built.world.step_with_events(&(), &changes);
    }
    let motions = read
        .bodies
        .iter()
        .zip(&built.bodies)
        .zip(&grounded)
        .map(|((body, &handle), walked)| {
            if body.kind == Kind::Fixed {
                return Ok(body.motion);
            }
            let rb = &built.world.bodies[handle];
            let (t, r, l, a) = (rb.translation(), rb.rotation(), rb.linvel(), rb.angvel());
            let out = [
                t.x, t.y, t.z, r.x, r.y, r.z, r.w, l.x, l.y, l.z, a.x, a.y, a.z,
            ];
            const NAMES: [&str; 13] = [
                "x", "y", "z", "rotation", "rotation", "rotation", "rotation", "vx", "vy", "vz",
                "spin", "spin", "spin",
            ];
            if let Some(at) = out.iter().position(|o| !o.is_finite()) {
                return Err(refuse!(
                    "bodies{}.{} is not a finite number after this step: the forces, speeds \
                     or masses in the world are past what the simulation holds (P4)",
                    crate::physics::fields::place_of(&body.id),
                    NAMES[at]
                ));
            }
            // Where single precision did not change a value, the author's
            // own is kept: a body at rest keeps its table.
            let keep = |mine: f64, new: f32| {
                if (mine as f32) == new {
                    mine
                } else {
                    f64::from(new)
                }
            };
            let m = &body.motion;
            let three = |mine: [f64; 3], new: &[f32]| {
                [
                    keep(mine[0], new[0]),
                    keep(mine[1], new[1]),
                    keep(mine[2], new[2]),
                ]
            };
            Ok(Motion {
                at: three(m.at, &out[0..3]),
                rotation: [
                    keep(m.rotation[0], out[3]),
                    keep(m.rotation[1], out[4]),
                    keep(m.rotation[2], out[5]),
                    keep(m.rotation[3], out[6]),
                ],
                // A walk moves a character this step only.
                velocity: match walked {
                    Some(_) => [0.0; 3],
                    None => three(m.velocity, &out[7..10]),
                },
                spin: three(m.spin, &out[10..13]),
            })
        })
        .collect::<Result<Vec<_>, Refusal>>()?;
    // The table says a walker stands still after its walk: so must the
    // rapier world kept for it.
    for (&handle, walked) in built.bodies.iter().zip(&grounded) {
        if walked.is_some() {
            built.world.bodies[handle].set_linvel(Vector::ZERO, false);
        }
    }
    if timeless {
        let stepped = Stepped {
            motions,
            touching: read.touching.pairs.clone(),
            began: Vec::new(),
            grounded,
            timeless,
        };
        return Ok((stepped, built));
    }
    let before: &[(usize, usize)] = if fresh { &[] } else { &read.touching.pairs };
    let changes = changes.0.into_inner().unwrap_or_default();
    let touching = crate::physics::contacts::after(before, changes, &built.owner);
    debug_assert_eq!(touching, touch::scanned(&built.world, &built.owner));
    let began = touch::began(&built.world, &built.bodies, before, &touching);
    let stepped = Stepped {
        motions,
        touching,
        began,
        grounded,
        timeless,
    };
    Ok((stepped, built))
}

crate::physics::walk::walker!(rapier3d, 3);

/// Moves each character with a walk command (P7) by what the world
/// allows, worked out against the bodies as the step began (what the
/// tick read), by setting its velocity in `built` for the step; says
/// which walked and whether each then stands on something.
fn walks(
    read: &read::World,
    commands: &[read::Command],
    dt: f64,
    built: &mut Built,
) -> Vec<Option<bool>> {
    let mut grounded = vec![None; read.bodies.len()];
    if dt == 0.0 || commands.iter().all(|c| c.walk.is_none()) {
        return grounded;
    }
    // Asked of a world of its own: the world that steps must not have
    // met its contacts yet.
    let mut ground = build(read, dt);
    ground.world.detect_collisions(&(), &());
    let walks = commands
        .iter()
        .filter_map(|c| Some((c.body, c.walk?, c.gait)));
    let (world, handles) = (&mut built.world, &built.bodies);
    walk_all(
        &mut ground.world,
        world,
        handles,
        walks,
        Vector::Y,
        dt,
        &mut grounded,
    );
    grounded
}

/// The first solid body the segment from `from` to `to` meets, passing
/// through sensors and the body `ignore`.
pub fn ray(read: &read::World, from: [f64; 3], to: [f64; 3], ignore: Option<usize>) -> Option<Hit> {
    let by = [to[0] - from[0], to[1] - from[1], to[2] - from[2]];
    if by == [0.0; 3] {
        return None;
    }
    let mut built = build(read, 1.0 / 60.0);
    built.world.detect_collisions(&(), &());
    let ray = Ray::new(v(from), v(by));
    let mut filter = QueryFilter::default().exclude_sensors();
    if let Some(body) = ignore {
        filter = filter.exclude_rigid_body(built.bodies[body]);
    }
    let (collider, hit) = built
        .world
        .cast_ray_and_get_normal(&ray, 1.0, true, filter)?;
    let fraction = f64::from(hit.time_of_impact);
    built.owner.of(collider.into_raw_parts().0).map(|body| Hit {
        body,
        point: [0, 1, 2].map(|i| from[i] + by[i] * fraction),
        normal: [hit.normal.x, hit.normal.y, hit.normal.z].map(f64::from),
        fraction,
    })
}

/// The first solid body `shape` meets moved from `from` by `by`, passing
/// through sensors and the body `ignore`: `point` is where the shape's
/// centre is when it touches.
pub fn cast(
    read: &read::World,
    shape: &Shape,
    from: [f64; 3],
    by: [f64; 3],
    ignore: Option<usize>,
) -> Option<Hit> {
    let shape = shared(shape);
    let mut built = build(read, 1.0 / 60.0);
    built.world.detect_collisions(&(), &());
    let mut filter = QueryFilter::default().exclude_sensors();
    if let Some(body) = ignore {
        filter = filter.exclude_rigid_body(built.bodies[body]);
    }
    let options = ShapeCastOptions {
        max_time_of_impact: 1.0,
        target_distance: 0.0,
        stop_at_penetration: true,
        compute_impact_geometry_on_penetration: true,
    };
    let pose = Pose::from_translation(v(from));
    let (collider, hit) = built
        .world
        .cast_shape(&pose, v(by), shape.as_ref(), options, filter)?;
    let fraction = f64::from(hit.time_of_impact);
    built.owner.of(collider.into_raw_parts().0).map(|body| Hit {
        body,
        point: [0, 1, 2].map(|i| from[i] + by[i] * fraction),
        normal: [hit.normal1.x, hit.normal1.y, hit.normal1.z].map(f64::from),
        fraction,
    })
}

crate::physics::contacts::touch_changes!(rapier3d);
