//! The walls (rules H10, H11): hostile games, files and command lines,
//! one row each, grouped by the class of wall they test. Each row is run
//! by the binary in a fresh folder holding the game `g/` and, beside it,
//! `outside/` (a secret it must not reach). The first line, the exit code
//! and what survives are checked; no row may panic, abort or reach the
//! secret.
//!
//! Every row failed on the build before the walls (6a2cd07): set
//! `MOONLOOP_UNDER_TEST` to another binary to run them against it.

use std::path::Path;

use super::common::{Outcome, binary, moonloop};

/// The secret beside the game folder; no row may print it.
const SECRET: &str = "root:x:0:0:the-secret-line";

/// What a row checks in its folder after the run: `Err` says what is wrong.
pub type After = fn(&Path) -> Result<(), String>;

/// One hostile case.
pub struct Row {
    pub what: &'static str,
    files: Vec<(String, Vec<u8>)>,
    links: Vec<(String, String)>,
    /// Pipes to make, by path in the row's folder.
    fifos: Vec<String>,
    args: Vec<String>,
    /// A piece of the first line on stderr (or of stdout, for `moonloop test`).
    first: String,
    code: i32,
    /// A piece of stdout that shows what survived.
    survives: Option<String>,
    /// A line the run also says, after its first.
    also: Option<String>,
    /// The most bytes a file of the run may hold (`ulimit -f`).
    file_size: Option<u64>,
    /// A signal sent after so many seconds, and the exit code it gives.
    signal: Option<(&'static str, f64)>,
    /// Checks of the folder after the run.
    after: Vec<After>,
}

impl Row {
    pub fn new(what: &'static str) -> Row {
        Row {
            what,
            files: Vec::new(),
            links: Vec::new(),
            fifos: Vec::new(),
            args: RUN.iter().map(|s| s.to_string()).collect(),
            first: String::new(),
            code: 0,
            survives: None,
            also: None,
            file_size: None,
            signal: None,
            after: Vec::new(),
        }
    }

    /// A pipe at `path` (from the row's folder), which nothing writes.
    pub fn fifo(mut self, path: &str) -> Row {
        self.fifos.push(path.to_string());
        self
    }

    /// Runs the host with files capped at `bytes` (as `ulimit -f` does).
    pub fn file_size(mut self, bytes: u64) -> Row {
        self.file_size = Some(bytes);
        self
    }

    /// Sends `signal` (`HUP`, `TERM`) after `seconds`.
    pub fn signal(mut self, signal: &'static str, seconds: f64) -> Row {
        self.signal = Some((signal, seconds));
        self
    }

    /// Checks the row's folder after the run with `check`.
    pub fn after(mut self, check: After) -> Row {
        self.after.push(check);
        self
    }

    pub fn file(mut self, path: &str, bytes: impl Into<Vec<u8>>) -> Row {
        self.files.push((path.to_string(), bytes.into()));
        self
    }

    /// A game whose `update` runs `body` from frame 2 on (frame 1 counts,
    /// so the last good state is `{ n = 1 }` when it fails every time).
    pub fn update(self, body: &str) -> Row {
        self.file(
            "g/main.luau",
            format!(
                "return {{\n  config = {{ budget = 0.2, memory = 64 }},\n  init = function() return {{ n = 0 }} end,\n  update = function(state, input, dt)\n    if state.n >= 1 then\n      {body}\n    end\n    return {{ n = state.n + 1 }}\n  end,\n}}\n"
            ),
        )
    }

    /// A game whose `render` runs `body` from frame 2 on; update counts.
    pub fn render(self, body: &str) -> Row {
        self.file(
            "g/main.luau",
            format!(
                "return {{\n  config = {{ budget = 0.2, memory = 64 }},\n  init = function() return {{ n = 0 }} end,\n  update = function(state) return {{ n = state.n + 1 }} end,\n  render = function(state, scene, screen)\n    if state.n >= 2 then\n      {body}\n    end\n  end,\n}}\n"
            ),
        )
    }

    /// Raises the time budget the `update`/`render` templates give.
    pub fn budget(mut self, seconds: f64) -> Row {
        for (path, bytes) in &mut self.files {
            if path == "g/main.luau" {
                let text = String::from_utf8_lossy(bytes)
                    .replace("budget = 0.2", &format!("budget = {seconds}"));
                *bytes = text.into_bytes();
            }
        }
        self
    }

    /// `g/NAME` is a link to `target` (relative to the link).
    pub fn link(mut self, name: &str, target: &str) -> Row {
        self.links.push((name.to_string(), target.to_string()));
        self
    }

    pub fn args(mut self, args: &[&str]) -> Row {
        self.args = args.iter().map(|s| s.to_string()).collect();
        self
    }

    pub fn first(mut self, piece: &str, code: i32) -> Row {
        self.first = piece.to_string();
        self.code = code;
        self
    }

    pub fn also(mut self, piece: &str) -> Row {
        self.also = Some(piece.to_string());
        self
    }

    pub fn survives(mut self, piece: &str) -> Row {
        self.survives = Some(piece.to_string());
        self
    }

