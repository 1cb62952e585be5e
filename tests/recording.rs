//! The recorder by its pictures (rule H4): every recorded frame, decoded,
//! is the picture the game drew that frame (exact to a level for PNG
//! frames and APNG, within the palette's reach for GIF), and encoding runs
//! off the frame's thread.

mod common;

use common::game;
use moonloop::capture::Capture;
use moonloop::session::Session;
use moonloop::{ConstantClock, Engine, LuaGame};
use tiny_skia::Pixmap;

/// A screen-only game whose picture changes every frame.
const MOVING: &str = r##"
return {
    config = { width = 96, height = 64, background = "#203040" },
    init = function() return { n = 0 } end,
    update = function(state) return { n = state.n + 1 } end,
    render = function(state, scene, screen)
        screen:rect(state.n * 6, 8, 20, 20, { fill = "#e04040" })
        screen:circle(48, 40, 6 + state.n, { fill = "#40c060", stroke = "white", width = 2 })
        screen:text(tostring(state.n), 4, 44, { size = 14, color = "#ffff80" })
    end,
}
"##;

const FRAMES: u64 = 8;

/// The game's own pictures, frame by frame, drawn on the CPU by tiny-skia
/// in an engine of their own: what each recorded frame must be.
fn drawn(dir: &std::path::Path) -> Vec<Pixmap> {
    let mut session = Session::new(Engine::new(
        LuaGame::load(dir).unwrap(),
        Box::new(ConstantClock::new(1.0 / 60.0)),
    ));
    (0..FRAMES)
        .map(|_| {
            session.advance(1).unwrap();
            moonloop::screen_picture(session.engine_mut())
        })
        .collect()
}

fn record(dir: &std::path::Path, name: &str) {
    let mut session = Session::new(Engine::new(
        LuaGame::load(dir).unwrap(),
        Box::new(ConstantClock::new(1.0 / 60.0)),
    ));
    let mut capture = Capture::start(&dir.join(name), true).unwrap();
    for _ in 0..FRAMES {
        session.advance(1).unwrap();
        assert!(capture.take(session.engine_mut()).is_none());
    }
    let summary = capture.recorder.finish().unwrap();
    assert_eq!((summary.frames, summary.dropped), (FRAMES, 0), "{name}");
}

/// The largest difference of any channel of any pixel.
fn worst(a: &Pixmap, b: &Pixmap) -> u8 {
    assert_eq!((a.width(), a.height()), (b.width(), b.height()));
    a.pixels()
        .iter()
        .zip(b.pixels())
        .map(|(p, q)| {
            let (p, q) = (p.demultiply(), q.demultiply());
            p.red()
                .abs_diff(q.red())
                .max(p.green().abs_diff(q.green()))
                .max(p.blue().abs_diff(q.blue()))
                .max(p.alpha().abs_diff(q.alpha()))
        })
        .max()
        .unwrap_or(0)
}

// rule: H4
#[test]
fn every_recorded_frame_is_the_picture_the_game_drew() {
    let dir = game(&[("main.luau", MOVING)]);
    let expected = drawn(dir.path());
    assert_ne!(
        expected[0].data(),
        expected[1].data(),
        "the game's picture moves"
    );
    record(dir.path(), "frames");
    record(dir.path(), "out.png");
    record(dir.path(), "out.gif");
    let pngs: Vec<Pixmap> = (1..=FRAMES)
        .map(|k| Pixmap::load_png(dir.path().join(format!("frames/frame-{k:05}.png"))).unwrap())
        .collect();
    let apng = common::apng_frames(&dir.path().join("out.png"));
    let gif = common::gif_frames(&dir.path().join("out.gif"));
    for (format, frames, tolerance) in [
        // The GPU blends the screen layer over the background as tiny-skia
        // does, to within one level (tested in scene_pictures.rs).
        ("PNG frames", &pngs, 1),
        ("APNG", &apng, 1),
        // A GIF holds 256 colors a frame; a game's few flat colors come
        // through close, its anti-aliased edges less so.
        ("GIF", &gif, 40),
    ] {
        assert_eq!(frames.len() as u64, FRAMES, "{format}");
        for (k, (got, want)) in frames.iter().zip(&expected).enumerate() {
            let off = worst(got, want);
            assert!(off <= tolerance, "{format} frame {}: off by {off}", k + 1);
        }
    }
    // Most of a GIF frame is exact: the flat colors.
    let exact = gif[3]
        .pixels()
        .iter()
        .zip(expected[3].pixels())
        .filter(|(a, b)| a == b)
        .count();
    assert!(
        exact * 10 > gif[3].pixels().len() * 9,
        "{exact} exact pixels"
    );
}

// rule: H4
#[test]
fn encoding_runs_off_the_frame_s_thread() {
    use moonloop::record::Recorder;
    let dir = tempfile::tempdir().unwrap();
    let frame = || {
        let mut p = Pixmap::new(640, 360).unwrap();
        p.fill(tiny_skia::Color::from_rgba8(30, 60, 90, 255));
        p
    };
    // A window's recorder never makes the frame wait: when the encoder
    // falls behind (a GIF frame takes milliseconds to quantize, a push
    // microseconds), frames are dropped and counted.
    let mut window = Recorder::start(&dir.path().join("w.gif"), false).unwrap();
    for _ in 0..200 {
        window.push(frame(), 1.0 / 60.0);
    }
    let summary = window.finish().unwrap();
    assert!(
        summary.dropped > 0,
        "the pushes did not wait for the encoder"
    );
    assert_eq!(
        summary.frames + summary.dropped,
        200,
        "every frame kept or counted"
    );
    // A headless one waits instead, and loses nothing.
    let mut headless = Recorder::start(&dir.path().join("h.gif"), true).unwrap();
    for _ in 0..40 {
        headless.push(frame(), 1.0 / 60.0);
    }
    let summary = headless.finish().unwrap();
    assert_eq!((summary.frames, summary.dropped), (40, 0));
}
