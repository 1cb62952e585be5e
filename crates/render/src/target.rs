//! Target: a frame the renderer draws into (its color and depth textures,
//! the slots its 2D layers are uploaded to) and reads back from.
//!
//! A window keeps one target at the surface's size; a recording or a
//! screenshot draws into one at the game's logical size. Each target owns
//! its layer slots, so drawing the two in turn every frame recreates
//! nothing.

use tiny_skia::Pixmap;

use super::layers::LayerSlot;
use super::{DEPTH_FORMAT, FRAME_FORMAT, FRAME_SRGB};

/// A frame of one size, drawn into and read back.
pub struct Target {
    /// Tells targets apart (a bind group made for one fits no other).
    pub(super) id: u64,
    pub(super) size: (u32, u32),
    pub(super) color: wgpu::Texture,
    /// The color texture viewed as plain RGBA: the 2D layers blend here.
    pub(super) plain: wgpu::TextureView,
    /// The color texture viewed as sRGB: the scene writes linear light here.
    pub(super) srgb: wgpu::TextureView,
    /// Where a device that cannot view a texture in another format (GL)
    /// draws the scene instead, copied onto the color texture after.
    apart: Option<wgpu::Texture>,
    pub(super) depth: wgpu::TextureView,
    /// The screen layer's slot, then the overlay's.
    pub(super) layers: Vec<LayerSlot>,
    pub(super) overlay: Option<LayerSlot>,
    readback: Option<(wgpu::Buffer, u32)>,
}

impl std::fmt::Debug for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Target").field("size", &self.size).finish()
    }
}

impl Target {
    /// Creates a target of `size` device pixels (at least 1x1) on `device`;
    /// `view_formats` says whether it can view one texture as sRGB.
    pub(super) fn new(device: &wgpu::Device, size: (u32, u32), view_formats: bool) -> Target {
        let size = (size.0.max(1), size.1.max(1));
        let extent = wgpu::Extent3d {
            width: size.0,
            height: size.1,
            depth_or_array_layers: 1,
        };
        let color = device.create_texture(&wgpu::TextureDescriptor {
            label: Some("frame"),
            size: extent,
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: FRAME_FORMAT,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT
                | wgpu::TextureUsages::COPY_SRC
                | wgpu::TextureUsages::COPY_DST
                | wgpu::TextureUsages::TEXTURE_BINDING,
            view_formats: if view_formats { &[FRAME_SRGB] } else { &[] },
        });
        // Without view formats the scene is drawn into an sRGB texture of
        // its own; the two formats differ only in encoding, so a copy
        // carries the bytes over unchanged.
        let apart = (!view_formats).then(|| {
            device.create_texture(&wgpu::TextureDescriptor {
                label: Some("scene"),
                size: extent,
                mip_level_count: 1,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format: FRAME_SRGB,
                usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
                view_formats: &[],
            })
        });
        let depth = device.create_texture(&wgpu::TextureDescriptor {
            label: Some("depth"),
            size: extent,
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: DEPTH_FORMAT,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
            view_formats: &[],
        });
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        Target {
            id: NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            size,
            plain: color.create_view(&Default::default()),
            srgb: match &apart {
                Some(scene) => scene.create_view(&Default::default()),
                None => color.create_view(&wgpu::TextureViewDescriptor {
                    format: Some(FRAME_SRGB),
                    ..Default::default()
                }),
            },
            apart,
            depth: depth.create_view(&Default::default()),
            color,
            layers: Vec::new(),
            overlay: None,
            readback: None,
        }
    }

    /// Brings the scene onto the color texture, where a device drew it
    /// apart; nothing otherwise.
    pub(super) fn settle_scene(&self, encoder: &mut wgpu::CommandEncoder) {
        if let Some(scene) = &self.apart {
            encoder.copy_texture_to_texture(
                scene.as_image_copy(),
                self.color.as_image_copy(),
                scene.size(),
            );
        }
    }

    /// Returns the size in device pixels.
    pub fn size(&self) -> (u32, u32) {
        self.size
    }

    /// Reads the frame last drawn into this target back as a pixmap.
    pub(super) fn read(&mut self, device: &wgpu::Device, queue: &wgpu::Queue) -> Pixmap {
        let (w, h) = self.size;
        let row = (w * 4).div_ceil(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT)
            * wgpu::COPY_BYTES_PER_ROW_ALIGNMENT;
        let needed = row * h;
        if self
            .readback
            .as_ref()
            .is_none_or(|(_, size)| *size != needed)
        {
            let buffer = device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("readback"),
                size: needed as u64,
                usage: wgpu::BufferUsages::COPY_DST | wgpu::BufferUsages::MAP_READ,
                mapped_at_creation: false,
            });
            self.readback = Some((buffer, needed));
        }
        let (buffer, _) = self.readback.as_ref().expect("made above");
        let mut encoder = device.create_command_encoder(&Default::default());
        encoder.copy_texture_to_buffer(
            self.color.as_image_copy(),
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
        queue.submit([encoder.finish()]);
        let slice = buffer.slice(..);
        slice.map_async(wgpu::MapMode::Read, |_| {});
        let _ = device.poll(wgpu::PollType::wait_indefinitely());
        let mut pixmap = Pixmap::new(w, h).expect("a non-empty frame");
        // A device that lost the frame (an error already said once) reads
        // back as black rather than taking the host down.
        if let Ok(data) = slice.get_mapped_range() {
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
