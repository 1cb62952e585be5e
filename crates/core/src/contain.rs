//! Contain: a panic inside a third-party crate fed game data (a decoder
//! reading a file from a game folder, the rasterizer drawing a game's
//! shapes) becomes a refusal, never the end of the host (rule H10).
//!
//! Every layer that hands game data to someone else's code goes through
//! [`contain_panic`]; the flag it keeps lets the binary's panic hook (and
//! a fuzz target's) stay quiet for the panics it catches.

thread_local! {
    static CATCHING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs `f`, a call into a third-party crate with game data (a decoder
/// reading a file from a game folder, the rasterizer drawing a game's
/// shapes), and turns a panic inside it into `None`: content a game ships
/// must not take the host down (H10). The binary's panic hook stays quiet
/// for it.
pub fn contain_panic<T>(f: impl FnOnce() -> T) -> Option<T> {
    let outer = CATCHING.with(|c| c.replace(true));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).ok();
    CATCHING.with(|c| c.set(outer));
    result
}

/// Wraps the panic hook in place so it runs only for panics that
/// [`contain_panic`] does not catch: a fuzz target (whose hook aborts)
/// then reports the panics the host would crash on, not the ones it
/// contains and refuses.
pub fn forward_uncontained_panics() {
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if !panic_is_caught() {
            hook(info);
        }
    }));
}

/// Says whether a panic now would be caught by [`contain_panic`].
pub fn panic_is_caught() -> bool {
    CATCHING.with(std::cell::Cell::get)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_decoder_panic_becomes_none_and_the_flag_resets() {
        assert_eq!(contain_panic(|| 7), Some(7));
        let caught: Option<()> = contain_panic(|| {
            assert!(panic_is_caught());
            panic!("index out of bounds in some decoder")
        });
        assert_eq!(caught, None);
        assert!(!panic_is_caught());
    }
}
