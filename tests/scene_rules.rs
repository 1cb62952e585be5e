//! The retained scene from Luau (rule H2) and the pointer picking that
//! reads it (H6): objects posed in `render`, world matrices and the camera
//! read at step 7, and the next frame's `update` picking through it.

mod common;

use common::{game, json, session, triangle_gltf};
use glam::Vec3;
use moonloop::InputEvent;

const PICKER: &str = r##"
return {
    config = { width = 200, height = 100 },
    init = function() return { hover = "", ray = false } end,
    update = function(state, input, dt)
        local origin, direction = input:ray()
        return { hover = input:hover() or "", ray = origin ~= nil and direction.z < 0 }
    end,
    render = function(state, scene, screen)
        scene:camera({ position = vector.create(0, 0, 10), target = vector.zero, fov = math.rad(60) })
        scene:object("box", { mesh = "cube", color = "#e04040", position = vector.create(0, 0, 0) })
        scene:object("ball", { mesh = "sphere", position = vector.create(3, 0, 0), scale = 2 })
        scene:light("sun", { kind = "directional", direction = vector.create(-1, -2, -1) })
    end,
}
"##;

// rule: H2
#[test]
fn the_pointer_picks_what_the_camera_showed_last_frame() {
    let dir = game(&[("main.luau", PICKER)]);
    let mut e = session(dir.path());
    // Frame 1: nothing has been seen yet, so there is no ray.
    e.engine_mut()
        .input_mut()
        .push(InputEvent::Move(100.0, 50.0));
    e.advance(1).unwrap();
    assert_eq!(
        json(&e),
        "{\n  \"hover\": \"\",\n  \"ray\": false\n}",
        "no camera read before frame 1"
    );
    // Frame 2: the ray goes through the camera frame 1 read at step 7.
    e.advance(1).unwrap();
    assert_eq!(json(&e), "{\n  \"hover\": \"box\",\n  \"ray\": true\n}");
    // The pointer over the ball (x = 3 at distance 10, 60° fov, 2:1 aspect).
    let x = 100.0 + 3.0 / (10.0 * (30f64).to_radians().tan() * 2.0) * 100.0;
    e.engine_mut().input_mut().push(InputEvent::Move(x, 50.0));
    e.advance(1).unwrap();
    assert!(json(&e).contains("\"hover\": \"ball\""), "{}", json(&e));
    // A pointer in a letterbox bar leaves the game's area: nothing is hit.
    e.engine_mut().set_surface(400, 100);
    assert_eq!(
        e.engine().viewport().to_logical((10.0, 50.0)),
        None,
        "the left bar"
    );
    e.engine_mut().input_mut().push(InputEvent::Leave);
    e.advance(1).unwrap();
    assert_eq!(json(&e), "{\n  \"hover\": \"\",\n  \"ray\": false\n}");
}

// rule: H2
#[test]
fn objects_persist_across_frames_and_form_a_hierarchy() {
    let dir = game(&[(
        "main.luau",
        r#"
        return {
            init = function() return { t = 0 } end,
            update = function(s, input, dt) return { t = s.t + dt } end,
            render = function(state, scene)
                if not scene:has("arm") then
                    scene:object("arm", { mesh = "cube", position = vector.create(1, 0, 0) })
                    scene:object("hand", { mesh = "sphere", parent = "arm", position = vector.create(2, 0, 0) })
                end
                -- Only the rotation changes; position and parent are retained.
                scene:object("arm", { rotation = vector.create(0, math.pi / 2, 0) })
                local arm = scene:get("arm")
                assert(arm.position.x == 1, "retained position")
                assert(scene:get("nothing") == nil)
            end,
        }
        "#,
    )]);
    let mut e = session(dir.path());
    e.advance(3).unwrap();
    let hand = e
        .engine()
        .scene()
        .get("hand")
        .unwrap()
        .world
        .transform_point3(Vec3::ZERO);
    assert!((hand - Vec3::new(1.0, 0.0, -2.0)).length() < 1e-5, "{hand}");
    assert_eq!(e.engine().scene().objects().len(), 2);
}

