//! The community's controller mappings (SDL_GameControllerDB), for pads
//! whose kernel driver does not report the standard layout (rule H6).
//!
//! Most pads need none: the kernel's drivers report them as `BTN_SOUTH`
//! and friends, which [`Binds::standard`] reads. A cheap USB pad or an
//! old one reports `BTN_TRIGGER`, `BTN_THUMB`, ... instead, in whatever
//! order its maker chose. For those, players have written down, pad by
//! pad, which of its buttons is which, in SDL's mapping format:
//!
//! ```text
//! 03000000790000000600000010010000,DragonRise Gamepad,a:b2,b:b1,...,platform:Linux,
//! ```
//!
//! The first field is the pad's GUID (its bus, vendor, product and
//! version, as evdev reports them); each `target:source` names a button or
//! axis of the standard layout and where the pad reports it: `b3` its
//! fourth button, `a2` its third axis, `-a1` the lower half of its second
//! axis, `a3~` an axis upside down, `h0.4` bit 4 (down) of its first hat.
//! Buttons, axes and hats are numbered as SDL numbers them on Linux,
//! from the codes the device says it has ([`Caps`]).
//!
//! The database's Linux lines ship inside the binary
//! (`gamecontrollerdb.txt`, zlib licence); `SDL_GAMECONTROLLERCONFIG`,
//! the variable SDL reads, adds lines of a player's own, which come first.

use moonloop_core::refuse;
use moonloop_door::tell;

use std::sync::OnceLock;

use moonloop_core::input::{PAD_AXES, PAD_BUTTONS};
use moonloop_door::escape;

/// The database's Linux lines.
const DATABASE: &str = include_str!("gamecontrollerdb.txt");

/// The variable with a player's own mapping lines (SDL's name).
pub const CONFIG_VAR: &str = "SDL_GAMECONTROLLERCONFIG";

/// The most lines read from the variable, and the longest line.
const MAX_OWN_LINES: usize = 256;
const MAX_LINE: usize = 4096;

/// The most bindings a line may have (SDL's layout has 27 targets; a pad
/// with both halves of some bound separately has a few more).
const MAX_BINDS: usize = 64;

/// evdev's highest key code + 1 (`KEY_MAX`), the first joystick button
/// (`BTN_JOYSTICK`), the highest axis + 1 (`ABS_MAX`) and the hats.
pub const KEY_CODES: usize = 0x2ff;
const BTN_JOYSTICK: usize = 0x120;
pub const ABS_CODES: usize = 0x3f;
pub const ABS_HAT0X: u16 = 0x10;
const ABS_HAT3Y: u16 = 0x17;

/// What a device says it has: a bit per key code and per axis code, as
/// `EVIOCGBIT` fills them, and its properties (`EVIOCGPROP`).
#[derive(Debug, Clone)]
pub struct Caps {
    pub keys: [u8; KEY_CODES.div_ceil(8)],
    pub axes: [u8; 8],
    pub props: [u8; 4],
}

impl Default for Caps {
    fn default() -> Caps {
        Caps {
            keys: [0; KEY_CODES.div_ceil(8)],
            axes: [0; 8],
            props: [0; 4],
        }
    }
}

/// evdev's property of a motion sensor (`INPUT_PROP_ACCELEROMETER`).
const PROP_ACCELEROMETER: usize = 6;

/// The joystick and gamepad buttons, `BTN_JOYSTICK` to `BTN_THUMBR`.
const PAD_KEYS: std::ops::RangeInclusive<usize> = BTN_JOYSTICK..=0x13e;

impl Caps {
    /// Whether the device is a pad or a joystick, not a part of one: a
    /// PlayStation pad is three devices with one GUID, the pad, its
    /// motion sensors (sticks' axes, no buttons, the accelerometer
    /// property) and its touchpad (pointer buttons). Only the first has a
    /// joystick or gamepad button and no accelerometer.
    pub fn is_pad(&self) -> bool {
        !Caps::bit(&self.props, PROP_ACCELEROMETER) && PAD_KEYS.into_iter().any(|c| self.has_key(c))
    }

    fn bit(bits: &[u8], code: usize) -> bool {
        bits.get(code / 8)
            .is_some_and(|b| b & (1 << (code % 8)) != 0)
    }

    pub fn has_key(&self, code: usize) -> bool {
        Caps::bit(&self.keys, code)
    }

    pub fn has_axis(&self, code: usize) -> bool {
        Caps::bit(&self.axes, code)
    }

    /// Sets keys' and axes' bits (for tests).
    #[cfg(test)]
    pub fn with(mut self, keys: &[u16], axes: &[u16]) -> Caps {
        for &k in keys {
            self.keys[k as usize / 8] |= 1 << (k % 8);
        }
        for &a in axes {
            self.axes[a as usize / 8] |= 1 << (a % 8);
        }
        self
    }

