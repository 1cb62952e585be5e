//! The glyph cache: each glyph rasterized once per font, size and
//! quarter-pixel offset (by swash), then blended onto the screen from its
//! coverage mask (H14).
//!
//! Text drawn with a plain translate and an even scale (every HUD, every
//! label) takes the cache. Turned, skewed, mirrored or very large text is
//! filled from the glyphs' outlines through tiny-skia instead, like any
//! other shape; the outlines are kept too.
//!
//! Both caches are bounded (H10): past their caps, a frame's start empties
//! them and they fill again with what is drawn.

use crate::skia::SkiaColor as _;
use rustc_hash::FxHashMap as HashMap;

use cosmic_text::{CacheKey, CacheKeyFlags, Command, FontSystem, SwashCache, SwashContent};
use tiny_skia::{FillRule, Mask, Paint, Path, PathBuilder, PixmapMut, Shader, Transform};

use super::layout::Placed;
use moonloop_core::color::Rgba;

/// Glyphs larger than this many device pixels are filled from outlines:
/// their masks would cost more memory than they save time.
const MAX_CACHED_SIZE: f32 = 256.0;

/// Past this many bytes of masks, a frame's start empties the cache.
const MAX_MASK_BYTES: usize = 32 << 20;

/// Past this many outlines, likewise.
const MAX_OUTLINES: usize = 16_384;

/// One rasterized glyph: its coverage, placed from the pen position.
struct Image {
    left: i32,
    top: i32,
    width: u32,
    height: u32,
    coverage: Vec<u8>,
}

/// The glyph images and outlines drawn so far.
#[derive(Default)]
pub struct Glyphs {
    swash: Option<SwashCache>,
    images: HashMap<CacheKey, Option<Image>>,
    image_bytes: usize,
    outlines: HashMap<(cosmic_text::fontdb::ID, u16, u32), Option<Path>>,
    rasterized: u64,
}

impl Glyphs {
    /// Returns how many glyph images are kept.
    pub fn len(&self) -> usize {
        self.images.len()
    }

    /// Returns how many glyph images have been rasterized in all.
    pub fn rasterized(&self) -> u64 {
        self.rasterized
    }

    /// Starts a frame: caches over their caps are emptied.
    pub fn begin_frame(&mut self) {
        if self.image_bytes > MAX_MASK_BYTES {
            self.images.clear();
            self.image_bytes = 0;
        }
        if self.outlines.len() > MAX_OUTLINES {
            self.outlines.clear();
        }
    }

    /// Says whether `glyphs` drawn through `transform` take the cache (a
    /// plain translate and an even scale, glyphs not too large); others
    /// are filled from outlines.
    pub fn cached(glyphs: &[Placed], transform: Transform) -> bool {
        let t = transform;
        let even = t.kx == 0.0 && t.ky == 0.0 && t.sx == t.sy && t.sx > 0.0;
        let largest = glyphs.iter().fold(0.0f32, |m, g| m.max(g.size)) * t.sx;
        even && largest <= MAX_CACHED_SIZE
    }

    /// Where glyph `g` lands: its cache key and its pen position in device
    /// pixels.
    fn placed(g: &Placed, at: [f32; 2], smooth: bool, t: Transform) -> (CacheKey, i32, i32) {
        let scale = t.sx;
        let x = t.tx + scale * (at[0] + g.x);
        let y = (t.ty + scale * (at[1] + g.y)).round();
        // A crisp glyph sits on whole pixels, so its coverage is whole.
        let x = if smooth { x } else { x.round() };
        CacheKey::new(
            g.font,
            g.glyph,
            g.size * scale,
            (x, y),
            g.weight,
            g.flags | CacheKeyFlags::DISABLE_HINTING,
        )
    }

    /// Draws `glyphs` anchored at `at` through `transform`.
    #[allow(clippy::too_many_arguments)]
    pub fn draw(
        &mut self,
        system: &mut FontSystem,
        pixmap: &mut PixmapMut<'_>,
        glyphs: &[Placed],
        at: [f32; 2],
        color: Rgba,
        smooth: bool,
        transform: Transform,
        clip: Option<&Mask>,
    ) {
        if !Self::cached(glyphs, transform) {
            self.fill_outlines(system, pixmap, glyphs, at, color, smooth, transform, clip);
            return;
        }
        self.prepare(system, glyphs, at, smooth, transform);
        let (width, height) = (pixmap.width() as usize, pixmap.height() as usize);
        let mut band = Band {
            pixels: pixmap.data_mut(),
            first: 0,
            width,
            height,
        };
        self.blend(&mut band, glyphs, at, color, smooth, transform, clip);
    }

