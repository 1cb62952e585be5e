//! The screen layer by pictures (rule H3): each case renders a small game
//! headlessly and compares the picture, exactly, with a checked-in PNG in
//! tests/images/screen/. tiny-skia is deterministic on the CPU, so there is
//! no tolerance.
//!
//! `MOONLOOP_BLESS=1 cargo test --test screen_pictures` writes missing or
//! changed references; look at every one before committing it.

mod common;

use std::path::Path;

use common::{assert_golden, game, picture};
use moonloop::ConstantClock;
use moonloop::Engine;
use moonloop::LuaGame;
use moonloop::session::Session;
use tiny_skia::Pixmap;

fn case(name: &str, body: &str) {
    assert_golden(name, &picture(body, (160, 120), &[]));
}

// rule: H3
#[test]
fn filled_shapes() {
    case(
        "shapes-filled",
        r##"
    screen:rect(8, 8, 40, 30, { fill = "#e04040" })
    screen:rect(56, 8, 40, 30, { fill = "#40c060", radius = 8 })
    screen:circle(124, 23, 15, { fill = "#4080f0" })
    screen:ellipse(28, 80, 20, 12, { fill = "yellow" })
    screen:polygon({ 60, 100, 80, 60, 100, 100 }, { fill = "orange" })
    screen:rect(112, 60, 36, 40)
"##,
    );
}

// rule: H3
#[test]
fn stroked_shapes_with_caps_joins_and_dashes() {
    case(
        "shapes-stroked",
        r##"
    screen:line(10, 15, 70, 15, { color = "white", width = 8, cap = "butt" })
    screen:line(10, 35, 70, 35, { color = "white", width = 8, cap = "round" })
    screen:line(10, 55, 70, 55, { color = "white", width = 8, cap = "square" })
    screen:polyline({ 90, 40, 110, 10, 130, 40 }, { color = "cyan", width = 6, join = "miter" })
    screen:polyline({ 90, 70, 110, 45, 130, 70 }, { color = "cyan", width = 6, join = "round" })
    screen:polyline({ 90, 100, 110, 75, 130, 100 }, { color = "cyan", width = 6, join = "bevel" })
    screen:rect(10, 75, 60, 35, { stroke = "#ff8080", width = 2, dash = { 6, 3 } })
    screen:circle(145, 95, 10, { fill = "#304060", stroke = "white", width = 2 })
"##,
    );
}

// rule: H3
#[test]
fn paths_with_curves() {
    case(
        "path",
        r##"
    screen:path({ "move", 10, 100, "line", 40, 20, "quad", 80, -10, 90, 60, "cubic", 100, 120, 140, 0, 150, 100, "close" },
        { fill = "#6040a0", stroke = "white", width = 2 })
"##,
    );
}

// rule: H3
#[test]
fn colors_in_every_form() {
    case(
        "colors",
        r##"
    local colors = { "#f00", "#00ff00", "#0000ff80", "teal", { 1, 0.5, 0, 1 }, { r = 0.5, g = 0.5, b = 1, a = 0.5 } }
    for i, c in colors do
        screen:rect(5 + (i - 1) * 25, 20, 22, 80, { fill = c })
    end
    screen:rect(0, 50, 160, 20, { fill = "#ffffff40" })
"##,
    );
}

// rule: H3
#[test]
fn linear_and_radial_gradients() {
    case(
        "gradients",
        r##"
    screen:rect(5, 5, 150, 50, { fill = { linear = { 5, 0, 155, 0 }, stops = { { 0, "red" }, { 0.5, "yellow" }, { 1, "blue" } } } })
    screen:circle(80, 88, 28, { fill = { radial = { 80, 88, 28 }, stops = { { 0, "white" }, { 1, "#20408000" } } } })
"##,
    );
}

// rule: H3
#[test]
fn global_and_style_alpha() {
    case(
        "alpha",
        r##"
    screen:rect(20, 20, 80, 80, { fill = "red" })
    screen:push()
    screen:alpha(0.5)
    screen:rect(60, 40, 80, 60, { fill = "blue" })
    screen:rect(40, 60, 40, 40, { fill = "lime", alpha = 0.5 })
    screen:pop()
    screen:rect(120, 10, 30, 30, { fill = "white" })
"##,
    );
}

// rule: H3
#[test]
fn transforms_stack() {
    case(
        "transforms",
        r##"
    screen:push()
    screen:translate(80, 60)
    for i = 0, 5 do
        screen:push()
        screen:rotate(i * math.pi / 3)
        screen:scale(1 + i * 0.1)
        screen:rect(10, -4, 30, 8, { fill = "#f0c040" })
        screen:pop()
    end
    screen:pop()
    screen:rect(2, 2, 12, 12, { fill = "white" })
"##,
    );
}

