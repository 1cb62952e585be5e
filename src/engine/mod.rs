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
use crate::history::{Held, History, Kept};
use crate::input::{InputFrame, Script};
use crate::replay::ReplayWriter;
use crate::scene::Scene;
use crate::screen::Screen;
use crate::viewport::Viewport;

mod rewind;
mod synctest;

pub use synctest::{DEPTH as SYNCTEST_DEPTH, MAX_DEPTH as SYNCTEST_MAX_DEPTH};

/// What `update` may use (C1): the frame's input, and the cue log it plays
/// cues into.
#[derive(Debug)]
pub struct UpdateCtx<'a> {
    /// The delivered frame's number, counted from 1.
    pub frame: u64,
    /// The frame's input.
    pub input: &'a InputFrame,
    /// Where played cues go.
    pub cues: &'a mut CueLog,
    /// What the pointer's ray is cast into, when `update` asks.
    pick: Pick<'a>,
}

/// The scene as the player last saw it, to find what is under the pointer;
/// or, while history runs a frame again, the answer the frame had then.
#[derive(Debug, Clone, Copy)]
pub struct Pick<'a> {
    from: PickFrom<'a>,
    /// Set when `update` asks, for history to keep the answer.
    asked: Option<&'a Cell<bool>>,
}

#[derive(Debug, Clone, Copy)]
enum PickFrom<'a> {
    Scene { scene: &'a Scene, assets: &'a Store },
    Recorded(Option<&'a str>),
}

impl<'a> Pick<'a> {
    /// Returns the name of the nearest visible object under `ray`.
    ///
    /// Picking tests every object, with a matrix inverse each, so it is
    /// done only when asked, not every frame.
    pub fn hover(&self, ray: Option<([f32; 3], [f32; 3])>) -> Option<&'a str> {
        if let Some(asked) = self.asked {
            asked.set(true);
        }
        match self.from {
            PickFrom::Scene { scene, assets } => {
                let (origin, direction) = ray?;
                scene
                    .hit(origin.into(), direction.into(), assets)
                    .map(|(object, _)| object.name.as_str())
            }
            PickFrom::Recorded(answer) => answer,
        }
    }
}

impl<'a> UpdateCtx<'a> {
    /// Returns the name of the nearest visible scene object under the
    /// pointer, through the camera the player saw last frame.
    pub fn hover(&self) -> Option<&'a str> {
        self.pick.hover(self.input.ray())
    }

    /// Returns what picking needs, for a binding to keep while `update` runs.
    pub fn pick(&self) -> Pick<'a> {
        self.pick
    }
}

/// What `render` may use (C2): the screen layer (and the scene); nothing
/// that reads input or plays a cue.
#[derive(Debug)]
pub struct RenderCtx<'a> {
    /// The delivered frame's number, counted from 1.
    pub frame: u64,
    /// The 2D layer, cleared and in logical coordinates.
    pub screen: &'a mut Screen,
    /// The retained 3D scene.
    pub scene: &'a mut Scene,
    /// The game's images and models, which drawing and posing load.
    pub assets: &'a mut Store,
}

