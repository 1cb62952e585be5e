//! Why two machines did not come to play together (rules N1-N3): each way
//! a link or a session fails to start, with the line the person reads.

use std::net::SocketAddr;

/// A link that was not made, or a session that did not start.
#[derive(Debug, thiserror::Error)]
pub enum Unlinked {
    /// This machine cannot listen on the address (taken, or not its own).
    #[error("online: cannot listen on {address}: {source}")]
    Listen {
        /// The address asked for.
        address: SocketAddr,
        /// The socket's error, its kind kept.
        source: std::io::Error,
    },
    /// The host turned this game away; `why` is its line (another game,
    /// or no room left), made safe for the terminal.
    #[error("online: {host} refused this game: {why}")]
    Refused {
        /// The host that answered.
        host: SocketAddr,
        /// What it said.
        why: String,
    },
    /// No answer came in time: no player joined, or the host was silent.
    #[error("online: {0}")]
    Silent(String),
    /// Ctrl+C (or a signal) came while waiting; says for what.
    #[error("online: interrupted while {0}")]
    Interrupted(&'static str),
    /// GGRS refused the session's settings (N3).
    #[error("N3: {what} cannot start: {source}")]
    Session {
        /// "online play" or "watching".
        what: &'static str,
        /// GGRS's reason.
        source: ggrs::GgrsError,
    },
}

impl Unlinked {
    /// The I/O error's kind where the failure was the machine's socket.
    pub fn io_kind(&self) -> Option<std::io::ErrorKind> {
        match self {
            Unlinked::Listen { source, .. } => Some(source.kind()),
            _ => None,
        }
    }
}
