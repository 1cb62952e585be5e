//! What a drawing call asks for (rule H3): how an area or a line is
//! painted, a path's steps, and a text's font, size, wrap and alignment.

use tiny_skia::{LineCap, LineJoin};

use crate::text::Align;
use moonloop_core::color::Rgba;

/// How an area or a line is painted.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Fill {
    /// One color.
    Solid(Rgba),
    /// A linear gradient from `(x0, y0)` to `(x1, y1)`.
    Linear {
        /// Start and end points.
        points: [f32; 4],
        /// Into the screen's stop list.
        stops: (u32, u32),
    },
    /// A radial gradient around `(cx, cy)` out to `r`.
    Radial {
        /// Center and radius.
        circle: [f32; 3],
        /// Into the screen's stop list.
        stops: (u32, u32),
    },
}

/// How a shape is filled and stroked.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Style {
    /// The fill, if any.
    pub fill: Option<Fill>,
    /// The stroke, if any.
    pub stroke: Option<Fill>,
    /// Stroke width in logical pixels. Default: 1.
    pub width: f32,
    /// Line ends. Default: butt.
    pub cap: LineCap,
    /// Line corners. Default: miter.
    pub join: LineJoin,
    /// Dash lengths, into the screen's dash list. Default: none.
    pub dash: Option<(u32, u32)>,
    /// Opacity, multiplied with the screen's global alpha. Default: 1.
    pub alpha: f32,
}

impl Default for Style {
    fn default() -> Self {
        Style {
            fill: None,
            stroke: None,
            width: 1.0,
            cap: LineCap::Butt,
            join: LineJoin::Miter,
            dash: None,
            alpha: 1.0,
        }
    }
}

/// One step of an arbitrary path.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum PathOp {
    /// Start a new contour at a point.
    Move(f32, f32),
    /// A straight line to a point.
    Line(f32, f32),
    /// A quadratic curve: control point, end point.
    Quad(f32, f32, f32, f32),
    /// A cubic curve: two control points, end point.
    Cubic(f32, f32, f32, f32, f32, f32),
    /// Close the contour.
    Close,
}

/// What a `text` or `measure` call asks for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TextSpec<'a> {
    /// A font file in the game folder; `None`: the embedded DejaVu Sans.
    pub font: Option<&'a str>,
    /// The em, in logical pixels. Default: 16.
    pub size: f64,
    /// Wrap to this width; `None`: break at `\n` only.
    pub width: Option<f64>,
    /// Lines apart, as a multiple of the size; `None`: the font's own.
    pub line_height: Option<f64>,
    /// What `x` is. Default: the left edge.
    pub align: Align,
    /// Anti-aliased; `false` draws a pixel font crisp. Default: true.
    pub smooth: bool,
}

impl Default for TextSpec<'_> {
    fn default() -> Self {
        TextSpec {
            font: None,
            size: 16.0,
            width: None,
            line_height: None,
            align: Align::Left,
            smooth: true,
        }
    }
}
