//! Input: the frame's keys, buttons, pointer and actions, with edges that
//! close at frame step 11 (rule H6), and the scripted input files that feed
//! it in headless runs.
//!
//! The input itself (keys, events, the frame, scripts as text) is the core
//! crate's, and the pads' door (evdev, XInput) the platform crate's; what
//! is here reads script files through the asset door.

pub use moonloop_platform::pads;

use std::path::Path;

pub use moonloop_core::input::*;

use crate::error::{Error, Result};

/// Reads a script file whose keys may name `actions`.
///
/// # Errors
/// The file cannot be read, or a line is malformed: the error names the
/// file and line.
pub fn load_script(path: &Path, actions: &[Action]) -> Result<Script> {
    // Through the one door, bounded like a game's own input files:
    // `--input /dev/zero` would grow the host until the machine ran
    // out, and a pipe nobody writes would wait for ever (even past
    // Ctrl+C, which is asked between frames).
    let shown = path.to_string_lossy();
    let bytes = crate::assets::read_path(path, &shown, MAX_SCRIPT)
        .map_err(|why| Error::io(path, why.into()))?;
    let text = String::from_utf8(bytes).map_err(|_| {
        Error::usage_of(
            crate::terminal::escape(&path.to_string_lossy()),
            "an input script is UTF-8 text, and this is not",
        )
    })?;
    Script::parse_with(&text, actions).map_err(|(line, reason)| Error::Input {
        path: path.to_path_buf(),
        line,
        reason,
    })
}

/// Reads the script file `name` that game content names (a test's
/// `input`, a scenario's), through the asset door of the game folder
/// `root` (H10); its keys may name `actions`.
///
/// # Errors
/// The door refuses the name, or a line is malformed.
pub fn load_script_in(root: &Path, name: &str, actions: &[Action]) -> Result<Script> {
    let bytes = crate::assets::read(Some(root), name, "input file", MAX_SCRIPT)
        .map_err(|r| Error::script(String::from(r)))?;
    Script::parse_with(&String::from_utf8_lossy(&bytes), actions).map_err(|(line, reason)| {
        Error::Input {
            path: root.join(name),
            line,
            reason,
        }
    })
}
