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
    #[error(transparent)]
    Usage(Misuse),

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

    /// Luau code failed: a syntax error, an error thrown, a rule refused,
    /// at the author's `file:line` where Luau knows it.
    #[error(transparent)]
    Script(Failure),

    /// Game code ran past its time budget and was stopped (H9), at the
    /// `file:line` where Luau knows it.
    #[error(transparent)]
    Stopped(Failure),

    /// Game code ran out of the memory it may hold (H9, or H10 where
    /// engines share it), at the `file:line` where Luau knows it.
    #[error(transparent)]
    OutOfMemory(Failure),

    /// An asset (an image, a model, a sound) could not be loaded or used
    /// where no Luau call was running to raise it: a reload that broke a
    /// file, a texture the GPU refused, a sound the player could not play.
    #[error(transparent)]
    Asset(Failure),

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

/// Where in a game's files something failed: a file, and the line in it
/// where that is known (a Luau error has one; a bad `config` field, or an
/// image, names its file alone).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spot {
    /// The file as the author reads it (`games/pong/main.luau`).
    pub file: String,
    /// The line, counted from 1.
    pub line: Option<u32>,
}

impl std::fmt::Display for Spot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.line {
            Some(line) => write!(f, "{}:{line}", self.file),
            None => f.write_str(&self.file),
        }
    }
}

/// What failed in game code or a game's file: where, when that is known,
/// and what. It reads as the one line the author sees, `file:line: what`
/// (or `what` alone), so a tool or a test can take the place as data
/// instead of picking it out of the text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", self.shown())]
pub struct Failure {
    /// Where, when known.
    pub at: Option<Spot>,
    /// What failed, and why (the rule, where one was broken, leads it).
    pub what: String,
}

impl Failure {
    /// A failure at `line` of `file`.
    pub fn at(file: impl Into<String>, line: u32, what: impl Into<String>) -> Failure {
        Failure {
            at: Some(Spot {
                file: file.into(),
                line: Some(line),
            }),
            what: what.into(),
        }
    }

    /// A failure of the whole of `file` (a config field, an image).
    pub fn in_file(file: impl Into<String>, what: impl Into<String>) -> Failure {
        Failure {
            at: Some(Spot {
                file: file.into(),
                line: None,
            }),
            what: what.into(),
        }
    }

    /// Reads a line as Luau and the host's error handler write it,
    /// `file:line: what`, taking the place apart where it has one. A line
    /// with no place (`frame 3: ...`, `H9: ...`) is all `what`.
    pub fn read(line: impl Into<String>) -> Failure {
        let line = line.into();
        let place = line.find(": ").and_then(|end| {
            let (file, number) = line[..end].rsplit_once(':')?;
            let number: u32 = number.parse().ok()?;
            let plain = !file.trim().is_empty() && number.to_string() == line[file.len() + 1..end];
            plain.then(|| (file.to_string(), number, end + 2))
        });
        match place {
            Some((file, number, rest)) => Failure::at(file, number, &line[rest..]),
            None => Failure {
                at: None,
                what: line,
            },
        }
    }

    fn shown(&self) -> String {
        match &self.at {
            Some(spot) => format!("{spot}: {}", self.what),
            None => self.what.clone(),
        }
    }
}

impl From<String> for Failure {
    fn from(line: String) -> Failure {
        Failure::read(line)
    }
}

impl From<&str> for Failure {
    fn from(line: &str) -> Failure {
        Failure::read(line)
    }
}

impl From<Refusal> for Failure {
    fn from(refusal: Refusal) -> Failure {
        Failure::read(String::from(refusal))
    }
}

/// A command line that cannot be used as given: the argument it is about,
/// where one is to blame, and what is wrong with it. It reads as
/// `argument: what` (or `what` alone).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", match &self.argument { Some(a) => format!("{a}: {}", self.what), None => self.what.clone() })]
pub struct Misuse {
    /// The option or value as the person gave it (`--report x.txt`).
    pub argument: Option<String>,
    /// What is wrong with it, and what to do instead.
    pub what: String,
}

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

    /// Luau code, or what it gave the host, failed: `line` as Luau writes
    /// it (`file:line: what`, or `what`).
    pub fn script(line: impl Into<String>) -> Self {
        Error::Script(Failure::read(line))
    }

    /// An asset could not be loaded or used: `line` as for [`Error::script`].
    pub fn asset(line: impl Into<String>) -> Self {
        Error::Asset(Failure::read(line))
    }

    /// The command line cannot be used as given, for no one argument.
    pub fn usage(what: impl Into<String>) -> Self {
        Error::Usage(Misuse {
            argument: None,
            what: what.into(),
        })
    }

    /// `argument`, as the person gave it, cannot be used: `what` says why.
    pub fn usage_of(argument: impl Into<String>, what: impl Into<String>) -> Self {
        Error::Usage(Misuse {
            argument: Some(argument.into()),
            what: what.into(),
        })
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
        assert_eq!(Error::script("plain").chain(), "plain");
    }

    #[test]
    fn a_luau_line_keeps_its_place_as_data_and_reads_as_it_came() {
        for line in [
            "games/pong/main.luau:12: attempt to index nil",
            "My Games/x.luau:3: S4: update returned nil",
            "C:\\games\\x.luau:7: boom",
            "frame 3: boom",
            "H9: the game ran out of memory",
            "main.luau:x: not a line",
            ":4: no file",
            "main.luau:04: a line written oddly",
            "plain",
            "",
        ] {
            assert_eq!(Failure::read(line).to_string(), line);
        }
        let failure = Failure::read("games/pong/main.luau:12: attempt to index nil");
        assert_eq!(
            failure.at,
            Some(Spot {
                file: "games/pong/main.luau".into(),
                line: Some(12)
            })
        );
        assert_eq!(failure.what, "attempt to index nil");
        assert_eq!(Failure::read("frame 3: boom").at, None);
        assert_eq!(
            Failure::in_file("main.luau", "config.title should be a string").to_string(),
            "main.luau: config.title should be a string"
        );
    }
}
