//! Online play (rule N3): each peer runs the whole game, on its own
//! player's input at once and the other's predicted (the last input
//! repeated), and GGRS, the Rust GGPO, says when a prediction was wrong:
//! the engine goes back to the last frame both agree on and runs the
//! frames since again with the real input. The game needs no network
//! code: the state is a value the engine holds and puts back, and
//! `update` a step of the state, the input and `dt` alone.
//!
//! A frame run again plays no sound it played the first time (a cue is
//! known by its frame and what it is), and the peers compare the hashes
//! of confirmed frames: the first that differ end the session, naming
//! the frame, each side writing its replay of the session.

use std::collections::{HashSet, VecDeque};
use std::hash::{Hash, Hasher};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use ggrs::{
    DesyncDetection, GgrsError, GgrsEvent, GgrsRequest, InputStatus, NonBlockingSocket, P2PSession,
    PlayerType, SessionBuilder, SessionState,
};

use super::guard::Guarded;
use super::input::{NetInput, Sampler, apply};
use crate::engine::{Engine, Game, Snapshot, Tick};
use crate::input::Script;
use crate::session::Driver;
use crate::terminal::tell;

/// GGRS's view of a moonloop game: an input of held actions, a state the
/// engine holds itself (GGRS keeps nothing but the frame), peers by
/// socket address.
pub struct NetConfig;

impl ggrs::Config for NetConfig {
    type Input = NetInput;
    type InputPredictor = ggrs::PredictRepeatLast;
    type State = ();
    type Address = SocketAddr;
}

/// Frames a second online: every frame is worth 1/60 s.
pub const FPS: usize = 60;

/// What a session ended by a packet it could not take says.
pub(super) const UNREADABLE: &str = "N3: the other peer sent what this one cannot read (another moonloop, \
                          or not a moonloop peer); the session ends";

/// How many frames apart the peers compare hashes.
pub const HASH_INTERVAL: u32 = 10;

/// The most frames this peer waits, all told, on the other's word that it
/// is ahead (GGRS's time sync): half a second. A larger recommendation
/// (a hostile peer's) is cut to it.
pub const MAX_SKIP: u32 = 30;

/// How a peer plays.
#[derive(Debug, Clone)]
pub struct Options {
    /// This peer's player, from 0.
    pub local: usize,
    /// The other peer.
    pub remote: SocketAddr,
    /// Frames the local input waits before it counts (both peers see it
    /// at once then). Default: 2.
    pub delay: usize,
    /// The most frames played ahead on a prediction. Default: 8.
    pub window: usize,
    /// How long the other peer may be silent before it is gone.
    /// Default: 3 s.
    pub timeout: Duration,
    /// How long every peer (the other player, and each spectator) has to
    /// finish synchronizing once the session starts: the other player
    /// not done by then ends the session, a spectator is dropped.
    /// Default: 10 s.
    pub sync_wait: Duration,
    /// The longest this peer waits for a frame it can play once both
    /// play: a peer that talks (keep-alives, reports) but sends no input
    /// this one can play ends the session after it. Default: 10 s.
    pub frame_wait: Duration,
    /// The seed both games started from, for the replay written when
    /// they come apart.
    pub seed: u64,
    /// Where that replay goes.
    pub reports: PathBuf,
    /// Peers that watch (the host's only): each is sent every confirmed
    /// input, and plays the game from them.
    pub spectators: Vec<SocketAddr>,
    /// The last frame this run plays (`--frames`), if it stops at one:
    /// once both players' input is known up to it, the other side leaving
    /// (it stopped there too) is the session's end, not a failure.
    /// Default: none.
    pub until: Option<u64>,
}

impl Options {
    /// Player `local` against `remote`, with the defaults.
    pub fn new(local: usize, remote: SocketAddr) -> Options {
        Options {
            local,
            remote,
            delay: 2,
            window: 8,
            timeout: Duration::from_secs(3),
            sync_wait: Duration::from_secs(10),
            frame_wait: Duration::from_secs(10),
            seed: 0,
            reports: PathBuf::new(),
            spectators: Vec::new(),
            until: None,
        }
    }
}

