//! Scene: the retained 3D objects, camera and lights `render` poses (rule
//! H2), and step 7's CPU work: world matrices from the hierarchy, the
//! camera read into the view the next frame's pointer ray is cast through.
//!
//! Objects live across frames and are found by name. Coordinates are
//! right-handed, y up; angles are radians; sizes are world units.

#![warn(missing_docs)]

use moonloop_core::Refusal;
use std::collections::HashMap;

use glam::{Mat4, Quat, Vec3};

use moonloop_assets::{ImageId, ModelId};
use moonloop_core::color::Rgba;

/// `Err(refuse!("..."))`: a [`Refusal`] made with `format!`.
macro_rules! refuse {
    ($($arg:tt)*) => {
        moonloop_core::Refusal::from(format!($($arg)*))
    };
}

mod camera;
pub mod particles;
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
    /// A 1x1 square that always faces the camera: a sprite in the scene.
    Billboard,
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
    /// How many times the texture repeats across the mesh, along u and v.
    /// Default: once each way.
    pub texture_scale: [f32; 2],
    /// Whether the texture is sampled as whole pixels (pixel art) rather
    /// than blended between them. Default: false (blended).
    pub nearest: bool,
    /// How much it is a metal, from 0 (paint, plastic, wood) to 1 (its
    /// highlights take its color). Default: none given: a model's own
    /// materials', 0 for a built-in mesh.
    pub metallic: Option<f32>,
    /// How rough it is, from 0 (a sharp, bright highlight) to 1 (matte: no
    /// highlight at all). Default: none given: a model's own materials',
    /// 1 for a built-in mesh.
    pub roughness: Option<f32>,
    /// The light it gives off itself, whatever shines on it. Default:
    /// black (none).
    pub emissive: Rgba,
}

impl Default for Material {
    fn default() -> Self {
        Material {
            color: Rgba::WHITE,
            texture: None,
            lit: true,
            texture_scale: [1.0, 1.0],
            nearest: false,
            metallic: None,
            roughness: None,
            emissive: Rgba::BLACK,
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
    /// The model's clip it is posed by, and when in it. Default: none
    /// (the model's rest pose).
    pub pose: Option<Pose>,
    /// The particles it gives off, drawn instead of its mesh. Default:
    /// none.
    pub particles: Option<particles::Emitter>,
    /// The world matrix, computed at step 7.
    pub world: Mat4,
    /// Whether it and every ancestor were visible at step 7: whether it
    /// draws and can be picked.
    pub shown: bool,
    /// The scene's epoch when `render` last posed or asked about it.
    seen: u32,
    /// Where `render` named a parent that was not in the scene yet
    /// (`file:line: `), for step 7's error if it never comes.
    pub parent_named_at: Option<String>,
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
            pose: None,
            particles: None,
            world: Mat4::IDENTITY,
            shown: true,
            seen: 0,
            parent_named_at: None,
        }
    }

    /// Returns the transform relative to the parent.
    pub fn local(&self) -> Mat4 {
        Mat4::from_scale_rotation_translation(self.scale, self.rotation, self.position)
    }
}

/// A model posed by one of its clips.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pose {
    /// The clip, by its place in the model's.
    pub clip: u32,
    /// Seconds into it, as `render` gave them.
    pub time: f32,
    /// Whether time past the clip's end wraps round (the default) rather
    /// than holding its last pose.
    pub looped: bool,
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
        /// Whether it casts shadows: opaque objects darken the lit objects
        /// behind them. Default: true.
        shadows: bool,
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

/// Where picking poses a posed model, kept between picks so picking
/// allocates only the first time.
type PickPosing = std::cell::RefCell<(moonloop_assets::rig::Scratch, Vec<[f32; 3]>, Vec<[f32; 3]>)>;

/// The retained scene of one game.
#[derive(Debug, Default)]
pub struct Scene {
    objects: Vec<Object>,
    /// Picking's room to pose models in.
    posed: PickPosing,
    index: HashMap<String, usize>,
    /// The camera as `render` posed it.
    pub camera: Camera,
    /// The sky behind every object, when `render` asked for one
    /// (`scene:sky`); the background color otherwise.
    pub sky: Option<Sky>,
    /// The fog objects fade into with distance (`scene:fog`), if any.
    pub fog: Option<Fog>,
    /// Each light, its name, and the epoch it was last posed in.
    lights: Vec<(String, Light, u32)>,
    seen: Option<Seen>,
    /// Moves on at each reload; see [`Scene::begin_sweep`].
    epoch: u32,
    sweeping: bool,
    /// Step 7's scratch, kept for its capacity: each object's progress
    /// (0 not yet, 1 on the chain being walked, 2 placed) and the chain.
    placing: Vec<u8>,
    chain: Vec<usize>,
}

/// A sky: a gradient by the direction a pixel looks, `bottom` at the
/// horizon and below, `top` straight up.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sky {
    /// The color straight up.
    pub top: Rgba,
    /// The color at the horizon and below.
    pub bottom: Rgba,
    /// A picture of the whole sky, all the way round (equirectangular:
    /// left to right once round, top straight up, bottom straight down),
    /// drawn instead of the colors.
    pub image: Option<ImageId>,
}