    /// The key codes in SDL's button order: the joystick and gamepad
    /// buttons first, then the codes below them.
    fn buttons(&self) -> impl Iterator<Item = u16> + '_ {
        (BTN_JOYSTICK..KEY_CODES)
            .chain(0..BTN_JOYSTICK)
            .filter(|&c| self.has_key(c))
            .map(|c| c as u16)
    }

    /// The axis codes in SDL's axis order: every axis but the hats.
    fn axis_codes(&self) -> impl Iterator<Item = u16> + '_ {
        (0..ABS_CODES as u16)
            .filter(|c| !(ABS_HAT0X..=ABS_HAT3Y).contains(c))
            .filter(|&c| self.has_axis(c as usize))
    }

    /// The hats (0 to 3) in SDL's order: those with either axis.
    fn hats(&self) -> impl Iterator<Item = u8> + '_ {
        (0..4u8).filter(|h| {
            let x = ABS_HAT0X as usize + 2 * *h as usize;
            self.has_axis(x) || self.has_axis(x + 1)
        })
    }
}

/// Where a mapping's output goes: a button of [`PAD_BUTTONS`], or an
/// axis of [`PAD_AXES`] from `from` (released, or the input's start) to
/// `to`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Target {
    Button(usize),
    Axis { axis: usize, from: f64, to: f64 },
}

/// Where a mapping reads: the pad's button N, its axis N from `from` to
/// `to` (-1 to 1, a half, or the other way up), or hat N's bit `mask`.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Source {
    Button(u16),
    Axis { index: u16, from: f64, to: f64 },
    Hat { index: u8, mask: u8 },
}

/// One line of the database.
#[derive(Debug, Clone)]
pub struct Mapping {
    pub guid: [u8; 16],
    pub name: String,
    binds: Vec<(Source, Target)>,
}

/// A pad's bindings from evdev codes to the standard layout.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Binds {
    /// Key code to target.
    pub keys: Vec<(u16, Target)>,
    /// Axis code, the part of -1..1 read (from, to), target.
    pub axes: Vec<(u16, f64, f64, Target)>,
    /// Hat (0 to 3), bit (1 up, 2 right, 4 down, 8 left), target.
    pub hats: Vec<(u8, u8, Target)>,
}

/// The evdev codes of the standard layout, in [`PAD_BUTTONS`] order.
pub const STANDARD_BUTTONS: [u16; 17] = [
    0x130, // BTN_SOUTH
    0x131, // BTN_EAST
    0x134, // BTN_WEST
    0x133, // BTN_NORTH
    0x136, // BTN_TL
    0x137, // BTN_TR
    0x138, // BTN_TL2
    0x139, // BTN_TR2
    0x13a, // BTN_SELECT
    0x13b, // BTN_START
    0x13c, // BTN_MODE
    0x13d, // BTN_THUMBL
    0x13e, // BTN_THUMBR
    0x220, // BTN_DPAD_UP
    0x221, // BTN_DPAD_DOWN
    0x222, // BTN_DPAD_LEFT
    0x223, // BTN_DPAD_RIGHT
];

/// The evdev axis codes of the standard layout, in [`PAD_AXES`] order.
pub const STANDARD_AXES: [u16; 6] = [
    0x00, // ABS_X
    0x01, // ABS_Y
    0x03, // ABS_RX
    0x04, // ABS_RY
    0x02, // ABS_Z
    0x05, // ABS_RZ
];

/// The first d-pad button in [`PAD_BUTTONS`]: up, down, left, right.
const DPAD_UP: usize = 13;

impl Binds {
    /// The layout the kernel's gamepad drivers report: `BTN_SOUTH`..,
    /// sticks and triggers on `ABS_*`, the d-pad as buttons or hat 0.
    pub fn standard() -> Binds {
        let keys = STANDARD_BUTTONS
            .iter()
            .enumerate()
            .map(|(i, &code)| (code, Target::Button(i)))
            .collect();
        let axes = STANDARD_AXES
            .iter()
            .enumerate()
            .map(|(i, &code)| (code, -1.0, 1.0, axis_target(i, None)))
            .collect();
        let hats = [(1, 0), (4, 1), (8, 2), (2, 3)]
            .into_iter()
            .map(|(mask, i)| (0, mask, Target::Button(DPAD_UP + i)))
            .collect();
        Binds { keys, axes, hats }
    }

    /// Whether any binding reads axis `code`.
    pub fn reads_axis(&self, code: u16) -> bool {
        self.axes.iter().any(|a| a.0 == code)
    }

    /// Whether any binding reads axis `code`, or the hat it is half of.
    pub fn reads_axis_or_hat(&self, code: u16) -> bool {
        let hat = code.wrapping_sub(ABS_HAT0X) / 2;
        self.reads_axis(code) || hat < 4 && self.hats.iter().any(|h| u16::from(h.0) == hat)
    }
}

