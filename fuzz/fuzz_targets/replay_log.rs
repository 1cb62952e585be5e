//! Any text given as `--replay` reads back or is refused with a line.
#![no_main]

use libfuzzer_sys::fuzz_target;
use moonloop::internals::replay::Replay;

fuzz_target!(|text: &str| {
    if let Ok(replay) = Replay::parse(text) {
        assert!(replay.deltas.iter().all(|d| d.is_finite() && *d >= 0.0));
    }
});
