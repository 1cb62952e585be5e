//! The "screen sprites" case (rule H15): 2,000 16x16 sprites from one sheet
//! and 100 lines of text at 1280x720, drawn through Luau, against the same
//! sprites drawn with one tiny-skia pattern fill each and the same text.

use std::time::Duration;

use super::{TempGame, interleaved};
use moonloop::clock::ConstantClock;
use moonloop::engine::Engine;
use moonloop::error::{Error, Result};
use moonloop::lua::LuaGame;

/// How many sprites the case draws.
const SPRITES: usize = 2_000;

pub(super) const GAME: &str = r##"
local SHEET = { image = "sheet.png", width = 16, height = 16 }
local SPRITES = {}
for i = 1, 2000 do
    SPRITES[i] = {
        x = (i * 37) % 1264,
        y = (i * 53) % 704,
        frame = 1 + i % 16,
        flip_x = i % 5 == 0,
    }
end
local LINES = {}
for i = 1, 100 do
    LINES[i] = string.format("%3d  the quick brown fox jumps over the lazy dog", i)
end
return {
    config = { width = 1280, height = 720 },
    render = function(state, scene, screen)
        screen:sprites(SHEET, SPRITES)
        for i = 1, 100 do
            screen:text(LINES[i], 20 + (i - 1) // 50 * 640, ((i - 1) % 50) * 14, { size = 12, color = "#ffff80" })
        end
    end,
}
"##;

/// A 64x64 sheet of sixteen 16x16 frames: anti-aliased discs of sixteen
/// colors, so every sprite has opaque, translucent and empty pixels.
pub(super) fn sheet() -> tiny_skia::Pixmap {
    let mut sheet = tiny_skia::Pixmap::new(64, 64).expect("a 64x64 pixmap");
    for frame in 0..16u8 {
        let (x, y) = (f32::from(frame % 4) * 16.0, f32::from(frame / 4) * 16.0);
        let mut paint = tiny_skia::Paint::default();
        paint.set_color_rgba8(80 + frame * 10, 255 - frame * 12, 120 + frame * 8, 255);
        paint.anti_alias = true;
        let circle = tiny_skia::PathBuilder::from_circle(x + 8.0, y + 8.0, 7.0).expect("a circle");
        sheet.fill_path(
            &circle,
            &paint,
            tiny_skia::FillRule::Winding,
            tiny_skia::Transform::identity(),
            None,
        );
    }
    sheet
}

/// Where sprite `i` (from 1) of [`GAME`] lands and which frame it shows.
fn placed(i: usize) -> (f32, f32, usize, bool) {
    (
        ((i * 37) % 1264) as f32,
        ((i * 53) % 704) as f32,
        i % 16,
        i.is_multiple_of(5),
    )
}

/// Times the case: returns (tiny-skia one call a sprite, through Luau).
pub fn case() -> Result<(Duration, Duration)> {
    use tiny_skia::{FilterQuality, Paint, Pattern, Rect, SpreadMode, Transform};
    let sheet = sheet();
    let dir = TempGame::new("sprites", GAME)?;
    let file = dir.0.join("sheet.png");
    let png = sheet
        .encode_png()
        .map_err(|e| Error::asset(format!("the bench's sheet does not encode: {e}")))?;
    std::fs::write(&file, png).map_err(|e| Error::io(&file, e))?;
    let mut pixmap = tiny_skia::Pixmap::new(1280, 720).expect("a 1280x720 pixmap");
    let mut typesetter = moonloop::text::Typesetter::new();
    let lines = super::screen_cases::hundred_lines(&mut typesetter);
    let game = LuaGame::load(&dir.0)?;
    let mut engine = moonloop::session::Session::new(Engine::new(
        game,
        Box::new(ConstantClock::new(1.0 / 60.0)),
    ));
    let yellow =
        moonloop::color::Rgba::parse("#ffff80").map_err(|r| Error::asset(String::from(r)))?;
    let [plain, ours] = interleaved(|case, n| {
        for _ in 0..n {
            if case == 1 {
                engine.advance(1).expect("the game runs");
                moonloop::compositor::screen_picture_into(engine.engine_mut(), &mut pixmap);
                continue;
            }
            pixmap.fill(tiny_skia::Color::BLACK);
            for i in 1..=SPRITES {
                let (x, y, frame, flip) = placed(i);
                let (fx, fy) = ((frame % 4 * 16) as f32, (frame / 4 * 16) as f32);
                let (kx, ox) = if flip { (-1.0, x + 16.0) } else { (1.0, x) };
                let pattern = Transform::from_row(kx, 0.0, 0.0, 1.0, ox - kx * fx, y - fy);
                let paint = Paint {
                    shader: Pattern::new(
                        sheet.as_ref(),
                        SpreadMode::Pad,
                        FilterQuality::Nearest,
                        1.0,
                        pattern,
                    ),
                    anti_alias: false,
                    ..Paint::default()
                };
                let rect = Rect::from_xywh(x, y, 16.0, 16.0).expect("a sprite's rectangle");
                pixmap.fill_rect(rect, &paint, Transform::identity(), None);
            }
            for (layout, at) in &lines {
                typesetter.draw(
                    &mut pixmap.as_mut(),
                    *layout,
                    *at,
                    yellow,
                    true,
                    Transform::identity(),
                    None,
                );
            }
        }
    });
    Ok((plain, ours))
}

/// Times the swarm example's frame (2,000 drones, a tilemap, text) at
/// 640x360: returns (update and render, the same and its picture drawn),
/// or `None` when the repository's games are not beside the binary.
pub fn swarm_case() -> Result<Option<(Duration, Duration)>> {
    let dir = super::repository().join("games/swarm");
    if !dir.join("main.luau").is_file() {
        return Ok(None);
    }
    let game = LuaGame::load(&dir)?;
    let mut engine = moonloop::session::Session::new(Engine::new(
        game,
        Box::new(ConstantClock::new(1.0 / 60.0)),
    ));
    let mut pixmap = tiny_skia::Pixmap::new(640, 360).expect("a 640x360 pixmap");
    let [headless, drawn] = interleaved(|case, n| {
        for _ in 0..n {
            engine.advance(1).expect("the game runs");
            if case == 1 {
                moonloop::compositor::screen_picture_into(engine.engine_mut(), &mut pixmap);
            }
        }
    });
    Ok(Some((headless, drawn)))
}
