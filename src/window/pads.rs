//! Gamepads in a window (rule H6), read from Linux's evdev devices
//! (`/dev/input/event*`) with plain system calls.
//!
//! gilrs, the usual crate, links libudev, which needs `libudev-dev` at build
//! time and would break the README's play command on a fresh machine. The
//! kernel's own drivers (xpad, hid-sony, hid-nintendo, hid-generic with
//! the kernel's mappings) already report pads in the standard layout as
//! evdev's `BTN_SOUTH`..`BTN_DPAD_*` codes and `ABS_*` axes, which is what
//! the community mappings exist to produce elsewhere. So this reads evdev
//! directly: no build-time dependency, and nothing to load at run time.
//!
//! Devices are looked for when the window opens and again every second,
//! so a pad plugged in mid-game works; one that goes away releases its
//! buttons and centres its axes. Each pad takes the lowest free player
//! number (1 to 4) and keeps it while it stays connected. Without a pad,
//! or without permission to read one (desktops grant the seat's user
//! access to joysticks), there are simply no pads.

use std::time::{Duration, Instant};

use crate::input::{Axis, InputEvent, Key, PADS};

/// How often the device folder is looked at for new pads.
const RESCAN: Duration = Duration::from_secs(1);

/// evdev's event types and the codes a pad reports.
const EV_KEY: u16 = 0x01;
const EV_ABS: u16 = 0x03;

