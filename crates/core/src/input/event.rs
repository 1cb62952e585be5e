//! What happens to the input devices, as one [`InputEvent`] each: from a
//! window, a script, a replay or a pad alike (rule H6), with the words a
//! script or a replay log writes them in, read back.

use crate::Refusal;
use std::fmt;

use super::keys::{Action, Axis, Key};

/// One thing that happened to the input devices.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum InputEvent {
    /// A key or button went down.
    Press(Key),
    /// A key or button came up.
    Release(Key),
    /// Press now, release on the next delivered frame (scripts only).
    Tap(Key),
    /// The pointer moved to `x`, `y` in logical coordinates.
    Move(f64, f64),
    /// The wheel turned by `dx`, `dy` lines.
    Wheel(f64, f64),
    /// The pointer left the game's area (a letterbox bar, or the window).
    Leave,
    /// Text was typed: a piece of it, up to [`TextPiece::CAPACITY`] bytes.
    Text(TextPiece),
    /// A pad's axis moved to this raw value (sticks -1 to 1, triggers 0
    /// to 1), before the dead zone; the axis names its pad.
    Axis(Axis, f64),
}

/// A piece of typed text small enough to keep in an event without a heap
/// allocation: whole characters, at most [`TextPiece::CAPACITY`] bytes of
/// UTF-8, no control characters. Longer text (an input method's commit, a
/// script's line) travels as several pieces in a row.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct TextPiece {
    bytes: [u8; TextPiece::CAPACITY],
    len: u8,
}

impl TextPiece {
    /// The most bytes a piece holds.
    pub const CAPACITY: usize = 15;

    /// Splits `text` into pieces, dropping control characters (Enter, Tab
    /// and Backspace are keys, not text).
    pub fn split(text: &str) -> impl Iterator<Item = TextPiece> + '_ {
        let mut chars = text.chars().filter(|c| !c.is_control()).peekable();
        std::iter::from_fn(move || {
            let mut piece = TextPiece {
                bytes: [0; TextPiece::CAPACITY],
                len: 0,
            };
            while let Some(c) =
                chars.next_if(|c| piece.len as usize + c.len_utf8() <= Self::CAPACITY)
            {
                let at = piece.len as usize;
                c.encode_utf8(&mut piece.bytes[at..]);
                piece.len += c.len_utf8() as u8;
            }
            (piece.len > 0).then_some(piece)
        })
    }

    /// Returns the text.
    pub fn as_str(&self) -> &str {
        std::str::from_utf8(&self.bytes[..self.len as usize]).expect("pieces hold whole characters")
    }
}

impl fmt::Debug for TextPiece {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.as_str())
    }
}

/// Writes `text` in double quotes, as script and replay lines hold it:
/// `\"` and `\\` escaped, nothing else (a piece holds no control
/// characters).
fn quoted(f: &mut fmt::Formatter<'_>, text: &str) -> fmt::Result {
    f.write_str("\"")?;
    for c in text.chars() {
        match c {
            '"' => f.write_str("\\\"")?,
            '\\' => f.write_str("\\\\")?,
            c => write!(f, "{c}")?,
        }
    }
    f.write_str("\"")
}

/// Reads a double-quoted string at the start of `text` (the form
/// [`quoted`] writes), returning it and what follows the closing quote.
pub fn unquote(text: &str) -> Result<(String, &str), Refusal> {
    let Some(body) = text.strip_prefix('"') else {
        return Err("`text` takes a string in double quotes, like text \"Ada\"".into());
    };
    let mut out = String::new();
    let mut chars = body.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return Ok((out, &body[i + 1..])),
            '\\' => match chars.next() {
                Some((_, e @ ('"' | '\\'))) => out.push(e),
                _ => return Err("in a quoted string, \\ comes before \" or \\ only".into()),
            },
            c => out.push(c),
        }
    }
    Err("the quoted string has no closing \"".into())
}

impl fmt::Display for InputEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InputEvent::Press(key) => write!(f, "press {key}"),
            InputEvent::Release(key) => write!(f, "release {key}"),
            InputEvent::Tap(key) => write!(f, "tap {key}"),
            InputEvent::Move(x, y) => write!(f, "move {x} {y}"),
            InputEvent::Wheel(dx, dy) => write!(f, "wheel {dx} {dy}"),
            InputEvent::Leave => write!(f, "leave"),
            InputEvent::Text(piece) => {
                f.write_str("text ")?;
                quoted(f, piece.as_str())
            }
            InputEvent::Axis(axis, value) => write!(f, "axis {axis} {value}"),
        }
    }
}

