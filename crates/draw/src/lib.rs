//! Draw: the screen layer `render` draws (rules H3, H14, H15), as plain
//! Rust over tiny-skia: the commands a frame records, their raster in
//! bands across threads, sprites and sheets, and text shaped by
//! cosmic-text. Images and fonts come through the asset door; nothing here
//! knows Luau, the GPU or a window, so a frame's 2D picture is the same
//! pixels headless, in a window and in a browser.
#![warn(missing_docs)]
#![warn(clippy::undocumented_unsafe_blocks, clippy::missing_safety_doc)]

/// `Err(refuse!("..."))`: a [`moonloop_core::Refusal`] made with `format!`.
macro_rules! refuse {
    ($($arg:tt)*) => {
        moonloop_core::Refusal::from(format!($($arg)*))
    };
}

pub mod screen;
pub mod skia;
pub mod text;
