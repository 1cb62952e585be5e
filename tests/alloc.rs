//! The host does no heap allocation per frame in steady state, checked
//! with a counting allocator around frames of a game that allocates
//! nothing itself.

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use common::game;
use moonloop::ConstantClock;
use moonloop::Engine;
use moonloop::LuaGame;
use moonloop::session::Session;
use moonloop::{InputEvent, Key};

struct Counting;

thread_local! {
    static COUNTING: Cell<bool> = const { Cell::new(false) };
    // Per thread: tests run side by side, each counting its own.
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

fn count_one() {
    if COUNTING.with(Cell::get) {
        ALLOCATIONS.with(|n| n.set(n.get() + 1));
    }
}

// SAFETY: every call is handed on to the system allocator as it came,
// so its guarantees are the system allocator's; counting allocates
// nothing.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count_one();
        // SAFETY: the caller's promises, handed on.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller's promises, handed on.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count_one();
        // SAFETY: the caller's promises, handed on.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocations_in(f: impl FnOnce()) -> u64 {
    let before = ALLOCATIONS.with(Cell::get);
    COUNTING.with(|c| c.set(true));
    f();
    COUNTING.with(|c| c.set(false));
    ALLOCATIONS.with(Cell::get) - before
}

#[test]
fn steady_frames_allocate_nothing() {
    // The game reads input in update and the state in render, and returns
    // the same (frozen) state: any allocation left is the host's.
    let dir = game(&[(
        "main.luau",
        r#"
        return {
            config = { players = 2, actions = { jump = { "space", "pad:south" } } },
            init = function() return { n = 0, list = { 1, 2, 3 } } end,
            update = function(state, input, dt)
                if input:down("jump") and input:pressed("left") then error("never") end
                -- A player's view is made once and kept (N2).
                if input:player(2):pressed("jump") or input:player(1):axis("leftx") > 0.5 or input:axis("pad:leftx") > 0.5 then
                    error("player 2 presses nothing")
                end
                local x, y = input:pointer()
                if input:text() ~= "" then error("nothing is typed") end
                return state
            end,
            render = function(state, scene, screen)
                local n = state.n + #state.list
            end,
        }
        "#,
    )]);
    let game = LuaGame::load(dir.path()).unwrap();
    // Stepped as a runner steps it: through the session.
    let mut session = Session::new(Engine::new(game, Box::new(ConstantClock::new(1.0 / 60.0))));
    let space = Key::from_name("space").unwrap();
    let mut frames = |n: u32| {
        for i in 0..n {
            // Live input arrives between frames, as from a window.
            let input = session.engine_mut().input_mut();
            input.push(if i % 2 == 0 {
                InputEvent::Press(space)
            } else {
                InputEvent::Release(space)
            });
            input.push(InputEvent::Move(i as f64, 1.0));
            session.advance(1).unwrap();
        }
    };
    frames(200); // warm-up: caches, free lists and the VM settle
    let count = allocations_in(|| frames(2_000));
    assert_eq!(count, 0, "heap allocations over 2,000 steady frames");
}

// rule: R1
#[test]
fn history_allocates_nothing_between_keyframes() {
    // The same state every frame (a new table would be the game's
    // allocation, which the counter cannot tell from the host's): what is
    // left is history's own bookkeeping, input events included.
    let dir = game(&[(
        "main.luau",
        r#"
        return {
            init = function() return { n = 0, list = { 1, 2, 3 } } end,
            update = function(state, input, dt)
                return state
            end,
        }
        "#,
    )]);
    let game = LuaGame::load(dir.path()).unwrap();
    let mut session = Session::new(Engine::new(game, Box::new(ConstantClock::new(1.0 / 60.0))));
    session
        .engine_mut()
        .keep_history(moonloop::history::DEFAULT_CAP)
        .unwrap();
    let space = Key::from_name("space").unwrap();
    let mut frames = |n: u32| {
        for i in 0..n {
            session.engine_mut().input_mut().push(if i % 2 == 0 {
                InputEvent::Press(space)
            } else {
                InputEvent::Release(space)
            });
            session.advance(1).unwrap();
        }
    };
    frames(660); // warm-up, to just past the keyframe of frame 660
    let count = allocations_in(|| frames(59));
    assert_eq!(
        count, 0,
        "heap allocations over the 59 frames between keyframes"
    );
}

