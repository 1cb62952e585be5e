//! One step on rapier, written once for both dimensions: the rapier world
//! the last step left (or one built afresh from what was read), the
//! commands applied, one step of `dt`, the bodies and contacts read back
//! (P2, P3, P10); and the queries that look through a built world (P5).
//!
//! This file is compiled twice, as rapier itself is: as `physics::simulate`
//! against rapier2d and as `physics::three::simulate` against rapier3d.
//! Each copy reads its world through `super::read` and what differs with
//! the dimensions (vectors, rotations, a motion's numbers, shapes) through
//! `super::dim`; the two crates have the same API over their own types.
//! Lengths are in the world's units: rapier's length unit is the world's
//! `scale`, so its tolerances fit a world measured in pixels.

use super::dim::rapier::parry::query::details::ShapeCastOptions;
use super::dim::rapier::prelude::*;

use super::dim::{self, Point, v};
use super::read;
use crate::Refusal;
use crate::physics::body::Kind;
use crate::physics::joints::{Joint, Kind as JointKind};

/// What one step made.
#[derive(Debug)]
pub struct Stepped {
    /// Each body's motion after the step, in the world's order.
    pub motions: Vec<dim::Motion>,
    /// Pairs (by index, lower first) touching in this step, sorted.
    pub touching: Vec<(usize, usize)>,
    /// Where and how hard the pairs whose contact began this step met.
    pub began: Vec<((usize, usize), crate::physics::contacts::Contact)>,
    /// Whether each body that walked this step stands on something (P7).
    pub grounded: Vec<Option<bool>>,
    /// The step took no time: the commands applied, nothing moved, the
    /// contacts are the last step's.
    pub timeless: bool,
}

/// A query's first hit.
#[derive(Debug)]
pub struct Hit {
    pub body: usize,
    pub point: Point,
    pub normal: Point,
    pub fraction: f64,
}

/// Rapier's world for a world table: its bodies' handles in the
/// table's order, and which body each collider is.
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

