//! Render: the retained scene drawn with wgpu, and 2D layers composited
//! over it (the GPU's share of frame steps 7 to 10).
//!
//! Every frame is drawn into a [`Target`], an RGBA8 texture of the
//! renderer's own: the scene through its sRGB view (lighting is linear,
//! the view encodes), then each 2D layer (the screen layer, the overlay)
//! blended through its plain view, in the gamma space tiny-skia drew it
//! in. A window then presents that texture; a recorder or a test reads it
//! back. One path for both is what lets golden tests stand for what a
//! player sees. The order of the steps lives in `compositor.rs`.

#![warn(missing_docs)]
#![warn(clippy::undocumented_unsafe_blocks, clippy::missing_safety_doc)]

mod blit;
mod geometry;
mod layers;
mod pipelines;
mod posed;
mod scene_pass;
mod shadow;
mod target;

use blit::Blit;

use std::io::Write as _;
use tiny_skia::Pixmap;
use wgpu::util::DeviceExt;

pub use geometry::{Geometry, Vertex};
pub use layers::Layer;
pub use target::Target;

use moonloop_assets::Store;
use moonloop_core::color::Rgba;
use moonloop_core::viewport::Viewport;
use moonloop_scene::Scene;
use pipelines::Pipelines;

/// What the renderer's start can fail with: the machine has no graphics
/// adapter, or the one it has refused a device.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum GpuError {
    /// No graphics adapter could be found.
    #[error(
        "no graphics adapter found; install Mesa's software renderer \
         (apt-get install mesa-vulkan-drivers libvulkan1) or run without pictures"
    )]
    NoAdapter(#[from] wgpu::RequestAdapterError),

    /// The graphics adapter refused the device the renderer asked for.
    #[error("the graphics adapter {adapter} refused a device")]
    Device {
        /// The adapter, named.
        adapter: String,
        /// The cause.
        source: wgpu::RequestDeviceError,
    },
}

/// The renderer's results.
pub type Result<T, E = GpuError> = std::result::Result<T, E>;
use scene_pass::{GpuMesh, GpuModel, Instance, Staged, Uploaded};

/// The format of the frame texture. Its sRGB twin is the scene's view.
const FRAME_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8Unorm;
const FRAME_SRGB: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8UnormSrgb;

/// A normal map's texels: not colors, so not sRGB.
const NORMALS: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8Unorm;
const DEPTH_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;

/// The most directional and point lights a frame shades with.
pub const MAX_DIRECTIONAL: usize = 4;
/// See [`MAX_DIRECTIONAL`].
pub const MAX_POINT: usize = 8;

/// The renderer: a device, its pipelines, and what it has uploaded.
pub struct Renderer {
    device: wgpu::Device,
    queue: wgpu::Queue,
    info: String,
    software: bool,
    /// Whether a texture may be viewed in another format (as sRGB); GL
    /// devices cannot, and their targets draw the scene apart.
    view_formats: bool,
    pipelines: Pipelines,
    globals: wgpu::Buffer,
    globals_group: wgpu::BindGroup,
    linear: wgpu::Sampler,
    nearest: wgpu::Sampler,
    white: wgpu::BindGroup,
    /// A white texel (sRGB) and a flat normal (linear): what a part
    /// without its own base texture or normal map samples.
    white_view: wgpu::TextureView,
    flat: wgpu::TextureView,
    builtin: Vec<GpuMesh>,
    models: Uploaded<GpuModel>,
    /// Objects whose models clips pose, each with vertices of its own.
    posing: posed::Posing,
    /// The samplers models' textures ask for, made the first time.
    samplers: std::collections::HashMap<moonloop_assets::gltf::Sampler, wgpu::Sampler>,
    /// Each texture's bind groups: blended, and whole pixels.
    textures: Uploaded<[wgpu::BindGroup; 2]>,
    instances: wgpu::Buffer,
    instance_capacity: usize,
    /// Visible objects, in drawing order.
    staged: Vec<Staged>,
    upload: Vec<Instance>,
    /// Presenting on a window, and enlarging a frame by whole pixels.
    present: Option<Blit>,
    enlarge: Option<Blit>,
    /// What the renderer met that the author should hear of, taken by
    /// [`Renderer::take_warnings`].
    warnings: Vec<String>,
    told_lights: bool,
    told_shadows: bool,
    told_particles: bool,
    /// Particles staged this frame, all emitters together.
    particles: usize,
    /// The shadow map, the globals alone for the pass that draws it, and
    /// this frame's fit of it (with the index of the light that casts),
    /// when a light casts shadows.
    shadow_map: shadow::Map,
    shadow_group: wgpu::BindGroup,
    fit: Option<(usize, shadow::Fit)>,
    /// The box around this frame's opaque objects, in the world.
    opaque_box: (glam::Vec3, glam::Vec3),
    /// Whether the scene the globals were last written for has a sky, and
    /// its picture (an index into the uploaded textures) if it has one.
    sky: Option<Option<u32>>,
}

