//! The session: the one place a game's frames are driven from, whoever
//! runs them (a window, a headless run, `--watch`, a soak, a test).
//!
//! It owns the engine and what lives around it (the reload watcher, the
//! sound player, the recording a headless run takes, the tally of
//! errors) and does a frame's work in one order, the SPEC's:
//!
//! 1. between frames, edits the watcher saw are reloaded (H8), and what
//!    the reload changed reaches everything that holds it: the sound
//!    bank forgets its sounds, the developer controls follow the config;
//! 2. the engine runs a tick (steps 1 to 7 and 11);
//! 3. after a delivered frame, the recording takes its picture (step 8,
//!    headless), the frame's cues play (H7, H13), the sound player says
//!    what went wrong with a stream, and every error is tallied once.
//!
//! A runner feeds it time and input and presents what a [`Turn`] hands
//! back (a picture to draw, lines to show, a request to close); it wires
//! nothing itself, so the runners cannot disagree about the order.

use std::time::Instant;

use crate::capture::Capture;
use crate::engine::{Engine, Game, Reloaded, Tick};
use crate::reload::Watcher;
use crate::sound::Player;
use crate::tally::ErrorTally;
use crate::terminal::tell;

/// What one turn of the session did, for its runner to present.
#[derive(Debug, Default)]
pub struct Turn {
    /// Whether a frame was delivered (the clock may decline).
    pub delivered: bool,
    /// What the reload before the frame changed, when files changed.
    pub reloaded: Option<Reloaded>,
    /// The last line of what went wrong this turn (a frame's error, a
    /// reload's, a sound's), for an overlay; `None` when all went well.
    pub trouble: Option<String>,
    /// Whether the game asked to end after this frame.
    pub quit: bool,
}

/// A game being run: its engine and everything around it.
pub struct Session<G> {
    engine: Engine<G>,
    watcher: Option<Watcher>,
    sound: Option<Player>,
    capture: Option<Capture>,
    /// The recording takes every this-many-th delivered frame.
    capture_every: u64,
    tally: ErrorTally,
    /// Asked after every delivered frame: an error of its own, tallied
    /// with the frame's (a replay's properties, X1).
    check: Option<Check<G>>,
    /// What runs the frames in place of the engine's clock, if anything.
    driver: Option<Box<dyn Driver<G>>>,
}

/// What a session asks after every delivered frame.
pub type Check<G> = Box<dyn FnMut(&Engine<G>) -> Option<crate::Error>>;

/// Something that decides, in place of the engine's clock, which frames
/// run and with what input (online play, N3): asked once a tick, it may
/// run none, one, or several (a rollback runs the past again), handing
/// the engine every frame's input itself.
pub trait Driver<G> {
    /// Runs what is due at `now`; says whether a frame was delivered.
    fn tick(&mut self, engine: &mut Engine<G>, now: Instant) -> Tick;

    /// Returns when the next tick is due.
    fn next_due(&self) -> Option<Instant>;

    /// Returns the lines an overlay shows of it.
    fn status(&self) -> Vec<String>;

    /// Says why the run is over, once it is (the other player left, the
    /// two came apart).
    fn ended(&self) -> Option<String>;

    /// Returns the last frame whose input is known for good, for a
    /// driver that runs frames on a guess. Default: every frame run.
    fn confirmed(&self) -> Option<u64> {
        None
    }
}

impl<G: Game> Session<G> {
    /// A session around `engine`, with nothing around it yet.
    pub fn new(engine: Engine<G>) -> Session<G> {
        Session {
            engine,
            watcher: None,
            sound: None,
            capture: None,
            capture_every: 1,
            tally: ErrorTally::default(),
            check: None,
            driver: None,
        }
    }

    /// Lets `driver` run the frames in place of the engine's clock.
    pub fn drive(mut self, driver: Option<Box<dyn Driver<G>>>) -> Self {
        self.driver = driver;
        self
    }

