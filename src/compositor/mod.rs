//! Compositor: frame steps 7 to 10 after the engine's CPU work, in the
//! order SPEC.md gives, written once and used by the window, headless
//! recording, screenshots, the bench and the picture tests alike.
//!
//! 7. The scene pass, and the screen layer rasterized at the same size.
//! 8. The recorder takes the frame's picture: what the game drew, at the
//!    game's logical size (or the size its recording started at), whatever
//!    the window does. When the window's surface is that size the view
//!    itself is read; otherwise the frame is drawn again, at that size.
//! 9. The overlay is laid over the view, in device pixels, never recorded.
//! 10. The screen layer was composited over the scene at step 7; the view
//!     is presented.
//!
//! The engine knows none of this: it hands over its scene, screen layer
//! and assets, and the compositor owns every pixel made from them.

//!
//! A frame that poses no scene is drawn on the CPU (pixels.rs); the scene
//! pass and a window's present are the GPU half (gpu.rs, feature `gpu`).
//! A build without the GPU draws every frame's screen layer over its
//! background and says, of a frame that poses a scene, that its scene
//! was not drawn.

use crate::skia::SkiaColor as _;
use tiny_skia::Pixmap;

use crate::color::Rgba;
use crate::engine::{Engine, Game};
use crate::error::Error;
use crate::record::Recorder;
use crate::viewport::Viewport;

#[cfg(feature = "gpu")]
mod gpu;
mod pixels;

pub use pixels::flat;

/// Steps 7-10 for a game, on one renderer.
pub struct Compositor {
    #[cfg(feature = "gpu")]
    renderer: crate::render::Renderer,
    /// At the surface's size: what a window presents.
    #[cfg(feature = "gpu")]
    view: Option<gpu::Surface>,
    /// At the picture's size, when that is not the view's.
    #[cfg(feature = "gpu")]
    picture: Option<gpu::Surface>,
    /// Whether the view holds the game's frame alone (drawn, and no
    /// overlay laid over it since), so a picture may read it.
    #[cfg(feature = "gpu")]
    view_clean: bool,
    /// Whether the picture holds this frame at the logical size: under
    /// whole-pixel scaling the frame is drawn there and enlarged onto the
    /// view (V1).
    #[cfg(feature = "gpu")]
    picture_clean: bool,
    /// The last flat frame drawn on the CPU for a window: at the
    /// surface's size, or at the logical size under whole-pixel scaling.
    #[cfg(feature = "gpu")]
    flat_view: Option<Pixmap>,
    /// The last flat picture drawn on the CPU.
    flat_picture: Option<Pixmap>,
}

impl std::fmt::Debug for Compositor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut out = f.debug_struct("Compositor");
        #[cfg(feature = "gpu")]
        out.field("renderer", &self.renderer);
        out.finish_non_exhaustive()
    }
}