impl std::fmt::Debug for Renderer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Renderer")
            .field("adapter", &self.info)
            .finish()
    }
}

impl Renderer {
    /// Creates a renderer on any adapter, software ones included, for
    /// drawing off screen.
    ///
    /// # Errors
    /// No adapter could be found, or it refused a device; the message names
    /// the package that provides a software one.
    pub fn headless() -> Result<Renderer> {
        let instance =
            wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle_from_env());
        let adapter =
            pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions::default()))?;
        Renderer::on(&adapter)
    }

    /// Creates a renderer on an adapter that can present to `surface`.
    ///
    /// # Errors
    /// No such adapter, or it refused a device.
    pub fn for_surface(
        instance: &wgpu::Instance,
        surface: &wgpu::Surface<'_>,
    ) -> Result<(Renderer, wgpu::Adapter)> {
        let adapter = pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions {
            compatible_surface: Some(surface),
            ..Default::default()
        }))?;
        Ok((Renderer::on(&adapter)?, adapter))
    }

    /// Creates a renderer on `adapter`.
    ///
    /// # Errors
    /// The adapter refused a device.
    pub fn on(adapter: &wgpu::Adapter) -> Result<Renderer> {
        let info = adapter.get_info();
        let software = info.device_type == wgpu::DeviceType::Cpu;
        let view_formats = adapter
            .get_downlevel_capabilities()
            .flags
            .contains(wgpu::DownlevelFlags::VIEW_FORMATS);
        let info = format!("{} ({:?}, {})", info.name, info.backend, info.driver_info);
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("moonloop"),
            required_limits:
                wgpu::Limits::downlevel_webgl2_defaults().using_resolution(adapter.limits()),
            ..Default::default()
        }))
        .map_err(|source| GpuError::Device {
            adapter: info.clone(),
            source,
        })?;
        // wgpu's default for an error it was not asked to catch is to
        // panic; a frame the GPU refused is one bad picture, said once,
        // and the game goes on.
        let said = std::sync::atomic::AtomicBool::new(false);
        device.on_uncaptured_error(std::sync::Arc::new(move |e: wgpu::Error| {
            if !said.swap(true, std::sync::atomic::Ordering::Relaxed) {
                let line = format!(
                    "moonloop: the GPU refused a frame: {}",
                    moonloop_door::line(&gpu_error_line(&e))
                );
                // Dropped if stderr has closed: the game goes on.
                let _ = writeln!(std::io::stderr(), "{}", moonloop_door::escape_lines(&line));
            }
        }));
        let mut renderer = Renderer::with_device(device, queue, info);
        renderer.software = software;
        renderer.view_formats = view_formats;
        Ok(renderer)
    }

    fn with_device(device: wgpu::Device, queue: wgpu::Queue, info: String) -> Renderer {
        let pipelines = Pipelines::new(&device);
        let globals = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("globals"),
            size: pipelines::GLOBALS_SIZE,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let shadow_map = shadow::Map::new(&device);
        let globals_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("globals"),
            layout: &pipelines.globals_layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: globals.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: wgpu::BindingResource::TextureView(&shadow_map.view),
                },
                wgpu::BindGroupEntry {
                    binding: 2,
                    resource: wgpu::BindingResource::Sampler(&shadow_map.sampler),
                },
            ],
        });
        let shadow_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("shadow globals"),
            layout: &pipelines.shadow_layout,
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: globals.as_entire_binding(),
            }],
        });
        let sampler = |filter| {
            device.create_sampler(&wgpu::SamplerDescriptor {
                address_mode_u: wgpu::AddressMode::Repeat,
                address_mode_v: wgpu::AddressMode::Repeat,
                mag_filter: filter,
                min_filter: filter,
                ..Default::default()
            })
        };
        let (linear, nearest) = (
            sampler(wgpu::FilterMode::Linear),
            sampler(wgpu::FilterMode::Nearest),
        );
        let white_view = upload_rgba(&device, &queue, 1, 1, &[255; 4]);
        let flat = upload(&device, &queue, (1, 1), NORMALS, &[128, 128, 255, 255]);
        let white = texture_group(
            &device,
            &pipelines.texture_layout,
            [&white_view, &flat],
            &linear,
        );
        let instances = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("instances"),
            size: 1024 * std::mem::size_of::<Instance>() as u64,
            usage: wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let mut renderer = Renderer {
            white,
            white_view,
            flat,
            builtin: Vec::new(),
            models: Uploaded::new(),
            samplers: std::collections::HashMap::new(),
            posing: posed::Posing::default(),
            textures: Uploaded::new(),
            instances,
            instance_capacity: 1024,
            staged: Vec::new(),
            upload: Vec::new(),
            present: None,
            enlarge: None,
            warnings: Vec::new(),
            told_lights: false,
            told_shadows: false,
            told_particles: false,
            particles: 0,
            shadow_map,
            shadow_group,
            fit: None,
            opaque_box: (glam::Vec3::ZERO, glam::Vec3::ZERO),
            sky: None,
            device,
            queue,
            info,
            software: false,
            view_formats: true,
            pipelines,
            globals,
            globals_group,
            linear,
            nearest,
        };
        let builtin = [
            geometry::cube(),
            geometry::sphere(32),
            geometry::plane(),
            geometry::cylinder(32),
            geometry::billboard(),
        ];
        renderer.builtin = builtin
            .iter()
            .map(|g| renderer.upload_mesh(&g.vertices, &g.indices))
            .collect();
        renderer
    }

    /// Returns the device, to configure a surface.
    pub fn device(&self) -> &wgpu::Device {
        &self.device
    }

    /// Says whether the adapter draws on the CPU (Mesa's llvmpipe or
    /// lavapipe), where the renderer's speed targets cannot be judged.
    pub fn is_software(&self) -> bool {
        self.software
    }

    /// Names the adapter, as a golden test's tolerance comment does.
    pub fn adapter(&self) -> &str {
        &self.info
    }

    /// Draws the scene into a texture of its own, copied onto the frame,
    /// as on a device that cannot view a texture as sRGB (GL), whatever
    /// this device can do: for testing that path on any machine.
    pub fn draw_scene_apart(mut self) -> Renderer {
        self.view_formats = false;
        self
    }

    /// Returns the widest and tallest target the device can draw.
    pub fn max_side(&self) -> u32 {
        self.device.limits().max_texture_dimension_2d
    }

    /// Creates a target of `size` device pixels, clamped to what the
    /// device can draw.
    pub fn target(&self, size: (u32, u32)) -> Target {
        let max = self.max_side();
        Target::new(
            &self.device,
            (size.0.min(max), size.1.min(max)),
            self.view_formats,
        )
    }

    /// Draws a frame into `target`: the background, the scene in the
    /// letterboxed `viewport` (scissored to it), then `layers` over it.
    /// Models and textures come from `assets`.
    pub fn draw(
        &mut self,
        target: &mut Target,
        scene: &Scene,
        assets: &Store,
        viewport: &Viewport,
        background: Rgba,
        layers: &[Layer<'_>],
    ) {
        self.batch(scene, assets);
        self.upload_instances();
        self.upload_posed();
        self.write_globals(scene, viewport);
        self.write_layers(target, layers);
        let mut encoder = self.device.create_command_encoder(&Default::default());
        self.shadow_pass(&mut encoder);
        self.scene_pass(&mut encoder, target, viewport, background);
        target.settle_scene(&mut encoder);
        if !layers.is_empty() {
            self.composite(
                &mut encoder,
                &target.plain,
                target.layers[..layers.len()].iter(),
            );
        }
        self.queue.submit([encoder.finish()]);
    }

    /// Reads the frame last drawn into `target` back as a pixmap.
    pub fn read(&self, target: &mut Target) -> Pixmap {
        target.read(&self.device, &self.queue)
    }

    /// Waits until the GPU has finished everything submitted.
    pub fn finish(&self) {
        let _ = self.device.poll(wgpu::PollType::wait_indefinitely());
    }

    /// Shows a surface texture drawn by [`Renderer::present`].
    pub fn show(&self, texture: wgpu::SurfaceTexture) {
        self.queue.present(texture);
    }

    /// Says how many objects' posed vertices the renderer keeps: those of
    /// the objects the last two frames posed by a clip (a frame lets go of
    /// what the one before it did not pose).
    pub fn posed_objects(&self) -> usize {
        self.posing.kept()
    }

    /// Takes what the renderer met that the author should hear of (more
    /// lights than it shades with).
    pub fn take_warnings(&mut self) -> Vec<String> {
        std::mem::take(&mut self.warnings)
    }
}

