//! The scene by pictures (rule H2, frame steps 7 and 10): games rendered
//! headlessly with wgpu on a software adapter and compared with PNGs in
//! tests/images/scene/, within a tolerance (GPUs may round differently).
//!
//! `MOONLOOP_BLESS=1 cargo test --test scene_pictures` writes missing or
//! changed references; look at every one before committing it.

mod common;

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use common::game;
use moonloop::Compositor;
use moonloop::ConstantClock;
use moonloop::Engine;
use moonloop::LuaGame;
use moonloop::session::Session;
use tiny_skia::Pixmap;

/// A channel may differ by this much before a pixel counts as different.
///
/// Set on Mesa 22.3.6's lavapipe (Vulkan on llvmpipe), which CI installs;
/// Mesa's OpenGL llvmpipe and real GPUs rasterize edges and round colors a
/// little differently, and this absorbs that.
const CHANNEL_TOLERANCE: u8 = 6;
/// At most this share of pixels may differ by more (edge pixels).
const PIXEL_TOLERANCE: f64 = 0.005;

/// One renderer for the whole file: creating a device is the slow part.
static RENDERER: Mutex<Option<Compositor>> = Mutex::new(None);

fn reference(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/images/scene")
        .join(format!("{name}.png"))
}

fn assert_close(name: &str, picture: &Pixmap) {
    let path = reference(name);
    let expected = Pixmap::load_png(&path).ok();
    let differing = expected.as_ref().map(|e| {
        if (e.width(), e.height()) != (picture.width(), picture.height()) {
            return usize::MAX;
        }
        e.pixels()
            .iter()
            .zip(picture.pixels())
            .filter(|(a, b)| {
                a.red().abs_diff(b.red()) > CHANNEL_TOLERANCE
                    || a.green().abs_diff(b.green()) > CHANNEL_TOLERANCE
                    || a.blue().abs_diff(b.blue()) > CHANNEL_TOLERANCE
            })
            .count()
    });
    let allowed = (picture.pixels().len() as f64 * PIXEL_TOLERANCE) as usize;
    if differing.is_some_and(|d| d <= allowed) {
        return;
    }
    if std::env::var_os("MOONLOOP_BLESS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        picture.save_png(&path).unwrap();
        return;
    }
    let actual = path.with_file_name(format!("{name}-actual.png"));
    picture.save_png(&actual).unwrap();
    let difference = path.with_file_name(format!("{name}-difference.png"));
    if let Some(expected) = &expected {
        common::save_difference(expected, picture, &difference, CHANNEL_TOLERANCE);
    }
    panic!(
        "{name}: {} pixels differ from {} (at most {allowed} may); see {} and {}",
        differing.map_or("all".to_string(), |d| d.to_string()),
        path.display(),
        actual.display(),
        difference.display()
    );
}

/// Renders frame `frames` of a game, on a surface of `surface` pixels.
fn render(main: &str, surface: (u32, u32), frames: u64) -> Pixmap {
    render_folder(&game(&[("main.luau", main)]), surface, frames)
}

/// Renders frame `frames` of the game in `dir`.
fn render_folder(dir: &tempfile::TempDir, surface: (u32, u32), frames: u64) -> Pixmap {
    let loaded = LuaGame::load(dir.path()).unwrap();
    let mut session = Session::new(Engine::new(
        loaded,
        Box::new(ConstantClock::new(1.0 / 60.0)),
    ));
    session.engine_mut().set_surface(surface.0, surface.1);
    session
        .advance(frames)
        .unwrap_or_else(|e| panic!("the frames run: {e}"));
    let mut guard = RENDERER.lock().unwrap_or_else(|e| e.into_inner());
    let compositor =
        guard.get_or_insert_with(|| Compositor::headless().unwrap_or_else(|e| panic!("{e}")));
    compositor.draw(session.engine_mut());
    compositor.read_view()
}

fn scene_game(config: &str, body: &str) -> String {
    format!(
        "return {{\n  config = {{ {config} }},\n  render = function(state, scene, screen)\n{body}\n  end,\n}}\n"
    )
}

// rule: H2
#[test]
fn a_lit_cube() {
    let main = scene_game(
        "width = 160, height = 120, background = \"#202830\"",
        r##"
    scene:camera({ position = vector.create(2, 2, 3), target = vector.zero, fov = math.rad(50) })
    scene:light("sky", { kind = "ambient", intensity = 0.2 })
    scene:light("sun", { kind = "directional", direction = vector.create(-1, -2, -1.5), intensity = 0.9 })
    scene:object("cube", { mesh = "cube", color = "#e04040" })
"##,
    );
    assert_close("lit-cube", &render(&main, (160, 120), 1));
}

// rule: H2
#[test]
fn a_hierarchy_with_every_built_in_mesh_and_a_point_light() {
    let main = scene_game(
        "width = 200, height = 120, background = \"#101418\"",
        r##"
    scene:camera({ position = vector.create(0, 3, 6), target = vector.create(0, 0.5, 0) })
    scene:light("sky", { kind = "ambient", intensity = 0.15 })
    scene:light("lamp", { kind = "point", position = vector.create(0, 2.5, 1.5), range = 8, color = "#ffe0b0", intensity = 1.5 })
    scene:object("floor", { mesh = "plane", scale = vector.create(8, 1, 5), color = "#406040" })
    scene:object("base", { mesh = "cylinder", position = vector.create(0, 0.5, 0), color = "#8080c0" })
    scene:object("arm", { mesh = "cube", parent = "base", position = vector.create(1.2, 0.3, 0), scale = vector.create(1.4, 0.2, 0.2), rotation = vector.create(0, 0, 0.4) })
    scene:object("ball", { mesh = "sphere", parent = "arm", position = vector.create(0.5, 0, 0), scale = vector.create(0.5, 3, 3), color = "#f0c040" })
    scene:object("flat", { mesh = "cube", position = vector.create(-1.8, 0.5, 0), color = "#40c0c0", lit = false })
"##,
    );
    assert_close("hierarchy", &render(&main, (200, 120), 1));
}

// rule: H2
#[test]
fn orthographic_and_perspective_cameras() {
    let body = |camera: &str| {
        format!(
            r##"
    scene:camera({camera})
    for x = -2, 2 do
        for z = -2, 2 do
            scene:object("c" .. x .. z, {{ mesh = "cube", position = vector.create(x * 1.5, 0, z * 1.5), color = if (x + z) % 2 == 0 then "#e0e0e0" else "#4060a0" }})
        end
    end
"##
        )
    };
    let config = "width = 160, height = 120, background = \"#000000\"";
    let ortho = scene_game(
        config,
        &body("{ position = vector.create(6, 6, 6), target = vector.zero, ortho = 8 }"),
    );
    let persp = scene_game(
        config,
        &body("{ position = vector.create(6, 6, 6), target = vector.zero, fov = math.rad(45) }"),
    );
    assert_close("camera-orthographic", &render(&ortho, (160, 120), 1));
    assert_close("camera-perspective", &render(&persp, (160, 120), 1));
}