// rule: H2
#[test]
fn a_gltf_model_loads_and_can_be_hit() {
    let gltf = triangle_gltf();
    let dir = game(&[
        ("tri.gltf", &gltf),
        (
            "broken.gltf",
            "{\"asset\": {\"version\": \"2.0\"}, \"buffers\": [",
        ),
        (
            "main.luau",
            r#"
            return {
                update = function(s, input) return { hover = input:hover() or "" } end,
                render = function(state, scene)
                    scene:camera({ position = vector.create(0, 0, 5), target = vector.zero })
                    scene:object("tri", { mesh = "tri.gltf" })
                end,
            }
            "#,
        ),
    ]);
    let mut e = session(dir.path());
    e.engine_mut()
        .input_mut()
        .push(InputEvent::Move(640.0, 360.0));
    e.advance(2).unwrap();
    assert!(json(&e).contains("\"hover\": \"tri\""), "{}", json(&e));
    let model = e.engine().scene().objects()[0].mesh.clone();
    let moonloop::Mesh::Model(i) = model else {
        panic!("a model mesh")
    };
    assert_eq!(e.engine().assets().model_at(i).indices, [0, 1, 2]);

    let bad = game(&[
        (
            "broken.gltf",
            "{\"asset\": {\"version\": \"2.0\"}, \"buffers\": [",
        ),
        (
            "main.luau",
            "return { render = function(s, scene) scene:object('x', { mesh = 'broken.gltf' }) end }",
        ),
    ]);
    let err = session(bad.path()).advance(1).unwrap_err().to_string();
    assert!(
        err.contains("scene:object: `broken.gltf` is not a readable glTF model"),
        "{err}"
    );
}

#[test]
fn scene_errors_name_the_call_and_the_property() {
    let cases = [
        (
            "scene:object('a', { mesh = 'teapot' })",
            "scene:object: unknown mesh `teapot`",
        ),
        (
            "scene:object('a', { position = vector.create(0/0, 0, 0) })",
            "scene:object: `position` has a component that is not finite",
        ),
        (
            "scene:object('a', { colour = 'red' })",
            "scene:object: no property `colour`",
        ),
        (
            "scene:object('a', { color = 'reddish' })",
            "scene:object: `color`: `reddish` is not a color",
        ),
        (
            "scene:object('a', { parent = 'a' })",
            "scene:object: `a` cannot be its own parent",
        ),
        (
            "scene:object('a', { mesh = '../x.gltf' })",
            "scene:object: `../x.gltf` is not a path inside the game folder",
        ),
        (
            "scene:camera({ position = vector.zero, target = vector.zero })",
            "scene:camera: `position` and `target` are the same point",
        ),
        (
            "scene:camera({ near = 5, far = 1 })",
            "scene:camera: `near` (5) must be above 0 and below `far` (1)",
        ),
        (
            "scene:light('l', { kind = 'spot' })",
            "scene:light: `kind` is \"ambient\", \"directional\" or \"point\"",
        ),
    ];
    for (call, message) in cases {
        let err = common::frame_error(&format!(
            "return {{ render = function(state, scene, screen)\n  {call}\nend }}"
        ));
        assert!(
            err.starts_with(&format!("main.luau:2: {message}")),
            "{call}: {err}"
        );
    }
}

#[test]
fn a_parent_cycle_is_a_frame_error_not_a_hang() {
    let dir = game(&[(
        "main.luau",
        "return { render = function(s, scene)\n  scene:object('a', { parent = 'b' })\n  scene:object('b', { parent = 'a' })\nend }",
    )]);
    let err = session(dir.path()).advance(1).unwrap_err().to_string();
    let err = err.replace(&format!("{}/", dir.path().display()), "");
    assert_eq!(
        err,
        "main.luau:2: scene: `a` is its own ancestor: the parents form a cycle"
    );
}

// rule: H2 (a parent named but never posed is the author's line's error)
#[test]
fn a_parent_never_posed_is_an_error_at_the_line_that_named_it() {
    let dir = game(&[(
        "main.luau",
        "return { render = function(s, scene)\n  scene:object('arm')\n  scene:object('hand', { parent = 'arm' })\n  scene:object('o', { parent = 'nobody' })\nend }",
    )]);
    let err = session(dir.path()).advance(1).unwrap_err().to_string();
    let err = err.replace(&format!("{}/", dir.path().display()), "");
    assert_eq!(
        err,
        "main.luau:4: scene: `o` has parent `nobody`, which is not in the scene"
    );
}

