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
    /// No player joined while the host waited.
    #[error("online: no player joined in {} s", waited.as_secs_f64())]
    NoPlayer {
        /// How long the host waited.
        waited: std::time::Duration,
    },
    /// The player joined, but fewer spectators than the host was told to
    /// wait for.
    #[error("online: {joined} of {wanted} spectators joined in {} s", waited.as_secs_f64())]
    TooFewWatching {
        /// Spectators that joined.
        joined: usize,
        /// Spectators the host waited for.
        wanted: usize,
        /// How long the host waited.
        waited: std::time::Duration,
    },
    /// The host did not answer a join in time.
    #[error(
        "online: {host} did not answer in {} s (is it hosting? is the port open?)",
        waited.as_secs_f64()
    )]
    NoAnswer {
        /// The host asked.
        host: SocketAddr,
        /// How long this side waited.
        waited: std::time::Duration,
    },
    /// Ctrl+C (or a signal) came while waiting.
    #[error("online: interrupted while {0}")]
    Interrupted(Waiting),
    /// GGRS refused the session's settings (N3).
    #[error("N3: {what} cannot start: {source}")]
    Session {
        /// "online play" or "watching".
        what: &'static str,
        /// GGRS's reason.
        source: ggrs::GgrsError,
    },
}

/// What a side was waiting for when it was interrupted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Waiting {
    /// The host, for a player (and its spectators) to join.
    ForPlayer,
    /// A player or spectator, for the host to answer.
    ToJoin,
}

impl std::fmt::Display for Waiting {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Waiting::ForPlayer => "waiting for a player",
            Waiting::ToJoin => "joining",
        })
    }
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