// rule: H1
#[test]
fn letterboxed_wide_and_tall_surfaces() {
    let main = scene_game(
        "width = 160, height = 120, background = \"#303040\"",
        r##"
    scene:camera({ position = vector.create(0, 0, 4), target = vector.zero })
    scene:object("floor", { mesh = "plane", rotation = vector.create(math.pi / 2, 0, 0), scale = 20, color = "#a04060", lit = false })
    scene:object("ball", { mesh = "sphere", scale = 2, color = "#f0f0f0" })
"##,
    );
    assert_close("letterbox-wide", &render(&main, (320, 120), 1));
    assert_close("letterbox-tall", &render(&main, (160, 240), 1));
}

// rule: H3
#[test]
fn the_screen_layer_over_the_scene_with_alpha() {
    let main = scene_game(
        "width = 160, height = 120, background = \"#203040\"",
        r##"
    scene:camera({ position = vector.create(0, 1.5, 3), target = vector.zero })
    scene:object("cube", { mesh = "cube", color = "#40c040", rotation = vector.create(0, 0.6, 0) })
    screen:rect(10, 10, 140, 30, { fill = "#00000080", radius = 6 })
    screen:text("HUD 123", 80, 14, { size = 18, align = "center", color = "white" })
    screen:circle(130, 90, 20, { fill = "#ff000080" })
"##,
    );
    assert_close("screen-over-scene", &render(&main, (160, 120), 1));
}

// rule: H3
#[test]
fn a_screen_layer_alone_composites_as_tiny_skia_draws_it() {
    // With no scene objects, the frame is the background with the screen
    // layer over it: the GPU's blend must agree with tiny-skia's own.
    let main = scene_game(
        "width = 160, height = 120, background = \"#204060\"",
        r##"
    screen:rect(10, 10, 80, 60, { fill = "#ff000080" })
    screen:circle(100, 70, 30, { fill = "#ffffffa0", stroke = "black", width = 3 })
    screen:text("blend", 20, 90, { size = 20, color = "#80ff80c0" })
"##,
    );
    let gpu = render(&main, (160, 120), 1);
    let dir = game(&[("main.luau", &main)]);
    let mut session = Session::new(Engine::new(
        LuaGame::load(dir.path()).unwrap(),
        Box::new(ConstantClock::new(0.1)),
    ));
    session.advance(1).unwrap();
    let cpu = moonloop::screen_picture(session.engine_mut());
    let worst = gpu
        .pixels()
        .iter()
        .zip(cpu.pixels())
        .map(|(a, b)| {
            a.red()
                .abs_diff(b.red())
                .max(a.green().abs_diff(b.green()))
                .max(a.blue().abs_diff(b.blue()))
        })
        .max()
        .unwrap();
    assert!(
        worst <= 1,
        "the GPU composite differs from tiny-skia by up to {worst} per channel"
    );
}

// rule: H2
#[test]
fn ten_thousand_cubes_draw_instanced() {
    let main = scene_game(
        "width = 160, height = 120, background = \"#000000\"",
        r##"
    scene:camera({ position = vector.create(0, 60, 80), target = vector.zero })
    for i = 0, 9999 do
        local x, z = i % 100, i // 100
        scene:object("c" .. i, { mesh = "cube", position = vector.create(x - 50, 0, z - 50), color = if (x + z) % 2 == 0 then "#ffffff" else "#e04040" })
    end
"##,
    );
    assert_close("cubes-10000", &render(&main, (160, 120), 1));
}

/// A `width` x `height` PNG whose pixel at (x, y) is `color(x, y)`.
fn painted(width: u32, height: u32, color: impl Fn(u32, u32) -> tiny_skia::Color) -> Vec<u8> {
    let mut pixmap = Pixmap::new(width, height).unwrap();
    for y in 0..height {
        for x in 0..width {
            let rect = tiny_skia::Rect::from_xywh(x as f32, y as f32, 1.0, 1.0).unwrap();
            pixmap.fill_rect(
                rect,
                &tiny_skia::Paint {
                    shader: tiny_skia::Shader::SolidColor(color(x, y)),
                    ..Default::default()
                },
                tiny_skia::Transform::identity(),
                None,
            );
        }
    }
    pixmap.encode_png().unwrap()
}

/// A `size` x `size` PNG of squares alternating between two colors.
fn checker(size: u32, a: tiny_skia::Color, b: tiny_skia::Color) -> Vec<u8> {
    painted(size, size, |x, y| if (x + y) % 2 == 0 { a } else { b })
}

// rule: H2
#[test]
fn textured_cubes_and_a_model_each_draw_with_their_own_texture() {
    // Objects batch by mesh and texture: each batch must bind its own.
    let main = scene_game(
        "width = 240, height = 120, background = \"#181818\"",
        r##"
    scene:camera({ position = vector.create(0, 1.2, 3.6), target = vector.create(0, 0.3, 0) })
    scene:light("sky", { kind = "ambient", intensity = 1 })
    scene:object("left", { mesh = "cube", texture = "checker.png", lit = false, position = vector.create(-2.4, 0, 0) })
    scene:object("middle", { mesh = "cube", texture = "green.png", lit = false, position = vector.create(-0.8, 0, 0) })
    scene:object("plain", { mesh = "cube", color = "#40a0f0", lit = false, position = vector.create(0.8, 0, 0) })
    scene:object("tri", { mesh = "tri.gltf", texture = "green.png", lit = false, position = vector.create(2.4, 0, 0), scale = vector.create(0.7, 0.7, 0.7) })
    scene:object("left2", { mesh = "cube", texture = "checker.png", lit = false, position = vector.create(-2.4, 1.3, -1), scale = vector.create(0.5, 0.5, 0.5) })
"##,
    );
    let dir = game(&[("main.luau", &main), ("tri.gltf", &common::triangle_gltf())]);
    let red = tiny_skia::Color::from_rgba8(220, 40, 40, 255);
    let white = tiny_skia::Color::from_rgba8(240, 240, 240, 255);
    let green = tiny_skia::Color::from_rgba8(40, 200, 80, 255);
    std::fs::write(dir.path().join("checker.png"), checker(4, red, white)).unwrap();
    std::fs::write(dir.path().join("green.png"), checker(1, green, green)).unwrap();
    assert_close("textured", &render_folder(&dir, (240, 120), 1));
}

/// Draws the last frame of `engine` on the shared compositor.
fn draw(engine: &mut Engine<LuaGame>) -> Pixmap {
    let mut guard = RENDERER.lock().unwrap_or_else(|e| e.into_inner());
    let compositor =
        guard.get_or_insert_with(|| Compositor::headless().unwrap_or_else(|e| panic!("{e}")));
    compositor.draw(engine);
    compositor.read_view()
}

