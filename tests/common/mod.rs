//! Helpers shared by the integration tests: games written into temporary
//! folders, and engines stepping them under scripted clocks.
#![allow(dead_code)]

use std::path::Path;
use std::process::Command;

use moonloop::clock::ConstantClock;
use moonloop::engine::Engine;
use moonloop::lua::LuaGame;

/// A game folder holding `files` (`(relative path, source)`).
pub fn game(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (path, source) in files {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, source).unwrap();
    }
    dir
}

/// Loads the game in `dir` into an engine with a constant 1/60 clock.
pub fn engine(dir: &Path) -> Engine<LuaGame> {
    let game = LuaGame::load(dir).unwrap_or_else(|e| panic!("the game loads: {e}"));
    Engine::new(game, Box::new(ConstantClock::new(1.0 / 60.0)))
}

/// Loads a game whose main.luau is `main`, expecting it to fail; returns the message.
pub fn load_error(files: &[(&str, &str)]) -> String {
    let dir = game(files);
    match LuaGame::load(dir.path()) {
        Ok(_) => panic!("the game should not load"),
        Err(e) => e.to_string(),
    }
}

/// Runs one frame of a game whose main file is `main` and returns the
/// error it raised, with the temporary folder's name taken out.
pub fn frame_error(main: &str) -> String {
    let dir = game(&[("main.luau", main)]);
    let err = engine(dir.path())
        .advance(1)
        .expect_err("the frame fails")
        .to_string();
    err.replace(&format!("{}/", dir.path().display()), "")
}

/// Returns the state of `engine` as canonical JSON.
pub fn json(engine: &Engine<LuaGame>) -> String {
    engine.game().state_json().unwrap()
}

/// Writes a picture of where `actual` differs from `expected` by more than
/// `tolerance` in a channel: black where they agree, red where they do
/// not, brighter for bigger differences.
pub fn save_difference(
    expected: &tiny_skia::Pixmap,
    actual: &tiny_skia::Pixmap,
    path: &Path,
    tolerance: u8,
) {
    if (expected.width(), expected.height()) != (actual.width(), actual.height()) {
        return;
    }
    let mut diff = tiny_skia::Pixmap::new(actual.width(), actual.height()).unwrap();
    for ((d, a), e) in diff
        .pixels_mut()
        .iter_mut()
        .zip(actual.pixels())
        .zip(expected.pixels())
    {
        let off = a
            .red()
            .abs_diff(e.red())
            .max(a.green().abs_diff(e.green()))
            .max(a.blue().abs_diff(e.blue()));
        let v = if off <= tolerance {
            0
        } else {
            128u8.saturating_add(off / 2)
        };
        *d = tiny_skia::PremultipliedColorU8::from_rgba(v, 0, 0, 255).unwrap();
    }
    diff.save_png(path).unwrap();
}

/// What a run of the `moonloop` binary printed, and its exit code (-1 when
/// a signal ended it).
pub struct Outcome {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// The binary under test: this build's, or the one `MOONLOOP_UNDER_TEST`
/// names (to show a row fails on an older build).
pub fn binary() -> std::ffi::OsString {
    std::env::var_os("MOONLOOP_UNDER_TEST").unwrap_or_else(|| env!("CARGO_BIN_EXE_moonloop").into())
}

/// Runs the `moonloop` binary with `args` in `dir`.
pub fn moonloop(args: &[&str], dir: &Path) -> Outcome {
    let out = Command::new(binary())
        .args(args)
        .current_dir(dir)
        .output()
        .expect("the binary runs");
    Outcome {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// A glTF model of one triangle in the z = 0 plane, its buffer embedded.
pub fn triangle_gltf() -> String {
    let positions: Vec<u8> = [-1.0f32, -1.0, 0.0, 1.0, -1.0, 0.0, 0.0, 1.0, 0.0]
        .iter()
        .flat_map(|f| f.to_le_bytes())
        .collect();
    let b64 = base64(&positions);
    format!(
        r#"{{"asset":{{"version":"2.0"}},"buffers":[{{"byteLength":36,"uri":"data:application/octet-stream;base64,{b64}"}}],
        "bufferViews":[{{"buffer":0,"byteLength":36}}],
        "accessors":[{{"bufferView":0,"componentType":5126,"count":3,"type":"VEC3","min":[-1,-1,0],"max":[1,1,0]}}],
        "meshes":[{{"primitives":[{{"attributes":{{"POSITION":0}}}}]}}],"nodes":[{{"mesh":0}}],"scenes":[{{"nodes":[0]}}]}}"#
    )
}

fn base64(bytes: &[u8]) -> String {
    const A: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, b)| n | (*b as u32) << (16 - 8 * i));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(A[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}
