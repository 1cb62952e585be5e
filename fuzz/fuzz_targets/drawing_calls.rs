//! Screen and scene calls from Luau with arbitrary arguments, one a frame:
//! each is drawn or refused with a named error in the author's terms (the
//! call's name and the author's line), and rasterizing never panics.
//!
//! The vocabulary covers every screen and scene call: shapes, style
//! tables with gradients and dashes, polygons, polylines, paths, text,
//! images with source rectangles, sprites, batches and tilemaps from
//! sheets, transforms, objects with every property, the camera and lights.
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use moonloop::{ConstantClock, Engine, LuaGame};

const VALUES: &[&str] = &[
    "0", "1", "-1", "0.5", "1e9", "-1e9", "0/0", "math.huge", "-math.huge", "100", "'red'",
    "'#fff8'", "nil", "{}", "{1, 2, 3, 4}", "vector.create(1, 2, 3)", "'cube'", "'x'", "true",
    "{ 1, 0.5, 0, 1 }", "'dot.png'", "'../dot.png'", "'tri.gltf'", "{ 0, 0, 1, 1 }",
    "{ fill = 'red', stroke = 'blue', width = 3 }",
    "{ fill = { linear = { 0, 0, 10, 10 }, stops = { { 0, 'red' }, { 1, 'blue' } } } }",
    "{ fill = { radial = { 5, 5, -1 }, stops = {} } }",
    "{ stroke = 'white', dash = { 4, 2 }, cap = 'round', join = 'bevel' }",
    "{ dash = { 0, 0 } }", "{ alpha = 2 }", "{ radius = 4 }", "{ size = 30, align = 'center' }",
    "{ source = { 0, 0, 1, 1 }, smooth = false }", "{ source = { 0, 0, 99, 1 } }",
    "{ 0, 0, 10, 0, 10, 10 }", "{ 0, 0, 10 }", "{ 'move', 0, 0, 'line', 5, 5, 'close' }",
    "{ 'quad', 1, 2 }", "{ mesh = 'sphere', color = { 1, 0, 0, 0.5 }, scale = -1 }",
    "{ position = vector.create(0/0, 0, 0) }", "{ rotation = { 0, 0, 0, 0 } }",
    "{ parent = 'nobody' }", "{ texture = 'dot.png', lit = false }", "{ mesh = 'tri.gltf' }",
    "{ kind = 'point', position = vector.create(0, 1, 0), range = 5 }",
    "{ kind = 'directional', direction = vector.create(0, 0, 0) }", "{ kind = 'laser' }",
    "{ position = vector.create(0, 0, 5), target = vector.zero }", "{ ortho = 4 }",
    "{ fov = 9 }", "{ near = 5, far = 1 }",
    "{ image = 'dot.png', width = 1, height = 1 }", "{ image = 'dot.png', width = 3, height = 1 }",
    "{ image = 'dot.png', frames = { a = { 0, 0, 2, 2 }, { 1, 1, 1, 1 } } }", "'a'",
    "{ { x = 1, y = 2, frame = 2, flip_x = true, tint = 'red' }, { x = 0/0 }, { y = 1e30, frame = 'a' } }",
    "{ scale = 1e9 }", "{ scale = { 3, 0.5 }, alpha = 0.5, flip_y = true }", "{ 1, 0, 2, 4, 3 }",
];

const CALLS: &[(&str, usize)] = &[
    ("screen:rect", 5),
    ("screen:circle", 4),
    ("screen:ellipse", 5),
    ("screen:line", 5),
    ("screen:polygon", 2),
    ("screen:polyline", 2),
    ("screen:path", 2),
    ("screen:text('hi', ", 3),
    ("screen:image", 4),
    ("screen:sprite", 5),
    ("screen:sprites", 2),
    ("screen:tiles", 6),
    ("screen:translate", 2),
    ("screen:rotate", 1),
    ("screen:scale", 2),
    ("screen:alpha", 1),
    ("screen:push", 0),
    ("screen:pop", 0),
    ("screen:measure('x', ", 1),
    ("scene:object('o', ", 1),
    ("scene:object", 2),
    ("scene:light('l', ", 1),
    ("scene:camera", 1),
    ("scene:remove", 1),
    ("scene:get", 1),
    ("scene:project", 1),
];

fn call(chunk: &[u8]) -> String {
    let (name, arity) = CALLS[chunk[0] as usize % CALLS.len()];
    let args: Vec<&str> = (0..arity)
        .map(|k| VALUES[*chunk.get(k + 1).unwrap_or(&0) as usize % VALUES.len()])
        .collect();
    if name.ends_with(", ") {
        format!("{name}{})", args.join(", "))
    } else {
        format!("{name}({})", args.join(", "))
    }
}

fn folder() -> &'static tempfile::TempDir {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| {
        moonloop::error::forward_uncontained_panics();
        let dir = tempfile::tempdir().unwrap();
        let mut dot = tiny_skia::Pixmap::new(2, 2).unwrap();
        dot.fill(tiny_skia::Color::from_rgba8(200, 40, 40, 255));
        dot.save_png(dir.path().join("dot.png")).unwrap();
        dir
    })
}

fuzz_target!(|bytes: &[u8]| {
    if bytes.len() > 6 * 40 {
        return;
    }
    // One call a frame, so each refusal reaches the host and is read as the
    // author reads it.
    let calls: Vec<String> = bytes.chunks(6).map(call).collect();
    let mut render = String::new();
    for (i, line) in calls.iter().enumerate() {
        render.push_str(&format!("    if state.n == {} then\n      {line}\n    end\n", i + 1));
    }
    let main = format!(
        "return {{\n  config = {{ width = 64, height = 48 }},\n  init = function() return {{ n = 0 }} end,\n  update = function(state) return {{ n = state.n + 1 }} end,\n  render = function(state, scene, screen)\n{render}  end,\n}}\n"
    );
    let dir = folder().path().join(format!("g{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("main.luau"), main).unwrap();
    let _ = std::fs::copy(folder().path().join("dot.png"), dir.join("dot.png"));
    let game = LuaGame::load(&dir).expect("the generated game loads");
    let mut engine = Engine::new(game, Box::new(ConstantClock::new(0.1)));
    engine.set_surface(96, 48);
    for line in &calls {
        if let Err(err) = engine.advance(1) {
            let text = err.to_string();
            let named = text.contains("screen:") || text.contains("scene:");
            assert!(
                text.contains("main.luau:") && named,
                "`{line}` was refused without its call and place: {text}"
            );
            assert!(!text.contains("Handle"), "`{line}`: mlua's words, not the author's: {text}");
        }
        let _ = moonloop::screen_picture(&mut engine);
    }
});