// rule: H3
#[test]
fn text_aligned_sized_and_colored() {
    case(
        "text",
        r##"
    screen:line(80, 0, 80, 120, { color = "#ffffff40" })
    screen:text("left", 80, 4, { size = 16 })
    screen:text("center", 80, 28, { size = 16, color = "#80ff80", align = "center" })
    screen:text("right", 80, 52, { size = 16, color = "#ff8080", align = "right" })
    screen:text("Big", 4, 70, { size = 40, color = "yellow" })
    local w, h = screen:measure("Big", 40)
    screen:rect(4, 70, w, h, { stroke = "cyan", width = 1 })
"##,
    );
}

/// A 32x16 sprite sheet: two 16x16 frames, each a 2x2 checker of colors.
fn sprite_sheet() -> Vec<u8> {
    let mut sheet = Pixmap::new(32, 16).unwrap();
    let colors = [[255, 0, 0], [255, 255, 0], [0, 160, 255], [255, 255, 255]];
    for frame in 0..2u32 {
        for cell in 0..4u32 {
            let [r, g, b] = colors[((cell + frame * 2) % 4) as usize];
            let rect = tiny_skia::Rect::from_xywh(
                (frame * 16 + (cell % 2) * 8) as f32,
                ((cell / 2) * 8) as f32,
                8.0,
                8.0,
            )
            .unwrap();
            let mut paint = tiny_skia::Paint::default();
            paint.set_color_rgba8(r, g, b, 255);
            sheet.fill_rect(rect, &paint, tiny_skia::Transform::identity(), None);
        }
    }
    sheet.encode_png().unwrap()
}

// rule: H3
#[test]
fn images_whole_cut_scaled_and_rotated() {
    let sheet = sprite_sheet();
    let pic = picture(
        r##"
    screen:image("sheet.png", 4, 4)
    screen:image("sheet.png", 44, 4, { source = { 16, 0, 16, 16 }, width = 48, height = 48, smooth = false })
    screen:image("sheet.png", 100, 4, { source = { 0, 0, 16, 16 }, width = 48, height = 48, smooth = true })
    screen:image("sheet.png", 20, 64, { source = { 0, 0, 16, 16 }, width = 40, height = 40, rotation = math.pi / 6, smooth = false })
    screen:image("sheet.png", 90, 70, { width = 64, height = 32, alpha = 0.5, smooth = false })
"##,
        (160, 120),
        &[("sheet.png", &sheet)],
    );
    assert_golden("images", &pic);
}

// rule: H3
#[test]
fn letterbox_on_wide_and_tall_surfaces() {
    let body = r##"
    screen:rect(0, 0, 160, 120, { fill = "#406080" })
    screen:circle(80, 60, 50, { fill = "white" })
    screen:rect(-40, 50, 240, 20, { fill = "red" }) -- reaches into the bars, clipped
"##;
    assert_golden("letterbox-wide", &picture(body, (320, 120), &[]));
    assert_golden("letterbox-tall", &picture(body, (160, 240), &[]));
    assert_golden("letterbox-scaled", &picture(body, (400, 300), &[]));
}

// rule: H3
#[test]
fn the_spinner_at_a_fixed_time() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("games/spinner");
    let game = LuaGame::load(&root).unwrap();
    let mut session = Session::new(Engine::new(game, Box::new(ConstantClock::new(1.0 / 60.0))));
    session.advance(30).unwrap(); // half a simulated second: 45 degrees
    assert_golden("spinner", &moonloop::screen_picture(session.engine_mut()));
}

#[test]
fn drawing_errors_name_the_call_and_the_argument() {
    let cases = [
        (
            "screen:rect(0, 0, -5, 10)",
            "screen:rect: `w` is -5; sizes are 0 or more",
        ),
        (
            "screen:circle(0 / 0, 0, 5)",
            "screen:circle: `x` is nan; it must be a finite number",
        ),
        (
            "screen:circle(0, 0, math.huge)",
            "screen:circle: `r` is inf; it must be a finite number",
        ),
        (
            "screen:rect(0, 0, 5, 5, { fill = \"#ggg\" })",
            "screen:rect: style.fill: `#ggg` is not a color",
        ),
        (
            "screen:rect(0, 0, 5, 5, { fil = \"red\" })",
            "screen:rect: a style has no `fil`",
        ),
        (
            "screen:text(\"hi\", 0, 0, { size = 1e9 })",
            "screen:text: `size` is 1000000000; text is at most 4096 pixels",
        ),
        (
            "screen:image(\"nope.png\", 0, 0)",
            "screen:image: no image `nope.png` in the game folder",
        ),
        (
            "screen:image(\"../secret.png\", 0, 0)",
            "screen:image: `../secret.png` is not a path inside the game folder",
        ),
        (
            "screen:image(\"main.luau\", 0, 0)",
            "screen:image: `main.luau` is not a PNG image",
        ),
        ("screen:pop()", "screen:pop: pop without a push"),
        (
            "screen:path({ \"line\", 1, 2 })",
            "screen:path: a path starts with a move",
        ),
        (
            "screen:polygon({ 1, 2 })",
            "screen:polygon: points are a flat list",
        ),
        (
            "screen:line(0, 0, 1, 1, { dash = { 0, 0 } })",
            "screen:line: style.dash needs an even number of lengths",
        ),
    ];
    for (call, message) in cases {
        let main = format!("return {{ render = function(state, scene, screen)\n  {call}\nend }}");
        let dir = game(&[("main.luau", &main)]);
        let mut session = Session::new(Engine::new(
            LuaGame::load(dir.path()).unwrap(),
            Box::new(ConstantClock::new(0.1)),
        ));
        let err = session.advance(1).unwrap_err().to_string();
        assert!(
            err.contains(&format!("main.luau:2: {message}")),
            "{call}: {err}"
        );
    }
}

