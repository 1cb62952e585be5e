//! Render: the retained scene drawn with wgpu, and 2D layers composited
//! over it (frame steps 7 and 10).
//!
//! Every frame is drawn into the renderer's own RGBA8 texture: the scene
//! through its sRGB view (lighting is linear, the view encodes), then each
//! 2D layer (the screen layer, the overlay) blended through its plain
//! view, in the gamma space tiny-skia drew it in. A window then presents
//! that texture; a headless run or a recorder reads it back. One path for
//! both is what lets golden tests stand for what a player sees.

mod geometry;

use glam::{Mat3, Vec3};
use tiny_skia::Pixmap;
use wgpu::util::DeviceExt;

pub use geometry::{Geometry, Vertex};

use crate::assets::Store;
use crate::color::Rgba;
use crate::error::{Error, Result};
use crate::scene::{Light, Mesh, Scene};
use crate::viewport::Viewport;

/// The format of the frame texture. Its sRGB twin is the scene's view.
const FRAME_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8Unorm;
const FRAME_SRGB: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8UnormSrgb;
const DEPTH_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;

/// The most directional and point lights a frame shades with.
pub const MAX_DIRECTIONAL: usize = 4;
/// See [`MAX_DIRECTIONAL`].
pub const MAX_POINT: usize = 8;

/// What to install when no adapter can be found.
const NO_ADAPTER: &str = "no graphics adapter found; install Mesa's software renderer \
     (apt-get install mesa-vulkan-drivers libvulkan1) or run without pictures";

/// A 2D image laid over the frame at a place in device pixels.
#[derive(Debug, Clone, Copy)]
pub struct Layer<'a> {
    /// Premultiplied RGBA pixels.
    pub pixmap: &'a Pixmap,
    /// Left edge on the frame.
    pub x: i32,
    /// Top edge on the frame.
    pub y: i32,
}

#[repr(C)]
#[derive(Debug, Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct Instance {
    model: [[f32; 4]; 4],
    normal: [[f32; 4]; 3],
    color: [f32; 4],
    flags: [f32; 4],
}

#[repr(C)]
#[derive(Debug, Clone, Copy, bytemuck::Pod, bytemuck::Zeroable)]
struct Globals {
    view_proj: [[f32; 4]; 4],
    camera: [f32; 4],
    ambient: [f32; 4],
    counts: [u32; 4],
    dir_direction: [[f32; 4]; MAX_DIRECTIONAL],
    dir_color: [[f32; 4]; MAX_DIRECTIONAL],
    point_position: [[f32; 4]; MAX_POINT],
    point_color: [[f32; 4]; MAX_POINT],
}

struct GpuMesh {
    vertices: wgpu::Buffer,
    indices: wgpu::Buffer,
    count: u32,
}

struct Frame {
    size: (u32, u32),
    color: wgpu::Texture,
    plain: wgpu::TextureView,
    srgb: wgpu::TextureView,
    depth: wgpu::TextureView,
}

/// A layer texture and the bind group that samples it.
struct LayerSlot {
    size: (u32, u32),
    texture: wgpu::Texture,
    rect: wgpu::Buffer,
    group: wgpu::BindGroup,
}

/// A surface format's present pipeline, its full-screen rectangle, and the
/// bind group for the frame size it was made for.
type PresentPipeline = (
    wgpu::TextureFormat,
    wgpu::RenderPipeline,
    wgpu::Buffer,
    Option<((u32, u32), wgpu::BindGroup)>,
);

/// Which mesh a batch of instances draws.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum BatchKey {
    Builtin(u8),
    /// An index into the renderer's uploaded models.
    Model(u32),
}

/// A visible object, batched.
struct Staged {
    mesh: BatchKey,
    /// An index into the renderer's uploaded textures.
    texture: Option<u32>,
    /// Squared distance from the camera.
    distance: f32,
    /// Its place in the scene, which breaks ties.
    order: u32,
    instance: Instance,
}

/// Uploaded models or textures, by the store's id, each with the store
/// generation it was uploaded at: when the store's moves on (a reload
/// changed the file), the next batch uploads it again. Batches refer to
/// them by index, so staging a frame copies nothing (the host allocates
/// nothing per frame).
struct Uploaded<T> {
    items: Vec<Option<(u64, T)>>,
}