// rule: H8, H2
#[test]
fn a_texture_changed_during_a_run_is_drawn_anew_on_the_gpu() {
    let main = scene_game(
        "width = 120, height = 90, background = \"#181818\"",
        r##"
    scene:camera({ position = vector.create(1.6, 1.2, 2.4), target = vector.zero })
    scene:object("box", { mesh = "cube", texture = "skin.png", lit = false })
"##,
    );
    let dir = game(&[("main.luau", &main)]);
    let red = tiny_skia::Color::from_rgba8(220, 40, 40, 255);
    let white = tiny_skia::Color::from_rgba8(240, 240, 240, 255);
    let blue = tiny_skia::Color::from_rgba8(40, 80, 220, 255);
    std::fs::write(dir.path().join("skin.png"), checker(4, red, white)).unwrap();
    let mut session = Session::new(Engine::new(
        LuaGame::load(dir.path()).unwrap(),
        Box::new(ConstantClock::new(1.0 / 60.0)),
    ));
    session.engine_mut().set_surface(120, 90);
    session.advance(1).unwrap();
    let before = draw(session.engine_mut());
    assert_close("texture-before", &before);
    std::fs::write(dir.path().join("skin.png"), checker(2, blue, white)).unwrap();
    session
        .engine_mut()
        .reload(&[PathBuf::from("skin.png")])
        .unwrap();
    session.advance(1).unwrap();
    let after = draw(session.engine_mut());
    assert_close("texture-after", &after);
    assert_ne!(before.data(), after.data(), "the GPU draws the new file");
}

/// A glTF triangle whose material's base color is `color` (linear RGBA).
fn colored_triangle(color: [f32; 4]) -> String {
    common::triangle_gltf().replacen(
        "\"meshes\":[{\"primitives\":[{\"attributes\":{\"POSITION\":0}}]}]",
        &format!(
            "\"materials\":[{{\"pbrMetallicRoughness\":{{\"baseColorFactor\":[{},{},{},{}]}}}}],\"meshes\":[{{\"primitives\":[{{\"attributes\":{{\"POSITION\":0}},\"material\":0}}]}}]",
            color[0], color[1], color[2], color[3]
        ),
        1,
    )
}

// rule: H2
#[test]
fn translucent_mirrored_and_colored_models_draw_as_they_should() {
    // Left: a cube mirrored by a negative scale, lit the right way out.
    // Middle: a red cube behind a translucent blue sphere.
    // Right: a glTF triangle colored by its material, a white `color`.
    let main = scene_game(
        "width = 240, height = 120, background = \"#181818\"",
        r##"
    scene:camera({ position = vector.create(0, 1, 4.2), target = vector.create(0, 0.2, 0) })
    scene:light("sky", { kind = "ambient", intensity = 0.25 })
    scene:light("sun", { kind = "directional", direction = vector.create(-1, -2, -1.5) })
    scene:object("mirrored", { mesh = "cube", color = "#e0c040", position = vector.create(-1.8, 0, 0), scale = vector.create(-0.9, 0.9, 0.9) })
    scene:object("behind", { mesh = "cube", color = "#e04040", position = vector.create(0, 0, -0.8) })
    scene:object("glass", { mesh = "sphere", color = { 0.3, 0.5, 1, 0.5 }, position = vector.create(0, 0, 0.4), scale = 1.2 })
    scene:object("tri", { mesh = "tri.gltf", lit = false, position = vector.create(1.9, 0, 0), scale = 0.7 })
"##,
    );
    let dir = game(&[
        ("main.luau", &main),
        ("tri.gltf", &colored_triangle([0.1, 0.8, 0.2, 1.0])),
    ]);
    assert_close("materials", &render_folder(&dir, (240, 120), 1));
}

// rule: H2
#[test]
fn a_device_that_cannot_view_a_texture_as_srgb_draws_the_same_frame() {
    // GL devices (wgpu's fallback where there is no Vulkan) lack view
    // formats: the scene is drawn into an sRGB texture of its own and
    // copied onto the frame. On one device both ways give the same bytes.
    let dir = game(&[(
        "main.luau",
        &scene_game(
            "width = 160, height = 120, background = \"#203040\"",
            "    scene:object(\"c\", { mesh = \"cube\", color = \"#e06040\", rotation = vector.create(0.4, 0.6, 0) })\n    screen:rect(10, 10, 60, 30, { fill = \"#ffffff80\" })",
        ),
    )]);
    let frame = |compositor: &mut Compositor| {
        let loaded = LuaGame::load(dir.path()).unwrap();
        let mut session = Session::new(Engine::new(
            loaded,
            Box::new(ConstantClock::new(1.0 / 60.0)),
        ));
        session.engine_mut().set_surface(200, 120);
        session.advance(1).unwrap();
        compositor.draw(session.engine_mut());
        compositor.read_view()
    };
    let renderer = || moonloop::render::Renderer::headless().unwrap();
    let viewed = frame(&mut Compositor::new(renderer()));
    let apart = frame(&mut Compositor::new(renderer().draw_scene_apart()));
    assert!(
        viewed
            .pixels()
            .iter()
            .any(|p| p.red() > 150 && p.blue() < 120),
        "the cube is drawn"
    );
    assert!(viewed.data() == apart.data(), "the two ways differ");
}

/// A glTF model as a modeller exports one: a root node placed up left
/// holding a child rotated 45 degrees and stretched twice in y, whose mesh
/// has two primitives of two materials (red, and green beside it); a
/// second root placed down right with a triangle colored by `COLOR_0`
/// (red, green and blue corners); and a node outside the scene, drawn by
/// nothing.
fn hierarchy_gltf() -> String {
    let floats: Vec<f32> = [
        // Accessor 0: a triangle about the origin.
        [-0.5f32, -0.5, 0.0, 0.5, -0.5, 0.0, 0.0, 0.5, 0.0].as_slice(),
        // Accessor 1: the same, 1.2 to the right.
        &[0.7, -0.5, 0.0, 1.7, -0.5, 0.0, 1.2, 0.5, 0.0],
        // Accessor 2: red, green and blue corners.
        &[1.0, 0.0, 0.0, 1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 0.0, 1.0, 1.0],
    ]
    .concat();
    let bytes: Vec<u8> = floats.iter().flat_map(|f| f.to_le_bytes()).collect();
    let b64 = base64::Engine::encode(&base64::engine::general_purpose::STANDARD, &bytes);
    let (s, c) = (
        std::f32::consts::FRAC_PI_8.sin(),
        std::f32::consts::FRAC_PI_8.cos(),
    );
    format!(
        r#"{{"asset":{{"version":"2.0"}},
        "buffers":[{{"byteLength":120,"uri":"data:application/octet-stream;base64,{b64}"}}],
        "bufferViews":[{{"buffer":0,"byteOffset":0,"byteLength":36}},{{"buffer":0,"byteOffset":36,"byteLength":36}},{{"buffer":0,"byteOffset":72,"byteLength":48}}],
        "accessors":[
            {{"bufferView":0,"componentType":5126,"count":3,"type":"VEC3","min":[-0.5,-0.5,0],"max":[0.5,0.5,0]}},
            {{"bufferView":1,"componentType":5126,"count":3,"type":"VEC3","min":[0.7,-0.5,0],"max":[1.7,0.5,0]}},
            {{"bufferView":2,"componentType":5126,"count":3,"type":"VEC4"}}],
        "materials":[{{"pbrMetallicRoughness":{{"baseColorFactor":[0.9,0.1,0.1,1]}}}},{{"pbrMetallicRoughness":{{"baseColorFactor":[0.1,0.8,0.2,1]}}}}],
        "meshes":[
            {{"primitives":[{{"attributes":{{"POSITION":0}},"material":0}},{{"attributes":{{"POSITION":1}},"material":1}}]}},
            {{"primitives":[{{"attributes":{{"POSITION":0,"COLOR_0":2}}}}]}}],
        "nodes":[
            {{"translation":[-1.6,0.5,0],"children":[1]}},
            {{"rotation":[0,0,{s},{c}],"scale":[1,2,1],"mesh":0}},
            {{"translation":[1.6,-0.6,0],"mesh":1}},
            {{"matrix":[1,0,0,0, 0,1,0,0, 0,0,1,0, 0,3,0,1],"mesh":1}}],
        "scenes":[{{"nodes":[0,2]}}],"scene":0}}"#
    )
}