#[test]
fn batching_textured_models_allocates_nothing() {
    // The renderer's share of a frame before wgpu: sorting objects into
    // batches by mesh and texture. Models and textures upload once; after
    // that, batches refer to them without copying their names.
    let arm = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/assets/arm.gltf"),
    )
    .unwrap();
    let dir = game(&[
        ("arm.gltf", &arm),
        ("tri.gltf", &common::triangle_gltf()),
        (
            "main.luau",
            r#"
            return {
                render = function(state, scene)
                    scene:camera({ position = vector.create(0, 0, 30), target = vector.zero })
                    for i = 1, 20 do
                        scene:object("tri" .. i, { mesh = "tri.gltf", texture = "checker.png", position = vector.create(i, 0, 0) })
                        scene:object("cube" .. i, { mesh = "cube", texture = "checker.png", position = vector.create(-i, 0, 0) })
                    end
                    for i = 1, 5 do
                        scene:object("arm" .. i, { mesh = "arm.gltf", animation = { name = "bend", time = i * 0.1 } })
                    end
                end,
            }
            "#,
        ),
    ]);
    let mut checker = tiny_skia::Pixmap::new(2, 2).unwrap();
    checker.fill(tiny_skia::Color::from_rgba8(200, 40, 40, 255));
    checker.save_png(dir.path().join("checker.png")).unwrap();
    let game = LuaGame::load(dir.path()).unwrap();
    let mut engine = Engine::new(game, Box::new(ConstantClock::new(1.0 / 60.0)));
    engine.advance(1).unwrap();
    let mut renderer = moonloop::render::Renderer::headless().expect("a software adapter");
    let (scene, assets) = (engine.scene(), engine.assets());
    renderer.batch(scene, assets);
    let n = allocations_in(|| {
        for _ in 0..100 {
            renderer.batch(scene, assets);
        }
    });
    assert_eq!(
        n, 0,
        "allocations over 100 batchings of 40 textured objects and 5 posed ones"
    );
}

/// Counts the heap allocations of 500 frames of the 320x180 game in `dir`,
/// each drawn into a picture, after 50 to warm up.
fn pictures_allocate(dir: &std::path::Path) -> u64 {
    let game = LuaGame::load(dir).unwrap();
    let mut session = Session::new(Engine::new(game, Box::new(ConstantClock::new(1.0 / 60.0))));
    let mut pixmap = tiny_skia::Pixmap::new(320, 180).unwrap();
    let mut frames = |n: u32| {
        for _ in 0..n {
            session.advance(1).unwrap();
            moonloop::compositor::screen_picture_into(session.engine_mut(), &mut pixmap);
        }
    };
    frames(50);
    allocations_in(|| frames(500))
}

// rule: H14
#[test]
fn text_drawn_again_allocates_nothing() {
    // The same strings in the same styles every frame, one in a game's
    // font, wrapped, measured and rasterized: layouts and glyphs are kept,
    // so after the first frames nothing is shaped or allocated.
    let dir = game(&[(
        "main.luau",
        r#"
        local style = { font = "pixel.ttf", size = 8, smooth = false, color = "white" }
        local wrapped = { size = 12, width = 100, align = "center" }
        return {
            config = { width = 320, height = 180 },
            render = function(state, scene, screen)
                local w, h = screen:measure("SCORE 100", style)
                screen:text("SCORE 100", 320 - w, 4, style)
                screen:text("a longer line that wraps in its box", 10, 40, wrapped)
                screen:text("plain", 10, 100)
            end,
        }
        "#,
    )]);
    std::fs::copy(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fonts/pixel5x7.ttf"),
        dir.path().join("pixel.ttf"),
    )
    .unwrap();
    let count = pictures_allocate(dir.path());
    assert_eq!(
        count, 0,
        "heap allocations over 500 frames of the same text"
    );
}

