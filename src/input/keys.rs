//! Keys: every key and button the host knows, by name, and the set of
//! them a frame holds (one bit each).

use std::fmt;

/// Every key and button name the host knows, sorted so lookups can bisect.
///
/// Letters and digits are their own names; mouse buttons are `mouse_left`,
/// `mouse_right` and `mouse_middle`.
pub const KEY_NAMES: &[&str] = &[
    "0",
    "1",
    "2",
    "3",
    "4",
    "5",
    "6",
    "7",
    "8",
    "9",
    "a",
    "alt",
    "b",
    "backquote",
    "backslash",
    "backspace",
    "c",
    "comma",
    "ctrl",
    "d",
    "delete",
    "down",
    "e",
    "end",
    "enter",
    "equals",
    "escape",
    "f",
    "f1",
    "f10",
    "f11",
    "f12",
    "f2",
    "f3",
    "f4",
    "f5",
    "f6",
    "f7",
    "f8",
    "f9",
    "g",
    "h",
    "home",
    "i",
    "insert",
    "j",
    "k",
    "l",
    "lbracket",
    "left",
    "m",
    "minus",
    "mouse_left",
    "mouse_middle",
    "mouse_right",
    "n",
    "o",
    "p",
    "pagedown",
    "pageup",
    "period",
    "q",
    "quote",
    "r",
    "rbracket",
    "right",
    "s",
    "semicolon",
    "shift",
    "slash",
    "space",
    "t",
    "tab",
    "u",
    "up",
    "v",
    "w",
    "x",
    "y",
    "z",
];

/// A key or mouse button, by its index in [`KEY_NAMES`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Key(pub(super) u8);

impl Key {
    /// Finds the key called `name` (`"left"`, `"a"`, `"mouse_left"`).
    pub fn from_name(name: &str) -> Option<Key> {
        KEY_NAMES.binary_search(&name).ok().map(|i| Key(i as u8))
    }

    /// Returns the key's name.
    pub fn name(self) -> &'static str {
        KEY_NAMES[self.0 as usize]
    }
}

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A set of keys, one bit each.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct KeySet(pub(super) u128);

impl KeySet {
    pub(super) fn has(self, key: Key) -> bool {
        self.0 & (1 << key.0) != 0
    }
    pub(super) fn set(&mut self, key: Key, on: bool) {
        if on {
            self.0 |= 1 << key.0;
        } else {
            self.0 &= !(1 << key.0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_names_are_sorted_and_fit_the_set() {
        assert!(
            KEY_NAMES.windows(2).all(|w| w[0] < w[1]),
            "KEY_NAMES must stay sorted"
        );
        assert!(KEY_NAMES.len() <= 128);
        assert_eq!(Key::from_name("space").unwrap().name(), "space");
        assert_eq!(Key::from_name("Space"), None);
    }

    // rule: H6
}
