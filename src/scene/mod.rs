//! Scene: the retained 3D objects, camera and lights `render` poses (rule
//! H2), and step 7's CPU work: world matrices from the hierarchy, the
//! camera read into the view the next frame's pointer ray is cast through.
//!
//! Objects live across frames and are found by name. Coordinates are
//! right-handed, y up; angles are radians; sizes are world units.

use std::collections::HashMap;

use glam::{Mat4, Quat, Vec3};

use crate::assets::{ImageId, ModelId};
use crate::color::Rgba;

mod camera;
mod picking;

pub use camera::{Camera, Projection, Seen};

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
    /// Where `render` named a parent that was not in the scene yet
    /// (`file:line: `), for step 7's error if it never comes.
    pub(crate) parent_named_at: Option<String>,
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
            parent_named_at: None,
        }
    }

    /// Returns the transform relative to the parent.
    pub fn local(&self) -> Mat4 {
        Mat4::from_scale_rotation_translation(self.scale, self.rotation, self.position)
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

    /// Says whether the object called `name` names a parent the scene
    /// does not hold.
    pub(crate) fn parent_missing(&self, name: &str) -> bool {
        self.get(name)
            .and_then(|o| o.parent.as_deref())
            .is_some_and(|parent| !self.index.contains_key(parent))
    }

    /// Keeps where `render` named the missing parent of `name`.
    pub(crate) fn note_parent_place(&mut self, name: &str, at: String) {
        if let Some(&i) = self.index.get(name) {
            self.objects[i].parent_named_at = Some(at);
        }
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
                    let object = &self.objects[child];
                    return Err(format!(
                        "{}scene: `{}` has parent `{name}`, which is not in the scene",
                        object.parent_named_at.as_deref().unwrap_or(""),
                        object.name
                    ));
                };
                chain += 1;
                if chain > self.objects.len() {
                    let object = &self.objects[i];
                    return Err(format!(
                        "{}scene: `{}` is its own ancestor: the parents form a cycle",
                        object.parent_named_at.as_deref().unwrap_or(""),
                        object.name
                    ));
                }
                world = self.objects[p].local() * world;
                child = p;
            }
            self.objects[i].world = world;
        }
        Ok(())
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
            "scene: `a` is its own ancestor: the parents form a cycle"
        );
        scene.object("b", Mesh::Cube).unwrap().parent = Some("ghost".into());
        assert_eq!(
            scene.update_world().unwrap_err(),
            "scene: `b` has parent `ghost`, which is not in the scene"
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
