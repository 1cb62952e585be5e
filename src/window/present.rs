//! Step 10 for a window: the frame goes to the screen through the GPU's
//! surface, or, on a software adapter, as CPU pixels (softbuffer over X11
//! shared memory or a Wayland buffer). Measured under Xvfb on lavapipe
//! (docs/troubleshooting.md, `moonloop-bench --only window`): a software
//! GPU spent more on uploading, compositing and presenting a 2D frame
//! than tiny-skia spent drawing it, so there a 2D frame is drawn on the
//! CPU and handed to the window as it is.
//!
//! `MOONLOOP_PRESENT=gpu` or `=cpu` picks the way for any adapter.

use std::num::NonZeroU32;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tiny_skia::Pixmap;
use winit::window::Window;

use crate::compositor::{Compositor, Steps};
use crate::engine::{Engine, Game};
use crate::error::{Error, Result};
use crate::record::Recorder;
use crate::render::Renderer;

/// Where a window's frames spent their time, summed: what `run
/// --frame-times` writes and `moonloop-bench --only window` reads.
#[derive(Debug, Default, Clone)]
pub struct FrameTimes {
    /// Frames drawn.
    pub frames: u64,
    /// Running the frame: the game's update and render, history.
    pub game: Duration,
    /// Drawing it: rasterizing, the scene pass, compositing, uploading or
    /// reading back.
    pub draw: Duration,
    /// Handing it to the window system.
    pub present: Duration,
}

impl FrameTimes {
    /// Writes the sums to `path`, one `name value` a line (durations in
    /// nanoseconds), with the way frames were presented.
    ///
    /// # Errors
    /// The file cannot be written.
    pub fn write(&self, path: &std::path::Path, way: &str) -> std::io::Result<()> {
        moonloop_door::write_whole(
            path,
            format!(
                "way {way}\nframes {}\ngame {}\ndraw {}\npresent {}\n",
                self.frames,
                self.game.as_nanos(),
                self.draw.as_nanos(),
                self.present.as_nanos()
            )
            .as_bytes(),
            moonloop_door::Readers::All,
        )
    }
}

/// How the window's frames reach the screen.
pub(super) enum Presenter {
    /// Through a GPU surface.
    Gpu {
        surface: wgpu::Surface<'static>,
        config: wgpu::SurfaceConfiguration,
    },
    /// As CPU pixels.
    Cpu {
        surface: softbuffer::Surface<Arc<Window>, Arc<Window>>,
        size: (u32, u32),
    },
}

/// Which way `MOONLOOP_PRESENT` asks for, if it names one.
fn asked() -> Option<bool> {
    match std::env::var("MOONLOOP_PRESENT").ok()?.as_str() {
        "cpu" => Some(true),
        "gpu" => Some(false),
        _ => None,
    }
}

impl Presenter {
    /// Opens the way `window` is presented to, and the compositor that
    /// draws for it: CPU pixels on a software adapter, the GPU's surface
    /// otherwise (or as `MOONLOOP_PRESENT` says); `vsync` for the GPU's.
    ///
    /// # Errors
    /// No adapter can draw to the window, or the window system refuses
    /// a buffer.
    pub(super) fn open(
        instance: &wgpu::Instance,
        window: &Arc<Window>,
        vsync: wgpu::PresentMode,
    ) -> Result<(Presenter, Compositor)> {
        let surface = instance.create_surface(window.clone())?;
        let (renderer, adapter) = Renderer::for_surface(instance, &surface)?;
        let size = window.inner_size();
        let max = renderer.max_side();
        let size = (size.width.clamp(1, max), size.height.clamp(1, max));
        if asked().unwrap_or(renderer.is_software()) {
            drop(surface);
            let cpu = Presenter::cpu(window, size)?;
            return Ok((cpu, Compositor::new(renderer)));
        }
        let mut config = surface
            .get_default_config(&adapter, size.0, size.1)
            .ok_or_else(|| {
                Error::usage(format!(
                    "the adapter {} cannot draw to this window",
                    renderer.adapter()
                ))
            })?;
        config.present_mode = vsync;
        surface.configure(renderer.device(), &config);
        Ok((
            Presenter::Gpu { surface, config },
            Compositor::new(renderer),
        ))
    }

    /// A CPU presenter of `size` on `window`.
    fn cpu(window: &Arc<Window>, size: (u32, u32)) -> Result<Presenter> {
        let refused = |e: softbuffer::SoftBufferError| {
            Error::usage(format!(
                "the window system refused a buffer to draw in: {e}"
            ))
        };
        let context = softbuffer::Context::new(window.clone()).map_err(refused)?;
        let mut surface = softbuffer::Surface::new(&context, window.clone()).map_err(refused)?;
        resize(&mut surface, size).map_err(refused)?;
        Ok(Presenter::Cpu { surface, size })
    }

