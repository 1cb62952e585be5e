//! The `scene` handle `render` poses the retained 3D scene with (rules H2,
//! C2, C3).
//!
//! ```lua
//! scene:object("ball", { mesh = "sphere", color = "#e04040", position = vector.create(0, 1, 0) })
//! scene:camera({ position = vector.create(0, 5, 10), target = vector.zero })
//! scene:light("sun", { kind = "directional", direction = vector.create(-1, -2, -1) })
//! ```

use crate::terminal::Number;
use std::rc::Rc;

use glam::{EulerRot, Quat, Vec3};
use mlua::{Lua, Table, UserData, UserDataMethods, Value};

use super::args;
use super::leases::Leases;
use crate::assets::Store;
use crate::color::Rgba;
use crate::scene::particles::{Emitter, MAX_PARTICLES};
use crate::scene::{Fog, Light, Mesh, Pose, Projection, Scene, Sky};
use crate::state::type_of;

/// The `scene` handle.
pub struct SceneHandle {
    leases: Rc<Leases>,
}

impl SceneHandle {
    /// Creates the handle posing what `leases` lends.
    pub fn new(leases: Rc<Leases>) -> Self {
        SceneHandle { leases }
    }
}

/// The most times a texture may repeat across a mesh, each way.
const MAX_TEXTURE_SCALE: f32 = 65_536.0;

fn fail(lua: &Lua, call: &str, reason: impl std::fmt::Display) -> mlua::Error {
    mlua::Error::RuntimeError(format!("{}scene:{call}: {reason}", super::location(lua, 1)))
}

fn number(lua: &Lua, call: &str, name: &str, value: &Value) -> mlua::Result<f32> {
    args::finite(name, value)
        .map(|v| v as f32)
        .map_err(|reason| fail(lua, call, reason))
}

/// Reads a vector: a Luau `vector`, or a table `{x, y, z}`.
fn vec3(lua: &Lua, call: &str, name: &str, value: &Value) -> mlua::Result<Vec3> {
    match value {
        Value::Vector(v) => {
            let out = Vec3::new(v.x(), v.y(), v.z());
            if !out.is_finite() {
                return Err(fail(
                    lua,
                    call,
                    format!("`{name}` has a component that is not finite"),
                ));
            }
            Ok(out)
        }
        Value::Table(t) => Ok(Vec3::new(
            number(lua, call, name, &t.raw_get(1)?)?,
            number(lua, call, name, &t.raw_get(2)?)?,
            number(lua, call, name, &t.raw_get(3)?)?,
        )),
        other => Err(fail(
            lua,
            call,
            format!("`{name}` should be a vector, not a {}", type_of(other)),
        )),
    }
}

/// Reads a rotation: Euler angles (x, y, z radians, applied in that order)
/// as a vector, or a quaternion `{x, y, z, w}`, its numbers in that order
/// or named (as a 3D body's `rotation` is, P10).
fn rotation(lua: &Lua, call: &str, value: &Value) -> mlua::Result<Quat> {
    let quaternion = |t: &Table| -> mlua::Result<Option<[Value; 4]>> {
        if t.raw_len() == 4 {
            return Ok(Some([
                t.raw_get(1)?,
                t.raw_get(2)?,
                t.raw_get(3)?,
                t.raw_get(4)?,
            ]));
        }
        let w: Value = t.raw_get("w")?;
        if w.is_nil() {
            return Ok(None);
        }
        Ok(Some([t.raw_get("x")?, t.raw_get("y")?, t.raw_get("z")?, w]))
    };
    if let Value::Table(t) = value
        && let Some(parts) = quaternion(t)?
    {
        let c: Vec<f32> = parts
            .iter()
            .map(|v| number(lua, call, "rotation", v))
            .collect::<mlua::Result<_>>()?;
        let q = Quat::from_xyzw(c[0], c[1], c[2], c[3]);
        if q.length_squared() < 1e-12 {
            return Err(fail(lua, call, "`rotation` is a zero quaternion"));
        }
        return Ok(q.normalize());
    }
    let e = vec3(lua, call, "rotation", value)?;
    Ok(Quat::from_euler(EulerRot::XYZ, e.x, e.y, e.z))
}

fn color(lua: &Lua, call: &str, value: &Value) -> mlua::Result<Rgba> {
    args::color(value).map_err(|reason| fail(lua, call, format!("`color`: {reason}")))
}