impl<T> Uploaded<T> {
    fn new() -> Self {
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

/// The renderer: a device, its pipelines, and what it has uploaded.
pub struct Renderer {
    device: wgpu::Device,
    queue: wgpu::Queue,
    info: String,
    scene_pipeline: wgpu::RenderPipeline,
    composite_pipeline: wgpu::RenderPipeline,
    composite_layout: wgpu::BindGroupLayout,
    texture_layout: wgpu::BindGroupLayout,
    globals: wgpu::Buffer,
    globals_group: wgpu::BindGroup,
    linear: wgpu::Sampler,
    nearest: wgpu::Sampler,
    white: wgpu::BindGroup,
    builtin: Vec<GpuMesh>,
    models: Uploaded<GpuMesh>,
    textures: Uploaded<wgpu::BindGroup>,
    instances: wgpu::Buffer,
    instance_capacity: usize,
    /// Visible objects, in drawing order.
    staged: Vec<Staged>,
    upload: Vec<Instance>,
    frame: Option<Frame>,
    layers: Vec<LayerSlot>,
    overlay: Option<LayerSlot>,
    readback: Option<(wgpu::Buffer, u32)>,
    present: Option<PresentPipeline>,
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
            pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions::default()))
                .map_err(|_| Error::Usage(NO_ADAPTER.into()))?;
        Renderer::on(&adapter)
    }

    /// Creates a renderer on `adapter`.
    ///
    /// # Errors
    /// The adapter refused a device.
    pub fn on(adapter: &wgpu::Adapter) -> Result<Renderer> {
        let info = adapter.get_info();
        let info = format!("{} ({:?}, {})", info.name, info.backend, info.driver_info);
        let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
            label: Some("moonloop"),
            required_limits:
                wgpu::Limits::downlevel_webgl2_defaults().using_resolution(adapter.limits()),
            ..Default::default()
        }))
        .map_err(|e| Error::Usage(format!("the graphics adapter {info} refused a device: {e}")))?;
        // wgpu's default for an error it was not asked to catch is to
        // panic; a frame the GPU refused is one bad picture, said once,
        // and the game goes on.
        let said = std::sync::atomic::AtomicBool::new(false);
        device.on_uncaptured_error(std::sync::Arc::new(move |e: wgpu::Error| {
            if !said.swap(true, std::sync::atomic::Ordering::Relaxed) {
                let text = e.to_string();
                eprintln!(
                    "moonloop: the GPU refused a frame: {}",
                    text.lines().next().unwrap_or_default()
                );
            }
        }));
        Ok(Renderer::with_device(device, queue, info))
    }

    fn with_device(device: wgpu::Device, queue: wgpu::Queue, info: String) -> Renderer {
        let scene_shader = device.create_shader_module(wgpu::include_wgsl!("shaders/scene.wgsl"));
        let composite_shader =
            device.create_shader_module(wgpu::include_wgsl!("shaders/composite.wgsl"));
        let uniform_entry = |binding, visibility| wgpu::BindGroupLayoutEntry {
            binding,
            visibility,
            ty: wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Uniform,
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        };
        let texture_entry = |binding| wgpu::BindGroupLayoutEntry {
            binding,
            visibility: wgpu::ShaderStages::FRAGMENT,
            ty: wgpu::BindingType::Texture {
                sample_type: wgpu::TextureSampleType::Float { filterable: true },
                view_dimension: wgpu::TextureViewDimension::D2,
                multisampled: false,
            },
            count: None,
        };
        let sampler_entry = |binding| wgpu::BindGroupLayoutEntry {
            binding,
            visibility: wgpu::ShaderStages::FRAGMENT,
            ty: wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Filtering),
            count: None,
        };
        let globals_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("globals"),
            entries: &[uniform_entry(0, wgpu::ShaderStages::VERTEX_FRAGMENT)],
        });
        let texture_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("material texture"),
            entries: &[texture_entry(0), sampler_entry(1)],
        });
        let composite_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("layer"),
            entries: &[
                texture_entry(0),
                sampler_entry(1),
                uniform_entry(2, wgpu::ShaderStages::VERTEX),
            ],
        });
        let scene_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("scene"),
            bind_group_layouts: &[Some(&globals_layout), Some(&texture_layout)],
            immediate_size: 0,
        });
        let vertex_layout = wgpu::VertexBufferLayout {
            array_stride: std::mem::size_of::<Vertex>() as u64,
            step_mode: wgpu::VertexStepMode::Vertex,
            attributes: &wgpu::vertex_attr_array![0 => Float32x3, 1 => Float32x3, 2 => Float32x2],
        };
        let instance_layout = wgpu::VertexBufferLayout {
            array_stride: std::mem::size_of::<Instance>() as u64,
            step_mode: wgpu::VertexStepMode::Instance,
            attributes: &wgpu::vertex_attr_array![
                3 => Float32x4, 4 => Float32x4, 5 => Float32x4, 6 => Float32x4,
                7 => Float32x4, 8 => Float32x4, 9 => Float32x4, 10 => Float32x4, 11 => Float32x4
            ],
        };
        let scene_pipeline = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some("scene"),
            layout: Some(&scene_layout),
            vertex: wgpu::VertexState {
                module: &scene_shader,
                entry_point: Some("vs_main"),
                compilation_options: Default::default(),
                buffers: &[Some(vertex_layout), Some(instance_layout)],
            },
            primitive: wgpu::PrimitiveState {
                cull_mode: Some(wgpu::Face::Back),
                ..Default::default()
            },
            depth_stencil: Some(wgpu::DepthStencilState {
                format: DEPTH_FORMAT,
                depth_write_enabled: Some(true),
                depth_compare: Some(wgpu::CompareFunction::Less),
                stencil: Default::default(),
                bias: Default::default(),
            }),
            multisample: Default::default(),
            fragment: Some(wgpu::FragmentState {
                module: &scene_shader,
                entry_point: Some("fs_main"),
                compilation_options: Default::default(),
                targets: &[Some(FRAME_SRGB.into())],
            }),
            multiview_mask: None,
            cache: None,
        });
        let composite_pipeline_layout =
            device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some("composite"),
                bind_group_layouts: &[Some(&composite_layout)],
                immediate_size: 0,
            });
        let composite_pipeline = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some("composite"),
            layout: Some(&composite_pipeline_layout),
            vertex: wgpu::VertexState {
                module: &composite_shader,
                entry_point: Some("vs_main"),
                compilation_options: Default::default(),
                buffers: &[],
            },
            primitive: Default::default(),
            depth_stencil: None,
            multisample: Default::default(),
            fragment: Some(wgpu::FragmentState {
                module: &composite_shader,
                entry_point: Some("fs_main"),
                compilation_options: Default::default(),
                targets: &[Some(wgpu::ColorTargetState {
                    format: FRAME_FORMAT,
                    blend: Some(wgpu::BlendState::PREMULTIPLIED_ALPHA_BLENDING),
                    write_mask: wgpu::ColorWrites::ALL,
                })],
            }),
            multiview_mask: None,
            cache: None,
        });
        let globals = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("globals"),
            size: std::mem::size_of::<Globals>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let globals_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("globals"),
            layout: &globals_layout,
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
        let mut renderer = Renderer {
            white: texture_group(&device, &queue, &texture_layout, &linear, 1, 1, &[255; 4]),
            builtin: Vec::new(),
            models: Uploaded::new(),
            textures: Uploaded::new(),
            instances: device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("instances"),
                size: 1024 * std::mem::size_of::<Instance>() as u64,
                usage: wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }),
            instance_capacity: 1024,
            staged: Vec::new(),
            upload: Vec::new(),
            frame: None,
            layers: Vec::new(),
            overlay: None,
            readback: None,
            present: None,
            device,
            queue,
            info,
            scene_pipeline,
            composite_pipeline,
            composite_layout,
            texture_layout,
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
        ];
        renderer.builtin = builtin
            .iter()
            .map(|g| renderer.upload_mesh(&g.vertices, &g.indices))
            .collect();
        renderer
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
        }))
        .map_err(|_| Error::Usage(NO_ADAPTER.into()))?;
        Ok((Renderer::on(&adapter)?, adapter))
    }

    /// Returns the device, to configure a surface.
    pub fn device(&self) -> &wgpu::Device {
        &self.device
    }

    /// Lays `layer` over the frame already drawn (the overlay, step 9,
    /// after the recorder took its picture).
    pub fn add_layer(&mut self, layer: Layer<'_>) {
        let Some(size) = self.frame.as_ref().map(|f| f.size) else {
            return;
        };
        let layer_size = (layer.pixmap.width(), layer.pixmap.height());
        if self.overlay.as_ref().is_none_or(|s| s.size != layer_size) {
            self.overlay = Some(self.layer_slot(layer_size));
        }
        let slot = self.overlay.as_ref().expect("made above");
        self.fill_slot(slot, &layer, size);
        let frame = self.frame.as_ref().expect("checked above");
        let mut encoder = self.device.create_command_encoder(&Default::default());
        self.composite(&mut encoder, &frame.plain, std::iter::once(slot));
        self.queue.submit([encoder.finish()]);
    }

    /// Copies the frame onto a surface texture of `format` (a window's).
    pub fn present(&mut self, target: &wgpu::TextureView, format: wgpu::TextureFormat) {
        let Some(frame) = self.frame.as_ref() else {
            return;
        };
        if self
            .present
            .as_ref()
            .is_none_or(|(f, _, _, _)| *f != format)
        {
            let shader = self
                .device
                .create_shader_module(wgpu::include_wgsl!("shaders/composite.wgsl"));
            let layout = self
                .device
                .create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                    label: Some("present"),
                    bind_group_layouts: &[Some(&self.composite_layout)],
                    immediate_size: 0,
                });
            let pipeline = self
                .device
                .create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                    label: Some("present"),
                    layout: Some(&layout),
                    vertex: wgpu::VertexState {
                        module: &shader,
                        entry_point: Some("vs_main"),
                        compilation_options: Default::default(),
                        buffers: &[],
                    },
                    primitive: Default::default(),
                    depth_stencil: None,
                    multisample: Default::default(),
                    fragment: Some(wgpu::FragmentState {
                        module: &shader,
                        // The frame holds sRGB-encoded values; an sRGB surface
                        // encodes on write, so decode first.
                        entry_point: Some(if format.is_srgb() {
                            "fs_present_srgb"
                        } else {
                            "fs_main"
                        }),
                        compilation_options: Default::default(),
                        targets: &[Some(format.into())],
                    }),
                    multiview_mask: None,
                    cache: None,
                });
            let rect = self
                .device
                .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some("present rect"),
                    contents: bytemuck::cast_slice(&[-1.0f32, 1.0, 2.0, 2.0]),
                    usage: wgpu::BufferUsages::UNIFORM,
                });
            self.present = Some((format, pipeline, rect, None));
        }
        let (_, pipeline, rect, group) = self.present.as_mut().expect("made above");
        let group = match group {
            Some((size, g)) if *size == frame.size => &*g,
            _ => {
                let g = self.device.create_bind_group(&wgpu::BindGroupDescriptor {
                    label: Some("present"),
                    layout: &self.composite_layout,
                    entries: &[
                        wgpu::BindGroupEntry {
                            binding: 0,
                            resource: wgpu::BindingResource::TextureView(&frame.plain),
                        },
                        wgpu::BindGroupEntry {
                            binding: 1,
                            resource: wgpu::BindingResource::Sampler(&self.nearest),
                        },
                        wgpu::BindGroupEntry {
                            binding: 2,
                            resource: rect.as_entire_binding(),
                        },
                    ],
                });
                *group = Some((frame.size, g));
                &group.as_ref().expect("set above").1
            }
        };
        let mut encoder = self.device.create_command_encoder(&Default::default());
        {
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("present"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: target,
                    depth_slice: None,
                    resolve_target: None,
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Clear(wgpu::Color::BLACK),
                        store: wgpu::StoreOp::Store,
                    },
                })],
                ..Default::default()
            });
            pass.set_pipeline(pipeline);
            pass.set_bind_group(0, group, &[]);
            pass.draw(0..6, 0..1);
        }
        self.queue.submit([encoder.finish()]);
    }

    /// Waits until the GPU has finished everything submitted.
    pub fn finish(&self) {
        let _ = self.device.poll(wgpu::PollType::wait_indefinitely());
    }

    /// Shows a surface texture drawn by [`Renderer::present`].
    pub fn show(&self, texture: wgpu::SurfaceTexture) {
        self.queue.present(texture);
    }

    /// Names the adapter, as a golden test's tolerance comment does.
    pub fn adapter(&self) -> &str {
        &self.info
    }

    fn upload_mesh(&self, vertices: &[Vertex], indices: &[u32]) -> GpuMesh {
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

    fn ensure_frame(&mut self, size: (u32, u32)) {
        if self.frame.as_ref().is_some_and(|f| f.size == size) {
            return;
        }
        let extent = wgpu::Extent3d {
            width: size.0,
            height: size.1,
            depth_or_array_layers: 1,
        };
        let color = self.device.create_texture(&wgpu::TextureDescriptor {
            label: Some("frame"),
            size: extent,
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: FRAME_FORMAT,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT
                | wgpu::TextureUsages::COPY_SRC
                | wgpu::TextureUsages::TEXTURE_BINDING,
            view_formats: &[FRAME_SRGB],
        });
        let depth = self.device.create_texture(&wgpu::TextureDescriptor {
            label: Some("depth"),
            size: extent,
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: DEPTH_FORMAT,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
            view_formats: &[],
        });
        self.frame = Some(Frame {
            size,
            plain: color.create_view(&Default::default()),
            srgb: color.create_view(&wgpu::TextureViewDescriptor {
                format: Some(FRAME_SRGB),
                ..Default::default()
            }),
            depth: depth.create_view(&Default::default()),
            color,
        });
    }

    /// Draws a frame of `size` device pixels: the background, the scene in
    /// the letterboxed `viewport` (scissored to it), then `layers` over it.
    /// Models and textures come from `assets`.
    pub fn draw(
        &mut self,
        size: (u32, u32),
        scene: &Scene,
        assets: &Store,
        viewport: &Viewport,
        background: Rgba,
        layers: &[Layer<'_>],
    ) {
        let size = (size.0.max(1), size.1.max(1));
        self.ensure_frame(size);
        self.batch(scene, assets);
        self.upload_instances();
        self.write_globals(scene, viewport);
        self.write_layers(layers, size);
        let frame = self.frame.as_ref().expect("made above");
        let mut encoder = self.device.create_command_encoder(&Default::default());
        {
            let bg = linear(background);
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("scene"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: &frame.srgb,
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
                    view: &frame.depth,
                    depth_ops: Some(wgpu::Operations {
                        load: wgpu::LoadOp::Clear(1.0),
                        store: wgpu::StoreOp::Discard,
                    }),
                    stencil_ops: None,
                }),
                ..Default::default()
            });
            if viewport.width > 0 && viewport.height > 0 && !self.staged.is_empty() {
                pass.set_viewport(
                    viewport.x as f32,
                    viewport.y as f32,
                    viewport.width as f32,
                    viewport.height as f32,
                    0.0,
                    1.0,
                );
                pass.set_scissor_rect(viewport.x, viewport.y, viewport.width, viewport.height);
                pass.set_pipeline(&self.scene_pipeline);
                pass.set_bind_group(0, &self.globals_group, &[]);
                pass.set_vertex_buffer(1, self.instances.slice(..));
                let mut start = 0;
                while start < self.staged.len() {
                    let Staged { mesh, texture, .. } = self.staged[start];
                    let mut end = start + 1;
                    while end < self.staged.len()
                        && self.staged[end].mesh == mesh
                        && self.staged[end].texture == texture
                    {
                        end += 1;
                    }
                    let mesh = match mesh {
                        BatchKey::Builtin(i) => &self.builtin[i as usize],
                        BatchKey::Model(i) => self.models.get(i),
                    };
                    let group = texture.map_or(&self.white, |t| self.textures.get(t));
                    pass.set_bind_group(1, group, &[]);
                    pass.set_vertex_buffer(0, mesh.vertices.slice(..));
                    pass.set_index_buffer(mesh.indices.slice(..), wgpu::IndexFormat::Uint32);
                    pass.draw_indexed(0..mesh.count, 0, start as u32..end as u32);
                    start = end;
                }
            }
        }
        if !layers.is_empty() {
            self.composite(
                &mut encoder,
                &frame.plain,
                self.layers[..layers.len()].iter(),
            );
        }
        self.queue.submit([encoder.finish()]);
    }

    /// Gathers `scene`'s visible objects into batches by mesh and texture,
    /// uploading the models and textures of `assets` it meets for the first
    /// time, or again when a reload changed them. Once those are uploaded
    /// it allocates nothing: batches name them by index.
    pub fn batch(&mut self, scene: &Scene, assets: &Store) {
        self.staged.clear();
        let eye = scene.camera.pose.w_axis;
        for object in scene.objects() {
            if !scene.is_visible(object) {
                continue;
            }
            let key = match &object.mesh {
                Mesh::Cube => BatchKey::Builtin(0),
                Mesh::Sphere => BatchKey::Builtin(1),
                Mesh::Plane => BatchKey::Builtin(2),
                Mesh::Cylinder => BatchKey::Builtin(3),
                Mesh::Model(id) => {
                    let generation = assets.model_generation(*id);
                    if !self.models.fresh(id.0, generation) {
                        let model = assets.model_at(*id);
                        let vertices: Vec<Vertex> = (0..model.positions.len())
                            .map(|v| Vertex {
                                position: model.positions[v],
                                normal: model.normals[v],
                                uv: model.uvs[v],
                            })
                            .collect();
                        let mesh = self.upload_mesh(&vertices, &model.indices);
                        self.models.set(id.0, generation, mesh);
                    }
                    BatchKey::Model(id.0)
                }
            };
            let texture = object.material.texture.map(|id| {
                let generation = assets.image_generation(id);
                if !self.textures.fresh(id.0, generation) {
                    let group = self.upload_texture(assets.image_at(id));
                    self.textures.set(id.0, generation, group);
                }
                id.0
            });
            let world = object.world;
            let normal = Mat3::from_mat4(world).inverse().transpose();
            let c = linear(object.material.color);
            let instance = Instance {
                model: world.to_cols_array_2d(),
                normal: [
                    normal.x_axis.extend(0.0).into(),
                    normal.y_axis.extend(0.0).into(),
                    normal.z_axis.extend(0.0).into(),
                ],
                color: [c[0], c[1], c[2], object.material.color.a],
                flags: [if object.material.lit { 1.0 } else { 0.0 }, 0.0, 0.0, 0.0],
            };
            let distance = (world.w_axis - eye).length_squared();
            self.staged.push(Staged {
                mesh: key,
                texture,
                distance,
                order: self.staged.len() as u32,
                instance,
            });
        }
        // Objects sharing a mesh and texture draw as one instanced call;
        // within a call, nearest first, so the depth test spares the
        // shading of what is hidden. (The unstable sort needs no scratch
        // buffer; the scene order makes it total.)
        self.staged.sort_unstable_by(|a, b| {
            (a.mesh, a.texture)
                .cmp(&(b.mesh, b.texture))
                .then_with(|| a.distance.total_cmp(&b.distance))
                .then_with(|| a.order.cmp(&b.order))
        });
    }

    /// Writes the batched instances into the instance buffer.
    fn upload_instances(&mut self) {
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
    fn upload_texture(&self, pixmap: &Pixmap) -> wgpu::BindGroup {
        let mut rgba = Vec::with_capacity(pixmap.data().len());
        for p in pixmap.pixels() {
            let c = p.demultiply();
            rgba.extend([c.red(), c.green(), c.blue(), c.alpha()]);
        }
        texture_group(
            &self.device,
            &self.queue,
            &self.texture_layout,
            &self.linear,
            pixmap.width(),
            pixmap.height(),
            &rgba,
        )
    }

    fn write_globals(&mut self, scene: &Scene, viewport: &Viewport) {
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
        };
        let mut any = false;
        for light in scene.lights() {
            any = true;
            match *light {
                Light::Ambient { color } => {
                    for i in 0..3 {
                        g.ambient[i] += color[i];
                    }
                }
                Light::Directional { color, direction } => {
                    let i = g.counts[0] as usize;
                    if i < MAX_DIRECTIONAL {
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
                    let i = g.counts[1] as usize;
                    if i < MAX_POINT {
                        g.point_position[i] = position.extend(range).into();
                        g.point_color[i] = color.extend(0.0).into();
                        g.counts[1] += 1;
                    }
                }
            }
        }
        if !any {
            // A scene with no lights is lit by a soft sky and a sun from the
            // upper left, so a first cube is not a black square.
            g.ambient = [0.25, 0.25, 0.25, 0.0];
            g.dir_direction[0] = Vec3::new(-1.0, -2.0, -1.5).normalize().extend(0.0).into();
            g.dir_color[0] = [0.85, 0.85, 0.85, 0.0];
            g.counts[0] = 1;
        }
        self.queue
            .write_buffer(&self.globals, 0, bytemuck::bytes_of(&g));
    }

    fn write_layers(&mut self, layers: &[Layer<'_>], frame: (u32, u32)) {
        for (i, layer) in layers.iter().enumerate() {
            let size = (layer.pixmap.width(), layer.pixmap.height());
            if self.layers.get(i).is_none_or(|s| s.size != size) {
                let slot = self.layer_slot(size);
                if i < self.layers.len() {
                    self.layers[i] = slot;
                } else {
                    self.layers.push(slot);
                }
            }
            self.fill_slot(&self.layers[i], layer, frame);
        }
    }

    /// Blends each slot's layer over `view`, in order (step 10, and 9).
    fn composite<'a>(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        view: &wgpu::TextureView,
        slots: impl Iterator<Item = &'a LayerSlot>,
    ) {
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("layers"),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view,
                depth_slice: None,
                resolve_target: None,
                ops: wgpu::Operations {
                    load: wgpu::LoadOp::Load,
                    store: wgpu::StoreOp::Store,
                },
            })],
            ..Default::default()
        });
        pass.set_pipeline(&self.composite_pipeline);
        for slot in slots {
            pass.set_bind_group(0, &slot.group, &[]);
            pass.draw(0..6, 0..1);
        }
    }

    /// Uploads `layer`'s pixels into `slot` and places it on a frame of `frame` pixels.
    fn fill_slot(&self, slot: &LayerSlot, layer: &Layer<'_>, frame: (u32, u32)) {
        let size = slot.size;
        self.queue.write_texture(
            slot.texture.as_image_copy(),
            layer.pixmap.data(),
            wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(size.0 * 4),
                rows_per_image: None,
            },
            wgpu::Extent3d {
                width: size.0,
                height: size.1,
                depth_or_array_layers: 1,
            },
        );
        // Clip space: x from -1 (left) to 1, y from 1 (top) to -1.
        let (fw, fh) = (frame.0 as f32, frame.1 as f32);
        let rect = [
            layer.x as f32 / fw * 2.0 - 1.0,
            1.0 - layer.y as f32 / fh * 2.0,
            size.0 as f32 / fw * 2.0,
            size.1 as f32 / fh * 2.0,
        ];
        self.queue
            .write_buffer(&slot.rect, 0, bytemuck::cast_slice(&rect));
    }

    fn layer_slot(&self, size: (u32, u32)) -> LayerSlot {
        let texture = self.device.create_texture(&wgpu::TextureDescriptor {
            label: Some("layer"),
            size: wgpu::Extent3d {
                width: size.0,
                height: size.1,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: FRAME_FORMAT,
            usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
            view_formats: &[],
        });
        let rect = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("layer rect"),
            size: 16,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let view = texture.create_view(&Default::default());
        let group = self.device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("layer"),
            layout: &self.composite_layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: wgpu::BindingResource::TextureView(&view),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: wgpu::BindingResource::Sampler(&self.nearest),
                },
                wgpu::BindGroupEntry {
                    binding: 2,
                    resource: rect.as_entire_binding(),
                },
            ],
        });
        LayerSlot {
            size,
            texture,
            rect,
            group,
        }
    }

    /// Reads the last drawn frame back as a pixmap.
    ///
    /// # Panics
    /// If nothing was drawn yet.
    pub fn read(&mut self) -> Pixmap {
        let frame = self.frame.as_ref().expect("a frame was drawn");
        let (w, h) = frame.size;
        let row = (w * 4).div_ceil(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT)
            * wgpu::COPY_BYTES_PER_ROW_ALIGNMENT;
        let needed = row * h;
        if self
            .readback
            .as_ref()
            .is_none_or(|(_, size)| *size != needed)
        {
            let buffer = self.device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("readback"),
                size: needed as u64,
                usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
                mapped_at_creation: false,
            });
            self.readback = Some((buffer, needed));
        }
        let (buffer, _) = self.readback.as_ref().expect("made above");
        let mut encoder = self.device.create_command_encoder(&Default::default());
        encoder.copy_texture_to_buffer(
            frame.color.as_image_copy(),
            wgpu::TexelCopyBufferInfo {
                buffer,
                layout: wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(row),
                    rows_per_image: None,
                },
            },
            wgpu::Extent3d {
                width: w,
                height: h,
                depth_or_array_layers: 1,
            },
        );
        self.queue.submit([encoder.finish()]);
        let slice = buffer.slice(..);
        slice.map_async(wgpu::MapMode::Read, |_| {});
        let _ = self.device.poll(wgpu::PollType::wait_indefinitely());
        let mut pixmap = Pixmap::new(w, h).expect("a non-empty frame");
        {
            let data = slice
                .get_mapped_range()
                .expect("the readback buffer maps after the wait");
            for (y, out) in pixmap
                .data_mut()
                .chunks_exact_mut((w * 4) as usize)
                .enumerate()
            {
                let start = y * row as usize;
                out.copy_from_slice(&data[start..start + (w * 4) as usize]);
            }
        }
        buffer.unmap();
        pixmap
    }
}

