//! A session played live by a person: what a window does with their keys,
//! pointer, focus and time (the developer keys, F9's pace, the timeline,
//! F12, seeking, when to wake), with no window in it, so a test drives it
//! with a scripted clock and made-up events exactly as a window would
//! (rules H1, H5, R2-R4). The window (window/mod.rs) only turns winit's
//! events into these calls and presents what a frame drew; what needs
//! the window or the GPU comes back as a [`Request`].

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::compositor::Compositor;
use crate::devkeys::{Act, DevControls, DevKey};
use crate::engine::{Engine, Game};
use crate::input::{InputEvent, Key};
use crate::overlay::{Stats, Timeline};
use crate::report::Origin;
use crate::session::Session;
use crate::terminal::tell;

mod past;

use past::Past;
pub use past::{PAST_LIMIT, Seek};

/// How long a paused, watched game sleeps between looks for edits.
const PAUSED_WATCH: Duration = Duration::from_millis(50);

/// What a person's input asks of the window, which only it can do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Request {
    /// Go in or out of fullscreen (F11, the player's key).
    Fullscreen,
    /// Save a screenshot (F2).
    Screenshot,
    /// Start or stop recording (F3).
    ToggleRecording,
    /// Write a bug report (Shift+F2): the window calls [`Live::report`]
    /// with its compositor.
    Report,
}

/// What one frame of a live session did, for the window to present.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Shown {
    /// A frame ran (the clock may decline, a paused game runs none).
    pub delivered: bool,
    /// F9 went back through history this frame: the frame shown is a
    /// past one, which a recording takes.
    pub rewound: bool,
    /// The run is over: the game quit, or `--frames` were played.
    pub close: bool,
}

/// When the window should next draw and wake.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Wake {
    /// Draw a frame now.
    pub redraw: bool,
    /// Wake by then; `None` waits for an event (a paused game).
    pub until: Option<Instant>,
}

/// A session and the developer's hands on it.
pub struct Live<G> {
    session: Session<G>,
    dev: DevControls,
    started: Instant,
    next_tick: Instant,
    tick_interval: Duration,
    /// F6 asked for one frame.
    step: bool,
    /// The hands on history: F9's pace, F12, Shift+F9.
    past: Past<G>,
    /// The timeline is being dragged.
    scrubbing: bool,
    /// A Shift key is held.
    shift: bool,
    /// Shift+F1 shows the physics view (P9).
    colliders: bool,
    /// The last error, for the overlay.
    last_error: Option<String>,
    /// Close after this many delivered frames.
    frames: Option<u64>,
    start_frame: u64,
    /// What the run started from, for a bug report.
    origin: Origin,
    reports: u32,
    /// Something changed that the window should draw.
    redraw: bool,
}

impl<G: Game> Live<G> {
    /// Puts `session` in a person's hands at `now`: running, the overlay
    /// hidden, the developer keys as its config says.
    pub fn new(session: Session<G>, now: Instant) -> Live<G> {
        let dev = DevControls::new(session.engine().config().dev_controls);
        let start_frame = session.engine().frame();
        Live {
            session,
            dev,
            started: now,
            next_tick: now,
            tick_interval: crate::headless::WALL_TICK,
            step: false,
            past: Past::default(),
            scrubbing: false,
            shift: false,
            colliders: false,
            last_error: None,
            frames: None,
            start_frame,
            origin: Origin::default(),
            reports: 0,
            redraw: true,
        }
    }

    /// Starts paused, as F5 would (a replay opened at a frame).
    pub fn paused(mut self, paused: bool) -> Self {
        if paused {
            self.dev.start_paused();
            self.session.engine_mut().pause();
        }
        self
    }

    /// Ends the run after `frames` delivered frames.
    pub fn close_after(mut self, frames: Option<u64>) -> Self {
        self.frames = frames;
        self
    }

    /// Lets Shift+F9 seek the frames where `seek` holds; `when` is the
    /// expression as the person typed it.
    pub fn seek(mut self, seek: Option<(Seek<G>, String)>) -> Self {
        self.past.set_seek(seek);
        self
    }

    /// Records what the run started from, for a bug report.
    pub fn origin(mut self, origin: Origin) -> Self {
        self.origin = origin;
        self
    }

