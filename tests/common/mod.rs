//! Helpers shared by the integration tests: games written into temporary
//! folders, and engines stepping them under scripted clocks.
#![allow(dead_code)]

pub mod site;

use std::path::{Path, PathBuf};
use std::process::Command;

use moonloop::ConstantClock;
use moonloop::Engine;
use moonloop::LuaGame;
use moonloop::session::Session;
use tiny_skia::Pixmap;

/// A game that hums (the built-in blip, looped) from its first frame to
/// its last.
pub const HUMMING: &str = r##"
return {
    config = { title = "humming", width = 160, height = 100, pause_on_blur = false },
    update = function(state, input, dt)
        if not state.on then input:play("hum", { sound = "blip", loop = true }) end
        return { on = true }
    end,
}
"##;

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

/// Loads the game in `dir` into a session with a constant 1/60 clock, as
/// a runner does, keeping each frame's cues for the test to read.
pub fn session(dir: &Path) -> Session<LuaGame> {
    let game = LuaGame::load(dir).unwrap_or_else(|e| panic!("the game loads: {e}"));
    Session::new(Engine::new(game, Box::new(ConstantClock::new(1.0 / 60.0)))).keep_cues()
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
    let err = session(dir.path())
        .advance(1)
        .expect_err("the frame fails")
        .to_string();
    err.replace(&format!("{}/", dir.path().display()), "")
}

/// Returns the state of the game `session` runs as canonical JSON.
pub fn json(session: &Session<LuaGame>) -> String {
    session.engine().game().state_json().unwrap()
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
    run_binary(Path::new(&binary()), args, dir)
}