    /// Returns when the next frame is due: the driver's time, or the
    /// engine's clock's.
    pub fn next_due(&self) -> Option<Instant> {
        match &self.driver {
            Some(driver) => driver.next_due(),
            None => self.engine.next_due(),
        }
    }

    /// Says whether frames come in real time (a driver's always do).
    pub fn is_real_time(&self) -> bool {
        self.driver.is_some() || self.engine.is_real_time()
    }

    /// Returns the driver's overlay lines (none without one).
    pub fn driver_status(&self) -> Vec<String> {
        self.driver.as_ref().map(|d| d.status()).unwrap_or_default()
    }

    /// Says that time controls (pausing, stepping, rewinding) are off:
    /// a driver keeps time.
    pub fn is_driven(&self) -> bool {
        self.driver.is_some()
    }

    /// Reloads the game when `watcher` sees its files change.
    pub fn watch(mut self, watcher: Option<Watcher>) -> Self {
        self.watcher = watcher;
        self
    }

    /// Plays the frames' cues through `player` (a device or a file).
    pub fn sound(mut self, player: Option<Player>) -> Self {
        self.sound = player;
        self
    }

    /// Records every delivered frame with `capture` (headless, step 8).
    pub fn capture(mut self, capture: Option<Capture>) -> Self {
        self.capture = capture;
        self
    }

    /// Asks `check` after every delivered frame; what it says is one of
    /// the frame's errors.
    pub fn check(mut self, check: Option<Check<G>>) -> Self {
        self.check = check;
        self
    }

    /// Records only every `n`th delivered frame (a soak's sample).
    pub fn capture_every(mut self, n: u64) -> Self {
        self.capture_every = n.max(1);
        self
    }

    /// Returns the engine.
    pub fn engine(&self) -> &Engine<G> {
        &self.engine
    }

    /// Returns the engine, to feed it input or drive its controls.
    pub fn engine_mut(&mut self) -> &mut Engine<G> {
        &mut self.engine
    }

    /// Says whether files are watched.
    pub fn is_watching(&self) -> bool {
        self.watcher.is_some()
    }

    /// Returns the sound player, if there is one.
    pub fn player(&self) -> Option<&Player> {
        self.sound.as_ref()
    }

    /// Returns the errors tallied so far.
    pub fn tally(&self) -> &ErrorTally {
        &self.tally
    }

    /// Step 1 between frames: reloads the edits the watcher has seen, if
    /// any, without waiting. Returns what the reload changed.
    pub fn look_for_edits(&mut self) -> Option<Result<Reloaded, String>> {
        let changes = self.watcher.as_mut()?.poll()?;
        Some(self.reload(&changes))
    }

    /// Waits until `due` for edits, reloading each as it comes, so an edit
    /// is live by the frame after it; asks the watcher once even when
    /// `due` has passed (a game whose every update runs out its budget is
    /// late every time, and an edit is the fix).
    pub fn wait_for_edits(&mut self, due: Instant) -> Option<Result<Reloaded, String>> {
        let mut last = self.look_for_edits();
        loop {
            let now = Instant::now();
            if now >= due {
                return last;
            }
            match self.watcher.as_mut() {
                None => {
                    std::thread::sleep(due - now);
                    return last;
                }
                Some(watcher) => {
                    if let Some(changes) = watcher.wait(due - now) {
                        last = Some(self.reload(&changes));
                    }
                }
            }
        }
    }

