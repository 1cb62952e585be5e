//! One step on rapier: the rapier world the last step left (or one
//! built afresh from what was read), the commands applied, one step of
//! `dt`, the bodies and contacts read back (P2, P3). Everything is in
//! pixels: rapier's length unit is the world's `scale`, so its
//! tolerances fit a world measured in pixels.

use crate::Refusal;
use rapier2d::prelude::*;

use super::control;
use super::read::{self, Kind};

/// What one step made.
#[derive(Debug)]
pub struct Stepped {
    /// x, y, angle, vx, vy, spin of each body, in the world's order.
    pub motions: Vec<[f64; 6]>,
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

/// A ray's first hit.
#[derive(Debug)]
pub struct Hit {
    pub body: usize,
    pub point: [f64; 2],
    pub normal: [f64; 2],
    pub fraction: f64,
}

/// Rapier's world for a world table: its bodies' handles in the
/// table's order, and which body each collider is.
pub struct Built {
    world: PhysicsWorld,
    bodies: Vec<RigidBodyHandle>,
    owner: super::kept::Owners,
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

impl super::kept::Read for read::World {
    type Engine = Built;
}

impl super::kept::Engine for Built {
    fn bytes(&self) -> usize {
        super::kept::bytes_of(
            self.bodies.len(),
            self.world.narrow_phase.contact_pairs().count(),
        )
    }
}

fn v(x: f64, y: f64) -> Vector {
    Vector::new(x as f32, y as f32)
}

fn build(read: &read::World, dt: f64) -> Result<Built, Refusal> {
    let mut world = PhysicsWorld::new();
    world.gravity = v(read.gravity[0], read.gravity[1]);
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
        let [x, y, angle, vx, vy, spin] = body.motion;
        let mut builder = match body.kind {
            Kind::Dynamic => RigidBodyBuilder::dynamic(),
            Kind::Kinematic => RigidBodyBuilder::kinematic_velocity_based(),
            Kind::Fixed => RigidBodyBuilder::fixed(),
        }
        .translation(v(x, y))
        .rotation(angle as f32)
        .linvel(v(vx, vy))
        .angvel(spin as f32)
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
        let shape = control::shared(&body.shape, || {
            format!("bodies{}.shape", super::fields::place_of(&body.id))
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
    super::joints::build(&read.joints, &bodies, &mut world);
    Ok(Built {
        world,
        bodies,
        owner: crate::physics::kept::Owners(owner),
    })
}

/// Steps `read` once by `dt` after `commands`, on `kept`, the rapier
/// world the step that wrote `read` left, or on one built from `read`.
///
/// # Errors
/// A shape rapier cannot make (a polygon of points on one line).
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
        if let Some([x, y]) = c.position {
            body.set_translation(v(x, y), true);
        }
        if let Some(angle) = c.angle {
            body.set_rotation(Rotation::new(angle as f32), true);
        }
        if let Some([x, y]) = c.velocity {
            body.set_linvel(v(x, y), true);
        }
        if let Some(spin) = c.spin {
            body.set_angvel(spin as f32, true);
        }
        if let Some([x, y]) = c.push {
            let now = body.linvel();
            body.set_linvel(now + v(x, y), true);
        }
        if let Some([x, y]) = c.impulse {
            body.apply_impulse(v(x, y), true);
        }
        // A mouse joint: the velocity that would take the body to the
        // point in `drag_time`, so it follows the pointer, a little
        // behind, and still collides on the way. A step of no time moves
        // nothing and pulls nothing.
        if let Some([x, y]) = c.drag
            && dt > 0.0
        {
            let time = c.drag_time.unwrap_or(0.1).max(dt);
            let to = v(x, y) - body.translation();
            body.set_linvel(to / time as f32, true);
        }
    }
    // Characters walk against the bodies as the step began (what the
    // tick read): each moves this step by what the world allows (P7).
    let mut grounded = vec![None; read.bodies.len()];
    let timeless = dt == 0.0;
    if !timeless && commands.iter().any(|c| c.walk.is_some()) {
        // Asked of a world of their own, the bodies as the step began:
        // the world that steps must not have met its contacts yet.
        let mut ground = build(read, dt)?;
        ground.world.detect_collisions(&(), &());
        let walks = commands
            .iter()
            .filter_map(|c| Some((c.body, c.walk?, c.gait)));
        let level = Vector::new(0.0, -1.0);
        let (world, handles) = (&mut built.world, &built.bodies);
        control::walk_all(
            &mut ground.world,
            world,
            handles,
            walks,
            level,
            dt,
            &mut grounded,
        );
    }
    let changes = touch::Changes::default();
    if !timeless {
        built.world.step_with_events(&(), &changes);
    }
    let motions = read
        .bodies
        .iter()
        .zip(&built.bodies)
        .enumerate()
        .map(|(i, (body, &handle))| {
            if body.kind == Kind::Fixed {
                return Ok(body.motion);
            }
            let rb = &built.world.bodies[handle];
            let (t, l) = (rb.translation(), rb.linvel());
            let mut out = [t.x, t.y, rb.rotation().angle(), l.x, l.y, rb.angvel()];
            if let Some(at) = out.iter().position(|o| !o.is_finite()) {
                // Single precision ran out (forces, speeds or masses far
                // past anything a screen shows): say so, never write it.
                return Err(refuse!(
                    "bodies{}.{} is not a finite number after this step: the forces, speeds \
                     or masses in the world are past what the simulation holds (P4)",
                    super::fields::place_of(&body.id),
                    ["x", "y", "angle", "vx", "vy", "spin"][at]
                ));
            }
            if let Some(walked) = grounded.get(i)
                && walked.is_some()
            {
                // A walk moves a character this step only.
                (out[3], out[4]) = (0.0, 0.0);
            }
            // Where single precision did not change a value, the author's
            // own is kept: a body at rest keeps its table.
            let mut motion = body.motion;
            for (m, o) in motion.iter_mut().zip(out) {
                if (*m as f32) != o {
                    *m = f64::from(o);
                }
            }
            Ok(motion)
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

/// The first solid body the segment `[x1, y1, x2, y2]` meets, passing
/// through sensors and the body `ignore`.
///
/// # Errors
/// As [`step`].
pub fn ray(
    read: &read::World,
    at: [f64; 4],
    ignore: Option<usize>,
) -> Result<Option<Hit>, Refusal> {
    let [x1, y1, x2, y2] = at;
    let (dx, dy) = (x2 - x1, y2 - y1);
    if dx == 0.0 && dy == 0.0 {
        return Ok(None);
    }
    let mut built = build(read, 1.0 / 60.0)?;
    built.world.detect_collisions(&(), &());
    let ray = Ray::new(v(x1, y1), v(dx, dy));
    let mut filter = QueryFilter::default().exclude_sensors();
    if let Some(body) = ignore {
        filter = filter.exclude_rigid_body(built.bodies[body]);
    }
    let Some((collider, hit)) = built.world.cast_ray_and_get_normal(&ray, 1.0, true, filter) else {
        return Ok(None);
    };
    let fraction = f64::from(hit.time_of_impact);
    Ok(built.owner.of(collider.into_raw_parts().0).map(|body| Hit {
        body,
        point: [x1 + dx * fraction, y1 + dy * fraction],
        normal: [f64::from(hit.normal.x), f64::from(hit.normal.y)],
        fraction,
    }))
}

/// The first solid body `shape` meets moved from `from` by `by` (P5):
/// `point` is where the shape's centre is when it touches.
///
/// # Errors
/// As [`step`], and a polygon of points on one line.
pub fn cast(
    read: &read::World,
    shape: &read::Shape,
    from: [f64; 2],
    by: [f64; 2],
    ignore: Option<usize>,
) -> Result<Option<Hit>, Refusal> {
    let shape = control::shared(shape, || "the shape".to_string())?;
    let mut built = build(read, 1.0 / 60.0)?;
    built.world.detect_collisions(&(), &());
    let ignore = ignore.map(|i| built.bodies[i]);
    let Some(touch) = control::cast(&built.world, &shape, from, by, ignore) else {
        return Ok(None);
    };
    Ok(built
        .owner
        .of(touch.collider.into_raw_parts().0)
        .map(|body| Hit {
            body,
            point: touch.at,
            normal: touch.normal,
            fraction: touch.fraction,
        }))
}

crate::physics::contacts::touch_changes!(rapier2d);
