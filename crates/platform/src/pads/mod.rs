//! Gamepads in a window (rule H6), read from Linux's evdev devices
//! (`/dev/input/event*`) with plain system calls, and on Windows from
//! XInput ([`xinput`]).
//!
//! gilrs, the usual crate, links libudev, which needs `libudev-dev` at build
//! time and would break the README's play command on a fresh machine. So
//! this reads evdev directly: no build-time dependency, and nothing to
//! load at run time. A pad the community's mappings know ([`padmap`],
//! SDL_GameControllerDB, built in) reads through its mapping; any other
//! that reports `BTN_SOUTH`, as the kernel's gamepad drivers do, reads as
//! the kernel's standard layout.
//!
//! Devices are looked for when the window opens and again every second,
//! so a pad plugged in mid-game works; one that goes away releases its
//! buttons and centres its axes. Each pad takes the lowest free player
//! number (1 to 4) and keeps it while it stays connected. Without a pad,
//! or without permission to read one (desktops grant the seat's user
//! access to joysticks), there are simply no pads.

// The decoder's device half (evdev.rs) is Linux's and the `pads`
// feature's; elsewhere the decoder is fuzzed and tested alone.
#![cfg_attr(
    not(all(target_os = "linux", feature = "pads")),
    allow(dead_code, unused_imports)
)]

use std::time::{Duration, Instant};

pub mod padmap;
pub mod xinput;

use moonloop_core::input::{Axis, InputEvent, Key, PADS};
use padmap::{ABS_CODES, ABS_HAT0X, Binds, Target};

/// How often the device folder is looked at for new pads.
const RESCAN: Duration = Duration::from_secs(1);

/// evdev's event types and the codes a pad reports.
const EV_KEY: u16 = 0x01;
const EV_SYN: u16 = 0x00;
const EV_ABS: u16 = 0x03;

/// One evdev event, as the kernel writes it: libc's own `input_event`,
/// whose time fields follow the target's `time_t` (24 bytes on 64-bit
/// Linux, 16 on 32-bit without 64-bit time).
#[cfg(target_os = "linux")]
type RawEvent = libc::input_event;

/// One evdev event, laid out as 64-bit Linux writes it (the decoder is
/// fuzzed everywhere; only Linux reads real devices).
#[cfg(not(target_os = "linux"))]
#[repr(C)]
#[allow(non_camel_case_types, dead_code)]
struct RawEvent {
    time: [i64; 2],
    type_: u16,
    code: u16,
    value: i32,
}

/// The size of one event.
pub const EVENT_SIZE: usize = std::mem::size_of::<RawEvent>();

/// Where an event's type, code and value are in its bytes.
const KIND_AT: usize = std::mem::offset_of!(RawEvent, type_);
const CODE_AT: usize = std::mem::offset_of!(RawEvent, code);
const VALUE_AT: usize = std::mem::offset_of!(RawEvent, value);

/// An axis's range, as the device reports it.
#[derive(Debug, Clone, Copy)]
pub struct Range {
    pub min: i32,
    pub max: i32,
}

impl Range {
    /// A stick's range when the device does not say.
    const STICK: Range = Range {
        min: -32768,
        max: 32767,
    };

    /// Maps `raw` to -1..1.
    fn normalize(self, raw: i32) -> f64 {
        let span = (self.max as f64 - self.min as f64).max(1.0);
        let unit = ((raw as f64 - self.min as f64) / span).clamp(0.0, 1.0);
        unit * 2.0 - 1.0
    }
}

/// What one pad's events mean, device aside: the part tested without a
/// device.
#[derive(Debug, Clone)]
pub struct Decoder {
    /// The player this pad is, 1 to [`PADS`].
    pub player: usize,
    binds: Binds,
    /// Each axis code's range.
    ranges: [Range; ABS_CODES],
    /// Each hat's x and y: -1, 0 or 1.
    hats: [[i32; 2]; 4],
    /// The buttons held now, for releasing them if the pad goes away.
    held: [bool; 17],
}

