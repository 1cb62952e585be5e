//! Sprites (rule H15): cells of a sheet image drawn in batches, and
//! tilemaps, which are batches laid out on a grid.
//!
//! A sprite is drawn by our own nearest-neighbour blit instead of a
//! tiny-skia pattern fill: each device pixel whose center falls inside the
//! sprite takes the sheet pixel under that center, tinted and blended
//! source-over on premultiplied pixels. Every pixel is computed from its own
//! coordinates alone (no running sums), so a picture drawn in bands or in
//! any order of rows comes out the same byte for byte, and pixel art stays
//! crisp at any integer scale.

use moonloop_core::Number;
use moonloop_core::Refusal;
use tiny_skia::{Pixmap, PixmapMut, Transform};

use super::{Screen, finite};
use moonloop_assets::ImageId;
use moonloop_core::color::Rgba;

/// How a sheet is cut into frames.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sheet {
    /// The sheet's image.
    pub image: ImageId,
    /// The image's size in pixels.
    pub size: (u32, u32),
    /// The size of one grid cell in pixels.
    pub cell: (u32, u32),
}

impl Sheet {
    /// Cuts `size` into `cell`-sized frames, numbered from 1 left to right,
    /// then top to bottom.
    ///
    /// # Errors
    /// The cell is empty or larger than the image.
    pub fn grid(image: ImageId, size: (u32, u32), cell: (f64, f64)) -> Result<Sheet, Refusal> {
        let whole = |v: f64, name: &str, limit: u32| -> Result<u32, Refusal> {
            if v.fract() != 0.0 || v < 1.0 || v > f64::from(limit) {
                return Err(refuse!(
                    "`{name}` is {}; a cell is a whole number of pixels from 1 to the image's {limit}",
                    Number(v)
                ));
            }
            Ok(v as u32)
        };
        Ok(Sheet {
            image,
            size,
            cell: (
                whole(cell.0, "width", size.0)?,
                whole(cell.1, "height", size.1)?,
            ),
        })
    }

    /// Returns how many frames the grid holds.
    pub fn frames(&self) -> u32 {
        (self.size.0 / self.cell.0) * (self.size.1 / self.cell.1)
    }

    /// Returns the pixels of frame `n` (from 1): x, y, w, h.
    ///
    /// # Errors
    /// There is no such frame.
    pub fn frame(&self, n: f64) -> Result<[u32; 4], Refusal> {
        let count = self.frames();
        if n.fract() != 0.0 || n < 1.0 || n > f64::from(count) {
            return Err(refuse!(
                "frame {} is not in the sheet (its frames are 1 to {count})",
                Number(n)
            ));
        }
        let i = n as u32 - 1;
        let columns = self.size.0 / self.cell.0;
        Ok([
            (i % columns) * self.cell.0,
            (i / columns) * self.cell.1,
            self.cell.0,
            self.cell.1,
        ])
    }

    /// Checks a rectangle of image pixels given as a frame: x, y, w, h.
    ///
    /// # Errors
    /// It is not whole pixels inside the image.
    pub fn rect(&self, r: [f64; 4]) -> Result<[u32; 4], Refusal> {
        let [x, y, w, h] = r;
        let (iw, ih) = (f64::from(self.size.0), f64::from(self.size.1));
        let whole = r.iter().all(|v| v.fract() == 0.0);
        if !whole || x < 0.0 || y < 0.0 || w < 1.0 || h < 1.0 || x + w > iw || y + h > ih {
            return Err(refuse!(
                "the frame {}, {}, {}, {} is not whole pixels inside the {iw}x{ih} image",
                Number(x),
                Number(y),
                Number(w),
                Number(h)
            ));
        }
        Ok([x as u32, y as u32, w as u32, h as u32])
    }
}

/// One sprite of a batch.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sprite {
    /// The top-left corner in logical coordinates.
    pub at: [f32; 2],
    /// The frame's pixels in the sheet: x, y, w, h.
    pub frame: [u32; 4],
    /// Logical pixels per sheet pixel, across and down.
    pub scale: [f32; 2],
    /// Mirrored left to right, top to bottom.
    pub flip: [bool; 2],
    /// What each premultiplied channel is multiplied by, out of 255: the
    /// tint's color times its alpha, the sprite's and the screen's.
    pub ink: [u8; 4],
}

