//! Gamepads on Windows, through XInput (rule H6): the four controller
//! slots Windows keeps, each the player of its number (the slot's light
//! on an Xbox pad says which). XInput's pads have the standard layout
//! already; their state is read once a frame and what changed becomes
//! input events, through the same [`Decoder`] evdev's pads go through
//! (a trigger past half way presses its button; a pad that goes away
//! lets go of everything).
//!
//! The reading of a state is plain Rust, tested on every machine; the
//! slots are read with `XInputGetState` (xinput1_4.dll, in every Windows
//! since 8, and in wine).

// Elsewhere the reading is tested alone.
#![cfg_attr(not(all(windows, feature = "pads")), allow(dead_code))]

use super::padmap::{ABS_CODES, Binds, Target};
use super::{Decoder, Range};
use moonloop_core::input::InputEvent;

/// One pad's state as XInput reports it (`XINPUT_GAMEPAD`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct XPad {
    /// `wButtons`: one bit a button.
    pub buttons: u16,
    /// Left and right, 0 to 255.
    pub triggers: [u8; 2],
    /// Left x, left y, right x, right y; up is positive.
    pub thumbs: [i16; 4],
}

/// Each button's bit in `wButtons` and its place in
/// [`moonloop_core::input::PAD_BUTTONS`] (the triggers' buttons come from their
/// axes). The guide button is XInput's to keep: Windows opens its own
/// bar with it.
const BUTTONS: [(u16, usize); 14] = [
    (0x1000, 0),  // A: south
    (0x2000, 1),  // B: east
    (0x4000, 2),  // X: west
    (0x8000, 3),  // Y: north
    (0x0100, 4),  // left shoulder
    (0x0200, 5),  // right shoulder
    (0x0020, 8),  // back
    (0x0010, 9),  // start
    (0x0040, 11), // left stick
    (0x0080, 12), // right stick
    (0x0001, 13), // d-pad up
    (0x0002, 14), // d-pad down
    (0x0004, 15), // d-pad left
    (0x0008, 16), // d-pad right
];

/// A decoder for the pad in slot `player - 1`.
pub fn decoder(player: usize) -> Decoder {
    Decoder::new(player, Binds::standard(), [Range::STICK; ABS_CODES])
}

impl Decoder {
    /// Turns the change from `was` to `now` into input events: buttons
    /// pressed and released, and each stick or trigger that moved.
    pub fn xinput(&mut self, was: &XPad, now: &XPad, push: &mut impl FnMut(InputEvent)) {
        for (bit, button) in BUTTONS {
            if (was.buttons ^ now.buttons) & bit != 0 {
                let down = if now.buttons & bit != 0 { 1.0 } else { 0.0 };
                self.apply(Target::Button(button), down, push);
            }
        }
        for axis in 0..4 {
            if was.thumbs[axis] != now.thumbs[axis] {
                let v = (f64::from(now.thumbs[axis]) / 32767.0).clamp(-1.0, 1.0);
                // Our sticks are down-positive, as the kernel's are.
                let v = if axis % 2 == 1 { -v } else { v };
                let target = Target::Axis {
                    axis,
                    from: -1.0,
                    to: 1.0,
                };
                self.apply(target, (v + 1.0) / 2.0, push);
            }
        }
        for side in 0..2 {
            if was.triggers[side] != now.triggers[side] {
                let target = Target::Axis {
                    axis: 4 + side,
                    from: 0.0,
                    to: 1.0,
                };
                self.apply(target, f64::from(now.triggers[side]) / 255.0, push);
            }
        }
    }
}

/// The four slots, read with `XInputGetState`.
#[cfg(all(windows, feature = "pads"))]
#[derive(Default)]
pub struct Slots {
    /// Each connected slot's decoder, its last state and packet number.
    slots: [Option<(Decoder, XPad, u32)>; 4],
}

