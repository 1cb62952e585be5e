//! moonloop's core: what a frame is made of, as plain Rust values.
//!
//! The clocks (rules K1-K3), the input a frame sees and the scripts that
//! feed it (H6), the cues and sound actions `update` logs (H7, H13), a
//! game's config as data, the letterboxed viewport (frame step 3), and
//! history: every frame of a session, kept so any can be built again (R1).
//! Nothing here knows Luau, the GPU, a window or a file: the layers above
//! read these from the outside world and hand them in (ARCHITECTURE.md).
#![warn(missing_docs)]

/// `Err(refuse!("..."))`: a [`Refusal`] made with `format!`.
#[macro_export]
macro_rules! refuse {
    ($($arg:tt)*) => {
        $crate::Refusal::from(format!($($arg)*))
    };
}

pub mod clock;
pub mod color;
pub mod config;
pub mod contain;
pub mod cues;
pub mod document;
pub mod history;
pub mod input;
mod number;
mod refusal;
pub mod replay;
mod rule;
pub mod viewport;

pub use number::Number;
pub use refusal::Refusal;
pub use rule::Rule;
