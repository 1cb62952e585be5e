//! What one frame's drawing costs the rasterizer, bounded (rule H10).
//!
//! Each command is charged the logical pixels it may touch, clipped to
//! the screen and seen through the transform it is drawn with: a fill its
//! bounding box; a stroke its length times its width, or its widened box
//! if that is smaller; text its laid-out box; an image or a sprite its
//! destination. A frame may be charged [`MAX_COVER`] screens; the call
//! that would pass that is refused, so no game can make one frame take
//! minutes to draw (twenty thousand full-screen rectangles took more than
//! five, before).

use moonloop_core::Refusal;
use tiny_skia::Transform;

use super::{Command, PathOp, Screen, Shape, Style};

/// How many times over one frame's drawing may cover the screen.
pub const MAX_COVER: f64 = 256.0;

/// Where `(x, y)` lands under `t`.
fn map(t: Transform, x: f32, y: f32) -> (f32, f32) {
    (t.sx * x + t.kx * y + t.tx, t.ky * x + t.sy * y + t.ty)
}

impl Screen {
    /// Charges `command`, about to be drawn through the current
    /// transform, against the frame's limit.
    ///
    /// # Errors
    /// The frame's drawing would cover the screen more than
    /// [`MAX_COVER`] times over.
    pub(super) fn charge(&mut self, command: &Command) -> Result<(), Refusal> {
        let t = self.transform;
        let area = match command {
            Command::Shape(
                Shape::Rect {
                    rect: [x, y, w, h], ..
                },
                style,
            ) => {
                let corners = [(*x, *y), (x + w, *y), (x + w, y + h), (*x, y + h), (*x, *y)];
                self.shape_area(corners.into_iter(), style)
            }
            Command::Shape(
                Shape::Ellipse {
                    center: [cx, cy],
                    radii: [rx, ry],
                },
                style,
            ) => {
                // The box's outline is longer than the ellipse's.
                let (x0, y0, x1, y1) = (cx - rx, cy - ry, cx + rx, cy + ry);
                let corners = [(x0, y0), (x1, y0), (x1, y1), (x0, y1), (x0, y0)];
                self.shape_area(corners.into_iter(), style)
            }
            Command::Shape(Shape::Path { ops }, style) => {
                let ops = &self.ops[ops.start as usize..ops.end as usize];
                // Control points bound a curve, and the lines through
                // them are longer than it.
                let points = ops.iter().flat_map(|op| {
                    let p: [Option<(f32, f32)>; 3] = match *op {
                        PathOp::Move(a, b) | PathOp::Line(a, b) => [Some((a, b)), None, None],
                        PathOp::Quad(a, b, c, d) => [Some((a, b)), Some((c, d)), None],
                        PathOp::Cubic(a, b, c, d, e, f) => {
                            [Some((a, b)), Some((c, d)), Some((e, f))]
                        }
                        PathOp::Close => [None, None, None],
                    };
                    p.into_iter().flatten()
                });
                self.shape_area(points, style)
            }
            Command::Text {
                layout, at: [x, y], ..
            } => {
                // Aligned right or centered, the text starts left of x.
                let (w, h) = self.typesetter.size_of(*layout);
                self.box_area(t, [x - w, *y, 2.0 * w, h], 0.0)
            }
            Command::Image { dest, .. } => self.box_area(t, *dest, 0.0),
            // Each sprite was charged as it was added.
            Command::Sprites { .. } => 0.0,
        };
        self.charge_area(area)
    }

    /// Adds `area` logical pixels to the frame's drawing.
    ///
    /// # Errors
    /// As [`Screen::charge`].
    pub(super) fn charge_area(&mut self, area: f64) -> Result<(), Refusal> {
        let screen = f64::from(self.logical.0) * f64::from(self.logical.1);
        self.cover += if area.is_finite() { area } else { screen };
        if self.cover > MAX_COVER * screen.max(1.0) {
            return Err(refuse!(
                "this frame's drawing covers the screen more than {MAX_COVER} times over \
                 (H10: the host draws at most that much a frame)"
            ));
        }
        Ok(())
    }

    /// The screen pixels the box `[x, y, w, h]` seen through `t` and
    /// widened by `margin` on each side may touch.
    pub(super) fn box_area(&self, t: Transform, [x, y, w, h]: [f32; 4], margin: f32) -> f64 {
        let mut b = [f32::MAX, f32::MAX, f32::MIN, f32::MIN];
        for (cx, cy) in [(x, y), (x + w, y), (x, y + h), (x + w, y + h)] {
            let (px, py) = map(t, cx, cy);
            b = [b[0].min(px), b[1].min(py), b[2].max(px), b[3].max(py)];
        }
        let (lw, lh) = (self.logical.0 as f32, self.logical.1 as f32);
        let across = ((b[2] + margin).min(lw) - (b[0] - margin).max(0.0)).max(0.0);
        let down = ((b[3] + margin).min(lh) - (b[1] - margin).max(0.0)).max(0.0);
        f64::from(across) * f64::from(down)
    }