/// Uploads an image and makes its bind group with each of `samplers`
/// (blended and whole pixels), which share the one texture.
#[allow(clippy::too_many_arguments)]
fn texture_groups<const N: usize>(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    (layout, flat): (&wgpu::BindGroupLayout, &wgpu::TextureView),
    samplers: [&wgpu::Sampler; N],
    width: u32,
    height: u32,
    rgba: &[u8],
) -> [wgpu::BindGroup; N] {
    let view = upload_rgba(device, queue, width, height, rgba);
    samplers.map(|sampler| texture_group(device, layout, [&view, flat], sampler))
}

/// Uploads a straight-alpha sRGB image as a texture.
fn upload_rgba(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    width: u32,
    height: u32,
    rgba: &[u8],
) -> wgpu::TextureView {
    upload(device, queue, (width, height), FRAME_SRGB, rgba)
}

/// Uploads an image as a texture of `format`: a color's sRGB, or a
/// normal map's plain 8 bits (each texel a normal, 0 to 255 for -1 to 1).
fn upload(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    (width, height): (u32, u32),
    format: wgpu::TextureFormat,
    rgba: &[u8],
) -> wgpu::TextureView {
    let texture = device.create_texture_with_data(
        queue,
        &wgpu::TextureDescriptor {
            label: Some("texture"),
            size: wgpu::Extent3d {
                width,
                height,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format,
            usage: wgpu::TextureUsages::TEXTURE_BINDING,
            view_formats: &[],
        },
        wgpu::util::TextureDataOrder::LayerMajor,
        rgba,
    );
    texture.create_view(&Default::default())
}

/// A material's bind group: its base color texture and normal map
/// (`views`), sampled by `sampler`.
fn texture_group(
    device: &wgpu::Device,
    layout: &wgpu::BindGroupLayout,
    [view, normals]: [&wgpu::TextureView; 2],
    sampler: &wgpu::Sampler,
) -> wgpu::BindGroup {
    device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("texture"),
        layout,
        entries: &[
            wgpu::BindGroupEntry {
                binding: 0,
                resource: wgpu::BindingResource::TextureView(view),
            },
            wgpu::BindGroupEntry {
                binding: 1,
                resource: wgpu::BindingResource::Sampler(sampler),
            },
            wgpu::BindGroupEntry {
                binding: 2,
                resource: wgpu::BindingResource::TextureView(normals),
            },
        ],
    })
}