/// The target for axis `i` of [`PAD_AXES`], whole or one half (`+` or
/// `-`): a stick spans -1..1, a trigger 0..1.
fn axis_target(i: usize, half: Option<char>) -> Target {
    let trigger = i >= 4;
    let (from, to) = match half {
        Some('+') => (0.0, 1.0),
        Some(_) => (0.0, -1.0),
        None if trigger => (0.0, 1.0),
        None => (-1.0, 1.0),
    };
    Target::Axis { axis: i, from, to }
}

/// The standard layout's name for SDL's.
fn target(name: &str) -> Option<Target> {
    let (half, name) = match name.as_bytes().first() {
        Some(b'+') => (Some('+'), &name[1..]),
        Some(b'-') => (Some('-'), &name[1..]),
        _ => (None, name),
    };
    let button = match name {
        "a" => "south",
        "b" => "east",
        "x" => "west",
        "y" => "north",
        "dpup" => "dpad_up",
        "dpdown" => "dpad_down",
        "dpleft" => "dpad_left",
        "dpright" => "dpad_right",
        "lefttrigger" | "righttrigger" | "leftx" | "lefty" | "rightx" | "righty" => {
            let i = PAD_AXES.iter().position(|a| *a == name)?;
            return Some(axis_target(i, half));
        }
        other => other,
    };
    let i = PAD_BUTTONS.iter().position(|b| *b == button)?;
    half.is_none().then_some(Target::Button(i))
}

/// Reads a source: `b3`, `a2`, `+a2`, `-a1`, `a3~`, `h0.4`.
fn source(text: &str) -> Option<Source> {
    let (half, rest) = match text.as_bytes().first() {
        Some(b'+') => (Some('+'), &text[1..]),
        Some(b'-') => (Some('-'), &text[1..]),
        _ => (None, text),
    };
    let (inverted, rest) = match rest.strip_suffix('~') {
        Some(r) => (true, r),
        None => (false, rest),
    };
    let (kind, number) = rest.split_at_checked(1)?;
    match (kind, half, inverted) {
        ("b", None, false) => Some(Source::Button(number.parse().ok()?)),
        ("h", None, false) => {
            let (index, mask) = number.split_once('.')?;
            let mask: u8 = mask.parse().ok()?;
            matches!(mask, 1 | 2 | 4 | 8).then_some(())?;
            Some(Source::Hat {
                index: index.parse().ok().filter(|h| *h < 4)?,
                mask,
            })
        }
        ("a", _, _) => {
            let index = number.parse().ok()?;
            let (from, to) = match half {
                Some('+') => (0.0, 1.0),
                Some(_) => (0.0, -1.0),
                None => (-1.0, 1.0),
            };
            let (from, to) = if inverted { (to, from) } else { (from, to) };
            Some(Source::Axis { index, from, to })
        }
        _ => None,
    }
}

/// Reads a GUID of 32 hex digits.
fn guid(text: &str) -> Option<[u8; 16]> {
    if text.len() != 32 || !text.is_ascii() {
        return None;
    }
    let mut guid = [0u8; 16];
    for (i, byte) in guid.iter_mut().enumerate() {
        *byte = u8::from_str_radix(&text[2 * i..2 * i + 2], 16).ok()?;
    }
    Some(guid)
}

/// Reads one mapping line. `Ok(None)` for a comment, a blank line or
/// another platform's line; `Err` says what is wrong with a bad one.
pub fn parse(line: &str) -> Result<Option<Mapping>, moonloop_core::Refusal> {
    let line = line.trim();
    if line.is_empty() || line.starts_with('#') {
        return Ok(None);
    }
    let mut fields = line.split(',');
    let id = fields.next().unwrap_or_default();
    let Some(guid) = guid(id) else {
        return Err(refuse!("`{id}` is not a GUID of 32 hex digits"));
    };
    let name = fields.next().unwrap_or_default().to_string();
    let mut binds = Vec::new();
    for field in fields.filter(|f| !f.is_empty()) {
        let Some((to, from)) = field.split_once(':') else {
            return Err(refuse!("`{field}` is not target:source"));
        };
        if to == "platform" {
            if from != "Linux" {
                return Ok(None);
            }
            continue;
        }
        // Other SDL fields (hints, SDK ranges, crc) and outputs the
        // standard layout lacks (paddles, touchpad, misc) are skipped.
        if matches!(to, "hint" | "sdk>=" | "sdk<=" | "crc") {
            continue;
        }
        let Some(source) = source(from) else {
            return Err(refuse!(
                "`{from}` is not a button, axis or hat (in `{field}`)"
            ));
        };
        if let Some(target) = target(to) {
            if binds.len() == MAX_BINDS {
                return Err(refuse!("more than {MAX_BINDS} bindings"));
            }
            binds.push((source, target));
        }
    }
    if binds.is_empty() {
        return Err("binds nothing the standard layout has".into());
    }
    Ok(Some(Mapping { guid, name, binds }))
}

