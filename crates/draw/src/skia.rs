//! The core's values as tiny-skia takes them: a color, and the viewport's
//! transform (the core knows no rasterizer).

use moonloop_core::color::Rgba;
use moonloop_core::viewport::Viewport;

/// A core color as tiny-skia's.
pub trait SkiaColor {
    /// Converts to tiny-skia's color (black where a channel is not a
    /// number from 0 to 1).
    fn to_skia(self) -> tiny_skia::Color;
}

impl SkiaColor for Rgba {
    fn to_skia(self) -> tiny_skia::Color {
        tiny_skia::Color::from_rgba(self.r, self.g, self.b, self.a)
            .unwrap_or(tiny_skia::Color::BLACK)
    }
}

/// The viewport's place as tiny-skia's transform.
pub trait SkiaTransform {
    /// Returns the transform from logical coordinates to device pixels.
    fn transform(&self) -> tiny_skia::Transform;
}

impl SkiaTransform for Viewport {
    fn transform(&self) -> tiny_skia::Transform {
        let (sx, sy) = self.scale();
        tiny_skia::Transform::from_row(sx as f32, 0.0, 0.0, sy as f32, self.x as f32, self.y as f32)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_transform_maps_logical_corners_to_the_viewport() {
        let v = Viewport::fit((800, 600), (1920, 1080));
        let mut corner = [tiny_skia::Point::from_xy(800.0, 600.0)];
        v.transform().map_points(&mut corner);
        assert_eq!((corner[0].x, corner[0].y), (1680.0, 1080.0));
    }
}
