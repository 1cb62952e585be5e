//! The renderer's cases: lit cubes at 1280x720, with and without
//! recording, judged on a real GPU only.

use std::time::Duration;

use super::{Row, TempGame, interleaved};
use moonloop::clock::ConstantClock;
use moonloop::engine::Engine;
use moonloop::error::Result;
use moonloop::lua::LuaGame;

/// A game of `n` lit cubes turning on a grid.
fn cubes(n: usize) -> String {
    lit_cubes(n, None)
}

/// A game of `n` cubes on a grid, lit by the default lights or, given
/// `shadows`, by an ambient light and a sun that casts shadows or not.
fn lit_cubes(n: usize, shadows: Option<bool>) -> String {
    let lights = match shadows {
        None => String::new(),
        Some(on) => format!(
            r#"scene:light("sky", {{ kind = "ambient", intensity = 0.3 }})
        scene:light("sun", {{ kind = "directional", direction = vector.create(-1, -2, -1.5), shadows = {on} }})"#
        ),
    };
    format!(
        r##"
local N = {n}
return {{
    config = {{ width = 1280, height = 720, background = "#101018" }},
    init = function() return {{ t = 0 }} end,
    update = function(state, input, dt) return {{ t = state.t + dt }} end,
    render = function(state, scene, screen)
        local side = math.ceil(math.sqrt(N))
        -- The scene is retained: the cubes are posed once. The camera is
        -- still, so the frames with and without recording are the same
        -- picture and their times compare.
        if not scene:has("c0") then
            for i = 0, N - 1 do
                local x, z = i % side - side / 2, i // side - side / 2
                scene:object("c" .. i, {{ mesh = "cube", color = "#e06040", position = vector.create(x * 1.5, 0, z * 1.5),
                    rotation = vector.create(0, i * 0.1, 0) }})
            end
        end
        scene:camera({{ position = vector.create(side * 0.7, side * 0.8, side * 0.9), target = vector.zero }})
        {lights}
    end,
}}
"##
    )
}

/// Frames per second of `n` lit cubes at 1280x720 on the headless
/// renderer, without and with a recording (which drops rather than waits,
/// as in a window, so the loop's own cost is what is timed).
fn cubes_case(
    compositor: &mut moonloop::compositor::Compositor,
    n: usize,
) -> Result<(Duration, Duration, u64)> {
    let dir = TempGame::new(&format!("cubes{n}"), &cubes(n))?;
    let game = LuaGame::load(&dir.0)?;
    let mut engine = moonloop::session::Session::new(Engine::new(
        game,
        Box::new(ConstantClock::new(1.0 / 60.0)),
    ));
    engine.engine_mut().set_surface(1280, 720);
    let out = dir.0.join("out.png");
    let mut recorder = moonloop::record::Recorder::start(&out, false)?;
    let [plain, recording] = interleaved(|case, k| {
        for _ in 0..k {
            engine.advance(1).expect("the game runs");
            let record = (case == 1).then_some(&mut recorder);
            compositor.frame(
                engine.engine_mut(),
                moonloop::compositor::Steps {
                    record,
                    ..Default::default()
                },
            );
            compositor.finish();
        }
    });
    let dropped = recorder.dropped();
    recorder.finish()?;
    Ok((plain, recording, dropped))
}

