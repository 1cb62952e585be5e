//! The game in a web page (B4, #49): the screen sprites scene (2,000
//! sprites and 100 lines of text at 1280x720, as the screen rows draw it)
//! built with `--target web`, served from 127.0.0.1 and played in
//! headless Chromium as a player's browser plays it, a frame each time
//! the page draws, against the same frame run and drawn natively in this
//! process. With it, what a player waits for: the first frame's time
//! after the page is asked for, and the download (the runtime gzipped, as
//! a static host serves it), and the Windows executable's size.
//!
//! Needs the web runtime (`tools/cross.sh web`) and Chromium: without
//! either the rows are skipped, and the report says why.

use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use moonloop::error::{Error, Result};

use super::{Row, TempGame, sprites};

/// The page's static server and Chromium's flags, shared with the web
/// tests.
#[path = "../../../tests/common/site.rs"]
mod site;

/// Frames the page plays (three seconds at 60 a second).
const FRAMES: u32 = 180;

/// A frame's share of a 60 Hz display.
const FRAME_BUDGET: Duration = Duration::from_micros(16_667);

/// The most the runtime may weigh gzipped (the target).
const DOWNLOAD_TARGET: u64 = 6 << 20;

/// How long the page may take to load and play its frames.
const PATIENCE: Duration = Duration::from_secs(120);

/// What the page said of its frames.
struct Played {
    first: Duration,
    work: Duration,
    interval: Duration,
}

/// The rows, or why they cannot be measured here.
pub fn rows() -> Result<Vec<Row>> {
    let runtime = moonloop::package::Target::Web.runtime(None)?;
    Command::new("chromium")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .map_err(|_| Error::usage("no chromium to open the page in"))?;
    let game = TempGame::new("web-sprites", sprites::GAME)?;
    let sheet = game.0.join("sheet.png");
    let png = sprites::sheet()
        .encode_png()
        .map_err(|e| Error::asset(format!("the bench's sheet does not encode: {e}")))?;
    std::fs::write(&sheet, png).map_err(|e| Error::io(&sheet, e))?;
    let site = TempGame(
        std::env::temp_dir().join(format!("moonloop-bench-{}-web-site", std::process::id())),
    );
    let about = moonloop::package::About {
        title: "bench".into(),
        version: None,
    };
    moonloop::package::build_web(&game.0, &site.0, &about, &runtime)?;
    let played = play(&site.0)?;
    let (_, native) = sprites::case()?;
    let wasm = std::fs::read(&runtime).map_err(|e| Error::io(&runtime, e))?;
    let gzipped = gzipped_size(&wasm);
    let exe = moonloop::package::Target::Windows
        .runtime(None)
        .ok()
        .and_then(|exe| std::fs::metadata(exe).ok())
        .map_or("not built (tools/cross.sh windows)".to_string(), |m| {
            moonloop::assets::bytes(m.len())
        });
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let mut fails = Vec::new();
    if played.work > FRAME_BUDGET {
        fails.push("a frame takes over 16.7 ms".to_string());
    }
    if gzipped > DOWNLOAD_TARGET {
        fails.push("the runtime is over 6 MB gzipped".to_string());
    }
    Ok(vec![Row {
        case: "web page, headless Chromium: screen sprites' frame vs the same natively".into(),
        baseline: native,
        measured: played.work,
        target: None,
        note: Some(format!(
            "{:.2} ms to run and draw a frame (target 16.7 ms: 60 a second), one drawn every \
             {:.1} ms; the first on the canvas {:.0} ms after the page was asked for; the \
             runtime {} ({} gzipped, target under 6 MB); the Windows exe {exe}",
            ms(played.work),
            ms(played.interval),
            ms(played.first),
            moonloop::assets::bytes(wasm.len() as u64),
            moonloop::assets::bytes(gzipped),
        )),
        fails: (!fails.is_empty()).then(|| fails.join("; ")),
        ..Row::default()
    }])
}

/// The size of `bytes` gzipped at the level static hosts serve.
fn gzipped_size(bytes: &[u8]) -> u64 {
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(6));
    let _ = gz.write_all(bytes);
    gz.finish().map_or(0, |out| out.len() as u64)
}

/// Serves `site`, opens its page in headless Chromium with
/// `?bench=FRAMES`, and waits for the page's `bench-result`.
fn play(site: &Path) -> Result<Played> {
    let (address, heard) = site::serve(site).map_err(|e| Error::io("127.0.0.1", e))?;
    let profile = TempGame(
        std::env::temp_dir().join(format!("moonloop-bench-{}-chromium", std::process::id())),
    );
    let mut chromium = Command::new("chromium")
        .args(site::HEADLESS)
        .arg(format!("--user-data-dir={}", profile.0.display()))
        .arg(format!("http://{address}/index.html?bench={FRAMES}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| Error::io("chromium", e))?;
    let query = heard.recv_timeout(PATIENCE);
    let _ = chromium.kill();
    let _ = chromium.wait();
    let query = query.map_err(|_| {
        Error::usage(format!(
            "the page did not play {FRAMES} frames in {} s",
            PATIENCE.as_secs()
        ))
    })?;
    let field = |name: &str| {
        query
            .split('&')
            .find_map(|pair| pair.strip_prefix(name)?.strip_prefix('='))
            .and_then(|v| v.parse::<f64>().ok())
            .filter(|v| v.is_finite() && *v >= 0.0)
            .map(|ms| Duration::from_secs_f64(ms / 1e3))
            .ok_or_else(|| Error::usage(format!("the page's result `{query}` has no {name}")))
    };
    Ok(Played {
        first: field("first")?,
        work: field("work")?,
        interval: field("interval")?,
    })
}
