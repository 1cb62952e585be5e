//! The device half of the pads: Linux's evdev devices under /dev/input,
//! opened, asked what they are, and read, with plain system calls. Tested
//! against the kernel by tests/pad_devices.rs (uinput pads in a VM).

use moonloop_door::tell;

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt as _;

use super::padmap::{self, Binds, Caps, STANDARD_AXES, STANDARD_BUTTONS};
use super::{
    ABS_CODES, CODE_AT, Decoder, EV_ABS, EV_KEY, EV_SYN, EVENT_SIZE, KIND_AT, PADS, Range,
};
use moonloop_core::input::InputEvent;
use moonloop_door::escape;

const DEVICES: &str = "/dev/input";
/// The most devices looked at in one scan (a machine has a few dozen).
const MAX_DEVICES: usize = 256;

/// `_IOC(_IOC_READ, 'E', nr, size)`, Linux's ioctl number on the
/// architectures Linux games run on (x86_64, aarch64).
const fn eviocg(nr: u64, size: u64) -> u64 {
    (2 << 30) | (size << 16) | ((b'E' as u64) << 8) | nr
}

// The numbers <linux/input.h> makes of the ioctls used here, printed
// by a C program built against the kernel's headers (x86_64).
#[test]
fn the_ioctl_numbers_are_the_kernels() {
    assert_eq!(eviocg(0x02, 8), 0x8008_4502, "EVIOCGID");
    assert_eq!(eviocg(0x06, 127), 0x807f_4506, "EVIOCGNAME(127)");
    assert_eq!(
        eviocg(0x20 + EV_KEY as u64, 96),
        0x8060_4521,
        "EVIOCGBIT(EV_KEY, 96)"
    );
    assert_eq!(
        eviocg(0x20 + EV_ABS as u64, 8),
        0x8008_4523,
        "EVIOCGBIT(EV_ABS, 8)"
    );
    assert_eq!(eviocg(0x40 + 5, 24), 0x8018_4545, "EVIOCGABS(ABS_RZ)");
    assert_eq!(eviocg(0x09, 4), 0x8004_4509, "EVIOCGPROP(4)");
    assert_eq!(eviocg(0x18, 96), 0x8060_4518, "EVIOCGKEY(96)");
    assert_eq!(Caps::default().keys.len(), 96, "KEY_MAX (0x2ff) bits");
    #[cfg(target_pointer_width = "64")]
    assert_eq!(EVENT_SIZE, 24, "struct input_event");
}

/// An open pad.
pub struct Device {
    /// The device's name under /dev/input (`event7`).
    name: Vec<u8>,
    fd: libc::c_int,
    decoder: Decoder,
}

/// `SYN_DROPPED`: the kernel's buffer for this reader overflowed and
/// events were lost.
const SYN_DROPPED: u16 = 0x03;

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
        let mut dropped = false;
        loop {
            // SAFETY: reading into a buffer we own, of the size given.
            let n = unsafe { libc::read(self.fd, buffer.as_mut_ptr().cast(), buffer.len()) };
            if n > 0 {
                let bytes = &buffer[..n as usize];
                dropped |= bytes.chunks_exact(EVENT_SIZE).any(|event| {
                    event[KIND_AT..KIND_AT + 2] == EV_SYN.to_ne_bytes()
                        && event[CODE_AT..CODE_AT + 2] == SYN_DROPPED.to_ne_bytes()
                });
                super::decode_bytes(&mut self.decoder, bytes, push);
                continue;
            }
            let gone =
                n == 0 || std::io::Error::last_os_error().raw_os_error() != Some(libc::EAGAIN);
            if gone {
                self.decoder.unplugged(push);
            } else if dropped {
                // Between frames the pad sent more than the kernel keeps
                // (a frame held up, a pad that reports at 1 kHz): what was
                // lost may be a press or a release, so read the state whole.
                self.catch_up(push);
            }
            return !gone;
        }
    }

    /// Reads where the pad's buttons and axes are now, through the
    /// decoder: a button it holds presses, one it let go releases.
    fn catch_up(&mut self, push: &mut impl FnMut(InputEvent)) {
        let mut held = Caps::default().keys;
        // SAFETY: EVIOCGKEY fills at most the buffer's size.
        let got = unsafe {
            libc::ioctl(
                self.fd,
                eviocg(0x18, held.len() as u64) as _,
                held.as_mut_ptr(),
            )
        };
        if got >= 0 {
            for i in 0..self.decoder.binds.keys.len() {
                let code = self.decoder.binds.keys[i].0 as usize;
                let down = held
                    .get(code / 8)
                    .is_some_and(|b| b & (1 << (code % 8)) != 0);
                self.decoder
                    .decode(EV_KEY, code as u16, i32::from(down), push);
            }
        }
        for code in 0..ABS_CODES as u16 {
            if self.decoder.binds.reads_axis_or_hat(code)
                && let Some(info) = abs_info(self.fd, code)
            {
                self.decoder.decode(EV_ABS, code, info[0], push);
            }
        }
    }
}

