//! Gamepads through the kernel (rule H6): the host's evdev half, the part
//! the decoder tests in crates/platform/src/pads/mod.rs cannot reach (the ioctls that
//! tell a pad from a keyboard and name it, the axis ranges, reading a
//! device, hot-plug), run against virtual pads made by Linux's uinput.
//!
//! Opening /dev/uinput takes root (or a udev rule), which neither a
//! desktop's user nor a CI container has, so these are ignored by a plain
//! `cargo test`. `.ci/pad-devices` boots a small Linux in QEMU and runs
//! them there as root: `pad_devices --ignored --test-threads=1`.
#![cfg(target_os = "linux")]

use std::ffi::c_int;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use moonloop::InputEvent;
use moonloop::input::pads::Pads;

// evdev's event types and codes (<linux/input-event-codes.h>).
const EV_SYN: u16 = 0x00;
const EV_KEY: u16 = 0x01;
const EV_ABS: u16 = 0x03;
const KEY_A: u16 = 30;
const BTN_TRIGGER: u16 = 0x120;
const BTN_SOUTH: u16 = 0x130;
const BTN_EAST: u16 = 0x131;
const BTN_NORTH: u16 = 0x133;
const BTN_WEST: u16 = 0x134;
const BTN_START: u16 = 0x13b;
const ABS_X: u16 = 0x00;
const ABS_Y: u16 = 0x01;
const ABS_Z: u16 = 0x02;
const ABS_RX: u16 = 0x03;
const ABS_RY: u16 = 0x04;
const ABS_RZ: u16 = 0x05;
const ABS_HAT0X: u16 = 0x10;
const ABS_HAT0Y: u16 = 0x11;
const INPUT_PROP_ACCELEROMETER: c_int = 0x06;
const BUS_USB: u16 = 0x03;

// uinput's ioctls (<linux/uinput.h>): _IO('U', n) and _IOW('U', n, int).
const UI_DEV_CREATE: u64 = 0x5501;
const UI_DEV_DESTROY: u64 = 0x5502;
const UI_SET_EVBIT: u64 = 0x4004_5564;
const UI_SET_KEYBIT: u64 = 0x4004_5565;
const UI_SET_ABSBIT: u64 = 0x4004_5567;
const UI_SET_PROPBIT: u64 = 0x4004_556e;

/// No input events.
const NOTHING: [&str; 0] = [];

/// The kernel's devices are the machine's: one test at a time.
static MACHINE: Mutex<()> = Mutex::new(());

/// What a virtual device is: its identity, buttons and axes.
struct Spec {
    name: &'static str,
    /// Bus, vendor, product, version, as `struct input_id`.
    id: [u16; 4],
    keys: &'static [u16],
    /// Each axis with its minimum and maximum.
    axes: &'static [(u16, i32, i32)],
    props: &'static [c_int],
}

/// A device made through /dev/uinput; dropping it unplugs it.
struct VirtualDevice {
    fd: c_int,
}

impl VirtualDevice {
    fn plug(spec: &Spec) -> VirtualDevice {
        // SAFETY: a constant, NUL-terminated path.
        let fd = unsafe { libc::open(c"/dev/uinput".as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC) };
        assert!(
            fd >= 0,
            "open /dev/uinput: {}",
            std::io::Error::last_os_error()
        );
        let device = VirtualDevice { fd };
        device.control(UI_SET_EVBIT, EV_KEY as c_int);
        for key in spec.keys {
            device.control(UI_SET_KEYBIT, *key as c_int);
        }
        if !spec.axes.is_empty() {
            device.control(UI_SET_EVBIT, EV_ABS as c_int);
        }
        for (axis, ..) in spec.axes {
            device.control(UI_SET_ABSBIT, *axis as c_int);
        }
        for prop in spec.props {
            device.control(UI_SET_PROPBIT, *prop);
        }
        // struct uinput_user_dev: name[80], input_id, ff_effects_max, then
        // absmax, absmin, absfuzz and absflat, 64 axes each.
        let mut setup = vec![0u8; 80 + 8 + 4 + 4 * 64 * 4];
        setup[..spec.name.len()].copy_from_slice(spec.name.as_bytes());
        for (i, part) in spec.id.iter().enumerate() {
            setup[80 + 2 * i..82 + 2 * i].copy_from_slice(&part.to_ne_bytes());
        }
        for &(axis, min, max) in spec.axes {
            let at = |table: usize| 92 + table * 256 + axis as usize * 4;
            setup[at(0)..at(0) + 4].copy_from_slice(&max.to_ne_bytes());
            setup[at(1)..at(1) + 4].copy_from_slice(&min.to_ne_bytes());
        }
        device.write(&setup);
        device.control(UI_DEV_CREATE, 0);
        device
    }