    pub fn check(&self) -> Result<(), String> {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("g")).unwrap();
        std::fs::create_dir_all(dir.path().join("outside")).unwrap();
        std::fs::write(dir.path().join("outside/secret.txt"), SECRET).unwrap();
        std::fs::write(
            dir.path().join("outside/secret.luau"),
            format!("return '{SECRET}'"),
        )
        .unwrap();
        for (path, bytes) in &self.files {
            let path = dir.path().join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, bytes).unwrap();
        }
        for (name, target) in &self.links {
            let target = target.replace("{outside}", &dir.path().join("outside").to_string_lossy());
            let link = dir.path().join("g").join(name);
            std::fs::create_dir_all(link.parent().unwrap()).unwrap();
            std::os::unix::fs::symlink(target, link).unwrap();
        }
        for fifo in &self.fifos {
            std::fs::create_dir_all(dir.path().join(fifo).parent().unwrap()).unwrap();
            let path = std::ffi::CString::new(dir.path().join(fifo).to_str().unwrap()).unwrap();
            // SAFETY: a valid NUL-terminated path.
            assert_eq!(unsafe { libc::mkfifo(path.as_ptr(), 0o600) }, 0, "{fifo}");
        }
        let args: Vec<String> = self
            .args
            .iter()
            .map(|a| a.replace("{dir}", &dir.path().to_string_lossy()))
            .collect();
        // The run's own temporary folder, to see what it leaves there.
        std::fs::create_dir_all(dir.path().join("tmp")).unwrap();
        let out = within_a_minute(&args, dir.path(), self.file_size, self.signal);
        self.judge(&out, dir.path())?;
        for check in &self.after {
            check(dir.path()).map_err(|why| {
                format!(
                    "{why}\nexit {}\nstdout:\n{}\nstderr:\n{}",
                    out.code, out.stdout, out.stderr
                )
            })?;
        }
        Ok(())
    }

    fn judge(&self, out: &Outcome, dir: &Path) -> Result<(), String> {
        let shown = || {
            format!(
                "exit {}\nstdout:\n{}\nstderr:\n{}",
                out.code, out.stdout, out.stderr
            )
        };
        if out.code == -1
            || out.code == 101
            || out.stderr.contains("internal error")
            || out.stderr.contains("panicked")
        {
            return Err(format!("the host crashed\n{}", shown()));
        }
        if out.stdout.contains(SECRET) || out.stderr.contains(SECRET) {
            return Err(format!("the secret leaked\n{}", shown()));
        }
        let testing = self.args.first().is_some_and(|a| a == "test");
        let first = if testing {
            out.stdout
                .lines()
                .find(|l| {
                    l.trim_start()
                        .starts_with(|c: char| c.is_ascii_alphabetic())
                        && l.contains(&self.first)
                })
                .unwrap_or_default()
        } else {
            out.stderr
                .lines()
                .find(|l| !l.contains("XDG_RUNTIME_DIR"))
                .unwrap_or_default()
        };
        if !first.contains(&self.first) {
            return Err(format!(
                "first line {first:?} lacks {:?}\n{}",
                self.first,
                shown()
            ));
        }
        if out.code != self.code {
            return Err(format!(
                "exit code {} instead of {}\n{}",
                out.code,
                self.code,
                shown()
            ));
        }
        if let Some(piece) = &self.survives
            && !out.stdout.contains(piece.as_str())
        {
            return Err(format!("stdout lacks {piece:?}\n{}", shown()));
        }
        if let Some(piece) = &self.also
            && !out.stderr.lines().any(|l| l.contains(piece.as_str()))
        {
            return Err(format!("stderr lacks {piece:?}\n{}", shown()));
        }
        if std::fs::read_dir(dir.join("outside")).unwrap().count() != 2 {
            return Err(format!(
                "something was written outside the game folder\n{}",
                shown()
            ));
        }
        Ok(())
    }
}

/// Runs the binary under coreutils' `timeout`: a row that hangs (as
/// several did before the walls) fails as a hang instead of stopping the
/// suite. `file_size` caps its files (prlimit); `signal` is sent after
/// its seconds, and the run's own exit code is kept.
fn within_a_minute(
    args: &[String],
    dir: &Path,
    file_size: Option<u64>,
    signal: Option<(&str, f64)>,
) -> Outcome {
    let mut command = match file_size {
        Some(bytes) => {
            let mut c = std::process::Command::new("prlimit");
            c.arg(format!("--fsize={bytes}")).arg("timeout");
            c
        }
        None => std::process::Command::new("timeout"),
    };
    match signal {
        // (-k: a host stuck where it does not look at signals is killed.)
        None => command.args(["-k", "5", "60"]),
        Some((name, seconds)) => command
            .args(["--preserve-status", "-k", "30", "-s", name])
            .arg(seconds.to_string()),
    };
    let out = command
        .arg(binary())
        .args(args)
        .current_dir(dir)
        .env("TMPDIR", dir.join("tmp"))
        .output()
        .expect("timeout(1) runs");
    let code = out.status.code().unwrap_or(-1);
    let hung = code == 124 && signal.is_none();
    Outcome {
        code: if hung { -1 } else { code },
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: if hung {
            "the run did not end within a minute".into()
        } else {
            String::from_utf8_lossy(&out.stderr).into_owned()
        },
    }
}

const RUN: &[&str] = &[
    "run",
    "g",
    "--headless",
    "--clock",
    "constant:1/60",
    "--frames",
    "3",
    "--print-state",
];

/// The last good state when every frame from 2 on failed.
const KEPT: &str = "{\n  \"n\": 1\n}";

/// The state after three clean frames.
const RAN: &str = "{\n  \"n\": 3\n}";

/// A 4x4 PNG: a sheet of four 2x2 frames.
pub fn small_png() -> Vec<u8> {
    let mut sheet = tiny_skia::Pixmap::new(4, 4).unwrap();
    sheet.fill(tiny_skia::Color::WHITE);
    sheet.encode_png().unwrap()
}

/// The tests' pixel font.
fn pixel_font() -> Vec<u8> {
    std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fonts/pixel5x7.ttf"
    ))
    .unwrap()
}

/// A one-triangle glTF whose buffer is `uri`.
fn gltf(uri: &str) -> String {
    format!(
        r#"{{"asset":{{"version":"2.0"}},"buffers":[{{"byteLength":36,"uri":"{uri}"}}],
        "bufferViews":[{{"buffer":0,"byteLength":36}}],
        "accessors":[{{"bufferView":0,"componentType":5126,"count":3,"type":"VEC3","min":[0,0,0],"max":[1,1,0]}}],
        "meshes":[{{"primitives":[{{"attributes":{{"POSITION":0}}}}]}}]}}"#
    )
}

