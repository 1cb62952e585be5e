//! The host's modules, for the fuzz targets, the integration tests and
//! the bench: the one door past the crate's small API, and no promises
//! are made about anything behind it. (The files stay where a reader
//! looks for them, `src/NAME.rs`; this file only makes them public here.)
#![allow(missing_docs)]

#[path = "assets/mod.rs"]
pub mod assets;
#[path = "bench.rs"]
pub mod bench;
#[path = "cli.rs"]
pub mod cli;
#[path = "clock/mod.rs"]
pub mod clock;
#[path = "color.rs"]
pub mod color;
#[path = "compositor.rs"]
pub mod compositor;
#[path = "config.rs"]
pub mod config;
#[path = "cues.rs"]
pub mod cues;
#[path = "devkeys.rs"]
pub mod devkeys;
#[path = "engine.rs"]
pub mod engine;
#[path = "error.rs"]
pub mod error;
#[path = "headless.rs"]
pub mod headless;
#[path = "input/mod.rs"]
pub mod input;
#[path = "interrupt.rs"]
pub mod interrupt;
#[path = "lua/mod.rs"]
pub mod lua;
#[path = "overlay.rs"]
pub mod overlay;
#[path = "package.rs"]
pub mod package;
#[path = "record.rs"]
pub mod record;
#[path = "reload.rs"]
pub mod reload;
#[path = "render/mod.rs"]
pub mod render;
#[path = "replay.rs"]
pub mod replay;
#[path = "save.rs"]
pub mod save;
#[path = "scene/mod.rs"]
pub mod scene;
#[path = "screen/mod.rs"]
pub mod screen;
#[path = "soak.rs"]
pub mod soak;
#[path = "sound/mod.rs"]
pub mod sound;
#[path = "state/mod.rs"]
pub mod state;
#[path = "terminal.rs"]
pub mod terminal;
#[path = "text/mod.rs"]
pub mod text;
#[path = "viewport.rs"]
pub mod viewport;
#[path = "window/mod.rs"]
pub mod window;
