//! Headless: the frame loop without a window, for tests, CI and tools.
//!
//! Scripted clocks run as fast as the machine allows. Real-time clocks run
//! in real time, sleeping between ticks rather than spinning a core: a
//! paced clock until its next slot, a wall clock on a 60 Hz cadence, as a
//! display would tick it.

use std::time::{Duration, Instant};

use crate::engine::{Engine, Game, Tick};

/// The cadence a headless wall clock is ticked at, standing in for a display.
pub const WALL_TICK: Duration = Duration::from_nanos(16_666_667);

/// Each distinct error of a run, counted.
#[derive(Debug, Default)]
pub struct ErrorTally {
    /// `(message, frames it happened on, first frame)`.
    pub entries: Vec<(String, u64, u64)>,
}

impl ErrorTally {
    /// Counts `message` on `frame`; says whether it is new.
    pub fn count(&mut self, frame: u64, message: String) -> bool {
        match self.entries.iter_mut().find(|(m, _, _)| *m == message) {
            Some(entry) => {
                entry.1 += 1;
                false
            }
            None => {
                self.entries.push((message, 1, frame));
                true
            }
        }
    }

    /// Says whether any frame failed.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// Runs `engine` headless until `frames` frames are delivered (forever if
/// `None`), printing each new error to stderr as it first happens.
///
/// Stops early when a scripted clock declines (a replay that ran out).
pub fn run<G: Game>(engine: &mut Engine<G>, frames: Option<u64>, real_time: bool) -> ErrorTally {
    let mut tally = ErrorTally::default();
    let target = frames.map(|n| engine.frame() + n);
    let start = Instant::now();
    let mut ticks: u32 = 0;
    while target.is_none_or(|t| engine.frame() < t) {
        let now = if real_time {
            let due = engine
                .next_due()
                .unwrap_or_else(|| start + WALL_TICK * ticks);
            let now = Instant::now();
            if due > now {
                std::thread::sleep(due - now);
            }
            ticks = ticks.wrapping_add(1);
            Instant::now()
        } else {
            start
        };
        match engine.tick(now) {
            Tick::Delivered => {
                for err in engine.frame_errors() {
                    let message = err.to_string();
                    if tally.count(engine.frame(), message.clone()) {
                        eprintln!("frame {}: {message}", engine.frame());
                    }
                }
            }
            Tick::Declined if !real_time => break,
            Tick::Declined => {}
        }
    }
    tally
}
