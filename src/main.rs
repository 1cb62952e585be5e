//! The `moonloop` binary: parse the command line and run it.

use std::process::ExitCode;

fn main() -> ExitCode {
    // A bug in the host must still end as one line, not a backtrace.
    std::panic::set_hook(Box::new(|info| {
        if moonloop::error::panic_is_caught() {
            return;
        }
        let place = info
            .location()
            .map(|l| format!(" at {}:{}", l.file(), l.line()))
            .unwrap_or_default();
        let message = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_default();
        // A panic on any of the host's threads (the recorder's, the
        // audio's) is said here, naming the thread.
        let thread = std::thread::current()
            .name()
            .map(|n| format!(" on thread {n}"))
            .unwrap_or_default();
        use std::io::Write as _;
        let _ = writeln!(
            std::io::stderr(),
            "moonloop: internal error{thread}{place}: {message} (this is a bug in moonloop; please report it)"
        );
    }));
    #[cfg(unix)]
    unix_process();
    moonloop::main(std::env::args_os())
}

/// What a Unix process needs before it starts: a runtime folder for the
/// graphics libraries, and signals that end a write, not the process.
#[cfg(unix)]
fn unix_process() {
    give_libraries_a_runtime_dir();
    // Past a file-size limit (`ulimit -f`) a write should fail and be
    // reported, the recording or save ending as a valid file, not kill
    // the process with SIGXFSZ.
    // SAFETY: called before any thread starts; SIG_IGN is always valid.
    unsafe { libc::signal(libc::SIGXFSZ, libc::SIG_IGN) };
    quiet_broken_pipes();
}

#[cfg(unix)]
/// `moonloop test games | head -1` should stop quietly when `head` has
/// read its line, as command-line tools do: the default action for
/// SIGPIPE ends the process without a word. Rust starts programs with it
/// ignored, which turns the first print after into a panic. A `run` keeps
/// it ignored, because a run may be writing a recording that must end as
/// a valid file; its prints drop what no one reads (terminal::say, tell).
fn quiet_broken_pipes() {
    if std::env::args_os()
        .nth(1)
        .is_some_and(|command| command == "run")
    {
        return;
    }
    // SAFETY: called before any thread starts; SIG_DFL is always valid.
    unsafe { libc::signal(libc::SIGPIPE, libc::SIG_DFL) };
}

#[cfg(unix)]
/// Graphics libraries (Mesa's, through wgpu) print "XDG_RUNTIME_DIR is
/// invalid or not set" twice on every run where the session has none (a
/// container, CI, ssh), though nothing is wrong. The host's stderr is for
/// what the author must read, so such a run gets a private folder of its
/// own to point them at.
fn give_libraries_a_runtime_dir() {
    let set =
        std::env::var_os("XDG_RUNTIME_DIR").is_some_and(|dir| std::path::Path::new(&dir).is_dir());
    if set {
        return;
    }
    // SAFETY: `getuid` has no preconditions and cannot fail.
    let uid = unsafe { libc::getuid() };
    let dir = std::env::temp_dir().join(format!("moonloop-runtime-{uid}"));
    let made = std::fs::create_dir_all(&dir).and_then(|()| {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700))
    });
    if made.is_ok() {
        // SAFETY: the first thing main does, before any thread starts.
        unsafe { std::env::set_var("XDG_RUNTIME_DIR", &dir) };
    }
}

/// Debian 12's emscripten (3.1.6) keeps `time_t` 32 bits wide, and writes
/// a `timespec` so; Rust's libc for emscripten reads one with a 64-bit
/// `time_t`, and `Instant::now()` panicked on the garbage. Defined here,
/// `clock_gettime` is the one the whole program calls: it writes the
/// layout Rust reads, from the page's clocks (emscripten's JavaScript
/// version of it is used only where no program defines one).
#[cfg(target_os = "emscripten")]
mod emscripten_time {
    unsafe extern "C" {
        /// `performance.now()`: milliseconds, monotonic.
        fn emscripten_get_now() -> f64;
        /// `Date.now()`: milliseconds since 1970.
        fn emscripten_date_now() -> f64;
    }

    /// # Safety
    /// `tp` points at a `timespec` to write, as for the C function.
    #[unsafe(no_mangle)]
    pub unsafe extern "C" fn clock_gettime(
        clock: libc::clockid_t,
        tp: *mut libc::timespec,
    ) -> libc::c_int {
        // SAFETY: both read a clock of the page, and take nothing.
        let ms = unsafe {
            if clock == libc::CLOCK_REALTIME {
                emscripten_date_now()
            } else {
                emscripten_get_now()
            }
        };
        let secs = (ms / 1000.0).floor();
        // SAFETY: the caller hands a `timespec` to write.
        unsafe {
            (*tp).tv_sec = secs as libc::time_t;
            (*tp).tv_nsec = ((ms - secs * 1000.0) * 1e6) as libc::c_long;
        }
        0
    }
}
