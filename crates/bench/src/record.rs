//! The recording cases (rule H4): pong's frames encoded as a GIF at
//! 640x360 and as an animated PNG at 1280x720, each as the recorder writes
//! them (differences from the frame before) against every frame whole (the
//! GIF quantized whole, as the recorder did before).

use std::time::Duration;

use super::interleaved;
use moonloop::clock::ConstantClock;
use moonloop::engine::Engine;
use moonloop::error::{Error, Result};
use moonloop::lua::LuaGame;

/// How many frames each case encodes.
const FRAMES: usize = 60;

/// Renders `FRAMES` frames of pong's screen at `size` as straight RGBA
/// (pong's frames are opaque, so its bytes as they are); `None` when the
/// repository's games are not beside the binary.
fn pong_frames(size: (u32, u32)) -> Result<Option<Vec<Vec<u8>>>> {
    let dir = super::repository().join("games/pong");
    if !dir.join("main.luau").is_file() {
        return Ok(None);
    }
    let game = LuaGame::load(&dir)?;
    let mut engine = moonloop::session::Session::new(Engine::new(
        game,
        Box::new(ConstantClock::new(1.0 / 60.0)),
    ));
    engine.engine_mut().set_surface(size.0, size.1);
    let mut pixmap = tiny_skia::Pixmap::new(size.0, size.1).expect("a frame");
    // Past the serve, so the ball and paddles move in every frame.
    engine.advance(60)?;
    let mut frames = Vec::with_capacity(FRAMES);
    for _ in 0..FRAMES {
        engine.advance(1)?;
        moonloop::compositor::screen_picture_into(engine.engine_mut(), &mut pixmap);
        frames.push(pixmap.data().to_vec());
    }
    Ok(Some(frames))
}

/// Times encoding pong's frames as a GIF at 640x360: returns (whole frames
/// quantized, differences) per frame.
pub fn gif_case() -> Result<Option<(Duration, Duration)>> {
    let Some(frames) = pong_frames((640, 360))? else {
        return Ok(None);
    };
    let mut out = Vec::new();
    let mut rgba = Vec::new();
    let [whole, differences] = interleaved(|case, n| {
        let mut differ = moonloop::record::Differ::default();
        out.clear();
        let mut encoder = gif::Encoder::new(&mut out, 640, 360, &[]).expect("a GIF in memory");
        for i in 0..n {
            let frame = &frames[i as usize % FRAMES];
            let frame = if case == 0 {
                rgba.clear();
                rgba.extend_from_slice(frame);
                gif::Frame::from_rgba_speed(640, 360, &mut rgba, 10)
            } else {
                differ.frame(frame, (640, 360))
            };
            encoder.write_frame(&frame).expect("a GIF in memory");
        }
    });
    Ok(Some((whole, differences)))
}

/// Times encoding pong's frames as an animated PNG at 1280x720: returns
/// (whole frames, differences) per frame.
pub fn apng_case() -> Result<Option<(Duration, Duration)>> {
    let Some(frames) = pong_frames((1280, 720))? else {
        return Ok(None);
    };
    let mut out = Vec::new();
    let mut failed = None;
    let [whole, differences] = interleaved(|case, n| {
        out.clear();
        let delays = vec![(1u16, 60u16); n as usize];
        let mut next = 0;
        let written = moonloop::record::apng(&mut out, (1280, 720), &delays, case == 0, |f| {
            f.copy_from_slice(&frames[next % FRAMES]);
            next += 1;
            Ok(())
        });
        if let Err(e) = written {
            failed = Some(e);
        }
    });
    if let Some(e) = failed {
        return Err(Error::asset(format!("the bench's APNG: {e}")));
    }
    Ok(Some((whole, differences)))
}
