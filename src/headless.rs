//! Headless: the frame loop without a window, for tests, CI and tools.
//!
//! Scripted clocks run as fast as the machine allows. Real-time clocks run
//! in real time, sleeping between ticks rather than spinning a core: a
//! paced clock until its next slot, a wall clock on a 60 Hz cadence, as a
//! display would tick it.

use crate::terminal::tell;
use std::time::{Duration, Instant};

use crate::compositor::{Compositor, Steps};
use crate::engine::{Engine, Game, Tick};
use crate::record::Recorder;
use crate::reload::Watcher;
use crate::sound::Player;
use crate::tally::ErrorTally;

/// What a run records each delivered frame with (step 8).
pub struct Capture {
    /// Draws the frame.
    pub compositor: Compositor,
    /// Takes it.
    pub recorder: Recorder,
}

impl Capture {
    /// Starts recording to `path` on a headless compositor; `blocking` as
    /// for [`Recorder::start`].
    ///
    /// # Errors
    /// No adapter, or the path cannot be written.
    pub fn start(path: &std::path::Path, blocking: bool) -> crate::Result<Capture> {
        let recorder = Recorder::start(path, blocking)?;
        Ok(Capture {
            compositor: Compositor::headless()?,
            recorder,
        })
    }

    /// Draws `engine`'s last frame and hands it to the recorder; returns
    /// what went wrong drawing it, if anything did.
    pub fn take<G: Game>(&mut self, engine: &mut Engine<G>) -> Option<crate::Error> {
        let steps = Steps {
            record: Some(&mut self.recorder),
            ..Steps::default()
        };
        self.compositor.frame(engine, steps)
    }
}

/// The cadence a headless wall clock is ticked at, standing in for a display.
pub const WALL_TICK: Duration = Duration::from_nanos(16_666_667);

/// Runs `engine` headless until `frames` frames are delivered (forever if
/// `None`), printing each new error to stderr as it first happens, and
/// reloading between frames when `watcher` reports changed files.
///
/// Stops early when a scripted clock declines (a replay that ran out), or
/// when SIGINT or SIGTERM arrives ([`crate::interrupt`]).
pub fn run<G: Game>(
    engine: &mut Engine<G>,
    frames: Option<u64>,
    real_time: bool,
    mut watcher: Option<&mut Watcher>,
    mut capture: Option<&mut Capture>,
    mut sound: Option<&mut Player>,
) -> ErrorTally {
    let mut tally = ErrorTally::default();
    let target = frames.map(|n| engine.frame().saturating_add(n));
    let start = Instant::now();
    let mut ticks: u32 = 0;
    while target.is_none_or(|t| engine.frame() < t) {
        // Ctrl+C ends the run between frames, so a recording finishes.
        if crate::interrupt::requested() {
            break;
        }
        let now = if real_time {
            let due = engine
                .next_due()
                .unwrap_or_else(|| start + WALL_TICK * ticks);
            wait_until(due, engine, watcher.as_deref_mut());
            ticks = ticks.wrapping_add(1);
            Instant::now()
        } else {
            if let Some(changes) = watcher.as_mut().and_then(|w| w.poll()) {
                reload(engine, &changes);
            }
            start
        };
        match engine.tick(now) {
            Tick::Delivered => {
                let fault = capture.as_mut().and_then(|capture| capture.take(engine));
                // Cues are for the audio device, which a headless run has
                // none of, or for `--audio`'s file; a long run must not
                // keep them all.
                let mut faults: Vec<crate::Error> = fault.into_iter().collect();
                match sound.as_deref_mut() {
                    Some(player) => {
                        engine.play_cues(|cue, assets| {
                            if let Some(line) = player.play(cue, assets) {
                                faults.push(crate::Error::Asset(line));
                            }
                        });
                        if let Err(why) = player.render_to(engine.time()) {
                            faults.push(crate::Error::Asset(why));
                        }
                        faults.extend(player.faults().into_iter().map(crate::Error::Asset));
                    }
                    None => {
                        engine.cues_mut().drain();
                    }
                }
                for err in engine.frame_errors().iter().chain(&faults) {
                    tally.report(engine.frame(), err);
                }
                // The game asked to end after this frame, which counts.
                if engine.game().wants_to_quit() {
                    break;
                }
            }
            Tick::Declined if !real_time => break,
            Tick::Declined => {}
        }
    }
    tally
}

/// Sleeps until `due`, reloading as soon as `watcher` reports changes
/// rather than at the next frame, so an edit is live by the frame after it.
pub fn wait_until<G: Game>(
    due: Instant,
    engine: &mut Engine<G>,
    mut watcher: Option<&mut Watcher>,
) {
    // Asked even when the frame is due already: a game whose every update
    // runs out its budget is late every time, and an edit is the fix.
    if let Some(changes) = watcher.as_deref_mut().and_then(Watcher::poll) {
        reload(engine, &changes);
    }
    loop {
        let now = Instant::now();
        if now >= due {
            return;
        }
        match watcher.as_deref_mut() {
            None => {
                std::thread::sleep(due - now);
                return;
            }
            Some(w) => {
                if let Some(changes) = w.wait(due - now) {
                    reload(engine, &changes);
                }
            }
        }
    }
}

/// Reloads `engine` after `changes`, saying what happened on stderr.
pub fn reload<G: Game>(engine: &mut Engine<G>, changes: &[std::path::PathBuf]) {
    match engine.reload(changes) {
        Ok(reloaded) if !reloaded.modules.is_empty() => {
            tell!("reloaded {}", reloaded.modules.join(", "));
        }
        Ok(_) => {}
        Err(err) => tell!(
            "reload failed, the old code runs on: {}",
            crate::terminal::line(&err.chain())
        ),
    }
}