    fn control(&self, request: u64, value: c_int) {
        // SAFETY: uinput's ioctls take an int by value.
        let got = unsafe { libc::ioctl(self.fd, request as _, value) };
        assert!(
            got >= 0,
            "uinput ioctl {request:#x}: {}",
            std::io::Error::last_os_error()
        );
    }

    fn write(&self, bytes: &[u8]) {
        // SAFETY: writing a buffer we own, of the length given.
        let n = unsafe { libc::write(self.fd, bytes.as_ptr().cast(), bytes.len()) };
        assert_eq!(
            n,
            bytes.len() as isize,
            "write to uinput: {}",
            std::io::Error::last_os_error()
        );
    }

    /// Sends the events and a SYN_REPORT: a reader sees them at once.
    fn send(&self, events: &[(u16, u16, i32)]) {
        let mut bytes = Vec::new();
        for &(kind, code, value) in events.iter().chain([&(EV_SYN, 0, 0)]) {
            bytes.extend_from_slice(&[0u8; 16]);
            bytes.extend_from_slice(&kind.to_ne_bytes());
            bytes.extend_from_slice(&code.to_ne_bytes());
            bytes.extend_from_slice(&value.to_ne_bytes());
        }
        self.write(&bytes);
    }

    fn press(&self, code: u16) {
        self.send(&[(EV_KEY, code, 1)]);
    }

    fn release(&self, code: u16) {
        self.send(&[(EV_KEY, code, 0)]);
    }

    fn axis(&self, code: u16, value: i32) {
        self.send(&[(EV_ABS, code, value)]);
    }
}

impl Drop for VirtualDevice {
    fn drop(&mut self) {
        // SAFETY: the descriptor is ours; destroying unplugs the device.
        unsafe {
            libc::ioctl(self.fd, UI_DEV_DESTROY as _, 0);
            libc::close(self.fd);
        }
    }
}

/// The host's pads, polled on a clock the test moves: no sleeping.
struct Host {
    pads: Pads,
    now: Instant,
}

impl Host {
    fn new() -> Host {
        let mut host = Host {
            pads: Pads::new(),
            now: Instant::now(),
        };
        assert_eq!(host.poll(), NOTHING, "no pads before any is plugged in");
        host
    }

    /// Reads what the pads did, without looking for new ones.
    fn poll(&mut self) -> Vec<String> {
        let mut events = Vec::new();
        self.pads.poll(self.now, |e| events.push(describe(e)));
        events
    }

    /// Lets the host's once-a-second look for pads come round, then reads.
    fn rescan(&mut self) -> Vec<String> {
        self.now += Duration::from_secs(1);
        self.poll()
    }
}

fn describe(event: InputEvent) -> String {
    match event {
        InputEvent::Press(key) => format!("press {key}"),
        InputEvent::Release(key) => format!("release {key}"),
        InputEvent::Axis(axis, value) => format!("axis {axis} {value:.2}"),
        other => format!("{other:?}"),
    }
}

fn machine() -> std::sync::MutexGuard<'static, ()> {
    MACHINE.lock().unwrap_or_else(|e| e.into_inner())
}

/// A pad the mappings do not know, from a driver that speaks the kernel's
/// gamepad layout; its triggers span 0..1023.
const KERNEL_PAD: Spec = Spec {
    name: "moonloop test pad",
    id: [BUS_USB, 0x1209, 0x0001, 0x0001],
    keys: &[BTN_SOUTH, BTN_EAST, BTN_NORTH, BTN_WEST, BTN_START],
    axes: &[
        (ABS_X, -32768, 32767),
        (ABS_Y, -32768, 32767),
        (ABS_Z, 0, 1023),
        (ABS_RX, -32768, 32767),
        (ABS_RY, -32768, 32767),
        (ABS_RZ, 0, 1023),
        (ABS_HAT0X, -1, 1),
        (ABS_HAT0Y, -1, 1),
    ],
    props: &[],
};

/// An Xbox 360 pad as xpad makes it: xpad reports X, the left face
/// button, as BTN_NORTH (BTN_X); the community mapping puts it right.
const XBOX_360: Spec = Spec {
    name: "Microsoft X-Box 360 pad",
    id: [BUS_USB, 0x045e, 0x028e, 0x0114],
    keys: &[
        BTN_SOUTH, BTN_EAST, BTN_NORTH, BTN_WEST, 0x136, 0x137, 0x13a, BTN_START, 0x13c, 0x13d,
        0x13e,
    ],
    axes: &[
        (ABS_X, -32768, 32767),
        (ABS_Y, -32768, 32767),
        (ABS_Z, 0, 255),
        (ABS_RX, -32768, 32767),
        (ABS_RY, -32768, 32767),
        (ABS_RZ, 0, 255),
        (ABS_HAT0X, -1, 1),
        (ABS_HAT0Y, -1, 1),
    ],
    props: &[],
};

