//! The physics view (P9): the outlines of every body of the worlds in a
//! game's state, with what touches and what is joined, drawn over the
//! window on Shift+F1. A picture for the developer, like the overlay:
//! screenshots and recordings never take it.
//!
//! This module is the view's data and drawing only; finding the worlds
//! in a state is `physics::view`'s.

use tiny_skia::{Color, FillRule, Paint, PathBuilder, Pixmap, Stroke, StrokeDash, Transform};

use crate::viewport::Viewport;

/// How a body moves, which its outline's color says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Motion {
    Dynamic,
    Kinematic,
    Fixed,
}

/// A body's shape around its position, in logical pixels.
#[derive(Debug, Clone, PartialEq)]
pub enum Form {
    Circle(f32),
    /// Width and height.
    Box(f32, f32),
    /// Radius and the distance between its two centres (upright).
    Capsule(f32, f32),
    /// Points around the position; closed for a polygon.
    Points(Vec<(f32, f32)>, bool),
}

/// One body's outline.
#[derive(Debug, Clone, PartialEq)]
pub struct Outline {
    pub x: f32,
    pub y: f32,
    pub angle: f32,
    pub form: Form,
    pub motion: Motion,
    /// Touches without colliding (drawn dashed).
    pub sensor: bool,
    /// Touched another body in the last step (drawn red).
    pub touching: bool,
}

/// What the view draws.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Colliders {
    pub outlines: Vec<Outline>,
    /// Joints, from one anchor to the other, in logical pixels.
    pub joints: Vec<[f32; 4]>,
}

impl Colliders {
    /// Whether there is nothing to draw.
    pub fn is_empty(&self) -> bool {
        self.outlines.is_empty() && self.joints.is_empty()
    }
}

const DYNAMIC: (u8, u8, u8) = (0x7f, 0xd1, 0xff);
const KINEMATIC: (u8, u8, u8) = (0xff, 0xd2, 0x5e);
const FIXED: (u8, u8, u8) = (0x9a, 0xa5, 0xb1);
const TOUCHING: (u8, u8, u8) = (0xff, 0x5f, 0x5f);
const JOINT: (u8, u8, u8) = (0xff, 0xff, 0xff);

/// The path of `form` at the origin, unturned.
fn path(form: &Form) -> Option<tiny_skia::Path> {
    let mut p = PathBuilder::new();
    match form {
        Form::Circle(r) => {
            p.push_circle(0.0, 0.0, *r);
            // A radius, to show the turn.
            p.move_to(0.0, 0.0);
            p.line_to(*r, 0.0);
        }
        Form::Box(w, h) => {
            p.push_rect(tiny_skia::Rect::from_xywh(-w / 2.0, -h / 2.0, *w, *h)?);
        }
        Form::Capsule(r, length) => {
            let half = length / 2.0;
            p.push_circle(0.0, -half, *r);
            p.push_circle(0.0, half, *r);
            p.move_to(-r, -half);
            p.line_to(-r, half);
            p.move_to(*r, -half);
            p.line_to(*r, half);
        }
        Form::Points(points, closed) => {
            let (first, rest) = points.split_first()?;
            p.move_to(first.0, first.1);
            for q in rest {
                p.line_to(q.0, q.1);
            }
            if *closed {
                p.close();
            }
        }
    }
    p.finish()
}

