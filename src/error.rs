//! Error: every way the host can refuse an input, each with one clear line.

use std::path::PathBuf;

/// All the ways a command, a game or a frame can fail.
///
/// Messages are read by game authors: each names the place (a path, or
/// `file:line` for Luau), the rule broken where there is one, and the fix.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A clock SPEC on the command line or in a test could not be read.
    #[error("bad clock `{spec}`: {reason}")]
    ClockSpec {
        /// The SPEC as given.
        spec: String,
        /// What is wrong with it and what would be right.
        reason: String,
    },

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

    /// Luau code failed: a syntax error, an error thrown, a rule refused.
    ///
    /// The message already starts with `file:line` where Luau knows it.
    #[error("{0}")]
    Script(String),

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
    #[error("{path}: {source}")]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
}

/// The host's result type.
pub type Result<T = (), E = Error> = std::result::Result<T, E>;

impl Error {
    /// Wraps an I/O failure with the path it happened at.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source,
        }
    }
}