/// Opens the pads in /dev/input not open yet; each tells what it
/// holds as it opens.
pub fn scan(devices: &mut Vec<Device>, push: &mut impl FnMut(InputEvent)) {
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
        if let Some(device) = open(name, devices, push) {
            devices.push(device);
        }
    }
}

/// Opens `/dev/input/NAME` if it is a gamepad, as the lowest free
/// player, and reads where its buttons and axes are: a button held or
/// a stick pushed while it is plugged in reads at once.
fn open(name: &[u8], devices: &[Device], push: &mut impl FnMut(InputEvent)) -> Option<Device> {
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
    let mut caps = Caps::default();
    let mut id = [0u16; 4];
    let mut label = [0u8; 128];
    // SAFETY: EVIOCGBIT and EVIOCGPROP fill at most the buffer's size,
    // EVIOCGID one struct input_id (four u16s), EVIOCGNAME at most the
    // buffer's size.
    let got = unsafe {
        let keys = libc::ioctl(
            fd,
            eviocg(0x20 + EV_KEY as u64, caps.keys.len() as u64) as _,
            caps.keys.as_mut_ptr(),
        );
        let axes = libc::ioctl(
            fd,
            eviocg(0x20 + EV_ABS as u64, caps.axes.len() as u64) as _,
            caps.axes.as_mut_ptr(),
        );
        let props = libc::ioctl(
            fd,
            eviocg(0x09, caps.props.len() as u64) as _,
            caps.props.as_mut_ptr(),
        );
        let ids = libc::ioctl(fd, eviocg(0x02, 8) as _, id.as_mut_ptr());
        let named = libc::ioctl(
            fd,
            eviocg(0x06, label.len() as u64 - 1) as _,
            label.as_mut_ptr(),
        );
        keys >= 0 && axes >= 0 && props >= 0 && ids >= 0 && named >= 0
    };
    if !got || !caps.is_pad() {
        return close();
    }
    // A pad the community mappings know reads through its mapping
    // (they also put right what some drivers get wrong: xpad reports
    // an Xbox pad's X as BTN_NORTH); any other with BTN_SOUTH
    // (BTN_GAMEPAD) reads as the kernel's standard layout.
    let label_len = label.iter().position(|b| *b == 0).unwrap_or(label.len());
    let guid = padmap::device_guid(id[0], id[1], id[2], id[3], &label[..label_len]);
    let (binds, layout) = match padmap::Database::get().find(&guid) {
        Some(mapping) => (mapping.binds(&caps), mapping.name.as_str()),
        None if caps.has_key(STANDARD_BUTTONS[0] as usize) => {
            (Binds::standard(), "the kernel's standard layout")
        }
        None => return close(),
    };
    let mut ranges = [Range::STICK; ABS_CODES];
    for code in (0..ABS_CODES as u16).filter(|c| binds.reads_axis(*c)) {
        ranges[code as usize] = match abs_info(fd, code) {
            Some([_, min, max, ..]) if max > min => Range { min, max },
            // A trigger that does not say reads as most do, 0..255.
            _ if STANDARD_AXES[4..].contains(&code) => Range { min: 0, max: 255 },
            _ => Range::STICK,
        };
    }
    let Some(player) = (1..=PADS).find(|p| devices.iter().all(|d| d.decoder.player != *p)) else {
        return close();
    };
    let label = String::from_utf8_lossy(&label[..label_len]);
    tell!(
        "moonloop: pad{player} is {} (read as {})",
        escape(&label),
        escape(layout)
    );
    let mut device = Device {
        name: name.to_vec(),
        fd,
        decoder: Decoder::new(player, binds, ranges),
    };
    device.catch_up(push);
    Some(device)
}

/// Axis `code`'s `struct input_absinfo`: value, minimum, maximum, fuzz,
/// flat, resolution.
fn abs_info(fd: libc::c_int, code: u16) -> Option<[i32; 6]> {
    let mut info = [0i32; 6];
    // SAFETY: EVIOCGABS fills one input_absinfo (24 bytes).
    let got = unsafe { libc::ioctl(fd, eviocg(0x40 + code as u64, 24) as _, info.as_mut_ptr()) };
    (got >= 0).then_some(info)
}