#[cfg(all(windows, feature = "pads"))]
impl Slots {
    /// Reads the connected pads, and with `rescan` the empty slots too
    /// (asking an empty slot is slow, so it is done once a second).
    pub fn poll(&mut self, rescan: bool, push: &mut impl FnMut(InputEvent)) {
        use windows_sys::Win32::UI::Input::XboxController::{XINPUT_STATE, XInputGetState};
        for (index, slot) in self.slots.iter_mut().enumerate() {
            if slot.is_none() && !rescan {
                continue;
            }
            // SAFETY: XINPUT_STATE is plain data, written whole on success.
            let mut state: XINPUT_STATE = unsafe { std::mem::zeroed() };
            // SAFETY: `state` is a valid XINPUT_STATE for the call.
            let read = unsafe { XInputGetState(index as u32, &mut state) } == 0;
            if !read {
                if let Some((mut decoder, _, _)) = slot.take() {
                    decoder.unplugged(push);
                }
                continue;
            }
            let g = state.Gamepad;
            let now = XPad {
                buttons: g.wButtons,
                triggers: [g.bLeftTrigger, g.bRightTrigger],
                thumbs: [g.sThumbLX, g.sThumbLY, g.sThumbRX, g.sThumbRY],
            };
            let (decoder, was, packet) = slot.get_or_insert_with(|| {
                moonloop_door::tell!(
                    "moonloop: pad{} is the XInput controller in slot {} (read as the standard layout)",
                    index + 1,
                    index + 1
                );
                (decoder(index + 1), XPad::default(), u32::MAX)
            });
            if *packet != state.dwPacketNumber {
                decoder.xinput(was, &now, push);
                *was = now;
                *packet = state.dwPacketNumber;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(pad: &mut Decoder, was: &XPad, now: &XPad) -> Vec<String> {
        let mut seen = Vec::new();
        pad.xinput(was, now, &mut |e| seen.push(e.to_string()));
        seen
    }

    // rule: H6
    #[test]
    fn xinput_states_become_the_standard_layout() {
        let mut pad = decoder(3);
        let rest = XPad::default();
        let a_and_up = XPad {
            buttons: 0x1000 | 0x0001 | 0x0010,
            triggers: [0, 100],
            // Left stick full right and full up.
            thumbs: [32767, 32767, 0, -32768],
        };
        assert_eq!(
            read(&mut pad, &rest, &a_and_up),
            [
                "press pad3:south",
                "press pad3:start",
                "press pad3:dpad_up",
                "axis pad3:leftx 1",
                "axis pad3:lefty -1",
                "axis pad3:righty 1",
                "axis pad3:righttrigger 0.39215686274509803",
            ]
        );
        // Nothing changed: nothing said.
        assert!(read(&mut pad, &a_and_up, &a_and_up).is_empty());
        let later = XPad {
            buttons: 0x2000 | 0x0010,
            triggers: [0, 255],
            ..a_and_up
        };
        assert_eq!(
            read(&mut pad, &a_and_up, &later),
            [
                "release pad3:south",
                "press pad3:east",
                "release pad3:dpad_up",
                "axis pad3:righttrigger 1",
                "press pad3:righttrigger",
            ]
        );
        // Pulled out: what was held comes up, the axes centre.
        let mut seen = Vec::new();
        pad.unplugged(&mut |e| seen.push(e.to_string()));
        assert_eq!(
            seen[..3],
            [
                "release pad3:east",
                "release pad3:righttrigger",
                "release pad3:start"
            ],
            "{seen:?}"
        );
    }

    // rule: H6
    #[test]
    fn every_xinput_button_has_its_own_standard_name() {
        let mut names = Vec::new();
        for (bit, _) in BUTTONS {
            let mut pad = decoder(1);
            let pressed = XPad {
                buttons: bit,
                ..XPad::default()
            };
            let seen = read(&mut pad, &XPad::default(), &pressed);
            assert_eq!(seen.len(), 1, "{bit:#x}: {seen:?}");
            names.push(seen[0].clone());
        }
        names.sort();
        names.dedup();
        assert_eq!(names.len(), BUTTONS.len(), "{names:?}");
    }
}
