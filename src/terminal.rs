//! Terminal: game text made safe to print (rule H10).
//!
//! Errors and `print` output carry text a game wrote. Before it reaches a
//! terminal its control characters are escaped (an escape sequence could
//! erase the line above, or set the window's title) and its length is
//! capped, so one message stays one readable line. The escape itself is
//! the door crate's, the one the type checker prints through too.

/// Prints a line to stdout; if the reader has gone (`moonloop ... | head
/// -1`), the line is dropped instead of ending the run with a panic.
/// Every control character in it but its line breaks and tabs is escaped,
/// so no piece of game text reaches the terminal raw.
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let text = format!($($arg)*);
        let _ = writeln!(std::io::stdout(), "{}", $crate::terminal::escape_lines(&text));
    }};
}

/// Prints a line to stderr, dropping it if stderr has been closed: a run
/// that is recording keeps going and ends its file properly. Escaped as
/// [`say`] is.
macro_rules! tell {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let text = format!($($arg)*);
        let _ = writeln!(std::io::stderr(), "{}", $crate::terminal::escape_lines(&text));
    }};
}

pub(crate) use {say, tell};

pub use moonloop_door::{MAX_MESSAGE, escape, escape_lines, line};

pub use moonloop_core::Number;