// rule: H2
#[test]
fn a_gltf_model_is_drawn_as_its_nodes_place_it_with_each_primitive_s_material_and_vertex_colors() {
    let main = scene_game(
        "width = 240, height = 160, background = \"#181818\"",
        r##"
    scene:camera({ position = vector.create(0, 0, 5), target = vector.zero })
    scene:object("model", { mesh = "hierarchy.gltf", lit = false })
"##,
    );
    let dir = game(&[("main.luau", &main), ("hierarchy.gltf", &hierarchy_gltf())]);
    let picture = render_folder(&dir, (240, 160), 1);
    // The vertex-colored triangle's corners: red, green and blue, down
    // right; the two primitives up left, red and green.
    let at = |x: u32, y: u32| picture.pixel(x, y).unwrap();
    let reddish = |p: tiny_skia::PremultipliedColorU8| p.red() > 150 && p.green() < 90;
    let greenish = |p: tiny_skia::PremultipliedColorU8| p.green() > 120 && p.red() < 90;
    assert!(
        picture.pixels().iter().filter(|p| reddish(**p)).count() > 200,
        "red is drawn"
    );
    assert!(
        picture.pixels().iter().filter(|p| greenish(**p)).count() > 200,
        "green is drawn"
    );
    // Nothing at the origin: no node places a mesh there.
    assert_eq!(
        at(120, 80).red(),
        at(2, 2).red(),
        "the middle is background"
    );
    assert_close("gltf-hierarchy", &picture);
}

// rule: H2
#[test]
fn a_sky_and_fog_fade_a_row_of_cubes_into_the_distance() {
    // A pale sky over a dark horizon; cubes every 3 units down the z axis
    // fade into grey fog from 4 to 24 units from the camera.
    let main = scene_game(
        "width = 240, height = 140, background = \"#ff00ff\"",
        r##"
    scene:camera({ position = vector.create(0, 1.2, 4), target = vector.create(0, 0.6, -10) })
    scene:sky({ top = "#4a78c8", bottom = "#d8e4f0" })
    scene:fog({ color = "#b0b8c0", near = 4, far = 24 })
    for i = 0, 7 do
        scene:object(`cube{i}`, { mesh = "cube", color = "#c04030", position = vector.create(1.2 * ((i % 2) * 2 - 1), 0.5, -3 * i) })
    end
    scene:object("ground", { mesh = "plane", color = "#3a6a30", scale = vector.create(20, 1, 60), position = vector.create(0, 0, -20) })
"##,
    );
    let picture = render(&main, (240, 140), 1);
    // No background shows: the sky covers what no object does.
    assert!(
        !picture
            .pixels()
            .iter()
            .any(|p| p.red() > 240 && p.green() < 20 && p.blue() > 240),
        "the magenta background is behind the sky"
    );
    // The sky is bluer at the top than at the horizon.
    let top = picture.pixel(120, 2).unwrap();
    assert!(top.blue() > top.red() + 40, "{top:?}");
    assert_close("sky-and-fog", &picture);
}

// rule: H2
#[test]
fn a_tiled_floor_repeats_its_texture_and_nearest_keeps_whole_pixels() {
    // Left: a plane tiled 6 times each way with the 4x4 checker, sampled
    // as whole pixels (hard squares). Right: the same checker once over a
    // plane, blended (soft edges between its 16 squares).
    let main = scene_game(
        "width = 240, height = 120, background = \"#181818\"",
        r##"
    scene:camera({ position = vector.create(0, 6, 0.01), target = vector.zero })
    scene:object("tiled", { mesh = "plane", texture = "checker.png", texture_scale = 6, filter = "nearest", lit = false, scale = 4, position = vector.create(-2.4, 0, 0) })
    scene:object("once", { mesh = "plane", texture = "checker.png", lit = false, scale = 4, position = vector.create(2.4, 0, 0) })
"##,
    );
    let png = checker(
        4,
        tiny_skia::Color::from_rgba8(230, 200, 60, 255),
        tiny_skia::Color::from_rgba8(40, 60, 120, 255),
    );
    let dir = common::game(&[("main.luau", main.as_str())]);
    std::fs::write(dir.path().join("checker.png"), &png).unwrap();
    let picture = render_folder(&dir, (240, 120), 1);
    // Nearest: every pixel of the tiled plane is one of the two colors
    // (no blend between them); the blended one has colors in between.
    let between = |x0: u32, x1: u32| {
        (x0..x1)
            .flat_map(|x| (30..90).map(move |y| (x, y)))
            .map(|(x, y)| picture.pixel(x, y).unwrap())
            .filter(|p| p.red() > 80 && p.red() < 190)
            .count()
    };
    let (tiled, once) = (between(40, 90), between(150, 200));
    assert!(tiled < 10, "whole pixels: {tiled} blended pixels");
    assert!(once > 100, "blended: {once} pixels between the colors");
    assert_close("tiled-nearest", &picture);
}

// rule: H2
#[test]
fn matte_shiny_metallic_and_emissive_spheres() {
    // From the left: matte red (the default: no highlight), shiny red
    // plastic (a white highlight), rough-ish gold metal (a gold highlight,
    // little diffuse), and a dark sphere that glows orange in the dark.
    let main = scene_game(
        "width = 320, height = 100, background = \"#101014\"",
        r##"
    scene:camera({ position = vector.create(0, 0.8, 6.5), target = vector.create(0, 0, 0), fov = math.rad(22) })
    scene:light("sky", { kind = "ambient", intensity = 0.15 })
    scene:light("sun", { kind = "directional", direction = vector.create(-1, -1, -1.5) })
    scene:object("matte", { mesh = "sphere", color = "#c03030", position = vector.create(-2.1, 0, 0) })
    scene:object("plastic", { mesh = "sphere", color = "#c03030", roughness = 0.2, position = vector.create(-0.7, 0, 0) })
    scene:object("gold", { mesh = "sphere", color = "#e0b040", metallic = 1, roughness = 0.35, position = vector.create(0.7, 0, 0) })
    scene:object("ember", { mesh = "sphere", color = "#202020", emissive = "#ff7020", position = vector.create(2.1, 0, 0) })
"##,
    );
    let picture = render(&main, (320, 100), 1);
    // The brightest pixel of the plastic sphere is near white (its
    // highlight); the matte one's stays red.
    let brightest = |x0: u32, x1: u32| {
        (x0..x1)
            .flat_map(|x| (10..90).map(move |y| (x, y)))
            .map(|(x, y)| picture.pixel(x, y).unwrap())
            .max_by_key(|p| u32::from(p.red()) + u32::from(p.green()) + u32::from(p.blue()))
            .unwrap()
    };
    let (matte, plastic) = (brightest(10, 85), brightest(85, 160));
    assert!(matte.green() < 100, "no highlight on matte: {matte:?}");
    assert!(plastic.green() > 180, "a white highlight: {plastic:?}");
    assert_close("materials-pbr", &picture);
}

