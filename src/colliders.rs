//! The physics view (P9): the outlines of every body of the worlds in a
//! game's state, with what touches and what is joined, drawn over the
//! window on Shift+F1. A picture for the developer, like the overlay:
//! screenshots and recordings never take it.
//!
//! This module is the view's data and drawing only; finding the worlds
//! in a state is `physics::view`'s.

use glam::{Mat4, Vec3, Vec4};
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

/// One line of a 3D body's wireframe (P10), in world units: drawn
/// through the camera the scene was last seen through.
#[derive(Debug, Clone, PartialEq)]
pub struct Wire {
    pub points: Vec<Vec3>,
    pub closed: bool,
    pub motion: Motion,
    pub sensor: bool,
    pub touching: bool,
}

/// What the view draws.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Colliders {
    pub outlines: Vec<Outline>,
    /// Joints, from one anchor to the other, in logical pixels.
    pub joints: Vec<[f32; 4]>,
    /// The wireframes of the bodies of 3D worlds.
    pub wires: Vec<Wire>,
    /// Joints of 3D worlds, from one anchor to the other.
    pub joints3: Vec<[Vec3; 2]>,
    /// World to clip space, as the scene was last seen (a frame's step
    /// 7); without it, 3D worlds are not drawn.
    pub camera: Option<Mat4>,
}