impl Sprite {
    /// The sprite that draws image pixels `source` into `dest` (logical)
    /// under `t` exactly as tiny-skia's nearest-neighbour pattern fill
    /// does, when that is certain: axis-aligned, every edge on a whole
    /// device pixel, a whole number of device pixels per image pixel.
    /// (Compared on random images over random pixels: the same bytes.)
    pub fn whole_pixel(source: [f32; 4], dest: [f32; 4], t: Transform) -> Option<Sprite> {
        let [sx, sy, sw, sh] = source;
        let [x, y, w, h] = dest;
        if t.kx != 0.0 || t.ky != 0.0 || !(t.sx > 0.0 && t.sy > 0.0) || sw < 1.0 || sh < 1.0 {
            return None;
        }
        let whole = |v: f32| v.is_finite() && v.fract() == 0.0 && v.abs() < 1.0e7;
        let (dx, dy) = (x * t.sx + t.tx, y * t.sy + t.ty);
        let (kx, ky) = (w / sw * t.sx, h / sh * t.sy);
        if ![sx, sy, sw, sh, dx, dy, kx, ky].into_iter().all(whole) || kx < 1.0 || ky < 1.0 {
            return None;
        }
        Some(Sprite {
            at: [x, y],
            frame: [sx as u32, sy as u32, sw as u32, sh as u32],
            scale: [w / sw, h / sh],
            flip: [false; 2],
            ink: [255; 4],
        })
    }
}

/// What a game asks of one sprite.
#[derive(Debug, Clone, Copy)]
pub struct SpriteSpec {
    /// The top-left corner.
    pub at: (f64, f64),
    /// The frame's pixels in the sheet.
    pub frame: [u32; 4],
    /// Logical pixels per sheet pixel.
    pub scale: (f64, f64),
    /// Mirrored left to right, top to bottom.
    pub flip: [bool; 2],
    /// The color multiplied in. Default: white.
    pub tint: Rgba,
    /// Opacity. Default: 1.
    pub alpha: f64,
}

impl SpriteSpec {
    /// A sprite of `frame` at `at`, unscaled, untinted.
    pub fn new(at: (f64, f64), frame: [u32; 4]) -> SpriteSpec {
        SpriteSpec {
            at,
            frame,
            scale: (1.0, 1.0),
            flip: [false; 2],
            tint: Rgba::WHITE,
            alpha: 1.0,
        }
    }
}

/// Rounds `v` in 0..=1 to a channel multiplier.
fn level(v: f32) -> u8 {
    (v.clamp(0.0, 1.0) * 255.0).round() as u8
}

/// `a * b / 255`, rounded to nearest.
#[inline]
fn mul255(a: u8, b: u8) -> u8 {
    let p = u32::from(a) * u32::from(b) + 128;
    ((p + (p >> 8)) >> 8) as u8
}

impl Screen {
    /// Starts a batch of sprites; returns where its sprites begin.
    pub fn sprites_begin(&self) -> u32 {
        self.sprites.len() as u32
    }

    /// Adds one sprite to the batch begun at `begin`.
    ///
    /// # Errors
    /// A number is not finite, a scale is negative, the frame's display
    /// list is full, or this frame's sprites already cover more than
    /// [`MAX_COVER`](super::MAX_COVER) screens.
    #[inline]
    pub fn sprite(&mut self, spec: &SpriteSpec) -> Result<(), Refusal> {
        let x = finite("x", spec.at.0)?;
        let y = finite("y", spec.at.1)?;
        let sx = finite("scale", spec.scale.0)?;
        let sy = finite("scale", spec.scale.1)?;
        if sx < 0.0 || sy < 0.0 {
            return Err(refuse!(
                "`scale` is {}, {}; scales are 0 or more (flip with flip_x, flip_y)",
                Number(sx),
                Number(sy)
            ));
        }
        let alpha = finite("alpha", spec.alpha)?.clamp(0.0, 1.0) * self.alpha;
        let [w, h] = [spec.frame[2] as f32 * sx, spec.frame[3] as f32 * sy];
        self.cover(x, y, w, h)?;
        self.room(std::mem::size_of::<Sprite>())?;
        let t = spec.tint;
        let a = t.a * alpha;
        self.sprites.push(Sprite {
            at: [x, y],
            frame: spec.frame,
            scale: [sx, sy],
            flip: spec.flip,
            ink: [level(t.r * a), level(t.g * a), level(t.b * a), level(a)],
        });
        Ok(())
    }