/// What the overlay and the closing lines say of a session.
#[derive(Debug, Clone, Copy, Default)]
pub struct NetStats {
    /// Frames delivered live (not run again).
    pub frames: u64,
    /// Rollbacks, and the frames they ran again in all.
    pub rollbacks: u64,
    /// Frames run again after a wrong prediction.
    pub resimulated: u64,
    /// The deepest rollback, in frames.
    pub deepest: u64,
    /// Frames this peer waited for the other (its prediction window was
    /// full, or it was ahead).
    pub waited: u64,
    /// The round trip, in milliseconds.
    pub ping: u128,
    /// The last frame this peer has run on both players' known input
    /// (an engine frame: GGRS's frame `f` is the step to frame `f + 1`,
    /// and the other peer's input may be known beyond this peer's).
    pub confirmed: u64,
    /// Sounds not played again because a frame ran again.
    pub sounds_kept_quiet: u64,
    /// State hashes both peers had for a frame, compared.
    pub compared: u64,
    /// Messages from the other side the guard dropped (guard.rs).
    pub dropped: u64,
}

/// A peer of an online session, driving its engine's frames.
pub struct Online<S: NonBlockingSocket<SocketAddr>> {
    session: P2PSession<NetConfig>,
    /// The guard on the socket GGRS holds: what it heard, and the way to
    /// say goodbye.
    guard: Guarded<S>,
    options: Options,
    sampler: Option<Sampler>,
    /// Scripted input for this peer's player (a headless run's `--input`).
    script: Option<Script>,
    /// The frames held to go back to, oldest first.
    snapshots: VecDeque<Snapshot>,
    /// When the next frame is due.
    next: Option<Instant>,
    /// Frames to wait, as the other peer asked (time sync).
    skip: u32,
    /// Sounds played, by frame and what they were, until confirmed.
    played: HashSet<(u64, u64)>,
    stats: NetStats,
    /// Whether the peers have found each other.
    synchronized: bool,
    /// The furthest frame delivered: frames before it run again.
    furthest: u64,
    ended: Option<String>,
    /// Spectators still watching.
    watching: usize,
    /// Which spectators have finished synchronizing, by their place in
    /// `options.spectators` (the other player's is `synchronized`).
    spectators_synced: Vec<bool>,
    /// When the session started (its first tick).
    started: Option<Instant>,
    /// When the last frame was delivered (or play began).
    last_frame: Option<Instant>,
    /// The frame whose hashes differed, once they did.
    apart: Option<i32>,
    /// Whether the session is over as it should be: both played to
    /// `options.until` and the other side stopped.
    finished: bool,
    /// Whether the other player has gone (its goodbye, or its silence).
    /// The frames its last inputs reach are still played: a side that
    /// stops at `options.until` says goodbye as soon as it has both
    /// inputs of that frame, which can be before this side has played
    /// it.
    left: bool,
}

