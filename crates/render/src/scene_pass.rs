//! The scene pass (frame step 7, on the GPU): the retained scene's visible
//! objects gathered into instanced batches and drawn lit, into a target's
//! sRGB view, in the letterboxed viewport.
//!
//! Batches are ordered by how they are drawn: opaque objects first, nearest
//! first within a batch (the depth test then spares the shading of what is
//! hidden), then translucent ones farthest first (each blends over what is
//! behind it). An object whose transform mirrors it (a negative scale)
//! turns its triangles' winding around, so it draws with the opposite face
//! culled.

use glam::{Mat3, Vec3};

use super::shadow;
use tiny_skia::Pixmap;
use wgpu::util::DeviceExt;

use super::{MAX_DIRECTIONAL, MAX_POINT, Renderer, Target, Vertex, linear, texture_groups};
use moonloop_assets::Store;
use moonloop_assets::gltf::Wrap;
use moonloop_core::color::Rgba;
use moonloop_core::viewport::Viewport;
use moonloop_scene::particles::{Emitter, MAX_FRAME_PARTICLES};
use moonloop_scene::{Light, Mesh, Object, Projection, Scene};

#[repr(C)]
#[derive(Debug, Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
pub(super) struct Instance {
    model: [[f32; 4]; 4],
    color: [f32; 4],
    flags: [f32; 4],
    /// x: metallic, y: roughness, from 0 to 1.
    surface: [f32; 4],
    /// The light it gives itself (linear).
    emissive: [f32; 4],
}

#[repr(C)]
#[derive(Debug, Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
pub(super) struct Globals {
    view_proj: [[f32; 4]; 4],
    camera: [f32; 4],
    ambient: [f32; 4],
    counts: [u32; 4],
    dir_direction: [[f32; 4]; MAX_DIRECTIONAL],
    dir_color: [[f32; 4]; MAX_DIRECTIONAL],
    point_position: [[f32; 4]; MAX_POINT],
    point_color: [[f32; 4]; MAX_POINT],
    /// From clip space back to the world, for the sky's directions.
    inverse_view_proj: [[f32; 4]; 4],
    /// The sky's top and bottom colors (linear); w: 1 when there is one.
    sky_top: [f32; 4],
    sky_bottom: [f32; 4],
    /// The fog's color (linear); w: 1 when there is fog.
    fog_color: [f32; 4],
    /// x: where it starts, y: where it is whole.
    fog_range: [f32; 4],
    /// From the world to the shadow map's clip space.
    light_view_proj: [[f32; 4]; 4],
    /// x: which directional light casts shadows, plus one (0: none); y: a
    /// shadow texel's side in world units; z: the depth bias.
    shadow: [f32; 4],
    /// The camera's right and up, for billboards.
    camera_right: [f32; 4],
    camera_up: [f32; 4],
}

pub(super) struct GpuMesh {
    vertices: wgpu::Buffer,
    indices: wgpu::Buffer,
    count: u32,
}

/// A model on the GPU: its mesh, and its runs of triangles, each with its
/// own base color texture (none: white).
pub(super) struct GpuModel {
    mesh: GpuMesh,
    parts: Vec<(std::ops::Range<u32>, Option<wgpu::BindGroup>)>,
}

/// How a batch is drawn, in the order batches are drawn: which scene
/// pipeline it needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Kind {
    Opaque = 0,
    OpaqueMirrored = 1,
    Translucent = 2,
    TranslucentMirrored = 3,
}

/// The built-in billboard's place among the built-in meshes.
const BILLBOARD: u8 = 4;

/// Which mesh a batch of instances draws.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum BatchKey {
    Builtin(u8),
    /// An index into the renderer's uploaded models.
    Model(u32),
    /// A posed object's slot: its own vertices, its model's indices.
    Posed(u32),
}

/// A visible object, batched.
pub(super) struct Staged {
    kind: Kind,
    mesh: BatchKey,
    /// An index into the renderer's uploaded textures, and whether it is
    /// sampled as whole pixels.
    texture: Option<(u32, bool)>,
    /// Squared distance from the camera; negated for translucent objects,
    /// which draw farthest first.
    distance: f32,
    /// Its place in the scene, which breaks ties.
    order: u32,
    instance: Instance,
}

