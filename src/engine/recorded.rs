//! History's frames as the engine holds them while it runs the past:
//! a [`Moment`] to stand on again, a [`Recorded`] frame to run again,
//! and running it again.

use super::{Engine, Game, Source};
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
            *first_error = Some(Error::rule(
                crate::Rule::R1,
                format!(
                    "frame {} came out differently when run again (its state differs from the \
                 one recorded): the game reads something that differs between runs (a table \
                 used as a key, iterated with pairs?)",
                    self.frame
                ),
            ));
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
        self.run_frame(
            recorded.dt,
            Source::Again {
                recorded,
                record,
                first_error,
            },
        )
    }
}
