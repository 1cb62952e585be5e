//! Any text given as `--replay` reads back or is refused with a line, and
//! what reads back writes out to a log that reads back the same. A log cut
//! short (no `end` line) keeps only whole frames, each with its hash, and
//! what it writes out is whole.
#![no_main]

use libfuzzer_sys::fuzz_target;
use moonloop::replay::Replay;

fuzz_target!(|text: &str| {
    if let Ok(replay) = Replay::parse(text) {
        assert!(replay.deltas.iter().all(|d| d.is_finite() && *d >= 0.0));
        if replay.cut.is_some() {
            assert!(replay.hashes.iter().all(Option::is_some), "a cut log keeps whole frames");
        }
        let written = replay.to_text();
        let again = Replay::parse(&written).expect("a written log reads back");
        assert_eq!(again.cut, None, "a written log is whole");
        assert_eq!(
            again.deltas.iter().map(|d| d.to_bits()).collect::<Vec<_>>(),
            replay.deltas.iter().map(|d| d.to_bits()).collect::<Vec<_>>(),
            "the deltas, bit for bit"
        );
        assert_eq!(again.script, replay.script);
        assert_eq!(again.seed, replay.seed);
        assert_eq!(again.hashes, replay.hashes);
        assert_eq!(again.to_text(), written);
    }
});
