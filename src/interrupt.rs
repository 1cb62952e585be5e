//! Interrupt: Ctrl+C (SIGINT), SIGTERM and SIGHUP (the terminal closed)
//! end a run the way closing its
//! window does: the loop stops between frames, and a recording being
//! written is finished into a valid file, its spool removed.
//!
//! The handler only sets a flag (all a signal handler may safely do); the
//! loops ask [`requested`] between frames. A second signal while the
//! first is being honoured ends the process at once, as users expect of a
//! second Ctrl+C.

use std::sync::atomic::{AtomicBool, Ordering};

static REQUESTED: AtomicBool = AtomicBool::new(false);

extern "C" fn on_signal(signal: libc::c_int) {
    if REQUESTED.swap(true, Ordering::SeqCst) {
        // SAFETY: `_exit` is async-signal-safe.
        unsafe { libc::_exit(128 + signal) };
    }
}

/// Installs the handler for SIGINT, SIGTERM and SIGHUP (once; later
/// calls do nothing).
pub fn install() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
            // SAFETY: a zeroed `sigaction` is valid; the handler is an
            // `extern "C"` function that only touches an atomic.
            unsafe {
                let mut action: libc::sigaction = std::mem::zeroed();
                action.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as usize;
                action.sa_flags = libc::SA_RESTART;
                libc::sigemptyset(&mut action.sa_mask);
                libc::sigaction(signal, &action, std::ptr::null_mut());
            }
        }
    });
}

/// Says whether SIGINT, SIGTERM or SIGHUP arrived since the start.
pub fn requested() -> bool {
    REQUESTED.load(Ordering::SeqCst)
}

/// The exit code of a run stopped by a signal (128 + SIGINT, as shells
/// report it).
pub const EXIT_CODE: u8 = 130;
