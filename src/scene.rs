//! Scene: the retained 3D objects, camera and lights `render` poses (rule
//! H2), and step 7's CPU work: world matrices from the hierarchy, the
//! camera read into the view the next frame's pointer ray is cast through.
//!
//! Objects live across frames and are found by name. Coordinates are
//! right-handed, y up; angles are radians; sizes are world units.

use std::collections::HashMap;

use glam::camera::rh::proj::directx as proj;
use glam::camera::rh::view::look_at_mat4;
use glam::{Mat4, Quat, Vec3, Vec4};

use crate::assets::{ImageId, ModelId, Store};
use crate::color::Rgba;

/// The shape an object draws.
#[derive(Debug, Clone, PartialEq)]
pub enum Mesh {
    /// A unit cube centered on the origin.
    Cube,
    /// A sphere of diameter 1.
    Sphere,
    /// A 1x1 square in the xz plane, facing up.
    Plane,
    /// A cylinder of diameter 1 and height 1 along y.
    Cylinder,
    /// A mesh loaded from a glTF file in the game folder.
    Model(ModelId),
}

/// How an object's surface looks.
#[derive(Debug, Clone, PartialEq)]
pub struct Material {
    /// Base color. Default: white.
    pub color: Rgba,
    /// An image from the game folder wrapped over the mesh. Default: none.
    pub texture: Option<ImageId>,
    /// Whether lights shade it. Default: true.
    pub lit: bool,
}

impl Default for Material {
    fn default() -> Self {
        Material {
            color: Rgba::WHITE,
            texture: None,
            lit: true,
        }
    }
}

/// One retained object.
#[derive(Debug, Clone, PartialEq)]
pub struct Object {
    /// Its name, unique in the scene.
    pub name: String,
    /// Its shape.
    pub mesh: Mesh,
    /// Its surface.
    pub material: Material,
    /// Position relative to the parent. Default: the origin.
    pub position: Vec3,
    /// Rotation relative to the parent. Default: none.
    pub rotation: Quat,
    /// Scale relative to the parent. Default: 1.
    pub scale: Vec3,
    /// Whether it (and its children) draw and can be hit. Default: true.
    pub visible: bool,
    /// The parent's name. Default: none.
    pub parent: Option<String>,
    /// The world matrix, computed at step 7.
    pub world: Mat4,
    /// The scene's epoch when `render` last posed or asked about it.
    seen: u32,
}

impl Object {
    fn new(name: &str, mesh: Mesh) -> Object {
        Object {
            name: name.to_string(),
            mesh,
            material: Material::default(),
            position: Vec3::ZERO,
            rotation: Quat::IDENTITY,
            scale: Vec3::ONE,
            visible: true,
            parent: None,
            world: Mat4::IDENTITY,
            seen: 0,
        }
    }

    /// Returns the transform relative to the parent.
    pub fn local(&self) -> Mat4 {
        Mat4::from_scale_rotation_translation(self.scale, self.rotation, self.position)
    }
}

/// How the camera projects.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Projection {
    /// Perspective with a vertical field of view.
    Perspective {
        /// Vertical field of view in radians. Default: 60 degrees.
        fov: f32,
        /// Near plane. Default: 0.1.
        near: f32,
        /// Far plane. Default: 1000.
        far: f32,
    },
    /// Orthographic, showing `height` world units from top to bottom.
    Orthographic {
        /// Visible height in world units.
        height: f32,
        /// Near plane.
        near: f32,
        /// Far plane.
        far: f32,
    },
}

/// The camera: where it is, where it looks, how it projects.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Camera {
    /// Camera-to-world transform (the inverse of the view).
    pub pose: Mat4,
    /// The projection.
    pub projection: Projection,
}

impl Default for Camera {
    fn default() -> Self {
        Camera {
            pose: look_at_mat4(Vec3::new(0.0, 2.0, 5.0), Vec3::ZERO, Vec3::Y).inverse(),
            projection: Projection::Perspective {
                fov: 60f32.to_radians(),
                near: 0.1,
                far: 1000.0,
            },
        }
    }
}