/// A game of 100 skinned arms (docs/assets/arm.gltf), each posed by its
/// clip at a new time every frame, or standing at rest.
fn arms(posed: bool) -> String {
    let animation = if posed {
        "{ name = \"bend\", time = state.t + i * 0.01 }"
    } else {
        "false"
    };
    format!(
        r##"
return {{
    config = {{ width = 1280, height = 720, background = "#101018" }},
    init = function() return {{ t = 0 }} end,
    update = function(state, input, dt) return {{ t = state.t + dt }} end,
    render = function(state, scene, screen)
        scene:camera({{ position = vector.create(0, 12, 18), target = vector.zero }})
        for i = 0, 99 do
            scene:object("arm" .. i, {{ mesh = "arm.gltf", position = vector.create(i % 10 - 4.5, 0, i // 10 - 4.5),
                animation = {animation} }})
        end
    end,
}}
"##
    )
}

/// A game of one emitter keeping `count` particles alive.
fn fountain(count: u32) -> String {
    format!(
        r##"
return {{
    config = {{ width = 1280, height = 720, background = "#101018" }},
    init = function() return {{ t = 0 }} end,
    update = function(state, input, dt) return {{ t = state.t + dt }} end,
    render = function(state, scene, screen)
        scene:camera({{ position = vector.create(0, 3, 8), target = vector.create(0, 2, 0) }})
        scene:object("fountain", {{ particles = {{ count = {count}, lifetime = 2, speed = 4, spread = 0.5,
            gravity = vector.create(0, -3, 0), size = {{ 0.08, 0.02 }}, color = {{ "#ffe040", "#ff302000" }}, time = state.t + 2 }} }})
    end,
}}
"##
    )
}

/// Frame times of the games `mains` at 1280x720, interleaved, each game's
/// folder holding copies of `files` (paths in this repository).
fn frames_of<const K: usize>(
    compositor: &mut moonloop::compositor::Compositor,
    mains: [String; K],
    files: &[&str],
) -> Result<[Duration; K]> {
    let mut engines = Vec::new();
    let mut dirs = Vec::new();
    for (i, main) in mains.iter().enumerate() {
        let dir = TempGame::new(&format!("frames{i}"), main)?;
        for file in files {
            let from = super::repository().join(file);
            let to = dir.0.join(from.file_name().unwrap_or_default());
            std::fs::copy(&from, &to).map_err(|e| moonloop::error::Error::io(&to, e))?;
        }
        let game = LuaGame::load(&dir.0)?;
        dirs.push(dir);
        let mut engine = Engine::new(game, Box::new(ConstantClock::new(1.0 / 60.0)));
        engine.set_surface(1280, 720);
        engines.push(engine);
    }
    Ok(interleaved(|case, k| {
        let engine = &mut engines[case];
        for _ in 0..k {
            engine.advance(1).expect("the game runs");
            compositor.frame(engine, Default::default());
            compositor.finish();
        }
    }))
}

/// A row of two frame times measured side by side, each named in its
/// note by its frame rate.
fn versus(
    case: &str,
    (base_name, baseline): (&str, Duration),
    (name, measured): (&str, Duration),
    target: Option<f64>,
) -> Row {
    Row {
        case: case.into(),
        baseline,
        measured,
        target,
        gpu: true,
        note: Some(format!(
            "{:.1} fps {name}, {:.1} fps {base_name}",
            1.0 / measured.as_secs_f64(),
            1.0 / baseline.as_secs_f64()
        )),
        ..Row::default()
    }
}

/// Runs the renderer cases; prints the adapter and frame rates.
///
/// # Errors
/// No adapter, or a game fails.
pub fn run_render() -> Result<(Vec<Row>, String, bool)> {
    let mut compositor = moonloop::compositor::Compositor::headless()?;
    let adapter = compositor.renderer().adapter().to_string();
    let software = compositor.renderer().is_software();
    let mut rows = Vec::new();
    let mut one = None;
    for n in [1, 1_000, 10_000] {
        let (plain, recording, dropped) = cubes_case(&mut compositor, n)?;
        rows.push(Row {
            case: format!("{n} lit cubes at 1280x720: frame time"),
            baseline: plain,
            measured: plain,
            gpu: true,
            note: Some(format!(
                "{:.1} fps, {:.1} fps recording",
                1.0 / plain.as_secs_f64(),
                1.0 / recording.as_secs_f64()
            )),
            ..Row::default()
        });
        rows.push(Row {
            case: format!("{n} cubes: frame with recording vs without"),
            baseline: plain,
            measured: recording,
            target: Some(1.2),
            gpu: true,
            note: (dropped > 0).then(|| format!("{dropped} frames dropped")),
            fails: (dropped > 0)
                .then(|| format!("the recording dropped {dropped} frames to keep up")),
        });
        let base = *one.get_or_insert(plain);
        if n == 10_000 {
            rows.push(Row {
                case: "10,000 cubes vs 1 cube: frame time".into(),
                baseline: base,
                measured: plain,
                target: Some(3.0),
                gpu: true,
                ..Row::default()
            });
        }
    }
    let [unshadowed, shadowed] = frames_of(
        &mut compositor,
        [lit_cubes(1_000, Some(false)), lit_cubes(1_000, Some(true))],
        &[],
    )?;
    rows.push(versus(
        "1,000 cubes: frame with a sun's shadows vs without",
        ("without", unshadowed),
        ("with shadows", shadowed),
        Some(1.5),
    ));
    let [few, many] = frames_of(&mut compositor, [fountain(100), fountain(10_000)], &[])?;
    rows.push(versus(
        "10,000 particles vs 100: frame time",
        ("with 100", few),
        ("with 10,000", many),
        None,
    ));
    let [rest, posed] = frames_of(
        &mut compositor,
        [arms(false), arms(true)],
        &["docs/assets/arm.gltf"],
    )?;
    rows.push(versus(
        "100 skinned arms: frame posed anew vs at rest",
        ("at rest", rest),
        ("posed", posed),
        Some(1.5),
    ));
    Ok((rows, adapter, software))
}
