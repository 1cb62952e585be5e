//! Clock: how many seconds each frame is worth (rules K1-K3).
//!
//! A clock answers one question per tick: how many seconds is this frame
//! worth, or none (the tick is declined). The engine asks it once per tick
//! and owns nothing else about time, so swapping a wall clock for a scripted
//! one steps exactly the same engine a player sees.
//!
//! Deltas are `f64` seconds rather than `Duration`: Luau numbers are `f64`,
//! and a scripted `constant:1/60` must reach the game bit for bit, which a
//! nanosecond `Duration` would round. The real-time clocks keep `Instant`s
//! inside and convert at the edge.

use std::time::Instant;

mod real_time;
mod scripted;
mod spec;

pub use real_time::{PacedClock, WallClock};
pub use scripted::{ConstantClock, JitterClock, ListClock, SplitMix64};
pub use spec::{BadSpec, ClockSpec, parse_number};

/// The default cap on one wall-clock frame, in seconds (K1).
///
/// A quarter second keeps a long hitch from becoming a step the simulation
/// cannot take gracefully, while a game that merely dropped a few frames
/// still sees the time it lost.
pub const DEFAULT_WALL_MAX_SECS: f64 = 0.25;

/// How many whole slots a paced clock may fall behind before it abandons the
/// missed slots and restarts its grid at the current tick (K2).
///
/// Four slots absorb the hiccups a busy machine has every few seconds
/// (the overrun is won back by shorter waits) but not a stall, which would
/// otherwise replay as a burst of frames the player never saw.
pub const PACED_MAX_BEHIND_SLOTS: f64 = 4.0;

/// The slowest paced rate, in frames per second: below it a spec is
/// almost surely seconds written where a rate belongs.
pub const MIN_PACED_HZ: f64 = 1.0;

/// The fastest paced rate, in frames per second.
pub const MAX_PACED_HZ: f64 = 1000.0;

/// The longest delta a scripted clock gives, in seconds.
pub const MAX_DELTA: f64 = 1.0;

/// The most deltas a `list:` clock holds.
pub const MAX_LIST: usize = 10_000;

/// A source of frame deltas, asked once per tick.
pub trait Clock {
    /// Answers the tick arriving at host time `now`: the seconds this frame
    /// is worth, or `None` to decline it.
    ///
    /// Scripted clocks ignore `now`, so an explicit advance and a watched
    /// run see the same deltas.
    fn tick(&mut self, now: Instant) -> Option<f64>;

    /// Forgets the last tick, so the next one starts afresh: a wall clock
    /// gives 0 and a paced clock restarts its grid.
    ///
    /// The host calls this when the simulation resumes after a pause.
    fn resume(&mut self) {}

    /// Returns the earliest instant a tick could be delivered, for a loop
    /// that sleeps instead of spinning; `None` when any tick may be.
    fn next_due(&self) -> Option<Instant> {
        None
    }

    /// Says whether the clock follows real time (wall and paced do).
    fn is_real_time(&self) -> bool {
        false
    }

    /// Returns the seconds one frame is worth when a paused game is
    /// stepped by hand (the developer keys' F6): a paced clock's
    /// interval. Default: none, and the host steps by 1/60 s.
    fn step_delta(&self) -> Option<f64> {
        None
    }
}
