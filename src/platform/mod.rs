//! The platform's doors that every build has: where a user's data lives,
//! where a packaged game unpacks, whether another process is still
//! running. One module per door, with the Unix and the Windows way side
//! by side, so that a layer above never asks which machine it is on.
//!
//! The doors a build may leave out (window, GPU, sound, pads, network,
//! file watcher) are Cargo features; ARCHITECTURE.md lists them.

pub mod folders;
/// Play in a web page: the page's script owns the loop and calls in.
#[cfg(target_os = "emscripten")]
pub mod page;
