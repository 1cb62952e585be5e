//! Headless: the frame loop without a window, for tests, CI and tools.
//!
//! Scripted clocks run as fast as the machine allows. Real-time clocks run
//! in real time, sleeping between ticks rather than spinning a core: a
//! paced clock until its next slot, a wall clock on a 60 Hz cadence, as a
//! display would tick it.

use std::time::{Duration, Instant};

use crate::engine::Game;
use crate::session::Session;

/// The cadence a headless wall clock is ticked at, standing in for a display.
pub const WALL_TICK: Duration = Duration::from_nanos(16_666_667);

/// Runs `session` headless until `frames` frames are delivered (forever
/// if `None`), reloading between frames when its watcher reports changed
/// files; each new error is printed as it first happens.
///
/// Stops early when a scripted clock declines (a replay that ran out), or
/// when SIGINT or SIGTERM arrives ([`crate::interrupt`]).
pub fn run<G: Game>(session: &mut Session<G>, frames: Option<u64>) {
    let real_time = session.is_real_time();
    let target = frames.map(|n| session.engine().frame().saturating_add(n));
    let start = Instant::now();
    let mut ticks: u32 = 0;
    while target.is_none_or(|t| session.engine().frame() < t) {
        // Ctrl+C ends the run between frames, so a recording finishes.
        if crate::interrupt::requested() {
            break;
        }
        let now = if real_time {
            let due = session
                .next_due()
                .unwrap_or_else(|| start + WALL_TICK * ticks);
            session.wait_for_edits(due);
            ticks = ticks.wrapping_add(1);
            Instant::now()
        } else {
            session.look_for_edits();
            start
        };
        let turn = session.tick(now, false);
        // A scripted clock that declines has run out (a replay's end).
        if !turn.delivered && !real_time {
            break;
        }
        // The game asked to end after this frame, which counts; a driver
        // may end the run too (the other player left).
        if turn.quit || session.ended().is_some() {
            break;
        }
    }
}