/// A game that poses the model `m.gltf` and keeps its vertex count in the
/// state: a model that read another file would show it.
fn model_game() -> String {
    "return {\n  init = function() return { n = 0 } end,\n  update = function(state) return { n = state.n + 1 } end,\n  render = function(state, scene, screen) scene:object('m', { mesh = 'm.gltf' }) end,\n}\n".to_string()
}

/// A PNG whose header claims `w` x `h` pixels, with no such data.
/// A PNG whose header claims `w` x `h`, with one pixel's data.
pub fn forged_png(w: u32, h: u32) -> Vec<u8> {
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, 1, 1);
    encoder.set_color(png::ColorType::Rgba);
    encoder
        .write_header()
        .unwrap()
        .write_image_data(&[0; 4])
        .unwrap();
    out[16..20].copy_from_slice(&w.to_be_bytes());
    out[20..24].copy_from_slice(&h.to_be_bytes());
    let mut c = !0u32;
    for &b in &out[12..29] {
        c ^= u32::from(b);
        for _ in 0..8 {
            c = if c & 1 == 1 {
                0xedb8_8320 ^ (c >> 1)
            } else {
                c >> 1
            };
        }
    }
    out[29..33].copy_from_slice(&(!c).to_be_bytes());
    out
}

/// The second `math.random(1000000)` of stock Luau after
/// `math.randomseed(0)`: the independent reference for the host's seeded
/// generator (frames 2 and 3 each draw once).
fn stock_luau_random() -> i64 {
    mlua::Lua::new()
        .load("math.randomseed(0) math.random(1000000) return math.random(1000000)")
        .eval()
        .unwrap()
}

/// A test file for `moonloop test g`.
pub fn test_file(body: &str) -> String {
    format!("test('hostile', function()\n  {body}\nend)\n")
}

fn code_loading() -> Vec<Row> {
    vec![
        Row::new("main.luau of bytecode bytes (06 03 segfaulted the host)")
            .file("g/main.luau", [6u8, 3])
            .first(
                "g/main.luau: this is not Luau source text (it starts with the byte 0x06)",
                2,
            ),
        Row::new("a required module of bytecode bytes")
            .file("g/main.luau", "local m = require('./m') return {}")
            .file("g/m.luau", [1u8, 2, 3, 4])
            .first(
                "g/m.luau: this is not Luau source text (it starts with the byte 0x01)",
                2,
            ),
        Row::new("a test reloading main.luau as bytecode")
            .file(
                "g/main.luau",
                "return { init = function() return { n = 0 } end }",
            )
            .file(
                "g/tests/t.luau",
                test_file("local e = engine.new() e:reload({ ['main.luau'] = '\\6\\3' })"),
            )
            .args(&["test", "g"])
            .first("this is not Luau source text", 1),
        Row::new("a 2 MB main.luau (compiling 50 MB took 4.3 GB outside the cap)")
            .file(
                "g/main.luau",
                format!("return {{}} --[[{}]]", "x".repeat(2 << 20)),
            )
            .first(
                "g/main.luau: `main.luau` is 2.0 MiB; the most the host reads is 1 MiB (H10)",
                2,
            ),
    ]
}

fn one_door() -> Vec<Row> {
    vec![
        Row::new("main.luau a link to a file outside the folder")
            .link("main.luau", "{outside}/secret.luau")
            .first("`main.luau` leads outside the game folder", 2),
        Row::new("a glTF buffer at file:///etc/passwd")
            .file("g/main.luau", model_game())
            .file("g/m.gltf", gltf("file:///etc/passwd"))
            .first("is not a file beside the model", 1)
            .survives(RAN),
        Row::new("a glTF buffer at ../outside/secret.txt")
            .file("g/main.luau", model_game())
            .file("g/m.gltf", gltf("../outside/secret.txt"))
            .first("is not a path inside the game folder", 1),
        Row::new("a glTF buffer at an absolute path")
            .file("g/main.luau", model_game())
            .file("g/m.gltf", gltf("/etc/passwd"))
            .first("is not a path inside the game folder", 1),
        Row::new("a glTF buffer that is a link to /dev/zero (grew the host to 4 GB)")
            .file("g/main.luau", model_game())
            .file("g/m.gltf", gltf("zero.bin"))
            .link("zero.bin", "/dev/zero")
            .first("`zero.bin` leads outside the game folder", 1),
        Row::new("a glTF buffer URI with bad percent-encoding (a gltf crate unwrap)")
            .file("g/main.luau", model_game())
            .file("g/m.gltf", gltf("%zz.bin"))
            .first("has a bad %-escape", 1)
            .survives(RAN),
        Row::new("an image that is a link outside the folder")
            .render("screen:image('i.png', 0, 0)")
            .link("i.png", "{outside}/secret.txt")
            .first("`i.png` leads outside the game folder", 1)
            .survives(RAN),
        Row::new("a test reading /etc/passwd as its input (echoed its first line)")
            .file("g/main.luau", "return {}")
            .file("g/tests/t.luau", test_file("engine.new({ input = '../outside/secret.txt' })"))
            .args(&["test", "g"])
            .first("is not a path inside the game folder", 1),
        Row::new("a test using e:reload as an oracle on a file outside")
            .file("g/main.luau", "return {}")
            .file(
                "g/tests/t.luau",
                test_file("local e = engine.new() e:reload({ ['../outside/secret.txt'] = { 'root', 'x' } })"),
            )
            .args(&["test", "g"])
            .first("reload: `../outside/secret.txt` is not a path inside the game folder", 1),
        Row::new("a test running another folder's code")
            .file("g/main.luau", "return {}")
            .file("outside2/main.luau", "return {}")
            .file("g/tests/t.luau", test_file("engine.new({ game = '../outside2' })"))
            .args(&["test", "g"])
            .first("engine.new: game: `../outside2` is not a path inside the game folder", 1),
        Row::new("a test recording through a link outside the folder")
            .file("g/main.luau", "return {}")
            .link("link", "{outside}")
            .file("g/tests/t.luau", test_file("engine.new({ record = 'link/x.png' })"))
            .args(&["test", "g"])
            .first("record: `link/x.png` goes through a link", 1),
        Row::new("a test file that is a link outside the folder")
            .file("g/main.luau", "return {}")
            .link("tests/t.luau", "{outside}/secret.luau")
            .args(&["test", "g"])
            .first("leads outside the game folder", 1),
        Row::new("a check-dt scenario whose input names a file outside")
            .file("g/main.luau", "return {}")
            .file(
                "g/s.luau",
                "return { seconds = 1, input = '../outside/secret.txt', outcome = function(s) return {} end }",
            )
            .args(&["check-dt", "g", "--scenario", "s.luau"])
            .first("is not a path inside the game folder", 2),
    ]
}

