//! A frame on the CPU (rules H3, V1): a frame whose scene draws nothing
//! is the screen layer over the background, which tiny-skia rasterizes
//! alike on every machine. Every picture of such a frame (a recording, a
//! screenshot, a test's `e:picture()`) is made here, and on a software
//! adapter a window presents these pixels too, so the window and its
//! recording show the same bytes, and no software GPU spends more on
//! uploading, compositing and presenting a frame than on drawing it.

use crate::skia::SkiaColor as _;
use tiny_skia::Pixmap;

use crate::color::Rgba;
use crate::engine::{Engine, Game};
use crate::error::Error;
use crate::viewport::Viewport;

/// Says whether `engine`'s scene draws nothing this frame: no sky and no
/// visible object, so the frame is the screen layer over the background.
pub fn flat<G: Game>(engine: &Engine<G>) -> bool {
    let scene = engine.scene();
    scene.sky.is_none() && scene.objects().iter().all(|o| !scene.is_visible(o))
}

/// Draws `engine`'s flat frame through `viewport` into `slot` (made anew
/// when it is not the viewport's surface size): the background, then the
/// screen layer. Returns the frame's fault, as the GPU's drawing does.
pub fn draw<'a, G: Game>(
    engine: &mut Engine<G>,
    viewport: &Viewport,
    slot: &'a mut Option<Pixmap>,
) -> (&'a Pixmap, Option<Error>) {
    let (w, h) = (viewport.surface.0.max(1), viewport.surface.1.max(1));
    if slot
        .as_ref()
        .is_none_or(|p| (p.width(), p.height()) != (w, h))
    {
        *slot = Some(Pixmap::new(w, h).expect("a non-empty surface"));
    }
    let pixmap = slot.as_mut().expect("made above");
    pixmap.fill(engine.background().to_skia());
    let (screen, _, assets) = engine.layers();
    let drawn = !screen.is_empty();
    if drawn {
        screen.rasterize(&mut pixmap.as_mut(), viewport, assets);
    }
    let fault = if drawn { super::faults(screen) } else { None };
    (pixmap, fault)
}

#[cfg_attr(not(feature = "gpu"), allow(dead_code))]
/// Copies `frame` onto a window's pixels `out` (`0RGB` words, rows of
/// `viewport.surface.0`): as it is when it is the surface's size, or,
/// at the logical size, each pixel enlarged to a square of the
/// viewport's whole scale (V1) with bars of `background` around it.
pub fn show(frame: &Pixmap, viewport: &Viewport, background: Rgba, out: &mut [u32]) {
    let (sw, sh) = (viewport.surface.0 as usize, viewport.surface.1 as usize);
    let out = &mut out[..sw * sh];
    let src = frame.pixels();
    let (fw, fh) = (frame.width() as usize, frame.height() as usize);
    if (fw, fh) == (sw, sh) {
        for (o, p) in out.iter_mut().zip(src) {
            *o = word(p.red(), p.green(), p.blue());
        }
        return;
    }
    let bar = {
        let c = background.to_skia().to_color_u8();
        word(c.red(), c.green(), c.blue())
    };
    let scale = (viewport.width as usize / fw.max(1)).max(1);
    let (x0, y0) = (viewport.x as usize, viewport.y as usize);
    let (w, h) = ((fw * scale).min(sw - x0), (fh * scale).min(sh - y0));
    for (y, row) in out.chunks_exact_mut(sw).enumerate() {
        if y < y0 || y >= y0 + h {
            row.fill(bar);
            continue;
        }
        row[..x0].fill(bar);
        row[x0 + w..].fill(bar);
        let line = &src[((y - y0) / scale) * fw..][..fw];
        for (chunk, p) in row[x0..x0 + w].chunks_mut(scale).zip(line) {
            chunk.fill(word(p.red(), p.green(), p.blue()));
        }
    }
}