    /// Counts the logical pixels a `w` by `h` area at `(x, y)` covers on
    /// the screen, under the current transform, against the frame's limit.
    #[inline]
    fn cover(&mut self, x: f32, y: f32, w: f32, h: f32) -> Result<(), Refusal> {
        let area = self.box_area(self.transform, [x, y, w, h], 0.0);
        self.charge_area(area)
    }

    /// Ends the batch begun at `begin`: its sprites are drawn from `image`
    /// in the order they were added.
    ///
    /// # Errors
    /// The frame's display list is full.
    pub fn sprites_end(&mut self, image: ImageId, begin: u32) -> Result<(), Refusal> {
        let end = self.sprites.len() as u32;
        if begin == end {
            return Ok(());
        }
        self.push(super::Command::Sprites {
            image,
            sprites: begin..end,
        })
    }
}

/// Pixel rows and columns drawing may touch: x0, y0, x1, y1 (exclusive).
pub type Bounds = [i32; 4];

/// Draws `sprites` from `sheet` onto `pixmap` under `transform`, touching
/// only pixels inside `bounds`. `columns` is scratch space, kept by the
/// caller so a frame allocates nothing once it has grown.
pub fn draw(
    pixmap: &mut PixmapMut<'_>,
    sheet: &Pixmap,
    sprites: &[Sprite],
    transform: Transform,
    bounds: Bounds,
    columns: &mut Vec<u32>,
) {
    let width = pixmap.width() as usize;
    draw_rows(
        pixmap.data_mut(),
        0,
        width,
        sheet,
        sprites,
        transform,
        bounds,
        columns,
    );
}

/// Draws as [`draw`] does into `pixels`, the rows of a picture `width`
/// pixels wide from row `first` on; `bounds` must lie inside those rows.
#[allow(clippy::too_many_arguments)]
pub fn draw_rows(
    pixels: &mut [u8],
    first: usize,
    width: usize,
    sheet: &Pixmap,
    sprites: &[Sprite],
    transform: Transform,
    bounds: Bounds,
    columns: &mut Vec<u32>,
) {
    let source = sheet.data();
    let stride = sheet.width() as usize;
    for sprite in sprites {
        let [fx, fy, fw, fh] = sprite.frame;
        let [sx, sy] = sprite.scale;
        let (ox, kx) = if sprite.flip[0] {
            (sprite.at[0] + fw as f32 * sx, -sx)
        } else {
            (sprite.at[0], sx)
        };
        let (oy, ky) = if sprite.flip[1] {
            (sprite.at[1] + fh as f32 * sy, -sy)
        } else {
            (sprite.at[1], sy)
        };
        let full = transform.pre_concat(Transform::from_row(kx, 0.0, 0.0, ky, ox, oy));
        let Some(inv) = full.invert() else {
            continue;
        };
        let Some([x0, y0, x1, y1]) = covered(full, fw as f32, fh as f32, bounds) else {
            continue;
        };
        let (cw, ch) = (fw as f32, fh as f32);
        let ink = sprite.ink;
        if inv.kx == 0.0 && inv.ky == 0.0 {
            // Axis-aligned: a pixel's column depends on x alone and its
            // row on y alone, so columns are found once for all rows.
            columns.clear();
            columns.extend((x0..x1).map(|px| {
                let u = inv.sx * (px as f32 + 0.5) + inv.tx;
                if u >= 0.0 && u < cw {
                    (fx + u as u32) * 4
                } else {
                    u32::MAX
                }
            }));
            for py in y0..y1 {
                let v = inv.sy * (py as f32 + 0.5) + inv.ty;
                if !(v >= 0.0 && v < ch) {
                    continue;
                }
                let from = &source[(fy as usize + v as usize) * stride * 4..][..stride * 4];
                let row = (py as usize - first) * width;
                let to = &mut pixels[(row + x0 as usize) * 4..(row + x1 as usize) * 4];
                if ink == [255; 4] {
                    blit_row::<false>(to, from, columns, ink);
                } else {
                    blit_row::<true>(to, from, columns, ink);
                }
            }
            continue;
        }
        for py in y0..y1 {
            let cy = py as f32 + 0.5;
            let row = (py as usize - first) * width;
            for px in x0..x1 {
                let cx = px as f32 + 0.5;
                let u = inv.sx * cx + inv.kx * cy + inv.tx;
                let v = inv.ky * cx + inv.sy * cy + inv.ty;
                if !(u >= 0.0 && u < cw && v >= 0.0 && v < ch) {
                    continue;
                }
                let at = ((fy as usize + v as usize) * stride + fx as usize + u as usize) * 4;
                let to = (row + px as usize) * 4;
                blend::<true>(&mut pixels[to..to + 4], &source[at..at + 4], ink);
            }
        }
    }
}