/// What a frame does after step 7.
#[derive(Default)]
pub struct Steps<'a> {
    /// Step 8: hand the frame's picture to this recorder.
    pub record: Option<&'a mut Recorder>,
    /// Step 9: lay this panel over the view at this place.
    pub overlay: Option<(&'a Pixmap, i32, i32)>,
    /// Step 10: present the view on this surface texture.
    #[cfg(feature = "gpu")]
    pub present: Option<(&'a wgpu::TextureView, wgpu::TextureFormat)>,
}

impl Compositor {
    /// Step 8: the frame's picture at `size` (default: the game's logical
    /// size), letterboxed when the game's size has changed since: exactly
    /// what the game drew, none of the overlay, no window bars. Reads the
    /// view when it is that size and was drawn by [`Compositor::draw`].
    pub fn picture<G: Game>(
        &mut self,
        engine: &mut Engine<G>,
        size: Option<(u32, u32)>,
    ) -> (Pixmap, Option<Error>) {
        let logical = engine.config().logical();
        let size = size.unwrap_or(logical);
        let max = self.max_side();
        let size = (size.0.clamp(1, max), size.1.clamp(1, max));
        // A flat frame is drawn on the CPU, exactly as a window on a
        // software adapter shows it.
        if pixels::flat(engine) {
            let viewport = Viewport::fit(logical, size);
            let (picture, fault) = pixels::draw(engine, &viewport, &mut self.flat_picture);
            return (picture.clone(), fault);
        }
        self.scene_picture(engine, size, logical)
    }
}

/// The compositor of a build without the GPU: every picture is the screen
/// layer over the background, drawn on the CPU.
#[cfg(not(feature = "gpu"))]
impl Compositor {
    /// The largest side of a picture drawn on the CPU: a GPU's usual
    /// limit, so that both builds clamp a picture alike.
    const MAX_SIDE: u32 = 8192;

    /// Creates a compositor that draws on the CPU.
    ///
    /// # Errors
    /// None in this build; the GPU's can find no adapter.
    pub fn headless() -> crate::Result<Compositor> {
        Ok(Compositor { flat_picture: None })
    }

    /// Runs steps 7 to 9 for `engine`'s last frame, as `steps` asks: the
    /// picture for the recorder (there is no view to lay an overlay over).
    /// Returns what went wrong drawing it, if anything did.
    pub fn frame<G: Game>(&mut self, engine: &mut Engine<G>, steps: Steps<'_>) -> Option<Error> {
        let recorder = steps.record?;
        let (picture, fault) = self.picture(engine, recorder.size());
        recorder.push(picture, engine.last_dt());
        fault
    }

    fn max_side(&self) -> u32 {
        Self::MAX_SIDE
    }

    /// A frame that poses a scene, without a renderer: its screen layer
    /// over the background, and the error that says the scene is missing.
    fn scene_picture<G: Game>(
        &mut self,
        engine: &mut Engine<G>,
        size: (u32, u32),
        logical: (u32, u32),
    ) -> (Pixmap, Option<Error>) {
        let viewport = Viewport::fit(logical, size);
        let (picture, fault) = pixels::draw(engine, &viewport, &mut self.flat_picture);
        let unbuilt = Error::Unbuilt {
            what: "renderer for the 3D scene",
            feature: "gpu",
            advice: "; the picture holds the screen layer alone",
        };
        (picture.clone(), fault.or(Some(unbuilt)))
    }
}

/// The error a rasterized screen layer reports: drawing cut short by its
/// time bound (H9), or commands the rasterizer had to skip (H10).
fn faults(screen: &crate::screen::Screen) -> Option<Error> {
    if screen.late() > 0 {
        return Some(Error::rule(
            crate::Rule::H9,
            format!(
                "the frame's drawing ran past {} s and was cut short: {} drawing command(s) \
             were not drawn (draw less, or smaller: each logical pixel is many on a large \
             screen)",
                crate::screen::MAX_RASTER_TIME.as_secs(),
                screen.late()
            ),
        ));
    }
    let count = screen.skipped();
    (count > 0).then(|| {
        Error::script(format!(
            "screen: {count} drawing command(s) could not be rasterized and were skipped \
             (H10: look for coordinates or scales far outside the screen)"
        ))
    })
}

/// The screen layer alone over the background, rasterized on the CPU at
/// the engine's surface size: the picture the screen's golden tests and
/// the bench compare, exact on any machine (no GPU is involved).
pub fn screen_picture<G: Game>(engine: &mut Engine<G>) -> Pixmap {
    let viewport = *engine.viewport();
    let mut pixmap = Pixmap::new(viewport.surface.0.max(1), viewport.surface.1.max(1))
        .expect("a non-empty surface");
    screen_picture_into(engine, &mut pixmap);
    pixmap
}

/// Like [`screen_picture`], into `pixmap`, which must be the surface's
/// size (a loop reuses one this way).
pub fn screen_picture_into<G: Game>(engine: &mut Engine<G>, pixmap: &mut Pixmap) {
    let viewport = *engine.viewport();
    let background: Rgba = engine.background();
    pixmap.fill(background.to_skia());
    let (screen, _, assets) = engine.layers();
    screen.rasterize(&mut pixmap.as_mut(), &viewport, assets);
}