impl Camera {
    /// Poses the camera at `position` looking at `target`.
    ///
    /// # Errors
    /// The two points coincide, or the view is straight along `up`.
    pub fn look_at(&mut self, position: Vec3, target: Vec3, up: Vec3) -> Result<(), String> {
        let forward = target - position;
        if forward.length_squared() < 1e-12 {
            return Err("`position` and `target` are the same point".into());
        }
        if forward
            .normalize()
            .cross(up.normalize_or_zero())
            .length_squared()
            < 1e-12
        {
            return Err("the camera looks straight along `up`; give another `up`".into());
        }
        self.pose = look_at_mat4(position, target, up).inverse();
        Ok(())
    }

    /// Returns the view matrix (world to camera).
    pub fn view(&self) -> Mat4 {
        self.pose.inverse()
    }

    /// Returns the projection matrix for a viewport of `aspect` (w / h),
    /// with depth from 0 to 1 and y up, as wgpu expects (glam calls this
    /// the DirectX convention).
    pub fn projection_matrix(&self, aspect: f32) -> Mat4 {
        match self.projection {
            Projection::Perspective { fov, near, far } => proj::perspective(fov, aspect, near, far),
            Projection::Orthographic { height, near, far } => {
                let (hw, hh) = (height * aspect / 2.0, height / 2.0);
                proj::orthographic(-hw, hw, -hh, hh, near, far)
            }
        }
    }
}

/// A light.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Light {
    /// Light from everywhere.
    Ambient {
        /// Its color times its intensity.
        color: Vec3,
    },
    /// Light from far away along a direction.
    Directional {
        /// Its color times its intensity.
        color: Vec3,
        /// Where the light travels (not where it comes from).
        direction: Vec3,
    },
    /// Light from a point, fading to nothing at `range`.
    Point {
        /// Its color times its intensity.
        color: Vec3,
        /// Where it is.
        position: Vec3,
        /// How far it reaches.
        range: f32,
    },
}

/// What the camera was at the last step 7: the next frame's pointer ray is
/// cast through it, so a click picks what the player saw.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Seen {
    /// Clip space to world.
    pub inverse_view_projection: Mat4,
}

/// The retained scene of one game.
#[derive(Debug, Default)]
pub struct Scene {
    objects: Vec<Object>,
    index: HashMap<String, usize>,
    /// The camera as `render` posed it.
    pub camera: Camera,
    /// Each light, its name, and the epoch it was last posed in.
    lights: Vec<(String, Light, u32)>,
    seen: Option<Seen>,
    /// Moves on at each reload; see [`Scene::begin_sweep`].
    epoch: u32,
    sweeping: bool,
}

/// The most objects a scene holds.
pub const MAX_OBJECTS: usize = 200_000;

/// The most lights a scene holds (the renderer shades with the first
/// few; see `render`).
pub const MAX_LIGHTS: usize = 1024;

impl Scene {
    /// Creates an empty scene.
    pub fn new() -> Scene {
        Scene::default()
    }

    /// Returns the object called `name`.
    pub fn get(&self, name: &str) -> Option<&Object> {
        self.index.get(name).map(|&i| &self.objects[i])
    }

    /// Returns the object called `name` as `render` asks about it
    /// (`scene:get`, `scene:has`): asking counts as posing it for
    /// [`Scene::sweep`].
    pub fn ask(&mut self, name: &str) -> Option<&Object> {
        let epoch = self.epoch;
        let i = *self.index.get(name)?;
        self.objects[i].seen = epoch;
        Some(&self.objects[i])
    }

    /// Starts a sweep (after a reload): the objects and lights the next
    /// `render` neither poses nor asks about are removed when it ends
    /// ([`Scene::sweep`]), so an object whose code was deleted leaves the
    /// scene (H8).
    pub fn begin_sweep(&mut self) {
        self.epoch = self.epoch.wrapping_add(1);
        self.sweeping = true;
    }

    /// Ends a sweep begun by [`Scene::begin_sweep`], after the render that
    /// followed it; does nothing when none was begun.
    pub fn sweep(&mut self) {
        if !self.sweeping {
            return;
        }
        self.sweeping = false;
        let epoch = self.epoch;
        let gone: Vec<String> = self
            .objects
            .iter()
            .filter(|o| o.seen != epoch)
            .map(|o| o.name.clone())
            .collect();
        for name in gone {
            self.remove(&name);
        }
        self.lights.retain(|(_, _, seen)| *seen == epoch);
    }

