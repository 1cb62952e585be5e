//! Text: the embedded font (DejaVu Sans), laid out and turned into paths.
//!
//! Glyphs are drawn as filled outlines rather than cached bitmaps, so text
//! turns, scales and anti-aliases like every other shape on the screen
//! layer, and looks the same at every size. A size is the em, in logical
//! pixels, as in CSS.

use std::collections::HashMap;

use ab_glyph::{Font as _, FontRef, GlyphId, OutlineCurve};
use tiny_skia::{Path, PathBuilder};

/// The embedded font and the glyph outlines drawn so far.
pub struct Font {
    font: FontRef<'static>,
    units_per_em: f32,
    glyphs: HashMap<GlyphId, Option<Path>>,
}

impl std::fmt::Debug for Font {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Font")
            .field("glyphs", &self.glyphs.len())
            .finish()
    }
}

/// One glyph placed on a line, in em units from the line's start.
#[derive(Debug, Clone, Copy)]
pub struct Placed {
    /// The glyph.
    pub id: GlyphId,
    /// Pen position in ems from the left of the line.
    pub x: f32,
    /// Line number, from 0.
    pub line: u32,
}

impl Default for Font {
    fn default() -> Self {
        Font::new()
    }
}

impl Font {
    /// Loads DejaVu Sans, embedded in the binary.
    pub fn new() -> Font {
        let font =
            FontRef::try_from_slice(dejavu::sans::regular()).expect("the embedded font parses");
        let units_per_em = font.units_per_em().unwrap_or(2048.0);
        Font {
            font,
            units_per_em,
            glyphs: HashMap::new(),
        }
    }

    /// Returns the height of one line in ems (ascent, descent and gap).
    pub fn line_height(&self) -> f32 {
        (self.font.ascent_unscaled() - self.font.descent_unscaled() + self.font.line_gap_unscaled())
            / self.units_per_em
    }

    /// Returns the ascent in ems: from the top of a line to its baseline.
    pub fn ascent(&self) -> f32 {
        self.font.ascent_unscaled() / self.units_per_em
    }

    /// Lays out `text`, calling `place` for each glyph; returns the width
    /// of the widest line and the number of lines, in ems.
    pub fn layout(&self, text: &str, mut place: impl FnMut(Placed)) -> (f32, u32) {
        let (mut x, mut widest, mut line) = (0.0f32, 0.0f32, 0u32);
        let mut previous: Option<GlyphId> = None;
        for c in text.chars() {
            if c == '\n' {
                widest = widest.max(x);
                x = 0.0;
                line += 1;
                previous = None;
                continue;
            }
            let id = self.font.glyph_id(c);
            if let Some(prev) = previous {
                x += self.font.kern_unscaled(prev, id) / self.units_per_em;
            }
            place(Placed { id, x, line });
            x += self.font.h_advance_unscaled(id) / self.units_per_em;
            previous = Some(id);
        }
        (widest.max(x), line + 1)
    }

    /// Measures `text` at `size`: width and height in logical pixels.
    pub fn measure(&self, text: &str, size: f32) -> (f32, f32) {
        let (width, lines) = self.layout(text, |_| {});
        (width * size, lines as f32 * self.line_height() * size)
    }

    /// Returns the outline of glyph `id` in ems, y down, baseline at 0;
    /// `None` for a glyph with no ink (a space).
    pub fn glyph(&mut self, id: GlyphId) -> Option<&Path> {
        let font = &self.font;
        let em = self.units_per_em;
        self.glyphs
            .entry(id)
            .or_insert_with(|| {
                let outline = font.outline(id)?;
                let mut path = PathBuilder::new();
                let mut end = None;
                let p = |pt: ab_glyph::Point| (pt.x / em, -pt.y / em);
                for curve in &outline.curves {
                    let start = match curve {
                        OutlineCurve::Line(a, _)
                        | OutlineCurve::Quad(a, _, _)
                        | OutlineCurve::Cubic(a, _, _, _) => p(*a),
                    };
                    if end != Some(start) {
                        if end.is_some() {
                            path.close();
                        }
                        path.move_to(start.0, start.1);
                    }
                    let last = match curve {
                        OutlineCurve::Line(_, b) => {
                            let b = p(*b);
                            path.line_to(b.0, b.1);
                            b
                        }
                        OutlineCurve::Quad(_, c, b) => {
                            let (c, b) = (p(*c), p(*b));
                            path.quad_to(c.0, c.1, b.0, b.1);
                            b
                        }
                        OutlineCurve::Cubic(_, c1, c2, b) => {
                            let (c1, c2, b) = (p(*c1), p(*c2), p(*b));
                            path.cubic_to(c1.0, c1.1, c2.0, c2.1, b.0, b.1);
                            b
                        }
                    };
                    end = Some(last);
                }
                if end.is_some() {
                    path.close();
                }
                path.finish()
            })
            .as_ref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn measuring_scales_with_size_and_counts_lines() {
        let font = Font::new();
        let (w, h) = font.measure("Hello", 20.0);
        let (w2, h2) = font.measure("Hello", 40.0);
        assert!((w2 - 2.0 * w).abs() < 1e-3 && (h2 - 2.0 * h).abs() < 1e-3);
        let (_, two) = font.measure("a\nb", 20.0);
        assert!((two - 2.0 * h).abs() < 1e-3, "two lines are twice as tall");
        assert_eq!(font.measure("", 20.0).0, 0.0);
    }

    #[test]
    fn spaces_have_no_outline_and_letters_do() {
        let mut font = Font::new();
        let space = font.font.glyph_id(' ');
        let a = font.font.glyph_id('a');
        assert!(font.glyph(space).is_none());
        assert!(font.glyph(a).is_some());
    }
}