fn mesh(lua: &Lua, assets: &mut Store, value: &Value) -> mlua::Result<Mesh> {
    let Value::String(name) = value else {
        return Err(fail(
            lua,
            "object",
            "`mesh` is \"cube\", \"sphere\", \"plane\", \"cylinder\", \"billboard\" or a .gltf/.glb file",
        ));
    };
    let name = args::text("a mesh name", name, crate::assets::MAX_NAME)
        .map_err(|reason| fail(lua, "object", reason))?;
    Ok(match name.as_str() {
        "cube" => Mesh::Cube,
        "sphere" => Mesh::Sphere,
        "plane" => Mesh::Plane,
        "cylinder" => Mesh::Cylinder,
        "billboard" => Mesh::Billboard,
        file if file.ends_with(".gltf") || file.ends_with(".glb") => Mesh::Model(
            assets
                .model(file)
                .map_err(|reason| fail(lua, "object", reason))?,
        ),
        other => {
            return Err(fail(
                lua,
                "object",
                format!(
                    "unknown mesh `{other}` (use cube, sphere, plane, cylinder, billboard or a .gltf/.glb file)"
                ),
            ));
        }
    })
}

fn object(
    lua: &Lua,
    scene: &mut Scene,
    assets: &mut Store,
    name: &str,
    props: Option<Table>,
) -> mlua::Result<()> {
    let props = match props {
        Some(p) => p,
        None => lua.create_table()?,
    };
    let mesh_value: Value = props.raw_get("mesh")?;
    let new_mesh = if mesh_value.is_nil() {
        None
    } else {
        Some(mesh(lua, assets, &mesh_value)?)
    };
    let object = scene
        .object(name, new_mesh.clone().unwrap_or(Mesh::Cube))
        .map_err(|reason| fail(lua, "object", reason))?;
    if let Some(m) = new_mesh {
        object.mesh = m;
    }
    let mut named_parent = false;
    for pair in props.pairs::<String, Value>() {
        let (key, value) = pair?;
        match key.as_str() {
            "mesh" => {}
            "color" => object.material.color = color(lua, "object", &value)?,
            "texture" => {
                object.material.texture =
                    match &value {
                        Value::Boolean(false) => None,
                        // Loaded now, so a missing or broken file is an error
                        // at the author's line, not a white object.
                        Value::String(s) => {
                            let name = args::text("a texture name", s, crate::assets::MAX_NAME)
                                .map_err(|reason| fail(lua, "object", reason))?;
                            Some(assets.image(&name).map_err(|reason| {
                                fail(lua, "object", format!("texture: {reason}"))
                            })?)
                        }
                        _ => {
                            return Err(fail(
                                lua,
                                "object",
                                "`texture` is an image file name, or false for none",
                            ));
                        }
                    }
            }
            "lit" => {
                object.material.lit = value
                    .as_boolean()
                    .ok_or_else(|| fail(lua, "object", "`lit` is true or false"))?
            }
            "texture_scale" => {
                let [u, v] = match &value {
                    Value::Integer(_) | Value::Number(_) => {
                        [number(lua, "object", "texture_scale", &value)?; 2]
                    }
                    Value::Table(t) => [
                        number(lua, "object", "texture_scale", &t.raw_get(1)?)?,
                        number(lua, "object", "texture_scale", &t.raw_get(2)?)?,
                    ],
                    _ => {
                        let s = vec3(lua, "object", "texture_scale", &value)?;
                        [s.x, s.y]
                    }
                };
                if !(u > 0.0 && v > 0.0 && u <= MAX_TEXTURE_SCALE && v <= MAX_TEXTURE_SCALE) {
                    return Err(fail(
                        lua,
                        "object",
                        format!(
                            "`texture_scale` is how many times the texture repeats, above 0 \
                             and at most {MAX_TEXTURE_SCALE}, not {} by {}",
                            Number(u),
                            Number(v)
                        ),
                    ));
                }
                object.material.texture_scale = [u, v];
            }
            "metallic" | "roughness" => {
                let amount = number(lua, "object", &key, &value)?;
                if !(0.0..=1.0).contains(&amount) {
                    return Err(fail(
                        lua,
                        "object",
                        format!("`{key}` is from 0 to 1, not {}", Number(amount)),
                    ));
                }
                if key == "metallic" {
                    object.material.metallic = Some(amount);
                } else {
                    object.material.roughness = Some(amount);
                }
            }
            "emissive" => object.material.emissive = color(lua, "object", &value)?,
            "filter" => {
                object.material.nearest = match &value {
                    Value::String(s) if s.as_bytes() == b"nearest" => true,
                    Value::String(s) if s.as_bytes() == b"linear" => false,
                    _ => {
                        return Err(fail(
                            lua,
                            "object",
                            "`filter` is \"nearest\" (whole pixels) or \"linear\" (blended)",
                        ));
                    }
                }
            }
            "position" => object.position = vec3(lua, "object", "position", &value)?,
            "rotation" => object.rotation = rotation(lua, "object", &value)?,
            "scale" => {
                object.scale = match &value {
                    Value::Integer(_) | Value::Number(_) => {
                        Vec3::splat(number(lua, "object", "scale", &value)?)
                    }
                    _ => vec3(lua, "object", "scale", &value)?,
                }
            }
            "visible" => {
                object.visible = value
                    .as_boolean()
                    .ok_or_else(|| fail(lua, "object", "`visible` is true or false"))?
            }
            "parent" => {
                named_parent = true;
                object.parent_named_at = None;
                object.parent = match &value {
                    Value::Boolean(false) => None,
                    Value::String(s) if s.as_bytes() == name.as_bytes() => {
                        return Err(fail(
                            lua,
                            "object",
                            format!("`{name}` cannot be its own parent"),
                        ));
                    }
                    Value::String(s) => Some(name_arg(lua, "object", s)?),
                    _ => {
                        return Err(fail(
                            lua,
                            "object",
                            "`parent` is an object's name, or false for none",
                        ));
                    }
                }
            }
            "particles" => {
                object.particles = match &value {
                    Value::Boolean(false) => None,
                    Value::Table(t) => Some(emitter(lua, t)?),
                    _ => {
                        return Err(fail(
                            lua,
                            "object",
                            "`particles` is { count, lifetime, speed, spread, direction, gravity, size, color, seed, time }, or false for none",
                        ));
                    }
                }
            }
            "animation" => {
                object.pose = match &value {
                    Value::Boolean(false) => None,
                    Value::Table(t) => Some(pose(lua, assets, &object.mesh, t)?),
                    _ => {
                        return Err(fail(
                            lua,
                            "object",
                            "`animation` is { name = clip, time = seconds }, or false for none",
                        ));
                    }
                }
            }
            other => {
                return Err(fail(
                    lua,
                    "object",
                    format!(
                        "no property `{other}` (it takes mesh, color, texture, texture_scale, filter, metallic, roughness, emissive, lit, position, rotation, scale, visible, parent, animation, particles)"
                    ),
                ));
            }
        }
    }
    // A parent may be posed later in this render; if it never is, step 7
    // says so at the line that named it.
    if named_parent && scene.parent_missing(name) {
        scene.note_parent_place(name, super::location(lua, 1));
    }
    Ok(())
}