fn host_memory() -> Vec<Row> {
    vec![
        Row::new("a test keeping every engine it makes (390 KB of host each, outside any cap)")
            .file("g/main.luau", "return {}")
            .file("g/tests/t.luau", test_file("local keep = {} for i = 1, 100000 do keep[i] = engine.new() end"))
            .args(&["test", "g"])
            .first("g/tests/t.luau:2: engine.new: 16 engines are alive, the most one test file holds at once (H10)", 1),
        Row::new("a test keeping engines whose games each hold 40 MiB (their own caps add up)")
            // 40 MiB, not more: each load must stay far inside its 1 s of
            // wall time on a busy 2-core machine (100 MiB took 1 s in CI).
            .file("g/main.luau", "local big = string.rep('x', 40 * 2 ^ 20)\nreturn { init = function() return { n = #big } end }")
            .file("g/tests/t.luau", test_file("local keep = {} for i = 1, 16 do keep[i] = engine.new() end"))
            .args(&["test", "g"])
            .first("MiB of the 512 MiB one test file's engines share (H10)", 1),
        Row::new("a test whose engine runs out of what the others leave it, mid-frame (it said the game passed its own cap)")
            .file("g/main.luau", "local big = string.rep('x', 40 * 2 ^ 20)\nreturn {\n  init = function() return { n = #big, s = '' } end,\n  update = function(state) return { n = state.n, s = string.rep('y', 200 * 2 ^ 20) } end,\n}")
            .file("g/tests/t.luau", test_file("local keep = {} for i = 1, 10 do keep[i] = engine.new() end keep[1]:advance(4)"))
            .args(&["test", "g"])
            .first("g/tests/t.luau:2: advance: frame 1: the engines alive hold", 1),
        Row::new("scene objects named with 4 MiB strings (aborted at 7.9 GB)")
            .render("scene:object(string.rep('x', 4 * 1024 * 1024) .. state.n, {})")
            .first("scene:object: a name of 4194305 bytes is too long (names are at most 256 bytes, H10)", 1)
            .survives(RAN),
        Row::new("screen:text of a 1 MB string")
            .render("screen:text(string.rep('x', 1024 * 1024), 0, 0)")
            .first("screen:text: the text of 1 MiB is too long (at most 64 KiB, H10)", 1),
        Row::new("a 33 MiB font file (the host read it whole)")
            .file("g/big.ttf", vec![0u8; 33 << 20])
            .render("screen:text('x', 0, 0, { font = 'big.ttf' })")
            .first("screen:text: `big.ttf` is 33 MiB; the most the host reads is 32 MiB (H10)", 1)
            .survives(RAN),
        Row::new("a font file that is a TrueType header and noise")
            .file("g/noise.ttf", [&[0u8, 1, 0, 0, 0, 9, 0x80, 0][..], &[0xa5; 4096][..]].concat())
            .render("screen:text('x', 0, 0, { font = 'noise.ttf' })")
            .first("screen:text: `noise.ttf` is not a font", 1)
            .survives(RAN),
        Row::new("a font whose advances are infinite (measure answered inf; fuzz finding)")
            .file(
                "g/inf.ttf",
                std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/fuzz/seeds/font_file/infinite-advance.ttf")).unwrap(),
            )
            .render("local w = screen:measure('नमस्ते दुनिया', { font = 'inf.ttf', size = 40, align = 'right' })")
            .first("screen:measure: the font's measurements are not finite numbers; it is broken", 1)
            .survives(RAN),
        (1..=65)
            .fold(Row::new("65 font files (the host kept every face)"), |row, i| {
                row.file(&format!("g/f{i}.ttf"), pixel_font())
            })
            .render("for i = 1, 65 do screen:text('x', 0, 0, { font = 'f' .. i .. '.ttf' }) end")
            .first("screen:text: `f65.ttf` would be font file 65; a game uses at most 64 (H10)", 1)
            .survives(RAN),
        Row::new("a frame that draws text without end (4.7 GB)")
            .render("local s = string.rep('x', 60000) for i = 1, 2000 do screen:text(s, 0, 0) end")
            .first("screen:text: this frame has laid out more than 1000000 glyphs (H10", 1)
            .survives(RAN),
        Row::new("a stop of a sound that never played")
            .update("input:stop('ghost')")
            .first("g/main.luau:6: input:stop: no sound `ghost` is playing (start it with input:play)", 1)
            .survives(RAN),
        Row::new("a fade of -1 s")
            .update("input:play('a', { loop = true, fade = -1 })")
            .first("g/main.luau:6: input:play: `fade` is -1; it is seconds, from 0 to 3600", 1)
            .survives(KEPT),
        Row::new("a bus that does not exist")
            .update("input:bus('drums', 0.5)")
            .first("input:bus: no bus `drums` (the buses are master, music and effects)", 1)
            .survives(KEPT),
        Row::new("music that is missing, rendered")
            .update("input:play('m', { sound = 'missing.ogg', bus = 'music' })")
            .args(&[RUN, &["--audio", "g/out.wav"]].concat())
            .first("sound `missing.ogg`: no sound `missing.ogg` in the game folder", 1)
            .survives(RAN),
        Row::new("music that is not a sound file, rendered")
            .file("g/noise.ogg", vec![0x4f; 5000])
            .update("input:play('m', { sound = 'noise.ogg', bus = 'music', loop = true })")
            .args(&[RUN, &["--audio", "g/out.wav"]].concat())
            .first("sound `noise.ogg`: `noise.ogg`: not an Ogg Vorbis file", 1)
            .survives(RAN),
        Row::new("a new streamed sound every frame, twice (files, rings and threads without end)")
            .file("g/m.wav", moonloop::sound::wav::encode(1, 8000, 8, &[10; 800]))
            .update("input:play('a' .. state.n, { sound = 'm.wav', bus = 'music', loop = true }) input:play('b' .. state.n, { sound = 'm.wav', bus = 'music', loop = true })")
            .args(&["run", "g", "--headless", "--clock", "constant:1/60", "--frames", "6", "--print-state", "--audio", "g/out.wav"])
            .first("sound `m.wav`: at most 8 streamed sounds play at once (H10); stop one first", 1)
            .survives("{\n  \"n\": 6\n}"),
        Row::new("three streams started in one frame")
            .file("g/m.wav", moonloop::sound::wav::encode(1, 8000, 8, &[10; 800]))
            .update("for i = 1, 3 do input:play('s' .. i, { sound = 'm.wav', bus = 'music' }) end")
            .args(&[RUN, &["--audio", "g/out.wav"]].concat())
            .first("sound `m.wav`: a frame starts at most 2 streamed sounds (H10)", 1)
            .survives(RAN),
        Row::new("--audio into a folder that is a file")
            .update("input:cue('coin')")
            .file("g/file", "x")
            .args(&[RUN, &["--audio", "g/file/out.wav"]].concat())
            .first("moonloop: cannot write g/file/out.wav: File exists", 2),
        Row::new("a new cue name every time (the host kept every name)")
            .update("for i = 1, 200 do input:cue('c' .. state.n .. '_' .. i) end")
            .args(&["run", "g", "--headless", "--clock", "constant:1/60", "--frames", "8", "--print-state"])
            // Each name is not a sound of the game's: said once (H7).
            .first("frame 2: cue `c1_1`: no sounds/c1_1.wav", 1)
            .also("input:cue: a game plays at most 1024 different cue names (H10)"),
        Row::new("a 1 MiB cue name")
            .update("input:cue(string.rep('x', 1024 * 1024))")
            .first("input:cue: a cue name of 1048576 bytes is too long", 1)
            .survives(KEPT),
        Row::new("a PNG header claiming 100000x100000 (a 40 GB allocation)")
            .render("screen:image('big.png', 0, 0)")
            .file("g/big.png", forged_png(100_000, 100_000))
            .first("`big.png` is 100000x100000 pixels; images are at most 8192 on a side", 1)
            .survives(RAN),
        Row::new("a scene texture whose PNG header is forged")
            .render("scene:object('a', { texture = 'big.png' })")
            .file("g/big.png", forged_png(100_000, 100_000))
            .args(&["run", "g", "--headless", "--clock", "constant:1/60", "--frames", "3", "--record", "out.png", "--print-state"])
            .first("scene:object: texture: `big.png` is 100000x100000 pixels", 1)
            .survives(RAN),
        Row::new("config.memory = 65536: a game lifting its own cap")
            .file("g/main.luau", "return { config = { memory = 65536 } }")
            .first("config.memory is 65536 MiB; a game may lower its memory cap but not raise it past 512 MiB", 2),
        Row::new("config.budget = 3600: a game lifting its own budget")
            .file("g/main.luau", "return { config = { budget = 3600 } }")
            .first("config.budget is 3600 s; a game may lower its time budget but not raise it past 1 s", 2),
        Row::new("a polygon of two million numbers")
            .render("local p = table.create(2000000, 1) screen:polygon(p)")
            // Making the list takes a while on a loaded machine: the row
            // is about the refusal, not the budget.
            .budget(1.0)
            .first("screen:polygon: points has 2000000 numbers; one call takes at most 1048576 (H10)", 1),
        Row::new("a gradient of ten thousand stops")
            .render("local s = {} for i = 1, 10000 do s[i] = { 0.5, 'red' } end screen:rect(0, 0, 1, 1, { fill = { linear = { 0, 0, 1, 1 }, stops = s } })")
            .first("screen:rect: style.fill: a gradient has at most 256 stops", 1),
        Row::new("two thousand lights")
            .render("for i = 1, 2000 do scene:light('l' .. i, { kind = 'ambient' }) end")
            .first("scene:light: the scene holds 1024 lights, the most it can", 1),
    ]
}