// rule: H5
#[test]
fn the_overlay_with_a_wrapped_error_at_fixed_figures() {
    use moonloop::overlay::{Overlay, Stats};
    let mut overlay = Overlay::default();
    for k in 0..120 {
        // Frame times rising from 8 ms to 30 ms, for a graph with a shape.
        overlay.sample(0.008 + 0.022 * k as f64 / 119.0);
    }
    overlay.visible = true;
    let stats = Stats {
        frame_secs: 0.0123,
        dt: 1.0 / 60.0,
        frame: 4321,
        simulated: 72.0,
        wall: 73.5,
        recording: Some(("moonloop-recording-12.png".into(), 3)),
        speed: Some("speed x0.5".into()),
        sound: Some("ALSA default".into()),
        error: Some(
            "g/main.luau:12: update returned a state where state.enemies[3].think is a function (S5: a state is plain data: tables without metatables, strings, numbers, booleans, vectors)"
                .into(),
        ),
        timeline: None,
        net: Vec::new(),
    };
    let panel = overlay.draw(&stats, 1.0).unwrap().clone();
    assert_golden("overlay-error", &panel);
}

// rule: R2
#[test]
fn the_overlay_shows_history_as_a_timeline_the_mouse_can_scrub() {
    use moonloop::overlay::{Overlay, Stats};
    let mut overlay = Overlay::default();
    overlay.visible = true;
    let stats = Stats {
        frame: 1500,
        speed: Some("rewinding (let go of F9 to play on from here)".into()),
        timeline: Some(moonloop::overlay::Timeline {
            first: 600,
            last: 3600,
            shown: 1500,
            changed: Some(2400),
        }),
        ..Stats::default()
    };
    let panel = overlay.draw(&stats, 1.0).unwrap().clone();
    assert_golden("overlay-timeline", &panel);
    // The bar spans the panel less its margins, under the graph: its
    // left end is the oldest frame and its right end the last.
    let y = panel.height() as f32 - 16.0 + 5.0;
    assert_eq!(overlay.timeline_frame(6.0, y), Some(600));
    assert_eq!(overlay.timeline_frame(294.0, y), Some(3600));
    assert_eq!(overlay.timeline_frame(150.0, y), Some(2100));
    assert_eq!(overlay.timeline_frame(150.0, 2.0), None, "above the bar");
}

// rule: T3
#[test]
fn a_golden_picture_test_fails_on_one_pixel_and_passes_after_bless() {
    let main = "return {\n  config = { width = 64, height = 48, background = \"#202030\" },\n  init = function() return { x = 10 } end,\n  update = function(s) return { x = s.x + 1 } end,\n  render = function(s, scene, screen) screen:rect(s.x, 10, 20, 20, { fill = \"#e0a040\" }) end,\n}\n";
    let test = "test('the box', function()\n\tlocal e = engine.new()\n\te:advance(2)\n\texpect(e:picture():matches('tests/box.png')).is_true()\nend)\n";
    let dir = common::game(&[("g/main.luau", main), ("g/tests/look.luau", test)]);
    let run = |args: &[&str]| common::moonloop(&[&["test", "g"][..], args].concat(), dir.path());
    let first = run(&[]);
    assert_eq!(first.code, 1, "{}", first.stdout);
    assert!(
        first
            .stdout
            .contains("there is no golden `tests/box.png` yet"),
        "{}",
        first.stdout
    );
    let blessed = run(&["--bless"]);
    assert_eq!(blessed.code, 0, "{}", blessed.stdout);
    assert!(
        blessed.stdout.contains("blessed tests/box.png (new)"),
        "{}",
        blessed.stdout
    );
    assert_eq!(run(&[]).code, 0, "the golden holds");
    // The box one pixel to the right: two columns of 20 pixels change.
    std::fs::write(
        dir.path().join("g/main.luau"),
        main.replace("x = 10", "x = 11"),
    )
    .unwrap();
    let moved = run(&[]);
    assert_eq!(moved.code, 1, "{}", moved.stdout);
    assert!(
        moved.stdout.contains("differs at 40 pixels")
            && moved
                .stdout
                .contains("wrote `tests/box-actual.png` and `tests/box-difference.png`"),
        "{}",
        moved.stdout
    );
    assert!(dir.path().join("g/tests/box-actual.png").is_file());
    assert_eq!(run(&["--bless"]).code, 0);
    assert_eq!(run(&[]).code, 0, "blessed anew");
}
