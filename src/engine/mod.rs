//! Engine: one frame in the order SPEC.md gives, driven by a clock.
//!
//! The engine knows nothing of Luau. A [`Game`] supplies `update` and
//! `render`; the engine owns the clock, the frame counter, simulated time,
//! the input frame and the cue log, and can be stepped from a Rust test with
//! no window, no GPU and no script.

use std::cell::Cell;
use std::path::PathBuf;
use std::time::Instant;

use crate::assets::Store;
use crate::clock::Clock;
use crate::color::Rgba;
use crate::config::{Config, Scaling};
use crate::cues::CueLog;
use crate::error::{Error, Result};
use crate::history::History;
use crate::input::{InputFrame, Script};
use crate::replay::ReplayWriter;
use crate::scene::Scene;
use crate::screen::Screen;
use crate::viewport::Viewport;

mod frame;
mod game;
mod hashes;
mod looking;
mod recorded;
mod rewind;
mod snapshot;
mod synctest;

use frame::Source;
use game::PickFrom;
pub use game::{Game, Past, Pick, Reload, Reloaded, RenderCtx, Tick, UpdateCtx};

pub use snapshot::Snapshot;
pub use synctest::{DEPTH as SYNCTEST_DEPTH, MAX_DEPTH as SYNCTEST_MAX_DEPTH};

/// The frame loop's state: a game, its clock, and what the frames left.
pub struct Engine<G> {
    clock: Box<dyn Clock>,
    game: G,
    frame: u64,
    time: f64,
    last_dt: f64,
    input: InputFrame,
    cues: CueLog,
    script: Option<Script>,
    /// The replay written, and the one checked against (H11).
    logs: hashes::Logs,
    paused: bool,
    errors: Vec<Error>,
    screen: Screen,
    scene: Scene,
    assets: Store,
    /// The surface's size in device pixels, as the window last set it.
    surface: (u32, u32),
    viewport: Viewport,
    /// The player's choice of scaling (`--scaling`), over the game's (V1).
    scaling: Option<Scaling>,
    reload_error: Option<String>,
    time_scale: f64,
    /// Every frame of the session, when kept (R1).
    history: Option<History>,
    /// Whether this frame's `update` asked what is under the pointer.
    asked: Cell<bool>,
    /// The stretch of history last rebuilt, held whole to walk through.
    shown: Vec<recorded::Moment>,
    /// Where frames run again play their cues: nowhere.
    quiet: CueLog,
    /// When the last keyframe was kept.
    key_clock: Option<Instant>,
    /// The generation of code the game runs now: the live one, or an
    /// older one while history runs or shows the past (R1).
    running: u32,
    /// Whether the last reload's `reload(state)` migrated the state, for
    /// history's note of the next live frame.
    migrated_live: bool,
    /// What bounds a re-simulation: asked before each frame run again.
    limit: Option<Box<dyn FnMut() -> Option<String>>>,
    /// The sync test, when one runs (N1).
    synctest: Option<synctest::SyncTest>,
}

impl<G: Game> Engine<G> {
    /// Creates an engine stepping `game` by `clock`, with no frames run.
    pub fn new(game: G, clock: Box<dyn Clock>) -> Self {
        let logical = game.config().logical();
        Engine {
            clock,
            input: {
                let mut input = InputFrame::default();
                input.set_actions(game.config().actions.clone(), game.config().players.clone());
                input
            },
            screen: Screen::new(logical),
            scene: Scene::new(),
            assets: Store::new(game.folder()),
            surface: logical,
            viewport: Viewport::fit(logical, logical),
            scaling: None,
            reload_error: None,
            time_scale: 1.0,
            history: None,
            asked: Cell::new(false),
            shown: Vec::new(),
            quiet: CueLog::default(),
            key_clock: None,
            running: game.generation(),
            migrated_live: false,
            limit: None,
            synctest: None,
            game,
            frame: 0,
            time: 0.0,
            last_dt: 0.0,
            cues: CueLog::default(),
            script: None,
            logs: hashes::Logs::default(),
            paused: false,
            errors: Vec::with_capacity(2),
        }
    }

    /// Replaces the clock; the next tick asks the new one.
    pub fn set_clock(&mut self, clock: Box<dyn Clock>) {
        self.clock = clock;
    }

    /// Feeds scripted input: each event is queued on the frame it is due.
    pub fn set_script(&mut self, script: Script) {
        self.script = Some(script);
    }