impl<S: NonBlockingSocket<SocketAddr> + 'static> Online<S> {
    /// Starts a session of two peers over `socket`, this one playing
    /// `options.local`.
    ///
    /// # Errors
    /// GGRS refuses the options (a prediction window or delay out of its
    /// range): the line says which.
    pub fn start(socket: S, options: Options) -> Result<Online<S>, super::Unlinked> {
        let refused = |source: GgrsError| super::Unlinked::Session {
            what: "online play",
            source,
        };
        let mut builder = SessionBuilder::<NetConfig>::new()
            .with_num_players(2)
            .map_err(refused)?
            .with_fps(FPS)
            .map_err(refused)?
            .with_input_delay(options.delay)
            .with_max_prediction_window(options.window)
            .with_disconnect_timeout(options.timeout)
            .with_disconnect_notify_delay(options.timeout / 3)
            .with_desync_detection_mode(DesyncDetection::On {
                interval: HASH_INTERVAL,
            });
        for player in 0..2 {
            let kind = if player == options.local {
                PlayerType::Local
            } else {
                PlayerType::Remote(options.remote)
            };
            builder = builder.add_player(kind, player).map_err(refused)?;
        }
        for (i, &watcher) in options.spectators.iter().enumerate() {
            builder = builder
                .add_player(PlayerType::Spectator(watcher), 2 + i)
                .map_err(refused)?;
        }
        let guard = Guarded::new(socket, options.remote, options.spectators.clone());
        let session = builder.start_p2p_session(guard.watch()).map_err(refused)?;
        let watching = options.spectators.len();
        Ok(Online {
            session,
            guard,
            spectators_synced: vec![false; watching],
            started: None,
            last_frame: None,
            apart: None,
            finished: false,
            left: false,
            options,
            sampler: None,
            script: None,
            snapshots: VecDeque::new(),
            next: None,
            skip: 0,
            played: HashSet::new(),
            stats: NetStats::default(),
            synchronized: false,
            furthest: 0,
            ended: None,
            watching,
        })
    }

    /// Plays `script` as this peer's player's input (a headless run).
    pub fn script(mut self, script: Option<Script>) -> Self {
        self.script = script;
        self
    }

    /// Returns what the session did so far.
    pub fn stats(&self) -> NetStats {
        self.stats
    }

    /// Takes GGRS's news: the peers found each other, one went away, the
    /// two games came apart, or this one should wait.
    fn events<G: Game>(&mut self, engine: &mut Engine<G>) {
        let events: Vec<GgrsEvent<NetConfig>> = self.session.events().collect();
        for event in events {
            match event {
                GgrsEvent::Synchronized { addr } if addr != self.options.remote => {
                    if let Some(i) = self.options.spectators.iter().position(|&a| a == addr) {
                        self.spectators_synced[i] = true;
                    }
                    tell!("online: {addr} is watching");
                }
                GgrsEvent::Synchronized { .. } => {
                    self.synchronized = true;
                    tell!(
                        "online: connected; playing as player {}",
                        self.options.local + 1
                    );
                }
                GgrsEvent::Disconnected { addr } if addr != self.options.remote => {
                    // A spectator that goes away ends nothing.
                    tell!("online: the spectator at {addr} left");
                    self.watching = self.watching.saturating_sub(1);
                }
                GgrsEvent::Disconnected { .. } if self.played_out() => {
                    self.finished = true;
                }
                // Its inputs end where it left: the frame that needs the
                // first it never sent ends the session (`advance`).
                GgrsEvent::Disconnected { .. } if self.synchronized => self.left = true,
                GgrsEvent::Disconnected { .. } => self.end_left(engine.frame()),
                GgrsEvent::NetworkInterrupted { addr, .. } if addr == self.options.remote => {
                    tell!("online: the other player is silent; waiting for them");
                }
                GgrsEvent::NetworkResumed { addr } if addr == self.options.remote => {
                    tell!("online: the other player is back");
                }
                GgrsEvent::NetworkInterrupted { .. } | GgrsEvent::NetworkResumed { .. } => {}
                GgrsEvent::WaitRecommendation { skip_frames } => {
                    self.skip = self.skip.saturating_add(skip_frames).min(MAX_SKIP);
                }
                GgrsEvent::DesyncDetected {
                    frame,
                    local_checksum,
                    remote_checksum,
                    ..
                } => {
                    self.apart = Some(frame);
                    let replay = self.write_replay(engine, frame);
                    self.end(format!(
                        "N3: the two games came apart at frame {frame}: its state hash is \
                         {local_checksum:016x} here and {remote_checksum:016x} there; \
                         something update reads is not in the state or the input (moonloop \
                         synctest finds most such things). {replay}",
                    ));
                }
                GgrsEvent::Synchronizing { .. } => {}
            }
        }
    }

    /// Says whether both players' input is known up to the last frame this
    /// run plays, so the other side may stop.
    fn played_out(&self) -> bool {
        self.options
            .until
            .is_some_and(|n| self.stats.confirmed >= n)
    }

    /// Holds each phase to its deadline (N3): a peer that has not finished
    /// synchronizing by `options.sync_wait` (the other player ends the
    /// session, a spectator is dropped and play goes on), and a running
    /// session that has played no frame for `options.frame_wait`.
    fn deadlines(&mut self, now: Instant) {
        let started = *self.started.get_or_insert(now);
        let seconds = |d: Duration| crate::terminal::Number(d.as_secs_f64());
        if now.saturating_duration_since(started) >= self.options.sync_wait {
            if !self.synchronized {
                self.end(format!(
                    "N3: the other player did not finish connecting in {} s (a peer that \
                     answered the hello and then went quiet, or a link that drops GGRS's \
                     packets); the session ends (--sync-wait sets how long)",
                    seconds(self.options.sync_wait)
                ));
                return;
            }
            for i in 0..self.spectators_synced.len() {
                if self.spectators_synced[i] {
                    continue;
                }
                self.spectators_synced[i] = true;
                self.watching = self.watching.saturating_sub(1);
                let _ = self.session.disconnect_player(2 + i);
                tell!(
                    "online: the spectator at {} did not finish connecting in {} s; playing on \
                     without it",
                    self.options.spectators[i],
                    seconds(self.options.sync_wait)
                );
            }
        }
        if self.session.current_state() != SessionState::Running {
            return;
        }
        let last = *self.last_frame.get_or_insert(now);
        if now.saturating_duration_since(last) >= self.options.frame_wait {
            self.end(format!(
                "N3: no frame could be played for {} s: the other player's game talks but sends \
                 no input this one can play; the session ends at frame {} (--frame-wait sets \
                 how long)",
                seconds(self.options.frame_wait),
                self.furthest
            ));
        }
    }

    /// Says why the session ended, once.
    fn end(&mut self, why: String) {
        if self.ended.is_none() {
            tell!("moonloop: {why}");
            self.ended = Some(why);
        }
    }

    /// Writes this peer's session as a replay log beside the other's,
    /// for the two to be compared; returns the line that says where.
    fn write_replay<G: Game>(&self, engine: &mut Engine<G>, frame: i32) -> String {
        let dir = self.options.reports.join(format!(
            "moonloop-desync-{frame}-player{}",
            self.options.local + 1
        ));
        let name = crate::replay::game_name(engine.config()).to_string();
        let written = std::fs::create_dir_all(&dir)
            .map_err(|e| crate::Error::io(&dir, e))
            .and_then(|()| engine.history_replay(self.options.seed, &name, None))
            .and_then(|replay| {
                let path = dir.join("replay.txt");
                crate::files::write(&path, replay.to_text(), crate::files::Readers::Owner)
            });
        match written {
            Ok(()) => format!(
                "This side's replay is {}/replay.txt; play it against the other side's with \
                 moonloop run GAME --replay FILE, and the first frame whose hash differs is \
                 named",
                dir.display()
            ),
            Err(e) => format!("This side's replay could not be written: {}", e.chain()),
        }
    }

    /// Holds the present as frame `frame`'s snapshot, in place of an
    /// older one of that frame.
    fn save<G: Game>(&mut self, engine: &Engine<G>, frame: i32) -> Option<u128> {
        while self
            .snapshots
            .back()
            .is_some_and(|s| s.frame() >= frame as u64)
        {
            self.snapshots.pop_back();
        }
        match engine.snapshot() {
            Ok(snapshot) => self.snapshots.push_back(snapshot),
            Err(e) => self.end(format!("N3: the state could not be held: {}", e.chain())),
        }
        while self.snapshots.len() > self.options.window + 2 {
            self.snapshots.pop_front();
        }
        // Every frame's S7 hash: the same on every machine (the digest
        // history keeps is for one process). GGRS sends every tenth
        // confirmed frame's, or the nearest saved after it.
        Some(
            engine
                .game()
                .state_hash()
                .and_then(|hex| u64::from_str_radix(&hex, 16).ok())
                .map_or(0, u128::from),
        )
    }

    /// Ends the session on the other player leaving after `frame`.
    fn end_left(&mut self, frame: u64) {
        self.end(format!(
            "online: the other player left at frame {frame} (their game closed, or the link \
             was silent for {} s); the session ends",
            self.options.timeout.as_secs_f64()
        ));
    }

    /// Goes back to frame `frame`'s snapshot.
    fn load<G: Game>(&mut self, engine: &mut Engine<G>, frame: i32) {
        let back = engine.frame().saturating_sub(frame as u64);
        match self.snapshots.iter().find(|s| s.frame() == frame as u64) {
            Some(snapshot) => {
                if let Err(e) = engine.restore(snapshot) {
                    self.end(format!(
                        "N3: frame {frame} could not be gone back to: {}",
                        e.chain()
                    ));
                }
            }
            None => self.end(format!("N3: frame {frame} is not held to go back to")),
        }
        self.stats.rollbacks += 1;
        self.stats.deepest = self.stats.deepest.max(back);
    }

    /// Runs one frame with every player's input.
    fn advance<G: Game>(&mut self, engine: &mut Engine<G>, inputs: &[(NetInput, InputStatus)]) {
        let remote = 1 - self.options.local;
        if inputs
            .get(remote)
            .is_some_and(|(_, status)| *status == InputStatus::Disconnected)
        {
            // The other player has left and sent no input for this
            // frame: the game is not played on alone. Every frame asked
            // for was played on both players' inputs: that is the end.
            if self.options.until.is_some_and(|n| engine.frame() >= n) {
                self.finished = true;
            } else {
                self.end_left(engine.frame());
            }
            return;
        }
        let resimulating = engine.frame() < self.furthest;
        apply(engine.input_mut(), &held(inputs));
        engine.deliver_frame(1.0 / FPS as f64);
        self.furthest = self.furthest.max(engine.frame());
        if resimulating {
            self.stats.resimulated += 1;
        } else {
            self.stats.frames += 1;
        }
        // A sound the frame played when it first ran is not played again.
        let frame = engine.frame();
        let played = &mut self.played;
        let mut quiet = 0;
        engine.cues_mut().retain(|cue| {
            let mut hash = std::collections::hash_map::DefaultHasher::new();
            format!("{:?}{}{:?}{}", cue.action, cue.name, cue.sound, cue.looped).hash(&mut hash);
            let fresh = cue.frame != frame || played.insert((frame, hash.finish()));
            quiet += u64::from(!fresh);
            fresh
        });
        self.stats.sounds_kept_quiet += quiet;
    }
}

