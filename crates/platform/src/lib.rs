//! The platform's doors that stand on core alone: where a user's data
//! lives and where a packaged game unpacks ([`folders`]), the signals
//! that end a run ([`interrupt`]), and gamepads ([`pads`]). One module per
//! door, with the Unix and the Windows way side by side, so that a layer
//! above never asks which machine it is on.
//!
//! The doors a build may leave out are Cargo features of the host
//! (ARCHITECTURE.md lists them); this crate's own is `pads`.

/// `Err(refuse!("..."))`: a [`moonloop_core::Refusal`] made with `format!`.
macro_rules! refuse {
    ($($arg:tt)*) => {
        moonloop_core::Refusal::from(format!($($arg)*))
    };
}

/// Prints a line to stderr, escaped as all game-named text is (a pad's
/// name is the device's to choose), dropping it if stderr has closed.
macro_rules! tell {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let text = format!($($arg)*);
        let _ = writeln!(std::io::stderr(), "{}", moonloop_door::escape_lines(&text));
    }};
}

pub mod folders;
pub mod interrupt;
pub mod pads;