// rule: H2
#[test]
fn the_scene_takes_colors_as_the_screen_does_and_refuses_them_alike() {
    let good = game(&[(
        "main.luau",
        "return { render = function(s, scene, screen)\n  scene:object('a', { color = { 1, 0.5, 0 } })\n  scene:object('b', { color = { r = 0, g = 0, b = 1, a = 0.5 } })\n  screen:rect(0, 0, 1, 1, { fill = { 1, 0.5, 0 } })\nend }",
    )]);
    let mut e = session(good.path());
    e.advance(1).unwrap();
    let color = |name: &str| e.engine().scene().get(name).unwrap().material.color;
    assert_eq!((color("a").r, color("a").g, color("a").b), (1.0, 0.5, 0.0));
    assert_eq!(color("b").a, 0.5);
    // The same wrong table, refused by both in the same words.
    let message = |call: &str| {
        common::frame_error(&format!(
            "return {{ render = function(s, scene, screen)\n  {call}\nend }}"
        ))
    };
    let scene = message("scene:object('a', { color = { 1, 'x', 0 } })");
    let screen = message("screen:rect(0, 0, 1, 1, { fill = { 1, 'x', 0 } })");
    let reason = "`g` should be a number, not a string";
    assert!(scene.ends_with(reason), "{scene}");
    assert!(screen.ends_with(reason), "{screen}");
}

// rule: H16
#[test]
fn two_suns_casting_shadows_are_said_once_and_a_wrong_shadows_is_named() {
    let suns = r##"
return {
  config = { width = 64, height = 48 },
  render = function(state, scene, screen)
    scene:light("a", { kind = "directional", direction = vector.create(0, -1, 0) })
    scene:light("b", { kind = "directional", direction = vector.create(1, -1, 0) })
    scene:object("c", { mesh = "cube" })
  end,
}
"##;
    let dir = game(&[("main.luau", suns)]);
    let out = drawn_run(dir.path(), 5, "frames");
    let said = "scene: 2 directional lights cast shadows; the renderer draws the first one's (give the others `shadows = false`)";
    assert_eq!(out.stderr.matches(said).count(), 1, "{}", out.stderr);
    // With the second turned off, nothing is said.
    let one = suns.replace(
        "vector.create(1, -1, 0) }",
        "vector.create(1, -1, 0), shadows = false }",
    );
    std::fs::write(dir.path().join("main.luau"), one).unwrap();
    let out = drawn_run(dir.path(), 5, "frames2");
    assert_eq!(
        (out.code, out.stderr.contains("shadows")),
        (0, false),
        "{}",
        out.stderr
    );
    // A `shadows` that is not a boolean is refused by name, at its line.
    let wrong = suns.replace(
        "vector.create(1, -1, 0) }",
        "vector.create(1, -1, 0), shadows = \"no\" }",
    );
    std::fs::write(dir.path().join("main.luau"), wrong).unwrap();
    let out = common::moonloop(&["run", ".", "--headless", "--frames", "1"], dir.path());
    assert!(
        out.stderr.contains("main.luau:6:")
            && out
                .stderr
                .contains("`shadows` is true or false, not a string"),
        "{}",
        out.stderr
    );
}

// rule: H2
#[test]
fn a_model_feature_the_host_does_not_draw_is_a_note_said_once_and_the_run_passes() {
    let main = r##"
return {
  config = { width = 64, height = 48 },
  render = function(state, scene, screen)
    scene:object("m", { mesh = "m.gltf" })
  end,
}
"##;
    let model = triangle_gltf().replacen(
        r#"{"asset":{"version":"2.0"},"#,
        r#"{"asset":{"version":"2.0"},"extensionsUsed":["KHR_draco_mesh_compression"],"#,
        1,
    );
    let dir = game(&[("main.luau", main), ("m.gltf", &model)]);
    let out = drawn_run(dir.path(), 5, "frames");
    let note = "moonloop: note: `m.gltf` uses the glTF extension KHR_draco_mesh_compression, which the host does not support";
    assert_eq!(out.stderr.matches(note).count(), 1, "{}", out.stderr);
    assert_eq!(out.code, 0, "{}", out.stderr);
}