/// Uploaded models or textures, by the store's id, each with the store
/// generation it was uploaded at: when an asset's moves on (a reload
/// changed the file), the next batch uploads it again. Batches refer to
/// them by index, so staging a frame copies nothing (the host allocates
/// nothing per frame).
pub(super) struct Uploaded<T> {
    items: Vec<Option<(u64, T)>>,
}

impl<T> Uploaded<T> {
    pub(super) fn new() -> Self {
        Uploaded { items: Vec::new() }
    }

    /// Says whether item `i` is uploaded and as new as `generation`.
    fn fresh(&self, i: u32, generation: u64) -> bool {
        matches!(self.items.get(i as usize), Some(Some((g, _))) if *g == generation)
    }

    fn set(&mut self, i: u32, generation: u64, item: T) {
        let i = i as usize;
        if self.items.len() <= i {
            self.items.resize_with(i + 1, || None);
        }
        self.items[i] = Some((generation, item));
    }

    fn get(&self, i: u32) -> &T {
        &self.items[i as usize]
            .as_ref()
            .expect("uploaded before use")
            .1
    }
}

impl Renderer {
    pub(super) fn upload_mesh(&self, vertices: &[Vertex], indices: &[u32]) -> GpuMesh {
        let vertices = self
            .device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("vertices"),
                contents: bytemuck::cast_slice(vertices),
                usage: wgpu::BufferUsages::VERTEX,
            });
        let count = indices.len() as u32;
        let indices = self
            .device
            .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some("indices"),
                contents: bytemuck::cast_slice(indices),
                usage: wgpu::BufferUsages::INDEX,
            });
        GpuMesh {
            vertices,
            indices,
            count,
        }
    }

    /// Gathers `scene`'s visible objects into batches by how they draw,
    /// mesh and texture, uploading the models and textures of `assets` it
    /// meets for the first time, or again when a reload changed them. Once
    /// those are uploaded it allocates nothing: batches name them by index.
    pub fn batch(&mut self, scene: &Scene, assets: &Store) {
        self.staged.clear();
        self.posing.sweep();
        self.particles = 0;
        self.opaque_box = (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN));
        if let Some(id) = scene.sky.and_then(|s| s.image) {
            self.texture(id, assets);
        }
        let eye = scene.camera.pose.w_axis;
        for object in scene.objects() {
            if !scene.is_visible(object) {
                continue;
            }
            if let Some(emitter) = &object.particles {
                let texture = self.object_texture(object, assets);
                self.stage_particles(object, emitter, texture, eye.truncate());
                continue;
            }
            let mut opaque_mesh = true;
            let mut bounds = (Vec3::splat(-0.5), Vec3::splat(0.5));
            let key = match &object.mesh {
                Mesh::Cube => BatchKey::Builtin(0),
                Mesh::Sphere => BatchKey::Builtin(1),
                Mesh::Plane => BatchKey::Builtin(2),
                Mesh::Cylinder => BatchKey::Builtin(3),
                Mesh::Billboard => BatchKey::Builtin(BILLBOARD),
                Mesh::Model(id) => {
                    let model = assets.model_at(*id);
                    opaque_mesh = model.opaque;
                    bounds = model.bounds;
                    let generation = assets.model_generation(*id);
                    if !self.models.fresh(id.0, generation) {
                        let vertices: Vec<Vertex> = super::geometry::model_vertices(
                            model,
                            &model.positions,
                            &model.normals,
                        )
                        .collect();
                        let uploaded = self.upload_model(model, &vertices);
                        self.models.set(id.0, generation, uploaded);
                    }
                    match (object.pose, &model.rig) {
                        // A clip the model has (a reload may have taken it
                        // away: the rest pose then).
                        (Some(pose), Some(rig)) if (pose.clip as usize) < rig.clips.len() => {
                            let slot = self.pose(&object.name, id.0, generation, model, rig, pose);
                            bounds = self.posing.slots[slot as usize].bounds;
                            BatchKey::Posed(slot)
                        }
                        _ => BatchKey::Model(id.0),
                    }
                }
            };
            let texture = self.object_texture(object, assets);
            let world = object.world;
            let c = linear(object.material.color);
            let alpha = object.material.color.a;
            let mirrored = Mat3::from_mat4(world).determinant() < 0.0;
            // A model with translucent vertices blends as a translucent
            // object does.
            let kind = match (alpha < 1.0 || !opaque_mesh, mirrored) {
                (false, false) => Kind::Opaque,
                (false, true) => Kind::OpaqueMirrored,
                (true, false) => Kind::Translucent,
                (true, true) => Kind::TranslucentMirrored,
            };
            let instance = Instance {
                model: world.to_cols_array_2d(),
                color: [c[0], c[1], c[2], alpha],
                flags: [
                    if object.material.lit { 1.0 } else { 0.0 },
                    object.material.texture_scale[0],
                    object.material.texture_scale[1],
                    if key == BatchKey::Builtin(BILLBOARD) {
                        1.0
                    } else {
                        0.0
                    },
                ],
                // z, w: whether the object's own metallic and roughness
                // replace the mesh's.
                surface: [
                    object.material.metallic.unwrap_or(0.0),
                    object.material.roughness.unwrap_or(1.0),
                    f32::from(u8::from(object.material.metallic.is_some())),
                    f32::from(u8::from(object.material.roughness.is_some())),
                ],
                emissive: {
                    let e = linear(object.material.emissive);
                    [e[0], e[1], e[2], 0.0]
                },
            };
            if kind < Kind::Translucent && key != BatchKey::Builtin(BILLBOARD) {
                // The box around the object's box, where it stands.
                let centre = world.transform_point3((bounds.0 + bounds.1) / 2.0);
                let half = (bounds.1 - bounds.0) / 2.0;
                let m = Mat3::from_mat4(world);
                let reach =
                    m.x_axis.abs() * half.x + m.y_axis.abs() * half.y + m.z_axis.abs() * half.z;
                self.opaque_box = (
                    self.opaque_box.0.min(centre - reach),
                    self.opaque_box.1.max(centre + reach),
                );
            }
            let distance = (world.w_axis - eye).length_squared();
            self.staged.push(Staged {
                kind,
                mesh: key,
                texture,
                distance: if alpha < 1.0 { -distance } else { distance },
                order: self.staged.len() as u32,
                instance,
            });
        }
        // Opaque objects sharing a mesh and texture draw as one instanced
        // call, nearest first; translucent ones farthest first, batched
        // where neighbours share a mesh and texture. (The unstable sort
        // needs no scratch buffer; the scene order makes it total.)
        self.staged.sort_unstable_by(|a, b| {
            let by_distance = |a: &Staged, b: &Staged| a.distance.total_cmp(&b.distance);
            a.kind.cmp(&b.kind).then_with(|| {
                if a.kind >= Kind::Translucent {
                    by_distance(a, b).then_with(|| (a.mesh, a.texture).cmp(&(b.mesh, b.texture)))
                } else {
                    (a.mesh, a.texture)
                        .cmp(&(b.mesh, b.texture))
                        .then_with(|| by_distance(a, b))
                }
                .then_with(|| a.order.cmp(&b.order))
            })
        });
    }

    /// The object's own texture (uploaded the first time, or again after a
    /// reload changed it) and whether it is sampled as whole pixels.
    fn object_texture(&mut self, object: &Object, assets: &Store) -> Option<(u32, bool)> {
        object.material.texture.map(|id| {
            self.texture(id, assets);
            (id.0, object.material.nearest)
        })
    }

    /// Uploads image `id` the first time, or again after a reload changed
    /// it.
    fn texture(&mut self, id: moonloop_assets::ImageId, assets: &Store) {
        let generation = assets.image_generation(id);
        if !self.textures.fresh(id.0, generation) {
            let group = self.upload_texture(assets.image_at(id));
            self.textures.set(id.0, generation, group);
        }
    }

    /// Stages an emitter's particles: billboards, blended, unlit, each
    /// its size and color times the object's, where the object's matrix
    /// puts them.
    fn stage_particles(
        &mut self,
        object: &Object,
        emitter: &Emitter,
        texture: Option<(u32, bool)>,
        eye: Vec3,
    ) {
        let tint = object.material.color;
        let world = object.world;
        let staged = &mut self.staged;
        let drawn = &mut self.particles;
        let mut over = false;
        emitter.each(|p| {
            if *drawn >= MAX_FRAME_PARTICLES {
                over = true;
                return;
            }
            *drawn += 1;
            let at = world.transform_point3(p.position);
            let c = linear(Rgba {
                r: p.color.r * tint.r,
                g: p.color.g * tint.g,
                b: p.color.b * tint.b,
                a: 1.0,
            });
            let alpha = p.color.a * tint.a;
            let instance = Instance {
                model: [
                    [p.size, 0.0, 0.0, 0.0],
                    [0.0, p.size, 0.0, 0.0],
                    [0.0, 0.0, 1.0, 0.0],
                    [at.x, at.y, at.z, 1.0],
                ],
                color: [c[0], c[1], c[2], alpha],
                flags: [0.0, 1.0, 1.0, 1.0],
                surface: [0.0, 1.0, 0.0, 0.0],
                emissive: [0.0; 4],
            };
            staged.push(Staged {
                kind: Kind::Translucent,
                mesh: BatchKey::Builtin(BILLBOARD),
                texture,
                distance: -(at - eye).length_squared(),
                order: staged.len() as u32,
                instance,
            });
        });
        if over && !self.told_particles {
            self.told_particles = true;
            self.warnings.push(format!(
                "scene: more than {MAX_FRAME_PARTICLES} particles in a frame; the renderer draws the first {MAX_FRAME_PARTICLES}"
            ));
        }
    }

    /// Writes the batched instances into the instance buffer.
    pub(super) fn upload_instances(&mut self) {
        self.upload.clear();
        self.upload.extend(self.staged.iter().map(|s| s.instance));
        if self.upload.len() > self.instance_capacity {
            self.instance_capacity = self.upload.len().next_power_of_two();
            self.instances = self.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("instances"),
                size: (self.instance_capacity * std::mem::size_of::<Instance>()) as u64,
                usage: wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
        }
        if !self.upload.is_empty() {
            self.queue
                .write_buffer(&self.instances, 0, bytemuck::cast_slice(&self.upload));
        }
    }

    /// Uploads `pixmap` (premultiplied) as a straight-alpha texture.
    fn upload_texture(&self, pixmap: &Pixmap) -> [wgpu::BindGroup; 2] {
        texture_groups(
            &self.device,
            &self.queue,
            (&self.pipelines.texture_layout, &self.flat),
            [&self.linear, &self.nearest],
            pixmap.width(),
            pixmap.height(),
            &straight(pixmap),
        )
    }

    /// Uploads a model: its mesh, each of its images once, and a bind
    /// group for each part's image with the part's sampler.
    fn upload_model(
        &mut self,
        model: &moonloop_assets::gltf::Model,
        vertices: &[Vertex],
    ) -> GpuModel {
        let mesh = self.upload_mesh(vertices, &model.indices);
        // Each image as the parts use it: a color (sRGB), a normal map
        // (not), or both.
        let upload = |i: u32, normals: bool| {
            let image = &model.images[i as usize];
            let format = if normals {
                super::NORMALS
            } else {
                super::FRAME_SRGB
            };
            let size = (image.width(), image.height());
            super::upload(&self.device, &self.queue, size, format, &straight(image))
        };
        let mut colors = std::collections::HashMap::new();
        let mut normals = std::collections::HashMap::new();
        for part in &model.parts {
            if let Some(i) = part.image {
                colors.entry(i).or_insert_with(|| upload(i, false));
            }
            if let Some(i) = part.normal {
                normals.entry(i).or_insert_with(|| upload(i, true));
            }
        }
        let mut parts = Vec::with_capacity(model.parts.len());
        for part in &model.parts {
            let textured = part.image.is_some() || part.normal.is_some();
            let group = textured.then(|| {
                let sampler = self.samplers.entry(part.sampler).or_insert_with(|| {
                    let address = |wrap| match wrap {
                        Wrap::Repeat => wgpu::AddressMode::Repeat,
                        Wrap::Clamp => wgpu::AddressMode::ClampToEdge,
                        Wrap::Mirror => wgpu::AddressMode::MirrorRepeat,
                    };
                    let filter = if part.sampler.nearest {
                        wgpu::FilterMode::Nearest
                    } else {
                        wgpu::FilterMode::Linear
                    };
                    self.device.create_sampler(&wgpu::SamplerDescriptor {
                        address_mode_u: address(part.sampler.wrap[0]),
                        address_mode_v: address(part.sampler.wrap[1]),
                        mag_filter: filter,
                        min_filter: filter,
                        ..Default::default()
                    })
                });
                let color = part.image.map_or(&self.white_view, |i| &colors[&i]);
                let normal = part.normal.map_or(&self.flat, |i| &normals[&i]);
                super::texture_group(
                    &self.device,
                    &self.pipelines.texture_layout,
                    [color, normal],
                    sampler,
                )
            });
            parts.push((part.first..part.first + part.count, group));
        }
        GpuModel { mesh, parts }
    }

    /// Writes the camera and the lights. A scene with more directional or
    /// point lights than the shader takes is shaded by the first ones, and
    /// says so once.
    pub(super) fn write_globals(&mut self, scene: &Scene, viewport: &Viewport) {
        let (w, h) = viewport.logical;
        let aspect = w.max(1) as f32 / h.max(1) as f32;
        let view_proj = scene.camera.projection_matrix(aspect) * scene.camera.view();
        let mut g = Globals {
            view_proj: view_proj.to_cols_array_2d(),
            camera: scene
                .camera
                .pose
                .transform_point3(Vec3::ZERO)
                .extend(1.0)
                .into(),
            ambient: [0.0; 4],
            counts: [0; 4],
            dir_direction: [[0.0; 4]; MAX_DIRECTIONAL],
            dir_color: [[0.0; 4]; MAX_DIRECTIONAL],
            point_position: [[0.0; 4]; MAX_POINT],
            point_color: [[0.0; 4]; MAX_POINT],
            inverse_view_proj: view_proj.inverse().to_cols_array_2d(),
            sky_top: [0.0; 4],
            sky_bottom: [0.0; 4],
            fog_color: [0.0; 4],
            fog_range: [0.0; 4],
            light_view_proj: [[0.0; 4]; 4],
            shadow: [0.0; 4],
            camera_right: scene
                .camera
                .pose
                .x_axis
                .truncate()
                .normalize_or(Vec3::X)
                .extend(0.0)
                .into(),
            camera_up: scene
                .camera
                .pose
                .y_axis
                .truncate()
                .normalize_or(Vec3::Y)
                .extend(0.0)
                .into(),
        };
        self.sky = scene.sky.map(|s| s.image.map(|id| id.0));
        if let Some(sky) = scene.sky {
            let (top, bottom) = (linear(sky.top), linear(sky.bottom));
            // w: 1 for a sky of colors, 2 for a picture.
            let kind = if sky.image.is_some() { 2.0 } else { 1.0 };
            g.sky_top = [top[0], top[1], top[2], kind];
            g.sky_bottom = [bottom[0], bottom[1], bottom[2], 1.0];
        }
        if let Some(fog) = scene.fog {
            let c = linear(fog.color);
            g.fog_color = [c[0], c[1], c[2], 1.0];
            g.fog_range = [fog.near, fog.far, 0.0, 0.0];
        }
        let (mut any, mut directional, mut point) = (false, 0, 0);
        // The first directional light that casts shadows, and how many do.
        let (mut caster, mut casters) = (None, 0);
        for light in scene.lights() {
            any = true;
            match *light {
                Light::Ambient { color } => {
                    for i in 0..3 {
                        g.ambient[i] += color[i];
                    }
                }
                Light::Directional {
                    color,
                    direction,
                    shadows,
                } => {
                    directional += 1;
                    let i = g.counts[0] as usize;
                    if i < MAX_DIRECTIONAL {
                        if shadows {
                            casters += 1;
                            caster = caster.or(Some((i, direction)));
                        }
                        g.dir_direction[i] = direction.extend(0.0).into();
                        g.dir_color[i] = color.extend(0.0).into();
                        g.counts[0] += 1;
                    }
                }
                Light::Point {
                    color,
                    position,
                    range,
                } => {
                    point += 1;
                    let i = g.counts[1] as usize;
                    if i < MAX_POINT {
                        g.point_position[i] = position.extend(range).into();
                        g.point_color[i] = color.extend(0.0).into();
                        g.counts[1] += 1;
                    }
                }
            }
        }
        if (directional > MAX_DIRECTIONAL || point > MAX_POINT) && !self.told_lights {
            self.told_lights = true;
            self.warnings.push(format!(
                "scene: {directional} directional and {point} point lights; the renderer shades \
                 with the first {MAX_DIRECTIONAL} directional and {MAX_POINT} point lights"
            ));
        }
        if casters > 1 && !self.told_shadows {
            self.told_shadows = true;
            self.warnings.push(format!(
                "scene: {casters} directional lights cast shadows; the renderer draws the first \
                 one's (give the others `shadows = false`)"
            ));
        }
        if !any {
            // A scene with no lights is lit by a soft sky and a sun from the
            // upper left, so a first cube is not a black square.
            let sun = Vec3::new(-1.0, -2.0, -1.5).normalize();
            g.ambient = [0.25, 0.25, 0.25, 0.0];
            g.dir_direction[0] = sun.extend(0.0).into();
            g.dir_color[0] = [0.85, 0.85, 0.85, 0.0];
            g.counts[0] = 1;
            caster = Some((0, sun));
        }
        let (near, far) = match scene.camera.projection {
            Projection::Perspective { near, far, .. }
            | Projection::Orthographic { near, far, .. } => (near, far),
        };
        let reach = ((shadow::REACH - near) / (far - near)).clamp(0.0, 1.0);
        self.fit = caster.and_then(|(i, direction)| {
            let fit = shadow::fit(direction, view_proj.inverse(), reach, self.opaque_box)?;
            Some((i, fit))
        });
        if let Some((i, fit)) = self.fit {
            g.light_view_proj = fit.view_proj.to_cols_array_2d();
            g.shadow = [i as f32 + 1.0, fit.texel, fit.bias, 0.0];
        }
        self.queue
            .write_buffer(&self.globals, 0, bytemuck::bytes_of(&g));
    }

    /// Encodes the scene pass into `target`: the background cleared, the
    /// staged batches drawn in the letterboxed `viewport`.
    pub(super) fn scene_pass(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        target: &Target,
        viewport: &Viewport,
        background: Rgba,
    ) {
        let bg = linear(background);
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("scene"),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view: &target.srgb,
                depth_slice: None,
                resolve_target: None,
                ops: wgpu::Operations {
                    load: wgpu::LoadOp::Clear(wgpu::Color {
                        r: bg[0] as f64,
                        g: bg[1] as f64,
                        b: bg[2] as f64,
                        a: 1.0,
                    }),
                    store: wgpu::StoreOp::Store,
                },
            })],
            depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                view: &target.depth,
                depth_ops: Some(wgpu::Operations {
                    load: wgpu::LoadOp::Clear(1.0),
                    store: wgpu::StoreOp::Discard,
                }),
                stencil_ops: None,
            }),
            ..Default::default()
        });
        if viewport.width == 0
            || viewport.height == 0
            || (self.staged.is_empty() && self.sky.is_none())
        {
            return;
        }
        pass.set_viewport(
            viewport.x as f32,
            viewport.y as f32,
            viewport.width as f32,
            viewport.height as f32,
            0.0,
            1.0,
        );
        pass.set_scissor_rect(viewport.x, viewport.y, viewport.width, viewport.height);
        pass.set_bind_group(0, &self.globals_group, &[]);
        if let Some(image) = self.sky {
            // The sky first, behind everything: one triangle over the
            // viewport, writing no depth.
            pass.set_pipeline(&self.pipelines.sky);
            let group = image.map_or(&self.white, |i| &self.textures.get(i)[0]);
            pass.set_bind_group(1, group, &[]);
            pass.draw(0..3, 0..1);
        }
        if self.staged.is_empty() {
            return;
        }
        pass.set_vertex_buffer(1, self.instances.slice(..));
        let mut pipeline = None;
        for (batch, kind, mesh, texture) in self.batches() {
            if pipeline != Some(kind) {
                pass.set_pipeline(&self.pipelines.scene[kind as usize]);
                pipeline = Some(kind);
            }
            match (mesh, texture) {
                // A model without a texture of the object's own draws each
                // part with the model's.
                (BatchKey::Model(_) | BatchKey::Posed(_), None) => {
                    let Some((vertices, model)) = self.model_buffers(mesh) else {
                        continue;
                    };
                    pass.set_vertex_buffer(0, vertices.slice(..));
                    pass.set_index_buffer(model.mesh.indices.slice(..), wgpu::IndexFormat::Uint32);
                    for (indices, group) in &model.parts {
                        pass.set_bind_group(1, group.as_ref().unwrap_or(&self.white), &[]);
                        pass.draw_indexed(indices.clone(), 0, batch.clone());
                    }
                }
                _ => {
                    let group = texture.map_or(&self.white, |(t, nearest)| {
                        &self.textures.get(t)[usize::from(nearest)]
                    });
                    pass.set_bind_group(1, group, &[]);
                    self.draw_batch(&mut pass, mesh, batch);
                }
            }
        }
    }

    /// Encodes the shadow pass, when a light casts shadows this frame: the
    /// opaque objects' depth, as that light sees them, into the shadow map
    /// the scene pass then reads.
    pub(super) fn shadow_pass(&self, encoder: &mut wgpu::CommandEncoder) {
        if self.fit.is_none() {
            return;
        }
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("shadow"),
            color_attachments: &[],
            depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                view: &self.shadow_map.view,
                depth_ops: Some(wgpu::Operations {
                    load: wgpu::LoadOp::Clear(1.0),
                    store: wgpu::StoreOp::Store,
                }),
                stencil_ops: None,
            }),
            ..Default::default()
        });
        pass.set_pipeline(&self.pipelines.shadow);
        pass.set_bind_group(0, &self.shadow_group, &[]);
        pass.set_vertex_buffer(1, self.instances.slice(..));
        for (batch, kind, mesh, _) in self.batches() {
            if kind >= Kind::Translucent {
                break;
            }
            // A billboard casts none: its square would, not its picture.
            if mesh != BatchKey::Builtin(BILLBOARD) {
                self.draw_batch(&mut pass, mesh, batch);
            }
        }
    }

    /// The staged objects as runs that draw in one call: the same pipeline,
    /// mesh and texture, side by side in drawing order.
    fn batches(
        &self,
    ) -> impl Iterator<Item = (std::ops::Range<u32>, Kind, BatchKey, Option<(u32, bool)>)> + '_
    {
        let mut start = 0;
        std::iter::from_fn(move || {
            let first = self.staged.get(start)?;
            let same = |s: &Staged| {
                s.kind == first.kind && s.mesh == first.mesh && s.texture == first.texture
            };
            let end = start + self.staged[start..].iter().take_while(|s| same(s)).count();
            let run = start as u32..end as u32;
            start = end;
            Some((run, first.kind, first.mesh, first.texture))
        })
    }

    /// Draws the instances `batch` of `mesh`.
    fn draw_batch(
        &self,
        pass: &mut wgpu::RenderPass<'_>,
        mesh: BatchKey,
        batch: std::ops::Range<u32>,
    ) {
        let (vertices, mesh) = match (mesh, self.model_buffers(mesh)) {
            (_, Some((vertices, model))) => (vertices, &model.mesh),
            (BatchKey::Builtin(i), None) => {
                let mesh = &self.builtin[i as usize];
                (&mesh.vertices, mesh)
            }
            (_, None) => return,
        };
        pass.set_vertex_buffer(0, vertices.slice(..));
        pass.set_index_buffer(mesh.indices.slice(..), wgpu::IndexFormat::Uint32);
        pass.draw_indexed(0..mesh.count, 0, batch);
    }

    /// A model's vertex buffer (its own, or a posed object's) and the
    /// model, whose indices and parts it draws with.
    fn model_buffers(&self, mesh: BatchKey) -> Option<(&wgpu::Buffer, &GpuModel)> {
        match mesh {
            BatchKey::Posed(slot) => {
                let posed = &self.posing.slots[slot as usize];
                Some((&posed.vertices, self.models.get(posed.model)))
            }
            BatchKey::Model(i) => {
                let model = self.models.get(i);
                Some((&model.mesh.vertices, model))
            }
            BatchKey::Builtin(_) => None,
        }
    }
}

/// A premultiplied pixmap's pixels as straight-alpha RGBA, as textures
/// hold them.
fn straight(pixmap: &Pixmap) -> Vec<u8> {
    let mut rgba = Vec::with_capacity(pixmap.data().len());
    for p in pixmap.pixels() {
        let c = p.demultiply();
        rgba.extend([c.red(), c.green(), c.blue(), c.alpha()]);
    }
    rgba
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instances_pack_as_the_shader_reads_them() {
        assert_eq!(std::mem::size_of::<Instance>(), 128);
        assert_eq!(std::mem::size_of::<Globals>() % 16, 0);
    }
}
