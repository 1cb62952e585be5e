//! The one door to a game's files, and the one escape for what is
//! printed (rule H10), shared by the host and the tools beside it.
//!
//! Whatever reads a file a game names (the runtime, the checker, saves,
//! replays, scenarios) finds it with [`inside`] and reads it with
//! [`read`]: links are resolved and must land inside the game folder,
//! only regular files are opened (a pipe would block forever, a device
//! would never end), never through a link swapped in after the check,
//! and never more than a cap. Whatever prints text that a game or a
//! file name carries passes it through [`escape`] or [`line`] first.
//! Whatever writes a file writes it with [`write_whole`]: whole or not
//! at all (H12).
#![warn(missing_docs)]

mod escape;
mod read;
mod write;

/// Prints a line to stderr, every control character in it but its line
/// breaks and tabs escaped (no piece of game text reaches the terminal
/// raw), dropping it if stderr has closed: a run that is recording keeps
/// going and ends its file properly.
#[macro_export]
macro_rules! tell {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let text = format!($($arg)*);
        let _ = writeln!(std::io::stderr(), "{}", $crate::escape_lines(&text));
    }};
}

pub use escape::{MAX_MESSAGE, escape, escape_lines, line};
pub use read::{MAX_SOURCE, Refusal, bytes, inside, open_regular, read, sizes};
pub use write::{Readers, create, write_whole};