    /// Returns the object called `name`, creating it with `mesh` if there
    /// is none.
    ///
    /// # Errors
    /// The scene already holds [`MAX_OBJECTS`].
    pub fn object(&mut self, name: &str, mesh: Mesh) -> Result<&mut Object, String> {
        let epoch = self.epoch;
        let i = match self.index.get(name) {
            Some(&i) => i,
            None => {
                if self.objects.len() == MAX_OBJECTS {
                    return Err(format!(
                        "the scene holds {MAX_OBJECTS} objects, the most it can"
                    ));
                }
                self.objects.push(Object::new(name, mesh));
                self.index.insert(name.to_string(), self.objects.len() - 1);
                self.objects.len() - 1
            }
        };
        let object = &mut self.objects[i];
        object.seen = epoch;
        Ok(object)
    }

    /// Removes the object called `name`; says whether there was one.
    /// Its children stay, without a parent.
    pub fn remove(&mut self, name: &str) -> bool {
        let Some(i) = self.index.remove(name) else {
            return false;
        };
        self.objects.swap_remove(i);
        if i < self.objects.len() {
            self.index.insert(self.objects[i].name.clone(), i);
        }
        for object in &mut self.objects {
            if object.parent.as_deref() == Some(name) {
                object.parent = None;
            }
        }
        true
    }

    /// Returns every object.
    pub fn objects(&self) -> &[Object] {
        &self.objects
    }

    /// Sets the light called `name`.
    ///
    /// # Errors
    /// The scene already holds [`MAX_LIGHTS`] other lights.
    pub fn set_light(&mut self, name: &str, light: Light) -> Result<(), String> {
        let full = self.lights.len() == MAX_LIGHTS;
        let epoch = self.epoch;
        match self.lights.iter_mut().find(|(n, _, _)| n == name) {
            Some((_, l, seen)) => {
                *l = light;
                *seen = epoch;
            }
            None if full => {
                return Err(format!(
                    "the scene holds {MAX_LIGHTS} lights, the most it can"
                ));
            }
            None => self.lights.push((name.to_string(), light, epoch)),
        }
        Ok(())
    }

    /// Removes the light called `name`.
    pub fn remove_light(&mut self, name: &str) -> bool {
        let before = self.lights.len();
        self.lights.retain(|(n, _, _)| n != name);
        before != self.lights.len()
    }

    /// Returns the lights.
    pub fn lights(&self) -> impl Iterator<Item = &Light> {
        self.lights.iter().map(|(_, l, _)| l)
    }

    /// Computes every object's world matrix from the hierarchy (step 7).
    ///
    /// # Errors
    /// A parent is missing or the parents form a cycle; the message names
    /// the objects.
    pub fn update_world(&mut self) -> Result<(), String> {
        // Objects are few levels deep; resolve each by walking to its root.
        for i in 0..self.objects.len() {
            let mut world = self.objects[i].local();
            let mut child = i;
            let mut chain = 0;
            while let Some(name) = &self.objects[child].parent {
                let Some(&p) = self.index.get(name) else {
                    return Err(format!(
                        "`{}` has parent `{name}`, which is not in the scene",
                        self.objects[child].name
                    ));
                };
                chain += 1;
                if chain > self.objects.len() {
                    return Err(format!(
                        "`{}` is its own ancestor: the parents form a cycle",
                        self.objects[i].name
                    ));
                }
                world = self.objects[p].local() * world;
                child = p;
            }
            self.objects[i].world = world;
        }
        Ok(())
    }

    /// Reads the camera into the view the next pointer ray uses (step 7),
    /// for a viewport of `aspect` (width / height).
    pub fn read_camera(&mut self, aspect: f32) {
        let view_projection = self.camera.projection_matrix(aspect) * self.camera.view();
        self.seen = Some(Seen {
            inverse_view_projection: view_projection.inverse(),
        });
    }

    /// Returns the ray under the pointer at `(x, y)` in a logical area of
    /// `logical` size, through the camera read at the last step 7.
    pub fn ray(&self, pointer: (f64, f64), logical: (u32, u32)) -> Option<(Vec3, Vec3)> {
        let seen = self.seen?;
        let x = (2.0 * pointer.0 / logical.0 as f64 - 1.0) as f32;
        let y = (1.0 - 2.0 * pointer.1 / logical.1 as f64) as f32;
        let near = seen.inverse_view_projection * Vec4::new(x, y, 0.0, 1.0);
        let far = seen.inverse_view_projection * Vec4::new(x, y, 1.0, 1.0);
        let (near, far) = (near.truncate() / near.w, far.truncate() / far.w);
        let direction = (far - near).try_normalize()?;
        Some((near, direction))
    }