impl InputEvent {
    /// Reads an event as scripts write it: `press KEY`, `release KEY`,
    /// `tap KEY`, `move X Y`, `wheel DX DY`. A key may also be one of
    /// `actions`, which stands for the first key it binds.
    pub fn parse(words: &[&str], actions: &[Action]) -> Result<InputEvent, Refusal> {
        let key = |name: &str| {
            Key::from_name(name)
                .or_else(|| Key::any_pad(name).map(|keys| keys[0]))
                .or_else(|| {
                    actions
                        .iter()
                        .find(|a| a.name == name)
                        .and_then(Action::first_key)
                })
                .ok_or_else(|| {
                    let mut why = format!(
                        "unknown key `{name}` (keys are named like a, 1, space, left, mouse_left, pad1:south, pad:start"
                    );
                    if !actions.is_empty() {
                        let names: Vec<&str> =
                            actions.iter().take(8).map(|a| a.name.as_str()).collect();
                        why += &format!("; this game's actions are {}", names.join(", "));
                        if actions.len() > 8 {
                            why += ", ...";
                        }
                    }
                    why + ")"
                })
        };
        let number = |text: &str| {
            text.parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .ok_or_else(|| format!("`{text}` is not a finite number"))
        };
        match words {
            ["press", k] => Ok(InputEvent::Press(key(k)?)),
            ["release", k] => Ok(InputEvent::Release(key(k)?)),
            ["tap", k] => Ok(InputEvent::Tap(key(k)?)),
            ["move", x, y] => Ok(InputEvent::Move(number(x)?, number(y)?)),
            ["wheel", x, y] => Ok(InputEvent::Wheel(number(x)?, number(y)?)),
            ["leave"] => Ok(InputEvent::Leave),
            ["axis", name, value] => {
                let axis = Axis::from_name(name)
                    .filter(|a| a.pad.is_some())
                    .ok_or_else(|| {
                        format!(
                            "unknown axis `{name}` (axes are named like pad1:leftx; the axes are {})",
                            super::keys::PAD_AXES.join(", ")
                        )
                    })?;
                let written = value;
                let value = number(written)?;
                if !(-1.0..=1.0).contains(&value) {
                    return Err(refuse!("an axis reads from -1 to 1, not {written}"));
                }
                Ok(InputEvent::Axis(axis, value))
            }
            ["axis", ..] => {
                Err("`axis` takes a pad's axis and a number, like axis pad1:leftx 0.5".into())
            }
            ["text", ..] => Err("`text` takes a string in double quotes, like text \"Ada\"".into()),
            [verb @ ("press" | "release" | "tap"), ..] => Err(refuse!("`{verb}` takes one key")),
            [verb @ ("move" | "wheel"), ..] => Err(refuse!("`{verb}` takes two numbers")),
            [other, ..] => Err(refuse!(
                "unknown event `{other}`; use press, release, tap, move, wheel, leave, text or axis"
            )),
            [] => Err("missing event after the time".into()),
        }
    }
}

impl InputEvent {
    /// Reads the events of one script or replay line after its time:
    /// one event, or for `text "..."` a piece for each
    /// [`TextPiece::CAPACITY`] bytes of its text.
    pub fn parse_line(
        line: &str,
        actions: &[Action],
    ) -> std::result::Result<Vec<InputEvent>, crate::Refusal> {
        let line = line.trim();
        if let Some(rest) = line
            .strip_prefix("text")
            .filter(|r| r.starts_with(char::is_whitespace))
        {
            let (text, after) = unquote(rest.trim_start())?;
            if !after.trim().is_empty() {
                return Err("`text` takes one quoted string".into());
            }
            if text.is_empty() || text.chars().all(char::is_control) {
                return Err(
                    "`text` types at least one character that is not a control character".into(),
                );
            }
            return Ok(TextPiece::split(&text).map(InputEvent::Text).collect());
        }
        let words: Vec<&str> = line.split_whitespace().collect();
        Ok(vec![InputEvent::parse(&words, actions)?])
    }
}

/// Cuts a `#` comment off a script line, leaving a `#` inside a quoted
/// string.
pub fn strip_comment(line: &str) -> &str {
    let mut quoted = false;
    let mut escaped = false;
    for (i, c) in line.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' if quoted => escaped = true,
            '"' => quoted = !quoted,
            '#' if !quoted => return &line[..i],
            _ => {}
        }
    }
    line
}