// rule: H17
#[test]
fn a_wrong_animation_is_named_at_its_line() {
    let arm = arm_gltf();
    let cases = [
        (
            r#"{ mesh = "arm.gltf", animation = { name = "wave", time = 0 } }"#,
            "`arm.gltf` has no clip `wave` (it has bend, hop)",
        ),
        (
            r#"{ mesh = "tri.gltf", animation = { name = "bend", time = 0 } }"#,
            "`tri.gltf` has no clip `bend` (it has none)",
        ),
        (
            r#"{ mesh = "cube", animation = { name = "bend", time = 0 } }"#,
            "`animation` poses a glTF model",
        ),
        (
            r#"{ mesh = "arm.gltf", animation = { name = "bend" } }"#,
            "animation.time",
        ),
        (
            r#"{ mesh = "arm.gltf", animation = { name = "bend", time = 0, speed = 2 } }"#,
            "`animation` takes name, time and loop",
        ),
        (
            r#"{ mesh = "arm.gltf", animation = "bend" }"#,
            "`animation` is { name = clip, time = seconds }, or false for none",
        ),
    ];
    let files = [("arm.gltf", arm), ("tri.gltf", triangle_gltf())];
    for (props, said) in cases {
        refused_at_line_3(&format!("scene:object(\"a\", {props})"), &files, said);
    }
}

// rule: H17
#[test]
fn a_posed_model_is_picked_where_it_is_drawn() {
    let arm = arm_gltf();
    // As the picture test draws it (tests/images/scene/skinned-arm.png):
    // the arm at x = 2.6 bent a right angle, its forearm lying left.
    let main = r##"
return {
  config = { width = 240, height = 160 },
  init = function() return { hover = "" } end,
  update = function(state, input, dt) return { hover = input:hover() or "" } end,
  render = function(state, scene, screen)
    scene:camera({ position = vector.create(0, 1.2, 6), target = vector.create(0, 1.2, 0), fov = math.rad(45) })
    scene:object("bent", { mesh = "arm.gltf", position = vector.create(2.6, 0, 0), animation = { name = "bend", time = 1, loop = false } })
  end,
}
"##;
    let dir = game(&[("main.luau", main), ("arm.gltf", &arm)]);
    let mut e = session(dir.path());
    // On the bent forearm: a hit.
    e.engine_mut()
        .input_mut()
        .push(InputEvent::Move(180.0, 86.0));
    e.advance(2).unwrap();
    assert_eq!(json(&e), "{\n  \"hover\": \"bent\"\n}");
    // Where the forearm stands at rest, above the elbow: nothing now.
    e.engine_mut()
        .input_mut()
        .push(InputEvent::Move(205.0, 60.0));
    e.advance(1).unwrap();
    assert_eq!(json(&e), "{\n  \"hover\": \"\"\n}");
}

// rule: H18
#[test]
fn a_wrong_emitter_is_named_at_its_line() {
    let cases = [
        ("{ count = 10 }", "`time` is needed"),
        (
            "{ time = 0, count = 1e9 }",
            "`count` is a whole number from 0 to 100000",
        ),
        ("{ time = 0, lifetime = 0 }", "`lifetime` is above 0"),
        (
            "{ time = 0, spread = 4 }",
            "`spread` is from 0 to math.pi radians",
        ),
        ("{ time = 0, colour = \"red\" }", "no property `colour`"),
        ("\"fire\"", "`particles` is { count, lifetime"),
    ];
    for (props, said) in cases {
        refused_at_line_3(
            &format!("scene:object(\"e\", {{ particles = {props} }})"),
            &[],
            said,
        );
    }
}

// rule: H18, H10
#[test]
fn particles_past_a_frame_s_bound_are_left_out_and_said_once() {
    let main = r##"
return {
  config = { width = 64, height = 48 },
  render = function(state, scene, screen)
    for i = 1, 3 do
      scene:object(`e{i}`, { particles = { count = 100000, lifetime = 1, time = 5, size = 0.01 } })
    end
  end,
}
"##;
    let dir = game(&[("main.luau", main)]);
    let out = drawn_run(dir.path(), 3, "frames");
    let said = "scene: more than 250000 particles in a frame; the renderer draws the first 250000";
    assert_eq!(out.stderr.matches(said).count(), 1, "{}", out.stderr);
}