    /// Rasterizes every glyph of `glyphs` the cache lacks, so that
    /// [`Glyphs::blend`] finds them all.
    pub fn prepare(
        &mut self,
        system: &mut FontSystem,
        glyphs: &[Placed],
        at: [f32; 2],
        smooth: bool,
        transform: Transform,
    ) {
        for g in glyphs {
            let (key, _, _) = Self::placed(g, at, smooth, transform);
            self.image(system, key);
        }
    }

    /// Blends cached `glyphs` in `color` into `band`, inside `clip`; a
    /// glyph not prepared is left out.
    #[allow(clippy::too_many_arguments)]
    pub fn blend(
        &self,
        band: &mut Band<'_>,
        glyphs: &[Placed],
        at: [f32; 2],
        color: Rgba,
        smooth: bool,
        transform: Transform,
        clip: Option<&Mask>,
    ) {
        let ink = color.to_skia().premultiply().to_color_u8();
        let ink = [ink.red(), ink.green(), ink.blue(), ink.alpha()];
        if ink[3] == 0 {
            return;
        }
        for g in glyphs {
            let (key, px, py) = Self::placed(g, at, smooth, transform);
            let Some(Some(image)) = self.images.get(&key) else {
                continue;
            };
            blend(
                band,
                image,
                px + image.left,
                py - image.top,
                ink,
                smooth,
                clip,
            );
        }
    }

    /// Returns the image of `key`, rasterizing it the first time.
    fn image(&mut self, system: &mut FontSystem, key: CacheKey) -> Option<&Image> {
        if !self.images.contains_key(&key) {
            let swash = self.swash.get_or_insert_with(SwashCache::new);
            // The rasterizer allocates the outline's whole box before it
            // draws: a broken font's glyph can span millions of pixels on
            // a side (a fuzz finding took 4.5 GB). Its outline is measured
            // first, and a glyph past the bound is not drawn.
            let too_big = moonloop_core::contain::contain_panic(|| {
                swash
                    .get_outline_commands_uncached(system, key)
                    .is_some_and(|commands| outline_area(&commands) > MAX_GLYPH_AREA)
            })
            .unwrap_or(true);
            if too_big {
                self.rasterized += 1;
                self.images.insert(key, None);
                return None;
            }
            let made =
                moonloop_core::contain::contain_panic(|| swash.get_image_uncached(system, key))
                    .flatten()
                    .and_then(|image| {
                        let p = image.placement;
                        let n = p.width as usize * p.height as usize;
                        let coverage = match image.content {
                            SwashContent::Mask if image.data.len() == n => image.data,
                            // A color glyph (emoji) is drawn in the text's
                            // color, from its alpha.
                            SwashContent::Color if image.data.len() == 4 * n => {
                                image.data.chunks_exact(4).map(|px| px[3]).collect()
                            }
                            _ => return None,
                        };
                        Some(Image {
                            left: p.left,
                            top: p.top,
                            width: p.width,
                            height: p.height,
                            coverage,
                        })
                    });
            self.rasterized += 1;
            self.image_bytes += made.as_ref().map_or(0, |i| i.coverage.len()) + 64;
            self.images.insert(key, made);
        }
        self.images.get(&key)?.as_ref()
    }

    /// Returns the outline of glyph `g` at its size, y up from the
    /// baseline, making it the first time.
    pub fn outline(&mut self, system: &mut FontSystem, g: &Placed) -> Option<&Path> {
        let id = (g.font, g.glyph, g.size.to_bits());
        if !self.outlines.contains_key(&id) {
            let swash = self.swash.get_or_insert_with(SwashCache::new);
            let (key, _, _) = CacheKey::new(
                g.font,
                g.glyph,
                g.size,
                (0.0, 0.0),
                g.weight,
                g.flags | CacheKeyFlags::DISABLE_HINTING,
            );
            let path = moonloop_core::contain::contain_panic(|| {
                let commands = swash.get_outline_commands_uncached(system, key)?;
                to_path(&commands)
            })
            .flatten();
            self.outlines.insert(id, path);
        }
        self.outlines.get(&id)?.as_ref()
    }

    #[allow(clippy::too_many_arguments)]
    fn fill_outlines(
        &mut self,
        system: &mut FontSystem,
        pixmap: &mut PixmapMut<'_>,
        glyphs: &[Placed],
        at: [f32; 2],
        color: Rgba,
        smooth: bool,
        transform: Transform,
        clip: Option<&Mask>,
    ) {
        let paint = Paint {
            shader: Shader::SolidColor(color.to_skia()),
            anti_alias: smooth,
            ..Paint::default()
        };
        for g in glyphs {
            if let Some(path) = self.outline(system, g) {
                let place = transform
                    .pre_translate(at[0] + g.x, at[1] + g.y)
                    .pre_scale(1.0, -1.0);
                pixmap.fill_path(path, &paint, FillRule::Winding, place, clip);
            }
        }
    }
}

