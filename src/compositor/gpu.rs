//! The compositor's GPU half (feature `gpu`): the scene pass through the
//! renderer, the targets it draws into, and a window's present. A build
//! without it draws flat frames on the CPU alone (mod.rs).

use tiny_skia::Pixmap;

use super::{Compositor, Steps, faults, pixels};
use crate::config::Scaling;
use crate::engine::{Engine, Game};
use crate::error::Error;
use crate::record::Recorder;
use crate::render::{Layer, Renderer, Target};
use crate::skia::SkiaColor as _;
use crate::viewport::Viewport;

/// A target and the screen layer's pixels drawn for it.
pub(super) struct Surface {
    target: Target,
    screen: Pixmap,
}

impl Compositor {
    /// Creates a compositor on a headless renderer (any adapter, software
    /// ones included).
    ///
    /// # Errors
    /// No adapter.
    pub fn headless() -> crate::Result<Compositor> {
        Ok(Compositor::new(Renderer::headless()?))
    }

    /// Creates a compositor drawing with `renderer`.
    pub fn new(renderer: Renderer) -> Compositor {
        Compositor {
            renderer,
            view: None,
            picture: None,
            view_clean: false,
            picture_clean: false,
            flat_view: None,
            flat_picture: None,
        }
    }

    /// Returns the renderer, to configure a surface with its device.
    pub fn renderer(&self) -> &Renderer {
        &self.renderer
    }

    /// Runs steps 7 to 10 for `engine`'s last frame, as `steps` asks.
    /// Returns what went wrong drawing it, if anything did.
    pub fn frame<G: Game>(&mut self, engine: &mut Engine<G>, steps: Steps<'_>) -> Option<Error> {
        // 7. The scene, with the screen layer rasterized over it. A frame
        // drawn at the logical size for whole pixels (V1) with nothing to
        // lay over it is enlarged as it is presented, in one pass.
        let direct = steps.overlay.is_none() && steps.present.is_some() && enlarges(engine);
        let mut fault = if direct {
            self.draw_logical(engine)
        } else {
            self.draw(engine)
        };
        // 8. The recorder takes the picture, at the size it started with.
        if let Some(recorder) = steps.record {
            let (picture, late) = self.picture(engine, recorder.size());
            fault = fault.or(late);
            recorder.push(picture, engine.last_dt());
        }
        // 9. The overlay, in device pixels, after the recorder.
        if let Some((panel, x, y)) = steps.overlay {
            self.overlay(panel, x, y);
        }
        // 10. Present.
        match (steps.present, &self.picture) {
            (Some((view, format)), Some(small)) if direct => {
                let viewport = *engine.viewport();
                let background = engine.background();
                self.renderer
                    .present_enlarged(&small.target, view, format, &viewport, background);
            }
            (Some((view, format)), _) => self.present(view, format),
            (None, _) => {}
        }
        fault
    }

    /// Step 7: draws `engine`'s last frame into the view, at the surface
    /// size the engine was given. Returns the frame's fault (screen
    /// commands the rasterizer skipped), after handing the renderer's
    /// warnings to the engine's assets.
    ///
    /// Under whole-pixel scaling (V1) at a scale above 1, the frame is
    /// drawn at the logical size and each of its pixels enlarged to a
    /// square of the view's: shapes, text, sprites and the scene alike
    /// keep the game's own pixels.
    pub fn draw<G: Game>(&mut self, engine: &mut Engine<G>) -> Option<Error> {
        let viewport = *engine.viewport();
        if enlarges(engine) {
            let fault = self.draw_logical(engine);
            let small = self.picture.as_ref().expect("drawn above");
            let large = surface(&self.renderer, &mut self.view, viewport.surface);
            let background = engine.background();
            self.renderer
                .enlarge(&small.target, &mut large.target, &viewport, background);
            self.view_clean = true;
            return fault;
        }
        let view = surface(&self.renderer, &mut self.view, viewport.surface);
        let fault = render(&mut self.renderer, view, engine, &viewport);
        self.picture_clean = false;
        self.view_clean = true;
        self.warn(engine);
        fault
    }

