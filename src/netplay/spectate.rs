//! Watching an online game (rule N3): a spectator runs the whole game on
//! the inputs the host has confirmed, as the host sends them, a few
//! frames behind the players and never guessing, so it never goes back.
//! Its frames are the players' frames: the same state hashes, the same
//! sounds once each. A spectator that falls behind catches up by running
//! several frames a tick; the game needs nothing for it.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use ggrs::{GgrsError, GgrsEvent, GgrsRequest, NonBlockingSocket, SessionBuilder, SessionState};

use super::guard::Guarded;
use super::input::apply;
use super::online::{FPS, NetConfig, held};
use crate::engine::{Engine, Game, Tick};
use crate::session::Driver;
use crate::terminal::tell;

/// Frames a spectator may trail the host before it runs faster to catch up.
const MAX_BEHIND: usize = 10;

/// Frames a tick while catching up.
const CATCH_UP: usize = 4;

/// A spectator's session, driving its engine's frames.
pub struct Spectating<S: NonBlockingSocket<SocketAddr>> {
    session: ggrs::SpectatorSession<NetConfig>,
    /// The guard on the socket GGRS holds, kept to say goodbye.
    guard: Guarded<S>,
    host: SocketAddr,
    timeout: Duration,
    /// How long the host has to finish synchronizing, and the longest
    /// wait for a frame once watching (as [`super::Options`]'s).
    sync_wait: Duration,
    frame_wait: Duration,
    /// The last frame this run watches (`--frames`): the host leaving
    /// once it is played is the end, not a failure.
    until: Option<u64>,
    started: Option<Instant>,
    last_frame: Option<Instant>,
    next: Option<Instant>,
    synchronized: bool,
    finished: bool,
    /// Whether the host has gone: the frames its last inputs reach are
    /// still shown, then watching ends (they can come in with its
    /// goodbye).
    left: bool,
    ended: Option<String>,
}

impl<S: NonBlockingSocket<SocketAddr> + 'static> Spectating<S> {
    /// Watches the game the host at `host` plays, over `socket`; the host
    /// is gone after `timeout` of silence.
    ///
    /// # Errors
    /// GGRS refuses the settings.
    pub fn start(
        socket: S,
        host: SocketAddr,
        timeout: Duration,
    ) -> Result<Spectating<S>, super::Unlinked> {
        let refused = |source: GgrsError| super::Unlinked::Session {
            what: "watching",
            source,
        };
        let builder = SessionBuilder::<NetConfig>::new()
            .with_num_players(2)
            .map_err(refused)?
            .with_fps(FPS)
            .map_err(refused)?
            .with_disconnect_timeout(timeout)
            .with_disconnect_notify_delay(timeout / 3)
            .with_max_frames_behind(MAX_BEHIND)
            .map_err(refused)?
            .with_catchup_speed(CATCH_UP)
            .map_err(refused)?;
        let guard = Guarded::new(socket, host, Vec::new());
        let session = builder.start_spectator_session(host, guard.watch());
        Ok(Spectating {
            session,
            guard,
            host,
            timeout,
            sync_wait: Duration::from_secs(10),
            frame_wait: Duration::from_secs(10),
            until: None,
            started: None,
            last_frame: None,
            next: None,
            synchronized: false,
            finished: false,
            left: false,
            ended: None,
        })
    }

    /// Sets how long the host has to finish synchronizing and the longest
    /// wait for a frame (defaults: 10 s each), and the last frame watched.
    pub fn waits(mut self, sync_wait: Duration, frame_wait: Duration, until: Option<u64>) -> Self {
        self.sync_wait = sync_wait;
        self.frame_wait = frame_wait;
        self.until = until;
        self
    }

    /// Ends watching when the host has not synchronized by `sync_wait`,
    /// or no frame came for `frame_wait` once watching.
    fn deadlines(&mut self, now: Instant) {
        let seconds = |d: Duration| crate::terminal::Number(d.as_secs_f64());
        let started = *self.started.get_or_insert(now);
        if !self.synchronized && now.saturating_duration_since(started) >= self.sync_wait {
            self.end(format!(
                "N3: the host did not finish connecting in {} s; watching ends (--sync-wait \
                 sets how long)",
                seconds(self.sync_wait)
            ));
            return;
        }
        if self.session.current_state() != SessionState::Running {
            return;
        }
        let last = *self.last_frame.get_or_insert(now);
        if now.saturating_duration_since(last) >= self.frame_wait {
            self.end(format!(
                "N3: the host sent no frame to play for {} s; watching ends (--frame-wait sets \
                 how long)",
                seconds(self.frame_wait)
            ));
        }
    }

    fn end(&mut self, why: String) {
        if self.ended.is_none() {
            tell!("moonloop: {why}");
            self.ended = Some(why);
        }
    }

    /// Ends watching on the host leaving after `frame`.
    fn end_left(&mut self, frame: u64) {
        self.end(format!(
            "online: the host left at frame {frame} (its game closed, or the link was silent \
             for {} s); watching ends",
            self.timeout.as_secs_f64()
        ));
    }

    fn events(&mut self, frame: u64) {
        let events: Vec<GgrsEvent<NetConfig>> = self.session.events().collect();
        for event in events {
            match event {
                GgrsEvent::Synchronized { .. } => {
                    self.synchronized = true;
                    tell!("online: connected; watching");
                }
                GgrsEvent::Disconnected { .. } if self.until.is_some_and(|n| frame >= n) => {
                    self.finished = true;
                }
                GgrsEvent::Disconnected { .. } if self.synchronized => self.left = true,
                GgrsEvent::Disconnected { .. } => self.end_left(frame),
                GgrsEvent::NetworkInterrupted { .. } => {
                    tell!("online: the host is silent; waiting for it");
                }
                GgrsEvent::NetworkResumed { .. } => tell!("online: the host is back"),
                _ => {}
            }
        }
    }
}