    /// Returns the size frames are drawn at, in device pixels.
    pub(super) fn size(&self) -> (u32, u32) {
        match self {
            Presenter::Gpu { config, .. } => (config.width, config.height),
            Presenter::Cpu { size, .. } => *size,
        }
    }

    /// Follows the window to `size` (clamped to what `renderer` draws).
    pub(super) fn resize(&mut self, renderer: &Renderer, size: (u32, u32)) {
        let max = renderer.max_side();
        let size = (size.0.clamp(1, max), size.1.clamp(1, max));
        match self {
            Presenter::Gpu { surface, config } => {
                config.width = size.0;
                config.height = size.1;
                surface.configure(renderer.device(), config);
            }
            Presenter::Cpu { surface, size: at } => {
                // A buffer the window system refuses shows nothing; the
                // next resize or frame asks again.
                if resize(surface, size).is_ok() {
                    *at = size;
                }
            }
        }
    }

    /// Sets the GPU surface's present mode (vsync); CPU pixels are shown
    /// as they are handed over, paced by the window's loop.
    pub(super) fn set_present_mode(&mut self, renderer: &Renderer, mode: wgpu::PresentMode) {
        if let Presenter::Gpu { surface, config } = self {
            config.present_mode = mode;
            surface.configure(renderer.device(), config);
        }
    }

    /// Names the way frames are presented: `cpu` or `gpu`.
    pub(super) fn way(&self) -> &'static str {
        match self {
            Presenter::Gpu { .. } => "gpu",
            Presenter::Cpu { .. } => "cpu",
        }
    }

    /// Steps 7 to 10 for `engine`'s last frame: drawn by `compositor`,
    /// taken by `record`, `overlay` laid over it, shown in `window`; the
    /// time it took is added to `times`. Returns what went wrong drawing
    /// or showing it.
    pub(super) fn frame<G: Game>(
        &mut self,
        window: &Window,
        compositor: &mut Compositor,
        engine: &mut Engine<G>,
        (record, overlay): (Option<&mut Recorder>, Option<(&Pixmap, i32, i32)>),
        times: &mut FrameTimes,
    ) -> Option<Error> {
        let began = Instant::now();
        match self {
            Presenter::Gpu { surface, config } => {
                let texture = match surface.get_current_texture() {
                    wgpu::CurrentSurfaceTexture::Success(texture)
                    | wgpu::CurrentSurfaceTexture::Suboptimal(texture) => Some(texture),
                    _ => {
                        surface.configure(compositor.renderer().device(), config);
                        None
                    }
                };
                let view = texture
                    .as_ref()
                    .map(|t| t.texture.create_view(&Default::default()));
                let steps = Steps {
                    record,
                    overlay,
                    present: view.as_ref().map(|v| (v, config.format)),
                };
                let fault = compositor.frame(engine, steps);
                let drawn = Instant::now();
                times.draw += drawn - began;
                if let Some(texture) = texture {
                    window.pre_present_notify();
                    compositor.show(texture);
                }
                times.present += drawn.elapsed();
                fault
            }
            Presenter::Cpu { surface, size } => {
                let mut buffer = match surface.buffer_mut() {
                    Ok(buffer) => buffer,
                    Err(e) => return Some(refused_frame(&e)),
                };
                if engine.viewport().surface != *size {
                    engine.set_surface(size.0, size.1);
                }
                let fault = compositor.frame_into(engine, record, overlay, &mut buffer);
                let drawn = Instant::now();
                times.draw += drawn - began;
                window.pre_present_notify();
                let shown = buffer.present();
                times.present += drawn.elapsed();
                fault.or_else(|| shown.err().map(|e| refused_frame(&e)))
            }
        }
    }
}

/// Sets `surface`'s buffer to `size`.
fn resize(
    surface: &mut softbuffer::Surface<Arc<Window>, Arc<Window>>,
    (w, h): (u32, u32),
) -> std::result::Result<(), softbuffer::SoftBufferError> {
    let one = NonZeroU32::MIN;
    surface.resize(
        NonZeroU32::new(w).unwrap_or(one),
        NonZeroU32::new(h).unwrap_or(one),
    )
}

/// The error a frame the window system would not take reports.
fn refused_frame(e: &softbuffer::SoftBufferError) -> Error {
    Error::asset(format!("the window system refused a frame: {e}"))
}