    /// Step 7 at the logical size, into the picture: the frame of a game
    /// shown in whole pixels, before it is enlarged.
    fn draw_logical<G: Game>(&mut self, engine: &mut Engine<G>) -> Option<Error> {
        let logical = engine.viewport().logical;
        let small = surface(&self.renderer, &mut self.picture, logical);
        let fault = render(
            &mut self.renderer,
            small,
            engine,
            &Viewport::fit(logical, logical),
        );
        self.picture_clean = true;
        // The view is not drawn this frame.
        self.view_clean = false;
        self.warn(engine);
        fault
    }

    /// Hands the renderer's warnings to the engine's assets.
    fn warn<G: Game>(&mut self, engine: &mut Engine<G>) {
        for warning in self.renderer.take_warnings() {
            engine.assets_mut().warn(warning);
        }
    }

    /// The picture of a frame that poses a scene, at `size` and through
    /// `viewport`: read from the view or the picture when either holds
    /// it, drawn again otherwise.
    pub(super) fn scene_picture<G: Game>(
        &mut self,
        engine: &mut Engine<G>,
        size: (u32, u32),
        logical: (u32, u32),
    ) -> (Pixmap, Option<Error>) {
        if let Some(view) = &mut self.view
            && self.view_clean
            && view.target.size() == size
            && engine.viewport().surface == size
        {
            return (self.renderer.read(&mut view.target), None);
        }
        if let Some(picture) = &mut self.picture
            && self.picture_clean
            && picture.target.size() == size
            && size == logical
        {
            return (self.renderer.read(&mut picture.target), None);
        }
        self.picture_clean = false;
        let viewport = Viewport::fit(logical, size);
        let picture = surface(&self.renderer, &mut self.picture, size);
        let fault = render(&mut self.renderer, picture, engine, &viewport);
        (self.renderer.read(&mut picture.target), fault)
    }

    /// The largest side a picture may have: the device's.
    pub(super) fn max_side(&self) -> u32 {
        self.renderer.max_side()
    }

    /// Runs steps 7 to 9 for a window that shows CPU pixels (a software
    /// adapter's, where presenting through the GPU costs more than the
    /// drawing): `engine`'s last frame into `out`, `0RGB` words at the
    /// engine's surface size, as [`Compositor::frame`] would present it.
    /// A flat frame is drawn on the CPU; one with a scene is drawn by the
    /// GPU and read back. Returns what went wrong drawing it.
    pub fn frame_into<G: Game>(
        &mut self,
        engine: &mut Engine<G>,
        record: Option<&mut Recorder>,
        overlay: Option<(&Pixmap, i32, i32)>,
        out: &mut [u32],
    ) -> Option<Error> {
        let viewport = *engine.viewport();
        let (w, h) = viewport.surface;
        if out.len() < w as usize * h as usize {
            return Some(Error::asset(format!(
                "the window's buffer holds {} pixels, not the {w}x{h} of its surface",
                out.len()
            )));
        }
        let background = engine.background();
        // 7. The frame: at the logical size for whole pixels (V1).
        let mut fault = if pixels::flat(engine) {
            let through = if enlarges(engine) {
                Viewport::fit(viewport.logical, viewport.logical)
            } else {
                viewport
            };
            let (frame, fault) = pixels::draw(engine, &through, &mut self.flat_view);
            pixels::show(frame, &viewport, background, out);
            fault
        } else {
            let fault = self.draw(engine);
            let view = self.read_view();
            pixels::show(&view, &viewport, background, out);
            fault
        };
        // 8. The recorder takes the picture.
        if let Some(recorder) = record {
            let (picture, late) = self.picture(engine, recorder.size());
            fault = fault.or(late);
            recorder.push(picture, engine.last_dt());
        }
        // 9. The overlay, in device pixels.
        if let Some((panel, x, y)) = overlay {
            pixels::lay(panel, x, y, out, viewport.surface);
        }
        fault
    }