/// The triggers' place in [`moonloop_core::input::PAD_AXES`] and in the buttons:
/// an analog trigger also presses its button when pulled past half way.
const TRIGGER_AXES: usize = 4;
const TRIGGER_BUTTONS: usize = 6;

impl Decoder {
    /// A pad for `player` read through `binds`, whose axis code `c` spans
    /// `ranges[c]`.
    pub fn new(player: usize, binds: Binds, ranges: [Range; ABS_CODES]) -> Decoder {
        Decoder {
            player,
            binds,
            ranges,
            hats: [[0; 2]; 4],
            held: [false; 17],
        }
    }

    /// Turns one evdev event into input events.
    fn decode(&mut self, kind: u16, code: u16, value: i32, push: &mut impl FnMut(InputEvent)) {
        match kind {
            EV_KEY => {
                let pressed = if value != 0 { 1.0 } else { 0.0 };
                for i in 0..self.binds.keys.len() {
                    let (c, target) = self.binds.keys[i];
                    if c == code {
                        self.apply(target, pressed, push);
                    }
                }
            }
            EV_ABS if (ABS_HAT0X..ABS_HAT0X + 8).contains(&code) => {
                let hat = (code - ABS_HAT0X) / 2;
                self.hats[hat as usize][(code % 2) as usize] = value.signum();
                let [x, y] = self.hats[hat as usize];
                let mask = u8::from(y < 0)
                    | u8::from(x > 0) << 1
                    | u8::from(y > 0) << 2
                    | u8::from(x < 0) << 3;
                for i in 0..self.binds.hats.len() {
                    let (h, bit, target) = self.binds.hats[i];
                    if u16::from(h) == hat {
                        self.apply(target, if mask & bit != 0 { 1.0 } else { 0.0 }, push);
                    }
                }
            }
            EV_ABS if (code as usize) < ABS_CODES => {
                let v = self.ranges[code as usize].normalize(value);
                // How far into each binding's part of the axis `v` is.
                let part = |from: f64, to: f64| (v - from) / (to - from);
                for i in 0..self.binds.axes.len() {
                    let (c, from, to, target) = self.binds.axes[i];
                    if c != code {
                        continue;
                    }
                    let t = part(from, to);
                    // Outside its part, a binding rests, unless another
                    // part of this axis drives the same target now.
                    let inside = (0.0..=1.0).contains(&t);
                    let other =
                        self.binds
                            .axes
                            .iter()
                            .enumerate()
                            .any(|(j, &(c2, f2, t2, target2))| {
                                j != i
                                    && c2 == code
                                    && target2 == target
                                    && (0.0..=1.0).contains(&part(f2, t2))
                            });
                    if inside || !other {
                        self.apply(target, t.clamp(0.0, 1.0), push);
                    }
                }
            }
            _ => {}
        }
    }

    /// Drives `target` from `t`, 0 (released, or the start of the
    /// source's range) to 1.
    fn apply(&mut self, target: Target, t: f64, push: &mut impl FnMut(InputEvent)) {
        match target {
            Target::Button(button) => self.button(button, t >= 0.5, push),
            Target::Axis { axis, from, to } => {
                let value = from + t * (to - from);
                push(InputEvent::Axis(
                    Axis {
                        pad: Some(self.player),
                        axis,
                    },
                    value,
                ));
                if axis >= TRIGGER_AXES {
                    self.button(axis - TRIGGER_AXES + TRIGGER_BUTTONS, value >= 0.5, push);
                }
            }
        }
    }

    fn button(&mut self, button: usize, down: bool, push: &mut impl FnMut(InputEvent)) {
        if self.held[button] == down {
            return;
        }
        self.held[button] = down;
        if let Some(key) = Key::pad(self.player, button) {
            push(if down {
                InputEvent::Press(key)
            } else {
                InputEvent::Release(key)
            });
        }
    }

