//! Terminal: game text made safe to print (rule H10).
//!
//! Errors and `print` output carry text a game wrote. Before it reaches a
//! terminal its control characters are escaped (an escape sequence could
//! erase the line above, or set the window's title) and its length is
//! capped, so one message stays one readable line.

use std::borrow::Cow;
use std::fmt::Write as _;

/// Prints a line to stdout; if the reader has gone (`moonloop ... | head
/// -1`), the line is dropped instead of ending the run with a panic.
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout(), $($arg)*);
    }};
}

/// Prints a line to stderr, dropping it if stderr has been closed: a run
/// that is recording keeps going and ends its file properly.
macro_rules! tell {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

pub(crate) use {say, tell};

/// The longest game text one message carries, in bytes; the rest is cut
/// and counted.
pub const MAX_MESSAGE: usize = 2000;

/// Returns `text` with control characters written as escapes (`\n`,
/// `\x1b`, `\u{202e}`), unchanged when it has none.
pub fn escape(text: &str) -> Cow<'_, str> {
    if !text.chars().any(needs_escape) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x80 && needs_escape(c) => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c if needs_escape(c) => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// Whether `c` could change what a terminal shows beyond printing itself:
/// C0 and C1 controls, DEL, and the marks that reorder text.
fn needs_escape(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// A number a game or a command line gave, as a message shows it: as
/// written for everyday sizes, in exponent form past them (`1e308`, not
/// 309 digits; `1e-300`, not 301 zeros).
/// (An `f32` shows as an `f32`: the size a game gave as 1e12 is not
/// 999999995904.)
#[derive(Debug, Clone, Copy)]
pub struct Number<T>(pub T);

impl<T> std::fmt::Display for Number<T>
where
    T: Copy + Into<f64> + std::fmt::Display + std::fmt::LowerExp,
{
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let v: f64 = self.0.into();
        if v.is_finite() && v != 0.0 && !(1e-4..1e15).contains(&v.abs()) {
            write!(f, "{:e}", self.0)
        } else {
            write!(f, "{}", self.0)
        }
    }
}

/// Returns `text` escaped and cut to [`MAX_MESSAGE`] bytes, saying how
/// much was cut.
pub fn line(text: &str) -> String {
    let cut = if text.len() > MAX_MESSAGE {
        let mut end = MAX_MESSAGE;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        Some(end)
    } else {
        None
    };
    match cut {
        None => escape(text).into_owned(),
        Some(end) => format!(
            "{}... ({} more bytes)",
            escape(&text[..end]),
            text.len() - end
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_past_everyday_sizes_are_shown_in_exponent_form() {
        let shown = |v: f64| Number(v).to_string();
        assert_eq!(shown(1e308), "1e308");
        assert_eq!(shown(-2.5e20), "-2.5e20");
        assert_eq!(shown(1e-300), "1e-300");
        assert_eq!(shown(0.5), "0.5");
        assert_eq!(shown(-3.0), "-3");
        assert_eq!(shown(123456.75), "123456.75");
        assert_eq!(shown(0.0), "0");
        assert_eq!(shown(f64::INFINITY), "inf");
        assert_eq!(Number(1e12_f32).to_string(), "1000000000000");
        assert_eq!(Number(3e38_f32).to_string(), "3e38");
        assert_eq!(Number(0.1_f32).to_string(), "0.1");
    }

    // rule: H10
    #[test]
    fn control_characters_are_escaped() {
        assert_eq!(escape("plain text"), "plain text");
        assert_eq!(
            escape("a\x1b[2K\x1b]0;title\x07b\nc"),
            "a\\x1b[2K\\x1b]0;title\\x07b\\nc"
        );
        assert_eq!(escape("x\u{202e}y\u{85}"), "x\\u{202e}y\\u{85}");
        assert_eq!(escape("é ✓ 日本"), "é ✓ 日本", "printable text is kept");
    }

    // rule: H10
    #[test]
    fn long_text_is_cut_and_counted() {
        let long = "é".repeat(MAX_MESSAGE);
        let shown = line(&long);
        assert!(shown.len() < MAX_MESSAGE + 40, "{}", shown.len());
        assert!(shown.ends_with(&format!("... ({} more bytes)", long.len() - MAX_MESSAGE)));
    }
}