/// Draws `engine`'s last frame (step 7 and 10): the scene, then its screen
/// layer, rasterized into `screen` (resized to the surface as needed),
/// then `overlay` if given. Returns nothing; read or present the frame.
pub fn draw_frame<G: crate::engine::Game>(
    renderer: &mut Renderer,
    engine: &mut crate::engine::Engine<G>,
    screen: &mut Option<Pixmap>,
    overlay: Option<Layer<'_>>,
) -> Option<crate::Error> {
    let viewport = *engine.viewport();
    let size = viewport.surface;
    if screen
        .as_ref()
        .is_none_or(|p| (p.width(), p.height()) != size)
    {
        *screen = Pixmap::new(size.0.max(1), size.1.max(1));
    }
    let pixmap = screen.as_mut().expect("a non-empty surface");
    // A frame that drew nothing on the screen layer skips clearing,
    // uploading and compositing it: a 3D game without a HUD pays nothing.
    let drawn = engine.screen_layer(pixmap);
    let screen_layer = drawn.then_some(Layer { pixmap, x: 0, y: 0 });
    let draw = |renderer: &mut Renderer, layers: &[Layer<'_>]| {
        let scene = engine.scene();
        renderer.draw(
            size,
            scene,
            engine.assets(),
            &viewport,
            engine.background(),
            layers,
        );
    };
    match (screen_layer, overlay) {
        (Some(screen), Some(overlay)) => draw(renderer, &[screen, overlay]),
        (Some(one), None) | (None, Some(one)) => draw(renderer, std::slice::from_ref(&one)),
        (None, None) => draw(renderer, &[]),
    }
    skipped(engine.screen().skipped())
}