    /// Checks each delivered frame's state hash against `hashes` (a
    /// replay's, by frame from 1; `None` checks nothing): the first frame
    /// that differs is an error of that frame, and [`Engine::diverged`]
    /// names it (H11).
    pub fn set_expected_hashes(&mut self, hashes: Vec<Option<String>>) {
        self.logs.check_against(Some(hashes));
    }

    /// Stops checking frames against a replay's hashes: the frames from
    /// here on are live, not the replay's (a replay opened at a frame and
    /// played on).
    pub fn forget_expected_hashes(&mut self) {
        self.logs.check_against(None);
    }

    /// Returns the first frame whose state hash differed from the replay's.
    pub fn diverged(&self) -> Option<u64> {
        self.logs.diverged()
    }

    /// Records every delivered delta and applied input event to `writer`.
    pub fn set_replay_writer(&mut self, writer: ReplayWriter) {
        self.logs.write_to(writer);
    }

    /// Runs one tick at host time `now`, in SPEC order.
    ///
    /// Errors from `update` and `render` do not stop the frame: the state
    /// stays the last good one, later steps still run, and the errors are
    /// kept in [`Engine::frame_errors`] until the next delivered frame.
    pub fn tick(&mut self, now: Instant) -> Tick {
        // 1. The clock is called once; a declined tick ends the frame.
        if self.paused {
            return Tick::Declined;
        }
        let Some(dt) = self.clock.tick(now) else {
            return Tick::Declined;
        };
        self.deliver(dt);
        Tick::Delivered
    }

    /// Runs one frame of a paused game, by hand (the developer keys' F6):
    /// a scripted clock is asked as usual; a real-time one is not (its
    /// time stood still), and the frame is worth its nominal delta, or
    /// 1/60 s for a wall clock. The game stays paused.
    pub fn step(&mut self, now: Instant) -> Tick {
        if !self.clock.is_real_time() {
            let Some(dt) = self.clock.tick(now) else {
                return Tick::Declined;
            };
            self.deliver(dt);
        } else {
            self.deliver(self.clock.step_delta().unwrap_or(STEP_DELTA));
        }
        Tick::Delivered
    }

    /// Steps 2 to 11 of a frame the clock delivered `dt` seconds for.
    fn deliver(&mut self, dt: f64) {
        self.run_frame(dt * self.time_scale, Source::Live);
    }

    /// Steps 3 and 4: the viewport follows the surface and the config's
    /// logical size (which a reload may have changed), and the screen
    /// layer is cleared (its viewport transform is applied underneath when
    /// it is rasterized).
    fn clear_layers(&mut self) {
        let logical = self.game.config().logical();
        self.viewport = Viewport::of(self.game.config().logical(), self.scaling(), self.surface);
        self.screen.clear(logical);
    }

    /// Steps 6 and 7: `render` runs (after a reload, what it no longer
    /// poses leaves the scene); world matrices follow the hierarchy, and
    /// the camera is read into the view the next frame's pointer ray is
    /// cast through. (The scene is drawn, recorded, overlaid and presented
    /// by the renderer.)
    fn render_layers(&mut self) {
        let ctx = RenderCtx {
            frame: self.frame,
            screen: &mut self.screen,
            scene: &mut self.scene,
            assets: &mut self.assets,
        };
        if let Err(err) = self.game.render(ctx) {
            self.errors.push(err);
        }
        self.scene.sweep();
        if let Err(why) = self.scene.update_world() {
            self.errors.push(Error::script(String::from(why)));
        }
        let (w, h) = self.viewport.logical;
        self.scene.read_camera(w.max(1) as f32 / h.max(1) as f32);
        for warning in self.assets.take_warnings() {
            self.errors.push(Error::asset(warning));
        }
    }

    /// Renders the current state again without running a frame: a past
    /// state history shows (R2), drawn by the current `render`.
    pub fn render_again(&mut self) {
        self.errors.clear();
        self.clear_layers();
        self.render_layers();
    }

    /// Records the frame's state hash in the replay being written, and
    /// checks it against the replay being played (H11).
    fn check_hash(&mut self) {
        if !self.logs.wants_hashes() {
            return;
        }
        if let Some(hash) = self.game.state_hash() {
            self.logs.hash(self.frame, &hash, &mut self.errors);
        }
    }

    fn begin_input(&mut self, dt: f64) {
        if let Some(script) = &mut self.script {
            script.feed(self.frame, self.time, &mut self.input);
        }
        self.open_history();
        self.enter_live();
        self.begin_events(dt);
        self.pick();
    }