/// A game the engine steps: the part that is the author's.
pub trait Game {
    /// Runs step 5: advances the game's state by `dt` seconds.
    ///
    /// # Errors
    /// The update failed; the game keeps the state it had.
    fn update(&mut self, ctx: UpdateCtx<'_>, dt: f64) -> Result;

    /// Runs step 6: poses the scene and draws the screen layer from the state.
    ///
    /// # Errors
    /// The render failed; nothing is lost.
    fn render(&mut self, ctx: RenderCtx<'_>) -> Result;

    /// Returns the game's config: title, logical size, background,
    /// actions, developer controls, sounds. The engine reads it again after
    /// every reload. Default: [`Config::default`].
    fn config(&self) -> &Config {
        crate::config::default_config()
    }

    /// Returns the folder images and meshes load from. Default: none.
    fn folder(&self) -> Option<PathBuf> {
        None
    }

    /// Returns the hash of the state's canonical encoding (S7), for a
    /// replay to record and check (H11). Default: none.
    fn state_hash(&self) -> Option<String> {
        None
    }

    /// Says whether the game asked the host to quit (`input:quit()` in an
    /// update that ran to the end). Default: never.
    fn wants_to_quit(&self) -> bool {
        false
    }

    /// Returns a digest of the state for history to compare two runs of a
    /// frame by (R3): equal states digest alike within one process.
    /// Default: the hash of the canonical encoding (S7).
    fn digest(&mut self) -> Option<u64> {
        self.state_hash()
            .as_deref()
            .and_then(crate::history::hash_bits)
    }

    /// Encodes the state, and what else `update` reads, for a keyframe of
    /// history (R1). Default: none, and the game keeps no history.
    fn keep(&self) -> Option<Kept> {
        None
    }

    /// Takes a kept state back as the current one.
    ///
    /// # Errors
    /// The state does not decode. Default: always.
    fn restore(&mut self, kept: &Kept) -> Result {
        let _ = kept;
        Err(Error::Script("R1: this game keeps no history".into()))
    }

    /// Holds the current state as the game holds it. Default: none.
    fn hold(&self) -> Option<Held> {
        None
    }

    /// Takes a held state back as the current one.
    ///
    /// # Errors
    /// The state was not one this game held. Default: always.
    fn put(&mut self, held: &Held) -> Result {
        let _ = held;
        Err(Error::Script("R1: this game keeps no history".into()))
    }

    /// Says where the current state differs from `held` (one the game
    /// held), one place a line (`ball.x: 3 -> 4.5`), at most `limit`
    /// lines: how a sync test shows a frame that came out differently
    /// (N1). Default: nothing to show.
    fn changes_from(&self, held: &Held, limit: usize) -> Vec<String> {
        let _ = (held, limit);
        Vec::new()
    }

    /// Says that the frames run from now on are history run again: they
    /// write no save and cannot quit. Default: nothing to change.
    fn set_replaying(&mut self, replaying: bool) {
        let _ = replaying;
    }

    /// Returns the generation of code live play runs: 0 at load, one
    /// more at each reload that changed code (R1). Default: 0.
    fn generation(&self) -> u32 {
        0
    }

    /// Returns the oldest generation of code the game still holds, to run
    /// frames of the past again with. Default: the live one.
    fn oldest_generation(&self) -> u32 {
        self.generation()
    }

    /// Runs generation `generation`'s code (`update`, `render`, the
    /// config) from now on: history runs and shows each frame of the past
    /// with the code that ran it (R1).
    ///
    /// # Errors
    /// The game no longer holds that generation. Default: only the live
    /// one is held.
    fn run_generation(&mut self, generation: u32) -> Result {
        if generation == self.generation() {
            Ok(())
        } else {
            Err(Error::Script(format!(
                "R1: the code that ran these frames (reload {generation}) is gone"
            )))
        }
    }

    /// Takes back the last reload: the code before it is live again, as
    /// if the reload had failed (a re-simulation through the new code
    /// failed, R3).
    ///
    /// # Errors
    /// There is no reload to take back. Default: always.
    fn undo_reload(&mut self) -> Result {
        Err(Error::Script("R3: there is no reload to take back".into()))
    }

    /// Runs the new code's `reload(state)` on the current state, as a
    /// reload does, for a state from the past (R3). Default: nothing.
    ///
    /// # Errors
    /// The migration failed; the state is kept.
    fn migrate(&mut self) -> Result {
        Ok(())
    }

    /// Reloads after the files `changed` (relative to the folder) changed,
    /// between two frames. Default: nothing to reload.
    ///
    /// # Errors
    /// The new code does not load; the old code keeps running.
    fn reload(&mut self, changed: &[PathBuf]) -> Result<Reloaded> {
        let _ = changed;
        Ok(Reloaded::default())
    }
}

/// What a reload changed (H8).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reloaded {
    /// The code files run again, as errors show them.
    pub modules: Vec<String>,
    /// Whether an image, model or sound changed.
    pub assets: bool,
    /// Whether the new code's `reload(state)` migrated the state.
    pub migrated: bool,
}

/// What one tick did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tick {
    /// The clock declined: nothing advanced.
    Declined,
    /// A frame ran (possibly with errors, see [`Engine::frame_errors`]).
    Delivered,
}

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
    replay: Option<ReplayWriter>,
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
    /// The hashes a replay recorded, by frame, to check each frame against.
    expected: Option<Vec<Option<String>>>,
    /// The first frame whose hash differed from the replay's.
    diverged: Option<u64>,
    /// Every frame of the session, when kept (R1).
    history: Option<History>,
    /// Whether this frame's `update` asked what is under the pointer.
    asked: Cell<bool>,
    /// The stretch of history last rebuilt, held whole to walk through.
    shown: Vec<rewind::Moment>,
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
            expected: None,
            diverged: None,
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
            replay: None,
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
        self.expected = Some(hashes);
    }

    /// Stops checking frames against a replay's hashes: the frames from
    /// here on are live, not the replay's (a replay opened at a frame and
    /// played on).
    pub fn forget_expected_hashes(&mut self) {
        self.expected = None;
    }

    /// Returns the first frame whose state hash differed from the replay's.
    pub fn diverged(&self) -> Option<u64> {
        self.diverged
    }

    /// Records every delivered delta and applied input event to `writer`.
    pub fn set_replay_writer(&mut self, writer: ReplayWriter) {
        self.replay = Some(writer);
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
        let dt = dt * self.time_scale;
        self.errors.clear();

        // 2. The frame counter, simulated time and the last delta advance.
        self.frame += 1;
        self.time += dt;
        self.last_dt = dt;
        self.begin_input(dt);

        // 3 and 4. The viewport follows the surface; the screen is cleared.
        self.clear_layers();

        // 5. update runs; its result replaces the state.
        let ctx = UpdateCtx {
            frame: self.frame,
            input: &self.input,
            cues: &mut self.cues,
            pick: Pick {
                from: PickFrom::Scene {
                    scene: &self.scene,
                    assets: &self.assets,
                },
                asked: self.history.is_some().then_some(&self.asked),
            },
        };
        if let Err(err) = self.game.update(ctx, dt) {
            self.errors.push(err);
        }
        for warning in self.cues.take_warnings() {
            self.errors.push(Error::Script(warning));
        }

        // 6 and 7. render runs; world matrices and the camera follow.
        self.render_layers();

        self.check_hash();
        self.close_history();

        // 11. The input frame closes.
        self.input.close();
        self.keyframe();
        self.sync_check();
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
            self.errors.push(Error::Script(why));
        }
        let (w, h) = self.viewport.logical;
        self.scene.read_camera(w.max(1) as f32 / h.max(1) as f32);
        for warning in self.assets.take_warnings() {
            self.errors.push(Error::Asset(warning));
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
        if self.replay.is_none() && self.expected.is_none() {
            return;
        }
        let Some(hash) = self.game.state_hash() else {
            return;
        };
        if let Some(replay) = &mut self.replay
            && let Err(err) = replay.hash(&hash)
        {
            self.errors.push(err);
        }
        let recorded = self
            .expected
            .as_ref()
            .and_then(|hashes| hashes.get(self.frame as usize - 1))
            .and_then(Option::as_ref);
        if let Some(recorded) = recorded
            && *recorded != hash
            && self.diverged.is_none()
        {
            self.diverged = Some(self.frame);
            self.errors.push(Error::Script(format!(
                "H11: the replay diverged: frame {}'s state hash is {hash}, the replay recorded \
                 {recorded} (the game's code or files changed, or it reads something that differs \
                 between runs)",
                self.frame
            )));
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
        match &mut self.replay {
            None => self.input.begin(|_| {}),
            Some(replay) => {
                let mut result = replay.frame(self.frame, dt);
                self.input.begin(|event| {
                    if result.is_ok() {
                        result = replay.event(event);
                    }
                });
                if let Err(err) = result {
                    self.errors.push(err);
                }
            }
        }
    }

    /// Runs `ticks` ticks, as a test or a script steps the game.
    ///
    /// # Errors
    /// The first error of a delivered frame stops the advance and is
    /// returned (S4: under an explicit advance, errors reach the caller).
    pub fn advance(&mut self, ticks: u64) -> Result {
        self.advance_with(ticks, |_| {})
    }

    /// Runs `ticks` ticks like [`Engine::advance`], calling `delivered`
    /// after each delivered frame (a recorder captures it there, step 8).
    ///
    /// # Errors
    /// As [`Engine::advance`].
    pub fn advance_with(&mut self, ticks: u64, mut delivered: impl FnMut(&mut Self)) -> Result {
        for _ in 0..ticks {
            // Scripted clocks ignore the timestamp; only real-time ones need it.
            let now = if self.clock.is_real_time() {
                Instant::now()
            } else {
                START.with(|start| *start)
            };
            if self.tick(now) == Tick::Delivered {
                delivered(self);
            }
            if !self.errors.is_empty() {
                return Err(self.errors.remove(0));
            }
        }
        Ok(())
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
            Ok(reloaded) => {
                self.took_reload(changed, &reloaded);
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
    fn took_reload(&mut self, changed: &[PathBuf], reloaded: &Reloaded) {
        if reloaded.assets {
            self.assets.refresh(changed);
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

    /// Drains the cue log, handing each cue to `play` with the game's
    /// assets (its sound files).
    pub fn play_cues(&mut self, mut play: impl FnMut(&crate::cues::Cue, &mut Store)) {
        for cue in self.cues.drain() {
            play(&cue, &mut self.assets);
        }
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
        match self.replay.take() {
            Some(replay) => replay.finish(),
            None => Ok(()),
        }
    }
}

/// The delta of a frame stepped by hand under a wall clock.
pub const STEP_DELTA: f64 = 1.0 / 60.0;

thread_local! {
    /// The timestamp an explicit advance hands a scripted clock, which ignores it.
    static START: Instant = Instant::now();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::{ConstantClock, ListClock};
    use crate::input::{Binding, InputEvent, Key};

    /// A game in plain Rust: counts what it saw.
    #[derive(Default)]
    struct Probe {
        updates: Vec<(u64, f64)>,
        renders: u64,
        space_pressed: Vec<u64>,
        fail_update_on: Option<u64>,
    }

    impl Game for Probe {
        fn update(&mut self, ctx: UpdateCtx<'_>, dt: f64) -> Result {
            if self.fail_update_on == Some(ctx.frame) {
                return Err(Error::Script("boom".into()));
            }
            self.updates.push((ctx.frame, dt));
            let space = Binding::Key(Key::from_name("space").unwrap());
            if ctx.input.pressed(space) {
                self.space_pressed.push(ctx.frame);
            }
            if ctx.frame.is_multiple_of(2) {
                ctx.cues.play(ctx.frame, "even", 1.0, 1.0, 0.0).unwrap();
            }
            Ok(())
        }

        fn render(&mut self, _ctx: RenderCtx<'_>) -> Result {
            self.renders += 1;
            Ok(())
        }
    }

    fn clock(deltas: &[Option<f64>]) -> Box<dyn Clock> {
        // A clock that follows a list of answers, None declining.
        struct Answers(Vec<Option<f64>>, usize);
        impl Clock for Answers {
            fn tick(&mut self, _now: Instant) -> Option<f64> {
                self.1 += 1;
                self.0[(self.1 - 1) % self.0.len()]
            }
        }
        Box::new(Answers(deltas.to_vec(), 0))
    }

    #[test]
    fn delivered_frames_advance_counter_time_and_delta() {
        let mut engine = Engine::new(
            Probe::default(),
            Box::new(ListClock::repeating(vec![0.5, 0.25])),
        );
        engine.advance(3).unwrap();
        assert_eq!(engine.frame(), 3, "three delivered frames");
        assert_eq!(engine.time(), 1.25, "simulated time is the sum of deltas");
        assert_eq!(engine.last_dt(), 0.5);
        assert_eq!(engine.game().updates, [(1, 0.5), (2, 0.25), (3, 0.5)]);
        assert_eq!(
            engine.game().renders,
            3,
            "render runs once per delivered frame"
        );
    }

    #[test]
    fn declined_tick_changes_nothing() {
        let mut engine = Engine::new(Probe::default(), clock(&[Some(0.1), None, None, Some(0.1)]));
        let now = Instant::now();
        engine
            .input_mut()
            .push(InputEvent::Tap(Key::from_name("space").unwrap()));
        // tick 1: delivered, sees the press.
        assert_eq!(engine.tick(now), Tick::Delivered);
        engine
            .input_mut()
            .push(InputEvent::Press(Key::from_name("space").unwrap()));
        // ticks 2 and 3: declined; nothing advances and the queued input waits.
        assert_eq!(engine.tick(now), Tick::Declined);
        assert_eq!(engine.tick(now), Tick::Declined);
        assert_eq!(
            (engine.frame(), engine.time()),
            (1, 0.1),
            "a declined tick changes nothing"
        );
        assert_eq!(engine.game().renders, 1, "no render on a declined tick");
        // tick 4: delivered; the tap's release and the new press apply now.
        assert_eq!(engine.tick(now), Tick::Delivered);
        assert_eq!(
            engine.game().space_pressed,
            [1, 2],
            "each edge seen by exactly one delivered frame"
        );
    }

    // rule: S4
    #[test]
    fn advance_raises_the_first_error_and_render_still_runs() {
        let probe = Probe {
            fail_update_on: Some(2),
            ..Default::default()
        };
        let mut engine = Engine::new(probe, Box::new(ConstantClock::new(0.1)));
        let err = engine.advance(5).unwrap_err();
        assert_eq!(err.to_string(), "boom");
        assert_eq!(engine.frame(), 2, "the advance stops at the failing frame");
        assert_eq!(engine.game().renders, 2, "render ran on the failing frame");
    }

    #[test]
    fn pause_declines_and_resume_restarts_the_clock() {
        let mut engine = Engine::new(Probe::default(), Box::new(ConstantClock::new(0.1)));
        engine.pause();
        assert_eq!(engine.tick(Instant::now()), Tick::Declined);
        engine.resume();
        assert_eq!(engine.tick(Instant::now()), Tick::Delivered);
    }

    // rule: H7
    #[test]
    fn cues_are_logged_by_frame() {
        let mut engine = Engine::new(Probe::default(), Box::new(ConstantClock::new(0.1)));
        engine.advance(4).unwrap();
        let frames: Vec<u64> = engine.cues().cues().iter().map(|c| c.frame).collect();
        assert_eq!(frames, [2, 4]);
    }
}