/// The frame after the one due at `due` (first: `now`) on the 60 Hz
/// grid, restarted when far behind (as a paced clock's).
pub(super) fn next_slot(due: Option<Instant>, now: Instant) -> Instant {
    let interval = Duration::from_secs_f64(1.0 / FPS as f64);
    let due = due.unwrap_or(now);
    if now > due + interval * 4 {
        now + interval
    } else {
        due + interval
    }
}

/// What each player holds in a frame GGRS hands over: nothing, for a
/// player who has left.
pub(super) fn held(inputs: &[(NetInput, InputStatus)]) -> Vec<NetInput> {
    inputs
        .iter()
        .map(|(input, status)| match status {
            InputStatus::Disconnected => NetInput::default(),
            _ => *input,
        })
        .collect()
}

impl<S: NonBlockingSocket<SocketAddr>> Drop for Online<S> {
    /// Says goodbye to the other side, so it ends at once with its line
    /// rather than after its silence timeout (a game closed, Ctrl+C, the
    /// end of its frames).
    fn drop(&mut self) {
        self.guard.say_goodbye();
    }
}

impl<G: Game, S: NonBlockingSocket<SocketAddr> + 'static> Driver<G> for Online<S> {
    fn tick(&mut self, engine: &mut Engine<G>, now: Instant) -> Tick {
        let sampler = self
            .sampler
            .get_or_insert_with(|| Sampler::new(engine.input_mut()));
        // What this machine's devices did (a window's keys) is this
        // peer's player's input, not the frame's.
        for event in engine.input_mut().take_queue() {
            sampler.push(event);
        }
        // What the other peer sends is untrusted: a packet GGRS cannot
        // take (it panics on some) ends the session, never the program.
        let session = &mut self.session;
        if crate::error::contain_panic(|| session.poll_remote_clients()).is_none() {
            self.end(UNREADABLE.into());
            return Tick::Declined;
        }
        self.events(engine);
        if self.finished {
            return Tick::Declined;
        }
        self.deadlines(now);
        if self.ended.is_some() {
            return Tick::Declined;
        }
        if self.next.is_some_and(|due| now < due) {
            return Tick::Declined;
        }
        self.next = Some(next_slot(self.next, now));
        if self.session.current_state() != SessionState::Running {
            return Tick::Declined;
        }
        if self.skip > 0 {
            // Ahead of the other peer: wait a frame for it (GGRS's time
            // sync), rather than predict further.
            self.skip -= 1;
            self.stats.waited += 1;
            return Tick::Declined;
        }
        let sampler = self.sampler.as_mut().expect("made above");
        if let Some(script) = &mut self.script {
            script.feed(engine.frame() + 1, engine.time(), sampler.frame_mut());
        }
        let mine = sampler.sample(self.options.local);
        if let Err(e) = self.session.add_local_input(self.options.local, mine) {
            self.end(format!("N3: {e}"));
            return Tick::Declined;
        }
        let session = &mut self.session;
        let Some(advanced) = crate::error::contain_panic(|| session.advance_frame()) else {
            self.end(UNREADABLE.into());
            return Tick::Declined;
        };
        let requests = match advanced {
            Ok(requests) => requests,
            Err(GgrsError::PredictionThreshold) => {
                self.stats.waited += 1;
                return Tick::Declined;
            }
            Err(e) => {
                self.end(format!("N3: {e}"));
                return Tick::Declined;
            }
        };
        let mut delivered = false;
        for request in requests {
            if self.ended.is_some() || self.finished {
                break;
            }
            match request {
                GgrsRequest::SaveGameState { cell, frame } => {
                    let checksum = self.save(engine, frame);
                    cell.save(frame, Some(()), checksum);
                }
                GgrsRequest::LoadGameState { frame, .. } => self.load(engine, frame),
                GgrsRequest::AdvanceFrame { inputs } => {
                    self.advance(engine, &inputs);
                    delivered = true;
                }
            }
        }
        let confirmed = (i64::from(self.session.confirmed_frame()) + 1).max(0) as u64;
        self.stats.confirmed = confirmed.min(engine.frame());
        {
            let mut heard = self.guard.heard();
            self.stats.compared = heard.compared(self.session.confirmed_frame());
            self.stats.dropped = heard.dropped();
        }
        self.played.retain(|(frame, _)| *frame > confirmed);
        let remote = 1 - self.options.local;
        if let Ok(network) = self.session.network_stats(remote) {
            self.stats.ping = network.ping;
        }
        if delivered {
            self.last_frame = Some(now);
            Tick::Delivered
        } else {
            Tick::Declined
        }
    }

    fn next_due(&self) -> Option<Instant> {
        self.next
    }

    fn status(&self) -> Vec<String> {
        let s = &self.stats;
        if !self.synchronized {
            return vec![format!(
                "online: player {}, waiting for {}",
                self.options.local + 1,
                self.options.remote
            )];
        }
        let watched = match (self.options.spectators.len(), self.watching) {
            (0, _) => String::new(),
            (_, 1) => ", 1 spectator".to_string(),
            (_, n) => format!(", {n} spectators"),
        };
        vec![
            format!(
                "online: player {} of 2, ping {} ms, confirmed frame {}{watched}",
                self.options.local + 1,
                s.ping,
                s.confirmed
            ),
            format!(
                "rollbacks {} ({} frames run again, {} at most), waited {} frames",
                s.rollbacks, s.resimulated, s.deepest, s.waited
            ),
            match self.apart {
                None => format!(
                    "hashes compared every {HASH_INTERVAL} frames: {} so far, all alike",
                    s.compared
                ),
                Some(frame) => format!(
                    "hashes compared every {HASH_INTERVAL} frames: {} so far, and frame \
                     {frame} came apart",
                    s.compared
                ),
            },
        ]
    }

    fn ended(&self) -> Option<String> {
        self.ended.clone()
    }

    fn confirmed(&self) -> Option<u64> {
        Some(self.stats.confirmed)
    }
}
