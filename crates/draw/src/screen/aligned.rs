//! The fast path for the commonest shape: a solid rectangle whose edges
//! fall on whole device pixels (a panel, a bar, a background filling the
//! layer). Every pixel inside is fully covered, so it is blended directly,
//! with tiny-skia's own arithmetic, and the picture is byte for byte what
//! tiny-skia's anti-aliased fill makes (a test compares thousands).

use tiny_skia::{Color, PixmapMut, Transform};

use super::sprites::Bounds;

/// Fills `[x, y, w, h]` (logical) with `color` under `transform` when the
/// rectangle lands on whole device pixels, inside `bounds`; returns
/// whether it did (when not, the caller fills it the general way).
pub fn fill(
    pixmap: &mut PixmapMut<'_>,
    [x, y, w, h]: [f32; 4],
    color: Color,
    t: Transform,
    bounds: Bounds,
) -> bool {
    if t.kx != 0.0 || t.ky != 0.0 || !(t.sx > 0.0 && t.sy > 0.0) {
        return false;
    }
    // The same arithmetic tiny-skia maps a path's points with.
    let x0 = x * t.sx + y * t.kx + t.tx;
    let y0 = x * t.ky + y * t.sy + t.ty;
    let x1 = (x + w) * t.sx + (y + h) * t.kx + t.tx;
    let y1 = (x + w) * t.ky + (y + h) * t.sy + t.ty;
    let whole = |v: f32| v.is_finite() && v.fract() == 0.0 && v.abs() < 1.0e7;
    if !(whole(x0) && whole(y0) && whole(x1) && whole(y1)) || x1 <= x0 || y1 <= y0 {
        return false;
    }
    let clamp = |v: f32, lo: i32, hi: i32| (v as i32).clamp(lo, hi) as usize;
    let (cx0, cx1) = (
        clamp(x0, bounds[0], bounds[2]),
        clamp(x1, bounds[0], bounds[2]),
    );
    let (cy0, cy1) = (
        clamp(y0, bounds[1], bounds[3]),
        clamp(y1, bounds[1], bounds[3]),
    );
    let c = color.premultiply().to_color_u8();
    let s = [c.red(), c.green(), c.blue(), c.alpha()];
    let keep = 255 - u32::from(s[3]);
    let width = pixmap.width() as usize;
    let data = pixmap.data_mut();
    for y in cy0..cy1 {
        let row = &mut data[(y * width + cx0) * 4..(y * width + cx1) * 4];
        if keep == 0 {
            for px in row.chunks_exact_mut(4) {
                px.copy_from_slice(&s);
            }
            continue;
        }
        for px in row.chunks_exact_mut(4) {
            for (d, s) in px.iter_mut().zip(s) {
                // tiny-skia's source-over on premultiplied bytes.
                *d = s + ((u32::from(*d) * keep + 255) >> 8) as u8;
            }
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use tiny_skia::{FillRule, Paint, PathBuilder, Pixmap, PremultipliedColorU8, Rect, Shader};

    #[test]
    fn whole_pixel_rectangles_match_tiny_skia_byte_for_byte() {
        let mut seed = 987_654u64;
        let mut rnd = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 11) as u32
        };
        for _ in 0..2_000 {
            let (w, h) = (1 + rnd() % 120, 1 + rnd() % 90);
            let mut ours = Pixmap::new(w, h).unwrap();
            for px in ours.pixels_mut() {
                let a = if rnd().is_multiple_of(3) {
                    255
                } else {
                    rnd() % 256
                };
                let c = |v: u32| if a == 0 { 0 } else { (v % (a + 1)) as u8 };
                *px =
                    PremultipliedColorU8::from_rgba(c(rnd()), c(rnd()), c(rnd()), a as u8).unwrap();
            }
            let mut theirs = ours.clone();
            let mut color = Color::from_rgba8(
                (rnd() % 256) as u8,
                (rnd() % 256) as u8,
                (rnd() % 256) as u8,
                (rnd() % 256) as u8,
            );
            color.apply_opacity((rnd() % 1001) as f32 / 1000.0);
            // Logical coordinates through a scale and a translate, as a
            // letterboxed layer draws, landing on whole pixels.
            let scale = [1.0f32, 2.0, 0.5][(rnd() % 3) as usize];
            let t = Transform::from_row(
                scale,
                0.0,
                0.0,
                scale,
                (rnd() % 5) as f32,
                (rnd() % 5) as f32,
            );
            let x = ((rnd() % (w + 20)) as f32 - 10.0) / scale;
            let y = ((rnd() % (h + 20)) as f32 - 10.0) / scale;
            let rect = [
                x,
                y,
                (1 + rnd() % (w + 10)) as f32 / scale,
                (1 + rnd() % (h + 10)) as f32 / scale,
            ];
            let bounds = [0, 0, w as i32, h as i32];
            if !fill(&mut ours.as_mut(), rect, color, t, bounds) {
                continue;
            }
            let paint = Paint {
                shader: Shader::SolidColor(color),
                anti_alias: true,
                ..Paint::default()
            };
            let path = PathBuilder::from_rect(
                Rect::from_xywh(rect[0], rect[1], rect[2], rect[3]).unwrap(),
            );
            theirs.fill_path(&path, &paint, FillRule::Winding, t, None);
            assert!(ours.data() == theirs.data(), "{rect:?} {color:?} {t:?}");
        }
    }

    #[test]
    fn rectangles_off_whole_pixels_or_turned_are_left_to_tiny_skia() {
        let mut p = Pixmap::new(8, 8).unwrap();
        let b = [0, 0, 8, 8];
        let red = Color::from_rgba8(255, 0, 0, 255);
        assert!(!fill(
            &mut p.as_mut(),
            [0.5, 0.0, 2.0, 2.0],
            red,
            Transform::identity(),
            b
        ));
        assert!(!fill(
            &mut p.as_mut(),
            [0.0, 0.0, 2.0, 2.0],
            red,
            Transform::from_rotate(10.0),
            b
        ));
        assert!(!fill(
            &mut p.as_mut(),
            [0.0, 0.0, f32::NAN, 2.0],
            red,
            Transform::identity(),
            b
        ));
        assert!(fill(
            &mut p.as_mut(),
            [-100.0, -100.0, 1.0e6, 1.0e6],
            red,
            Transform::identity(),
            b
        ));
        assert!(
            p.pixels().iter().all(|px| px.red() == 255),
            "clipped to the picture"
        );
    }
}
