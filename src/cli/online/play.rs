//! Online play itself: the hello, the link and the session on it.

use crate::terminal::{say, tell};
use std::net::{SocketAddr, ToSocketAddrs};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use super::{PeerArgs, WatchArgs};
use crate::clock::ConstantClock;
use crate::engine::Engine;
use crate::error::{Error, Result};
use crate::lua::{Limits, LuaGame};
use crate::netplay::link::{GameId, Link};
use crate::netplay::{Online, Options};
use crate::save::Saves;
use crate::session::Session;

/// A peer about to play: its game, and what it was asked.
struct Peer {
    game: PathBuf,
    args: PeerArgs,
}

/// `moonloop host GAME`: waits on `address` for a player holding the same
/// game, then plays as player 1.
///
/// # Errors
/// The game does not load or cannot be played online, or nobody joined.
pub(in crate::cli) fn host(
    game: PathBuf,
    address: &str,
    seed: u64,
    spectators: usize,
    args: PeerArgs,
) -> Result<ExitCode> {
    let address = resolve(address)?;
    let peer = Peer { game, args };
    let (loaded, id) = peer.load(seed)?;
    let watchers = match spectators {
        0 => String::new(),
        1 => " and a spectator".into(),
        n => format!(" and {n} spectators"),
    };
    tell!(
        "online: hosting {} on {address}; waiting for a player{watchers}",
        id.name
    );
    let (link, remote, watching) = Link::host(address, &id, seed, peer.wait(), spectators)?;
    peer.play(loaded, link, (0, remote), watching, seed)
}

/// `moonloop spectate ADDRESS GAME`: watches the game the host at
/// `address` plays (it was started with `--spectators`), on the inputs
/// it sends.
///
/// # Errors
/// The game does not load, the host refused it, or did not answer.
pub(in crate::cli) fn spectate(address: &str, game: PathBuf, args: WatchArgs) -> Result<ExitCode> {
    let host = resolve(address)?;
    let loading = Peer {
        game,
        args: PeerArgs {
            delay: 0,
            window: 1,
            wait: args.wait,
            sync_wait: args.sync_wait,
            frame_wait: args.frame_wait,
            headless: args.headless,
            input: None,
            frames: args.frames,
            audio: args.audio.clone(),
            record_input: args.record_input.clone(),
            record: args.record.clone(),
            print_state: args.print_state,
        },
    };
    let (_, id) = loading.load(0)?;
    tell!("online: joining {host} to watch");
    let (link, seed) = Link::join(host, &id, loading.wait(), true)?;
    let (loaded, _) = loading.load(seed)?;
    let watching = crate::netplay::Spectating::start(link, host, Duration::from_secs(3))?.waits(
        Duration::from_secs_f64(args.sync_wait),
        Duration::from_secs_f64(args.frame_wait),
        args.frames,
    );
    let mut engine = Engine::new(loaded, Box::new(ConstantClock::new(1.0 / 60.0)));
    engine.keep_history(crate::history::DEFAULT_CAP)?;
    loading.drive(engine, Box::new(watching), seed)
}

/// `moonloop join ADDRESS GAME`: joins the host at `address`, which
/// checks it holds the same game, then plays as player 2.
///
/// # Errors
/// The game does not load, the host refused it, or did not answer.
pub(in crate::cli) fn join(address: &str, game: PathBuf, args: PeerArgs) -> Result<ExitCode> {
    let host = resolve(address)?;
    let peer = Peer { game, args };
    let (_, id) = peer.load(0)?;
    tell!("online: joining {host}");
    let (link, seed) = Link::join(host, &id, peer.wait(), false)?;
    // Both games start from the host's seed.
    let (loaded, _) = peer.load(seed)?;
    peer.play(loaded, link, (1, host), Vec::new(), seed)
}

/// The first address `text` names (`HOST:PORT`).
fn resolve(text: &str) -> Result<SocketAddr> {
    let shown = crate::terminal::escape(text);
    let address = text
        .to_socket_addrs()
        .map_err(|e| {
            Error::usage(format!(
                "online: `{shown}` is not an address (HOST:PORT): {e}"
            ))
        })?
        .next()
        .ok_or_else(|| Error::usage(format!("online: `{shown}` names no address")))?;
    if address.port() == 0 {
        return Err(Error::usage(format!(
            "online: `{shown}` has port 0, which no host listens on: give the port the host \
             printed"
        )));
    }
    Ok(address)
}

impl Peer {
    fn wait(&self) -> Duration {
        Duration::from_secs_f64(self.args.wait)
    }

    /// Draws the frames of `replay` (this side's session) again, headless,
    /// into a recording at `path`. Returns whether every frame came out
    /// as it did online (its hash); one that did not is said.
    ///
    /// # Errors
    /// The game does not load again, or the recording cannot be written.
    fn record(&self, replay: crate::replay::Replay, path: &std::path::Path) -> Result<bool> {
        let shown = self
            .game
            .to_string_lossy()
            .trim_end_matches('/')
            .to_string();
        let playback = crate::playback::start(&self.game, shown, replay, Limits::default())?;
        let capture = crate::capture::Capture::start(path, true)?;
        let mut session = Session::new(playback.engine).capture(Some(capture));
        crate::headless::run(&mut session, Some(playback.frames));
        let (_, tally) = session.finish()?;
        tally.summarize();
        Ok(tally.is_empty())
    }

