//! History's frames as the engine holds them while it runs the past:
//! a [`Moment`] to stand on again, a [`Recorded`] frame to run again,
//! and running it again.

use super::{Engine, Game, Pick, PickFrom, UpdateCtx};
use crate::error::Error;
use crate::history::{Held, History, Hovered};
use crate::input::{InputEvent, InputFrame};

/// A frame of history held whole: the engine's counters, the input after
/// it closed, and the state as the game holds it.
#[derive(Debug)]
pub(super) struct Moment {
    pub(super) frame: u64,
    pub(super) time: f64,
    pub(super) last_dt: f64,
    pub(super) input: InputFrame,
    pub(super) state: Held,
    /// The generation of code that made the state, which shows it.
    pub(super) generation: u32,
}

/// A recorded frame copied out of history: to run again while history
/// changes (a reload replaces the old future), or beside it.
pub(super) struct Recorded {
    pub(super) dt: f64,
    pub(super) events: Vec<InputEvent>,
    pub(super) hover: Option<Option<String>>,
    pub(super) hash: Option<u64>,
    /// Its update was refused when it ran.
    pub(super) refused: bool,
}

impl Recorded {
    pub(super) fn of(history: &History, frame: u64) -> Recorded {
        let entry = history.entry(frame);
        Recorded {
            dt: entry.map_or(0.0, |e| e.dt),
            events: history.events(frame).collect(),
            hover: match history.hovered(frame) {
                Hovered::NotAsked => None,
                Hovered::Nothing => Some(None),
                Hovered::Object(name) => Some(Some(name.to_string())),
            },
            hash: entry.and_then(|e| e.hash),
            refused: entry.is_some_and(|e| e.refused),
        }
    }

    /// Frame `frame` of `tail`, taken out of `history` (whose hover names
    /// it shares).
    pub(super) fn of_tail(tail: &crate::history::Tail, history: &History, frame: u64) -> Recorded {
        let (entry, events) = tail.frame(frame).expect("a frame of the tail");
        Recorded {
            dt: entry.dt,
            events: events.to_vec(),
            hover: match history.hover_name(entry) {
                Hovered::NotAsked => None,
                Hovered::Nothing => Some(None),
                Hovered::Object(name) => Some(Some(name.to_string())),
            },
            hash: entry.hash,
            refused: entry.refused,
        }
    }

    /// What hover answered: not asked, nothing, or an object.
    pub(super) fn hover(&self) -> Option<Option<&str>> {
        self.hover.as_ref().map(|answer| answer.as_deref())
    }
}

impl<G: Game> Engine<G> {
    /// Checks that a frame run again left the state it left the first
    /// time (its digest): a past that comes out otherwise is never shown
    /// as if it had happened (R1).
    pub(super) fn check_again(&mut self, recorded: &Recorded, first_error: &mut Option<Error>) {
        let Some(want) = recorded.hash else {
            return;
        };
        if first_error.is_none() && self.game.digest() != Some(want) {
            *first_error = Some(Error::Script(format!(
                "R1: frame {} came out differently when run again (its state differs from the \
                 one recorded): the game reads something that differs between runs (a table \
                 used as a key, iterated with pairs?)",
                self.frame
            )));
        }
    }

    /// Runs one recorded frame again: its delta, its queued events and
    /// what hover answered (the live queue is set aside by
    /// [`Engine::replaying`]). With `record`, the frame is history's anew,
    /// and the hash it left is returned.
    pub(super) fn run_again(
        &mut self,
        recorded: &Recorded,
        record: bool,
        first_error: &mut Option<Error>,
    ) -> Option<u64> {
        let (dt, events, hover) = (recorded.dt, &recorded.events, recorded.hover());
        self.frame += 1;
        self.time += dt;
        self.last_dt = dt;
        for event in events {
            self.input.push(*event);
        }
        if record && let Some(history) = &mut self.history {
            history.open(self.frame);
            for event in events {
                history.event(*event);
            }
        }
        self.input.begin(|_| {});
        let ctx = UpdateCtx {
            frame: self.frame,
            input: &self.input,
            cues: &mut self.quiet,
            pick: Pick {
                from: PickFrom::Recorded(hover.flatten()),
                asked: None,
            },
        };
        // A frame whose update was refused when it ran is refused again:
        // the state stays as it did then, which the digest checks.
        let refused = match self.game.update(ctx, dt) {
            Ok(()) => false,
            Err(_) if recorded.refused => true,
            Err(err) => {
                first_error.get_or_insert(Error::Script(format!("frame {}: {err}", self.frame)));
                true
            }
        };
        self.quiet.drain().for_each(drop);
        self.quiet.take_warnings();
        self.input.close();
        if !record {
            return None;
        }
        let hash = self.game.digest();
        if let Some(history) = &mut self.history {
            let hovered = match hover {
                None => Hovered::NotAsked,
                Some(None) => Hovered::Nothing,
                Some(Some(name)) => Hovered::Object(name),
            };
            // A recorded answer is a name history kept already.
            let _ = history.close(dt, hovered, hash, refused);
        }
        self.keyframe();
        hash
    }
}
