//! A controller mapping line (SDL_GAMECONTROLLERCONFIG is the player's to
//! set) parses or is refused, and a device of any buttons and axes, read
//! through it, turns any evdev bytes into input events without panicking.
//! The input: the mapping line, a newline, then the device's key and axis
//! bits, its axis ranges, and the events it sends.
#![no_main]

use libfuzzer_sys::fuzz_target;
use moonloop::input::pads::padmap::{self, ABS_CODES, Caps};
use moonloop::input::pads::{self, Decoder, Range};

fuzz_target!(|data: &[u8]| {
    let Some(newline) = data.iter().position(|b| *b == b'\n') else {
        return;
    };
    let Ok(line) = std::str::from_utf8(&data[..newline]) else {
        return;
    };
    let Ok(Some(mapping)) = padmap::parse(line) else {
        return;
    };
    let mut rest = &data[newline + 1..];
    let mut take = |n: usize| {
        let (head, tail) = rest.split_at(n.min(rest.len()));
        rest = tail;
        head
    };
    let mut caps = Caps::default();
    let keys = take(caps.keys.len());
    caps.keys[..keys.len()].copy_from_slice(keys);
    let axes = take(caps.axes.len());
    caps.axes[..axes.len()].copy_from_slice(axes);
    let mut ranges = [Range {
        min: -32768,
        max: 32767,
    }; ABS_CODES];
    for range in ranges.iter_mut().take(4) {
        let bytes = take(8);
        if bytes.len() == 8 {
            range.min = i32::from_ne_bytes(bytes[..4].try_into().unwrap());
            range.max = i32::from_ne_bytes(bytes[4..].try_into().unwrap());
        }
    }
    let mut decoder = Decoder::new(1, mapping.binds(&caps), ranges);
    pads::decode_bytes(&mut decoder, rest, &mut |event| {
        if let moonloop::InputEvent::Axis(_, value) = event {
            assert!(
                value.is_finite() && (-1.0..=1.0).contains(&value),
                "{value}"
            );
        }
    });
});