fn camera(lua: &Lua, scene: &mut Scene, props: Table) -> mlua::Result<()> {
    let get = |key: &str| -> mlua::Result<Value> { props.raw_get(key) };
    let (mut fov, mut near, mut far) = match scene.camera.projection {
        Projection::Perspective { fov, near, far } => (fov, near, far),
        Projection::Orthographic { near, far, .. } => (60f32.to_radians(), near, far),
    };
    known_props(
        lua,
        "camera",
        &props,
        &[
            "position", "target", "up", "rotation", "fov", "near", "far", "ortho",
        ],
    )?;
    if !get("fov")?.is_nil() {
        fov = number(lua, "camera", "fov", &get("fov")?)?;
        if !(0.01..3.13).contains(&fov) {
            return Err(fail(
                lua,
                "camera",
                format!(
                    "`fov` is {}; it is in radians, between 0.01 and 3.13",
                    Number(fov)
                ),
            ));
        }
    }
    if !get("near")?.is_nil() {
        near = number(lua, "camera", "near", &get("near")?)?;
    }
    if !get("far")?.is_nil() {
        far = number(lua, "camera", "far", &get("far")?)?;
    }
    if !(near > 0.0 && far > near) {
        return Err(fail(
            lua,
            "camera",
            format!("`near` ({near}) must be above 0 and below `far` ({far})"),
        ));
    }
    scene.camera.projection = match get("ortho")? {
        Value::Nil | Value::Boolean(false) => Projection::Perspective { fov, near, far },
        value => {
            let height = number(lua, "camera", "ortho", &value)?;
            if height <= 0.0 {
                return Err(fail(
                    lua,
                    "camera",
                    "`ortho` is the visible height in world units, above 0",
                ));
            }
            Projection::Orthographic { height, near, far }
        }
    };
    let position = match get("position")? {
        Value::Nil => scene.camera.pose.transform_point3(Vec3::ZERO),
        value => vec3(lua, "camera", "position", &value)?,
    };
    let up = match get("up")? {
        Value::Nil => Vec3::Y,
        value => vec3(lua, "camera", "up", &value)?,
    };
    match (get("target")?, get("rotation")?) {
        (Value::Nil, Value::Nil) => {
            let rotation =
                glam::Mat4::from_quat(scene.camera.pose.to_scale_rotation_translation().1);
            scene.camera.pose = glam::Mat4::from_translation(position) * rotation;
        }
        (target, Value::Nil) => {
            let target = vec3(lua, "camera", "target", &target)?;
            scene
                .camera
                .look_at(position, target, up)
                .map_err(|reason| fail(lua, "camera", reason))?;
        }
        (Value::Nil, rot) => {
            let q = rotation(lua, "camera", &rot)?;
            scene.camera.pose = glam::Mat4::from_rotation_translation(q, position);
        }
        _ => return Err(fail(lua, "camera", "give `target` or `rotation`, not both")),
    }
    Ok(())
}

