//! Sprites and tilemaps by pictures (rule H15): each case renders one frame
//! headlessly and compares it, exactly, with a checked-in PNG in
//! tests/images/screen/. The sprite blit is our own integer code, so there
//! is no tolerance.
//!
//! `MOONLOOP_BLESS=1 cargo test --test sprite_pictures` writes missing or
//! changed references; look at every one before committing it.

mod common;

use common::{assert_golden, picture};
use tiny_skia::{Paint, Pixmap, Rect, Transform};

/// A 32x16 sheet of 8x8 frames: an "F" in four colors on the top row (so
/// flips show), then a solid, a half-transparent, a ringed and a dotted
/// tile on the bottom row.
fn sheet() -> Vec<u8> {
    let mut sheet = Pixmap::new(32, 16).unwrap();
    let mut put = |x: u32, y: u32, w: u32, h: u32, rgba: [u8; 4]| {
        let mut paint = Paint::default();
        paint.set_color_rgba8(rgba[0], rgba[1], rgba[2], rgba[3]);
        let rect = Rect::from_xywh(x as f32, y as f32, w as f32, h as f32).unwrap();
        sheet.fill_rect(rect, &paint, Transform::identity(), None);
    };
    let colors = [
        [255, 80, 80, 255],
        [255, 220, 60, 255],
        [80, 200, 255, 255],
        [240, 240, 240, 255],
    ];
    for (i, color) in colors.iter().enumerate() {
        let x = i as u32 * 8;
        put(x + 1, 1, 2, 6, *color); // the stem
        put(x + 3, 1, 4, 2, *color); // the top bar
        put(x + 3, 4, 3, 1, *color); // the middle bar
    }
    put(0, 8, 8, 8, [60, 160, 70, 255]);
    put(8, 8, 8, 8, [120, 60, 200, 128]);
    put(16, 8, 8, 8, [200, 150, 90, 255]);
    put(18, 10, 4, 4, [90, 60, 30, 255]);
    for i in 0..4 {
        put(24 + i * 2, 8 + i * 2, 1, 1, [255, 255, 255, 255]);
    }
    sheet.encode_png().unwrap()
}

fn sprites_picture(body: &str, surface: (u32, u32)) -> Pixmap {
    let body =
        format!("    local sheet = {{ image = \"sheet.png\", width = 8, height = 8 }}\n{body}");
    picture(&body, surface, &[("sheet.png", &sheet())])
}

// rule: H15
#[test]
fn sprites_flipped_tinted_faded_scaled_and_cut_from_frames() {
    let pic = sprites_picture(
        r##"
    screen:sprite(sheet, 1, 4, 4)
    screen:sprite(sheet, 2, 16, 4, { flip_x = true })
    screen:sprite(sheet, 3, 28, 4, { flip_y = true })
    screen:sprite(sheet, 4, 40, 4, { flip_x = true, flip_y = true })
    screen:sprite(sheet, 1, 52, 4, { scale = 3 })
    screen:sprite(sheet, 4, 80, 4, { scale = { 2, 4 }, tint = "#ff8040" })
    screen:sprite(sheet, 6, 100, 4, { scale = 2 })
    screen:sprite(sheet, 4, 104, 8, { scale = 2, alpha = 0.5 })
    local named = { image = "sheet.png", frames = { pair = { 0, 0, 16, 8 }, ring = { 16, 8, 8, 8 } } }
    screen:sprite(named, "pair", 124, 4, { scale = 2 })
    screen:sprite(named, "ring", 124, 24, { scale = 1.5 })
    local batch = {}
    for i = 0, 11 do
        batch[#batch + 1] = {
            x = 4 + i * 12,
            y = 44 + (i % 3) * 4,
            frame = 1 + i % 4,
            flip_x = i % 2 == 1,
            alpha = 0.25 + (i % 4) * 0.25,
            tint = if i >= 8 then "#60ff60" else nil,
        }
    end
    screen:sprites(sheet, batch)
    screen:push()
    screen:translate(40, 90)
    screen:rotate(math.pi / 6)
    screen:sprite(sheet, 1, -8, -8, { scale = 2 })
    screen:pop()
    screen:push()
    screen:translate(80.5, 80.25)
    screen:sprite(sheet, 2, 0, 0, { scale = 1.5 })
    screen:pop()
    screen:alpha(0.5)
    screen:sprite(sheet, 5, 120, 80, { scale = 4 })
"##,
        (160, 120),
    );
    assert_golden("sprites", &pic);
}

