//! The engine's side of online play (rule N3): the present held whole, to
//! stand on again when a rollback asks for it, and a frame delivered with
//! the delta a driver gives, whatever the clock says. A snapshot is cheap:
//! the state is a value the game already holds, so holding it copies
//! nothing but the engine's counters and input.

use super::recorded::Moment;
use super::{Engine, Game, Tick};
use crate::error::Result;

/// The engine standing at the end of one frame, to go back to.
pub struct Snapshot(Moment);

impl Snapshot {
    /// Returns the frame it stands at.
    pub fn frame(&self) -> u64 {
        self.0.frame
    }
}

impl<G: Game> Engine<G> {
    /// Holds the present: the state, the counters and the input.
    ///
    /// # Errors
    /// The game cannot hold its state (a game in Rust that keeps none).
    pub fn snapshot(&self) -> Result<Snapshot> {
        self.moment().map(Snapshot)
    }

    /// Stands the engine where `snapshot` was taken. The next frame
    /// delivered forks from there: the old future, and its cues, go (as
    /// playing on from a rewound frame does, R2).
    ///
    /// # Errors
    /// The code that made the state is no longer held, or the state does
    /// not go back.
    pub fn restore(&mut self, snapshot: &Snapshot) -> Result {
        self.go_to(&snapshot.0)?;
        self.cues.forget_from(snapshot.0.frame + 1);
        Ok(())
    }

    /// Runs one frame worth `dt` seconds now, whatever the clock would
    /// say (a driver that keeps its own time: online play steps at a
    /// fixed delta on a schedule of its own). Pausing does not hold it.
    pub fn deliver_frame(&mut self, dt: f64) -> Tick {
        self.deliver(dt);
        Tick::Delivered
    }
}
