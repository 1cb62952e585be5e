//! moonloop: a host that runs games written in Luau.
//!
//! The binary is the product; this library is its insides, with a small
//! API at the root for what a Rust program may drive: an [`Engine`]
//! stepping a [`Game`] (a [`LuaGame`] folder, or one written in Rust) by
//! a [`Clock`], its pictures made by a [`Compositor`], shown in a window
//! by [`run_window`]. The modules themselves are not the API: the fuzz
//! targets, the integration tests and the bench (crates/bench) reach into them, and no
//! promises are made about them (they are hidden from these docs).
#![warn(missing_docs)]
// Every unsafe block says what makes it sound, and every unsafe fn what
// its caller must promise (CI runs clippy with -D warnings).
#![warn(clippy::undocumented_unsafe_blocks, clippy::missing_safety_doc)]

/// `Err(refuse!("..."))`: a [`Refusal`] made with `format!`.
macro_rules! refuse {
    ($($arg:tt)*) => {
        $crate::Refusal::from(format!($($arg)*))
    };
}

// The core's modules, as the host's own (crates/core: no Luau, GPU or
// window in them).
#[doc(hidden)]
pub use moonloop_assets as assets;
#[doc(hidden)]
pub use moonloop_core::{clock, color, config, cues, viewport};
#[doc(hidden)]
pub use moonloop_draw::{screen, skia, text};
#[cfg(feature = "gpu")]
#[doc(hidden)]
pub use moonloop_render as render;
#[doc(hidden)]
pub use moonloop_scene as scene;

// The host's modules, public for the fuzz targets, the integration tests
// and the bench; hidden from the docs, and no promises are made about
// anything in them.
#[doc(hidden)]
pub mod capture;
#[doc(hidden)]
pub mod cli;
#[doc(hidden)]
pub mod colliders;
#[doc(hidden)]
pub mod compositor;
#[doc(hidden)]
pub mod devkeys;
#[doc(hidden)]
pub mod engine;
#[doc(hidden)]
pub mod error;
#[doc(hidden)]
pub mod explore;
#[doc(hidden)]
pub mod files;
#[doc(hidden)]
pub mod headless;
#[doc(hidden)]
pub mod history;
#[doc(hidden)]
pub mod input;
#[doc(hidden)]
pub use moonloop_platform::interrupt;
#[cfg(feature = "window")]
#[doc(hidden)]
pub mod live;
#[doc(hidden)]
pub mod lua;
#[cfg(feature = "net")]
#[doc(hidden)]
pub mod netplay;
#[doc(hidden)]
pub mod overlay;
#[doc(hidden)]
pub mod package;
#[doc(hidden)]
pub mod physics;
#[doc(hidden)]
pub mod platform;
#[doc(hidden)]
pub mod playback;
#[doc(hidden)]
pub mod record;
#[doc(hidden)]
pub mod reload;
#[doc(hidden)]
pub mod replay;
#[doc(hidden)]
pub mod report;
#[doc(hidden)]
pub mod save;
#[doc(hidden)]
pub mod scaffold;
#[doc(hidden)]
pub mod seek;
#[doc(hidden)]
pub mod session;
#[doc(hidden)]
pub mod soak;
#[doc(hidden)]
pub use moonloop_sound as sound;
#[doc(hidden)]
pub mod state;
#[doc(hidden)]
pub mod synctest;
#[doc(hidden)]
pub mod tally;
#[doc(hidden)]
pub mod terminal;
#[cfg(feature = "window")]
#[doc(hidden)]
pub mod window;

pub use cli::main;
pub use clock::{Clock, ClockSpec, ConstantClock, JitterClock, ListClock, PacedClock, WallClock};
pub use color::Rgba;
pub use compositor::{Compositor, Steps, screen_picture};
pub use config::{Config, Scaling};
pub use engine::{Engine, Game, Past, Pick, Reload, Reloaded, RenderCtx, Tick, UpdateCtx};
pub use error::{Error, Failure, Misuse, Refusal, Result, Rule, Spot};
pub use input::{Action, Binding, InputEvent, InputFrame, Key};
pub use lua::{Limits, LuaGame};
pub use save::Saves;
pub use scene::{Camera, Light, Material, Mesh, Object, Projection, Scene};
pub use screen::{Align, Fill, PathOp, Screen, Style};
#[cfg(feature = "window")]
pub use window::{Options as WindowOptions, run as run_window};