// rule: H15
#[test]
fn a_tilemap_skips_zeros_and_lays_tiles_on_the_grid() {
    let pic = sprites_picture(
        r##"
    local map = {
        5, 5, 5, 5, 5, 5, 5, 5, 5, 5,
        5, 0, 0, 0, 7, 0, 0, 0, 0, 5,
        5, 0, 8, 0, 0, 0, 6, 6, 0, 5,
        5, 0, 0, 0, 7, 0, 6, 6, 0, 5,
        5, 5, 5, 5, 5, 5, 5, 5, 5, 5,
    }
    screen:tiles(sheet, map, 10, 0, 0, { scale = 2 })
    screen:tiles(sheet, { 1, 2, 3, 4 }, 2, 8, 84, { tint = "#ffffff80" })
"##,
        (160, 120),
    );
    assert_golden("tilemap", &pic);
}

// rule: H15
#[test]
fn sprites_stay_inside_the_letterbox() {
    let pic = sprites_picture(
        r##"
    screen:sprite(sheet, 5, -20, -10, { scale = 8 })
    screen:sprite(sheet, 7, 120, 60, { scale = 8 })
"##,
        (240, 120),
    );
    assert_golden("sprites-letterboxed", &pic);
}

// rule: H15
#[test]
fn sprite_mistakes_name_the_call_and_the_problem() {
    let prelude = "local sheet = { image = \"sheet.png\", width = 8, height = 8 }\n";
    for (body, expected) in [
        (
            "screen:sprite(sheet, 9, 0, 0)",
            "screen:sprite: frame 9 is not in the sheet (its frames are 1 to 8)",
        ),
        (
            "screen:sprite({ image = \"sheet.png\", width = 0, height = 8 }, 1, 0, 0)",
            "screen:sprite: sheet `width` is 0",
        ),
        (
            "screen:sprite({ image = \"sheet.png\" }, 1, 0, 0)",
            "screen:sprite: the sheet needs width",
        ),
        (
            "screen:sprite({ image = \"../sheet.png\", width = 8, height = 8 }, 1, 0, 0)",
            "screen:sprite: `../sheet.png` is not a path inside the game folder",
        ),
        (
            "screen:sprite({ image = \"sheet.png\", widht = 8, height = 8 }, 1, 0, 0)",
            "screen:sprite: a sheet has no field `widht`",
        ),
        (
            "screen:sprite({ image = 5, width = 8, height = 8 }, 1, 0, 0)",
            "screen:sprite: sheet.image should be a file name",
        ),
        (
            "screen:sprite(sheet, 1, 0, 0, { flip = true })",
            "screen:sprite: no option `flip`",
        ),
        (
            "screen:sprite(sheet, 1, 0, 0, { scale = -1 })",
            "screen:sprite: `scale` is -1, -1; scales are 0 or more",
        ),
        (
            "screen:sprites(sheet, { { x = 0, y = 0 }, { x = 1, y = 0, frmae = 2 } })",
            "screen:sprites: a sprite has no field `frmae`",
        ),
        (
            "screen:sprites(sheet, { { x = 0, y = 0 }, 7 })",
            "screen:sprites: sprite 2 should be a table",
        ),
        (
            "screen:sprites(sheet, { { x = 0 / 0, y = 0 } })",
            "screen:sprites: sprite 1: `x` is nan",
        ),
        (
            "screen:sprite({ image = \"sheet.png\", frames = { a = { 0, 0, 8, 8 } } }, \"b\", 0, 0)",
            "screen:sprite: the sheet has no frame `b`",
        ),
        (
            "screen:sprite({ image = \"sheet.png\", frames = { a = { 24, 8, 16, 8 } } }, \"a\", 0, 0)",
            "screen:sprite: the frame 24, 8, 16, 8 is not whole pixels inside the 32x16 image",
        ),
        (
            "screen:sprites(sheet, table.create(2 ^ 19, 0))",
            "screen:sprites: a batch holds at most 262144 sprites (H10); this one has 524288",
        ),
        (
            "screen:tiles(sheet, { 1, 2, 99 }, 2, 0, 0)",
            "screen:tiles: tile 3: frame 99 is not in the sheet",
        ),
        (
            "screen:tiles(sheet, { 1 }, 0, 0, 0)",
            "screen:tiles: `columns` is 0",
        ),
        (
            "screen:tiles(sheet, { 1 }, 1, 0, 0, { flip_x = true })",
            "screen:tiles: no option `flip_x`",
        ),
        (
            "for i = 1, 300 do screen:sprite(sheet, 1, 0, 0, { scale = 20 }) end",
            "screen:sprite: this frame's drawing covers the screen more than 256 times over (H10",
        ),
    ] {
        let main = format!(
            "return {{\n  config = {{ width = 160, height = 120 }},\n  render = function(state, scene, screen)\n    {prelude}    {body}\n  end,\n}}\n"
        );
        let message = frame_error_with(&main, &[("sheet.png", &sheet())]);
        assert!(
            message.contains(expected),
            "`{body}` gave `{message}`, not `{expected}`"
        );
        assert!(
            message.contains("main.luau:5:"),
            "`{message}` names no line"
        );
    }
}

