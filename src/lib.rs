//! moonloop: a host that runs games written in Luau.
//!
//! The binary is the product; this library is its insides, with a small
//! API at the root for what a Rust program may drive: an [`Engine`]
//! stepping a [`Game`] (a [`LuaGame`] folder, or one written in Rust) by
//! a [`Clock`], its pictures made by a [`Compositor`], shown in a window
//! by [`run_window`]. The modules themselves are not the API: the fuzz
//! targets, the integration tests and the bench reach into them through
//! one door, [`internals`], which makes no promises.
#![warn(missing_docs)]

#[doc(hidden)]
pub mod internals;

use internals::{
    assets, bench, cli, clock, color, compositor, config, cues, devkeys, engine, error, explore,
    headless, history, input, interrupt, lua, overlay, package, physics, playback, record, reload,
    render, replay, report, save, scaffold, scene, screen, seek, session, soak, sound, state,
    synctest, tally, terminal, text, viewport, window,
};

pub use cli::main;
pub use clock::{Clock, ClockSpec, ConstantClock, JitterClock, ListClock, PacedClock, WallClock};
pub use color::Rgba;
pub use compositor::{Compositor, Steps, screen_picture};
pub use config::{Config, Scaling};
pub use engine::{Engine, Game, Pick, Reloaded, RenderCtx, Tick, UpdateCtx};
pub use error::{Error, Result};
pub use input::{Action, Binding, InputEvent, InputFrame, Key};
pub use lua::{Limits, LuaGame};
pub use save::Saves;
pub use scene::{Camera, Light, Material, Mesh, Object, Projection, Scene};
pub use screen::{Align, Fill, PathOp, Screen, Style};
pub use window::{Options as WindowOptions, run as run_window};