/// Runs the moonloop binary at `binary` (another build's) with `args` in
/// `dir`.
pub fn run_binary(binary: &Path, args: &[&str], dir: &Path) -> Outcome {
    let out = Command::new(binary)
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

/// Runs `game` headless from `dir` under `clock` for `frames` frames,
/// with `extra` arguments after those.
pub fn headless(dir: &Path, game: &str, clock: &str, frames: u64, extra: &[&str]) -> Outcome {
    let frames = frames.to_string();
    let args = [
        &[
            "run",
            game,
            "--headless",
            "--clock",
            clock,
            "--frames",
            &frames,
        ][..],
        extra,
    ]
    .concat();
    moonloop(&args, dir)
}

/// Plays the replay log `log` back on `game` headless from `dir`, printing
/// `print` (`--print-state` or `--state-hash`), for comparing with the run
/// that recorded it.
pub fn replay(dir: &Path, game: &str, log: &str, print: &str) -> Outcome {
    moonloop(&["run", game, "--headless", "--replay", log, print], dir)
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

/// An X server of a window test's own, on a display Xvfb chose itself
/// (`-displayfd`): it says the number once it is ready, so there is no
/// guessing at free displays and no wait on a socket. Killed on drop.
pub struct Xvfb {
    server: std::process::Child,
    /// `:N`, for `DISPLAY`.
    pub display: String,
}

impl Xvfb {
    /// Starts one.
    ///
    /// # Panics
    /// Without Xvfb (`./test.sh` installs it), or if it does not start.
    pub fn start() -> Xvfb {
        use std::io::BufRead;
        let mut server = Command::new("Xvfb")
            .args([
                "-displayfd",
                "1",
                "-screen",
                "0",
                "1024x768x24",
                "-nolisten",
                "tcp",
                // Without it the server resets when its last client
                // leaves, and a window opened just then is refused.
                "-noreset",
            ])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("this test needs Xvfb (./test.sh installs it)");
        let mut line = String::new();
        std::io::BufReader::new(server.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let number = line.trim();
        assert!(!number.is_empty(), "Xvfb did not start");
        Xvfb {
            server,
            display: format!(":{number}"),
        }
    }

    /// A command that runs on this display (and on no Wayland one).
    pub fn command(&self, program: impl AsRef<std::ffi::OsStr>) -> Command {
        let mut command = Command::new(program);
        command
            .env("DISPLAY", &self.display)
            .env_remove("WAYLAND_DISPLAY");
        command
    }

    /// Runs `xdotool` with `args` on this display; returns its stdout.
    pub fn xdotool(&self, args: &[&str]) -> String {
        let out = self
            .command("xdotool")
            .args(args)
            .output()
            .expect("xdotool runs");
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }

    /// Waits (at most 90 s: a loaded 2-core machine starting a software
    /// GPU is slow) for a window titled `title`; returns its id.
    pub fn window(&self, title: &str) -> String {
        for _ in 0..900 {
            let id = self.xdotool(&["search", "--name", title]);
            if let Some(id) = id.lines().next().filter(|l| !l.is_empty()) {
                return id.to_string();
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
        panic!("no window titled {title} appeared");
    }
}

impl Drop for Xvfb {
    fn drop(&mut self) {
        let _ = self.server.kill();
        let _ = self.server.wait();
    }
}

/// Turns straight RGBA bytes of `w` x `h` into a (premultiplied) pixmap.
fn pixmap_from_straight(rgba: &[u8], w: u32, h: u32) -> tiny_skia::Pixmap {
    let mut pixmap = tiny_skia::Pixmap::new(w, h).unwrap();
    for (out, p) in pixmap.pixels_mut().iter_mut().zip(rgba.chunks_exact(4)) {
        *out = tiny_skia::ColorU8::from_rgba(p[0], p[1], p[2], p[3]).premultiply();
    }
    pixmap
}

/// Decodes every frame of an animated PNG, each composed onto the canvas
/// as a viewer shows it. (The recorder blends a frame over the last only
/// where its pixels are clear or opaque, so that is all this composes.)
pub fn apng_frames(path: &Path) -> Vec<tiny_skia::Pixmap> {
    let file = std::io::BufReader::new(std::fs::File::open(path).unwrap());
    let mut reader = png::Decoder::new(file).read_info().unwrap();
    let frames = reader
        .info()
        .animation_control()
        .map_or(1, |a| a.num_frames);
    let (w, h) = (reader.info().width as usize, reader.info().height as usize);
    let mut canvas = vec![0u8; w * h * 4];
    let mut buffer = vec![0; reader.output_buffer_size().unwrap()];
    let mut out = Vec::new();
    for _ in 0..frames {
        let info = reader.next_frame(&mut buffer).unwrap();
        assert_eq!(
            info.color_type,
            png::ColorType::Rgba,
            "the recorder writes RGBA"
        );
        let (x0, y0, over) = reader.info().frame_control().map_or((0, 0, false), |f| {
            (
                f.x_offset as usize,
                f.y_offset as usize,
                f.blend_op == png::BlendOp::Over,
            )
        });
        let (fw, fh) = (info.width as usize, info.height as usize);
        for row in 0..fh {
            for col in 0..fw {
                let src = (row * fw + col) * 4;
                let px = &buffer[src..src + 4];
                if over && px[3] == 0 {
                    continue;
                }
                let dst = ((y0 + row) * w + x0 + col) * 4;
                canvas[dst..dst + 4].copy_from_slice(px);
            }
        }
        out.push(pixmap_from_straight(&canvas, w as u32, h as u32));
    }
    out
}

/// Decodes every frame of a GIF, each composed onto the canvas as a
/// viewer shows it.
pub fn gif_frames(path: &Path) -> Vec<tiny_skia::Pixmap> {
    let mut options = gif::DecodeOptions::new();
    options.set_color_output(gif::ColorOutput::RGBA);
    let mut decoder = options
        .read_info(std::fs::File::open(path).unwrap())
        .unwrap();
    let (w, h) = (decoder.width() as u32, decoder.height() as u32);
    let mut canvas = vec![0u8; (w * h * 4) as usize];
    let mut out = Vec::new();
    while let Some(frame) = decoder.read_next_frame().unwrap() {
        for row in 0..frame.height as u32 {
            for col in 0..frame.width as u32 {
                let src = ((row * frame.width as u32 + col) * 4) as usize;
                let (x, y) = (frame.left as u32 + col, frame.top as u32 + row);
                if frame.buffer[src + 3] == 0 || x >= w || y >= h {
                    continue;
                }
                let dst = ((y * w + x) * 4) as usize;
                canvas[dst..dst + 4].copy_from_slice(&frame.buffer[src..src + 4]);
            }
        }
        out.push(pixmap_from_straight(&canvas, w, h));
    }
    out
}

/// Where the screen layer's reference picture `name` lives.
fn reference(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/images/screen")
        .join(format!("{name}.png"))
}

/// Compares `picture` with the reference `name`; on a mismatch writes
/// `-actual.png` and `-difference.png` beside it and fails with their paths.
pub fn assert_golden(name: &str, picture: &Pixmap) {
    let path = reference(name);
    let bless = std::env::var_os("MOONLOOP_BLESS").is_some();
    let expected = Pixmap::load_png(&path).ok();
    if expected
        .as_ref()
        .is_some_and(|e| e.data() == picture.data())
    {
        return;
    }
    if bless {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        picture.save_png(&path).unwrap();
        return;
    }
    let actual = path.with_file_name(format!("{name}-actual.png"));
    picture.save_png(&actual).unwrap();
    let Some(expected) = expected else {
        panic!(
            "no reference {}; the picture is at {} (bless with MOONLOOP_BLESS=1)",
            path.display(),
            actual.display()
        );
    };
    let difference = path.with_file_name(format!("{name}-difference.png"));
    save_difference(&expected, picture, &difference, 0);
    panic!(
        "{name} differs from {}: see {} and {}",
        path.display(),
        actual.display(),
        difference.display()
    );
}

/// Renders one frame of a game whose render body is `body`, at a logical
/// size of 160x120, onto a surface of `surface` device pixels.
pub fn picture(body: &str, surface: (u32, u32), extra: &[(&str, &[u8])]) -> Pixmap {
    let main = format!(
        "return {{\n  config = {{ width = 160, height = 120, background = \"#202830\" }},\n  render = function(state, scene, screen)\n{body}\n  end,\n}}\n"
    );
    let dir = game(&[("main.luau", &main)]);
    for (name, bytes) in extra {
        std::fs::write(dir.path().join(name), bytes).unwrap();
    }
    let game = LuaGame::load(dir.path()).unwrap();
    let mut session = Session::new(Engine::new(game, Box::new(ConstantClock::new(1.0 / 60.0))));
    session.engine_mut().set_surface(surface.0, surface.1);
    session
        .advance(1)
        .unwrap_or_else(|e| panic!("the frame runs: {e}"));
    moonloop::screen_picture(session.engine_mut())
}

/// Runs the game `main` headless five times under a jittering clock with
/// the same input (Space at frames 40 and 90), recording the first run's
/// input, then replays that log: every run and the replay must print the
/// same state hash (rule P3, P10: a physics world is the same every time).
pub fn five_runs_and_a_replay_agree(main: &str) {
    let dir = game(&[
        ("g/main.luau", main),
        ("g/in.txt", "40 tap space\n90 tap space\n"),
    ]);
    // Its saves go to a folder of the test's own.
    let saves = tempfile::tempdir().unwrap();
    let run_with = |args: &[&str]| {
        let out = Command::new(binary())
            .args(args)
            .current_dir(dir.path())
            .env("XDG_DATA_HOME", saves.path())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(0), "{stderr}");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let run = |extra: &[&str]| {
        let args = [
            "run",
            "g",
            "--headless",
            "--clock",
            "jitter:seed=3,min=0.008,max=0.033",
            "--frames",
            "180",
            "--input",
            "g/in.txt",
            "--state-hash",
        ];
        run_with(&[&args[..], extra].concat())
    };
    let first = run(&["--record-input", "run.replay"]);
    for _ in 0..4 {
        assert_eq!(run(&[]), first);
    }
    let replayed = run_with(&[
        "run",
        "g",
        "--headless",
        "--replay",
        "run.replay",
        "--state-hash",
    ]);
    assert_eq!(replayed, first);
}

/// Says whether the cross-built things `needs` names (each: whether it is
/// there, and what it is) are all here. When one is missing: fails if the
/// environment variable `required` is set (CI sets it after building
/// them), else says the rows are skipped, with `how` to make them.
pub fn cross_ready(needs: &[(bool, String)], required: &str, how: &str) -> bool {
    let missing: Vec<&String> = needs
        .iter()
        .filter(|(here, _)| !here)
        .map(|(_, what)| what)
        .collect();
    if missing.is_empty() {
        return true;
    }
    assert!(
        std::env::var_os(required).is_none(),
        "missing {missing:?}: {how}"
    );
    eprintln!("skipped: missing {missing:?} ({how})");
    false
}