/// Converts an sRGB color's channels to linear light.
fn linear(c: Rgba) -> [f32; 3] {
    [c.r, c.g, c.b].map(|v| {
        if v <= 0.04045 {
            v / 12.92
        } else {
            ((v + 0.055) / 1.055).powf(2.4)
        }
    })
}

/// A GPU error as one line, its detail kept: wgpu writes "Validation
/// Error" on the first line and what was invalid, and where, on the lines
/// after, which one line that says only "Validation Error" lost.
fn gpu_error_line(e: &wgpu::Error) -> String {
    let mut parts: Vec<String> = e
        .to_string()
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && *l != "Caused by:")
        .map(str::to_string)
        .collect();
    let mut source = std::error::Error::source(e);
    while let Some(cause) = source {
        let text = cause.to_string();
        if !parts.iter().any(|p| p.contains(text.trim())) {
            parts.push(text.trim().to_string());
        }
        source = cause.source();
    }
    parts.join(": ")
}

#[cfg(test)]
mod tests {

    #[test]
    fn a_gpu_error_keeps_its_detail_on_one_line() {
        // What wgpu hands the handler: a short description, the detail in
        // its description's later lines and its sources.
        let inner = std::io::Error::other("Buffer size 512 is below the minimum 1024");
        let e = wgpu::Error::Validation {
            source: Box::new(inner),
            description:
                "Validation Error\n\nCaused by:\n    In a RenderPass\n      note: encoder = `frame`"
                    .into(),
        };
        assert_eq!(
            gpu_error_line(&e),
            "Validation Error: In a RenderPass: note: encoder = `frame`: Buffer size 512 is below the minimum 1024"
        );
    }

    use super::*;

    #[test]
    fn srgb_to_linear_matches_the_standard() {
        let [r, g, b] = linear(Rgba::rgb8(255, 128, 0));
        assert_eq!((r, b), (1.0, 0.0));
        assert!((g - 0.2158605).abs() < 1e-6, "{g}");
    }
}