    /// Reads the view back: what a window presents, at the surface's
    /// size, letterbox bars and overlay included (what the picture tests
    /// of the scene look at).
    ///
    /// # Panics
    /// If nothing was drawn yet.
    pub fn read_view(&mut self) -> Pixmap {
        let view = self.view.as_mut().expect("a frame was drawn");
        self.renderer.read(&mut view.target)
    }

    /// Step 9: lays `panel` over the view at `(x, y)` device pixels.
    pub fn overlay(&mut self, panel: &Pixmap, x: i32, y: i32) {
        if let Some(view) = &mut self.view {
            self.view_clean = false;
            self.renderer.overlay(
                &mut view.target,
                Layer {
                    pixmap: panel,
                    x,
                    y,
                },
            );
        }
    }

    /// Step 10: copies the view onto a window's surface texture.
    pub fn present(&mut self, texture: &wgpu::TextureView, format: wgpu::TextureFormat) {
        if let Some(view) = &self.view {
            self.renderer.present(&view.target, texture, format);
        }
    }

    /// Shows a surface texture drawn by [`Compositor::present`].
    pub fn show(&self, texture: wgpu::SurfaceTexture) {
        self.renderer.show(texture);
    }

    /// Waits until the GPU has finished everything submitted.
    pub fn finish(&self) {
        self.renderer.finish();
    }
}

/// Whether `engine`'s frame is drawn at its logical size and enlarged by
/// whole pixels (V1): whole scaling, at a scale above 1.
fn enlarges<G: Game>(engine: &Engine<G>) -> bool {
    let viewport = engine.viewport();
    engine.scaling() == Scaling::Whole && viewport.is_whole() && viewport.width > viewport.logical.0
}

/// Returns `slot`'s surface, made anew when it is not `size`.
fn surface<'a>(
    renderer: &Renderer,
    slot: &'a mut Option<Surface>,
    size: (u32, u32),
) -> &'a mut Surface {
    let size = (size.0.max(1), size.1.max(1));
    if slot.as_ref().is_none_or(|s| s.target.size() != size) {
        let target = renderer.target(size);
        let (w, h) = target.size();
        *slot = Some(Surface {
            target,
            screen: Pixmap::new(w, h).expect("a non-empty target"),
        });
    }
    slot.as_mut().expect("made above")
}

/// Draws the scene and the screen layer of `engine` into `surface`
/// through `viewport`.
fn render<G: Game>(
    renderer: &mut Renderer,
    surface: &mut Surface,
    engine: &mut Engine<G>,
    viewport: &Viewport,
) -> Option<Error> {
    let background = engine.background();
    // A flat frame's layer is drawn over the background on the CPU, so it
    // is opaque and the GPU lays it down unchanged: the window shows the
    // bytes a recording takes (pixels.rs), not the GPU's rounding of a
    // blend.
    let flat = pixels::flat(engine);
    let (screen, scene, assets) = engine.layers();
    // A frame that drew nothing on the screen layer skips clearing,
    // uploading and compositing it: a 3D game without a HUD pays nothing.
    let drawn = !screen.is_empty() || flat;
    if drawn {
        let under = if flat {
            background.to_skia()
        } else {
            tiny_skia::Color::TRANSPARENT
        };
        surface.screen.fill(under);
        if !screen.is_empty() {
            screen.rasterize(&mut surface.screen.as_mut(), viewport, assets);
        }
    }
    let layer = Layer {
        pixmap: &surface.screen,
        x: 0,
        y: 0,
    };
    let layers: &[Layer<'_>] = if drawn {
        std::slice::from_ref(&layer)
    } else {
        &[]
    };
    renderer.draw(
        &mut surface.target,
        scene,
        assets,
        viewport,
        background,
        layers,
    );
    if drawn && !screen.is_empty() {
        faults(screen)
    } else {
        None
    }
}
