//! The platform's doors: those that stand on core alone (where a user's
//! data lives, where a packaged game unpacks, signals, pads) are the
//! platform crate's (crates/platform); the web page's door is here, as it
//! drives a session.
//!
//! The doors a build may leave out (window, GPU, sound, pads, network,
//! file watcher) are Cargo features; ARCHITECTURE.md lists them.

pub use moonloop_platform::folders;
/// Play in a web page: the page's script owns the loop and calls in.
#[cfg(target_os = "emscripten")]
pub mod page;