    /// Sets the pace a wall clock is ticked at (the monitor's rate).
    pub fn set_tick_interval(&mut self, interval: Duration) {
        self.tick_interval = interval;
    }

    /// Returns when the live session began.
    pub fn started(&self) -> Instant {
        self.started
    }

    /// Returns the pace a wall clock is ticked at.
    pub fn tick_interval(&self) -> Duration {
        self.tick_interval
    }

    /// Returns the session.
    pub fn session(&self) -> &Session<G> {
        &self.session
    }

    /// Returns the session, to feed its engine.
    pub fn session_mut(&mut self) -> &mut Session<G> {
        &mut self.session
    }

    /// Returns the engine.
    pub fn engine(&self) -> &Engine<G> {
        self.session.engine()
    }

    /// Returns the developer controls' state (the overlay's corner).
    pub fn dev(&self) -> &DevControls {
        &self.dev
    }

    /// Returns the last error, for the overlay.
    pub fn last_error(&self) -> Option<&str> {
        self.last_error.as_deref()
    }

    /// Returns the first frame the last run of the past changed.
    pub fn changed_at(&self) -> Option<u64> {
        self.past.changed_at()
    }

    /// Ends the live session, handing the session back.
    pub fn finish(self) -> Session<G> {
        self.session
    }

    /// Takes a key going down (`pressed`) or up; `repeat` for the
    /// keyboard's own repeats. F11 is the player's; Shift+F1 shows the
    /// physics view, Shift+F2 writes a report and Shift+F9 seeks; the other F-keys are the developer's
    /// when the config allows; every other key is the game's.
    pub fn key(&mut self, key: Key, pressed: bool, repeat: bool) -> Option<Request> {
        let first_press = pressed && !repeat;
        match key.name() {
            "f11" => return first_press.then_some(Request::Fullscreen),
            "f2" if self.shift && self.dev.enabled => {
                return first_press.then_some(Request::Report);
            }
            "f1" if self.shift && self.dev.enabled => {
                if first_press {
                    self.colliders = !self.colliders;
                    self.redraw = true;
                }
                return None;
            }
            "f9" if self.shift
                && self.dev.enabled
                && !self.dev.rewinding
                && !self.session.is_driven() =>
            {
                if first_press {
                    let (found, trouble) = self.past.seek_next(self.session.engine_mut());
                    self.trouble(trouble);
                    if found {
                        let act = self.dev.pause();
                        self.apply(act);
                    }
                    self.redraw = true;
                }
                return None;
            }
            _ => {}
        }
        if let Some(dev) = DevKey::of(key)
            && self.dev.enabled
        {
            // Online, the driver keeps time: the keys that pause, step or
            // go back would leave the other player behind.
            if self.session.is_driven() && dev.moves_time() {
                if first_press {
                    self.last_error =
                        Some("online play keeps its own time: F5 to F12 are off".into());
                }
                return None;
            }
            let mut request = None;
            if first_press && let Some(act) = self.dev.key(dev) {
                request = self.apply(act);
            }
            if !pressed && let Some(act) = self.dev.release(dev) {
                request = self.apply(act);
            }
            return request;
        }
        if !repeat {
            let event = if pressed {
                InputEvent::Press(key)
            } else {
                InputEvent::Release(key)
            };
            self.session.engine_mut().input_mut().push(event);
        }
        None
    }

    /// Whether the physics view shows (Shift+F1, P9): the outlines of the
    /// bodies of the worlds in the state, over the game.
    pub fn colliders_shown(&self) -> bool {
        self.colliders
    }

    /// Takes the state of the Shift keys.
    pub fn shift(&mut self, held: bool) {
        self.shift = held;
    }

    /// Takes the window gaining or losing focus: a game that pauses on
    /// blur pauses, and resumes with a first delta of 0 (K1).
    pub fn focus(&mut self, focused: bool) {
        if self.session.is_driven() {
            // Online, the game goes on whoever has the focus.
            return;
        }
        let act = self
            .dev
            .focus(focused, self.session.engine().config().pause_on_blur);
        self.apply(act);
    }

    /// Takes the window's new size in device pixels.
    pub fn resize(&mut self, width: u32, height: u32) {
        self.session.engine_mut().set_surface(width, height);
        self.redraw = true;
    }

