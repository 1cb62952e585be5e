//! Any text given as `--input` parses or is refused with a line number,
//! and a parsed script feeds an input frame without panicking.
#![no_main]

use libfuzzer_sys::fuzz_target;
use moonloop::{InputFrame, input::Script};

fuzz_target!(|text: &str| {
    match Script::parse(text) {
        Ok(mut script) => {
            let mut input = InputFrame::default();
            for frame in 1..=20u64 {
                script.feed(frame, frame as f64 / 60.0, &mut input);
                input.begin(|_| {});
                input.close();
            }
        }
        Err((line, reason)) => {
            assert!(line >= 1 && line <= text.lines().count().max(1));
            assert!(!reason.is_empty());
        }
    }
});
