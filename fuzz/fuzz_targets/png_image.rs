//! Any bytes as a game's PNG decode within the documented limits or are
//! refused with a line (rule H10): the header is checked before anything
//! the size claims is allocated.
#![no_main]

use libfuzzer_sys::fuzz_target;
use moonloop::assets::png;

fuzz_target!(|bytes: &[u8]| {
    // Panics the host contains (a decoder's, the rasterizer's) are refusals,
    // not findings.
    static HOOK: std::sync::Once = std::sync::Once::new();
    HOOK.call_once(moonloop::error::forward_uncontained_panics);
    match png::decode(bytes) {
        Ok(pixmap) => {
            assert!(pixmap.width() <= png::MAX_SIDE && pixmap.height() <= png::MAX_SIDE);
            assert!(u64::from(pixmap.width()) * u64::from(pixmap.height()) <= png::MAX_PIXELS);
        }
        Err(why) => assert!(why.starts_with("is "), "{why}"),
    }
});