fn runaway() -> Vec<Row> {
    vec![
        Row::new("a state sharing one table 2^40 ways, printed (2.6 GB in 20 s)")
            .file(
                "g/main.luau",
                "return { init = function() local t = { 1 } for i = 1, 40 do t = { a = t, b = t } end return t end }",
            )
            .args(&["run", "g", "--headless", "--clock", "constant:1/60", "--frames", "1", "--print-state"])
            .first("S7: the state's JSON is larger than 64 MiB", 2),
        Row::new("the same state, hashed")
            .file(
                "g/main.luau",
                "return { init = function() local t = { 1 } for i = 1, 40 do t = { a = t, b = t } end return t end }",
            )
            .args(&["run", "g", "--headless", "--clock", "constant:1/60", "--frames", "1", "--state-hash"])
            .first("", 0),
        Row::new("sprites scaled to cover the screen a million times, recorded")
            .file("g/s.png", small_png())
            .render(
                "local s = { image = 's.png', width = 2, height = 2 } \
                 for i = 1, 1e6 do screen:sprite(s, 1, 0, 0, { scale = 1e4 }) end",
            )
            .args(&[RUN, &["--record", "g/out.png"]].concat())
            .first("screen:sprite: this frame's drawing covers the screen more than 256 times over (H10", 1)
            .survives(RAN),
        // (Refused as they are drawn, so the rows need no recording.)
        Row::new("twenty thousand full-screen rectangles a frame (minutes a frame to record)")
            .render("for i = 1, 20000 do screen:rect(0, 0, 4096, 4096, { fill = '#10203040' }) end")
            .first("screen:rect: this frame's drawing covers the screen more than 256 times over (H10", 1)
            .survives(RAN),
        Row::new("three thousand wide strokes across the screen (each counts where it is on it)")
            .render(
                "for i = 1, 3000 do screen:line(-1e9, -1e9, 1e9, 1e9, { stroke = 'red', width = 50 }) end",
            )
            .first("screen:line: this frame's drawing covers the screen more than 256 times over (H10", 1)
            .survives(RAN),
        Row::new("50,000 objects each the child of the one before (step 7 walked each to the root: hours)")
            .file(
                "g/main.luau",
                "return {\n  init = function() return { n = 0 } end,\n  update = function(state) return { n = state.n + 1 } end,\n  render = function(state, scene)\n    for i = (state.n - 1) * 10000 + 1, math.min(state.n, 5) * 10000 do\n      scene:object('o' .. i, { parent = if i > 1 then 'o' .. (i - 1) else nil, position = vector.create(1, 0, 0) })\n    end\n    if state.n == 6 then local far = scene:get('o50000') assert(far and far.world.x == 50000, 'placed') end\n  end,\n}\n",
            )
            .args(&["run", "g", "--headless", "--clock", "constant:1/60", "--frames", "8", "--print-state"])
            .first("", 0)
            .survives("\"n\": 8"),
        Row::new("a tilemap of two million tiles")
            .file("g/s.png", small_png())
            .render(
                "screen:tiles({ image = 's.png', width = 2, height = 2 }, table.create(2^21, 1), 1024, 0, 0)",
            )
            .first("screen:tiles: a tilemap has at most 1048576 tiles (H10); this one has 2097152", 1)
            .survives(RAN),
        Row::new("a test advancing 1e15 frames (not stopped by the test's budget)")
            .file("g/main.luau", "return {}")
            .file("g/tests/t.luau", test_file("engine.new():advance(1e15)"))
            .args(&["test", "g", "--budget", "0.5"])
            .first("H9: the test ran past its time budget of 0.5 s", 1),
        Row::new("a test advancing 1e308 frames (\"a number was expected, not a number\")")
            .file("g/main.luau", "return {}")
            .file("g/tests/t.luau", test_file("engine.new():advance(1e308)"))
            .args(&["test", "g"])
            .first("g/tests/t.luau:2: engine:advance: argument 1: a whole number was expected; this one has a fraction, is too large or is NaN", 1),
        Row::new("a test making engines until its budget ends (blamed __mlua_index)")
            .file("g/main.luau", "return {}")
            .file("g/tests/t.luau", test_file("while true do engine.new():advance(1) end"))
            .args(&["test", "g", "--budget", "0.5"])
            .first("g/tests/t.luau:2: H9: the test ran past its time budget of 0.5 s", 1),
        Row::new("a test seeding a 2 MiB save (a save file holds 1 MiB)")
            .file("g/main.luau", "return { config = { id = 'g' } }")
            .file("g/tests/t.luau", test_file("engine.new({ save = { s = string.rep('x', 2 ^ 21) } })"))
            .args(&["test", "g"])
            .first("g/tests/t.luau:2: engine.new: save: its JSON is 2.0 MiB; a save is at most 1 MiB (H12)", 1),
        Row::new("a check-dt scenario of 1e300 seconds")
            .file("g/main.luau", "return {}")
            .file("g/s.luau", "return { seconds = 1e300, outcome = function(s) return {} end }")
            .args(&["check-dt", "g", "--scenario", "s.luau"])
            .first("`seconds` is the simulated time to run, above 0 and at most 3600", 2),
        Row::new("check-dt under constant:0, which never ends")
            .file("g/main.luau", "return {}")
            .file("g/s.luau", "return { seconds = 1, outcome = function(s) return {} end }")
            .args(&["check-dt", "g", "--scenario", "s.luau", "--clocks", "constant:0"])
            .first("its deltas are all 0, so no scenario would ever end", 2),
        Row::new("check-dt under a wall clock")
            .file("g/main.luau", "return {}")
            .file("g/s.luau", "return { seconds = 1, outcome = function(s) return {} end }")
            .args(&["check-dt", "g", "--scenario", "s.luau", "--clocks", "wall"])
            .first("check-dt steps scripted clocks", 2),
        Row::new("--clock paced:1e-9 (the next frame due in 31 years)")
            .file("g/main.luau", "return {}")
            .args(&["run", "g", "--headless", "--clock", "paced:1e-9", "--frames", "2"])
            .first("paced takes frames per second, from 1 to 1000", 2),
        Row::new("--clock paced:1e-20 (a Duration overflow panic)")
            .file("g/main.luau", "return {}")
            .args(&["run", "g", "--headless", "--clock", "paced:1e-20", "--frames", "2"])
            .first("paced takes frames per second, from 1 to 1000", 2),
    ]
}