fn shadow_scene(sun_props: &str) -> String {
    scene_game(
        "width = 200, height = 150, background = \"#202830\"",
        &format!(
            r##"
    scene:camera({{ position = vector.create(0, 4, 6), target = vector.create(0, 0.5, 0), fov = math.rad(45) }})
    scene:light("sky", {{ kind = "ambient", intensity = 0.25 }})
    scene:light("sun", {{ kind = "directional", direction = vector.create(-0.6, -1, -0.4), intensity = 0.9{sun_props} }})
    scene:object("floor", {{ mesh = "plane", color = "#a0b890", scale = vector.create(8, 1, 8) }})
    scene:object("crate", {{ mesh = "cube", color = "#c08040", position = vector.create(0.8, 1.4, 0), rotation = vector.create(0, 0.5, 0) }})
    scene:object("ball", {{ mesh = "sphere", color = "#4060c0", position = vector.create(-1.2, 0.5, 0.6) }})
"##
        ),
    )
}

// rule: H16
#[test]
fn a_cube_in_the_air_and_a_ball_cast_shadows_on_the_floor() {
    let shadowed = render(&shadow_scene(""), (200, 150), 1);
    let unshadowed = render(&shadow_scene(", shadows = false"), (200, 150), 1);
    // The floor straight down the light from the crate: the light travels
    // (-0.6, -1, -0.4), so the crate's shadow falls 1.4 * (0.6, 0.4) away
    // from the point under it, towards -x and -z.
    let under = scene_point((0.8 - 0.84, 0.0, -0.56), (200, 150));
    let dark = shadowed.pixel(under.0, under.1).unwrap();
    let lit = unshadowed.pixel(under.0, under.1).unwrap();
    assert!(
        u32::from(dark.green()) * 10 < u32::from(lit.green()) * 6,
        "the crate's shadow darkens the floor at {under:?}: {dark:?} against {lit:?}"
    );
    // Away from both objects the floor is as lit either way.
    let open = scene_point((2.5, 0.0, 2.0), (200, 150));
    assert_eq!(
        shadowed.pixel(open.0, open.1),
        unshadowed.pixel(open.0, open.1)
    );
    assert_close("shadows", &shadowed);
}

/// Where the world point `p` lands on a surface of `size` through the
/// camera of [`shadow_scene`].
fn scene_point(p: (f32, f32, f32), size: (u32, u32)) -> (u32, u32) {
    use glam::Vec3;
    use glam::camera::rh::{proj::directx::perspective, view::look_at_mat4};
    let view = look_at_mat4(Vec3::new(0.0, 4.0, 6.0), Vec3::new(0.0, 0.5, 0.0), Vec3::Y);
    let aspect = size.0 as f32 / size.1 as f32;
    let proj = perspective(45f32.to_radians(), aspect, 0.1, 1000.0);
    let c = (proj * view).project_point3(Vec3::new(p.0, p.1, p.2));
    (
        ((c.x + 1.0) / 2.0 * size.0 as f32) as u32,
        ((1.0 - c.y) / 2.0 * size.1 as f32) as u32,
    )
}

/// A glTF model with its own textures: a square up left textured by a PNG
/// inside the file (a data: URI), sampled as whole pixels and repeated
/// twice each way; a square up right textured by a PNG beside the model,
/// blended and clamped; and a triangle below in a plain green material.
fn textured_gltf(inside_png: &[u8]) -> String {
    let square = |x0: f32| {
        [
            x0,
            -0.6,
            0.0,
            x0 + 1.2,
            -0.6,
            0.0,
            x0 + 1.2,
            0.6,
            0.0,
            x0,
            0.6,
            0.0,
        ]
    };
    let floats: Vec<f32> = [
        // Accessors 0 and 1: the squares.
        square(-1.4).as_slice(),
        &square(0.2),
        // Accessor 2: UVs twice across; accessor 3: once across.
        &[0.0, 2.0, 2.0, 2.0, 2.0, 0.0, 0.0, 0.0],
        &[0.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0],
        // Accessor 4: a triangle below.
        &[-0.5, -1.6, 0.0, 0.5, -1.6, 0.0, 0.0, -0.8, 0.0],
    ]
    .concat();
    let mut bytes: Vec<u8> = floats.iter().flat_map(|f| f.to_le_bytes()).collect();
    // Accessor 5: the squares' two triangles.
    bytes.extend([0u16, 1, 2, 0, 2, 3].iter().flat_map(|i| i.to_le_bytes()));
    let encode = |b: &[u8]| base64::Engine::encode(&base64::engine::general_purpose::STANDARD, b);
    let (buffer, png) = (encode(&bytes), encode(inside_png));
    format!(
        r#"{{"asset":{{"version":"2.0"}},
        "buffers":[{{"byteLength":{len},"uri":"data:application/octet-stream;base64,{buffer}"}}],
        "bufferViews":[{{"buffer":0,"byteOffset":0,"byteLength":48}},{{"buffer":0,"byteOffset":48,"byteLength":48}},
            {{"buffer":0,"byteOffset":96,"byteLength":32}},{{"buffer":0,"byteOffset":128,"byteLength":32}},
            {{"buffer":0,"byteOffset":160,"byteLength":36}},{{"buffer":0,"byteOffset":196,"byteLength":12}}],
        "accessors":[
            {{"bufferView":0,"componentType":5126,"count":4,"type":"VEC3","min":[-1.4,-0.6,0],"max":[-0.2,0.6,0]}},
            {{"bufferView":1,"componentType":5126,"count":4,"type":"VEC3","min":[0.2,-0.6,0],"max":[1.4,0.6,0]}},
            {{"bufferView":2,"componentType":5126,"count":4,"type":"VEC2"}},
            {{"bufferView":3,"componentType":5126,"count":4,"type":"VEC2"}},
            {{"bufferView":4,"componentType":5126,"count":3,"type":"VEC3","min":[-0.5,-1.6,0],"max":[0.5,-0.8,0]}},
            {{"bufferView":5,"componentType":5123,"count":6,"type":"SCALAR"}}],
        "images":[{{"uri":"data:image/png;base64,{png}"}},{{"uri":"stripes.png"}}],
        "samplers":[{{"magFilter":9728,"minFilter":9728}},{{"magFilter":9729,"wrapS":33071,"wrapT":33071}}],
        "textures":[{{"source":0,"sampler":0}},{{"source":1,"sampler":1}}],
        "materials":[
            {{"pbrMetallicRoughness":{{"baseColorTexture":{{"index":0}}}}}},
            {{"pbrMetallicRoughness":{{"baseColorTexture":{{"index":1}}}}}},
            {{"pbrMetallicRoughness":{{"baseColorFactor":[0.1,0.8,0.2,1]}}}}],
        "meshes":[{{"primitives":[
            {{"attributes":{{"POSITION":0,"TEXCOORD_0":2}},"indices":5,"material":0}},
            {{"attributes":{{"POSITION":1,"TEXCOORD_0":3}},"indices":5,"material":1}},
            {{"attributes":{{"POSITION":4}},"material":2}}]}}],
        "nodes":[{{"mesh":0,"translation":[0,0.4,0]}}],
        "scenes":[{{"nodes":[0]}}]}}"#,
        len = bytes.len()
    )
}

