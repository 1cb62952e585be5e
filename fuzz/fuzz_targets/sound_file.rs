//! Any bytes a game ships as `sounds/NAME.wav`, `.ogg` or `.flac` decode or are
//! refused with a line: a broken sound must not take the host down.
#![no_main]

use libfuzzer_sys::fuzz_target;
use moonloop::sound::Clip;

fuzz_target!(|bytes: &[u8]| {
    // Panics the host contains (a decoder's, the rasterizer's) are refusals,
    // not findings.
    static HOOK: std::sync::Once = std::sync::Once::new();
    HOOK.call_once(moonloop::error::forward_uncontained_panics);
    for ext in ["wav", "ogg", "flac"] {
        if let Ok(clip) = Clip::decode(bytes, ext) {
            assert!(clip.frames() > 0 && (1..=2).contains(&clip.channels));
            assert!(clip.samples.iter().all(|s| s.is_finite()));
        }
    }
});
