//! The window's keys: the host's name (rule H6) for each physical key,
//! which the game reads and the developer keys are picked from.

use winit::keyboard::KeyCode;

#[cfg(test)]
use crate::input::Key;

/// Returns the host's name for a physical key.
pub(super) fn key_name(code: KeyCode) -> Option<&'static str> {
    use KeyCode::*;
    Some(match code {
        KeyA => "a",
        KeyB => "b",
        KeyC => "c",
        KeyD => "d",
        KeyE => "e",
        KeyF => "f",
        KeyG => "g",
        KeyH => "h",
        KeyI => "i",
        KeyJ => "j",
        KeyK => "k",
        KeyL => "l",
        KeyM => "m",
        KeyN => "n",
        KeyO => "o",
        KeyP => "p",
        KeyQ => "q",
        KeyR => "r",
        KeyS => "s",
        KeyT => "t",
        KeyU => "u",
        KeyV => "v",
        KeyW => "w",
        KeyX => "x",
        KeyY => "y",
        KeyZ => "z",
        Digit0 => "0",
        Digit1 => "1",
        Digit2 => "2",
        Digit3 => "3",
        Digit4 => "4",
        Digit5 => "5",
        Digit6 => "6",
        Digit7 => "7",
        Digit8 => "8",
        Digit9 => "9",
        Space => "space",
        Enter | NumpadEnter => "enter",
        Escape => "escape",
        Tab => "tab",
        Backspace => "backspace",
        ArrowLeft => "left",
        ArrowRight => "right",
        ArrowUp => "up",
        ArrowDown => "down",
        ShiftLeft | ShiftRight => "shift",
        ControlLeft | ControlRight => "ctrl",
        AltLeft | AltRight => "alt",
        F1 => "f1",
        F2 => "f2",
        F3 => "f3",
        F4 => "f4",
        F5 => "f5",
        F6 => "f6",
        F7 => "f7",
        F8 => "f8",
        F9 => "f9",
        F10 => "f10",
        F11 => "f11",
        F12 => "f12",
        Minus => "minus",
        Equal => "equals",
        Comma => "comma",
        Period => "period",
        Slash => "slash",
        Semicolon => "semicolon",
        Quote => "quote",
        BracketLeft => "lbracket",
        BracketRight => "rbracket",
        Backslash => "backslash",
        Backquote => "backquote",
        Home => "home",
        End => "end",
        PageUp => "pageup",
        PageDown => "pagedown",
        Insert => "insert",
        Delete => "delete",
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_mapped_key_is_a_host_key() {
        use KeyCode::*;
        for code in [
            KeyA, KeyZ, Digit0, Space, Enter, ArrowLeft, ShiftRight, F12, Backquote, Delete,
        ] {
            let name = key_name(code).unwrap();
            assert!(Key::from_name(name).is_some(), "{name}");
        }
    }
}