/// The error a frame whose screen layer lost `count` commands reports.
fn skipped(count: u32) -> Option<crate::Error> {
    (count > 0).then(|| {
        crate::Error::Script(format!(
            "screen: {count} drawing command(s) could not be rasterized and were skipped \
             (H10: look for coordinates or scales far outside the screen)"
        ))
    })
}

#[allow(clippy::too_many_arguments)]
fn texture_group(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    layout: &wgpu::BindGroupLayout,
    sampler: &wgpu::Sampler,
    width: u32,
    height: u32,
    rgba: &[u8],
) -> wgpu::BindGroup {
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
            format: FRAME_SRGB,
            usage: wgpu::TextureUsages::TEXTURE_BINDING,
            view_formats: &[],
        },
        wgpu::util::TextureDataOrder::LayerMajor,
        rgba,
    );
    let view = texture.create_view(&Default::default());
    device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("texture"),
        layout,
        entries: &[
            wgpu::BindGroupEntry {
                binding: 0,
                resource: wgpu::BindingResource::TextureView(&view),
            },
            wgpu::BindGroupEntry {
                binding: 1,
                resource: wgpu::BindingResource::Sampler(sampler),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn srgb_to_linear_matches_the_standard() {
        let [r, g, b] = linear(Rgba::rgb8(255, 128, 0));
        assert_eq!((r, b), (1.0, 0.0));
        assert!((g - 0.2158605).abs() < 1e-6, "{g}");
    }

    #[test]
    fn instances_pack_as_the_shader_reads_them() {
        assert_eq!(std::mem::size_of::<Instance>(), 144);
        assert_eq!(std::mem::size_of::<Globals>() % 16, 0);
    }
}