/// evdev button codes in [`crate::input::PAD_BUTTONS`] order.
const BUTTON_CODES: [u16; 17] = [
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

/// evdev axis codes in [`crate::input::PAD_AXES`] order.
const AXIS_CODES: [u16; 6] = [
    0x00, // ABS_X
    0x01, // ABS_Y
    0x03, // ABS_RX
    0x04, // ABS_RY
    0x02, // ABS_Z
    0x05, // ABS_RZ
];

/// The hat most pads report their d-pad on.
const ABS_HAT0X: u16 = 0x10;
const ABS_HAT0Y: u16 = 0x11;
const DPAD_UP: usize = 13;

/// One evdev event, as the kernel writes it on 64-bit Linux.
#[repr(C)]
#[derive(Clone, Copy, Default)]
struct RawEvent {
    seconds: i64,
    micros: i64,
    kind: u16,
    code: u16,
    value: i32,
}

/// The size of [`RawEvent`].
pub const EVENT_SIZE: usize = std::mem::size_of::<RawEvent>();

/// An axis's range, as the device reports it.
#[derive(Debug, Clone, Copy)]
struct Range {
    min: i32,
    max: i32,
}

impl Range {
    /// Maps `raw` to -1..1 (a stick) or 0..1 (a trigger, `from_zero`).
    fn normalize(self, raw: i32, from_zero: bool) -> f64 {
        let span = (self.max as f64 - self.min as f64).max(1.0);
        let unit = ((raw as f64 - self.min as f64) / span).clamp(0.0, 1.0);
        if from_zero { unit } else { unit * 2.0 - 1.0 }
    }
}

/// What one pad's events mean, device aside: the part tested without a
/// device.
#[derive(Debug, Clone)]
pub struct Decoder {
    /// The player this pad is, 1 to [`PADS`].
    pub player: usize,
    ranges: [Range; 6],
    /// The buttons held now, for releasing them if the pad goes away.
    held: [bool; 17],
}

impl Decoder {
    /// A pad for `player` whose axes span `ranges` (in PAD_AXES order).
    fn new(player: usize, ranges: [Range; 6]) -> Decoder {
        Decoder {
            player,
            ranges,
            held: [false; 17],
        }
    }

    /// Turns one evdev event into input events.
    fn decode(&mut self, kind: u16, code: u16, value: i32, push: &mut impl FnMut(InputEvent)) {
        match kind {
            EV_KEY => {
                if let Some(button) = BUTTON_CODES.iter().position(|c| *c == code) {
                    self.button(button, value != 0, push);
                }
            }
            EV_ABS => {
                if let Some(i) = AXIS_CODES.iter().position(|c| *c == code) {
                    let value = self.ranges[i].normalize(value, i >= 4);
                    let axis = Axis {
                        pad: Some(self.player),
                        axis: i,
                    };
                    push(InputEvent::Axis(axis, value));
                } else if code == ABS_HAT0X || code == ABS_HAT0Y {
                    // The hat is the d-pad: -1, 0 or 1 on each axis.
                    let (less, more) = if code == ABS_HAT0X {
                        (DPAD_UP + 2, DPAD_UP + 3)
                    } else {
                        (DPAD_UP, DPAD_UP + 1)
                    };
                    self.button(less, value < 0, push);
                    self.button(more, value > 0, push);
                }
            }
            _ => {}
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
        let kind = u16::from_ne_bytes([chunk[16], chunk[17]]);
        let code = u16::from_ne_bytes([chunk[18], chunk[19]]);
        let value = i32::from_ne_bytes([chunk[20], chunk[21], chunk[22], chunk[23]]);
        decoder.decode(kind, code, value, push);
    }
}

/// The pads connected to this machine.
pub struct Pads {
    #[cfg(target_os = "linux")]
    devices: Vec<linux::Device>,
    last_scan: Option<Instant>,
}

impl Pads {
    /// No pads yet; the first [`Pads::poll`] looks for them.
    pub fn new() -> Pads {
        Pads {
            #[cfg(target_os = "linux")]
            devices: Vec::new(),
            last_scan: None,
        }
    }

    /// Reads what every pad did since the last call, and once a second
    /// looks for pads plugged in or pulled out.
    pub fn poll(&mut self, now: Instant, mut push: impl FnMut(InputEvent)) {
        let rescan = self
            .last_scan
            .is_none_or(|t| now.duration_since(t) >= RESCAN);
        #[cfg(target_os = "linux")]
        {
            if rescan {
                linux::scan(&mut self.devices);
            }
            self.devices.retain_mut(|device| device.read(&mut push));
        }
        if rescan {
            self.last_scan = Some(now);
        }
        let _ = &mut push;
    }
}

#[cfg(target_os = "linux")]
mod linux {
    use std::ffi::CString;
    use std::os::unix::ffi::OsStrExt as _;

    use super::{AXIS_CODES, BUTTON_CODES, Decoder, EV_KEY, EVENT_SIZE, PADS, Range};
    use crate::input::InputEvent;

    const DEVICES: &str = "/dev/input";
    /// The most devices looked at in one scan (a machine has a few dozen).
    const MAX_DEVICES: usize = 256;

    /// `_IOC(_IOC_READ, 'E', nr, size)`, Linux's ioctl number on the
    /// architectures Linux games run on (x86_64, aarch64).
    const fn eviocg(nr: u64, size: u64) -> u64 {
        (2 << 30) | (size << 16) | ((b'E' as u64) << 8) | nr
    }

    /// An open pad.
    pub struct Device {
        /// The device's name under /dev/input (`event7`).
        name: Vec<u8>,
        fd: libc::c_int,
        decoder: Decoder,
    }

    impl Drop for Device {
        fn drop(&mut self) {
            // SAFETY: the descriptor is ours and closed once.
            unsafe { libc::close(self.fd) };
        }
    }

    impl Device {
        /// Reads what the pad sent; false when it went away.
        pub fn read(&mut self, push: &mut impl FnMut(InputEvent)) -> bool {
            let mut buffer = [0u8; EVENT_SIZE * 64];
            loop {
                // SAFETY: reading into a buffer we own, of the size given.
                let n = unsafe { libc::read(self.fd, buffer.as_mut_ptr().cast(), buffer.len()) };
                if n > 0 {
                    super::decode_bytes(&mut self.decoder, &buffer[..n as usize], push);
                    continue;
                }
                let gone =
                    n == 0 || std::io::Error::last_os_error().raw_os_error() != Some(libc::EAGAIN);
                if gone {
                    self.decoder.unplugged(push);
                }
                return !gone;
            }
        }
    }

    /// Opens the pads in /dev/input not open yet.
    pub fn scan(devices: &mut Vec<Device>) {
        let Ok(entries) = std::fs::read_dir(DEVICES) else {
            return;
        };
        for entry in entries.take(MAX_DEVICES).flatten() {
            let name = entry.file_name();
            let name = name.as_bytes();
            if devices.len() == PADS || !name.starts_with(b"event") {
                continue;
            }
            if devices.iter().any(|d| d.name == name) {
                continue;
            }
            if let Some(device) = open(name, devices) {
                devices.push(device);
            }
        }
    }

    /// Opens `/dev/input/NAME` if it is a gamepad, as the lowest free player.
    fn open(name: &[u8], devices: &[Device]) -> Option<Device> {
        let mut path = format!("{DEVICES}/").into_bytes();
        path.extend_from_slice(name);
        let path = CString::new(path).ok()?;
        // SAFETY: a path we made, opened read-only and non-blocking.
        let fd = unsafe {
            libc::open(
                path.as_ptr(),
                libc::O_RDONLY | libc::O_NONBLOCK | libc::O_CLOEXEC,
            )
        };
        if fd < 0 {
            return None;
        }
        let close = || {
            // SAFETY: closing the descriptor just opened.
            unsafe { libc::close(fd) };
            None
        };
        // A gamepad has BTN_SOUTH (BTN_GAMEPAD) among its keys.
        let mut keys = [0u8; 0x300 / 8];
        // SAFETY: EVIOCGBIT(EV_KEY) fills at most the buffer's size.
        let got = unsafe {
            libc::ioctl(
                fd,
                eviocg(0x20 + EV_KEY as u64, keys.len() as u64) as _,
                keys.as_mut_ptr(),
            )
        };
        let south = BUTTON_CODES[0] as usize;
        if got < 0 || keys[south / 8] & (1 << (south % 8)) == 0 {
            return close();
        }
        let mut ranges = [Range {
            min: -32768,
            max: 32767,
        }; 6];
        for (i, code) in AXIS_CODES.iter().enumerate() {
            // struct input_absinfo: value, minimum, maximum, fuzz, flat, resolution.
            let mut info = [0i32; 6];
            // SAFETY: EVIOCGABS fills one input_absinfo (24 bytes).
            let got =
                unsafe { libc::ioctl(fd, eviocg(0x40 + *code as u64, 24) as _, info.as_mut_ptr()) };
            if got >= 0 && info[2] > info[1] {
                ranges[i] = Range {
                    min: info[1],
                    max: info[2],
                };
            } else if i >= 4 {
                ranges[i] = Range { min: 0, max: 255 };
            }
        }
        let player = (1..=PADS).find(|p| devices.iter().all(|d| d.decoder.player != *p))?;
        Some(Device {
            name: name.to_vec(),
            fd,
            decoder: Decoder::new(player, ranges),
        })
    }
}

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
        let stick = Range {
            min: -32768,
            max: 32767,
        };
        let trigger = Range { min: 0, max: 1023 };
        let mut pad = Decoder::new(2, [stick, stick, stick, stick, trigger, trigger]);
        let mut bytes = Vec::new();
        bytes.extend(event(EV_KEY, 0x130, 1)); // south down
        bytes.extend(event(EV_ABS, 0x00, 32767)); // left stick right
        bytes.extend(event(EV_ABS, 0x05, 1023)); // right trigger in
        bytes.extend(event(EV_ABS, ABS_HAT0Y, -1)); // d-pad up
        bytes.extend(event(0x00, 0, 0)); // SYN_REPORT: nothing
        bytes.extend(event(EV_KEY, 0x130, 0)); // south up
        bytes.extend(event(EV_ABS, ABS_HAT0Y, 1)); // d-pad down (up comes up)
        bytes.extend(&[1, 2, 3]); // a torn event is left alone
        let mut seen = Vec::new();
        decode_bytes(&mut pad, &bytes, &mut |e| seen.push(e.to_string()));
        assert_eq!(
            seen,
            [
                "press pad2:south",
                "axis pad2:leftx 1",
                "axis pad2:righttrigger 1",
                "press pad2:dpad_up",
                "release pad2:south",
                "release pad2:dpad_up",
                "press pad2:dpad_down",
            ]
        );
        seen.clear();
        pad.unplugged(&mut |e| seen.push(e.to_string()));
        assert_eq!(seen[0], "release pad2:dpad_down", "{seen:?}");
        assert_eq!(seen.len(), 1 + 6, "every axis centres: {seen:?}");
    }
}
