//! Whole-pixel scaling (rule V1, docs/window.md): under
//! `config.scaling = "whole"` a window shows the game at the largest whole
//! scale that fits, each logical pixel a square of whole window pixels
//! with no blur, bars around it in the background's color; fit scaling
//! draws at the window's resolution instead. Rendered headlessly on the
//! software adapter, as the window's view is.

mod common;

use std::sync::Mutex;

use common::game;
use moonloop::session::Session;
use moonloop::{Compositor, ConstantClock, Engine, LuaGame};
use tiny_skia::Pixmap;

static RENDERER: Mutex<Option<Compositor>> = Mutex::new(None);

/// A 32x18 game: a circle, a rectangle at a fractional place, a line of
/// text and a lit cube in the scene, on a dark blue background.
fn pixel_game(scaling: &str) -> String {
    format!(
        r##"
return {{
    config = {{ width = 32, height = 18, background = "#102040", scaling = "{scaling}" }},
    init = function() return {{}} end,
    update = function(state) return state end,
    render = function(state, scene, screen)
        scene:camera({{ position = {{ 0, 0, 3 }}, target = {{ 0, 0, 0 }} }})
        scene:object("box", {{ mesh = "cube", color = {{ 0.9, 0.6, 0.2 }}, rotation = {{ 0.4, 0.6, 0 }} }})
        screen:circle(8, 9, 5.5, {{ fill = "white" }})
        screen:rect(20.3, 2.6, 7.5, 4.2, {{ fill = "#e04040" }})
        screen:text("ab", 18, 10, {{ size = 7, color = "yellow" }})
    end,
}}
"##
    )
}

/// The view a window of `surface` pixels presents, and the frame's
/// picture at the logical size.
fn draw(main: &str, surface: (u32, u32), scaling: Option<&str>) -> (Pixmap, Pixmap) {
    let dir = game(&[("main.luau", main)]);
    let loaded = LuaGame::load(dir.path()).unwrap();
    let mut session = Session::new(Engine::new(
        loaded,
        Box::new(ConstantClock::new(1.0 / 60.0)),
    ));
    session
        .engine_mut()
        .set_scaling(scaling.and_then(moonloop::Scaling::parse));
    session.engine_mut().set_surface(surface.0, surface.1);
    session.advance(1).unwrap();
    let mut guard = RENDERER.lock().unwrap_or_else(|e| e.into_inner());
    let compositor =
        guard.get_or_insert_with(|| Compositor::headless().unwrap_or_else(|e| panic!("{e}")));
    compositor.draw(session.engine_mut());
    let view = compositor.read_view();
    let (picture, fault) = compositor.picture(session.engine_mut(), None);
    assert!(fault.is_none());
    (view, picture)
}

fn pixel(p: &Pixmap, x: u32, y: u32) -> [u8; 4] {
    let c = p.pixel(x, y).unwrap();
    [c.red(), c.green(), c.blue(), c.alpha()]
}

/// How many of the view's `scale`-sided squares inside `(x0, y0)` hold
/// more than one color.
fn mixed_squares(view: &Pixmap, x0: u32, y0: u32, scale: u32, logical: (u32, u32)) -> usize {
    let mut mixed = 0;
    for ly in 0..logical.1 {
        for lx in 0..logical.0 {
            let first = pixel(view, x0 + lx * scale, y0 + ly * scale);
            let same = (0..scale).all(|dy| {
                (0..scale)
                    .all(|dx| pixel(view, x0 + lx * scale + dx, y0 + ly * scale + dy) == first)
            });
            mixed += usize::from(!same);
        }
    }
    mixed
}

