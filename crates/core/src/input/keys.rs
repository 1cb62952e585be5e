//! Keys: every key and button the host knows, by name, and the set of
//! them a frame holds (one bit each): the keyboard's keys, the mouse's
//! buttons, and the buttons of four gamepads in the standard layout.

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

/// A gamepad's buttons in the standard layout, named by place (`south`
/// is the bottom face button: A on an Xbox pad, Cross on a PlayStation
/// one), in the order their keys follow [`KEY_NAMES`].
pub const PAD_BUTTONS: &[&str] = &[
    "south",
    "east",
    "west",
    "north",
    "leftshoulder",
    "rightshoulder",
    "lefttrigger",
    "righttrigger",
    "back",
    "start",
    "guide",
    "leftstick",
    "rightstick",
    "dpad_up",
    "dpad_down",
    "dpad_left",
    "dpad_right",
];

/// A gamepad's axes: the sticks from -1 to 1 (right and down are
/// positive), the triggers from 0 to 1.
pub const PAD_AXES: &[&str] = &[
    "leftx",
    "lefty",
    "rightx",
    "righty",
    "lefttrigger",
    "righttrigger",
];

/// How far a stick or trigger must move before it reads as moved: worn
/// sticks rest a little off centre.
pub const DEAD_ZONE: f64 = 0.15;

/// An axis by name: `pad2:leftx` on one pad, `pad:leftx` on whichever
/// pad's stick (or trigger) is pushed furthest.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Axis {
    /// The pad, 1 to [`PADS`]; `None` for any.
    pub pad: Option<usize>,
    /// The index in [`PAD_AXES`].
    pub axis: usize,
}

impl Axis {
    /// Reads `pad1:leftx` or `pad:leftx`.
    pub fn from_name(name: &str) -> Option<Axis> {
        let (pad, axis) = name.split_once(':')?;
        let pad = match pad.strip_prefix("pad")? {
            "" => None,
            n => Some(n.parse::<usize>().ok().filter(|n| (1..=PADS).contains(n))?),
        };
        let axis = PAD_AXES.iter().position(|a| *a == axis)?;
        Some(Axis { pad, axis })
    }
}

impl fmt::Display for Axis {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.pad {
            Some(pad) => write!(f, "pad{pad}:{}", PAD_AXES[self.axis]),
            None => write!(f, "pad:{}", PAD_AXES[self.axis]),
        }
    }
}

/// The gamepads a frame tells apart: players 1 to 4.
pub const PADS: usize = 4;

/// Every pad button's key name, `pad1:south` to `pad4:dpad_right`, pad by
/// pad in [`PAD_BUTTONS`] order.
const PAD_KEY_NAMES: &[&str] = &[
    "pad1:south",
    "pad1:east",
    "pad1:west",
    "pad1:north",
    "pad1:leftshoulder",
    "pad1:rightshoulder",
    "pad1:lefttrigger",
    "pad1:righttrigger",
    "pad1:back",
    "pad1:start",
    "pad1:guide",
    "pad1:leftstick",
    "pad1:rightstick",
    "pad1:dpad_up",
    "pad1:dpad_down",
    "pad1:dpad_left",
    "pad1:dpad_right",
    "pad2:south",
    "pad2:east",
    "pad2:west",
    "pad2:north",
    "pad2:leftshoulder",
    "pad2:rightshoulder",
    "pad2:lefttrigger",
    "pad2:righttrigger",
    "pad2:back",
    "pad2:start",
    "pad2:guide",
    "pad2:leftstick",
    "pad2:rightstick",
    "pad2:dpad_up",
    "pad2:dpad_down",
    "pad2:dpad_left",
    "pad2:dpad_right",
    "pad3:south",
    "pad3:east",
    "pad3:west",
    "pad3:north",
    "pad3:leftshoulder",
    "pad3:rightshoulder",
    "pad3:lefttrigger",
    "pad3:righttrigger",
    "pad3:back",
    "pad3:start",
    "pad3:guide",
    "pad3:leftstick",
    "pad3:rightstick",
    "pad3:dpad_up",
    "pad3:dpad_down",
    "pad3:dpad_left",
    "pad3:dpad_right",
    "pad4:south",
    "pad4:east",
    "pad4:west",
    "pad4:north",
    "pad4:leftshoulder",
    "pad4:rightshoulder",
    "pad4:lefttrigger",
    "pad4:righttrigger",
    "pad4:back",
    "pad4:start",
    "pad4:guide",
    "pad4:leftstick",
    "pad4:rightstick",
    "pad4:dpad_up",
    "pad4:dpad_down",
    "pad4:dpad_left",
    "pad4:dpad_right",
];

/// A key, mouse button or pad button: its index in [`KEY_NAMES`], then
/// in the pad buttons.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Key(pub(super) u8);