    /// A shape through `points` (its outline, or a bound on it), filled
    /// and stroked as `style` says.
    fn shape_area(&self, points: impl Iterator<Item = (f32, f32)>, style: &Style) -> f64 {
        let t = self.transform;
        // Joins and caps reach past the line; anti-aliasing a pixel.
        let scale = (t.sx * t.sy - t.kx * t.ky).abs().sqrt();
        let width = style.width * scale * 2.0 + 2.0;
        let (lw, lh) = (self.logical.0 as f32, self.logical.1 as f32);
        // No stretch of a line on the screen is longer than this.
        let across = f64::from(lw).hypot(f64::from(lh)) + 2.0 * f64::from(width);
        let mut b = [f32::MAX, f32::MAX, f32::MIN, f32::MIN];
        let mut length = 0.0f64;
        let mut last: Option<(f32, f32)> = None;
        for (x, y) in points {
            let (px, py) = map(t, x, y);
            b = [b[0].min(px), b[1].min(py), b[2].max(px), b[3].max(py)];
            if let Some((lx, ly)) = last {
                let off = px.min(lx) > lw + width
                    || px.max(lx) < -width
                    || py.min(ly) > lh + width
                    || py.max(ly) < -width;
                if !off {
                    length += f64::from(px - lx).hypot(f64::from(py - ly)).min(across);
                }
            }
            last = Some((px, py));
        }
        if last.is_none() {
            return 0.0;
        }
        let bounds = [b[0], b[1], b[2] - b[0], b[3] - b[1]];
        let identity = Transform::identity();
        let mut area = 0.0;
        if style.fill.is_some() {
            area += self.box_area(identity, bounds, 0.0);
        }
        if style.stroke.is_some() {
            let widened = self.box_area(identity, bounds, width);
            area += widened.min(length * f64::from(width));
        }
        area
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::screen::Fill;
    use moonloop_core::color::Rgba;

    fn filled() -> Style {
        Style {
            fill: Some(Fill::Solid(Rgba::WHITE)),
            ..Style::default()
        }
    }

    fn stroked(width: f32) -> Style {
        Style {
            stroke: Some(Fill::Solid(Rgba::WHITE)),
            width,
            ..Style::default()
        }
    }

    fn line(screen: &mut Screen, a: (f32, f32), b: (f32, f32), width: f32) -> Result<(), Refusal> {
        screen.path(
            &[PathOp::Move(a.0, a.1), PathOp::Line(b.0, b.1)],
            stroked(width),
        )
    }

    // rule: H10
    #[test]
    fn a_frame_draws_at_most_256_screens_however_it_is_drawn() {
        let mut screen = Screen::new((640, 360));
        for _ in 0..256 {
            screen.rect(-10.0, -10.0, 1e6, 1e6, 0.0, filled()).unwrap();
        }
        let refused = screen.rect(0.0, 0.0, 1.0, 1.0, 0.0, filled()).unwrap_err();
        assert!(refused.contains("more than 256 times over"), "{refused}");
        // A new frame starts from nothing.
        screen.clear((640, 360));
        screen.rect(0.0, 0.0, 640.0, 360.0, 0.0, filled()).unwrap();

        // Scaled up, a small rectangle covers the screen.
        let mut screen = Screen::new((640, 360));
        screen.scale(1e4, 1e4).unwrap();
        let refused = (0..300).find_map(|_| screen.rect(0.0, 0.0, 1.0, 1.0, 0.0, filled()).err());
        assert!(refused.is_some());
    }

    // rule: H10
    #[test]
    fn what_is_off_the_screen_or_thin_costs_little() {
        let mut screen = Screen::new((640, 360));
        // Off the screen: nothing, however large.
        for _ in 0..10_000 {
            screen.rect(1e6, 1e6, 1e6, 1e6, 0.0, filled()).unwrap();
            line(&mut screen, (-1e9, -5e3), (1e9, -5e3), 4.0).unwrap();
        }
        // Thin lines across the whole screen, thousands of them.
        for i in 0..2_000 {
            line(&mut screen, (-1e9, -1e9 + i as f32), (1e9, 1e9), 1.0).unwrap();
        }
        // Small circles with outlines.
        let ringed = Style {
            fill: Some(Fill::Solid(Rgba::WHITE)),
            ..stroked(2.0)
        };
        for i in 0..10_000 {
            screen
                .ellipse(f64::from(i % 640), 100.0, 6.0, 6.0, ringed)
                .unwrap();
        }
        assert!(screen.cover < 64.0 * 640.0 * 360.0, "{}", screen.cover);
        // But wide strokes across it count where they lie on it.
        let refused =
            (0..5_000).find_map(|_| line(&mut screen, (-1e9, -1e9), (1e9, 1e9), 60.0).err());
        assert!(refused.is_some());
    }
}
