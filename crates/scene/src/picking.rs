//! Picking: the pointer's ray through the camera the player saw, what it
//! hits, and world points placed on the screen (labels over 3D objects).

use glam::{Vec3, Vec4};

use super::{Mesh, Object, Scene, Seen};
use moonloop_assets::Store;

impl Scene {
    /// Reads the camera into the view the next pointer ray uses (step 7),
    /// for a viewport of `aspect` (width / height).
    pub fn read_camera(&mut self, aspect: f32) {
        let view_projection = self.camera.projection_matrix(aspect) * self.camera.view();
        self.seen = Some(Seen {
            view_projection,
            inverse_view_projection: view_projection.inverse(),
        });
    }

    /// Returns the camera as read at the last step 7, if a frame was.
    pub fn seen(&self) -> Option<Seen> {
        self.seen
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

    /// Returns where the world point `point` is on the screen, in the
    /// game's logical coordinates (`logical` size), through the camera of
    /// the last step 7: for a label over a 3D object. `None` before any
    /// frame, or when the point is behind the camera.
    pub fn project(&self, point: Vec3, logical: (u32, u32)) -> Option<(f64, f64)> {
        let clip = self.seen?.view_projection * point.extend(1.0);
        if clip.w <= 1e-6 {
            return None;
        }
        let ndc = clip.truncate() / clip.w;
        Some((
            (ndc.x as f64 + 1.0) / 2.0 * logical.0 as f64,
            (1.0 - ndc.y as f64) / 2.0 * logical.1 as f64,
        ))
    }

    /// Returns the nearest visible object the ray hits, and the distance
    /// (models by their bounds, from `assets`).
    pub fn hit(&self, origin: Vec3, direction: Vec3, assets: &Store) -> Option<(&Object, f32)> {
        let mut best: Option<(&Object, f32)> = None;
        for object in &self.objects {
            // An emitter's particles are not hit: they come and go.
            if !self.is_visible(object) || object.particles.is_some() {
                continue;
            }
            let inverse = object.world.inverse();
            let o = inverse.transform_point3(origin);
            let d = inverse.transform_vector3(direction);
            let (min, max) = match &object.mesh {
                Mesh::Cube | Mesh::Cylinder => (Vec3::splat(-0.5), Vec3::splat(0.5)),
                Mesh::Sphere | Mesh::Billboard => (Vec3::splat(-0.5), Vec3::splat(0.5)),
                Mesh::Plane => (Vec3::new(-0.5, -1e-4, -0.5), Vec3::new(0.5, 1e-4, 0.5)),
                Mesh::Model(id) => assets.model_at(*id).bounds,
            };
            let local_t = match object.mesh {
                // A billboard turns to face the camera: from any side it
                // is hit within the round it turns in.
                Mesh::Sphere | Mesh::Billboard => ray_sphere(o, d, 0.5),
                // A model is hit where a triangle is, not anywhere in its
                // box; the box first spares the triangles of models the
                // ray passes by. A posed one is hit as it is drawn.
                Mesh::Model(id) => {
                    let model = assets.model_at(id);
                    match (object.pose, &model.rig) {
                        (Some(pose), Some(rig)) if (pose.clip as usize) < rig.clips.len() => {
                            let mut posed = self.posed.borrow_mut();
                            let (scratch, positions, normals) = &mut *posed;
                            positions.clear();
                            positions.extend_from_slice(&model.positions);
                            normals.clear();
                            normals.extend_from_slice(&model.normals);
                            let time = rig.clips[pose.clip as usize].at(pose.time, pose.looped);
                            rig.pose(pose.clip as usize, time, scratch, positions, normals);
                            let (lo, hi) = moonloop_assets::gltf::bounds(positions);
                            ray_box(o, d, lo, hi)
                                .and_then(|_| ray_triangles(o, d, &model.indices, positions))
                        }
                        _ => ray_box(o, d, min, max)
                            .and_then(|_| ray_triangles(o, d, &model.indices, &model.positions)),
                    }
                }
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
}

/// Where a ray first meets one of the triangles `indices` make of
/// `positions` (Möller-Trumbore, both faces).
fn ray_triangles(
    origin: Vec3,
    direction: Vec3,
    indices: &[u32],
    positions: &[[f32; 3]],
) -> Option<f32> {
    let mut best: Option<f32> = None;
    for tri in indices.chunks_exact(3) {
        let [a, b, c] = [0, 1, 2].map(|k| Vec3::from(positions[tri[k] as usize]));
        let (e1, e2) = (b - a, c - a);
        let p = direction.cross(e2);
        let det = e1.dot(p);
        if det.abs() < 1e-12 {
            continue;
        }
        let inv = 1.0 / det;
        let s = origin - a;
        let u = s.dot(p) * inv;
        if !(0.0..=1.0).contains(&u) {
            continue;
        }
        let q = s.cross(e1);
        let v = direction.dot(q) * inv;
        if v < 0.0 || u + v > 1.0 {
            continue;
        }
        let t = e2.dot(q) * inv;
        if t >= 0.0 && best.is_none_or(|b| t < b) {
            best = Some(t);
        }
    }
    best
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
    use crate::Projection;

    #[test]
    fn a_world_point_projects_where_the_pointer_ray_would_pick_it() {
        let mut scene = Scene::new();
        scene
            .camera
            .look_at(Vec3::new(0.0, 0.0, 10.0), Vec3::ZERO, Vec3::Y)
            .unwrap();
        assert_eq!(scene.project(Vec3::ZERO, (1280, 720)), None, "no frame yet");
        scene.read_camera(1280.0 / 720.0);
        let (x, y) = scene.project(Vec3::ZERO, (1280, 720)).unwrap();
        assert!(
            (x - 640.0).abs() < 1e-3 && (y - 360.0).abs() < 1e-3,
            "{x}, {y}"
        );
        let (x, y) = scene
            .project(Vec3::new(1.0, 1.0, 0.0), (1280, 720))
            .unwrap();
        assert!(x > 640.0 && y < 360.0, "right and up: {x}, {y}");
        let (o, d) = scene.ray((x, y), (1280, 720)).unwrap();
        let back = o + d * ((0.0 - o.z) / d.z);
        assert!((back - Vec3::new(1.0, 1.0, 0.0)).length() < 1e-3, "{back}");
        assert_eq!(
            scene.project(Vec3::new(0.0, 0.0, 20.0), (1280, 720)),
            None,
            "behind"
        );
    }

    #[test]
    fn a_model_is_picked_by_its_triangles_not_its_box() {
        let model = moonloop_assets::gltf::Model {
            name: "tri".into(),
            positions: vec![[-1.0, -1.0, 0.0], [1.0, -1.0, 0.0], [-1.0, 1.0, 0.0]],
            normals: vec![[0.0, 0.0, 1.0]; 3],
            uvs: vec![[0.0, 0.0]; 3],
            indices: vec![0, 1, 2],
            bounds: (Vec3::new(-1.0, -1.0, 0.0), Vec3::new(1.0, 1.0, 0.0)),
            colors: vec![[1.0; 4]; 3],
            surfaces: vec![[0.0, 1.0, 0.0, 0.0]; 3],
            emissive: vec![[0.0; 4]; 3],
            opaque: true,
            parts: Vec::new(),
            images: Vec::new(),
            notes: Vec::new(),
            rig: None,
        };
        let toward = Vec3::new(0.0, 0.0, -1.0);
        let hit = ray_triangles(
            Vec3::new(-0.5, -0.5, 5.0),
            toward,
            &model.indices,
            &model.positions,
        );
        assert_eq!(hit, Some(5.0), "inside the triangle");
        let miss = ray_triangles(
            Vec3::new(0.5, 0.5, 5.0),
            toward,
            &model.indices,
            &model.positions,
        );
        assert_eq!(miss, None, "inside the box, outside the triangle");
        assert!(
            ray_box(
                Vec3::new(0.5, 0.5, 5.0),
                toward,
                model.bounds.0,
                model.bounds.1
            )
            .is_some()
        );
    }

    fn close(a: Vec3, b: Vec3) -> bool {
        (a - b).length() < 1e-5
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
        // Picking sees the scene as step 7 placed it: hidden, then placed.
        scene.object("near", Mesh::Cube).unwrap().visible = false;
        assert_eq!(
            scene
                .hit(origin, direction, &Store::new(None))
                .unwrap()
                .0
                .name,
            "near",
            "hidden after step 7"
        );
        scene.update_world().unwrap();
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
}