impl Colliders {
    /// Whether there is nothing to draw.
    pub fn is_empty(&self) -> bool {
        self.outlines.is_empty()
            && self.joints.is_empty()
            && self.wires.is_empty()
            && self.joints3.is_empty()
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
        let (r, g, b) = color(o.motion, o.touching);
        let at = place
            .pre_translate(o.x, o.y)
            .pre_rotate(o.angle.to_degrees());
        // A faint tint (a tenth), so what the game drew shows through it,
        // and through the overlaps of a crowd of bodies.
        paint.set_color(Color::from_rgba8(r, g, b, 0x1a));
        if !matches!(o.form, Form::Points(_, false)) {
            pixmap.fill_path(&shape, &paint, FillRule::Winding, at, None);
        }
        paint.set_color(Color::from_rgba8(r, g, b, 0xff));
        let stroke = if o.sensor { &dashed } else { &solid };
        pixmap.stroke_path(&shape, &paint, stroke, at, None);
    }
    if let Some(camera) = colliders.camera {
        let logical = (viewport.logical.0 as f32, viewport.logical.1 as f32);
        for wire in &colliders.wires {
            let Some(line) = projected(&wire.points, wire.closed, camera, logical) else {
                continue;
            };
            let (r, g, b) = color(wire.motion, wire.touching);
            paint.set_color(Color::from_rgba8(r, g, b, 0xff));
            let stroke = if wire.sensor { &dashed } else { &solid };
            pixmap.stroke_path(&line, &paint, stroke, place, None);
        }
    }
    paint.set_color(Color::from_rgba8(JOINT.0, JOINT.1, JOINT.2, 0xff));
    let logical = (viewport.logical.0 as f32, viewport.logical.1 as f32);
    let seen = colliders.camera.into_iter().flat_map(|camera| {
        colliders.joints3.iter().filter_map(move |&[a, b]| {
            let (a, b) = clipped(camera * a.extend(1.0), camera * b.extend(1.0))?;
            let (a, b) = (on_screen(a, logical), on_screen(b, logical));
            Some([a.0, a.1, b.0, b.1])
        })
    });
    for [x1, y1, x2, y2] in colliders.joints.iter().copied().chain(seen) {
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

/// An outline's color: how its body moves, or red while it touches.
fn color(motion: Motion, touching: bool) -> (u8, u8, u8) {
    if touching {
        return TOUCHING;
    }
    match motion {
        Motion::Dynamic => DYNAMIC,
        Motion::Kinematic => KINEMATIC,
        Motion::Fixed => FIXED,
    }
}

/// The part of the segment from `a` to `b` (clip space) in front of the
/// near plane, where depth is 0 (wgpu's clip space): a line through the
/// camera's own position would otherwise flip to the far side.
fn clipped(a: Vec4, b: Vec4) -> Option<(Vec4, Vec4)> {
    const NEAR: f32 = 1e-5;
    match (a.z >= NEAR, b.z >= NEAR) {
        (true, true) => Some((a, b)),
        (false, false) => None,
        (front, _) => {
            let t = (NEAR - a.z) / (b.z - a.z);
            let cut = a + (b - a) * t;
            Some(if front { (a, cut) } else { (cut, b) })
        }
    }
}

/// A clip-space point on the game's screen of `logical` size.
fn on_screen(p: Vec4, logical: (f32, f32)) -> (f32, f32) {
    let w = p.w.max(1e-6);
    (
        (p.x / w + 1.0) * 0.5 * logical.0,
        (1.0 - p.y / w) * 0.5 * logical.1,
    )
}

/// The wire through `points` (world space) as seen through `camera`, in
/// the game's logical pixels, the parts behind the camera left out.
fn projected(
    points: &[Vec3],
    closed: bool,
    camera: Mat4,
    logical: (f32, f32),
) -> Option<tiny_skia::Path> {
    let clip: Vec<Vec4> = points.iter().map(|p| camera * p.extend(1.0)).collect();
    let ends = if closed {
        clip.len()
    } else {
        clip.len().saturating_sub(1)
    };
    let mut p = PathBuilder::new();
    let mut last: Option<(f32, f32)> = None;
    for i in 0..ends {
        let Some((a, b)) = clipped(clip[i], clip[(i + 1) % clip.len()]) else {
            last = None;
            continue;
        };
        let (a, b) = (on_screen(a, logical), on_screen(b, logical));
        if last != Some(a) {
            p.move_to(a.0, a.1);
        }
        p.line_to(b.0, b.1);
        last = Some(b);
    }
    p.finish()
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
            ..Colliders::default()
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

    // rule: P9, P10
    #[test]
    fn wires_are_seen_through_the_camera_and_what_is_behind_it_is_cut() {
        use glam::camera::rh::proj::directx::perspective;
        use glam::camera::rh::view::look_at_mat4;
        let viewport = Viewport::whole((100, 100), (100, 100));
        // A camera at z = 5 looking at the origin, 90 degrees high.
        let camera = perspective(std::f32::consts::FRAC_PI_2, 1.0, 0.1, 100.0)
            * look_at_mat4(Vec3::new(0.0, 0.0, 5.0), Vec3::ZERO, Vec3::Y);
        let wire = |points: Vec<Vec3>| Wire {
            points,
            closed: false,
            motion: Motion::Fixed,
            sensor: false,
            touching: false,
        };
        let colliders = Colliders {
            // Across the middle at the origin (5 away: half the view is 5
            // high, so x = 2.5 is three quarters across); and a line from
            // (0, -2.5, 0) to behind the camera, which it passes at its
            // left: seen, it runs left along y = 75 (its height over its
            // depth stays -0.5); drawn uncut, it would turn up-left.
            wires: vec![
                wire(vec![Vec3::new(-2.5, 0.0, 0.0), Vec3::new(2.5, 0.0, 0.0)]),
                wire(vec![Vec3::new(0.0, -2.5, 0.0), Vec3::new(-2.0, 2.5, 10.0)]),
            ],
            camera: Some(camera),
            ..Colliders::default()
        };
        let mut pixmap = Pixmap::new(100, 100).unwrap();
        draw(&mut pixmap, &colliders, &viewport);
        assert!(pixel(&pixmap, 50, 50).3 > 0x40);
        assert!(pixel(&pixmap, 30, 50).3 > 0x40);
        assert_eq!(pixel(&pixmap, 10, 50).3, 0);
        assert!(pixel(&pixmap, 20, 75).3 > 0x40);
        for x in 0..100 {
            for y in (55..=70).chain(80..100) {
                assert_eq!(pixel(&pixmap, x, y).3, 0, "({x}, {y})");
            }
        }
        // Without a camera (no frame yet), 3D wires are not drawn.
        let mut blank = Pixmap::new(100, 100).unwrap();
        draw(
            &mut blank,
            &Colliders {
                camera: None,
                ..colliders
            },
            &viewport,
        );
        assert!(blank.pixels().iter().all(|p| p.alpha() == 0));
    }
}
