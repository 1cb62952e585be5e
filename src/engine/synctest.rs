//! The sync test (N1 in docs/netplay.md): after every live frame, the
//! engine goes back `depth` frames, runs them again from the state it
//! held there with the input they had, and checks that each comes out
//! with the state it had the first time. Rollback netplay does exactly
//! this whenever a remote player's input arrives late; a game that passes
//! can be played online with no network code of its own.
//!
//! What makes a frame come out differently is something `update` reads
//! that is not in the state or the input: a table used as a key and
//! iterated with `pairs` (its order follows addresses), or a module-level
//! variable `update` changes. The error names the frame,
//! the first places of the state that differ, and the frame's input.

use std::collections::VecDeque;

use super::recorded::{Moment, Recorded};
use super::{Engine, Game};
use crate::error::{Error, Result};

/// The frames rolled back every frame unless asked otherwise (GGRS's
/// sync test checks 7 too, a typical prediction window).
pub const DEPTH: u64 = 7;

/// The most frames a sync test rolls back: each live frame runs this many
/// again, so the bound keeps a run's cost a small multiple of playing it.
pub const MAX_DEPTH: u64 = 64;

/// How many places of a differing state an error shows.
const PLACES: usize = 4;

/// A sync test in progress: the last frames held whole.
pub(super) struct SyncTest {
    depth: u64,
    /// The moments of the last `depth + 1` frames, oldest first.
    held: VecDeque<Moment>,
    /// The frames checked so far (run again and compared).
    checked: u64,
    /// Set once a frame came out differently: the test stops there.
    failed: bool,
}

impl<G: Game> Engine<G> {
    /// Rolls back and runs again the last `depth` frames after every live
    /// frame from now on (N1); `None` stops. History is kept (with `cap`
    /// bytes) if it was not. A frame that comes out differently is an
    /// error of the live frame that found it.
    ///
    /// # Errors
    /// `depth` is 0 or over [`MAX_DEPTH`], or the game keeps no history.
    pub fn set_synctest(&mut self, depth: Option<u64>, cap: usize) -> Result {
        let Some(depth) = depth else {
            self.synctest = None;
            return Ok(());
        };
        if !(1..=MAX_DEPTH).contains(&depth) {
            return Err(Error::usage(format!(
                "N1: a sync test rolls back 1 to {MAX_DEPTH} frames, not {depth}"
            )));
        }
        if self.history.is_none() {
            self.keep_history(cap)?;
        }
        let mut held = VecDeque::with_capacity(depth as usize + 2);
        held.push_back(self.moment()?);
        self.synctest = Some(SyncTest {
            depth,
            held,
            checked: 0,
            failed: false,
        });
        Ok(())
    }

    /// How many frames the sync test ran again and compared so far.
    pub fn synctest_checked(&self) -> u64 {
        self.synctest.as_ref().map_or(0, |s| s.checked)
    }

    /// After a live frame: holds it, and when `depth` frames are held
    /// behind it, runs them again from the oldest and compares.
    pub(super) fn sync_check(&mut self) {
        let Some(mut test) = self.synctest.take() else {
            return;
        };
        if test.failed {
            self.synctest = Some(test);
            return;
        }
        // Live play from a past frame (a rewind) starts the window afresh.
        while test.held.back().is_some_and(|m| m.frame >= self.frame) {
            test.held.pop_back();
        }
        if test.held.back().is_some_and(|m| m.frame + 1 != self.frame) {
            test.held.clear();
        }
        match self.moment() {
            Ok(now) => test.held.push_back(now),
            Err(err) => {
                self.errors.push(err);
                self.synctest = Some(test);
                return;
            }
        }
        if test.held.len() as u64 > test.depth + 1 {
            test.held.pop_front();
        }
        if test.held.len() as u64 == test.depth + 1 {
            match self.roll_back(&test) {
                Ok(checked) => test.checked += checked,
                Err(err) => {
                    test.failed = true;
                    self.errors.push(err);
                }
            }
        }
        self.synctest = Some(test);
    }

    /// Runs the held frames again from the oldest, comparing each with
    /// the state it left the first time; stands the engine at the present
    /// again after. Returns the frames compared.
    fn roll_back(&mut self, test: &SyncTest) -> Result<u64> {
        let (oldest, present) = (&test.held[0], &test.held[test.held.len() - 1]);
        self.go_to(oldest)?;
        let mut failed = None;
        let mut checked = 0;
        self.replaying(|engine| {
            for held in test.held.iter().skip(1) {
                let frame = engine.frame + 1;
                if !engine.enter_past(frame, &mut failed) {
                    break;
                }
                let history = engine.history.as_ref().expect("a sync test keeps history");
                let recorded = Recorded::of(history, frame);
                engine.run_again(&recorded, false, &mut failed);
                if failed.is_some() {
                    break;
                }
                checked += 1;
                if engine.game.digest() != recorded.hash {
                    let places = engine.game.changes_from(&held.state, PLACES);
                    failed = Some(differs(frame, oldest.frame, &places, &recorded));
                    break;
                }
            }
        });
        self.go_to(present)?;
        match failed {
            Some(err) => Err(err),
            None => Ok(checked),
        }
    }
}

/// The error of a frame that came out differently when run again.
fn differs(frame: u64, from: u64, places: &[String], recorded: &Recorded) -> Error {
    let places = if places.is_empty() {
        String::from("the state's digest differs")
    } else {
        places.join("; ")
    };
    let input = if recorded.events.is_empty() {
        String::from("no input events")
    } else {
        recorded
            .events
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    };
    Error::rule(
        crate::Rule::N1,
        format!(
            "frame {frame} came out differently when run again from frame {from} (first run -> \
         again: {places}); its input: {input}, dt {}. Something update reads is not in the state \
         or the input: a table used as a key and iterated with pairs, or a module-level variable \
         update changes",
            crate::terminal::Number(recorded.dt)
        ),
    )
}