// rule: H2
#[test]
fn a_gltf_model_draws_its_own_textures_with_their_samplers() {
    let main = scene_game(
        "width = 240, height = 180, background = \"#181818\"",
        r##"
    scene:camera({ position = vector.create(0, 0, 4.2), target = vector.zero })
    scene:object("model", { mesh = "textured.gltf", lit = false })
"##,
    );
    let red = tiny_skia::Color::from_rgba8(220, 40, 40, 255);
    let white = tiny_skia::Color::from_rgba8(240, 240, 240, 255);
    let blue = tiny_skia::Color::from_rgba8(40, 80, 220, 255);
    let yellow = tiny_skia::Color::from_rgba8(240, 200, 40, 255);
    let dir = game(&[
        ("main.luau", &main),
        ("textured.gltf", &textured_gltf(&checker(4, red, white))),
    ]);
    std::fs::write(dir.path().join("stripes.png"), checker(2, blue, yellow)).unwrap();
    let picture = render_folder(&dir, (240, 180), 1);
    // Whole pixels on the left: every pixel of the checker square is red
    // or white, none between.
    let left: Vec<_> = (70..110)
        .flat_map(|x| (55..95).map(move |y| (x, y)))
        .map(|(x, y)| picture.pixel(x, y).unwrap())
        .collect();
    let between = left
        .iter()
        .filter(|p| p.green() > 70 && p.green() < 200)
        .count();
    let (reds, whites) = (
        left.iter()
            .filter(|p| p.red() > 180 && p.green() < 70)
            .count(),
        left.iter().filter(|p| p.green() >= 200).count(),
    );
    assert!(
        reds > 500 && whites > 500 && between == 0,
        "{reds} red, {whites} white, {between} between"
    );
    // Blended on the right: blue and yellow mix.
    let right_blue = (130..170)
        .flat_map(|x| (55..95).map(move |y| (x, y)))
        .map(|(x, y)| picture.pixel(x, y).unwrap())
        .filter(|p| p.blue() > 150)
        .count();
    assert!(
        right_blue > 200,
        "the file's image is drawn: {right_blue} blue pixels"
    );
    assert_close("gltf-textures", &picture);
}

// rule: H17
#[test]
fn a_skinned_arm_is_drawn_bent_by_its_clip_at_two_times() {
    // Three arms (docs/assets/arm.gltf): at rest, bent by `bend` at
    // time 0.5 (45 degrees) and at time 1 (a right angle, the forearm
    // pointing left); the same object's pose follows the time it is given.
    let main = scene_game(
        "width = 240, height = 160, background = \"#181818\"",
        r##"
    scene:camera({ position = vector.create(0, 1.2, 6), target = vector.create(0, 1.2, 0), fov = math.rad(45) })
    scene:light("sky", { kind = "ambient", intensity = 0.4 })
    scene:light("sun", { kind = "directional", direction = vector.create(-0.3, -0.5, -1) })
    scene:object("rest", { mesh = "arm.gltf", position = vector.create(-2, 0, 0) })
    scene:object("half", { mesh = "arm.gltf", position = vector.create(0.3, 0, 0), animation = { name = "bend", time = 0.5 } })
    scene:object("bent", { mesh = "arm.gltf", position = vector.create(2.6, 0, 0), animation = { name = "bend", time = 3, loop = false } })
"##,
    );
    let arm =
        std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/assets/arm.gltf")).unwrap();
    let dir = game(&[("main.luau", &main)]);
    std::fs::write(dir.path().join("arm.gltf"), arm).unwrap();
    let picture = render_folder(&dir, (240, 160), 1);
    let orange = |x0: u32, x1: u32, y0: u32, y1: u32| {
        (x0..x1)
            .flat_map(|x| (y0..y1).map(move |y| (x, y)))
            .map(|(x, y)| picture.pixel(x, y).unwrap())
            .filter(|p| p.red() > 120 && p.blue() < 80)
            .count()
    };
    // The straight arm's forearm stands above its elbow; the bent one's
    // lies to the left of its elbow, at the elbow's height, where the
    // straight one has none.
    assert!(orange(40, 65, 50, 78) > 200, "the straight forearm is up");
    assert_eq!(orange(195, 215, 45, 78), 0, "nothing above the bent elbow");
    assert!(orange(168, 195, 78, 94) > 200, "the bent forearm lies left");
    assert_close("skinned-arm", &picture);
}

/// A `size` x `size` PNG of a disc of `color`, transparent around it.
fn disc(size: u32, color: tiny_skia::Color) -> Vec<u8> {
    let mut pixmap = Pixmap::new(size, size).unwrap();
    let r = size as f32 / 2.0;
    let path = tiny_skia::PathBuilder::from_circle(r, r, r * 0.9).unwrap();
    let paint = tiny_skia::Paint {
        shader: tiny_skia::Shader::SolidColor(color),
        ..Default::default()
    };
    pixmap.fill_path(
        &path,
        &paint,
        tiny_skia::FillRule::Winding,
        tiny_skia::Transform::identity(),
        None,
    );
    pixmap.encode_png().unwrap()
}