fn panics() -> Vec<Row> {
    vec![
        Row::new("a title holding a NUL (a winit panic)")
            .file("g/main.luau", "return { config = { title = 'a\\0b' } }")
            .first("config.title holds the control character \\x00", 2),
        Row::new("a 1 MB title (a 5 MB error line)")
            .file("g/main.luau", "return { config = { title = string.rep('t', 1000000) } }")
            .first("config.title is longer than 200 characters", 2),
        Row::new("a 16384x16384 logical size, recorded (wgpu's buffer limit, after 5.4 GB)")
            .file("g/main.luau", "return { config = { width = 16384, height = 16384 } }")
            .args(&["run", "g", "--headless", "--clock", "constant:1/60", "--frames", "1", "--record", "out.png"])
            .first("should be a whole number from 1 to 4096", 2),
        Row::new("a polygon at 1e10, recorded")
            .render("screen:polygon({ 0, 0, 1e10, 0, 1e10, 1e10, -1e10, 3e9 }, { fill = 'red', stroke = 'blue', width = 3 })")
            .args(&["run", "g", "--headless", "--clock", "constant:1/60", "--frames", "3", "--record", "out.gif", "--print-state"])
            .survives(RAN),
    ]
}

fn determinism() -> Vec<Row> {
    vec![
        Row::new("math.random in update: the numbers stock Luau gives after math.randomseed(0)")
            .update("return { n = state.n + 1, r = math.random(1000000) }")
            .args(&["run", "g", "--headless", "--clock", "constant:1/60", "--frames", "3", "--print-state"])
            .survives(&format!("\"r\": {}", stock_luau_random())),
        Row::new("tostring of a table in update (its address: a new state every run)")
            .update("return { n = state.n + 1, t = tostring({}) }")
            .args(&["run", "g", "--headless", "--clock", "constant:1/60", "--frames", "3", "--print-state"])
            .survives("\"t\": \"table: 2\""),
        Row::new("collectgarbage('count') in update (it differs between `run g` and `run ./g`)")
            .update("local c = collectgarbage('count')")
            .first("g/main.luau:6: H11: collectgarbage(\"count\") reads the memory in use", 1)
            .survives(KEPT),
        Row::new("gcinfo() in update (collectgarbage('count') by another name)")
            .update("local c = gcinfo()")
            .first("g/main.luau:6: H11: gcinfo() reads the memory in use", 1)
            .survives(KEPT),
        Row::new("print of a table, a function and a buffer (their addresses)")
            .update("print({}, print, buffer.create(1))")
            .args(&["run", "g", "--headless", "--clock", "constant:1/60", "--frames", "3"])
            .first("[game] table: 1\tfunction: 2\tbuffer: 3", 0),
        Row::new("a caught error and debug.info kept in the state (they named the folder as typed: ./g)")
            .update("local _, e = pcall(function() error('x') end) return { n = state.n + 1, e = e, s = debug.info(1, 's') }")
            .args(&["run", "./g", "--headless", "--clock", "constant:1/60", "--frames", "3", "--print-state"])
            .survives("\"e\": \"main.luau:6: x\",\n  \"n\": 3,\n  \"s\": \"main.luau\""),
        Row::new("os.time in update")
            .update("local t = os.time()")
            .first("H11: os.time reads the wall clock", 1)
            .survives(KEPT),
        Row::new("os.clock in update")
            .update("local t = os.clock()")
            .first("H11: os.clock reads the processor clock", 1)
            .survives(KEPT),
        Row::new("os.date in update")
            .update("local t = os.date()")
            .first("H11: os.date reads the wall clock and the time zone", 1)
            .survives(KEPT),
        Row::new("a replay whose game changed since it was recorded")
            .file("g/main.luau", "return { init = function() return { n = 0 } end, update = function(s) return { n = s.n + 2 } end }")
            .file(
                "g/run.replay",
                "moonloop-replay 2\nseed 0\nframe 1 0.016666666666666666\nhash 0000000000000000\nframe 2 0.016666666666666666\n",
            )
            .args(&["run", "g", "--headless", "--replay", "g/run.replay"])
            .first("H11: the replay diverged: frame 1's state hash is", 1),
    ]
}

