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
        eprintln!(
            "moonloop: internal error{place}: {message} (this is a bug in moonloop; please report it)"
        );
    }));
    moonloop::cli::main(std::env::args_os())
}