// rule: H18
#[test]
fn billboards_face_the_camera_and_particles_rise_from_an_emitter() {
    // Left: a billboard of a disc texture, seen from above and to the
    // side, still a round disc (it turns to the camera), its transparent
    // corners holes that show the floor. Right: a fountain of particles,
    // yellow at birth fading to red, posed at second 3.
    let main = scene_game(
        "width = 240, height = 160, background = \"#181820\"",
        r##"
    scene:camera({ position = vector.create(2, 3, 5), target = vector.create(0, 0.8, 0), fov = math.rad(50) })
    scene:light("sky", { kind = "ambient", intensity = 0.5 })
    scene:light("sun", { kind = "directional", direction = vector.create(-0.4, -1, -0.3) })
    scene:object("floor", { mesh = "plane", color = "#406040", scale = vector.create(8, 1, 8) })
    scene:object("sign", { mesh = "billboard", texture = "disc.png", lit = false, position = vector.create(-1.2, 1, 0), scale = 1.2 })
    scene:object("fountain", {
        position = vector.create(1.2, 0, 0),
        particles = {
            count = 300, lifetime = 1.2, speed = 3, spread = 0.35, gravity = vector.create(0, -4, 0),
            size = { 0.12, 0.04 }, color = { "#ffe040", "#ff302000" }, seed = 3, time = 3,
        },
    })
"##,
    );
    let dir = game(&[("main.luau", &main)]);
    let blue = tiny_skia::Color::from_rgba8(60, 120, 240, 255);
    std::fs::write(dir.path().join("disc.png"), disc(32, blue)).unwrap();
    let picture = render_folder(&dir, (240, 160), 1);
    let count = |x0: u32,
                 x1: u32,
                 y0: u32,
                 y1: u32,
                 f: &dyn Fn(tiny_skia::PremultipliedColorU8) -> bool| {
        (x0..x1)
            .flat_map(|x| (y0..y1).map(move |y| (x, y)))
            .filter(|&(x, y)| f(picture.pixel(x, y).unwrap()))
            .count()
    };
    let blue = |p: tiny_skia::PremultipliedColorU8| p.blue() > 180 && p.red() < 120;
    let warm = |p: tiny_skia::PremultipliedColorU8| p.red() > 150 && p.blue() < 100;
    assert!(count(0, 120, 0, 160, &blue) > 400, "the disc is drawn");
    assert!(
        count(120, 240, 0, 160, &warm) > 200,
        "the particles are drawn"
    );
    assert_close("billboards-particles", &picture);
}

/// Three squares side by side, each its own material: matte red
/// (roughness 1), shiny red plastic in the middle (roughness 0.2), and a
/// dark one glowing orange (emissive). Each material writes its metallic factor: glTF's default is
/// a wholly metallic surface.
fn materials_gltf() -> String {
    let square = |x0: f32| {
        [
            x0,
            -0.5,
            0.0,
            x0 + 1.0,
            -0.5,
            0.0,
            x0 + 1.0,
            0.5,
            0.0,
            x0,
            0.5,
            0.0,
        ]
    };
    let floats: Vec<f32> = [square(-1.7), square(-0.5), square(0.7)].concat();
    let normals: Vec<f32> = [0.0f32, 0.0, 1.0].repeat(12);
    let mut bytes: Vec<u8> = floats
        .iter()
        .chain(&normals)
        .flat_map(|f| f.to_le_bytes())
        .collect();
    bytes.extend([0u16, 1, 2, 0, 2, 3].iter().flat_map(|i| i.to_le_bytes()));
    let b64 = base64::Engine::encode(&base64::engine::general_purpose::STANDARD, &bytes);
    let mut views = String::new();
    let mut accessors = String::new();
    for k in 0..3 {
        views.push_str(&format!(
            r#"{{"buffer":0,"byteOffset":{},"byteLength":48}},"#,
            k * 48
        ));
        let x0 = -1.7 + 1.2 * k as f32;
        accessors.push_str(&format!(
            r#"{{"bufferView":{k},"componentType":5126,"count":4,"type":"VEC3","min":[{x0},-0.5,0],"max":[{},0.5,0]}},"#,
            x0 + 1.0
        ));
    }
    format!(
        r#"{{"asset":{{"version":"2.0"}},
        "buffers":[{{"byteLength":{len},"uri":"data:application/octet-stream;base64,{b64}"}}],
        "bufferViews":[{views}{{"buffer":0,"byteOffset":144,"byteLength":144}},{{"buffer":0,"byteOffset":288,"byteLength":12}}],
        "accessors":[{accessors}
            {{"bufferView":3,"componentType":5126,"count":12,"type":"VEC3"}},
            {{"bufferView":4,"componentType":5123,"count":6,"type":"SCALAR"}}],
        "materials":[
            {{"pbrMetallicRoughness":{{"baseColorFactor":[0.8,0.05,0.05,1],"metallicFactor":0,"roughnessFactor":1}}}},
            {{"pbrMetallicRoughness":{{"baseColorFactor":[0.8,0.05,0.05,1],"metallicFactor":0,"roughnessFactor":0.2}}}},
            {{"pbrMetallicRoughness":{{"baseColorFactor":[0.05,0.05,0.05,1],"metallicFactor":0}},"emissiveFactor":[1,0.4,0]}}],
        "meshes":[{{"primitives":[
            {{"attributes":{{"POSITION":0}},"indices":4,"material":0}},
            {{"attributes":{{"POSITION":1}},"indices":4,"material":1}},
            {{"attributes":{{"POSITION":2}},"indices":4,"material":2}}]}}],
        "nodes":[{{"mesh":0}}],"scenes":[{{"nodes":[0]}}]}}"#,
        len = bytes.len()
    )
}

// rule: H2
#[test]
fn a_gltf_model_s_metallic_roughness_and_emissive_factors_are_drawn() {
    // The sun shines from behind the camera straight at the squares: the
    // smooth one in the middle shows a white highlight, the matte one its red,
    // the emissive one glows in the dark ambient. The same model with an
    // object's own `roughness = 1` loses the highlight.
    let scene = |props: &str| {
        scene_game(
            "width = 240, height = 80, background = \"#101010\"",
            &format!(
                r##"
    scene:camera({{ position = vector.create(0, 0, 3), target = vector.zero, fov = math.rad(40) }})
    scene:light("sky", {{ kind = "ambient", intensity = 0.05 }})
    scene:light("sun", {{ kind = "directional", direction = vector.create(0, 0, -1), intensity = 0.6 }})
    scene:object("m", {{ mesh = "materials.gltf"{props} }})
"##
            ),
        )
    };
    let draw = |props: &str| {
        let dir = game(&[
            ("main.luau", &scene(props)),
            ("materials.gltf", &materials_gltf()),
        ]);
        render_folder(&dir, (240, 80), 1)
    };
    let picture = draw("");
    let (matte, shiny, glow) = (
        picture.pixel(76, 40).unwrap(),
        picture.pixel(120, 40).unwrap(),
        picture.pixel(164, 40).unwrap(),
    );
    assert!(
        shiny.green() > matte.green() + 60,
        "a highlight: {shiny:?} against {matte:?}"
    );
    assert!(
        matte.red() > 100 && matte.green() < 60,
        "matte red: {matte:?}"
    );
    assert!(
        glow.red() > 220 && glow.green() > 100 && glow.blue() < 60,
        "it glows: {glow:?}"
    );
    assert_close("gltf-materials", &picture);
    let rough = draw(", roughness = 1");
    let overridden = rough.pixel(120, 40).unwrap();
    assert!(
        overridden.green() < matte.green() + 10,
        "the object's roughness replaces the model's: {overridden:?}"
    );
}

