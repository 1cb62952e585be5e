//! Soak: a long headless run that reloads and records as it goes, to show
//! the host's memory stays flat (`moonloop soak`).

use std::path::Path;
use std::time::Instant;

use crate::capture::Capture;
use crate::clock::ConstantClock;
use crate::engine::Engine;
use crate::error::{Error, Result};
use crate::lua::LuaGame;
use crate::session::Session;

/// What a soak run measured.
#[derive(Debug, Clone, PartialEq)]
pub struct Report {
    /// Frames run.
    pub frames: u64,
    /// Reloads done.
    pub reloads: u64,
    /// Frames recorded.
    pub recorded: u64,
    /// Frames that failed.
    pub errors: u64,
    /// The process's resident memory at 10% of the run, in KiB.
    pub memory_early: u64,
    /// The process's resident memory at the end, in KiB.
    pub memory_final: u64,
    /// The process's peak resident memory, in KiB.
    pub memory_peak: u64,
    /// The game VM's memory at 10% of the run and at the end, in KiB.
    pub vm_early: u64,
    /// See `vm_early`.
    pub vm_final: u64,
    /// The most bytes history held at the end of any frame (R1).
    pub history_peak: u64,
    /// The frames history held at the end.
    pub history_frames: u64,
    /// Wall time, in seconds.
    pub seconds: f64,
}

/// Reads a `/proc/self/status` field in KiB (0 where there is none).
fn status_kib(field: &str) -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with(field))
                .and_then(|l| l.split_whitespace().nth(1).and_then(|v| v.parse().ok()))
        })
        .unwrap_or(0)
}

/// Runs `game` for `frames` frames of 1/60 s, reloading all its files
/// every `reload_every` frames and recording every `record_every`th frame
/// into `out` (a folder of PNGs; `None` records nothing), keeping history
/// in at most `history_cap` bytes as a window does.
///
/// # Errors
/// The game does not load, a reload fails, or the recording cannot start.
pub fn run(
    game: &Path,
    frames: u64,
    reload_every: u64,
    record_every: u64,
    out: Option<&Path>,
    history_cap: usize,
) -> Result<Report> {
    let started = Instant::now();
    let loaded = LuaGame::load(game)?;
    let files = loaded.loaded_files();
    let mut engine = Engine::new(loaded, Box::new(ConstantClock::new(1.0 / 60.0)));
    engine.keep_history(history_cap)?;
    let capture = out.map(|path| Capture::start(path, true)).transpose()?;
    let mut session = Session::new(engine)
        .capture(capture)
        .capture_every(record_every);
    let mut report = Report {
        frames: 0,
        reloads: 0,
        recorded: 0,
        errors: 0,
        memory_early: 0,
        memory_final: 0,
        memory_peak: 0,
        vm_early: 0,
        vm_final: 0,
        history_peak: 0,
        history_frames: 0,
        seconds: 0.0,
    };
    let now = Instant::now();
    for frame in 1..=frames {
        // A frame as every runner drives it: its cues let go, as a window
        // with no sound card does; every error counted.
        let turn = session.tick(now, false);
        if turn.trouble.is_some() {
            report.errors += 1;
        }
        if out.is_some() && frame % record_every == 0 {
            report.recorded += 1;
        }
        if let Some(history) = session.engine().history() {
            report.history_peak = report.history_peak.max(history.bytes() as u64);
        }
        if frame % reload_every == 0 {
            session
                .reload(&files)
                .map_err(|e| Error::usage(format!("reload at frame {frame}: {}", e.chain())))?;
            report.reloads += 1;
        }
        if frame == frames / 10 {
            report.memory_early = status_kib("VmRSS:");
            report.vm_early = session.engine().game().lua().used_memory() as u64 / 1024;
        }
    }
    let (engine, _) = session.finish()?;
    report.frames = engine.frame();
    report.history_frames = engine.history().map_or(0, |h| {
        let frames = h.frames();
        frames.end() - frames.start()
    });
    report.memory_final = status_kib("VmRSS:");
    report.vm_final = engine.game().lua().used_memory() as u64 / 1024;
    report.memory_peak = status_kib("VmHWM:");
    report.seconds = started.elapsed().as_secs_f64();
    Ok(report)
}
