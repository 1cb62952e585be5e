//! Any text given as `--clock` parses or is refused; what parses prints
//! back to a spec that parses to the very same spec.
#![no_main]

use libfuzzer_sys::fuzz_target;
use moonloop::ClockSpec;

fuzz_target!(|text: &str| {
    if let Ok(spec) = text.parse::<ClockSpec>() {
        let again: ClockSpec = spec.to_string().parse().expect("a printed spec parses");
        assert_eq!(again, spec, "{text:?} printed as {spec}");
        let mut clock = spec.build();
        let now = std::time::Instant::now();
        for _ in 0..8 {
            if let Some(dt) = clock.tick(now) {
                assert!(dt >= 0.0 && dt.is_finite(), "{spec}: {dt}");
            }
        }
    }
});