    /// The pad went away: its buttons come up and its axes centre.
    fn unplugged(&mut self, push: &mut impl FnMut(InputEvent)) {
        for button in 0..self.held.len() {
            self.button(button, false, push);
        }
        for axis in 0..6 {
            push(InputEvent::Axis(
                Axis {
                    pad: Some(self.player),
                    axis,
                },
                0.0,
            ));
        }
    }
}

/// Reads evdev events from `bytes` (whole events only) into `decoder`.
pub fn decode_bytes(decoder: &mut Decoder, bytes: &[u8], push: &mut impl FnMut(InputEvent)) {
    for chunk in bytes.chunks_exact(EVENT_SIZE) {
        let field = |at: usize, len: usize| &chunk[at..at + len];
        let kind = u16::from_ne_bytes(field(KIND_AT, 2).try_into().expect("2 bytes"));
        let code = u16::from_ne_bytes(field(CODE_AT, 2).try_into().expect("2 bytes"));
        let value = i32::from_ne_bytes(field(VALUE_AT, 4).try_into().expect("4 bytes"));
        decoder.decode(kind, code, value, push);
    }
}

/// The pads connected to this machine.
#[derive(Default)]
pub struct Pads {
    #[cfg(all(target_os = "linux", feature = "pads"))]
    devices: Vec<evdev::Device>,
    #[cfg(all(windows, feature = "pads"))]
    slots: xinput::Slots,
    last_scan: Option<Instant>,
}

impl Pads {
    /// No pads yet; the first [`Pads::poll`] looks for them.
    pub fn new() -> Pads {
        Pads {
            #[cfg(all(target_os = "linux", feature = "pads"))]
            devices: Vec::new(),
            #[cfg(all(windows, feature = "pads"))]
            slots: xinput::Slots::default(),
            last_scan: None,
        }
    }

    /// Reads what every pad did since the last call, and once a second
    /// looks for pads plugged in or pulled out.
    pub fn poll(&mut self, now: Instant, mut push: impl FnMut(InputEvent)) {
        let rescan = self
            .last_scan
            .is_none_or(|t| now.duration_since(t) >= RESCAN);
        #[cfg(all(target_os = "linux", feature = "pads"))]
        {
            if rescan {
                evdev::scan(&mut self.devices, &mut push);
            }
            self.devices.retain_mut(|device| device.read(&mut push));
        }
        #[cfg(all(windows, feature = "pads"))]
        self.slots.poll(rescan, &mut push);
        if rescan {
            self.last_scan = Some(now);
        }
        let _ = &mut push;
    }
}

#[cfg(all(target_os = "linux", feature = "pads"))]
mod evdev;

#[cfg(test)]
mod tests {
    use super::*;

    fn event(kind: u16, code: u16, value: i32) -> Vec<u8> {
        let mut bytes = vec![0u8; 16];
        bytes.extend_from_slice(&kind.to_ne_bytes());
        bytes.extend_from_slice(&code.to_ne_bytes());
        bytes.extend_from_slice(&value.to_ne_bytes());
        bytes
    }

