//! The screen layer's cases: 200 shapes and 50 lines of text through Luau
//! against tiny-skia called directly, and 100 lines of text from the glyph
//! cache against outlines filled every frame.

use std::time::Duration;

use super::{TempGame, interleaved};
use moonloop::clock::ConstantClock;
use moonloop::engine::Engine;
use moonloop::error::Result;
use moonloop::lua::LuaGame;

const DRAWING: &str = r##"
local TEXT = "the quick brown fox jumps over the lazy dog"
return {
    render = function(state, scene, screen)
        for i = 1, 200 do
            local x, y = (i * 37) % 1200 + 0.5, (i * 53) % 660 + 0.25
            local kind = i % 3
            if kind == 0 then
                screen:rect(x, y, 40.5, 30.25, { fill = "#e04040" })
            elseif kind == 1 then
                screen:circle(x, y, 18.5, { fill = "#40a0e0" })
            else
                screen:polyline({ x, y, x + 30, y + 20, x + 10, y + 40, x + 45, y + 45 }, { color = "white", width = 3 })
            end
        end
        for i = 1, 50 do
            screen:text(TEXT, 20, i * 14, { size = 14, color = "#ffff80" })
        end
    end,
}
"##;

/// Draws the same frame as [`DRAWING`] with tiny-skia called from Rust.
fn draw_directly(
    pixmap: &mut tiny_skia::Pixmap,
    text: &mut (moonloop::text::Typesetter, moonloop::text::LayoutId),
) {
    use tiny_skia::{FillRule, Paint, PathBuilder, Rect, Stroke, Transform};
    pixmap.fill(tiny_skia::Color::BLACK);
    let paint = |r, g, b| {
        let mut p = Paint::default();
        p.set_color_rgba8(r, g, b, 255);
        p.anti_alias = true;
        p
    };
    let (red, blue, white, yellow) = (
        paint(224, 64, 64),
        paint(64, 160, 224),
        paint(255, 255, 255),
        paint(255, 255, 128),
    );
    let id = Transform::identity();
    for i in 1..=200 {
        let (x, y) = (
            ((i * 37) % 1200) as f32 + 0.5,
            ((i * 53) % 660) as f32 + 0.25,
        );
        match i % 3 {
            0 => {
                let path = PathBuilder::from_rect(Rect::from_xywh(x, y, 40.5, 30.25).unwrap());
                pixmap.fill_path(&path, &red, FillRule::Winding, id, None);
            }
            1 => {
                let path = PathBuilder::from_circle(x, y, 18.5).unwrap();
                pixmap.fill_path(&path, &blue, FillRule::Winding, id, None);
            }
            _ => {
                let mut pb = PathBuilder::new();
                pb.move_to(x, y);
                pb.line_to(x + 30.0, y + 20.0);
                pb.line_to(x + 10.0, y + 40.0);
                pb.line_to(x + 45.0, y + 45.0);
                let stroke = Stroke {
                    width: 3.0,
                    ..Stroke::default()
                };
                pixmap.stroke_path(&pb.finish().unwrap(), &white, &stroke, id, None);
            }
        }
    }
    // The text as the host drew it before its glyph cache: every glyph's
    // outline filled every frame.
    let (typesetter, layout) = text;
    for line in 1..=50 {
        typesetter.outlines(*layout, [20.0, line as f32 * 14.0], |path, t| {
            pixmap.fill_path(path, &yellow, FillRule::Winding, t, None);
        });
    }
}

/// The bench's line of text laid out at `size`, for drawing from outlines.
fn outlined_text(size: f32) -> (moonloop::text::Typesetter, moonloop::text::LayoutId) {
    let mut typesetter = moonloop::text::Typesetter::new();
    let layout = typesetter
        .layout(
            "the quick brown fox jumps over the lazy dog",
            &moonloop::text::TextStyle::plain(size),
        )
        .expect("the bench's text lays out");
    (typesetter, layout)
}

/// Times a frame of 200 shapes and 50 lines of text drawn through Luau
/// (record, then rasterize) against the same drawn by tiny-skia directly.
pub fn drawing_case() -> Result<(Duration, Duration)> {
    let mut pixmap = tiny_skia::Pixmap::new(1280, 720).expect("a 1280x720 pixmap");
    let mut text = outlined_text(14.0);
    let dir = TempGame::new("drawing", DRAWING)?;
    let game = LuaGame::load(&dir.0)?;
    let mut engine = moonloop::session::Session::new(Engine::new(
        game,
        Box::new(ConstantClock::new(1.0 / 60.0)),
    ));
    let [direct, through_luau] = interleaved(|case, n| {
        for _ in 0..n {
            if case == 0 {
                draw_directly(&mut pixmap, &mut text);
            } else {
                engine.advance(1).expect("the game runs");
                moonloop::compositor::screen_picture_into(engine.engine_mut(), &mut pixmap);
            }
        }
    });
    Ok((direct, through_luau))
}

const TEXT_LINES: &str = r##"
local LINES = {}
for i = 1, 100 do
    LINES[i] = string.format("%3d  the quick brown fox jumps over the lazy dog", i)
end
return {
    config = { width = 1280, height = 720 },
    render = function(state, scene, screen)
        for i = 1, 100 do
            screen:text(LINES[i], 20 + (i - 1) // 50 * 640, ((i - 1) % 50) * 14, { size = 12, color = "#ffff80" })
        end
    end,
}
"##;

/// Lays out [`TEXT_LINES`]' hundred lines on `typesetter`, each with where
/// it is drawn.
pub fn hundred_lines(
    typesetter: &mut moonloop::text::Typesetter,
) -> Vec<(moonloop::text::LayoutId, [f32; 2])> {
    (1..=100)
        .map(|i| {
            let line = format!("{i:3}  the quick brown fox jumps over the lazy dog");
            let at = [
                20.0 + ((i - 1) / 50 * 640) as f32,
                ((i - 1) % 50 * 14) as f32,
            ];
            let layout = typesetter
                .layout(&line, &moonloop::text::TextStyle::plain(12.0))
                .expect("the bench's text lays out");
            (layout, at)
        })
        .collect()
}

/// Times 100 lines of text at 1280x720 drawn through Luau (laid out once,
/// blended from the glyph cache) against the same layouts' outlines
/// filled by tiny-skia every frame, as the host drew text before H14.
pub fn text_case() -> Result<(Duration, Duration)> {
    let mut pixmap = tiny_skia::Pixmap::new(1280, 720).expect("a 1280x720 pixmap");
    let mut typesetter = moonloop::text::Typesetter::new();
    let layouts = hundred_lines(&mut typesetter);
    let mut paint = tiny_skia::Paint::default();
    paint.set_color_rgba8(255, 255, 128, 255);
    paint.anti_alias = true;
    let dir = TempGame::new("text", TEXT_LINES)?;
    let game = LuaGame::load(&dir.0)?;
    let mut engine = moonloop::session::Session::new(Engine::new(
        game,
        Box::new(ConstantClock::new(1.0 / 60.0)),
    ));
    let [outlines, cached] = interleaved(|case, n| {
        for _ in 0..n {
            if case == 0 {
                pixmap.fill(tiny_skia::Color::BLACK);
                for (layout, at) in &layouts {
                    typesetter.outlines(*layout, *at, |path, t| {
                        pixmap.fill_path(path, &paint, tiny_skia::FillRule::Winding, t, None);
                    });
                }
            } else {
                engine.advance(1).expect("the game runs");
                moonloop::compositor::screen_picture_into(engine.engine_mut(), &mut pixmap);
            }
        }
    });
    Ok((outlines, cached))
}
