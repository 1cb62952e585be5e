//! History (rule R1): core's record of every frame of the session
//! ([`moonloop_core::history`]), keeping the Luau game's states.
//!
//! Core's history is generic over what a keyframe keeps; here that is a
//! state encoded outside the game's VM, with what else `update` reads
//! that the state does not hold.

pub use moonloop_core::history::{
    DEFAULT_CAP, Entry, Hovered, KEY_EVERY, KEY_EVERY_MAX, Keep, MAX_NAMES, Span, hash_bits,
};

/// The session's frames, each keyframe a [`Kept`] state.
pub type History = moonloop_core::history::History<Kept>;

/// A frame's state kept whole, and what the engine had at its end.
pub type Keyframe = moonloop_core::history::Keyframe<Kept>;

/// The frames after some frame, taken out to be put back (R3).
pub type Tail = moonloop_core::history::Tail<Kept>;

/// A state encoded outside the game's VM, with what else `update` reads
/// that the state does not hold.
#[derive(Debug, Clone, PartialEq)]
pub struct Kept {
    /// The state's canonical JSON (S7).
    pub state: String,
    /// The random generator's state (H11).
    pub random: u64,
    /// Rapier's worlds beside the physics worlds in the state (P3).
    pub physics: crate::physics::Apart,
}

impl Keep for Kept {
    fn bytes(&self) -> usize {
        self.state.len() + self.physics.bytes()
    }
}

/// A state held as the game holds it (shared tables cost nothing twice),
/// while the host shows or walks through a stretch of the past.
pub struct Held(pub Box<dyn std::any::Any>);

impl std::fmt::Debug for Held {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Held(..)")
    }
}