    /// Returns the nearest visible object the ray hits, and the distance
    /// (models by their bounds, from `assets`).
    pub fn hit(&self, origin: Vec3, direction: Vec3, assets: &Store) -> Option<(&Object, f32)> {
        let mut best: Option<(&Object, f32)> = None;
        for object in &self.objects {
            if !self.is_visible(object) {
                continue;
            }
            let inverse = object.world.inverse();
            let o = inverse.transform_point3(origin);
            let d = inverse.transform_vector3(direction);
            let (min, max) = match &object.mesh {
                Mesh::Cube | Mesh::Cylinder => (Vec3::splat(-0.5), Vec3::splat(0.5)),
                Mesh::Sphere => (Vec3::splat(-0.5), Vec3::splat(0.5)),
                Mesh::Plane => (Vec3::new(-0.5, -1e-4, -0.5), Vec3::new(0.5, 1e-4, 0.5)),
                Mesh::Model(id) => assets.model_at(*id).bounds,
            };
            let local_t = match object.mesh {
                Mesh::Sphere => ray_sphere(o, d, 0.5),
                _ => ray_box(o, d, min, max),
            };
            if let Some(t) = local_t {
                // Distance along the world ray: the local parameter is the same.
                let distance = (object.world.transform_point3(o + d * t) - origin).length();
                if best.is_none_or(|(_, b)| distance < b) {
                    best = Some((object, distance));
                }
            }
        }
        best
    }

    /// Says whether `object` and all its ancestors are visible.
    pub fn is_visible(&self, object: &Object) -> bool {
        let mut current = Some(object);
        let mut steps = 0;
        while let Some(o) = current {
            if !o.visible {
                return false;
            }
            steps += 1;
            if steps > self.objects.len() {
                return false;
            }
            current = o.parent.as_deref().and_then(|p| self.get(p));
        }
        true
    }
}

/// Where a ray enters a box (slab test); `None` if it misses or the box is behind.
fn ray_box(origin: Vec3, direction: Vec3, min: Vec3, max: Vec3) -> Option<f32> {
    let inv = direction.recip();
    let t1 = (min - origin) * inv;
    let t2 = (max - origin) * inv;
    let near = t1.min(t2).max_element();
    let far = t1.max(t2).min_element();
    (near <= far && far >= 0.0).then_some(near.max(0.0))
}