    // rule: H6
    #[test]
    fn evdev_events_become_the_standard_layout() {
        let trigger = Range { min: 0, max: 1023 };
        let ranges = std::array::from_fn(|code| {
            if code == 0x02 || code == 0x05 {
                trigger
            } else {
                Range::STICK
            }
        });
        let mut pad = Decoder::new(2, Binds::standard(), ranges);
        let mut bytes = Vec::new();
        bytes.extend(event(EV_KEY, 0x130, 1)); // south down
        bytes.extend(event(EV_ABS, 0x00, 32767)); // left stick right
        bytes.extend(event(EV_ABS, 0x05, 400)); // right trigger part way
        bytes.extend(event(EV_ABS, 0x05, 1023)); // and in: its button too
        bytes.extend(event(EV_ABS, ABS_HAT0X + 1, -1)); // d-pad up
        bytes.extend(event(0x00, 0, 0)); // SYN_REPORT: nothing
        bytes.extend(event(EV_KEY, 0x130, 0)); // south up
        bytes.extend(event(EV_ABS, ABS_HAT0X + 1, 1)); // d-pad down (up comes up)
        bytes.extend(&[1, 2, 3]); // a torn event is left alone
        let mut seen = Vec::new();
        decode_bytes(&mut pad, &bytes, &mut |e| seen.push(e.to_string()));
        assert_eq!(
            seen,
            [
                "press pad2:south",
                "axis pad2:leftx 1",
                "axis pad2:righttrigger 0.39100684261974583",
                "axis pad2:righttrigger 1",
                "press pad2:righttrigger",
                "press pad2:dpad_up",
                "release pad2:south",
                "release pad2:dpad_up",
                "press pad2:dpad_down",
            ]
        );
        seen.clear();
        pad.unplugged(&mut |e| seen.push(e.to_string()));
        assert_eq!(
            seen[..2],
            ["release pad2:righttrigger", "release pad2:dpad_down"],
            "{seen:?}"
        );
        assert_eq!(seen.len(), 2 + 6, "every axis centres: {seen:?}");
    }

    // rule: H6
    #[test]
    fn a_pad_read_through_a_community_mapping_lands_on_the_standard_names() {
        use super::padmap::{self, Caps};
        // A generic pad: buttons from BTN_TRIGGER (0x120), axes X, Y, Z,
        // RZ (0..255) and hat 0. Its mapping puts south on its third
        // button, reads lefty upside down, the d-pad from the hat, the left
        // trigger from the lower half of its fourth axis, and +rightx from
        // a button.
        let caps = Caps::default().with(
            &[0x120, 0x121, 0x122, 0x123, 0x124],
            &[0x00, 0x01, 0x02, 0x05, 0x10, 0x11],
        );
        let line = "03000000790000000600000010010000,Generic,a:b2,lefty:a1~,\
                    lefttrigger:-a3,righttrigger:+a3,dpup:h0.1,dpleft:h0.8,+rightx:b4,platform:Linux";
        let mapping = padmap::parse(line).unwrap().unwrap();
        let ranges = [Range { min: 0, max: 255 }; ABS_CODES];
        let mut pad = Decoder::new(1, mapping.binds(&caps), ranges);
        let mut bytes = Vec::new();
        bytes.extend(event(EV_KEY, 0x122, 1)); // its third button: south
        bytes.extend(event(EV_KEY, 0x120, 1)); // its first: unmapped
        bytes.extend(event(EV_ABS, 0x01, 0)); // lefty at its top: +1, upside down
        bytes.extend(event(EV_ABS, 0x05, 0)); // fourth axis low: left trigger in
        bytes.extend(event(EV_ABS, 0x05, 255)); // high: the right one instead
        bytes.extend(event(EV_ABS, 0x10, -1)); // hat left
        bytes.extend(event(EV_ABS, 0x11, -1)); // and up
        bytes.extend(event(EV_ABS, 0x10, 0)); // left lets go
        bytes.extend(event(EV_KEY, 0x124, 1)); // +rightx from a button
        bytes.extend(event(EV_KEY, 0x124, 0));
        let mut seen = Vec::new();
        decode_bytes(&mut pad, &bytes, &mut |e| seen.push(e.to_string()));
        assert_eq!(
            seen,
            [
                "press pad1:south",
                "axis pad1:lefty 1",
                "axis pad1:lefttrigger 1",
                "press pad1:lefttrigger",
                "axis pad1:righttrigger 0",
                "axis pad1:lefttrigger 0",
                "release pad1:lefttrigger",
                "axis pad1:righttrigger 1",
                "press pad1:righttrigger",
                "press pad1:dpad_left",
                "press pad1:dpad_up",
                "release pad1:dpad_left",
                "axis pad1:rightx 1",
                "axis pad1:rightx 0",
            ]
        );
    }
}
