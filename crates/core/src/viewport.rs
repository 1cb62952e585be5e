//! Viewport: the game's logical area letterboxed into a surface (frame
//! step 3).
//!
//! The logical area is scaled uniformly to the largest size that fits the
//! surface and centered, leaving bars on the sides (a wide surface) or at
//! the top and bottom (a tall one). Edges are rounded to whole device
//! pixels so the scissor and the picture agree exactly. Under whole-pixel
//! scaling (rule V1) the scale is the largest whole number that fits.

use crate::config::Scaling;

/// Where the logical area lands on a surface, in device pixels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Viewport {
    /// The logical size, from the game's config.
    pub logical: (u32, u32),
    /// The surface size in device pixels.
    pub surface: (u32, u32),
    /// Left edge of the letterboxed area.
    pub x: u32,
    /// Top edge of the letterboxed area.
    pub y: u32,
    /// Width of the letterboxed area.
    pub width: u32,
    /// Height of the letterboxed area.
    pub height: u32,
}

impl Viewport {
    /// Fits `logical` into a surface of `surface` device pixels.
    pub fn fit(logical: (u32, u32), surface: (u32, u32)) -> Viewport {
        let (lw, lh) = (logical.0.max(1) as f64, logical.1.max(1) as f64);
        let (sw, sh) = (surface.0 as f64, surface.1 as f64);
        let scale = (sw / lw).min(sh / lh);
        let width = (lw * scale).round().min(sw) as u32;
        let height = (lh * scale).round().min(sh) as u32;
        Viewport::centered(logical, surface, width, height)
    }

    /// `width` x `height` device pixels in the middle of `surface`.
    fn centered(logical: (u32, u32), surface: (u32, u32), width: u32, height: u32) -> Viewport {
        Viewport {
            logical,
            surface,
            x: (surface.0 - width) / 2,
            y: (surface.1 - height) / 2,
            width,
            height,
        }
    }

    /// Fits `logical` into `surface` at the largest whole scale (V1): each
    /// logical pixel is a square of whole device pixels. A surface smaller
    /// than the logical area gets [`Viewport::fit`]'s scale below 1.
    pub fn whole(logical: (u32, u32), surface: (u32, u32)) -> Viewport {
        let (lw, lh) = (logical.0.max(1), logical.1.max(1));
        let scale = (surface.0 / lw).min(surface.1 / lh);
        if scale == 0 {
            return Viewport::fit(logical, surface);
        }
        Viewport::centered(logical, surface, lw * scale, lh * scale)
    }

    /// Fits `logical` into `surface` as `scaling` says.
    pub fn of(logical: (u32, u32), scaling: Scaling, surface: (u32, u32)) -> Viewport {
        match scaling {
            Scaling::Fit => Viewport::fit(logical, surface),
            Scaling::Whole => Viewport::whole(logical, surface),
        }
    }

    /// Whether each logical pixel is a square of whole device pixels.
    pub fn is_whole(&self) -> bool {
        self.width.is_multiple_of(self.logical.0.max(1))
            && self.height.is_multiple_of(self.logical.1.max(1))
            && self.width / self.logical.0.max(1) == self.height / self.logical.1.max(1)
    }

    /// Fits `logical` into a window of `window` logical pixels shown at
    /// `scale_factor` device pixels each (a HiDPI display).
    pub fn fit_window(logical: (u32, u32), window: (f64, f64), scale_factor: f64) -> Viewport {
        let surface = (
            (window.0 * scale_factor).round().max(1.0) as u32,
            (window.1 * scale_factor).round().max(1.0) as u32,
        );
        Viewport::fit(logical, surface)
    }

    /// Returns the device pixels per logical unit, horizontally and vertically.
    pub fn scale(&self) -> (f64, f64) {
        (
            self.width as f64 / self.logical.0.max(1) as f64,
            self.height as f64 / self.logical.1.max(1) as f64,
        )
    }

    /// Maps a point in device pixels to logical coordinates; `None` in a bar.
    pub fn to_logical(&self, device: (f64, f64)) -> Option<(f64, f64)> {
        let (sx, sy) = self.scale();
        let x = (device.0 - self.x as f64) / sx;
        let y = (device.1 - self.y as f64) / sy;
        let inside =
            (0.0..self.logical.0 as f64).contains(&x) && (0.0..self.logical.1 as f64).contains(&y);
        inside.then_some((x, y))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_exact_surface_fills_without_bars() {
        let v = Viewport::fit((1280, 720), (1280, 720));
        assert_eq!((v.x, v.y, v.width, v.height), (0, 0, 1280, 720));
        let v = Viewport::fit((640, 360), (1920, 1080));
        assert_eq!(
            (v.x, v.y, v.width, v.height),
            (0, 0, 1920, 1080),
            "3x, still no bars"
        );
        assert_eq!(v.scale(), (3.0, 3.0));
    }

    #[test]
    fn a_wide_surface_gets_bars_on_the_sides() {
        let v = Viewport::fit((800, 600), (1920, 1080));
        assert_eq!((v.x, v.y, v.width, v.height), (240, 0, 1440, 1080));
        assert_eq!(v.to_logical((100.0, 500.0)), None, "in the left bar");
        assert_eq!(
            v.to_logical((240.0 + 720.0, 540.0)),
            Some((400.0, 300.0)),
            "the center"
        );
    }

    #[test]
    fn a_tall_surface_gets_bars_top_and_bottom() {
        let v = Viewport::fit((1280, 720), (720, 1280));
        assert_eq!((v.x, v.y, v.width, v.height), (0, 437, 720, 405));
        assert_eq!(v.to_logical((360.0, 10.0)), None, "in the top bar");
    }

    #[test]
    fn whole_scaling_takes_the_largest_whole_scale_and_bars_the_rest() {
        // V1: 320x180 in 1280x720 is 4x exactly; in 1366x768 still 4x.
        let v = Viewport::whole((320, 180), (1280, 720));
        assert_eq!((v.x, v.y, v.width, v.height), (0, 0, 1280, 720));
        let v = Viewport::whole((320, 180), (1366, 768));
        assert_eq!((v.x, v.y, v.width, v.height), (43, 24, 1280, 720));
        assert!(v.is_whole());
        assert_eq!(v.to_logical((43.0 + 4.0 * 10.5, 24.0)), Some((10.5, 0.0)));
        // 1920x1080 holds 6x; fit would too. 1900x1000 holds 5x.
        let v = Viewport::whole((320, 180), (1900, 1000));
        assert_eq!((v.width, v.height), (1600, 900));
        assert!(!Viewport::fit((320, 180), (1900, 1000)).is_whole());
        // Smaller than the game: as large as fits, below 1.
        let v = Viewport::whole((320, 180), (160, 100));
        assert_eq!((v.width, v.height), (160, 90));
    }

    #[test]
    fn fractional_scale_factors_round_to_device_pixels() {
        // A 1000x600 window at 1.25x is 1250x750 device pixels.
        let v = Viewport::fit_window((1280, 720), (1000.0, 600.0), 1.25);
        assert_eq!(v.surface, (1250, 750));
        assert_eq!((v.x, v.y, v.width, v.height), (0, 23, 1250, 703));
        // 1.5x of an odd size rounds the surface, then centers.
        let v = Viewport::fit_window((320, 240), (333.0, 333.0), 1.5);
        assert_eq!(v.surface, (500, 500));
        assert_eq!((v.x, v.y, v.width, v.height), (0, 62, 500, 375));
    }
}