/// Refuses a property of `props` not in `known`, naming what `call` takes.
fn known_props(lua: &Lua, call: &str, props: &Table, known: &[&str]) -> mlua::Result<()> {
    for pair in props.pairs::<Value, Value>() {
        let (key, _) = pair?;
        let name = match &key {
            Value::String(s) => s.to_string_lossy(),
            other => type_of(other).to_string(),
        };
        if !known.contains(&name.as_str()) {
            return Err(fail(
                lua,
                call,
                format!(
                    "no property `{}` (it takes {})",
                    crate::terminal::escape(&name),
                    known.join(", ")
                ),
            ));
        }
    }
    Ok(())
}

/// The props a setting of the scene was given (`takes`), or `None` when it
/// was given `false` (or nothing): the setting goes.
fn props_or_none(lua: &Lua, call: &str, props: Value, takes: &str) -> mlua::Result<Option<Table>> {
    match props {
        Value::Boolean(false) | Value::Nil => Ok(None),
        Value::Table(t) => Ok(Some(t)),
        other => Err(fail(
            lua,
            call,
            format!(
                "takes {takes}, or false for none, not a {}",
                type_of(&other)
            ),
        )),
    }
}

/// `scene:sky{ top, bottom, image }` (or `false`, none): the gradient (or picture) drawn behind
/// every object, by the direction each pixel looks.
fn sky(lua: &Lua, scene: &mut Scene, assets: &mut Store, props: Value) -> mlua::Result<()> {
    let Some(props) = props_or_none(lua, "sky", props, "{ top, bottom, image }")? else {
        scene.sky = None;
        return Ok(());
    };
    known_props(lua, "sky", &props, &["top", "bottom", "image"])?;
    let image = match props.raw_get::<Value>("image")? {
        Value::Nil => None,
        Value::String(s) => {
            let name = args::text("an image name", &s, crate::assets::MAX_NAME)
                .map_err(|reason| fail(lua, "sky", reason))?;
            Some(
                assets
                    .image(&name)
                    .map_err(|reason| fail(lua, "sky", format!("image: {reason}")))?,
            )
        }
        _ => return Err(fail(lua, "sky", "`image` is an image file name")),
    };
    let top: Value = props.raw_get("top")?;
    if top.is_nil() && image.is_none() {
        return Err(fail(
            lua,
            "sky",
            "`top` is the color straight up (or give an `image`)",
        ));
    }
    let top = if top.is_nil() {
        Rgba::WHITE
    } else {
        color(lua, "sky", &top)?
    };
    let bottom: Value = props.raw_get("bottom")?;
    let bottom = if bottom.is_nil() {
        top
    } else {
        color(lua, "sky", &bottom)?
    };
    scene.sky = Some(Sky { top, bottom, image });
    Ok(())
}