    /// Takes input for the game: typed text, the wheel, a pad, the
    /// pointer leaving.
    pub fn input(&mut self, event: InputEvent) {
        self.session.engine_mut().input_mut().push(event);
    }

    /// Takes typed text for the next frame's `input:text()`.
    pub fn text(&mut self, text: &str) {
        for piece in crate::input::TextPiece::split(text) {
            self.input(InputEvent::Text(piece));
        }
    }

    /// Takes the pointer at `(x, y)` in device pixels; `timeline` is the
    /// frame of the overlay's timeline under it, if it is over it. While
    /// the timeline is dragged the pointer scrubs; otherwise the game
    /// sees it in logical coordinates, or leaving over a letterbox bar.
    pub fn pointer(&mut self, (x, y): (f64, f64), timeline: Option<u64>) {
        if self.scrubbing {
            if let Some(frame) = timeline {
                let trouble = Past::<G>::show(self.session.engine_mut(), frame);
                self.trouble(trouble);
                self.redraw = true;
            }
            return;
        }
        let event = match self.session.engine().viewport().to_logical((x, y)) {
            Some((x, y)) => InputEvent::Move(x, y),
            None => InputEvent::Leave,
        };
        self.input(event);
    }

    /// Takes a mouse button (`mouse_left`, ...) going down or up, with
    /// the timeline's frame under the pointer, if any. The left button on
    /// the timeline pauses and shows that frame, dragging scrubs, and
    /// letting go plays on from there unless F5 paused it (R2); any other
    /// press is the game's.
    pub fn button(&mut self, button: Key, pressed: bool, timeline: Option<u64>) {
        if button.name() == "mouse_left" {
            if pressed && let Some(frame) = timeline {
                self.scrubbing = true;
                let engine = self.session.engine_mut();
                engine.pause();
                let trouble = Past::<G>::show(engine, frame);
                self.trouble(trouble);
                self.redraw = true;
                return;
            }
            if !pressed && std::mem::take(&mut self.scrubbing) {
                if !self.dev.paused() {
                    self.session.engine_mut().resume();
                }
                return;
            }
        }
        let event = if pressed {
            InputEvent::Press(button)
        } else {
            InputEvent::Release(button)
        };
        self.input(event);
    }

    /// Between frames at `now`: reloads what was edited (the developer
    /// keys follow the config, as all else does), and says whether to
    /// draw and when to wake. A paused game waits for an event (or, when
    /// watched, looks for edits 20 times a second): it has nothing to
    /// draw until one comes.
    pub fn wake(&mut self, now: Instant) -> Wake {
        let mut redraw = std::mem::take(&mut self.redraw);
        if let Some(reloaded) = self.session.look_for_edits() {
            match reloaded {
                Ok(_) => self.dev.enabled = self.session.engine().config().dev_controls,
                Err(err) => self.last_error = Some(crate::terminal::line(&err.chain())),
            }
            redraw = true;
        }
        let watching = self.session.is_watching();
        if self.session.engine().is_paused() && !self.step && !self.dev.rewinding {
            let until = watching.then(|| now + PAUSED_WATCH);
            return Wake { redraw, until };
        }
        let due = self.session.next_due().unwrap_or(self.next_tick);
        if now >= due || self.step {
            self.next_tick = (self.next_tick + self.tick_interval).max(now);
            redraw = true;
        }
        let wake = self
            .session
            .next_due()
            .unwrap_or(self.next_tick)
            .max(now + Duration::from_micros(500));
        // Wake early enough to reload an edit promptly, and to see a
        // Ctrl+C.
        let soon = if watching {
            Duration::from_millis(4)
        } else {
            Duration::from_millis(100)
        };
        Wake {
            redraw,
            until: Some(wake.min(now + soon)),
        }
    }

    /// Runs the frame due at `now`: while F9 is held, history goes back
    /// at 60 frames a second of wall time; then the session ticks (one
    /// frame by hand after F6).
    pub fn frame(&mut self, now: Instant) -> Shown {
        let engine = self.session.engine_mut();
        let (rewound, trouble) = self.past.rewind(engine, self.dev.rewinding, now);
        self.trouble(trouble);
        let turn = self.session.tick(now, std::mem::take(&mut self.step));
        if turn.delivered {
            // A frame that ran cleanly clears the overlay's last error.
            self.last_error = turn.trouble;
        }
        // Online, a frame counts once both players' input for it is known.
        let played = self.session.confirmed().saturating_sub(self.start_frame);
        Shown {
            delivered: turn.delivered,
            rewound,
            close: turn.quit
                || self.frames.is_some_and(|n| played >= n)
                || self.session.ended().is_some(),
        }
    }

