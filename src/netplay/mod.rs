//! Playing together over the network (rule N3): `moonloop host` and
//! `moonloop join`, rollback netplay that needs no netcode in the game.
//! What crosses the wire is each player's held actions (input.rs); the
//! frames are run, and run again, by the online driver (online.rs) on
//! GGRS; the peers find each other and check they play the same game
//! first (link.rs). A spectator plays the host's confirmed inputs as
//! they come (spectate.rs).

pub mod guard;
pub mod input;
pub mod link;
pub mod online;
pub mod spectate;
pub mod unlinked;

pub use input::{NetInput, Sampler};
pub use online::{NetConfig, NetStats, Online, Options};
pub use spectate::Spectating;
pub use unlinked::{Unlinked, Waiting};