/// Where a ray enters a sphere at the origin.
fn ray_sphere(origin: Vec3, direction: Vec3, radius: f32) -> Option<f32> {
    let a = direction.length_squared();
    let b = origin.dot(direction);
    let c = origin.length_squared() - radius * radius;
    let disc = b * b - a * c;
    if disc < 0.0 {
        return None;
    }
    let t = (-b - disc.sqrt()) / a;
    let t = if t >= 0.0 { t } else { (-b + disc.sqrt()) / a };
    (t >= 0.0).then_some(t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::f32::consts::FRAC_PI_2;

    fn close(a: Vec3, b: Vec3) -> bool {
        (a - b).length() < 1e-5
    }

    #[test]
    fn a_child_of_a_rotated_parent_turns_with_it() {
        let mut scene = Scene::new();
        let parent = scene.object("arm", Mesh::Cube).unwrap();
        parent.position = Vec3::new(1.0, 0.0, 0.0);
        parent.rotation = Quat::from_rotation_y(FRAC_PI_2);
        let child = scene.object("hand", Mesh::Cube).unwrap();
        child.position = Vec3::new(2.0, 0.0, 0.0);
        child.parent = Some("arm".into());
        scene.update_world().unwrap();
        let hand = scene
            .get("hand")
            .unwrap()
            .world
            .transform_point3(Vec3::ZERO);
        // A quarter turn about y takes +x to -z.
        assert!(close(hand, Vec3::new(1.0, 0.0, -2.0)), "{hand}");
    }

    #[test]
    fn parent_cycles_and_missing_parents_are_named() {
        let mut scene = Scene::new();
        scene.object("a", Mesh::Cube).unwrap().parent = Some("b".into());
        scene.object("b", Mesh::Cube).unwrap().parent = Some("a".into());
        assert_eq!(
            scene.update_world().unwrap_err(),
            "`a` is its own ancestor: the parents form a cycle"
        );
        scene.object("b", Mesh::Cube).unwrap().parent = Some("ghost".into());
        assert_eq!(
            scene.update_world().unwrap_err(),
            "`b` has parent `ghost`, which is not in the scene"
        );
    }

    #[test]
    fn the_pointer_at_the_center_hits_what_the_camera_looks_at() {
        let mut scene = Scene::new();
        scene.object("near", Mesh::Cube).unwrap().position = Vec3::new(0.0, 0.0, 0.0);
        scene.object("far", Mesh::Sphere).unwrap().position = Vec3::new(0.0, 0.0, -5.0);
        scene.object("aside", Mesh::Cube).unwrap().position = Vec3::new(3.0, 0.0, 0.0);
        scene
            .camera
            .look_at(Vec3::new(0.0, 0.0, 10.0), Vec3::ZERO, Vec3::Y)
            .unwrap();
        scene.update_world().unwrap();
        assert_eq!(
            scene.ray((640.0, 360.0), (1280, 720)),
            None,
            "no camera was read yet"
        );
        scene.read_camera(1280.0 / 720.0);
        let (origin, direction) = scene.ray((640.0, 360.0), (1280, 720)).unwrap();
        assert!(close(direction, Vec3::new(0.0, 0.0, -1.0)), "{direction}");
        let (hit, distance) = scene.hit(origin, direction, &Store::new(None)).unwrap();
        assert_eq!(hit.name, "near");
        assert!(
            (distance - (10.0 - 0.5 - origin.distance(Vec3::new(0.0, 0.0, 10.0)))).abs() < 1e-3,
            "{distance}"
        );
        scene.object("near", Mesh::Cube).unwrap().visible = false;
        assert_eq!(
            scene
                .hit(origin, direction, &Store::new(None))
                .unwrap()
                .0
                .name,
            "far",
            "hidden objects are not hit"
        );
    }

    #[test]
    fn an_orthographic_ray_is_parallel_to_the_view() {
        let mut scene = Scene::new();
        scene
            .camera
            .look_at(Vec3::new(0.0, 10.0, 0.0), Vec3::ZERO, Vec3::NEG_Z)
            .unwrap();
        scene.camera.projection = Projection::Orthographic {
            height: 10.0,
            near: 0.1,
            far: 100.0,
        };
        scene.object("tile", Mesh::Plane).unwrap().position = Vec3::new(2.5, 0.0, 0.0);
        scene.update_world().unwrap();
        scene.read_camera(1.0);
        // The right quarter of a square view, 10 units tall: x = 2.5.
        let (origin, direction) = scene.ray((375.0, 250.0), (500, 500)).unwrap();
        assert!(close(direction, Vec3::NEG_Y), "{direction}");
        assert!((origin.x - 2.5).abs() < 1e-4, "{origin}");
        assert_eq!(
            scene
                .hit(origin, direction, &Store::new(None))
                .unwrap()
                .0
                .name,
            "tile"
        );
    }

    #[test]
    fn a_scene_refuses_more_objects_than_its_cap() {
        let mut scene = Scene::new();
        for i in 0..MAX_OBJECTS {
            scene.object(&i.to_string(), Mesh::Cube).unwrap();
        }
        assert_eq!(
            scene.object("one too many", Mesh::Cube).unwrap_err(),
            "the scene holds 200000 objects, the most it can"
        );
        assert!(
            scene.object("5", Mesh::Cube).is_ok(),
            "existing objects can still be posed"
        );
    }

    #[test]
    fn removing_an_object_keeps_the_others_findable() {
        let mut scene = Scene::new();
        for name in ["a", "b", "c"] {
            scene.object(name, Mesh::Cube).unwrap();
        }
        scene.object("c", Mesh::Cube).unwrap().parent = Some("a".into());
        assert!(scene.remove("a"));
        assert!(!scene.remove("a"));
        assert_eq!(
            scene.get("c").unwrap().parent,
            None,
            "orphans lose their parent"
        );
        assert_eq!(scene.get("b").unwrap().name, "b");
    }
}