/// A 64x32 picture of the whole sky: blue above the horizon, brown below,
/// and a red band up the middle (the heading -z).
fn sky_image() -> Vec<u8> {
    painted(64, 32, |x, y| {
        if y >= 16 {
            tiny_skia::Color::from_rgba8(110, 80, 50, 255)
        } else if (29..35).contains(&x) {
            tiny_skia::Color::from_rgba8(220, 40, 40, 255)
        } else {
            tiny_skia::Color::from_rgba8(60, 110, 220, 255)
        }
    })
}

// rule: H2
#[test]
fn a_sky_image_wraps_all_the_way_round() {
    // Looking down -z and a little up: the red band ahead, blue sky either
    // side, the brown ground below the horizon; turned round to +z, no
    // red band.
    let main = |target: &str| {
        scene_game(
            "width = 160, height = 100",
            &format!(
                r##"
    scene:camera({{ position = vector.zero, target = {target}, fov = math.rad(60) }})
    scene:sky({{ image = "sky.png" }})
"##
            ),
        )
    };
    let draw = |target: &str| {
        let dir = game(&[("main.luau", &main(target))]);
        std::fs::write(dir.path().join("sky.png"), sky_image()).unwrap();
        render_folder(&dir, (160, 100), 1)
    };
    let ahead = draw("vector.create(0, 0.3, -1)");
    let red = |p: tiny_skia::PremultipliedColorU8| p.red() > 180 && p.blue() < 100;
    let blue = |p: tiny_skia::PremultipliedColorU8| p.blue() > 180 && p.red() < 100;
    assert!(red(ahead.pixel(80, 30).unwrap()), "the band ahead");
    assert!(blue(ahead.pixel(10, 30).unwrap()), "the sky beside it");
    let ground = ahead.pixel(80, 98).unwrap();
    assert!(ground.red() > ground.blue(), "the ground below: {ground:?}");
    assert_close("sky-image", &ahead);
    let behind = draw("vector.create(0, 0.3, 1)");
    assert!(!red(behind.pixel(80, 30).unwrap()), "no band behind");
}

/// A glTF square facing the camera (UVs 0 to 1, v down the picture),
/// white, with `normals` (a PNG) as its normal map at `scale`, sampled as
/// whole pixels.
fn normal_mapped_square(normals: &[u8], scale: f32) -> String {
    let floats: [f32; 20] = [
        -1.0, 1.0, 0.0, 1.0, 1.0, 0.0, 1.0, -1.0, 0.0, -1.0, -1.0, 0.0, // corners
        0.0, 0.0, 1.0, 0.0, 1.0, 1.0, 0.0, 1.0, // their UVs
    ];
    let mut bytes: Vec<u8> = floats.iter().flat_map(|f| f.to_le_bytes()).collect();
    bytes.extend([0u16, 3, 2, 0, 2, 1].iter().flat_map(|i| i.to_le_bytes()));
    let encode = |b: &[u8]| base64::Engine::encode(&base64::engine::general_purpose::STANDARD, b);
    let (buffer, png) = (encode(&bytes), encode(normals));
    format!(
        r#"{{"asset":{{"version":"2.0"}},
        "buffers":[{{"byteLength":{len},"uri":"data:application/octet-stream;base64,{buffer}"}}],
        "bufferViews":[{{"buffer":0,"byteOffset":0,"byteLength":48}},{{"buffer":0,"byteOffset":48,"byteLength":32}},
            {{"buffer":0,"byteOffset":80,"byteLength":12}}],
        "accessors":[
            {{"bufferView":0,"componentType":5126,"count":4,"type":"VEC3","min":[-1,-1,0],"max":[1,1,0]}},
            {{"bufferView":1,"componentType":5126,"count":4,"type":"VEC2"}},
            {{"bufferView":2,"componentType":5123,"count":6,"type":"SCALAR"}}],
        "images":[{{"uri":"data:image/png;base64,{png}"}}],
        "samplers":[{{"magFilter":9728,"minFilter":9728}}],
        "textures":[{{"source":0,"sampler":0}}],
        "materials":[{{"normalTexture":{{"index":0,"scale":{scale}}}}}],
        "meshes":[{{"primitives":[{{"attributes":{{"POSITION":0,"TEXCOORD_0":1}},"indices":2,"material":0}}]}}],
        "nodes":[{{"mesh":0}}],
        "scenes":[{{"nodes":[0]}}]}}"#,
        len = bytes.len()
    )
}

// rule: H2
#[test]
fn a_normal_map_bends_the_light_as_its_picture_says() {
    // Four quadrants, each a normal tilted 45 degrees: up left to the
    // right (+x), up right to the left, down left up the picture (+y),
    // down right down it.
    let tilt = |x: f32, y: f32| {
        let byte = |v: f32| ((v * 0.5 + 0.5) * 255.0).round() as u8;
        let s = std::f32::consts::FRAC_1_SQRT_2;
        tiny_skia::Color::from_rgba8(byte(x * s), byte(y * s), byte(s), 255)
    };
    let normals = painted(2, 2, |x, y| match (x, y) {
        (0, 0) => tilt(1.0, 0.0),
        (1, 0) => tilt(-1.0, 0.0),
        (0, _) => tilt(0.0, 1.0),
        _ => tilt(0.0, -1.0),
    });
    let main = scene_game(
        "width = 160, height = 160, background = \"#101010\"",
        r##"
    scene:camera({ position = vector.create(0, 0, 3), target = vector.zero, fov = math.rad(60) })
    scene:light("sky", { kind = "ambient", color = "#202020" })
    -- From the right, a little from above, and in front.
    scene:light("sun", { kind = "directional", direction = vector.create(-2, -1, -2), shadows = false })
    scene:object("square", { mesh = "square.gltf" })
"##,
    );
    let dir = game(&[
        ("main.luau", &main),
        ("square.gltf", &normal_mapped_square(&normals, 1.0)),
    ]);
    let picture = render_folder(&dir, (160, 160), 1);
    let light = |x, y| i32::from(picture.pixel(x, y).unwrap().red());
    let (right, left, up, down) = (
        light(60, 60),
        light(100, 60),
        light(60, 100),
        light(100, 100),
    );
    // Light falls on them by how far each faces it: the one turned right
    // most (0.94), up (0.71), down (0.24), left not at all (the ambient).
    assert!(
        right > up + 10 && up > down + 40 && down > left + 20,
        "right {right}, up {up}, down {down}, left {left}"
    );
    assert_close("normal-map", &picture);
    // A scale of 0 flattens the map: the four quadrants shade alike.
    let flat = game(&[
        ("main.luau", &main),
        ("square.gltf", &normal_mapped_square(&normals, 0.0)),
    ]);
    let picture = render_folder(&flat, (160, 160), 1);
    let shades: Vec<u8> = [(60, 60), (100, 60), (60, 100), (100, 100)]
        .iter()
        .map(|&(x, y)| picture.pixel(x, y).unwrap().red())
        .collect();
    assert!(
        shades.iter().all(|s| s.abs_diff(shades[0]) <= 2),
        "{shades:?}"
    );
}