/// `scene:fog{ color, near, far }` (or `false`, none): what is farther than
/// `near` from the camera fades into `color`, whole at `far`.
fn fog(lua: &Lua, scene: &mut Scene, props: Value) -> mlua::Result<()> {
    let Some(props) = props_or_none(lua, "fog", props, "{ color, near, far }")? else {
        scene.fog = None;
        return Ok(());
    };
    known_props(lua, "fog", &props, &["color", "near", "far"])?;
    let color_value: Value = props.raw_get("color")?;
    if color_value.is_nil() {
        return Err(fail(lua, "fog", "`color` is the fog's color"));
    }
    let fog_color = color(lua, "fog", &color_value)?;
    let near_value: Value = props.raw_get("near")?;
    let near = if near_value.is_nil() {
        0.0
    } else {
        number(lua, "fog", "near", &near_value)?
    };
    let far_value: Value = props.raw_get("far")?;
    if far_value.is_nil() {
        return Err(fail(
            lua,
            "fog",
            "`far` is where the fog is whole, in world units",
        ));
    }
    let far = number(lua, "fog", "far", &far_value)?;
    if !(near >= 0.0 && far > near) {
        return Err(fail(
            lua,
            "fog",
            format!(
                "`near` ({}) is 0 or more and below `far` ({})",
                Number(near),
                Number(far)
            ),
        ));
    }
    scene.fog = Some(Fog {
        color: fog_color,
        near,
        far,
    });
    Ok(())
}

fn light(lua: &Lua, scene: &mut Scene, name: &str, props: Table) -> mlua::Result<()> {
    let kind = match props.raw_get::<Value>("kind")? {
        Value::String(s) => Some(s.to_string_lossy()),
        _ => None,
    };
    let color_value: Value = props.raw_get("color")?;
    let color = if color_value.is_nil() {
        Rgba::WHITE
    } else {
        color(lua, "light", &color_value)?
    };
    let intensity_value: Value = props.raw_get("intensity")?;
    let intensity = if intensity_value.is_nil() {
        1.0
    } else {
        number(lua, "light", "intensity", &intensity_value)?
    };
    if intensity < 0.0 {
        return Err(fail(lua, "light", "`intensity` is 0 or more"));
    }
    let rgb = Vec3::new(color.r, color.g, color.b) * intensity;
    let light = match kind.as_deref() {
        Some("ambient") => Light::Ambient { color: rgb },
        Some("directional") => {
            let direction = vec3(lua, "light", "direction", &props.raw_get("direction")?)?;
            let direction = direction
                .try_normalize()
                .ok_or_else(|| fail(lua, "light", "`direction` is the zero vector"))?;
            let shadows = match props.raw_get::<Value>("shadows")? {
                Value::Nil => true,
                Value::Boolean(b) => b,
                other => {
                    return Err(fail(
                        lua,
                        "light",
                        format!("`shadows` is true or false, not a {}", type_of(&other)),
                    ));
                }
            };
            Light::Directional {
                color: rgb,
                direction,
                shadows,
            }
        }
        Some("point") => {
            let position = vec3(lua, "light", "position", &props.raw_get("position")?)?;
            let range_value: Value = props.raw_get("range")?;
            let range = if range_value.is_nil() {
                10.0
            } else {
                number(lua, "light", "range", &range_value)?
            };
            if range <= 0.0 {
                return Err(fail(lua, "light", "`range` is above 0"));
            }
            Light::Point {
                color: rgb,
                position,
                range,
            }
        }
        _ => {
            return Err(fail(
                lua,
                "light",
                "`kind` is \"ambient\", \"directional\" or \"point\"",
            ));
        }
    };
    scene
        .set_light(name, light)
        .map_err(|reason| fail(lua, "light", reason))
}

