//! What the engine asks of a game (the [`Game`] trait) and hands it: the
//! contexts `update` and `render` get (rules C1, C2), and what a tick or a
//! reload did.

use std::cell::Cell;
use std::path::PathBuf;

use crate::assets::Store;
use crate::config::Config;
use crate::cues::CueLog;
use crate::error::{Error, Result};
use crate::history::{Held, Kept};
use crate::input::InputFrame;
use crate::scene::Scene;
use crate::screen::Screen;

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
    pub(super) pick: Pick<'a>,
}

/// The scene as the player last saw it, to find what is under the pointer;
/// or, while history runs a frame again, the answer the frame had then.
#[derive(Debug, Clone, Copy)]
pub struct Pick<'a> {
    pub(super) from: PickFrom<'a>,
    /// Set when `update` asks, for history to keep the answer.
    pub(super) asked: Option<&'a Cell<bool>>,
}

#[derive(Debug, Clone, Copy)]
pub(super) enum PickFrom<'a> {
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

/// A game the engine steps: the part that is the author's. A frame is
/// `update` then `render` (steps 5 and 6); the rest says what the host
/// shows around them. What history and rollback ask of the state is
/// [`Past`], what reloading asks of the code is [`Reload`]: a game
/// written in Rust that keeps no history and never reloads says
/// `impl Past for MyGame {}` and `impl Reload for MyGame {}`, and the
/// defaults say so to the engine.
pub trait Game: Past + Reload {
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

    /// Says whether the game asked the host to quit (`input:quit()` in an
    /// update that ran to the end). Default: never.
    fn wants_to_quit(&self) -> bool {
        false
    }

    /// Returns the outlines of the physics bodies in the state, for the
    /// window's physics view (P9). Default: none.
    fn colliders(&self) -> crate::colliders::Colliders {
        crate::colliders::Colliders::default()
    }
}

/// What history (R1-R3), rollback and the sync test (N1, N3) and replays
/// (H11) ask of a game's state: its hash and digest, keeping it (encoded,
/// for history's keyframes) and holding it (as the game holds it, for a
/// rollback's few frames), and taking either back.
pub trait Past {
    /// Returns the hash of the state's canonical encoding (S7), for a
    /// replay to record and check (H11). Default: none.
    fn state_hash(&self) -> Option<String> {
        None
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
        Err(Error::rule(crate::Rule::R1, "this game keeps no history"))
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
        Err(Error::rule(crate::Rule::R1, "this game keeps no history"))
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
}

/// What reloading asks of a game (H8, R1, R3): to load its changed files
/// again, and the generations of code it holds, so that history runs
/// each frame of the past with the code that ran it.
pub trait Reload {
    /// Reloads after the files `changed` (relative to the folder) changed,
    /// between two frames. Default: nothing to reload.
    ///
    /// # Errors
    /// The new code does not load; the old code keeps running.
    fn reload(&mut self, changed: &[PathBuf]) -> Result<Reloaded> {
        let _ = changed;
        Ok(Reloaded::default())
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
            Err(Error::rule(
                crate::Rule::R1,
                format!("the code that ran these frames (reload {generation}) is gone"),
            ))
        }
    }

    /// Takes back the last reload: the code before it is live again, as
    /// if the reload had failed (a re-simulation through the new code
    /// failed, R3).
    ///
    /// # Errors
    /// There is no reload to take back. Default: always.
    fn undo_reload(&mut self) -> Result {
        Err(Error::rule(
            crate::Rule::R3,
            "there is no reload to take back",
        ))
    }

    /// Runs the new code's `reload(state)` on the current state, as a
    /// reload does, for a state from the past (R3). Default: nothing.
    ///
    /// # Errors
    /// The migration failed; the state is kept.
    fn migrate(&mut self) -> Result {
        Ok(())
    }
}

/// What a reload changed (H8).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reloaded {
    /// The code files run again, as errors show them.
    pub modules: Vec<String>,
    /// Whether an image, model or sound changed.
    pub assets: bool,
    /// The images, models, sounds and fonts loaded again, by name (the
    /// engine fills it in as it refreshes them).
    pub refreshed: Vec<String>,
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