fn output() -> Vec<Row> {
    vec![
        Row::new("print forging the --state-hash line")
            .update("print('0000000000000000')")
            .args(&["run", "g", "--headless", "--clock", "constant:1/60", "--frames", "3", "--state-hash"])
            .first("[game] 0000000000000000", 0),
        Row::new("an error that erases the line and sets the terminal's title")
            .update("error('\\27[2K\\27]0;pwned\\7 gotcha')")
            .first("g/main.luau:6: \\x1b[2K\\x1b]0;pwned\\x07 gotcha", 1)
            .survives(KEPT),
        Row::new("error({})")
            .update("error({})")
            .first("g/main.luau:6: error raised with a table, not a message", 1)
            .survives(KEPT),
        Row::new("an error whose __tostring errors")
            .update("error(setmetatable({}, { __tostring = function() error('inner') end }))")
            .first("g/main.luau:6: error raised with a table whose __tostring failed", 1)
            .survives(KEPT),
        Row::new("an error whose __tostring never returns")
            .update("error(setmetatable({}, { __tostring = function() while true do end end }))")
            .first("g/main.luau:6: H9: update ran past its time budget of 0.2 s", 1)
            .survives(KEPT),
        Row::new("an error whose __tostring yields")
            .update("error(setmetatable({}, { __tostring = function() coroutine.yield() end }))")
            .first("g/main.luau:6: error raised with a table whose __tostring failed", 1)
            .survives(KEPT),
        Row::new("an error whose __tostring returns 10 MB")
            .update("error(setmetatable({}, { __tostring = function() return string.rep('x', 10000000) end }))")
            .first("more bytes)", 1)
            .survives(KEPT),
        Row::new("error(msg, 2), which blamed the host's chunk")
            .update("error('blame my caller', 2)")
            .first("g/main.luau:6: blame my caller", 1)
            .survives(KEPT),
        (1..=150)
            .fold(Row::new("150 modules each requiring the next (\"error in error handling\")"), |row, i| {
                row.file(&format!("g/m{i}.luau"), format!("return require('./m{}')", i + 1))
            })
            .file("g/m151.luau", "return 1")
            .file("g/main.luau", "local one = require('./m1')\nreturn { update = function() return {} end }")
            .first("g/m99.luau:1: require: loading g/m100.luau would nest modules more than 100 deep", 2),
        Row::new("coroutines wrapped 200 deep (the reason was cut off a 4 KB line)")
            .update("local function f() return coroutine.wrap(function() return f()() end) end f()()")
            .first("g/main.luau:6: g/main.luau:6: C stack overflow (passed up through 19", 1)
            .survives(KEPT),
        Row::new("a style alpha of 1e308 (the line held its 309 digits)")
            .render("screen:rect(0, 0, 10, 10, { fill = 'red', alpha = 1e308 })")
            .first("g/main.luau:7: screen:rect: style.alpha is 1e308; it goes from 0 to 1", 1)
            .survives(RAN),
        Row::new("require({})")
            .update("require({})")
            .first("g/main.luau:6: require takes a path string", 1),
        Row::new("require()")
            .update("require()")
            .first("g/main.luau:6: require takes a path string such as \"./ball\" or \"@moonloop/timer\", not a nil", 1),
        Row::new("a handle method called with a dot")
            .update("input.down('a')")
            .first("g/main.luau:6: input.down(...) was called with a dot; call it with a colon: input:down(...)", 1),
    ]
}

