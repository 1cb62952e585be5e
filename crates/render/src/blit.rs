//! Blits: a target's frame drawn as one textured rectangle onto another
//! view, sampled by nearest texel. Presenting copies the frame onto a
//! window's surface; enlarging draws a frame made at the game's logical
//! size onto a larger one at a whole scale (rule V1), each logical pixel a
//! square of whole device pixels with no blur.

use wgpu::util::DeviceExt;

use super::{FRAME_FORMAT, Renderer, Target, pipelines};
use moonloop_core::color::Rgba;
use moonloop_core::viewport::Viewport;

/// A pipeline drawing onto views of one format, the rectangle it covers,
/// and the bind group for the target it was last given.
pub(super) struct Blit {
    format: wgpu::TextureFormat,
    pipeline: wgpu::RenderPipeline,
    rect: wgpu::Buffer,
    /// The rectangle in clip space: left, top, width, height.
    area: [f32; 4],
    group: Option<(u64, wgpu::BindGroup)>,
}

/// The whole view, in clip space.
const FULL: [f32; 4] = [-1.0, 1.0, 2.0, 2.0];

/// Where `viewport` lies on its surface, in clip space.
fn area(viewport: &Viewport) -> [f32; 4] {
    let (w, h) = (viewport.surface.0 as f32, viewport.surface.1 as f32);
    [
        viewport.x as f32 / w * 2.0 - 1.0,
        1.0 - viewport.y as f32 / h * 2.0,
        viewport.width as f32 / w * 2.0,
        viewport.height as f32 / h * 2.0,
    ]
}

impl Renderer {
    /// Copies `target`'s frame onto a surface texture of `format` (a
    /// window's), filling it.
    pub fn present(
        &mut self,
        target: &Target,
        view: &wgpu::TextureView,
        format: wgpu::TextureFormat,
    ) {
        // The frame holds sRGB-encoded values; an sRGB surface encodes on
        // write, so decode first.
        let entry = if format.is_srgb() {
            "fs_present_srgb"
        } else {
            "fs_main"
        };
        let mut slot = self.present.take();
        self.blit(
            &mut slot,
            target,
            view,
            format,
            entry,
            FULL,
            wgpu::Color::BLACK,
        );
        self.present = slot;
    }

    /// Presents `small`'s frame on a surface texture of `format` enlarged
    /// at `viewport` (a whole scale of `small`'s size), bars in
    /// `background`: [`Renderer::enlarge`] and [`Renderer::present`] in
    /// one pass over the window's pixels instead of two, for a frame with
    /// nothing laid over it. On a software adapter each full-window pass
    /// is most of a frame's cost.
    pub fn present_enlarged(
        &mut self,
        small: &Target,
        view: &wgpu::TextureView,
        format: wgpu::TextureFormat,
        viewport: &Viewport,
        background: Rgba,
    ) {
        // An sRGB surface encodes what is written, the clear color too.
        let (entry, [r, g, b]) = if format.is_srgb() {
            ("fs_present_srgb", super::linear(background))
        } else {
            ("fs_main", [background.r, background.g, background.b])
        };
        let clear = wgpu::Color {
            r: r as f64,
            g: g as f64,
            b: b as f64,
            a: 1.0,
        };
        let mut slot = self.present.take();
        self.blit(&mut slot, small, view, format, entry, area(viewport), clear);
        self.present = slot;
    }

    /// Draws `small`'s frame onto `large` at `viewport` (a whole scale of
    /// `small`'s size), by nearest texel; the bars around it take
    /// `background`.
    pub fn enlarge(
        &mut self,
        small: &Target,
        large: &mut Target,
        viewport: &Viewport,
        background: Rgba,
    ) {
        // The frame's plain view holds encoded values, as the background
        // is given: the bars match what the scene pass clears to.
        let clear = wgpu::Color {
            r: background.r as f64,
            g: background.g as f64,
            b: background.b as f64,
            a: 1.0,
        };
        let mut slot = self.enlarge.take();
        self.blit(
            &mut slot,
            small,
            &large.plain,
            FRAME_FORMAT,
            "fs_main",
            area(viewport),
            clear,
        );
        self.enlarge = slot;
    }

    #[allow(clippy::too_many_arguments)]
    fn blit(
        &self,
        slot: &mut Option<Blit>,
        source: &Target,
        view: &wgpu::TextureView,
        format: wgpu::TextureFormat,
        entry: &str,
        area: [f32; 4],
        clear: wgpu::Color,
    ) {
        if slot.as_ref().is_none_or(|b| b.format != format) {
            let pipeline = pipelines::image_pipeline(
                &self.device,
                &self.pipelines.composite_layout,
                format,
                entry,
                false,
            );
            let rect = self
                .device
                .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some("blit rect"),
                    contents: bytemuck::cast_slice(&area),
                    usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                });
            *slot = Some(Blit {
                format,
                pipeline,
                rect,
                area,
                group: None,
            });
        }
        let blit = slot.as_mut().expect("made above");
        if blit.area != area {
            // Only when the window's size or the game's changes.
            self.queue
                .write_buffer(&blit.rect, 0, bytemuck::cast_slice(&area));
            blit.area = area;
        }
        if blit.group.as_ref().is_none_or(|(id, _)| *id != source.id) {
            let group = self.device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("blit"),
                layout: &self.pipelines.composite_layout,
                entries: &[
                    wgpu::BindGroupEntry {
                        binding: 0,
                        resource: wgpu::BindingResource::TextureView(&source.plain),
                    },
                    wgpu::BindGroupEntry {
                        binding: 1,
                        resource: wgpu::BindingResource::Sampler(&self.nearest),
                    },
                    wgpu::BindGroupEntry {
                        binding: 2,
                        resource: blit.rect.as_entire_binding(),
                    },
                ],
            });
            blit.group = Some((source.id, group));
        }
        let group = &blit.group.as_ref().expect("made above").1;
        let mut encoder = self.device.create_command_encoder(&Default::default());
        {
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("blit"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view,
                    depth_slice: None,
                    resolve_target: None,
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Clear(clear),
                        store: wgpu::StoreOp::Store,
                    },
                })],
                ..Default::default()
            });
            pass.set_pipeline(&blit.pipeline);
            pass.set_bind_group(0, group, &[]);
            pass.draw(0..6, 0..1);
        }
        self.queue.submit([encoder.finish()]);
    }
}