    /// Casts the pointer into the scene through the camera of the last
    /// step 7, so `update` picks what the player saw.
    fn pick(&mut self) {
        let ray = self
            .input
            .pointer()
            .and_then(|pointer| self.scene.ray(pointer, self.viewport.logical));
        self.input
            .set_ray(ray.map(|(o, d)| (o.to_array(), d.to_array())));
    }

    fn begin_events(&mut self, dt: f64) {
        if let Err(err) = self.logs.begin(self.frame, dt, &mut self.input) {
            self.errors.push(err);
        }
    }

    /// Runs `ticks` ticks, stepping the engine alone: the engine's own
    /// tests and benchmarks. A runner steps a game through
    /// [`crate::session::Session::advance`], which also records it and
    /// plays or lets go its cues.
    ///
    /// # Errors
    /// The first error of a delivered frame stops the advance and is
    /// returned (S4: under an explicit advance, errors reach the caller).
    pub fn advance(&mut self, ticks: u64) -> Result {
        for _ in 0..ticks {
            self.tick(self.now());
            if let Some(err) = self.take_frame_error() {
                return Err(err);
            }
        }
        Ok(())
    }

    /// Returns the time an explicit advance hands the clock: the present
    /// for a real-time clock, one fixed instant for a scripted one, which
    /// ignores it.
    pub fn now(&self) -> Instant {
        if self.clock.is_real_time() {
            Instant::now()
        } else {
            START.with(|start| *start)
        }
    }

    /// Takes the first error of the last delivered frame, if any, for a
    /// caller that stops there (S4).
    pub fn take_frame_error(&mut self) -> Option<Error> {
        (!self.errors.is_empty()).then(|| self.errors.remove(0))
    }

    /// Returns the errors of the last delivered frame.
    pub fn frame_errors(&self) -> &[Error] {
        &self.errors
    }

    /// Pauses the simulation: ticks are declined until [`Engine::resume`].
    pub fn pause(&mut self) {
        self.paused = true;
    }

    /// Resumes the simulation; the clock starts afresh (a wall clock's
    /// first delta is 0, K1).
    pub fn resume(&mut self) {
        if self.paused {
            self.paused = false;
            self.clock.resume();
        }
    }

    /// Multiplies every delivered delta by `scale` (the developer keys'
    /// slow motion); 1 is real speed.
    pub fn set_time_scale(&mut self, scale: f64) {
        self.time_scale = scale;
    }

    /// Returns the time scale.
    pub fn time_scale(&self) -> f64 {
        self.time_scale
    }

    /// Says whether the simulation is paused.
    pub fn is_paused(&self) -> bool {
        self.paused
    }

    /// Returns when the clock could next deliver, for a loop that sleeps.
    pub fn next_due(&self) -> Option<Instant> {
        self.clock.next_due()
    }

    /// Says whether the clock follows real time.
    pub fn is_real_time(&self) -> bool {
        self.clock.is_real_time()
    }

    /// Reloads the game between frames after `changed` files changed (H8);
    /// the state carries over. Changed images, models and sounds load again
    /// at once, under the ids they had; objects and lights the next
    /// `render` neither poses nor asks about leave the scene.
    ///
    /// # Errors
    /// The new code does not load: the old code keeps running on the state
    /// it had, and the error stays in [`Engine::reload_error`] until a
    /// reload succeeds.
    pub fn reload(&mut self, changed: &[PathBuf]) -> Result<Reloaded> {
        self.before_reload(changed);
        match self.game.reload(changed) {
            Ok(mut reloaded) => {
                self.took_reload(changed, &mut reloaded);
                Ok(reloaded)
            }
            Err(err) => {
                self.reload_error = Some(err.to_string());
                Err(err)
            }
        }
    }

    /// What a reload that took changes around the game: changed files
    /// load again, the scene sweeps what the new code no longer poses,
    /// the config's actions and size follow, and history notes the new
    /// code (R1).
    fn took_reload(&mut self, changed: &[PathBuf], reloaded: &mut Reloaded) {
        if reloaded.assets {
            reloaded.refreshed = self.assets.refresh(changed);
        }
        if !reloaded.modules.is_empty() {
            self.scene.begin_sweep();
        }
        // The config may have changed: the actions now, the logical
        // size and background at the next frame's step 3.
        let config = self.game.config();
        self.input
            .set_actions(config.actions.clone(), config.players.clone());
        self.viewport = Viewport::of(self.game.config().logical(), self.scaling(), self.surface);
        self.reload_error = None;
        self.after_reload(reloaded);
    }