/// Fog: what is `near` or nearer the camera is as lit; what is `far` or
/// farther is `color`; between, a straight blend.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Fog {
    /// The fog's color.
    pub color: Rgba,
    /// Where it starts, in world units from the camera.
    pub near: f32,
    /// Where it is whole.
    pub far: f32,
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
        // All at once: removing one by one would look through every object
        // for the children of each, 200,000 times 200,000.
        let gone: std::collections::HashSet<String> = self
            .objects
            .iter()
            .filter(|o| o.seen != epoch)
            .map(|o| o.name.clone())
            .collect();
        if !gone.is_empty() {
            self.objects.retain(|o| o.seen == epoch);
            self.index.clear();
            for (i, object) in self.objects.iter_mut().enumerate() {
                self.index.insert(object.name.clone(), i);
                if object.parent.as_ref().is_some_and(|p| gone.contains(p)) {
                    object.parent = None;
                }
            }
        }
        self.lights.retain(|(_, _, seen)| *seen == epoch);
    }

    /// Returns the object called `name`, creating it with `mesh` if there
    /// is none.
    ///
    /// # Errors
    /// The scene already holds [`MAX_OBJECTS`].
    pub fn object(&mut self, name: &str, mesh: Mesh) -> Result<&mut Object, Refusal> {
        let epoch = self.epoch;
        let i = match self.index.get(name) {
            Some(&i) => i,
            None => {
                if self.objects.len() == MAX_OBJECTS {
                    return Err(refuse!(
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
    pub fn parent_missing(&self, name: &str) -> bool {
        self.get(name)
            .and_then(|o| o.parent.as_deref())
            .is_some_and(|parent| !self.index.contains_key(parent))
    }

    /// Keeps where `render` named the missing parent of `name`.
    pub fn note_parent_place(&mut self, name: &str, at: String) {
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
    pub fn set_light(&mut self, name: &str, light: Light) -> Result<(), Refusal> {
        let full = self.lights.len() == MAX_LIGHTS;
        let epoch = self.epoch;
        match self.lights.iter_mut().find(|(n, _, _)| n == name) {
            Some((_, l, seen)) => {
                *l = light;
                *seen = epoch;
            }
            None if full => {
                return Err(refuse!(
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

    /// Computes every object's world matrix and whether it shows, from
    /// the hierarchy (step 7). Each object is placed once, after its
    /// parent, so a chain of any depth costs its length: a game's 200,000
    /// objects, each the child of the one before, take 200,000 steps, not
    /// twenty billion. An object whose parents are broken keeps what it
    /// had; the others are placed all the same.
    ///
    /// # Errors
    /// A parent is missing or the parents form a cycle; the message names
    /// the objects (the first such, if there are several).
    pub fn update_world(&mut self) -> Result<(), Refusal> {
        let mut placing = std::mem::take(&mut self.placing);
        let mut chain = std::mem::take(&mut self.chain);
        placing.clear();
        placing.resize(self.objects.len(), 0);
        let mut first_error = None;
        for start in 0..self.objects.len() {
            if placing[start] == 2 {
                continue;
            }
            // Walk up to a root or to an object already placed ...
            chain.clear();
            let mut i = start;
            let above = loop {
                placing[i] = 1;
                chain.push(i);
                let Some(name) = &self.objects[i].parent else {
                    break Ok(None);
                };
                match self.index.get(name).map(|&p| (p, placing[p])) {
                    Some((p, 2)) => break Ok(Some(p)),
                    Some((p, 1)) => break Err(self.cycle_error(p)),
                    Some((p, _)) => i = p,
                    None => break Err(self.missing_parent_error(i)),
                }
            };
            // ... then place the chain from the top down.
            match above {
                Ok(above) => {
                    let (mut world, mut shown) = above.map_or((Mat4::IDENTITY, true), |p| {
                        (self.objects[p].world, self.objects[p].shown)
                    });
                    for &j in chain.iter().rev() {
                        let object = &mut self.objects[j];
                        world *= object.local();
                        shown &= object.visible;
                        object.world = world;
                        object.shown = shown;
                    }
                }
                Err(why) => {
                    first_error.get_or_insert(why);
                }
            }
            for &j in &chain {
                placing[j] = 2;
            }
        }
        self.placing = placing;
        self.chain = chain;
        first_error.map_or(Ok(()), Err)
    }

    fn cycle_error(&self, i: usize) -> Refusal {
        let object = &self.objects[i];
        refuse!(
            "{}scene: `{}` is its own ancestor: the parents form a cycle",
            object.parent_named_at.as_deref().unwrap_or(""),
            object.name
        )
    }

    fn missing_parent_error(&self, i: usize) -> Refusal {
        let object = &self.objects[i];
        refuse!(
            "{}scene: `{}` has parent `{}`, which is not in the scene",
            object.parent_named_at.as_deref().unwrap_or(""),
            object.name,
            object.parent.as_deref().unwrap_or("")
        )
    }

    /// Says whether `object` and all its ancestors were visible at step 7.
    pub fn is_visible(&self, object: &Object) -> bool {
        object.shown
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
    fn a_chain_of_any_depth_is_placed_once_per_object() {
        let mut scene = Scene::new();
        let depth = 100_000;
        for i in 0..depth {
            let object = scene.object(&format!("o{i}"), Mesh::Cube).unwrap();
            object.position = Vec3::X;
            object.parent = (i > 0).then(|| format!("o{}", i - 1));
        }
        scene.update_world().unwrap();
        let last = scene.get(&format!("o{}", depth - 1)).unwrap();
        assert_eq!(last.world.w_axis.x, depth as f32);
        assert!(last.shown);
        scene.object("o0", Mesh::Cube).unwrap().visible = false;
        scene.update_world().unwrap();
        assert!(
            scene.objects().iter().all(|o| !o.shown),
            "a hidden root hides its line"
        );
    }

    #[test]
    fn a_broken_parent_leaves_the_others_placed() {
        let mut scene = Scene::new();
        scene.object("lost", Mesh::Cube).unwrap().parent = Some("ghost".into());
        let fine = scene.object("fine", Mesh::Cube).unwrap();
        fine.position = Vec3::Y;
        assert!(scene.update_world().is_err());
        assert_eq!(scene.get("fine").unwrap().world.w_axis.y, 1.0);
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