fn build(read: &read::World, dt: f64) -> Result<Built, Refusal> {
    let mut world = PhysicsWorld::new();
    world.gravity = v(read.gravity);
    world.integration_parameters.dt = dt as f32;
    world.integration_parameters.length_unit = read.scale as f32;
    // rapier caps a body's speed at 400 meters a second (20,000 pixels at
    // the default scale) without a word; the bound the docs give for
    // velocities is MAX_COORDINATE, refused by name when a body is read.
    world.integration_parameters.normalized_max_linear_velocity =
        (crate::physics::fields::MAX_COORDINATE / read.scale) as f32;
    let mut bodies = Vec::with_capacity(read.bodies.len());
    let mut owner = Vec::with_capacity(read.bodies.len());
    for (i, body) in read.bodies.iter().enumerate() {
        let builder = match body.kind {
            Kind::Dynamic => RigidBodyBuilder::dynamic(),
            Kind::Kinematic => RigidBodyBuilder::kinematic_velocity_based(),
            Kind::Fixed => RigidBodyBuilder::fixed(),
        };
        let mut builder = dim::placed(builder, &body.motion)
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
        let shape = dim::shared(&body.shape, || {
            format!("bodies{}.shape", crate::physics::fields::place_of(&body.id))
        })?;
        let collider = ColliderBuilder::new(shape)
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
    Ok(Built {
        world,
        bodies,
        owner: crate::physics::kept::Owners(owner),
    })
}

/// Builds `joints` into `world`, between the bodies made for the world's
/// bodies (`handles`, in the same order) (P6). Each kind locks its own
/// axes; anchors, contacts and limits are set the same way on all of
/// them. A revolute joint turns about the screen's normal in 2D and its
/// `axis` in 3D; a prismatic one slides along its `axis`.
fn join(joints: &[Joint<{ dim::N }>], handles: &[RigidBodyHandle], world: &mut PhysicsWorld) {
    for joint in joints {
        let (mut built, limited): (GenericJoint, _) = match joint.kind {
            JointKind::Revolute => (dim::revolute(joint.axis), JointAxis::AngX),
            JointKind::Prismatic => (
                PrismaticJointBuilder::new(v(joint.axis).normalize())
                    .build()
                    .into(),
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

/// Steps `read` once by `dt` after `commands`, on `kept`, the rapier
/// world the step that wrote `read` left, or on one built from `read`.
///
/// # Errors
/// A shape rapier cannot make (a polygon of points on one line), or a
/// body's motion no longer finite after the step (forces past what single
/// precision holds).
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
        None => build(read, dt)?,
    };
    for c in commands {
        let body = &mut built.world.bodies[built.bodies[c.body]];
        if let Some(at) = c.position {
            body.set_translation(v(at), true);
        }
        if let Some(rotation) = c.rotation {
            body.set_rotation(dim::rotation(rotation), true);
        }
        if let Some(velocity) = c.velocity {
            body.set_linvel(v(velocity), true);
        }
        if let Some(spin) = c.spin {
            body.set_angvel(dim::spin(spin), true);
        }
        if let Some(push) = c.push {
            let now = body.linvel();
            body.set_linvel(now + v(push), true);
        }
        if let Some(impulse) = c.impulse {
            body.apply_impulse(v(impulse), true);
        }
        // A mouse joint: the velocity that would take the body to the
        // point in `drag_time`, so it follows the pointer, a little
        // behind, and still collides on the way. A step of no time moves
        // nothing and pulls nothing.
        if let Some(to) = c.drag
            && dt > 0.0
        {
            let time = c.drag_time.unwrap_or(0.1).max(dt);
            let by = v(to) - body.translation();
            body.set_linvel(by / time as f32, true);
        }
    }
    let timeless = dt == 0.0;
    let grounded = walks(read, commands, dt, &mut built)?;
    let changes = dim::touch::Changes::default();
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
            let out = dim::motion_of(&built.world.bodies[handle]);
            if let Some(at) = out.iter().position(|o| !o.is_finite()) {
                // Single precision ran out (forces, speeds or masses far
                // past anything a screen shows): say so, never write it.
                return Err(refuse!(
                    "bodies{}.{} is not a finite number after this step: the forces, speeds \
                     or masses in the world are past what the simulation holds (P4)",
                    crate::physics::fields::place_of(&body.id),
                    dim::MOTION_FIELDS[at]
                ));
            }
            Ok(dim::kept(&body.motion, out, walked.is_some()))
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
    debug_assert_eq!(touching, dim::touch::scanned(&built.world, &built.owner));
    let began = dim::touch::began(&built.world, &built.bodies, before, &touching);
    let stepped = Stepped {
        motions,
        touching,
        began,
        grounded,
        timeless,
    };
    Ok((stepped, built))
}

/// Moves each character with a walk command (P7) by what the world
/// allows, worked out against the bodies as the step began (what the
/// tick read), by setting its velocity in `built` for the step; says
/// which walked and whether each then stands on something.
///
/// # Errors
/// As [`build`].
fn walks(
    read: &read::World,
    commands: &[read::Command],
    dt: f64,
    built: &mut Built,
) -> Result<Vec<Option<bool>>, Refusal> {
    let mut grounded = vec![None; read.bodies.len()];
    if dt == 0.0 || commands.iter().all(|c| c.walk.is_none()) {
        return Ok(grounded);
    }
    // Asked of a world of its own: the world that steps must not have
    // met its contacts yet.
    let mut ground = build(read, dt)?;
    ground.world.detect_collisions(&(), &());
    let walks = commands
        .iter()
        .filter_map(|c| Some((c.body, c.walk?, c.gait)));
    let (world, handles) = (&mut built.world, &built.bodies);
    dim::walk_all(
        &mut ground.world,
        world,
        handles,
        walks,
        dim::UP,
        dt,
        &mut grounded,
    );
    Ok(grounded)
}

/// A world built from `read` for a query, its broad phase up to date.
fn looked_through(read: &read::World) -> Result<Built, Refusal> {
    let mut built = build(read, 1.0 / 60.0)?;
    built.world.detect_collisions(&(), &());
    Ok(built)
}

/// What a query passes through: sensors, and the body `ignore`.
fn passing(built: &Built, ignore: Option<usize>) -> QueryFilter<'static> {
    let filter = QueryFilter::default().exclude_sensors();
    match ignore {
        Some(body) => filter.exclude_rigid_body(built.bodies[body]),
        None => filter,
    }
}

/// The first solid body the segment from `from` to `to` meets, passing
/// through sensors and the body `ignore`.
///
/// # Errors
/// As [`build`].
pub fn ray(
    read: &read::World,
    from: Point,
    to: Point,
    ignore: Option<usize>,
) -> Result<Option<Hit>, Refusal> {
    let by: Point = std::array::from_fn(|i| to[i] - from[i]);
    if by.iter().all(|&d| d == 0.0) {
        return Ok(None);
    }
    let built = looked_through(read)?;
    let ray = Ray::new(v(from), v(by));
    let found = built
        .world
        .cast_ray_and_get_normal(&ray, 1.0, true, passing(&built, ignore));
    let Some((collider, hit)) = found else {
        return Ok(None);
    };
    Ok(hit_at(
        &built,
        collider,
        (from, by),
        hit.time_of_impact,
        hit.normal,
    ))
}

/// The first solid body `shape` meets moved from `from` by `by` (P5),
/// passing through sensors and the body `ignore`: `point` is where the
/// shape's centre is when it touches.
///
/// # Errors
/// As [`build`], and a polygon of points on one line.
pub fn cast(
    read: &read::World,
    shape: &read::Shape,
    from: Point,
    by: Point,
    ignore: Option<usize>,
) -> Result<Option<Hit>, Refusal> {
    let shape = dim::shared(shape, || "the shape".to_string())?;
    let built = looked_through(read)?;
    let options = ShapeCastOptions {
        max_time_of_impact: 1.0,
        target_distance: 0.0,
        stop_at_penetration: true,
        compute_impact_geometry_on_penetration: true,
    };
    let pose = Pose::from_translation(v(from));
    let found = built.world.cast_shape(
        &pose,
        v(by),
        shape.as_ref(),
        options,
        passing(&built, ignore),
    );
    let Some((collider, hit)) = found else {
        return Ok(None);
    };
    Ok(hit_at(
        &built,
        collider,
        (from, by),
        hit.time_of_impact,
        hit.normal1,
    ))
}

/// What a query that went `fraction` of the way along `from` + `by`
/// before it met `collider` found, where the collider is a body's.
fn hit_at(
    built: &Built,
    collider: ColliderHandle,
    (from, by): (Point, Point),
    fraction: f32,
    normal: Vector,
) -> Option<Hit> {
    let fraction = f64::from(fraction);
    built.owner.of(collider.into_raw_parts().0).map(|body| Hit {
        body,
        point: std::array::from_fn(|i| from[i] + by[i] * fraction),
        normal: dim::point(normal),
        fraction,
    })
}