/// SDL's GUID for an evdev device: bus, vendor, product and version, as
/// little-endian words (the CRC of the name left 0); a device with no
/// vendor puts its name's first bytes where the ids would be.
pub fn device_guid(bus: u16, vendor: u16, product: u16, version: u16, name: &[u8]) -> [u8; 16] {
    let mut guid = [0u8; 16];
    guid[0..2].copy_from_slice(&bus.to_le_bytes());
    if vendor != 0 {
        guid[4..6].copy_from_slice(&vendor.to_le_bytes());
        guid[8..10].copy_from_slice(&product.to_le_bytes());
        guid[12..14].copy_from_slice(&version.to_le_bytes());
    } else {
        let n = name.len().min(12);
        guid[4..4 + n].copy_from_slice(&name[..n]);
    }
    guid
}

/// Whether two GUIDs name the same pad: the CRC words are left out (most
/// lines have none), and with `any_version` the version too.
fn same_pad(a: &[u8; 16], b: &[u8; 16], any_version: bool) -> bool {
    let named = a[4..6] == [0, 0] || b[4..6] == [0, 0];
    let ids = |g: &[u8; 16]| -> [u8; 12] {
        let mut k = [0u8; 12];
        k[..2].copy_from_slice(&g[..2]);
        k[2..].copy_from_slice(&g[4..14]);
        if any_version && !named {
            k[10..12].fill(0);
        }
        k
    };
    ids(a) == ids(b) && (named || a[14..16] == b[14..16])
}

/// The mappings known: a player's own lines first, then the database's.
pub struct Database {
    mappings: Vec<Mapping>,
}

impl Database {
    /// Reads `own` (the variable's lines, if any) and the embedded lines;
    /// a bad line of `own` costs that line and one line in `warnings`.
    pub fn read(own: Option<&str>, warnings: &mut Vec<String>) -> Database {
        let mut mappings = Vec::new();
        for (n, line) in own
            .unwrap_or_default()
            .lines()
            .take(MAX_OWN_LINES)
            .enumerate()
        {
            if line.len() > MAX_LINE {
                warnings.push(format!(
                    "{CONFIG_VAR} line {}: longer than {MAX_LINE} bytes",
                    n + 1
                ));
                continue;
            }
            match parse(line) {
                Ok(Some(mapping)) => mappings.push(mapping),
                Ok(None) => {}
                Err(why) => warnings.push(format!("{CONFIG_VAR} line {}: {why}", n + 1)),
            }
        }
        // The embedded lines are checked by a test: none is refused.
        mappings.extend(DATABASE.lines().filter_map(|l| parse(l).ok().flatten()));
        Database { mappings }
    }

    /// The database this process reads, once, with its warnings said.
    pub fn get() -> &'static Database {
        static DB: OnceLock<Database> = OnceLock::new();
        DB.get_or_init(|| {
            let own = std::env::var(CONFIG_VAR).ok();
            let mut warnings = Vec::new();
            let db = Database::read(own.as_deref(), &mut warnings);
            for warning in warnings {
                tell!("moonloop: {}", escape(&warning));
            }
            db
        })
    }

    /// The mapping for a pad: its exact GUID, else any version of it.
    pub fn find(&self, guid: &[u8; 16]) -> Option<&Mapping> {
        let exact = self
            .mappings
            .iter()
            .find(|m| same_pad(&m.guid, guid, false));
        exact.or_else(|| self.mappings.iter().find(|m| same_pad(&m.guid, guid, true)))
    }
}

impl Mapping {
    /// The mapping's bindings for a device that has `caps`: SDL's button,
    /// axis and hat numbers turned into evdev codes. A source the device
    /// lacks binds nothing.
    pub fn binds(&self, caps: &Caps) -> Binds {
        let buttons: Vec<u16> = caps.buttons().collect();
        let axes: Vec<u16> = caps.axis_codes().collect();
        let hats: Vec<u8> = caps.hats().collect();
        let mut binds = Binds::default();
        for &(source, target) in &self.binds {
            match source {
                Source::Button(i) => {
                    if let Some(&code) = buttons.get(i as usize) {
                        binds.keys.push((code, target));
                    }
                }
                Source::Axis { index, from, to } => {
                    if let Some(&code) = axes.get(index as usize) {
                        binds.axes.push((code, from, to, target));
                    }
                }
                Source::Hat { index, mask } => {
                    if let Some(&hat) = hats.get(index as usize) {
                        binds.hats.push((hat, mask, target));
                    }
                }
            }
        }
        binds
    }
}

#[cfg(test)]
mod tests;