    /// Reloads after `changes`, saying what happened on stderr, and lets
    /// everything that holds what the game loaded follow: the sound bank
    /// forgets its sounds (a removed or edited file, a new
    /// `config.sounds`).
    ///
    /// # Errors
    /// The new code does not load: the line saying why (the old code runs
    /// on).
    pub fn reload(&mut self, changes: &[std::path::PathBuf]) -> Result<Reloaded, String> {
        match self.engine.reload(changes) {
            Ok(reloaded) => {
                if !reloaded.modules.is_empty() {
                    tell!("reloaded {}", reloaded.modules.join(", "));
                }
                if let Some(player) = &mut self.sound {
                    player.forget(self.engine.config().sounds.clone());
                }
                Ok(reloaded)
            }
            Err(err) => {
                let line = crate::terminal::line(&err.chain());
                tell!("reload failed, the old code runs on: {line}");
                Err(line)
            }
        }
    }

    /// One tick at `now` (steps 1 to 11): the engine's frame, then what a
    /// delivered frame leaves to the session. With `step`, a paused game
    /// runs one frame by hand (F6).
    pub fn tick(&mut self, now: Instant, step: bool) -> Turn {
        let tick = match &mut self.driver {
            Some(driver) => driver.tick(&mut self.engine, now),
            None if step => self.engine.step(now),
            None => self.engine.tick(now),
        };
        let mut turn = Turn {
            delivered: tick == Tick::Delivered,
            ..Turn::default()
        };
        if turn.delivered {
            self.after_delivered(&mut turn);
        }
        turn
    }

    /// What a delivered frame leaves: the recording takes its picture,
    /// its cues play, and every error is tallied once.
    fn after_delivered(&mut self, turn: &mut Turn) {
        let frame = self.engine.frame();
        let mut faults: Vec<crate::Error> = Vec::new();
        if let Some(capture) = &mut self.capture
            && frame.is_multiple_of(self.capture_every)
            && let Some(fault) = capture.take(&mut self.engine)
        {
            faults.push(fault);
        }
        match &mut self.sound {
            Some(player) => {
                self.engine.play_cues(|cue, assets| {
                    if let Some(line) = player.play(cue, assets) {
                        faults.push(crate::Error::Asset(line));
                    }
                });
                if let Err(why) = player.render_to(self.engine.time()) {
                    faults.push(crate::Error::Asset(why));
                }
                faults.extend(player.faults().into_iter().map(crate::Error::Asset));
            }
            // Nothing to play them on: a long run must not keep them all.
            None => self.engine.cues_mut().drain().for_each(drop),
        }
        if let Some(check) = &mut self.check
            && let Some(err) = check(&self.engine)
        {
            faults.push(err);
        }
        for err in self.engine.frame_errors().iter().chain(&faults) {
            turn.trouble = Some(self.tally.report(frame, err));
        }
        turn.quit = self.engine.game().wants_to_quit();
    }

    /// Says why the driver ended the run, once it has.
    pub fn ended(&self) -> Option<String> {
        self.driver.as_ref().and_then(|d| d.ended())
    }

    /// Returns the last frame whose input is known for good: the driver's
    /// word, or the present.
    pub fn confirmed(&self) -> u64 {
        self.driver
            .as_ref()
            .and_then(|d| d.confirmed())
            .unwrap_or_else(|| self.engine.frame())
    }

    /// Tallies an error the runner met presenting the frame (a picture
    /// the GPU refused); returns its line.
    pub fn report(&mut self, err: &crate::Error) -> String {
        self.tally.report(self.engine.frame(), err)
    }

    /// Ends the session: the recording and the sound file are finished
    /// (each says where it went), and the engine and the tally are handed
    /// back.
    ///
    /// # Errors
    /// The recording or the sound file could not be finished.
    pub fn finish(self) -> crate::Result<(Engine<G>, ErrorTally)> {
        if let Some(mut player) = self.sound
            && let Some((path, seconds)) = player.finish().map_err(crate::Error::Usage)?
        {
            tell!("rendered {seconds:.2} s of sound to {}", path.display());
        }
        if let Some(capture) = self.capture {
            let summary = capture.recorder.finish()?;
            tell!(
                "recorded {} frames to {}",
                summary.frames,
                summary.path.display()
            );
        }
        Ok((self.engine, self.tally))
    }
}
