//! Finding the physics worlds in a state, for the physics view (P9): a
//! table with `bodies`, `steps` and `gravity` is a world wherever it is,
//! read as a step would read it (a 3D one by physics/three/view.rs). The walk is bounded (depth and tables)
//! so a big state costs the view little; a world that does not read is
//! left out of the picture, not reported (the next step reports it).

use mlua::{Lua, Table, Value};

use super::read::{self, Kind, Shape};
use crate::colliders::{Colliders, Form, Motion, Outline};

/// How deep in the state a world is looked for.
const MAX_DEPTH: usize = 6;

/// The most tables looked into.
const MAX_TABLES: usize = 4096;

/// The outlines of the bodies of every world in `state`, and their
/// joints and contacts. A world the last step wrote is not read again
/// (its read is kept: `kept.rs`).
pub fn colliders(lua: &Lua, state: &Value) -> Colliders {
    let mut out = Colliders::default();
    let mut looked = 0;
    if let Value::Table(t) = state {
        find(lua, t, 0, &mut looked, &mut out);
    }
    out
}

fn is_world(t: &Table) -> bool {
    let has = |k: &str| !matches!(t.raw_get::<Value>(k), Ok(Value::Nil) | Err(_));
    matches!(t.raw_get::<Value>("bodies"), Ok(Value::Table(_))) && has("steps") && has("gravity")
}

fn find(lua: &Lua, t: &Table, depth: usize, looked: &mut usize, out: &mut Colliders) {
    *looked += 1;
    if *looked > MAX_TABLES {
        return;
    }
    if is_world(t) {
        match super::is_3d(t) {
            // A world that does not read is the next step's to report.
            Ok(false) => {
                let _ = super::with_read(lua, t, read::world, |world| {
                    add(world, out);
                    Ok(())
                });
            }
            Ok(true) => super::three::view::add_table(lua, t, out),
            Err(_) => {}
        }
        return;
    }
    if depth == MAX_DEPTH {
        return;
    }
    let _ = t.for_each::<Value, Value>(|_, v| {
        if let Value::Table(inner) = v
            && *looked <= MAX_TABLES
        {
            find(lua, &inner, depth + 1, looked, out);
        }
        Ok(())
    });
}

fn add(world: &read::World, out: &mut Colliders) {
    let first = out.outlines.len();
    for body in &world.bodies {
        let [x, y, angle, ..] = body.motion;
        let f = |v: f64| v as f32;
        let points = |p: &[[f64; 2]], closed| {
            Form::Points(p.iter().map(|q| (f(q[0]), f(q[1]))).collect(), closed)
        };
        out.outlines.push(Outline {
            x: f(x),
            y: f(y),
            angle: f(angle),
            form: match &body.shape {
                Shape::Circle { radius } => Form::Circle(f(*radius)),
                Shape::Box { width, height } => Form::Box(f(*width), f(*height)),
                Shape::Capsule { radius, length } => Form::Capsule(f(*radius), f(*length)),
                Shape::Polygon(p) => points(p, true),
                Shape::Polyline(p) => points(p, false),
            },
            motion: match body.kind {
                Kind::Dynamic => Motion::Dynamic,
                Kind::Kinematic => Motion::Kinematic,
                Kind::Fixed => Motion::Fixed,
            },
            sensor: body.props.sensor,
            touching: false,
        });
    }
    for &(a, b) in &world.touching.pairs {
        out.outlines[first + a].touching = true;
        out.outlines[first + b].touching = true;
    }
    for joint in &world.joints {
        let at = |i: usize, anchor: [f64; 2]| {
            let [x, y, angle, ..] = world.bodies[i].motion;
            let (s, c) = angle.sin_cos();
            [
                (x + anchor[0] * c - anchor[1] * s) as f32,
                (y + anchor[0] * s + anchor[1] * c) as f32,
            ]
        };
        let (a, b) = (at(joint.a, joint.anchor_a), at(joint.b, joint.anchor_b));
        out.joints.push([a[0], a[1], b[0], b[1]]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const WORLD: &str = "{ bodies = { b = { kind = 'dynamic', x = 1, y = 2, shape = { kind = 'circle', radius = 3 } } }, steps = 0, gravity = { x = 0, y = 0 } }";

    fn found(lua: &mlua::Lua, state: &str) -> usize {
        let state: Value = lua.load(format!("return {state}")).eval().unwrap();
        colliders(lua, &state).outlines.len()
    }

    // rule: P9
    #[test]
    fn the_walk_for_worlds_stops_at_its_depth_and_its_count_of_tables() {
        let lua = mlua::Lua::new();
        // Six tables down is looked at; seven is not.
        let nest = |depth: usize| {
            let mut s = WORLD.to_string();
            for _ in 0..depth {
                s = format!("{{ {s} }}");
            }
            s
        };
        assert_eq!(found(&lua, &nest(MAX_DEPTH)), 1);
        assert_eq!(found(&lua, &nest(MAX_DEPTH + 1)), 0);
        // A world behind more tables than the walk looks into is not
        // found, and the walk ends (a state of a million tables costs
        // the view what 4,096 do).
        let lua_state = format!(
            "(function() local t = {{}} for i = 1, {} do t[i] = {{}} end t.zz = {WORLD} return t end)()",
            MAX_TABLES + 10
        );
        assert_eq!(found(&lua, &lua_state), 0);
        let few = format!(
            "(function() local t = {{}} for i = 1, 10 do t[i] = {{}} end t.zz = {WORLD} return t end)()"
        );
        assert_eq!(found(&lua, &few), 1);
    }
}