/// A cheap USB pad (DragonRise) as hid-generic makes it: joystick
/// buttons, BTN_TRIGGER onwards, which only its mapping makes a pad of.
const DRAGONRISE: Spec = Spec {
    name: "DragonRise Inc.   Generic   USB  Joystick  ",
    id: [BUS_USB, 0x0079, 0x0006, 0x0107],
    keys: &[
        BTN_TRIGGER,
        BTN_TRIGGER + 1,
        BTN_TRIGGER + 2,
        BTN_TRIGGER + 3,
        BTN_TRIGGER + 4,
        BTN_TRIGGER + 5,
        BTN_TRIGGER + 6,
        BTN_TRIGGER + 7,
        BTN_TRIGGER + 8,
        BTN_TRIGGER + 9,
        BTN_TRIGGER + 10,
        BTN_TRIGGER + 11,
    ],
    axes: &[
        (ABS_X, 0, 255),
        (ABS_Y, 0, 255),
        (ABS_Z, 0, 255),
        (ABS_RX, 0, 255),
        (ABS_RZ, 0, 255),
        (ABS_HAT0X, -1, 1),
        (ABS_HAT0Y, -1, 1),
    ],
    props: &[],
};

// rule: H6
#[test]
#[ignore = "needs /dev/uinput: .ci/pad-devices runs it in a VM"]
fn a_pad_plugged_in_mid_game_reads_from_the_next_look() {
    let _machine = machine();
    let mut host = Host::new();
    let pad = VirtualDevice::plug(&KERNEL_PAD);
    pad.press(BTN_SOUTH);
    pad.axis(ABS_RX, 32767);
    assert_eq!(host.poll(), NOTHING, "not looked for yet");
    assert_eq!(
        host.rescan(),
        [
            "press pad1:south",
            "axis pad1:leftx 0.00",
            "axis pad1:lefty 0.00",
            "axis pad1:lefttrigger 0.00",
            "axis pad1:rightx 1.00",
            "axis pad1:righty 0.00",
            "axis pad1:righttrigger 0.00",
        ],
        "what the pad held as it was opened"
    );
    pad.release(BTN_SOUTH);
    pad.press(BTN_SOUTH);
    pad.press(BTN_NORTH);
    pad.axis(ABS_X, 32767);
    pad.axis(ABS_Y, -32768);
    pad.axis(ABS_Z, 1023);
    pad.axis(ABS_RZ, 768);
    pad.axis(ABS_HAT0X, -1);
    assert_eq!(
        host.poll(),
        [
            "release pad1:south",
            "press pad1:south",
            "press pad1:north",
            "axis pad1:leftx 1.00",
            "axis pad1:lefty -1.00",
            "axis pad1:lefttrigger 1.00",
            "press pad1:lefttrigger",
            "axis pad1:righttrigger 0.75",
            "press pad1:righttrigger",
            "press pad1:dpad_left",
        ],
        "the kernel's layout, with the triggers' own range (0..1023)"
    );
    pad.axis(ABS_HAT0X, 0);
    pad.release(BTN_SOUTH);
    assert_eq!(
        host.poll(),
        ["release pad1:dpad_left", "release pad1:south"]
    );
}

// rule: H6
#[test]
#[ignore = "needs /dev/uinput: .ci/pad-devices runs it in a VM"]
fn known_pads_read_through_the_community_mappings() {
    let _machine = machine();
    let mut host = Host::new();
    let xbox = VirtualDevice::plug(&XBOX_360);
    host.rescan();
    let cheap = VirtualDevice::plug(&DRAGONRISE);
    host.rescan();
    xbox.press(BTN_NORTH);
    xbox.press(BTN_WEST);
    xbox.axis(ABS_RZ, 255);
    cheap.press(BTN_TRIGGER + 2);
    cheap.press(BTN_TRIGGER);
    cheap.axis(ABS_RX, 255);
    cheap.axis(ABS_HAT0Y, 1);
    assert_eq!(
        host.poll(),
        [
            "press pad1:west",
            "press pad1:north",
            "axis pad1:righttrigger 1.00",
            "press pad1:righttrigger",
            "press pad2:south",
            "press pad2:north",
            "axis pad2:rightx 1.00",
            "press pad2:dpad_down",
        ],
        "xpad's BTN_NORTH is X (west); DragonRise's third button is A (south)"
    );
}