/// Runs one frame of `main` (with `extra` files) and returns its error.
fn frame_error_with(main: &str, extra: &[(&str, &[u8])]) -> String {
    let dir = common::game(&[("main.luau", main)]);
    for (name, bytes) in extra {
        std::fs::write(dir.path().join(name), bytes).unwrap();
    }
    let mut session = common::session(dir.path());
    session.advance(1).expect_err("the frame fails").to_string()
}

// rule: H15
#[test]
fn a_frame_drawn_in_bands_matches_its_serial_twin_byte_for_byte() {
    // Thousands of sprites at every scale, flip, tint and a rotation, and
    // text from the glyph cache, straddling band edges, over a shape
    // tiny-skia draws; on letterboxed surfaces too (the clip mask).
    let main = r##"
local sheet = { image = "sheet.png", width = 8, height = 8 }
local batch = {}
for i = 1, 3000 do
    batch[i] = {
        x = (i * 37) % 330 - 10,
        y = (i * 53) % 250 - 10,
        frame = 1 + i % 8,
        scale = 0.5 + (i % 7) * 0.75,
        flip_x = i % 3 == 0,
        flip_y = i % 5 == 0,
        alpha = 0.2 + (i % 4) * 0.25,
        tint = if i % 2 == 0 then "#80ff80c0" else nil,
    }
end
return {
  config = { width = 320, height = 240, background = "#202830" },
  render = function(state, scene, screen)
    screen:circle(160, 120, 90, { fill = "#e0404080" })
    screen:sprites(sheet, batch)
    screen:text("drawn in bands", 10, 110, { size = 20 })
    for i = 1, 24 do
        screen:text("line " .. i .. " of text, crossing the bands", (i * 13) % 90 - 20, i * 9.5, {
            size = 6 + i % 9,
            color = if i % 3 == 0 then "#ffd25e80" else "white",
            smooth = i % 4 ~= 0,
        })
    end
    screen:push()
    screen:translate(160, 120)
    screen:rotate(0.3)
    screen:sprites(sheet, batch)
    screen:pop()
  end,
}
"##;
    let dir = common::game(&[("main.luau", main)]);
    std::fs::write(dir.path().join("sheet.png"), sheet()).unwrap();
    let picture = |bands: usize, surface: (u32, u32)| {
        let mut session = common::session(dir.path());
        session.engine_mut().set_surface(surface.0, surface.1);
        session.engine_mut().layers().0.set_bands(bands);
        // A debug build on a slow machine may pass the one-second bound
        // (H9), which would cut the bands and the serial picture apart.
        session
            .engine_mut()
            .layers()
            .0
            .set_time_limit(std::time::Duration::from_secs(600));
        session.advance(1).unwrap();
        moonloop::screen_picture(session.engine_mut())
    };
    for surface in [(320, 240), (1000, 577), (64, 700)] {
        let serial = picture(1, surface);
        for bands in [2, 3, 8] {
            assert!(
                picture(bands, surface).data() == serial.data(),
                "{bands} bands at {surface:?} differ from the serial picture"
            );
        }
    }
}