fn nothing_lost() -> Vec<Row> {
    vec![
        // A full disk part-way is the file-size rows' (surfaces::writes).
        Row::new("a GIF into a link to /dev/full (said recorded 3 frames, exit 0; then wrote into the device)")
            .render("screen:rect(0, 0, 10, 10)")
            .link("full.gif", "/dev/full")
            .args(&["run", "g", "--headless", "--clock", "constant:1/60", "--frames", "3", "--record", "g/full.gif"])
            .first("recording to g/full.gif failed: it is a device or a pipe, not a file", 2),
        Row::new("--print-state of 1 and \"1\" keys (printed two \"1\" keys)")
            .file("g/main.luau", "return { init = function() return { [1] = 'a', ['1'] = 'b' } end }")
            .args(&["run", "g", "--headless", "--clock", "constant:1/60", "--frames", "1", "--print-state"])
            .survives("{\"$map\": [\n  [1, \"a\"],\n  [\"1\", \"b\"]\n]}"),
        Row::new("--print-state of NaN and \"nan\"")
            .file("g/main.luau", "return { init = function() return { a = 0/0, b = 'nan', c = '\\255', d = 'ÿ' } end }")
            .args(&["run", "g", "--headless", "--clock", "constant:1/60", "--frames", "1", "--print-state"])
            .survives("\"a\": {\"$number\": \"nan\"},\n  \"b\": \"nan\",\n  \"c\": {\"$bytes\": \"ff\"},\n  \"d\": \"ÿ\""),
    ]
}

pub fn run_rows(rows: Vec<Row>) {
    let failures: Vec<String> = rows
        .iter()
        .filter_map(|row| row.check().err().map(|why| format!("{}: {why}", row.what)))
        .collect();
    assert!(
        failures.is_empty(),
        "{} rows failed:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

// rule: H10
#[test]
fn code_enters_only_as_source_text() {
    run_rows(code_loading());
}

// rule: H10
#[test]
fn every_path_a_game_names_goes_through_one_door() {
    run_rows(one_door());
}

// rule: H10
#[test]
fn host_memory_a_game_drives_is_bounded() {
    run_rows(host_memory());
}

// rule: H10
#[test]
fn loops_the_host_runs_for_a_game_end() {
    run_rows(runaway());
}

// rule: H10
#[test]
fn content_never_panics_the_host() {
    run_rows(panics());
}

// rule: H11
#[test]
fn runs_reproduce_whatever_the_game_calls() {
    run_rows(determinism());
}

// rule: H10
#[test]
fn output_a_game_cannot_forge() {
    run_rows(output());
}

// rule: H10, S7
#[test]
fn nothing_is_lost_and_nothing_is_ambiguous() {
    run_rows(nothing_lost());
}

// rule: H11
#[test]
fn math_random_gives_the_same_numbers_on_every_run() {
    let run = || {
        let row = Row::new("math.random")
            .update("return { n = state.n + 1, r = math.random(), s = math.random(6) }");
        let dir = tempfile::tempdir().unwrap();
        for (path, bytes) in &row.files {
            let path = dir.path().join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, bytes).unwrap();
        }
        moonloop(
            &[
                "run",
                "g",
                "--headless",
                "--clock",
                "constant:1/60",
                "--frames",
                "3",
                "--state-hash",
            ],
            dir.path(),
        )
        .stdout
    };
    let first = run();
    assert_eq!(first.len(), 17, "{first}");
    assert_eq!(first, run(), "the same run, the same hash");
}

#[test]
fn there_are_at_least_forty_rows() {
    let rows = code_loading().len()
        + one_door().len()
        + host_memory().len()
        + runaway().len()
        + panics().len()
        + determinism().len()
        + output().len()
        + nothing_lost().len();
    assert!(rows >= 40, "{rows}");
}