// rule: V1
#[test]
fn whole_scaling_shows_each_logical_pixel_as_a_square_of_whole_pixels() {
    // V1: 137x80 holds 32x18 four times (128x72), centered: bars of 4 and
    // 5 pixels left and right, 4 top and bottom.
    let (view, picture) = draw(&pixel_game("whole"), (137, 80), None);
    assert_eq!((picture.width(), picture.height()), (32, 18));
    assert_eq!(mixed_squares(&view, 4, 4, 4, (32, 18)), 0);
    for ly in 0..18 {
        for lx in 0..32 {
            assert_eq!(
                pixel(&view, 4 + lx * 4, 4 + ly * 4),
                pixel(&picture, lx, ly),
                "the square at {lx},{ly} is the picture's pixel"
            );
        }
    }
    let background = [0x10, 0x20, 0x40, 255];
    for (x, y) in [(0, 0), (3, 40), (132, 40), (136, 79), (60, 2), (60, 77)] {
        assert_eq!(pixel(&view, x, y), background, "the bar at {x},{y}");
    }
    // The picture holds the circle's antialiased edge, the scene and the
    // text: more than two colors, so the squares above were tested on
    // something.
    let mut colors: Vec<[u8; 4]> = (0..18)
        .flat_map(|y| (0..32).map(move |x| (x, y)))
        .map(|(x, y)| pixel(&picture, x, y))
        .collect();
    colors.sort();
    colors.dedup();
    assert!(colors.len() > 8, "{} colors", colors.len());
}

// rule: V1
#[test]
fn fit_scaling_draws_at_the_windows_resolution() {
    // The same game under fit scaling on the same window: 137x80 fits
    // 32x18 at 4.28x (137x77), drawn there, so edges fall inside squares.
    let (view, _) = draw(&pixel_game("fit"), (137, 80), None);
    assert!(mixed_squares(&view, 0, 1, 4, (32, 18)) > 20);
    // The player's --scaling whole wins over the game's fit.
    let (view, _) = draw(&pixel_game("fit"), (137, 80), Some("whole"));
    assert_eq!(mixed_squares(&view, 4, 4, 4, (32, 18)), 0);
}

// rule: V1
#[test]
fn pointers_land_on_the_logical_pixel_under_them() {
    // V1: input maps through the same whole-scale viewport the view shows.
    let main = r#"return { config = { width = 32, height = 18, scaling = "whole" } }"#;
    let dir = game(&[("main.luau", main)]);
    let loaded = LuaGame::load(dir.path()).unwrap();
    let mut session = Session::new(Engine::new(
        loaded,
        Box::new(ConstantClock::new(1.0 / 60.0)),
    ));
    session.engine_mut().set_surface(137, 80);
    let v = *session.engine().viewport();
    assert_eq!((v.x, v.y, v.width, v.height), (4, 4, 128, 72));
    assert_eq!(
        v.to_logical((4.0 + 4.0 * 10.0 + 1.0, 4.0 + 4.0 * 3.0)),
        Some((10.25, 3.0))
    );
    assert_eq!(v.to_logical((2.0, 40.0)), None, "in a bar");
}

// rule: V1
#[test]
fn a_bad_scaling_or_scale_is_named() {
    for (config, want) in [
        (
            r#"scaling = "big""#,
            r#"config.scaling should be "fit" (as large as fits) or "whole""#,
        ),
        (
            "scale = 0",
            "config.scale should be a whole number from 1 to 16",
        ),
        (
            "scale = 2.5",
            "config.scale should be a whole number from 1 to 16",
        ),
        (
            "scale = 17",
            "config.scale should be a whole number from 1 to 16",
        ),
    ] {
        let main =
            format!("return {{ config = {{ {config} }}, init = function() return {{}} end }}");
        let dir = game(&[("main.luau", &main)]);
        let Err(err) = LuaGame::load(dir.path()) else {
            panic!("{config} loads")
        };
        let err = err.to_string();
        assert!(err.contains(want), "{config}: {err}");
    }
    let main =
        r#"return { config = { scaling = "whole", scale = 4 }, init = function() return {} end }"#;
    let dir = game(&[("main.luau", main)]);
    let loaded = LuaGame::load(dir.path()).unwrap();
    use moonloop::Game as _;
    assert_eq!(loaded.config().scale, 4);
    assert_eq!(loaded.config().scaling, moonloop::Scaling::Whole);
}