/// Blends one row: `to` takes the pixels of the sheet row `from` at
/// `columns` (byte offsets; `u32::MAX` for none).
#[inline(always)]
fn blit_row<const TINTED: bool>(to: &mut [u8], from: &[u8], columns: &[u32], ink: [u8; 4]) {
    for (d, &at) in to.chunks_exact_mut(4).zip(columns) {
        if let Some(s) = from.get(at as usize..at as usize + 4) {
            blend::<TINTED>(d, s, ink);
        }
    }
}

/// The smallest box holding the `w` by `h` rectangle at `(x, y)` mapped by
/// `t`: x0, y0, x1, y1.
fn extent(t: Transform, [x, y, w, h]: [f32; 4]) -> [f32; 4] {
    let corners = [(x, y), (x + w, y), (x, y + h), (x + w, y + h)];
    let mut b = [f32::MAX, f32::MAX, f32::MIN, f32::MIN];
    for (cx, cy) in corners {
        let px = t.sx * cx + t.kx * cy + t.tx;
        let py = t.ky * cx + t.sy * cy + t.ty;
        b = [b[0].min(px), b[1].min(py), b[2].max(px), b[3].max(py)];
    }
    b
}

/// The device pixels whose centers may fall inside a `w` by `h` cell
/// mapped by `full`, inside `bounds`.
fn covered(full: Transform, w: f32, h: f32, bounds: Bounds) -> Option<Bounds> {
    let [x0, y0, x1, y1] = extent(full, [0.0, 0.0, w, h]);
    // A pixel is in when its center is: from ceil(min - 0.5) up to
    // ceil(max - 0.5), exclusive. Casts saturate, so far-off or NaN
    // corners end up outside the bounds.
    let clamp = |v: f32, lo: i32, hi: i32| ((v - 0.5).ceil() as i32).clamp(lo, hi);
    let b = [
        clamp(x0, bounds[0], bounds[2]),
        clamp(y0, bounds[1], bounds[3]),
        clamp(x1, bounds[0], bounds[2]),
        clamp(y1, bounds[1], bounds[3]),
    ];
    (b[0] < b[2] && b[1] < b[3]).then_some(b)
}

