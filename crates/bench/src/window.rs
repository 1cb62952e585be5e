//! The window path (#35): a game in a real window, its frames presented
//! as CPU pixels against the same presented through the GPU's surface,
//! each split into running the frame (update, render, history), drawing
//! it (raster, scene pass, composite, upload or read-back) and presenting
//! it. A window needs a display (Xvfb will do): without one the rows are
//! skipped, and the report says why.
//!
//! Each case runs `moonloop run` as a child for a fixed number of frames,
//! once each way (`MOONLOOP_PRESENT`), and reads the sums the window
//! writes at exit (`--frame-times`): the window paces itself to
//! the display, so what counts is what a frame costs, not how many came.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use super::{Row, TempGame};
use moonloop::error::{Error, Result};

/// Frames each run draws (about four seconds).
const FRAMES: u64 = 240;

/// A game that draws nothing at 1280x720.
const EMPTY: &str = r#"
return {
    config = { title = "bench window", width = 1280, height = 720, vsync = false, pause_on_blur = false },
}
"#;

/// A 320x180 pixel game shown at 6x whole pixels (1920x1080): 300
/// sprites and a line of text, as `tools/window_fps.sh` plays it.
const PIXELS: &str = r#"
local sheet = { image = "sheet.png", width = 16, height = 16 }
local batch = {}
for i = 1, 300 do
    batch[i] = { frame = 1 + i % 16, x = 0, y = 0 }
end
return {
    config = { title = "bench window", width = 320, height = 180, scale = 6, scaling = "whole",
        vsync = false, pause_on_blur = false },
    init = function() return { n = 0, t = 0 } end,
    update = function(state, input, dt) return { n = state.n + 1, t = state.t + dt } end,
    render = function(state, scene, screen)
        for i, s in batch do
            s.x = (i * 37 + state.t * 40) % 320
            s.y = (i * 53) % 180
        end
        screen:sprites(sheet, batch)
        screen:text("SCORE " .. state.n, 4, 4, { size = 8, color = "white" })
    end,
}
"#;

/// What a window's frames cost, on average, one way.
#[derive(Debug, Clone, Copy, Default)]
struct Costs {
    frames: u64,
    game: Duration,
    draw: Duration,
    present: Duration,
}

impl Costs {
    fn frame(&self) -> Duration {
        self.game + self.draw + self.present
    }

    fn parts(&self) -> String {
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        format!(
            "{:.2} ms (running {:.2}, drawing {:.2}, presenting {:.2})",
            ms(self.frame()),
            ms(self.game),
            ms(self.draw),
            ms(self.present)
        )
    }
}

/// Returns the moonloop executable to run windows with: the one beside
/// this program, as Cargo builds both into one folder.
fn moonloop() -> Result<PathBuf> {
    let exe = std::env::current_exe().map_err(|e| Error::io("this program", e))?;
    let host = exe.with_file_name(format!("moonloop{}", std::env::consts::EXE_SUFFIX));
    if host.is_file() {
        Ok(host)
    } else {
        Err(Error::usage(format!(
            "no moonloop executable beside this one ({}); `cargo build --release` builds it",
            host.display()
        )))
    }
}

/// Runs `game` in a window for [`FRAMES`] frames, presented `way`.
fn run(exe: &Path, game: &Path, way: &str) -> Result<Costs> {
    let times = game.join(format!("times-{way}.txt"));
    let out = Command::new(exe)
        .args(["run", "."])
        .args([
            "--frames",
            &FRAMES.to_string(),
            "--no-watch",
            "--audio",
            "off",
        ])
        .arg("--frame-times")
        .arg(&times)
        .env("MOONLOOP_PRESENT", way)
        .current_dir(game)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .map_err(|e| Error::io(exe, e))?;
    if !out.status.success() {
        return Err(Error::usage(format!(
            "the window did not run: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    let text = std::fs::read_to_string(&times).map_err(|e| Error::io(&times, e))?;
    let field = |name: &str| -> u64 {
        text.lines()
            .find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.parse().ok())
            .unwrap_or(0)
    };
    let frames = field("frames").max(1);
    let each = |name: &str| Duration::from_nanos(field(name) / frames);
    Ok(Costs {
        frames,
        game: each("game"),
        draw: each("draw"),
        present: each("present"),
    })
}

/// One case: `main` (with the sprite sheet beside it) run both ways; the
/// row measures the adapter's own way (CPU pixels on a software adapter)
/// against the other, and a frame the own way may cost `target`.
fn case(
    exe: &Path,
    key: usize,
    name: &str,
    main: &str,
    target: Duration,
    software: bool,
) -> Result<Row> {
    let game = TempGame::new(&format!("window-{key}"), main)?;
    let sheet = game.0.join("sheet.png");
    super::sprites::sheet()
        .save_png(&sheet)
        .map_err(|e| Error::usage(format!("cannot write {}: {e}", sheet.display())))?;
    let gpu = run(exe, &game.0, "gpu")?;
    let cpu = run(exe, &game.0, "cpu")?;
    let ((own, own_name), (other, other_name)) = if software {
        ((cpu, "CPU pixels"), (gpu, "the GPU's surface"))
    } else {
        ((gpu, "the GPU's surface"), (cpu, "CPU pixels"))
    };
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    Ok(Row {
        case: format!("window, {name}: {own_name} vs {other_name}"),
        baseline: other.frame(),
        measured: own.frame(),
        target: None,
        note: Some(format!(
            "a frame {:.2} ms (target {:.1}): running it {:.2}, drawing {:.2}, presenting {:.2}; \
             the other way {}; {} frames",
            ms(own.frame()),
            ms(target),
            ms(own.game),
            ms(own.draw),
            ms(own.present),
            other.parts(),
            own.frames
        )),
        fails: (own.frame() > target).then(|| {
            format!(
                "a frame takes {:.2} ms where the target is {:.1} ms",
                ms(own.frame()),
                ms(target)
            )
        }),
        ..Row::default()
    })
}

/// The window rows, or why there are none. A frame's target is for the
/// adapter's own way: CPU pixels on a software adapter, the GPU's surface
/// on a real one.
///
/// # Errors
/// No display, or a window did not run: the line says which.
pub fn rows() -> Result<Vec<Row>> {
    if std::env::var_os("DISPLAY").is_none() && std::env::var_os("WAYLAND_DISPLAY").is_none() {
        return Err(Error::usage(
            "no display (DISPLAY and WAYLAND_DISPLAY are unset; xvfb-run will do)",
        ));
    }
    let exe = moonloop()?;
    let software = moonloop::render::Renderer::headless().is_ok_and(|r| r.is_software());
    let ms = Duration::from_millis;
    let cases = [
        ("an empty game at 1280x720", EMPTY.to_string(), ms(4)),
        (
            "2,000 sprites and 100 lines of text at 1280x720",
            super::sprites::GAME.replace(
                "config = { width = 1280, height = 720 }",
                "config = { width = 1280, height = 720, vsync = false, pause_on_blur = false }",
            ),
            ms(8),
        ),
        (
            "a 320x180 pixel game at 6x, 1920x1080",
            PIXELS.to_string(),
            Duration::from_micros(16_667),
        ),
    ];
    cases
        .iter()
        .enumerate()
        .map(|(key, (name, main, target))| case(&exe, key, name, main, *target, software))
        .collect::<Result<Vec<Row>>>()
}