fn to_path(commands: &[Command]) -> Option<Path> {
    let mut path = PathBuilder::new();
    for c in commands {
        match *c {
            Command::MoveTo(p) => path.move_to(p.x, p.y),
            Command::LineTo(p) => path.line_to(p.x, p.y),
            Command::QuadTo(c, p) => path.quad_to(c.x, c.y, p.x, p.y),
            Command::CurveTo(c1, c2, p) => path.cubic_to(c1.x, c1.y, c2.x, c2.y, p.x, p.y),
            Command::Close => path.close(),
        }
    }
    path.finish()
}

/// `a * b / 255`, rounded.
fn mul(a: u32, b: u32) -> u32 {
    let t = a * b + 128;
    (t + (t >> 8)) >> 8
}

/// Rows of a picture to draw into: `pixels` holds rows `first` on of a
/// picture `width` by `height` pixels.
pub struct Band<'a> {
    /// The rows' premultiplied RGBA bytes.
    pub pixels: &'a mut [u8],
    /// The picture row `pixels` starts at.
    pub first: usize,
    /// The picture's width.
    pub width: usize,
    /// The picture's height (a clip mask covers the whole picture).
    pub height: usize,
}

/// Blends `image`'s coverage of premultiplied `ink` into `band` with its
/// top-left at (`x`, `y`) in picture pixels, source over, inside `clip`.
fn blend(
    band: &mut Band<'_>,
    image: &Image,
    x: i32,
    y: i32,
    ink: [u8; 4],
    smooth: bool,
    clip: Option<&Mask>,
) {
    let rows = (band.pixels.len() / 4 / band.width.max(1)) as i64;
    let (first, pw) = (band.first as i64, band.width as i64);
    let (w, h) = (i64::from(image.width), i64::from(image.height));
    let (x, y) = (i64::from(x), i64::from(y));
    let (x0, x1) = (x.max(0), (x + w).min(pw));
    let (y0, y1) = (
        y.max(first),
        (y + h).min(first + rows).min(band.height as i64),
    );
    if x0 >= x1 || y0 >= y1 {
        return;
    }
    let mask = clip.map(Mask::data);
    let data = &mut *band.pixels;
    let opaque = ink[3] == 255;
    let solid = ink;
    let ink = ink.map(u32::from);
    for py in y0..y1 {
        let row = ((py - y) * w) as usize;
        for px in x0..x1 {
            let mut c = u32::from(image.coverage[row + (px - x) as usize]);
            if c == 0 {
                continue;
            }
            if !smooth {
                c = if c >= 128 { 255 } else { 0 };
            }
            if let Some(mask) = mask {
                c = mul(c, u32::from(mask[(py * pw + px) as usize]));
            }
            if c == 0 {
                continue;
            }
            let at = ((py - first) * pw + px) as usize;
            if c == 255 && opaque {
                // Full coverage of an opaque ink is the ink itself.
                data[at * 4..at * 4 + 4].copy_from_slice(&solid);
                continue;
            }
            let sa = mul(ink[3], c);
            let keep = 255 - sa;
            let d = &mut data[at * 4..at * 4 + 4];
            for k in 0..3 {
                d[k] = (mul(ink[k], c) + mul(u32::from(d[k]), keep)).min(255) as u8;
            }
            d[3] = (sa + mul(u32::from(d[3]), keep)).min(255) as u8;
        }
    }
}

/// The most pixels one glyph's image may cover: a 2048 px square, far past
/// any text a screen shows.
const MAX_GLYPH_AREA: f64 = 2048.0 * 2048.0;

/// The area of the box around an outline's points, in pixels.
fn outline_area(commands: &[cosmic_text::Command]) -> f64 {
    use cosmic_text::Command;
    let (mut x0, mut y0, mut x1, mut y1) = (f32::MAX, f32::MAX, f32::MIN, f32::MIN);
    let mut points = Vec::new();
    for command in commands {
        match *command {
            Command::MoveTo(p) | Command::LineTo(p) => points.push(p),
            Command::QuadTo(a, b) => points.extend([a, b]),
            Command::CurveTo(a, b, c) => points.extend([a, b, c]),
            Command::Close => {}
        }
    }
    for p in points {
        x0 = x0.min(p.x);
        y0 = y0.min(p.y);
        x1 = x1.max(p.x);
        y1 = y1.max(p.y);
    }
    if x1 < x0 || y1 < y0 {
        return 0.0;
    }
    let (w, h) = ((x1 - x0) as f64, (y1 - y0) as f64);
    // Not finite: not a glyph to draw.
    if w.is_finite() && h.is_finite() {
        w * h
    } else {
        f64::INFINITY
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mul_is_a_rounded_division_by_255() {
        for a in 0..=255u32 {
            for b in [0u32, 1, 127, 128, 254, 255] {
                let exact = (a * b) as f64 / 255.0;
                assert!((mul(a, b) as f64 - exact).abs() <= 0.5 + 1e-9, "{a} * {b}");
            }
        }
    }
}
