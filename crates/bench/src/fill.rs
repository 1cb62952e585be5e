//! The "screen fill" case: a background filling the layer and 40 panels
//! on whole pixels (half of them translucent) at 1280x720, drawn through
//! Luau (blended directly), against tiny-skia filling the same paths.

use std::time::Duration;

use super::{TempGame, interleaved};
use moonloop::clock::ConstantClock;
use moonloop::engine::Engine;
use moonloop::error::Result;
use moonloop::lua::LuaGame;

const GAME: &str = r##"
return {
    config = { width = 1280, height = 720 },
    render = function(state, scene, screen)
        screen:rect(0, 0, 1280, 720, { fill = "#203040" })
        for i = 1, 40 do
            screen:rect((i * 97) % 1000, (i * 61) % 560, 240, 140, { fill = if i % 2 == 0 then "#e0a040" else "#40a0e080" })
        end
    end,
}
"##;

/// Times the case: returns (tiny-skia, through Luau).
pub fn case() -> Result<(Duration, Duration)> {
    use tiny_skia::{Color, FillRule, Paint, PathBuilder, Rect, Shader, Transform};
    let dir = TempGame::new("fill", GAME)?;
    let game = LuaGame::load(&dir.0)?;
    let mut engine = moonloop::session::Session::new(Engine::new(
        game,
        Box::new(ConstantClock::new(1.0 / 60.0)),
    ));
    let mut pixmap = tiny_skia::Pixmap::new(1280, 720).expect("a 1280x720 pixmap");
    let paint = |c: Color| Paint {
        shader: Shader::SolidColor(c),
        anti_alias: true,
        ..Paint::default()
    };
    let background = paint(Color::from_rgba8(0x20, 0x30, 0x40, 255));
    let (orange, blue) = (
        paint(Color::from_rgba8(0xe0, 0xa0, 0x40, 255)),
        paint(Color::from_rgba8(0x40, 0xa0, 0xe0, 0x80)),
    );
    let [plain, ours] = interleaved(|case, n| {
        for _ in 0..n {
            if case == 1 {
                engine.advance(1).expect("the game runs");
                moonloop::compositor::screen_picture_into(engine.engine_mut(), &mut pixmap);
                continue;
            }
            pixmap.fill(Color::BLACK);
            let whole =
                PathBuilder::from_rect(Rect::from_xywh(0.0, 0.0, 1280.0, 720.0).expect("a rect"));
            pixmap.fill_path(
                &whole,
                &background,
                FillRule::Winding,
                Transform::identity(),
                None,
            );
            for i in 1..=40u32 {
                let rect = Rect::from_xywh(
                    ((i * 97) % 1000) as f32,
                    ((i * 61) % 560) as f32,
                    240.0,
                    140.0,
                )
                .expect("a rect");
                let path = PathBuilder::from_rect(rect);
                let p = if i % 2 == 0 { &orange } else { &blue };
                pixmap.fill_path(&path, p, FillRule::Winding, Transform::identity(), None);
            }
        }
    });
    Ok((plain, ours))
}
