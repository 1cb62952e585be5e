//! The history cases (rules R1-R3): what keeping every frame costs the
//! 1,000-balls frame, how long pong takes to run 600 recorded frames
//! again and to rebuild any frame of ten minutes, and how much memory a
//! minute of each example game's history holds.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::{BALLS, GAME_TABLE, Row, TempGame, interleaved};
use moonloop::error::Result;

/// A game of the repository's, when the games are beside the binary.
fn example(name: &str) -> Option<PathBuf> {
    let dir = super::repository().join("games").join(name);
    dir.join("main.luau").is_file().then_some(dir)
}

/// The 1,000-balls frame with history kept against the same frame
/// without (R1: history is off the frame's critical path).
fn overhead() -> Result<Row> {
    let dir = TempGame::new("history-balls", &format!("{BALLS}{GAME_TABLE}"))?;
    let mut without = super::headless(&dir.0, false)?;
    let mut with = super::headless(&dir.0, true)?;
    let [baseline, measured] = interleaved(|case, n| {
        let e = if case == 0 { &mut without } else { &mut with };
        e.advance(n).expect("the game runs");
    });
    let minute = with.engine().history().map_or(0, |h| h.bytes()) as f64
        / with.engine().frame() as f64
        * 3600.0;
    Ok(Row {
        case: "1,000 balls: headless frame with history vs without".into(),
        baseline,
        measured,
        target: Some(1.1),
        note: Some(format!(
            "history {:.1} MiB a minute",
            minute / (1 << 20) as f64
        )),
        ..Row::default()
    })
}

/// Pong's 600 recorded frames run again (a reload from frame 0) against
/// the same 600 frames played live.
fn run_again(pong: &Path) -> Result<Row> {
    let mut live = super::headless(pong, true)?;
    let mut recorded = super::headless(pong, true)?;
    recorded.advance(600)?;
    let [baseline, measured] = interleaved(|case, n| {
        for _ in 0..n {
            if case == 0 {
                live = super::headless(pong, true).expect("pong loads");
                live.advance(600).expect("pong runs");
            } else {
                recorded
                    .engine_mut()
                    .reload_from(&[], 0)
                    .expect("pong runs again");
            }
        }
    });
    let fails = (measured > Duration::from_millis(100))
        .then(|| format!("{:.0} ms is over 100 ms", measured.as_secs_f64() * 1e3));
    Ok(Row {
        case: "pong: 600 recorded frames run again vs played live (incl. load)".into(),
        baseline,
        measured,
        target: None,
        note: Some(format!(
            "{:.1} ms for 600 frames (target 100 ms)",
            measured.as_secs_f64() * 1e3
        )),
        fails,
        ..Row::default()
    })
}

/// Pong going back through history a frame at a time, as F9 held does
/// (the frame shown, then drawn by `render`), against a frame played live.
fn rewinding(pong: &Path) -> Result<Row> {
    let mut live = super::headless(pong, true)?;
    let mut back = super::headless(pong, true)?;
    back.advance(36_000)?;
    let [baseline, measured] = interleaved(|case, n| {
        if case == 0 {
            live.advance(n).expect("pong runs");
        } else {
            for _ in 0..n {
                let frame = back.engine().frame();
                let to = if frame <= 1 { 36_000 } else { frame - 1 };
                back.engine_mut().show(to).expect("history holds it");
                back.engine_mut().render_again();
            }
        }
    });
    Ok(Row {
        case: "pong: a frame back through history (F9) vs a frame played live".into(),
        baseline,
        measured,
        target: Some(2.0),
        note: Some(format!(
            "{:.1} µs a frame back",
            measured.as_secs_f64() * 1e6
        )),
        ..Row::default()
    })
}

/// The slowest rebuild of a frame of ten minutes of pong: a frame just
/// before a keyframe, the most frames to run from the one before it.
fn seek(pong: &Path) -> Result<Row> {
    let mut e = super::headless(pong, true)?;
    e.advance(36_000)?;
    let mut worst = Duration::ZERO;
    let mut total = Duration::ZERO;
    let frames = [59, 7_259, 18_059, 30_059, 35_939];
    for frame in frames {
        let start = Instant::now();
        e.engine_mut().with_state_at(frame, |_| ())?;
        let took = start.elapsed();
        worst = worst.max(took);
        total += took;
    }
    let minute = e.engine().history().map_or(0, |h| h.bytes()) as f64 / 10.0;
    let fails = (worst > Duration::from_millis(250))
        .then(|| format!("{:.0} ms is over 250 ms", worst.as_secs_f64() * 1e3));
    Ok(Row {
        case: "pong: slowest rebuild of a frame of 10 minutes vs the mean".into(),
        baseline: total / frames.len() as u32,
        measured: worst,
        target: None,
        note: Some(format!(
            "worst {:.1} ms (target 250 ms); history {:.2} MiB a minute",
            worst.as_secs_f64() * 1e3,
            minute / (1 << 20) as f64
        )),
        fails,
        ..Row::default()
    })
}

/// Memory a minute of each example game's history holds, played with no
/// input at 60 Hz.
fn memory_notes() -> Result<Vec<String>> {
    let mut notes = Vec::new();
    for name in ["pong", "catch", "swarm", "marble", "spinner"] {
        let Some(dir) = example(name) else { continue };
        let mut e = super::headless(&dir, true)?;
        e.advance(3_600)?;
        let bytes = e.engine().history().map_or(0, |h| h.bytes());
        notes.push(format!("{name} {:.2} MiB", bytes as f64 / (1 << 20) as f64));
    }
    Ok(notes)
}

/// The history rows.
pub(super) fn rows() -> Result<Vec<Row>> {
    let mut rows = vec![overhead()?];
    if let Some(pong) = example("pong") {
        rows.push(run_again(&pong)?);
        rows.push(rewinding(&pong)?);
        rows.push(seek(&pong)?);
    }
    let notes = memory_notes()?;
    if !notes.is_empty()
        && let Some(row) = rows.first_mut()
    {
        row.note = Some(format!(
            "{}; examples a minute: {}",
            row.note.take().unwrap_or_default(),
            notes.join(", ")
        ));
    }
    Ok(rows)
}