    /// Loads the game with `seed` and says which game it is; online play
    /// starts from no save on both sides. A `--record` path that names no
    /// recording format is refused here, before anyone waits or plays.
    fn load(&self, seed: u64) -> Result<(LuaGame, GameId)> {
        if let Some(path) = &self.args.record {
            crate::record::Format::from_path(path)?;
        }
        let limits = Limits {
            seed,
            ..Limits::default()
        };
        let shown = self
            .game
            .to_string_lossy()
            .trim_end_matches('/')
            .to_string();
        let game = LuaGame::load_shown(&self.game, shown, limits, Saves::memory(None))?;
        let config = crate::Game::config(&game);
        crate::netplay::input::check_players(&config.players)
            .map_err(|r| Error::usage(String::from(r)))?;
        let name = crate::replay::game_name(config).to_string();
        let id = GameId::of(&self.game, &name, config.players.len());
        Ok((game, id))
    }

    /// Plays `game` over `link` as player `local` against `remote`,
    /// sending every confirmed input to `spectators` too.
    fn play(
        self,
        game: LuaGame,
        link: Link,
        (local, remote): (usize, SocketAddr),
        spectators: Vec<SocketAddr>,
        seed: u64,
    ) -> Result<ExitCode> {
        let script = match &self.args.input {
            Some(path) => Some(crate::input::load_script(
                path,
                &crate::Game::config(&game).actions,
            )?),
            None => None,
        };
        let mut engine = Engine::new(game, Box::new(ConstantClock::new(1.0 / 60.0)));
        // History is what a desync's replay is written from.
        engine.keep_history(crate::history::DEFAULT_CAP)?;
        let mut options = Options::new(local, remote);
        options.delay = self.args.delay as usize;
        options.window = self.args.window as usize;
        options.seed = seed;
        options.reports = PathBuf::from(".");
        options.spectators = spectators;
        options.until = self.args.frames;
        options.sync_wait = Duration::from_secs_f64(self.args.sync_wait);
        options.frame_wait = Duration::from_secs_f64(self.args.frame_wait);
        let online = Online::start(link, options)?.script(script);
        self.drive(engine, Box::new(online), seed)
    }

    /// Runs `engine`'s frames as `driver` says, in a window or headless,
    /// until the frames asked for or the session ends; says the state
    /// hash of the last frame asked for (and its state, asked), and
    /// writes the replay asked for, of a session begun from `seed`.
    fn drive(
        self,
        engine: Engine<LuaGame>,
        driver: Box<dyn crate::session::Driver<LuaGame>>,
        seed: u64,
    ) -> Result<ExitCode> {
        crate::interrupt::install();
        let session = if self.args.headless {
            let mut session = Session::new(engine).drive(Some(driver));
            run_headless(&mut session, self.args.frames);
            session
        } else {
            self.in_window(engine, driver)?
        };
        for line in session.driver_status() {
            tell!("{line}");
        }
        let ended = session.ended();
        let confirmed = session.confirmed();
        let (mut engine, tally) = session.finish()?;
        tally.summarize();
        if let Some(n) = self.args.frames
            && engine.frame() >= n
        {
            let hash = engine.with_state_at(n, |g| g.state_hash())??;
            say!("frame {n}: {hash}");
            if self.args.print_state {
                say!("{}", engine.with_state_at(n, |g| g.state_json())??);
            }
        }
        // Only frames whose input is known for good: the last few may
        // have been played on a guess of the other's.
        let until = self.args.frames.map_or(confirmed, |n| n.min(confirmed));
        let kept = if self.args.record_input.is_some() || self.args.record.is_some() {
            let name = crate::replay::game_name(engine.config()).to_string();
            Some(engine.history_replay_until(seed, &name, None, until)?)
        } else {
            None
        };
        if let (Some(path), Some(replay)) = (&self.args.record_input, &kept) {
            crate::files::write(path, replay.to_text(), crate::files::Readers::All)?;
            tell!(
                "online: wrote this side's {until} frames to {} (moonloop run GAME --replay \
                 plays them)",
                path.display()
            );
        }
        let mut drawn = true;
        if let (Some(path), Some(replay)) = (&self.args.record, kept) {
            drawn = self.record(replay, path)?;
        }
        Ok(if ended.is_some() || !tally.is_empty() || !drawn {
            ExitCode::FAILURE
        } else {
            ExitCode::SUCCESS
        })
    }
}

impl Peer {
    /// Plays in a window, on `driver`'s frames.
    #[cfg(feature = "window")]
    fn in_window(
        &self,
        engine: Engine<LuaGame>,
        driver: Box<dyn crate::session::Driver<LuaGame>>,
    ) -> Result<Session<LuaGame>> {
        crate::cli::check_display()?;
        let options = crate::window::Options {
            frames: self.args.frames,
            audio: self.args.audio.clone(),
            driver: Some(driver),
            ..Default::default()
        };
        crate::window::run(engine, options)
    }

    /// A build without the `window` feature plays online headless only.
    #[cfg(not(feature = "window"))]
    fn in_window(
        &self,
        _: Engine<LuaGame>,
        _: Box<dyn crate::session::Driver<LuaGame>>,
    ) -> Result<Session<LuaGame>> {
        Err(crate::cli::windowless())
    }
}

/// Runs `session` headless until frame `frames` is known for good on
/// both sides (then on a little, so the other side hears this one's last
/// input too), or the session ends.
fn run_headless(session: &mut Session<LuaGame>, frames: Option<u64>) {
    let mut done_at: Option<Instant> = None;
    loop {
        if crate::interrupt::requested() || session.ended().is_some() {
            return;
        }
        if let Some(n) = frames
            && done_at.is_none()
            && session.confirmed() >= n
        {
            done_at = Some(Instant::now());
        }
        if done_at.is_some_and(|at| at.elapsed() > Duration::from_millis(500)) {
            return;
        }
        let now = Instant::now();
        if let Some(due) = session.next_due()
            && due > now
        {
            std::thread::sleep((due - now).min(Duration::from_millis(2)));
            continue;
        }
        session.tick(Instant::now(), false);
    }
}