    /// Returns the last failed reload's message, until a reload succeeds.
    pub fn reload_error(&self) -> Option<&str> {
        self.reload_error.as_deref()
    }

    /// Sets the surface size in device pixels (step 3): the letterboxed
    /// viewport follows.
    pub fn set_surface(&mut self, width: u32, height: u32) {
        self.surface = (width.max(1), height.max(1));
        self.viewport = Viewport::of(self.game.config().logical(), self.scaling(), self.surface);
    }

    /// Sets the player's scaling, which wins over the game's config (V1);
    /// `None` leaves it to the config.
    pub fn set_scaling(&mut self, scaling: Option<Scaling>) {
        self.scaling = scaling;
        self.viewport = Viewport::of(self.game.config().logical(), self.scaling(), self.surface);
    }

    /// Returns how the logical area grows to fill the surface: the
    /// player's choice, else the game's config (V1).
    pub fn scaling(&self) -> Scaling {
        self.scaling.unwrap_or(self.game.config().scaling)
    }

    /// Returns the letterboxed viewport.
    pub fn viewport(&self) -> &Viewport {
        &self.viewport
    }

    /// Returns the scene as the last frame left it.
    pub fn scene(&self) -> &Scene {
        &self.scene
    }

    /// Returns what the physics view draws (P9): the game's worlds, 3D
    /// ones through the camera the scene was last seen through.
    pub fn colliders(&self) -> crate::colliders::Colliders {
        let mut colliders = self.game.colliders();
        colliders.camera = self.scene.seen().map(|seen| seen.view_projection);
        colliders
    }

    /// Returns the game's assets.
    pub fn assets(&self) -> &Store {
        &self.assets
    }

    /// Returns the game's assets, to load or warn about them.
    pub fn assets_mut(&mut self) -> &mut Store {
        &mut self.assets
    }

    /// Returns the screen layer as the last frame left it.
    pub fn screen(&self) -> &Screen {
        &self.screen
    }

    /// Lends what the last frame left for pictures (steps 7-10): the
    /// screen layer, the scene and the assets they draw from. The
    /// compositor makes every pixel from them; the engine makes none.
    pub fn layers(&mut self) -> (&mut Screen, &Scene, &Store) {
        (&mut self.screen, &self.scene, &self.assets)
    }

    /// Returns the game's config as the last load or reload left it.
    pub fn config(&self) -> &Config {
        self.game.config()
    }

    /// Returns the game's clear color.
    pub fn background(&self) -> Rgba {
        self.game.config().background
    }

    /// Returns the game's folder, where images and models load from.
    pub fn folder(&self) -> Option<PathBuf> {
        self.game.folder()
    }

    /// Returns the number of delivered frames.
    pub fn frame(&self) -> u64 {
        self.frame
    }

    /// Returns simulated time: the sum of delivered deltas, in seconds.
    pub fn time(&self) -> f64 {
        self.time
    }

    /// Returns the last delivered delta, in seconds.
    pub fn last_dt(&self) -> f64 {
        self.last_dt
    }

    /// Returns the game.
    pub fn game(&self) -> &G {
        &self.game
    }

    /// Returns the game, to change it between frames.
    pub fn game_mut(&mut self) -> &mut G {
        &mut self.game
    }

    /// Returns the input frame, to queue live input between frames.
    pub fn input_mut(&mut self) -> &mut InputFrame {
        &mut self.input
    }

    /// Returns the cue log.
    pub fn cues(&self) -> &CueLog {
        &self.cues
    }

    /// Returns the cue log with the game's assets (its sound files), to
    /// play the cues or look their sounds up.
    pub fn cues_and_assets(&mut self) -> (&mut CueLog, &mut Store) {
        (&mut self.cues, &mut self.assets)
    }

    /// Returns the cue log, to drain it.
    pub fn cues_mut(&mut self) -> &mut CueLog {
        &mut self.cues
    }

    /// Says whether the script (if any) has fed all its events.
    pub fn script_done(&self) -> bool {
        self.script.as_ref().is_none_or(Script::is_done)
    }

    /// Ends the replay log being written (its `end` line) and writes it
    /// to disk; the run writes no more to it.
    ///
    /// # Errors
    /// The log could not be written.
    pub fn flush(&mut self) -> Result {
        self.logs.finish()
    }
}

/// The delta of a frame stepped by hand under a wall clock.
pub const STEP_DELTA: f64 = 1.0 / 60.0;

thread_local! {
    /// The timestamp an explicit advance hands a scripted clock, which ignores it.
    static START: Instant = Instant::now();
}

#[cfg(test)]
mod tests;
