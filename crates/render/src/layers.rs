//! Layers: 2D images (the screen layer, the overlay) uploaded into a
//! target's slots and blended over the scene in the gamma space tiny-skia
//! drew them in (frame steps 9 and 10).

use tiny_skia::Pixmap;

use super::{FRAME_FORMAT, Renderer, Target};

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

/// A layer texture and the bind group that samples it.
pub(super) struct LayerSlot {
    pub(super) size: (u32, u32),
    texture: wgpu::Texture,
    rect: wgpu::Buffer,
    pub(super) group: wgpu::BindGroup,
}

impl Renderer {
    /// Uploads `layers` into `target`'s slots, making a slot only when a
    /// layer's size changed.
    pub(super) fn write_layers(&self, target: &mut Target, layers: &[Layer<'_>]) {
        for (i, layer) in layers.iter().enumerate() {
            let size = (layer.pixmap.width(), layer.pixmap.height());
            if target.layers.get(i).is_none_or(|s| s.size != size) {
                let slot = self.layer_slot(size);
                if i < target.layers.len() {
                    target.layers[i] = slot;
                } else {
                    target.layers.push(slot);
                }
            }
            self.fill_slot(&target.layers[i], layer, target.size);
        }
    }

    /// Lays `layer` over the frame already drawn in `target` (the overlay,
    /// step 9, after the recorder took its picture).
    pub fn overlay(&self, target: &mut Target, layer: Layer<'_>) {
        let layer_size = (layer.pixmap.width(), layer.pixmap.height());
        if target.overlay.as_ref().is_none_or(|s| s.size != layer_size) {
            target.overlay = Some(self.layer_slot(layer_size));
        }
        let slot = target.overlay.as_ref().expect("made above");
        self.fill_slot(slot, &layer, target.size);
        let mut encoder = self.device.create_command_encoder(&Default::default());
        self.composite(&mut encoder, &target.plain, std::iter::once(slot));
        self.queue.submit([encoder.finish()]);
    }

    /// Blends each slot's layer over `view`, in order (step 10, and 9).
    pub(super) fn composite<'a>(
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
        pass.set_pipeline(&self.pipelines.composite);
        for slot in slots {
            pass.set_bind_group(0, &slot.group, &[]);
            pass.draw(0..6, 0..1);
        }
    }

    /// Uploads `layer`'s pixels into `slot` and places it on a frame of `frame` pixels.
    pub(super) fn fill_slot(&self, slot: &LayerSlot, layer: &Layer<'_>, frame: (u32, u32)) {
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

    pub(super) fn layer_slot(&self, size: (u32, u32)) -> LayerSlot {
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
            layout: &self.pipelines.composite_layout,
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
}