/// Draws `colliders` onto `pixmap` (the window's surface), through
/// `viewport` from logical pixels, one device pixel wide.
pub fn draw(pixmap: &mut Pixmap, colliders: &Colliders, viewport: &Viewport) {
    let scale = viewport.width as f32 / viewport.logical.0.max(1) as f32;
    let place = Transform::from_row(scale, 0.0, 0.0, scale, viewport.x as f32, viewport.y as f32);
    let mut paint = Paint {
        anti_alias: true,
        ..Paint::default()
    };
    let solid = Stroke {
        width: 1.0 / scale,
        ..Stroke::default()
    };
    let dashed = Stroke {
        dash: StrokeDash::new(vec![4.0 / scale, 3.0 / scale], 0.0),
        ..solid.clone()
    };
    for o in &colliders.outlines {
        let Some(shape) = path(&o.form) else { continue };
        let (r, g, b) = if o.touching {
            TOUCHING
        } else {
            match o.motion {
                Motion::Dynamic => DYNAMIC,
                Motion::Kinematic => KINEMATIC,
                Motion::Fixed => FIXED,
            }
        };
        let at = place
            .pre_translate(o.x, o.y)
            .pre_rotate(o.angle.to_degrees());
        paint.set_color(Color::from_rgba8(r, g, b, 0x40));
        if !matches!(o.form, Form::Points(_, false)) {
            pixmap.fill_path(&shape, &paint, FillRule::Winding, at, None);
        }
        paint.set_color(Color::from_rgba8(r, g, b, 0xff));
        let stroke = if o.sensor { &dashed } else { &solid };
        pixmap.stroke_path(&shape, &paint, stroke, at, None);
    }
    paint.set_color(Color::from_rgba8(JOINT.0, JOINT.1, JOINT.2, 0xff));
    for &[x1, y1, x2, y2] in &colliders.joints {
        let mut p = PathBuilder::new();
        p.move_to(x1, y1);
        p.line_to(x2, y2);
        p.push_circle(x1, y1, 2.0);
        p.push_circle(x2, y2, 2.0);
        if let Some(line) = p.finish() {
            pixmap.stroke_path(&line, &paint, &solid, place, None);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pixel(p: &Pixmap, x: u32, y: u32) -> (u8, u8, u8, u8) {
        let c = p.pixel(x, y).unwrap().demultiply();
        (c.red(), c.green(), c.blue(), c.alpha())
    }

    // rule: P9
    #[test]
    fn outlines_land_through_the_viewport_colored_by_how_bodies_move() {
        // A 100x50 game letterboxed at 2x into 240x100: bars of 20 each side.
        let viewport = Viewport::fit((100, 50), (240, 100));
        assert_eq!((viewport.x, viewport.width), (20, 200));
        let mut pixmap = Pixmap::new(240, 100).unwrap();
        let colliders = Colliders {
            outlines: vec![
                Outline {
                    x: 50.0,
                    y: 40.0,
                    angle: 0.0,
                    form: Form::Box(100.0, 10.0),
                    motion: Motion::Fixed,
                    sensor: false,
                    touching: false,
                },
                Outline {
                    x: 20.0,
                    y: 20.0,
                    angle: 0.0,
                    form: Form::Circle(5.0),
                    motion: Motion::Dynamic,
                    sensor: false,
                    touching: true,
                },
            ],
            joints: vec![[70.0, 10.0, 90.0, 10.0]],
        };
        draw(&mut pixmap, &colliders, &viewport);
        // The floor's top edge, y = 35 logical = 70 device, x = 50 -> 120.
        let edge = pixel(&pixmap, 120, 70);
        let near = |c: (u8, u8, u8, u8), rgb: (u8, u8, u8)| {
            [(c.0, rgb.0), (c.1, rgb.1), (c.2, rgb.2)]
                .iter()
                .all(|(a, b)| a.abs_diff(*b) <= 4)
        };
        assert!(edge.3 > 0x80 && near(edge, FIXED), "{edge:?}");
        // Its inside is tinted, not filled.
        let inside = pixel(&pixmap, 120, 80);
        assert!(inside.3 > 0 && inside.3 < 0x80, "{inside:?}");
        // The ball touches: red, its right edge at x = 25 -> 70, y 20 -> 40.
        let ball = pixel(&pixmap, 70, 40);
        assert!(ball.3 > 0x40 && near(ball, TOUCHING), "{ball:?}");
        // A joint line in white at y = 10 -> 20, x = 80 -> 180.
        let joint = pixel(&pixmap, 180, 20);
        assert!(joint.3 > 0x40 && near(joint, JOINT), "{joint:?}");
        // The bars stay empty.
        assert_eq!(pixel(&pixmap, 5, 70).3, 0);
    }
}