/// `s` (tinted by `ink` when `TINTED`) source-over `d`: premultiplied
/// RGBA bytes.
#[inline(always)]
fn blend<const TINTED: bool>(d: &mut [u8], s: &[u8], ink: [u8; 4]) {
    let mut s = [s[0], s[1], s[2], s[3]];
    if TINTED {
        for (c, k) in s.iter_mut().zip(ink) {
            *c = mul255(*c, k);
        }
    }
    match s[3] {
        255 => d.copy_from_slice(&s),
        // Premultiplied: no alpha means no color either.
        0 => {}
        a => {
            let keep = 255 - a;
            for (d, s) in d.iter_mut().zip(s) {
                // s <= a and d <= 255, so the sum stays in a byte.
                *d = s + mul255(*d, keep);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mul255_rounds_to_nearest_over_every_pair() {
        for a in 0..=255u32 {
            for b in 0..=255u32 {
                let exact = (a * b) as f64 / 255.0;
                assert_eq!(
                    u32::from(mul255(a as u8, b as u8)),
                    exact.round() as u32,
                    "{a} * {b}"
                );
            }
        }
    }

    #[test]
    fn frames_count_left_to_right_then_down() {
        let sheet = Sheet::grid(ImageId(0), (48, 32), (16.0, 16.0)).unwrap();
        assert_eq!(sheet.frames(), 6);
        assert_eq!(sheet.frame(1.0).unwrap(), [0, 0, 16, 16]);
        assert_eq!(sheet.frame(4.0).unwrap(), [0, 16, 16, 16]);
        assert_eq!(sheet.frame(6.0).unwrap(), [32, 16, 16, 16]);
        assert!(sheet.frame(7.0).unwrap_err().contains("1 to 6"));
        assert!(sheet.frame(0.5).is_err());
        assert!(Sheet::grid(ImageId(0), (48, 32), (0.0, 16.0)).is_err());
        assert!(Sheet::grid(ImageId(0), (48, 32), (16.0, 33.0)).is_err());
    }

    #[test]
    fn covered_takes_pixels_whose_centers_are_inside() {
        let b = [0, 0, 100, 100];
        let at = Transform::from_translate(10.0, 20.0);
        assert_eq!(covered(at, 16.0, 8.0, b), Some([10, 20, 26, 28]));
        let half = Transform::from_translate(10.4, 20.6);
        assert_eq!(covered(half, 16.0, 8.0, b), Some([10, 21, 26, 29]));
        let off = Transform::from_translate(1.0e30, f32::NAN);
        assert_eq!(covered(off, 16.0, 8.0, b), None);
    }

    #[test]
    fn whole_pixel_images_match_tiny_skia_nearest_fills_byte_for_byte() {
        use tiny_skia::{FilterQuality, Paint, Pattern, PremultipliedColorU8, Rect, SpreadMode};
        let mut seed = 4242u64;
        let mut rnd = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 11) as u32
        };
        let pixel = |rnd: &mut dyn FnMut() -> u32| {
            let a = if rnd().is_multiple_of(3) {
                255
            } else {
                rnd() % 256
            };
            let c = |v: u32| if a == 0 { 0 } else { (v % (a + 1)) as u8 };
            PremultipliedColorU8::from_rgba(c(rnd()), c(rnd()), c(rnd()), a as u8).unwrap()
        };
        for _ in 0..300 {
            let (iw, ih) = (1 + rnd() % 16, 1 + rnd() % 16);
            let mut image = Pixmap::new(iw, ih).unwrap();
            for p in image.pixels_mut() {
                *p = pixel(&mut rnd);
            }
            let mut theirs = Pixmap::new(64, 64).unwrap();
            for p in theirs.pixels_mut() {
                *p = pixel(&mut rnd);
            }
            let mut ours = theirs.clone();
            let scale = (1 + rnd() % 3) as f32;
            let (x, y) = ((rnd() % 40) as f32, (rnd() % 40) as f32);
            let source = [0.0, 0.0, iw as f32, ih as f32];
            let dest = [x, y, iw as f32 * scale, ih as f32 * scale];
            // As a letterboxed layer draws: a whole scale and offset.
            let k = (1 + rnd() % 2) as f32;
            let view = Transform::from_row(k, 0.0, 0.0, k, (rnd() % 4) as f32, (rnd() % 4) as f32);
            let sprite = Sprite::whole_pixel(source, dest, view).unwrap();
            draw(
                &mut ours.as_mut(),
                &image,
                &[sprite],
                view,
                [0, 0, 64, 64],
                &mut Vec::new(),
            );
            let pattern = Transform::from_translate(x, y).pre_scale(scale, scale);
            let paint = Paint {
                shader: Pattern::new(
                    image.as_ref(),
                    SpreadMode::Pad,
                    FilterQuality::Nearest,
                    1.0,
                    pattern,
                ),
                anti_alias: false,
                ..Paint::default()
            };
            let rect = Rect::from_xywh(dest[0], dest[1], dest[2], dest[3]).unwrap();
            theirs.fill_rect(rect, &paint, view, None);
            assert!(
                ours.data() == theirs.data(),
                "{iw}x{ih} at {x},{y} times {scale}"
            );
        }
        let turned = Transform::from_rotate(5.0);
        assert!(Sprite::whole_pixel([0.0, 0.0, 4.0, 4.0], [0.0, 0.0, 8.0, 8.0], turned).is_none());
        let half = Transform::identity();
        assert!(Sprite::whole_pixel([0.0, 0.0, 4.0, 4.0], [0.5, 0.0, 8.0, 8.0], half).is_none());
        assert!(Sprite::whole_pixel([0.0, 0.0, 4.0, 4.0], [0.0, 0.0, 6.0, 8.0], half).is_none());
    }
}