/// Runs the game in `dir` headless for `frames` frames, drawing each (a
/// recording into `to`): what the renderer says is in its stderr.
fn drawn_run(dir: &std::path::Path, frames: u32, to: &str) -> common::Outcome {
    let frames = frames.to_string();
    common::moonloop(
        &[
            "run",
            ".",
            "--headless",
            "--frames",
            &frames,
            "--record",
            to,
        ],
        dir,
    )
}

/// docs/assets/arm.gltf: a skinned arm with the clips bend and hop.
fn arm_gltf() -> String {
    std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/assets/arm.gltf"),
    )
    .unwrap()
}

/// Runs a game whose `render` makes the one call `call` (on its line 3),
/// beside `files`, and checks that its first frame fails there saying
/// `said`.
fn refused_at_line_3(call: &str, files: &[(&str, String)], said: &str) {
    let main =
        format!("return {{\n  render = function(state, scene, screen)\n    {call}\n  end,\n}}\n");
    let mut all: Vec<(&str, &str)> = vec![("main.luau", &main)];
    all.extend(files.iter().map(|(name, text)| (*name, text.as_str())));
    let dir = game(&all);
    let err = session(dir.path()).advance(1).unwrap_err().to_string();
    assert!(
        err.contains("main.luau:3:") && err.contains(said),
        "{call}: {err}"
    );
}

// rule: H17, H10
#[test]
fn the_renderer_keeps_posed_vertices_for_the_objects_of_the_last_frame_only() {
    // A game that poses a new name each frame (and removes the last one)
    // leaves the renderer holding the posed vertices of the last two
    // frames' objects (a frame lets go of what the one before it did not
    // pose), not one for every name it ever used.
    let main = r##"
return {
  init = function() return { n = 0 } end,
  update = function(state, input, dt) return { n = state.n + 1 } end,
  render = function(state, scene, screen)
    scene:remove(`arm{state.n - 1}`)
    scene:object(`arm{state.n}`, { mesh = "arm.gltf", animation = { name = "bend", time = state.n / 10 } })
  end,
}
"##;
    let dir = game(&[("main.luau", main), ("arm.gltf", &arm_gltf())]);
    let mut e = session(dir.path());
    let mut renderer = moonloop::render::Renderer::headless().expect("a software adapter");
    for _ in 0..20 {
        e.advance(1).unwrap();
        renderer.batch(e.engine().scene(), e.engine().assets());
    }
    assert_eq!(renderer.posed_objects(), 2);
}

/// A game whose two crates trade places every frame, with the pointer on
/// the middle: what is under it changes with each frame drawn.
const SWAPPING: &str = r##"
return {
    config = { width = 200, height = 100 },
    init = function() return { t = 0, hover = "" } end,
    update = function(state, input, dt)
        return { t = state.t + 1, hover = input:hover() or "" }
    end,
    render = function(state, scene, screen)
        scene:camera({ position = vector.create(0, 0, 10), target = vector.zero })
        local here, there = vector.zero, vector.create(0, 30, 0)
        local even = state.t % 2 == 0
        scene:object("crate1", { mesh = "cube", position = if even then here else there })
        scene:object("crate2", { mesh = "cube", position = if even then there else here })
    end,
}
"##;

// rule: H6, N1, R1
#[test]
fn a_frame_run_again_is_answered_what_the_pointer_was_over_when_it_ran() {
    let dir = game(&[("main.luau", SWAPPING)]);
    let mut e = session(dir.path());
    e.engine_mut()
        .set_synctest(Some(4), moonloop::history::DEFAULT_CAP)
        .unwrap();
    e.engine_mut()
        .input_mut()
        .push(InputEvent::Move(100.0, 50.0));
    let mut seen = Vec::new();
    for frame in 1..=12 {
        let ran = e.advance(1);
        assert!(ran.is_ok(), "frame {frame}: {ran:?}");
        seen.push(e.engine().game().state_hash().unwrap());
    }
    assert!(
        e.engine().synctest_checked() >= 4 * 8,
        "{}",
        e.engine().synctest_checked()
    );
    assert!(
        json(&e).contains("crate"),
        "the pointer is over a crate: {}",
        json(&e)
    );
    // Rewound and shown again, a past frame has the state it had.
    e.engine_mut().rewind(5).unwrap();
    assert_eq!(e.engine().game().state_hash().unwrap(), seen[6]);
}