/// Reads `animation = { name, time, loop }` for an object of `mesh`: the
/// clip must be one of the model's.
fn pose(lua: &Lua, assets: &Store, mesh: &Mesh, props: &Table) -> mlua::Result<Pose> {
    let Mesh::Model(id) = mesh else {
        return Err(fail(
            lua,
            "object",
            "`animation` poses a glTF model; give the object a `mesh` file with clips",
        ));
    };
    let model = assets.model_at(*id);
    let name = match props.raw_get::<Value>("name")? {
        Value::String(s) => s.to_string_lossy(),
        _ => {
            return Err(fail(
                lua,
                "object",
                "`animation.name` is the name of one of the model's clips",
            ));
        }
    };
    let clips = model.rig.as_ref().map_or(&[][..], |r| &r.clips[..]);
    let Some(clip) = clips.iter().position(|c| c.name == name) else {
        let known = model
            .rig
            .as_ref()
            .filter(|r| !r.clips.is_empty())
            .map_or_else(
                || "it has none".to_string(),
                |r| format!("it has {}", r.clip_names()),
            );
        return Err(fail(
            lua,
            "object",
            format!(
                "`{}` has no clip `{}` ({known})",
                crate::terminal::escape(&model.name),
                crate::terminal::escape(&name)
            ),
        ));
    };
    let time = number(lua, "object", "animation.time", &props.raw_get("time")?)?;
    let looped = match props.raw_get::<Value>("loop")? {
        Value::Nil => true,
        Value::Boolean(b) => b,
        _ => return Err(fail(lua, "object", "`animation.loop` is true or false")),
    };
    for pair in props.pairs::<Value, Value>() {
        let (key, _) = pair?;
        let known = matches!(&key, Value::String(k) if matches!(k.as_bytes().as_ref(), b"name" | b"time" | b"loop"));
        if !known {
            return Err(fail(lua, "object", "`animation` takes name, time and loop"));
        }
    }
    Ok(Pose {
        clip: clip as u32,
        time,
        looped,
    })
}

/// Reads `particles = { ... }`: an emitter.
fn emitter(lua: &Lua, props: &Table) -> mlua::Result<Emitter> {
    let mut e = Emitter {
        count: 100,
        lifetime: 1.0,
        speed: 1.0,
        spread: 0.3,
        direction: Vec3::Y,
        gravity: Vec3::ZERO,
        size: [0.1, 0.1],
        color: [Rgba::WHITE, Rgba::WHITE],
        seed: 0,
        time: f32::NAN,
    };
    let call = "particles";
    // A number, or a pair from birth to death.
    let pair_of_numbers = |key: &str, value: &Value| -> mlua::Result<[f32; 2]> {
        match value {
            Value::Table(t) => Ok([
                number(lua, call, key, &t.raw_get(1)?)?,
                number(lua, call, key, &t.raw_get(2)?)?,
            ]),
            _ => Ok([number(lua, call, key, value)?; 2]),
        }
    };
    for pair in props.pairs::<Value, Value>() {
        let (key, value) = pair?;
        let key = match &key {
            Value::String(k) => k.to_string_lossy(),
            other => {
                return Err(fail(
                    lua,
                    call,
                    format!("a key that is a {}, not a name", type_of(other)),
                ));
            }
        };
        match key.as_str() {
            "count" => {
                let n = number(lua, call, "count", &value)?;
                if !((0.0..=MAX_PARTICLES as f32).contains(&n) && n.fract() == 0.0) {
                    return Err(fail(
                        lua,
                        call,
                        format!("`count` is a whole number from 0 to {MAX_PARTICLES}"),
                    ));
                }
                e.count = n as u32;
            }
            "lifetime" => e.lifetime = number(lua, call, "lifetime", &value)?,
            "speed" => e.speed = number(lua, call, "speed", &value)?,
            "spread" => e.spread = number(lua, call, "spread", &value)?,
            "direction" => e.direction = vec3(lua, call, "direction", &value)?,
            "gravity" => e.gravity = vec3(lua, call, "gravity", &value)?,
            "size" => e.size = pair_of_numbers("size", &value)?,
            "color" => {
                e.color = match &value {
                    // `{ from, to }`: two colors (a color table holds
                    // numbers, not colors).
                    Value::Table(t)
                        if !matches!(
                            t.raw_get::<Value>(1)?,
                            Value::Number(_) | Value::Integer(_)
                        ) =>
                    {
                        [
                            color(lua, call, &t.raw_get(1)?)?,
                            color(lua, call, &t.raw_get(2)?)?,
                        ]
                    }
                    _ => [color(lua, call, &value)?; 2],
                }
            }
            "seed" => e.seed = number(lua, call, "seed", &value)? as u32,
            "time" => e.time = number(lua, call, "time", &value)?,
            other => {
                return Err(fail(
                    lua,
                    call,
                    format!(
                        "no property `{}` (it takes count, lifetime, speed, spread, direction, gravity, size, color, seed, time)",
                        crate::terminal::escape(other)
                    ),
                ));
            }
        }
    }
    if e.time.is_nan() {
        return Err(fail(
            lua,
            call,
            "`time` is needed: the seconds since it started, from the state",
        ));
    }
    if e.lifetime <= 0.0 {
        return Err(fail(lua, call, "`lifetime` is above 0"));
    }
    if !(0.0..=std::f32::consts::PI).contains(&e.spread) {
        return Err(fail(lua, call, "`spread` is from 0 to math.pi radians"));
    }
    if e.size.iter().any(|s| *s < 0.0) {
        return Err(fail(lua, call, "`size` is 0 or more"));
    }
    Ok(e)
}

