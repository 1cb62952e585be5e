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

use std::io::{BufRead as _, BufReader, Write as _};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use super::{Row, TempGame, sprites};
use crate::error::{Error, Result};

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
    let runtime = crate::package::Target::Web.runtime(None)?;
    Command::new("chromium")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .map_err(|_| Error::Usage("no chromium to open the page in".into()))?;
    let game = TempGame::new("web-sprites", sprites::GAME)?;
    let sheet = game.0.join("sheet.png");
    let png = sprites::sheet()
        .encode_png()
        .map_err(|e| Error::Asset(format!("the bench's sheet does not encode: {e}")))?;
    std::fs::write(&sheet, png).map_err(|e| Error::io(&sheet, e))?;
    let site = TempGame(
        std::env::temp_dir().join(format!("moonloop-bench-{}-web-site", std::process::id())),
    );
    let about = crate::package::About {
        title: "bench".into(),
        version: None,
    };
    crate::package::build_web(&game.0, &site.0, &about, &runtime)?;
    let played = play(&site.0)?;
    let (_, native) = sprites::case()?;
    let wasm = std::fs::read(&runtime).map_err(|e| Error::io(&runtime, e))?;
    let gzipped = gzipped_size(&wasm);
    let exe = crate::package::Target::Windows
        .runtime(None)
        .ok()
        .and_then(|exe| std::fs::metadata(exe).ok())
        .map_or("not built (tools/cross.sh windows)".to_string(), |m| {
            crate::assets::bytes(m.len())
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
            crate::assets::bytes(wasm.len() as u64),
            crate::assets::bytes(gzipped),
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

/// How Chromium is run headless: on no GPU, asking nothing of the
/// network but the page (the web tests run it so too).
pub const HEADLESS: [&str; 7] = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
];

/// Serves the files of `site` on 127.0.0.1 from a thread of its own (a
/// plain static server: a GET of one file beside the page); returns the
/// address, and what the page's `bench-result` requests asked.
///
/// # Errors
/// No port on the loopback could be had.
pub fn serve(site: &Path) -> Result<(std::net::SocketAddr, mpsc::Receiver<String>)> {
    let listener = TcpListener::bind("127.0.0.1:0").map_err(|e| Error::io("127.0.0.1", e))?;
    let address = listener
        .local_addr()
        .map_err(|e| Error::io("127.0.0.1", e))?;
    let (tell, heard) = mpsc::channel();
    let root = site.to_path_buf();
    std::thread::spawn(move || answer(&listener, &root, &tell));
    Ok((address, heard))
}

/// Serves `site`, opens its page in headless Chromium with
/// `?bench=FRAMES`, and waits for the page's `bench-result`.
fn play(site: &Path) -> Result<Played> {
    let (address, heard) = serve(site)?;
    let profile = TempGame(
        std::env::temp_dir().join(format!("moonloop-bench-{}-chromium", std::process::id())),
    );
    let mut chromium = Command::new("chromium")
        .args(HEADLESS)
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
        Error::Usage(format!(
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
            .ok_or_else(|| Error::Usage(format!("the page's result `{query}` has no {name}")))
    };
    Ok(Played {
        first: field("first")?,
        work: field("work")?,
        interval: field("interval")?,
    })
}

/// Answers GETs of the files in `root` (one name, no folders) and hands
/// the query of `bench-result` to `tell`; ends after a bounded number of
/// requests.
fn answer(listener: &TcpListener, root: &Path, tell: &mpsc::Sender<String>) {
    for stream in listener.incoming().take(10_000) {
        let Ok(mut stream) = stream else { continue };
        let mut request = String::new();
        if BufReader::new(&stream).read_line(&mut request).is_err() {
            continue;
        }
        let target = request.split_whitespace().nth(1).unwrap_or("/");
        let (name, query) = target.split_once('?').unwrap_or((target, ""));
        let name = name.trim_start_matches('/');
        if name == "bench-result" {
            let _ = stream.write_all(b"HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n");
            let _ = tell.send(query.to_string());
            continue;
        }
        let file: Option<PathBuf> =
            (!name.is_empty() && !name.contains(['/', '\\']) && name != "..")
                .then(|| root.join(name));
        let body = file.and_then(|f| std::fs::read(f).ok());
        let kind = match name.rsplit('.').next() {
            Some("html") => "text/html",
            Some("js") => "text/javascript",
            Some("wasm") => "application/wasm",
            _ => "application/octet-stream",
        };
        let _ = match body {
            Some(body) => stream
                .write_all(
                    format!(
                        "HTTP/1.1 200 OK\r\nContent-Type: {kind}\r\nContent-Length: {}\r\n\
                         Connection: close\r\n\r\n",
                        body.len()
                    )
                    .as_bytes(),
                )
                .and_then(|()| stream.write_all(&body)),
            None => stream.write_all(
                b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
            ),
        };
    }
}