#[cfg_attr(not(feature = "gpu"), allow(dead_code))]
/// Lays `panel` (premultiplied) over a window's pixels `out` (rows of
/// `width`, `height` rows) at `(x, y)`, clipped to them: the overlay, in
/// device pixels (step 9).
pub fn lay(panel: &Pixmap, x: i32, y: i32, out: &mut [u32], (width, height): (u32, u32)) {
    let (pw, ph) = (panel.width() as i64, panel.height() as i64);
    let (w, h) = (width as i64, height as i64);
    let x_from = (x as i64).max(0);
    let x_to = (x as i64 + pw).min(w);
    let y_from = (y as i64).max(0);
    let y_to = (y as i64 + ph).min(h);
    if x_from >= x_to || y_from >= y_to {
        return;
    }
    let src = panel.pixels();
    for oy in y_from..y_to {
        let py = oy - y as i64;
        for ox in x_from..x_to {
            let p = src[(py * pw + ox - x as i64) as usize];
            let a = u32::from(p.alpha());
            if a == 0 {
                continue;
            }
            let slot = &mut out[(oy * w + ox) as usize];
            let under = *slot;
            let mix = |src: u8, shift: u32| {
                let dst = (under >> shift) & 0xff;
                (u32::from(src) + (dst * (255 - a) + 127) / 255).min(255)
            };
            *slot = mix(p.red(), 16) << 16 | mix(p.green(), 8) << 8 | mix(p.blue(), 0);
        }
    }
}

#[cfg_attr(not(feature = "gpu"), allow(dead_code))]
/// An opaque pixel as a window takes it: `0x00RRGGBB`.
fn word(r: u8, g: u8, b: u8) -> u32 {
    u32::from(r) << 16 | u32::from(g) << 8 | u32::from(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pixmap(w: u32, h: u32, rgb: [u8; 3]) -> Pixmap {
        let mut p = Pixmap::new(w, h).unwrap();
        p.fill(tiny_skia::Color::from_rgba8(rgb[0], rgb[1], rgb[2], 255));
        p
    }

    #[test]
    fn a_frame_at_the_surface_size_is_copied_as_it_is() {
        let frame = pixmap(3, 2, [10, 20, 30]);
        let viewport = Viewport::fit((3, 2), (3, 2));
        let mut out = vec![0; 6];
        show(&frame, &viewport, Rgba::BLACK, &mut out);
        assert_eq!(out, vec![0x000a_141e; 6]);
    }

    #[test]
    fn a_logical_frame_is_enlarged_by_whole_pixels_between_bars() {
        // 2x2 logical pixels, red then blue on each row, shown at 4x in a
        // 10x9 surface: 8x8 at (1, 0), a bar each side and one below.
        let mut frame = pixmap(2, 2, [255, 0, 0]);
        let blue = tiny_skia::PremultipliedColorU8::from_rgba(0, 0, 255, 255).unwrap();
        frame.pixels_mut()[1] = blue;
        frame.pixels_mut()[3] = blue;
        let viewport = Viewport::whole((2, 2), (10, 9));
        assert_eq!((viewport.x, viewport.y, viewport.width), (1, 0, 8));
        let mut out = vec![7; 90];
        show(&frame, &viewport, Rgba::rgb8(0, 255, 0), &mut out);
        let at = |x: usize, y: usize| out[y * 10 + x];
        assert_eq!(at(0, 0), 0x00ff00, "the left bar");
        assert_eq!(at(9, 5), 0x00ff00, "the right bar");
        assert_eq!(at(1, 0), 0xff0000);
        assert_eq!(at(4, 7), 0xff0000, "the first pixel's square, all of it");
        assert_eq!(at(5, 0), 0x0000ff, "the second's");
        assert_eq!(at(8, 7), 0x0000ff);
        assert_eq!(at(4, 8), 0x00ff00, "the bottom bar");
    }

    #[test]
    fn the_overlay_is_blended_over_and_clipped_to_the_window() {
        let mut panel = Pixmap::new(4, 4).unwrap();
        // Half-transparent white, premultiplied.
        panel.fill(tiny_skia::Color::from_rgba8(255, 255, 255, 128));
        let mut out = vec![0x0000_0000; 9];
        lay(&panel, 1, 1, &mut out, (3, 3));
        assert_eq!(out[0], 0, "outside the panel");
        assert_eq!(out[4], 0x0080_8080, "half white over black");
        assert_eq!(out[8], 0x0080_8080, "clipped at the edge, not wrapped");
        lay(&panel, -10, -10, &mut out, (3, 3));
        lay(&panel, 5, 0, &mut out, (3, 3));
    }
}