/// Reads an object's or light's name for `call`.
fn name_arg(lua: &Lua, call: &str, name: &mlua::LuaString) -> mlua::Result<String> {
    args::name("a name", name).map_err(|reason| fail(lua, call, reason))
}

impl UserData for SceneHandle {
    fn add_methods<M: UserDataMethods<Self>>(methods: &mut M) {
        methods.add_method(
            "object",
            |lua, this, (name, props): (mlua::LuaString, Option<Table>)| {
                let scene = this.leases.scene(lua, "scene")?;
                let assets = this.leases.assets(lua, "scene")?;
                let name = name_arg(lua, "object", &name)?;
                object(lua, scene, assets, &name, props)
            },
        );
        methods.add_method("remove", |lua, this, name: mlua::LuaString| {
            let scene = this.leases.scene(lua, "scene")?;
            Ok(scene.remove(&name_arg(lua, "remove", &name)?))
        });
        methods.add_method("has", |lua, this, name: mlua::LuaString| {
            let scene = this.leases.scene(lua, "scene")?;
            Ok(scene.ask(&name_arg(lua, "has", &name)?).is_some())
        });
        methods.add_method("get", |lua, this, name: mlua::LuaString| {
            let scene = this.leases.scene(lua, "scene")?;
            let Some(o) = scene.ask(&name_arg(lua, "get", &name)?) else {
                return Ok(None);
            };
            let t = lua.create_table()?;
            t.raw_set(
                "position",
                mlua::Vector::new(o.position.x, o.position.y, o.position.z),
            )?;
            t.raw_set("scale", mlua::Vector::new(o.scale.x, o.scale.y, o.scale.z))?;
            let q =
                lua.create_sequence_from([o.rotation.x, o.rotation.y, o.rotation.z, o.rotation.w])?;
            t.raw_set("rotation", q)?;
            t.raw_set("visible", o.visible)?;
            t.raw_set("parent", o.parent.clone())?;
            // Where step 7 last placed it, parents and all.
            let w = o.world.w_axis;
            t.raw_set("world", mlua::Vector::new(w.x, w.y, w.z))?;
            Ok(Some(t))
        });
        methods.add_method("project", |lua, this, point: Value| {
            let scene = this.leases.scene(lua, "scene")?;
            let point = vec3(lua, "project", "point", &point)?;
            let logical = this.leases.screen(lua, "scene")?.logical();
            Ok(scene
                .project(point, logical)
                .map_or((None, None), |(x, y)| (Some(x), Some(y))))
        });
        methods.add_method("camera", |lua, this, props: Table| {
            let scene = this.leases.scene(lua, "scene")?;
            camera(lua, scene, props)
        });
        methods.add_method("sky", |lua, this, props: Value| {
            let scene = this.leases.scene(lua, "scene")?;
            let assets = this.leases.assets(lua, "scene")?;
            sky(lua, scene, assets, props)
        });
        methods.add_method("fog", |lua, this, props: Value| {
            let scene = this.leases.scene(lua, "scene")?;
            fog(lua, scene, props)
        });
        methods.add_method(
            "light",
            |lua, this, (name, props): (mlua::LuaString, Table)| {
                let scene = this.leases.scene(lua, "scene")?;
                let name = name_arg(lua, "light", &name)?;
                light(lua, scene, &name, props)
            },
        );
        methods.add_method("remove_light", |lua, this, name: mlua::LuaString| {
            let scene = this.leases.scene(lua, "scene")?;
            Ok(scene.remove_light(&name_arg(lua, "remove_light", &name)?))
        });
    }
}