    /// Tallies an error met presenting the frame (a picture the GPU
    /// refused) and shows it on the overlay.
    pub fn fault(&mut self, err: &crate::Error) {
        self.last_error = Some(self.session.report(err));
    }

    /// Returns what the overlay shows of the frame at `now` that took
    /// `frame_secs` to run and draw: `recording` is the window's, `sound`
    /// asks whether the overlay shows the sound line.
    pub fn stats(&self, now: Instant, frame_secs: f64, recording: Option<(String, u64)>) -> Stats {
        let engine = self.session.engine();
        Stats {
            frame_secs,
            dt: engine.last_dt(),
            frame: engine.frame(),
            simulated: engine.time(),
            wall: (now - self.started).as_secs_f64(),
            recording,
            speed: self.dev.status(),
            sound: self.dev.overlay.then(|| {
                self.session
                    .player()
                    .map(crate::sound::Player::status)
                    .unwrap_or_default()
            }),
            error: engine
                .reload_error()
                .map(str::to_string)
                .or_else(|| self.last_error.clone()),
            timeline: engine
                .history()
                .filter(|_| !self.session.is_driven())
                .map(|h| Timeline {
                    first: *h.frames().start(),
                    last: h.last(),
                    shown: engine.frame(),
                    changed: self.past.changed_at(),
                }),
            net: self.session.driver_status(),
        }
    }

    /// Writes a bug report folder in `into` (Shift+F2): the replay of the
    /// session, its files' hashes and a GIF around the frame shown, which
    /// `compositor` draws. Says where it went, or why there is none.
    pub fn report(&mut self, compositor: &mut Compositor, into: &Path) -> Option<PathBuf> {
        self.reports += 1;
        let dir = into.join(format!(
            "moonloop-report-{}-{}",
            self.started.elapsed().as_secs(),
            self.reports
        ));
        tell!("writing a bug report to {}", dir.display());
        match crate::report::write(self.session.engine_mut(), compositor, &dir, &self.origin) {
            Ok(w) => {
                tell!(
                    "wrote {}: {} frames of replay, {} of GIF (open it with moonloop run GAME --replay {}/replay.txt --until N)",
                    w.dir.display(),
                    w.frames,
                    w.gif_frames,
                    w.dir.display()
                );
                Some(w.dir)
            }
            Err(err) => {
                let line = crate::terminal::line(&err.chain());
                tell!("moonloop: no bug report: {line}");
                self.last_error = Some(line);
                None
            }
        }
    }

    /// Does what a developer key asked; hands back what only the window
    /// can do.
    fn apply(&mut self, act: Act) -> Option<Request> {
        self.redraw = true;
        let engine = self.session.engine_mut();
        match act {
            Act::Redraw => {}
            Act::Screenshot => return Some(Request::Screenshot),
            Act::ToggleRecording => return Some(Request::ToggleRecording),
            Act::Pause | Act::Rewind(true) => engine.pause(),
            Act::Resume => engine.resume(),
            Act::Rewind(false) => {
                if !self.dev.paused() {
                    engine.resume();
                }
            }
            Act::Step => {
                // Back in history, F6 steps forward through what was
                // recorded, keeping the future; past its end, it runs a
                // new frame live.
                let (stepped, trouble) = Past::<G>::forward(engine);
                self.step = !stepped;
                self.trouble(trouble);
            }
            Act::Scale(scale) => engine.set_time_scale(scale),
            Act::StepBack => {
                let trouble = Past::<G>::back(engine, 1);
                self.trouble(trouble);
            }
            Act::RunAgain => {
                let trouble = self.past.run_again(engine);
                self.trouble(trouble);
            }
        }
        None
    }

    /// Shows `trouble`, a line saying what went wrong, on the overlay.
    fn trouble(&mut self, trouble: Option<String>) {
        if trouble.is_some() {
            self.last_error = trouble;
        }
    }
}