// rule: H15
#[test]
fn sprites_drawn_again_allocate_nothing() {
    // A batch, a tilemap and single sprites, tinted and flipped, every
    // frame: the sprite list and the blit's scratch space are kept.
    let dir = game(&[(
        "main.luau",
        r##"
        local sheet = { image = "sheet.png", width = 8, height = 8 }
        local batch = {}
        for i = 1, 300 do
            batch[i] = { x = i % 40 * 8, y = i // 40 * 8, frame = 1 + i % 4, flip_x = i % 2 == 0 }
        end
        local map = table.create(40 * 4, 2)
        local faded = { scale = 3, tint = "#ff8080", alpha = 0.5 }
        return {
            config = { width = 320, height = 180 },
            render = function(state, scene, screen)
                screen:tiles(sheet, map, 40, 0, 100)
                screen:sprites(sheet, batch)
                screen:sprite(sheet, 3, 10, 150, faded)
            end,
        }
        "##,
    )]);
    let mut sheet = tiny_skia::Pixmap::new(32, 8).unwrap();
    sheet.fill(tiny_skia::Color::from_rgba8(200, 100, 50, 200));
    sheet.save_png(dir.path().join("sheet.png")).unwrap();
    let count = pictures_allocate(dir.path());
    assert_eq!(
        count, 0,
        "heap allocations over 500 frames of the same sprites"
    );
}

// rule: H13
#[test]
fn the_mixer_allocates_nothing_as_it_plays() {
    // What the audio thread does each period: mix clips and a stream,
    // with fades, a bus moving and voices ending. Commands arrive built;
    // the stream's feeder decodes on another thread (pumped here, outside
    // the count).
    use moonloop::sound::{Bus, Clip, Command, Mixer, Params, Source, Start, decode, stream, wav};
    use std::sync::Arc;
    let tone: Vec<i32> = (0..8000)
        .map(|i| if (i / 20) % 2 == 0 { 9000 } else { -9000 })
        .collect();
    let decoder = decode::Decoder::of_bytes(wav::encode(1, 8000, 16, &tone), "wav").unwrap();
    let (music, mut feeder) = stream::open(decoder, true);
    let clip = Arc::new(Clip {
        rate: 22_050,
        channels: 2,
        samples: (0..4410).map(|i| (i as f32 / 100.0).sin() * 0.3).collect(),
    });
    let mut mixer = Mixer::default();
    let start = |voice, source, looped, bus| {
        Command::Start(Start {
            voice,
            source,
            params: Params::default(),
            looped,
            bus,
            fade: 0.5,
        })
    };
    mixer.apply(start(1, Source::Stream(music), false, Bus::Music));
    mixer.apply(start(2, Source::Clip(clip.clone()), true, Bus::Effects));
    mixer.play(clip.clone(), Params::default());
    let mut out = vec![0.0f32; 2 * 512];
    feeder.pump();
    mixer.fill(&mut out);
    let mut bus = Some(Command::Bus {
        bus: Bus::Music,
        volume: 0.3,
        fade: 1.0,
    });
    let mut stop = Some(Command::Stop {
        voice: 2,
        fade: 0.2,
    });
    let mut count = 0;
    for period in 0..400 {
        feeder.pump();
        count += allocations_in(|| {
            if period == 100 {
                mixer.apply(bus.take().unwrap());
            }
            if period == 200 {
                mixer.apply(stop.take().unwrap());
            }
            mixer.fill(&mut out);
        });
    }
    assert!(out.iter().any(|s| *s != 0.0), "the stream still sounds");
    assert_eq!(count, 0, "heap allocations over 400 periods of mixing");
}

// rule: H17
#[test]
fn posing_a_skinned_model_allocates_nothing_once_warm() {
    // Posing works in buffers kept between poses: an arm posed at a new
    // time every frame allocates only the first time.
    let arm = std::fs::read(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/assets/arm.gltf"),
    )
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("arm.gltf"), arm).unwrap();
    let model = moonloop::assets::gltf::load(Some(dir.path()), "arm.gltf").unwrap();
    let rig = model.rig.as_ref().unwrap();
    let mut scratch = moonloop::assets::rig::Scratch::default();
    let (mut positions, mut normals) = (model.positions.clone(), model.normals.clone());
    rig.pose(0, 0.0, &mut scratch, &mut positions, &mut normals);
    let n = allocations_in(|| {
        for i in 0..100 {
            positions.copy_from_slice(&model.positions);
            rig.pose(
                0,
                i as f32 * 0.01,
                &mut scratch,
                &mut positions,
                &mut normals,
            );
        }
    });
    assert_eq!(n, 0, "allocations over 100 poses");
}
