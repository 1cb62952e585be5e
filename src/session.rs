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
    /// Whether cues with nothing to play them stay in the engine's log
    /// for the caller to read (a test's `e.cues`), rather than let go.
    keep_cues: bool,
    /// Whether a reload that worked goes unsaid (a benchmark's own edits).
    quiet: bool,
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
            keep_cues: false,
            quiet: false,
        }
    }

    /// Says nothing of the reloads that work: for a benchmark that edits
    /// its own game twenty times. A reload that fails is still said.
    pub fn quiet(mut self) -> Self {
        self.quiet = true;
        self
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

    /// Keeps the cues of frames in the engine's log for a test or a
    /// scenario to read, and looks each up as a run does, on a player
    /// with no output: a cue with no sound is the frame's error (H7).
    pub fn look_up_cues(self) -> Self {
        let bank = crate::sound::Bank::new(self.engine.config().sounds.clone());
        self.keep_cues().sound(Some(Player::open("off", bank)))
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

    /// Leaves the cues of frames in the engine's log when there is no
    /// player, for a test or a scenario to read.
    pub fn keep_cues(mut self) -> Self {
        self.keep_cues = true;
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

    /// Takes the recording away, to finish it before the session ends
    /// (a test's `e:finish()`).
    pub fn take_capture(&mut self) -> Option<Capture> {
        self.capture.take()
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
    pub fn look_for_edits(&mut self) -> Option<crate::Result<Reloaded>> {
        let changes = self.watcher.as_mut()?.poll()?;
        Some(self.reload(&changes))
    }

    /// Waits until `due` for edits, reloading each as it comes, so an edit
    /// is live by the frame after it; asks the watcher once even when
    /// `due` has passed (a game whose every update runs out its budget is
    /// late every time, and an edit is the fix).
    pub fn wait_for_edits(&mut self, due: Instant) -> Option<crate::Result<Reloaded>> {
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
    /// The new code does not load: why, already said (the old code runs
    /// on).
    pub fn reload(&mut self, changes: &[std::path::PathBuf]) -> crate::Result<Reloaded> {
        match self.engine.reload(changes) {
            Ok(reloaded) => {
                // What loaded again, code and assets alike, as the person
                // saved it.
                let names: Vec<&str> = reloaded
                    .modules
                    .iter()
                    .chain(&reloaded.refreshed)
                    .map(String::as_str)
                    .collect();
                if !names.is_empty() && !self.quiet {
                    tell!("reloaded {}", names.join(", "));
                }
                if let Some(player) = &mut self.sound {
                    player.forget(self.engine.config().sounds.clone());
                }
                Ok(reloaded)
            }
            Err(err) => {
                let line = crate::terminal::line(&err.chain());
                tell!("reload failed, the old code runs on: {line}");
                Err(err)
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

    /// Runs `ticks` ticks at the clock's own time, as a test or a tool
    /// steps a game (S4): each delivered frame is followed as a turn's is
    /// (recorded, its cues played or kept, checked), but what went wrong
    /// is handed back instead of tallied, and the first error stops the
    /// run there.
    ///
    /// # Errors
    /// The first error of a frame: the game's, then the recording's, a
    /// sound's or the check's.
    pub fn advance(&mut self, ticks: u64) -> crate::Result {
        for _ in 0..ticks {
            let now = self.engine.now();
            let tick = match &mut self.driver {
                Some(driver) => driver.tick(&mut self.engine, now),
                None => self.engine.tick(now),
            };
            let faults = if tick == Tick::Delivered {
                self.follow()
            } else {
                Vec::new()
            };
            if let Some(err) = self.engine.take_frame_error() {
                return Err(err);
            }
            if let Some(fault) = faults.into_iter().next() {
                return Err(fault);
            }
        }
        Ok(())
    }

    /// What a delivered frame leaves: the recording takes its picture,
    /// its cues play, and every error is tallied once.
    fn after_delivered(&mut self, turn: &mut Turn) {
        let frame = self.engine.frame();
        let faults = self.follow();
        for err in self.engine.frame_errors().iter().chain(&faults) {
            turn.trouble = Some(self.tally.report(frame, err));
        }
        turn.quit = self.engine.game().wants_to_quit();
    }

    /// Follows a delivered frame: the recording takes its picture, its
    /// cues play (or are kept, or let go), and the check is asked;
    /// returns what went wrong on the way, beside the frame's own errors.
    fn follow(&mut self) -> Vec<crate::Error> {
        let frame = self.engine.frame();
        let mut faults: Vec<crate::Error> = Vec::new();
        if let Some(capture) = &mut self.capture
            && frame.is_multiple_of(self.capture_every)
            && let Some(fault) = capture.take(&mut self.engine)
        {
            faults.push(fault);
        }
        match &mut self.sound {
            // A test reads the cues, so they stay; each is looked up all
            // the same, and one with no sound fails the test (H7).
            Some(player) if self.keep_cues => {
                let (cues, assets) = self.engine.cues_and_assets();
                let cues = cues.cues();
                let first = cues.partition_point(|cue| cue.frame < frame);
                for cue in &cues[first..] {
                    if let Some(line) = player.play(cue, assets) {
                        faults.push(crate::Error::asset(line));
                    }
                }
            }
            Some(player) => {
                let (cues, assets) = self.engine.cues_and_assets();
                for cue in cues.drain() {
                    if let Some(line) = player.play(&cue, assets) {
                        faults.push(crate::Error::asset(line));
                    }
                }
                if let Err(refused) = player.render_to(self.engine.time()) {
                    faults.push(refused.into());
                }
                faults.extend(player.faults().into_iter().map(crate::Error::asset));
            }
            // A test reads them; its log is bounded (H10).
            None if self.keep_cues => {}
            // Nothing to play them on: a long run must not keep them all.
            None => self.engine.cues_mut().drain().for_each(drop),
        }
        if let Some(check) = &mut self.check
            && let Some(err) = check(&self.engine)
        {
            faults.push(err);
        }
        faults
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
            && let Some((path, seconds)) = player.finish()?
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

#[cfg(test)]
mod tests {
    //! The session stepped from Rust: what `advance` (the way tests and
    //! tools step a game) hands back, keeps and lets go.

    use super::*;
    use crate::clock::ConstantClock;
    use crate::engine::{RenderCtx, UpdateCtx};

    /// A game that cues every frame and fails on one.
    #[derive(Default)]
    struct Probe {
        fail_on: Option<u64>,
    }

    impl Game for Probe {
        fn update(&mut self, ctx: UpdateCtx<'_>, _dt: f64) -> crate::Result {
            if self.fail_on == Some(ctx.frame) {
                return Err(crate::Error::script("boom"));
            }
            ctx.cues.play(ctx.frame, "tick", 1.0, 1.0, 0.0).unwrap();
            Ok(())
        }

        fn render(&mut self, _ctx: RenderCtx<'_>) -> crate::Result {
            Ok(())
        }
    }

    impl crate::engine::Past for Probe {}

    impl crate::engine::Reload for Probe {}

    fn session(fail_on: Option<u64>) -> Session<Probe> {
        let engine = Engine::new(Probe { fail_on }, Box::new(ConstantClock::new(0.1)));
        Session::new(engine)
    }

    #[test]
    fn advance_stops_at_the_first_error_and_hands_it_back_untallied() {
        let mut session = session(Some(2));
        let err = session.advance(5).unwrap_err();
        assert_eq!(err.to_string(), "boom");
        assert_eq!(session.engine().frame(), 2, "stopped at the failing frame");
        assert!(session.tally().is_empty(), "handed back, not tallied");
        session.advance(2).unwrap();
        assert_eq!(session.engine().frame(), 4, "later frames run on");
    }

    #[test]
    fn cues_with_nothing_to_play_them_are_let_go_unless_kept() {
        let mut dropped = session(None);
        dropped.advance(4).unwrap();
        assert!(dropped.engine().cues().cues().is_empty());
        let mut kept = session(None).keep_cues();
        kept.advance(4).unwrap();
        let frames: Vec<u64> = kept
            .engine()
            .cues()
            .cues()
            .iter()
            .map(|c| c.frame)
            .collect();
        assert_eq!(frames, [1, 2, 3, 4], "a test reads every frame's cue");
    }

    #[test]
    fn the_check_is_asked_after_every_advanced_frame_and_its_error_stops_it() {
        let check: Check<Probe> =
            Box::new(|engine| (engine.frame() == 3).then(|| crate::Error::script("the check")));
        let mut session = session(None).check(Some(check));
        let err = session.advance(10).unwrap_err();
        assert_eq!(
            (err.to_string(), session.engine().frame()),
            ("the check".into(), 3)
        );
    }

    #[test]
    fn a_tick_tallies_what_advance_hands_back() {
        let mut session = session(Some(1));
        let turn = session.tick(Instant::now(), false);
        assert_eq!(turn.trouble.as_deref(), Some("boom"));
        assert!(!session.tally().is_empty());
    }
}
