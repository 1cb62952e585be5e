//! Interrupt: Ctrl+C (SIGINT), SIGTERM and SIGHUP (the terminal closed)
//! on Unix, Ctrl+C, Ctrl+Break and the console closing on Windows, end a
//! run the way closing its
//! window does: the loop stops between frames, and a recording being
//! written is finished into a valid file, its spool removed.
//!
//! The handler only sets a flag (all a signal handler may safely do); the
//! loops ask [`requested`] between frames. A second signal while the
//! first is being honoured ends the process at once, as users expect of a
//! second Ctrl+C; the same signal again within [`ECHO`] of the first is
//! the same news twice and changes nothing: a closing terminal sends
//! SIGHUP to its whole process group and the shell passes it on to its
//! jobs, and `timeout` and `kill -- -PGID` signal a process and its group
//! alike, so a run would otherwise die mid-recording on one hang-up.

use std::sync::atomic::{AtomicBool, AtomicI32, AtomicU64, Ordering};

static REQUESTED: AtomicBool = AtomicBool::new(false);

/// The first signal, and when it came (monotonic nanoseconds).
static FIRST: AtomicI32 = AtomicI32::new(0);
static FIRST_AT: AtomicU64 = AtomicU64::new(0);

/// How soon after the first the same signal counts as its echo.
pub const ECHO: std::time::Duration = std::time::Duration::from_millis(300);

#[cfg(unix)]
pub use unix::install;
#[cfg(windows)]
pub use windows::install;

/// A signal came: the first asks the loop to stop; another, not the
/// first's echo, ends the process at once, with `128 + signal`.
/// Async-signal-safe: atomics only, and `exit` as the platform gives it.
fn heard(signal: i32, at: u64, exit: impl FnOnce(i32)) {
    if !REQUESTED.swap(true, Ordering::SeqCst) {
        FIRST.store(signal, Ordering::SeqCst);
        FIRST_AT.store(at, Ordering::SeqCst);
        return;
    }
    let echo = signal == FIRST.load(Ordering::SeqCst)
        && at.saturating_sub(FIRST_AT.load(Ordering::SeqCst)) < ECHO.as_nanos() as u64;
    if !echo {
        exit(128 + signal);
    }
}

#[cfg(unix)]
mod unix {
    /// Monotonic nanoseconds; `clock_gettime` is async-signal-safe.
    fn now() -> u64 {
        let mut t = libc::timespec {
            tv_sec: 0,
            tv_nsec: 0,
        };
        // SAFETY: `t` is a valid timespec to write into.
        unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut t) };
        (t.tv_sec as u64).saturating_mul(1_000_000_000) + t.tv_nsec as u64
    }

    extern "C" fn on_signal(signal: libc::c_int) {
        // SAFETY: `_exit` is async-signal-safe.
        super::heard(signal, now(), |code| unsafe { libc::_exit(code) });
    }

    /// Installs the handler for SIGINT, SIGTERM and SIGHUP (once; later
    /// calls do nothing).
    pub fn install() {
        static ONCE: std::sync::Once = std::sync::Once::new();
        ONCE.call_once(|| {
            for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
                // SAFETY: a zeroed `sigaction` is valid; the handler is an
                // `extern "C"` function that only touches atomics.
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
}

/// Windows calls a console's control handler on a thread of its own:
/// Ctrl+C and Ctrl+Break ask the loop to stop, as SIGINT does. When the
/// console closes (or the user logs off), the process ends as soon as
/// the handler returns, so the handler waits there while the loop
/// finishes its frame and its recording and the process exits on its
/// own (Windows gives it 5 s).
#[cfg(windows)]
mod windows {
    use windows_sys::Win32::System::Console::{
        CTRL_BREAK_EVENT, CTRL_C_EVENT, CTRL_CLOSE_EVENT, CTRL_LOGOFF_EVENT, CTRL_SHUTDOWN_EVENT,
        SetConsoleCtrlHandler,
    };

    /// The signal numbers Unix gives the same news (SIGINT, SIGHUP), so
    /// exit codes read the same on both.
    const SIGINT: i32 = 2;
    const SIGHUP: i32 = 1;

    fn now() -> u64 {
        static START: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
        START
            .get_or_init(std::time::Instant::now)
            .elapsed()
            .as_nanos() as u64
    }

    unsafe extern "system" fn on_control(event: u32) -> windows_sys::core::BOOL {
        let signal = match event {
            CTRL_C_EVENT | CTRL_BREAK_EVENT => SIGINT,
            CTRL_CLOSE_EVENT | CTRL_LOGOFF_EVENT | CTRL_SHUTDOWN_EVENT => SIGHUP,
            _ => return 0,
        };
        super::heard(signal, now(), |code| std::process::exit(code));
        if signal == SIGHUP {
            // Returning ends the process: wait for the loop to end it.
            std::thread::sleep(std::time::Duration::from_secs(5));
        }
        1
    }

    /// Installs the console's control handler (once).
    pub fn install() {
        static ONCE: std::sync::Once = std::sync::Once::new();
        ONCE.call_once(|| {
            now();
            // SAFETY: the handler is a `system` function that lives as
            // long as the process.
            unsafe { SetConsoleCtrlHandler(Some(on_control), 1) };
        });
    }
}

/// Says whether an interrupt (SIGINT, SIGTERM, SIGHUP; Ctrl+C, the
/// console closing) arrived since the start.
pub fn requested() -> bool {
    REQUESTED.load(Ordering::SeqCst)
}

/// The exit code of a run stopped by a signal (128 + SIGINT, as shells
/// report it).
pub const EXIT_CODE: u8 = 130;