impl<S: NonBlockingSocket<SocketAddr>> Drop for Spectating<S> {
    /// Says goodbye to the host, so it drops this spectator at once.
    fn drop(&mut self) {
        self.guard.say_goodbye();
    }
}

impl<G: Game, S: NonBlockingSocket<SocketAddr> + 'static> Driver<G> for Spectating<S> {
    fn tick(&mut self, engine: &mut Engine<G>, now: Instant) -> Tick {
        // The spectator's own keys play no part.
        drop(engine.input_mut().take_queue());
        let session = &mut self.session;
        if crate::error::contain_panic(|| session.poll_remote_clients()).is_none() {
            self.end(super::online::UNREADABLE.into());
            return Tick::Declined;
        }
        self.events(engine.frame());
        if self.finished {
            return Tick::Declined;
        }
        self.deadlines(now);
        if self.ended.is_some() || self.next.is_some_and(|due| now < due) {
            return Tick::Declined;
        }
        self.next = Some(super::online::next_slot(self.next, now));
        if self.session.current_state() != SessionState::Running {
            return Tick::Declined;
        }
        let session = &mut self.session;
        let Some(advanced) = crate::error::contain_panic(|| session.advance_frame()) else {
            self.end(super::online::UNREADABLE.into());
            return Tick::Declined;
        };
        let requests = match advanced {
            Ok(requests) => requests,
            // The host's inputs for the next frame are not here yet, and
            // never will be if it has left.
            Err(GgrsError::PredictionThreshold) => {
                if self.left && self.until.is_some_and(|n| engine.frame() >= n) {
                    self.finished = true;
                } else if self.left {
                    self.end_left(engine.frame());
                }
                return Tick::Declined;
            }
            Err(e) => {
                self.end(format!("N3: watching ends: {e}"));
                return Tick::Declined;
            }
        };
        let mut delivered = false;
        for request in requests {
            if let GgrsRequest::AdvanceFrame { inputs } = request {
                apply(engine.input_mut(), &held(&inputs));
                engine.deliver_frame(1.0 / FPS as f64);
                delivered = true;
            }
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
        if !self.synchronized {
            return vec![format!("online: watching, waiting for {}", self.host)];
        }
        let behind = self.session.frames_behind_host();
        let ping = self.session.network_stats().map_or(0, |n| n.ping);
        vec![format!(
            "online: watching {}, ping {ping} ms, {behind} frames behind the host",
            self.host
        )]
    }

    fn ended(&self) -> Option<String> {
        self.ended.clone()
    }

    fn confirmed(&self) -> Option<u64> {
        None
    }
}
