//! The platform's doors that stand on core alone: where a user's data
//! lives and where a packaged game unpacks ([`folders`]), the signals
//! that end a run ([`interrupt`]), and gamepads ([`pads`]). One module per
//! door, with the Unix and the Windows way side by side, so that a layer
//! above never asks which machine it is on.
//!
//! The doors a build may leave out are Cargo features of the host
//! (ARCHITECTURE.md lists them); this crate's own is `pads`.

pub mod folders;
pub mod interrupt;
pub mod pads;
