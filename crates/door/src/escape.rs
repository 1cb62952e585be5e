//! Text made safe to print: control characters escaped (an escape
//! sequence could erase the line above, or set the window's title) and
//! length capped, so one message stays one readable line.

use std::borrow::Cow;
use std::fmt::Write as _;

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

/// Returns `text` with control characters escaped as [`escape`] does, but
/// for its line breaks and tabs: what the host prints as lines of its
/// own, every piece of it made safe, whoever forgot to escape a piece.
pub fn escape_lines(text: &str) -> Cow<'_, str> {
    let unsafe_char = |c: char| c != '\n' && c != '\t' && needs_escape(c);
    if !text.chars().any(unsafe_char) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    let mut rest = text;
    while let Some(at) = rest.find(unsafe_char) {
        out.push_str(&rest[..at]);
        let c = rest[at..]
            .chars()
            .next()
            .expect("a char at a char boundary");
        out.push_str(&escape(c.encode_utf8(&mut [0; 4])));
        rest = &rest[at + c.len_utf8()..];
    }
    out.push_str(rest);
    Cow::Owned(out)
}

/// Whether `c` could change what a terminal shows beyond printing itself:
/// C0 and C1 controls, DEL, and the marks that reorder text.
fn needs_escape(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// Returns `text` escaped and cut to [`MAX_MESSAGE`] bytes, saying how
/// much was cut.
pub fn line(text: &str) -> String {
    if text.len() <= MAX_MESSAGE {
        return escape(text).into_owned();
    }
    let mut end = MAX_MESSAGE;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!(
        "{}... ({} more bytes)",
        escape(&text[..end]),
        text.len() - end
    )
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn lines_keep_their_breaks_and_lose_their_controls() {
        assert_eq!(escape_lines("a\n\tb"), "a\n\tb");
        assert_eq!(escape_lines("ok\x1b[2K\ngone\r"), "ok\\x1b[2K\ngone\\r");
        assert_eq!(escape_lines("x\u{202e}é"), "x\\u{202e}é");
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