impl Key {
    /// Finds the key called `name` (`"left"`, `"a"`, `"mouse_left"`,
    /// `"pad1:south"`).
    pub fn from_name(name: &str) -> Option<Key> {
        if let Ok(i) = KEY_NAMES.binary_search(&name) {
            return Some(Key(i as u8));
        }
        PAD_KEY_NAMES
            .iter()
            .position(|n| *n == name)
            .map(|i| Key((KEY_NAMES.len() + i) as u8))
    }

    /// Returns the key of button `button` (an index in [`PAD_BUTTONS`]) on
    /// pad `pad` (1 to [`PADS`]).
    pub fn pad(pad: usize, button: usize) -> Option<Key> {
        (1..=PADS).contains(&pad).then_some(())?;
        (button < PAD_BUTTONS.len())
            .then(|| Key((KEY_NAMES.len() + (pad - 1) * PAD_BUTTONS.len() + button) as u8))
    }

    /// Returns the keys `pad:BUTTON` stands for: that button on every pad,
    /// pad 1's first.
    pub fn any_pad(name: &str) -> Option<[Key; PADS]> {
        let button = PAD_BUTTONS
            .iter()
            .position(|b| Some(*b) == name.strip_prefix("pad:"))?;
        let mut keys = [Key(0); PADS];
        for (i, key) in keys.iter_mut().enumerate() {
            *key = Key::pad(i + 1, button)?;
        }
        Some(keys)
    }

    /// Returns the key's name.
    pub fn name(self) -> &'static str {
        let i = self.0 as usize;
        KEY_NAMES
            .get(i)
            .copied()
            .unwrap_or_else(|| PAD_KEY_NAMES[i - KEY_NAMES.len()])
    }
}

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A set of keys, one bit each.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct KeySet(pub(super) [u128; 2]);

impl KeySet {
    pub(super) fn has(self, key: Key) -> bool {
        let (word, bit) = (key.0 as usize / 128, key.0 % 128);
        self.0[word] & (1 << bit) != 0
    }
    pub(super) fn set(&mut self, key: Key, on: bool) {
        let (word, bit) = (key.0 as usize / 128, key.0 % 128);
        if on {
            self.0[word] |= 1 << bit;
        } else {
            self.0[word] &= !(1 << bit);
        }
    }
    /// Says whether any key is in both sets.
    pub(super) fn meets(self, other: KeySet) -> bool {
        self.0[0] & other.0[0] != 0 || self.0[1] & other.0[1] != 0
    }
    /// Takes out and returns the lowest key in the set.
    pub(super) fn pop(&mut self) -> Option<Key> {
        let word = self.0.iter().position(|w| *w != 0)?;
        let bit = self.0[word].trailing_zeros();
        self.0[word] &= self.0[word] - 1;
        Some(Key((word * 128) as u8 + bit as u8))
    }
}

/// A named action bound to keys in the game's config (`actions = { jump =
/// {"space", "w"} }`): it is down when any of its keys is.
#[derive(Debug, Clone, PartialEq)]
pub struct Action {
    /// The action's name.
    pub name: String,
    keys: KeySet,
    /// The first key listed: what a scripted `press ACTION` presses.
    first: Option<Key>,
}

impl Action {
    /// Returns the key a scripted `press ACTION` presses: the first listed.
    pub fn first_key(&self) -> Option<Key> {
        self.first
    }

    /// Returns the keys bound to the action, in key order.
    pub fn keys(&self) -> Vec<Key> {
        (0..=u8::MAX)
            .map(Key)
            .filter(|&k| self.keys.has(k))
            .collect()
    }

    /// The keys bound, as a set.
    pub fn set(&self) -> KeySet {
        self.keys
    }

    /// Binds `name` to `keys`.
    pub fn new(name: impl Into<String>, keys: &[Key]) -> Self {
        let mut set = KeySet::default();
        for &key in keys {
            set.set(key, true);
        }
        Action {
            name: name.into(),
            keys: set,
            first: keys.first().copied(),
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
        assert!(KEY_NAMES.len() + PAD_KEY_NAMES.len() <= 256);
        assert_eq!(PAD_KEY_NAMES.len(), PADS * PAD_BUTTONS.len());
        for pad in 1..=PADS {
            for (b, button) in PAD_BUTTONS.iter().enumerate() {
                let key = Key::pad(pad, b).unwrap();
                assert_eq!(key.name(), format!("pad{pad}:{button}"));
                assert_eq!(Key::from_name(key.name()), Some(key));
            }
        }
        assert_eq!(Key::pad(5, 0), None);
        assert_eq!(Key::from_name("pad0:south"), None);
        assert_eq!(Key::from_name("space").unwrap().name(), "space");
        assert_eq!(Key::from_name("Space"), None);
    }

    // rule: H6
}
