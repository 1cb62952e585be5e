//! Posed models: an object whose model a clip poses has vertices of its
//! own, posed on the CPU ([`moonloop_assets::rig`]) while the frame is
//! batched and written into a vertex buffer it keeps before the frame is
//! drawn. It is posed again only when its model, clip or time changed,
//! and once its buffers are big enough posing allocates nothing. The
//! model's index buffer and textured parts are shared.

use glam::Vec3;

use super::{Renderer, Vertex};
use moonloop_assets::gltf::Model;
use moonloop_assets::rig;
use moonloop_scene::Pose;

/// One object's posed vertices on the GPU.
pub(super) struct Posed {
    /// Its model (the store's id), whose indices and parts it draws with.
    pub model: u32,
    pub vertices: wgpu::Buffer,
    /// How many vertices the buffer holds room for.
    capacity: usize,
    /// What it was last posed as: the model's id and generation, the clip
    /// and the time's bits.
    key: Option<(u32, u64, u32, u32)>,
    /// The box around its posed vertices, in the model's space.
    pub bounds: (Vec3, Vec3),
    /// Its vertices as last posed, waiting for [`Renderer::upload_posed`]
    /// when `stale`.
    vertices_cpu: Vec<Vertex>,
    stale: bool,
    /// Its object's name, and whether the frame being batched posed it.
    name: String,
    seen: bool,
}

/// What posing works in, kept between frames.
#[derive(Default)]
pub(super) struct Posing {
    /// By the object's name: its slot in `slots`.
    index: std::collections::HashMap<String, u32>,
    pub slots: Vec<Posed>,
    scratch: rig::Scratch,
    positions: Vec<[f32; 3]>,
    normals: Vec<[f32; 3]>,
}

impl Posing {
    /// Lets go of the objects the last frame did not pose (removed,
    /// renamed, or no longer animated), so a game that poses a new name
    /// each frame holds two frames' slots, not every name it ever used;
    /// called before a frame is batched (its slots are the batch's
    /// indices, so none goes while a frame is staged). Allocates only
    /// when one goes.
    pub(super) fn sweep(&mut self) {
        if self.slots.iter().any(|p| !p.seen) {
            self.slots.retain(|p| p.seen);
            self.index.clear();
            for (slot, posed) in self.slots.iter().enumerate() {
                self.index.insert(posed.name.clone(), slot as u32);
            }
        }
        for posed in &mut self.slots {
            posed.seen = false;
        }
    }

    /// How many objects' posed vertices are kept.
    pub(super) fn kept(&self) -> usize {
        self.slots.len()
    }
}

impl Renderer {
    /// Poses object `name`'s model `model` (the store's id `id`, loaded at
    /// `generation`) by `pose`, whose clip is one of `rig`'s, unless it is
    /// posed so already; returns its slot.
    pub(super) fn pose(
        &mut self,
        name: &str,
        id: u32,
        generation: u64,
        model: &Model,
        rig: &rig::Rig,
        pose: Pose,
    ) -> u32 {
        let clip = &rig.clips[pose.clip as usize];
        let time = clip.at(pose.time, pose.looped);
        let key = (id, generation, pose.clip, time.to_bits());
        let posing = &mut self.posing;
        let slot = match posing.index.get(name) {
            Some(&slot) => slot,
            None => {
                let slot = posing.slots.len() as u32;
                posing.index.insert(name.to_string(), slot);
                posing.slots.push(Posed {
                    model: id,
                    vertices: self.device.create_buffer(&wgpu::BufferDescriptor {
                        label: Some("posed vertices"),
                        size: 0,
                        usage: wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST,
                        mapped_at_creation: false,
                    }),
                    capacity: 0,
                    key: None,
                    bounds: model.bounds,
                    vertices_cpu: Vec::new(),
                    stale: false,
                    name: name.to_string(),
                    seen: false,
                });
                slot
            }
        };
        let posed = &mut posing.slots[slot as usize];
        posed.seen = true;
        if posed.key == Some(key) {
            return slot;
        }
        posing.positions.clear();
        posing.positions.extend_from_slice(&model.positions);
        posing.normals.clear();
        posing.normals.extend_from_slice(&model.normals);
        rig.pose(
            pose.clip as usize,
            time,
            &mut posing.scratch,
            &mut posing.positions,
            &mut posing.normals,
        );
        posed.vertices_cpu.clear();
        posed.vertices_cpu.extend(super::geometry::model_vertices(
            model,
            &posing.positions,
            &posing.normals,
        ));
        posed.stale = true;
        posed.bounds = moonloop_assets::gltf::bounds(&posing.positions);
        posed.model = id;
        posed.key = Some(key);
        slot
    }

    /// Writes the vertices posed since the last frame into their buffers
    /// (a bigger buffer the first time a pose outgrows one).
    pub(super) fn upload_posed(&mut self) {
        for posed in &mut self.posing.slots {
            if !std::mem::take(&mut posed.stale) {
                continue;
            }
            let bytes: &[u8] = bytemuck::cast_slice(&posed.vertices_cpu);
            if posed.capacity < posed.vertices_cpu.len() {
                posed.capacity = posed.vertices_cpu.len();
                posed.vertices = self.device.create_buffer(&wgpu::BufferDescriptor {
                    label: Some("posed vertices"),
                    size: bytes.len() as u64,
                    usage: wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST,
                    mapped_at_creation: false,
                });
            }
            self.queue.write_buffer(&posed.vertices, 0, bytes);
        }
    }
}
