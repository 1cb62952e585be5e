//! moonloop: a host that runs games written in Luau.
#![warn(missing_docs)]

pub mod clock;
pub mod error;

pub use clock::{Clock, ClockSpec};
pub use error::{Error, Result};
pub mod assets;
pub mod bench;
pub mod cli;
pub mod color;
pub mod compositor;
pub mod config;
pub mod cues;
pub mod devkeys;
pub mod engine;
pub mod headless;
pub mod input;
pub mod interrupt;
pub mod lua;
pub mod overlay;
pub mod record;
pub mod reload;
pub mod render;
pub mod replay;
pub mod scene;
pub mod screen;
pub mod soak;
pub mod sound;
pub mod state;
pub mod terminal;
pub mod text;
pub mod viewport;
pub mod window;
