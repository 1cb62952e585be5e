//! Error: every way the host can refuse an input, each with one clear line.

use std::path::PathBuf;

impl From<crate::sound::WriteError> for Error {
    fn from(e: crate::sound::WriteError) -> Error {
        Error::Write {
            path: e.path,
            source: e.source,
        }
    }
}

/// All the ways a command, a game or a frame can fail.
///
/// Messages are read by game authors: each names the place (a path, or
/// `file:line` for Luau), the rule broken where there is one, and the fix.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A clock SPEC on the command line or in a test could not be read.
    #[error(transparent)]
    ClockSpec(#[from] moonloop_core::clock::BadSpec),

    /// The game folder does not exist or is not a folder with a main file.
    #[error("{path}: {reason}")]
    Game {
        /// The folder as given.
        path: PathBuf,
        /// What is missing.
        reason: String,
    },

    /// A command-line argument cannot be used as given.
    #[error("{0}")]
    Usage(String),

    /// A rule of the contract refused what a frame, a run or a command
    /// asked (R1: a frame of the past that came out differently; R2: a
    /// rewind past history's start; N1: a sync test's frame): the rule a
    /// field, shown as `R1: what`.
    #[error("{rule}: {what}")]
    Rule {
        /// The rule.
        rule: Rule,
        /// What it refused, and why.
        what: String,
    },

    /// Luau code failed: a syntax error, an error thrown, a rule refused.
    ///
    /// The message already starts with `file:line` where Luau knows it.
    #[error("{0}")]
    Script(String),

    /// Game code ran past its time budget and was stopped (H9). The
    /// message starts with `file:line` where Luau knows it.
    #[error("{0}")]
    Stopped(String),

    /// Game code ran out of the memory it may hold (H9, or H10 where
    /// engines share it). The message starts with `file:line`.
    #[error("{0}")]
    OutOfMemory(String),

    /// An asset (an image, a model, a sound) could not be loaded or used
    /// where no Luau call was running to raise it: a reload that broke a
    /// file, a texture the GPU refused.
    #[error("{0}")]
    Asset(String),

    /// The game's save could not be written (H12); the last save is kept.
    #[error("the save could not be written to {path}; the last save is kept")]
    Save {
        /// The save's file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },

    /// A scripted input file or replay log has a line the host cannot read.
    #[error("{path}:{line}: {reason}")]
    Input {
        /// The file.
        path: PathBuf,
        /// The line, counted from 1.
        line: usize,
        /// What is wrong with the line.
        reason: String,
    },

    /// Reading or writing a file failed.
    #[error("{path}")]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },

    /// A file the host makes (a built game) could not be written.
    #[error("cannot write {path}")]
    Write {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },

    /// A recording could not be made or finished.
    #[error("recording to {path} failed")]
    Record {
        /// The file or folder being recorded to.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },

    #[cfg(feature = "gpu")]
    /// The renderer could not start: no graphics adapter, or a device
    /// refused.
    #[error(transparent)]
    Gpu(#[from] moonloop_render::GpuError),

    #[cfg(feature = "gpu")]
    /// A window's surface could not be made.
    #[error("cannot draw to the window")]
    Surface(#[from] wgpu::CreateSurfaceError),

    #[cfg(feature = "window")]
    /// The window system refused to run a window (add --headless).
    #[error("cannot run a window (add --headless)")]
    EventLoop(#[from] winit::error::EventLoopError),

    #[cfg(feature = "window")]
    /// The window system refused to open a window.
    #[error("cannot open a window")]
    Window(#[from] winit::error::OsError),

    /// A zipped game, or the game a built executable carries, could not
    /// be opened.
    #[error(transparent)]
    Package(#[from] crate::package::unpack::Refused),
    #[cfg(feature = "net")]
    /// Online play did not start: no link, or no session (N1-N3).
    #[error(transparent)]
    Online(#[from] crate::netplay::Unlinked),

    /// This build was made without the door a run asks for.
    #[error(
        "this moonloop has no {what}: it was built without the Cargo feature `{feature}`{advice}"
    )]
    Unbuilt {
        /// What is missing, in words.
        what: &'static str,
        /// The Cargo feature that builds it in.
        feature: &'static str,
        /// What to do instead, after a "; " (or nothing).
        advice: &'static str,
    },

    #[cfg(feature = "watch")]
    /// The game folder cannot be watched for changes.
    #[error("{path}: cannot watch the folder for changes")]
    Watch {
        /// The folder.
        path: PathBuf,
        /// The cause.
        source: notify::Error,
    },
}

pub use moonloop_core::{Refusal, Rule};

/// The host's result type.
pub type Result<T = (), E = Error> = std::result::Result<T, E>;

/// Whether an I/O failure says the path given was wrong (missing, not
/// permitted, a folder for a file), rather than that the machine failed.
fn named_wrong(e: &std::io::Error) -> bool {
    named_wrong_kind(e.kind())
}

/// Whether an I/O failure of `kind` says the path given was wrong.
fn named_wrong_kind(kind: std::io::ErrorKind) -> bool {
    use std::io::ErrorKind::*;
    matches!(
        kind,
        NotFound
            | PermissionDenied
            | AlreadyExists
            | IsADirectory
            | NotADirectory
            | InvalidInput
            | InvalidFilename
            | AddrInUse
            | AddrNotAvailable
    )
}

/// The exit code of a run that bad input stopped: a bad argument, a
/// missing game, a game that does not load (docs/cli.md).
pub const EXIT_INPUT: u8 = 2;

/// The exit code of a run the machine stopped: a disk full or failing, no
/// graphics adapter, no window (docs/cli.md).
pub const EXIT_MACHINE: u8 = 3;

impl Error {
    /// The exit code a run that ends on this error gives: what the person
    /// gave was wrong ([`EXIT_INPUT`]), or the machine refused
    /// ([`EXIT_MACHINE`]), so a script can tell "fix the command" from
    /// "fix the disk".
    pub fn exit_code(&self) -> u8 {
        match self {
            Error::ClockSpec(_)
            | Error::Game { .. }
            | Error::Usage(_)
            | Error::Script(_)
            | Error::Rule { .. }
            | Error::Stopped(_)
            | Error::OutOfMemory(_)
            | Error::Asset(_)
            | Error::Input { .. } => EXIT_INPUT,
            #[cfg(feature = "net")]
            Error::Online(unlinked) => match unlinked.io_kind() {
                Some(kind) if !named_wrong_kind(kind) => EXIT_MACHINE,
                _ => EXIT_INPUT,
            },
            Error::Package(refused) => match refused.io_kind() {
                Some(kind) if !named_wrong_kind(kind) => EXIT_MACHINE,
                _ => EXIT_INPUT,
            },
            // A path the person named that is not there, or not theirs, is
            // their input; a disk that is full or fails is the machine.
            Error::Io { source, .. }
            | Error::Write { source, .. }
            | Error::Record { source, .. }
                if named_wrong(source) =>
            {
                EXIT_INPUT
            }
            Error::Save { .. }
            | Error::Io { .. }
            | Error::Write { .. }
            | Error::Record { .. }
            | Error::Unbuilt { .. } => EXIT_MACHINE,
            #[cfg(feature = "gpu")]
            Error::Gpu(_) | Error::Surface(_) => EXIT_MACHINE,
            #[cfg(feature = "window")]
            Error::EventLoop(_) | Error::Window(_) => EXIT_MACHINE,
            #[cfg(feature = "watch")]
            Error::Watch { .. } => EXIT_MACHINE,
        }
    }

    /// Returns the whole message: this error's, then each cause's
    /// (`source()`), joined by ": ".
    pub fn chain(&self) -> String {
        let mut text = self.to_string();
        let mut cause = std::error::Error::source(self);
        while let Some(c) = cause {
            let part = c.to_string();
            if !text.ends_with(&part) {
                text.push_str(": ");
                text.push_str(&part);
            }
            cause = c.source();
        }
        text
    }

    /// `rule` refused: `what` says what, and why.
    pub fn rule(rule: Rule, what: impl Into<String>) -> Self {
        Error::Rule {
            rule,
            what: what.into(),
        }
    }

    /// Wraps an I/O failure with the path it happened at.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source,
        }
    }
}

/// A panic inside a third-party crate fed game data is contained where it
/// happens (H10); the containment is core's, shared by every layer.
pub use moonloop_core::contain::{contain_panic, forward_uncontained_panics, panic_is_caught};

#[cfg(test)]
mod chain_tests {
    use super::*;

    #[test]
    fn a_message_names_its_causes_once() {
        let err = Error::io("game/x.png", std::io::Error::other("disk on fire"));
        assert_eq!(err.chain(), "game/x.png: disk on fire");
        assert_eq!(Error::Script("plain".into()).chain(), "plain");
    }
}