// rule: H6
#[test]
#[ignore = "needs /dev/uinput: .ci/pad-devices runs it in a VM"]
fn a_pad_pulled_out_lets_go_and_its_player_goes_to_the_next_pad() {
    let _machine = machine();
    let mut host = Host::new();
    let first = VirtualDevice::plug(&KERNEL_PAD);
    host.rescan();
    let second = VirtualDevice::plug(&XBOX_360);
    host.rescan();
    first.press(BTN_EAST);
    first.axis(ABS_X, -32768);
    second.press(BTN_SOUTH);
    assert_eq!(
        host.poll(),
        [
            "press pad1:east",
            "axis pad1:leftx -1.00",
            "press pad2:south"
        ]
    );

    drop(first);
    let released = host.poll();
    assert_eq!(
        released[..2],
        ["release pad1:east", "axis pad1:leftx 0.00"],
        "{released:?}"
    );
    assert!(
        released[2..].iter().all(|e| e.ends_with(" 0.00")),
        "then every axis centres: {released:?}"
    );
    second.release(BTN_SOUTH);
    assert_eq!(host.poll(), ["release pad2:south"], "pad 2 stays pad 2");

    let third = VirtualDevice::plug(&KERNEL_PAD);
    host.rescan();
    third.press(BTN_START);
    assert_eq!(host.poll(), ["press pad1:start"], "the lowest free player");

    // Four players at most: a fifth pad is not read until one leaves.
    let fourth = VirtualDevice::plug(&KERNEL_PAD);
    let fifth = VirtualDevice::plug(&KERNEL_PAD);
    host.rescan();
    fourth.press(BTN_SOUTH);
    fifth.press(BTN_SOUTH);
    let both = host.poll();
    assert!(
        both == ["press pad3:south", "press pad4:south"]
            || both == ["press pad4:south", "press pad3:south"],
        "{both:?}"
    );
    let sixth = VirtualDevice::plug(&KERNEL_PAD);
    host.rescan();
    sixth.press(BTN_SOUTH);
    assert_eq!(host.poll(), NOTHING, "no fifth player");
}

// rule: H6
#[test]
#[ignore = "needs /dev/uinput: .ci/pad-devices runs it in a VM"]
fn keyboards_and_motion_sensors_are_not_pads() {
    let _machine = machine();
    let mut host = Host::new();
    let keyboard = VirtualDevice::plug(&Spec {
        name: "moonloop test keyboard",
        id: [BUS_USB, 0x1209, 0x0002, 0x0001],
        keys: &[KEY_A],
        axes: &[],
        props: &[],
    });
    // A pad's motion sensors come as a device of their own, with the
    // pad's name and identity, and on some drivers its buttons' bits.
    let sensors = VirtualDevice::plug(&Spec {
        name: "Sony Interactive Entertainment Wireless Controller Motion Sensors",
        id: [BUS_USB, 0x054c, 0x09cc, 0x8111],
        keys: &[BTN_SOUTH],
        axes: &[(ABS_X, -32768, 32767), (ABS_Y, -32768, 32767)],
        props: &[INPUT_PROP_ACCELEROMETER],
    });
    host.rescan();
    keyboard.press(KEY_A);
    sensors.press(BTN_SOUTH);
    sensors.axis(ABS_X, 32767);
    assert_eq!(host.poll(), NOTHING);
    let pad = VirtualDevice::plug(&KERNEL_PAD);
    host.rescan();
    pad.press(BTN_SOUTH);
    assert_eq!(host.poll(), ["press pad1:south"], "the pad is player 1");
}

// rule: H6
#[test]
#[ignore = "needs /dev/uinput: .ci/pad-devices runs it in a VM"]
fn a_pad_that_sent_more_than_the_kernel_keeps_reads_its_state_again() {
    let _machine = machine();
    let mut host = Host::new();
    let pad = VirtualDevice::plug(&KERNEL_PAD);
    host.rescan();
    // A press, then more stick motion than the kernel buffers for a
    // reader between two frames: the press is among what it drops.
    let flood = |last: i32| {
        for i in 0..2000 {
            pad.axis(ABS_Y, if i % 2 == 0 { 1000 } else { -1000 });
        }
        pad.axis(ABS_Y, last);
    };
    pad.press(BTN_SOUTH);
    flood(32767);
    let events = host.poll();
    assert!(
        events.iter().any(|e| e == "press pad1:south"),
        "the lost press: {:?}",
        &events[events.len().saturating_sub(12)..]
    );
    assert_eq!(
        events.last().map(String::as_str),
        Some("axis pad1:righttrigger 0.00")
    );
    assert!(
        events.iter().rev().any(|e| e == "axis pad1:lefty 1.00"),
        "the stick as it is"
    );
    pad.release(BTN_SOUTH);
    flood(0);
    let events = host.poll();
    assert!(
        events.iter().any(|e| e == "release pad1:south"),
        "the lost release: {:?}",
        &events[events.len().saturating_sub(12)..]
    );
}
