//! `moonloop host` and `moonloop join`: a game played by two over the
//! network (rule N3), in a window or headless (a test's scripted input).
//! The arguments are every build's; playing is the `net` feature's
//! (play.rs), and a build without it says so in one line.

use std::path::PathBuf;

use clap::Args;

#[cfg(feature = "net")]
mod play;

#[cfg(feature = "net")]
pub(super) use play::{host, join, spectate};

/// What `host` and `join` share.
#[derive(Debug, Args)]
pub(super) struct PeerArgs {
    /// Frames a player's input waits before it counts on both sides
    /// (0 to 8): more hides a slower link, at the cost of feel.
    #[arg(long, value_name = "FRAMES", default_value_t = 2, value_parser = clap::value_parser!(u64).range(0..=8))]
    delay: u64,
    /// The most frames played ahead of the other player's input, on a
    /// guess (1 to 16).
    #[arg(long, value_name = "FRAMES", default_value_t = 8, value_parser = clap::value_parser!(u64).range(1..=16))]
    window: u64,
    /// How long to wait for the other player to connect, in seconds.
    #[arg(long, value_name = "SECONDS", default_value_t = 300.0, value_parser = super::parse_budget)]
    wait: f64,
    /// How long, once connected, every peer has to finish synchronizing,
    /// in seconds: the other player not done by then ends the session, a
    /// spectator is dropped.
    #[arg(long, value_name = "SECONDS", default_value_t = 10.0, value_parser = super::parse_budget)]
    sync_wait: f64,
    /// The longest to wait for a frame that can be played, in seconds: a
    /// peer that talks but sends no input to play ends the session then.
    #[arg(long, value_name = "SECONDS", default_value_t = 10.0, value_parser = super::parse_budget)]
    frame_wait: f64,
    /// Plays without a window: this player's input from --input.
    #[arg(long)]
    headless: bool,
    /// Feeds this player's input from FILE (headless).
    #[arg(long, value_name = "FILE", requires = "headless")]
    input: Option<PathBuf>,
    /// Ends after N frames both players' input is known for, and says the
    /// state hash of frame N.
    #[arg(long, value_name = "N")]
    frames: Option<u64>,
    /// Writes this side's session to FILE as a replay log when it ends:
    /// every frame whose input is known for good (up to --frames), which
    /// `moonloop run GAME --replay FILE` plays to the same hashes.
    #[arg(long, value_name = "FILE")]
    record_input: Option<PathBuf>,
    /// Records the picture of this side's session when it ends, to a
    /// folder of PNGs, a .gif or an animated .png: every frame whose input
    /// is known for good (up to --frames), drawn again headless from the
    /// session's replay, as `moonloop run GAME --replay LOG --record PATH`
    /// draws it.
    #[arg(long, value_name = "PATH")]
    record: Option<PathBuf>,
    /// Prints the state of frame N (--frames) as JSON when the session
    /// ends.
    #[arg(long, requires = "frames")]
    print_state: bool,
    /// The sound device that plays in a window ("default": ALSA's on Linux,
    /// WASAPI's default endpoint on Windows; "off" for none).
    #[arg(long, value_name = "DEVICE", default_value = "default")]
    audio: String,
}

/// What `spectate` is asked.
#[derive(Debug, Args)]
pub(super) struct WatchArgs {
    /// How long to wait for the host to answer, in seconds.
    #[arg(long, value_name = "SECONDS", default_value_t = 300.0, value_parser = super::parse_budget)]
    wait: f64,
    /// How long, once answered, the host has to finish synchronizing, in
    /// seconds.
    #[arg(long, value_name = "SECONDS", default_value_t = 10.0, value_parser = super::parse_budget)]
    sync_wait: f64,
    /// The longest to wait for a frame to watch, in seconds.
    #[arg(long, value_name = "SECONDS", default_value_t = 10.0, value_parser = super::parse_budget)]
    frame_wait: f64,
    /// Watches without a window.
    #[arg(long)]
    headless: bool,
    /// Ends after frame N, and says its state hash.
    #[arg(long, value_name = "N")]
    frames: Option<u64>,
    /// Writes this side's session to FILE as a replay log when it ends:
    /// every frame whose input is known for good (up to --frames), which
    /// `moonloop run GAME --replay FILE` plays to the same hashes.
    #[arg(long, value_name = "FILE")]
    record_input: Option<PathBuf>,
    /// Records the picture of this side's session when it ends, to a
    /// folder of PNGs, a .gif or an animated .png: every frame whose input
    /// is known for good (up to --frames), drawn again headless from the
    /// session's replay, as `moonloop run GAME --replay LOG --record PATH`
    /// draws it.
    #[arg(long, value_name = "PATH")]
    record: Option<PathBuf>,
    /// Prints the state of frame N (--frames) as JSON when the session
    /// ends.
    #[arg(long, requires = "frames")]
    print_state: bool,
    /// The sound device that plays in a window ("default": ALSA's on Linux,
    /// WASAPI's default endpoint on Windows; "off" for none).
    #[arg(long, value_name = "DEVICE", default_value = "default")]
    audio: String,
}

/// A build without the `net` feature: `host`, `join` and `spectate` say
/// it has no online play.
#[cfg(not(feature = "net"))]
mod unbuilt {
    use std::path::PathBuf;
    use std::process::ExitCode;

    use super::{PeerArgs, WatchArgs};
    use crate::error::{Error, Result};

    fn offline() -> Error {
        Error::Unbuilt {
            what: "online play",
            feature: "net",
            advice: "",
        }
    }

    pub(in crate::cli) fn host(
        _: PathBuf,
        _: &str,
        _: u64,
        _: usize,
        _: PeerArgs,
    ) -> Result<std::process::ExitCode> {
        Err(offline())
    }

    pub(in crate::cli) fn join(_: &str, _: PathBuf, _: PeerArgs) -> Result<ExitCode> {
        Err(offline())
    }

    pub(in crate::cli) fn spectate(_: &str, _: PathBuf, _: WatchArgs) -> Result<ExitCode> {
        Err(offline())
    }
}

#[cfg(not(feature = "net"))]
pub(super) use unbuilt::{host, join, spectate};
