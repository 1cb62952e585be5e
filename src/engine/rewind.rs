//! The engine's side of history (R1-R3): keeping each frame as it is
//! delivered, and building any kept frame again by running `update` on
//! the recorded input from the keyframe before it.
//!
//! A frame run again gets what it got the first time: its delta, the
//! input events queued for it, and what `input:hover()` answered. It plays
//! no sound (its cues go to a log no one drains), writes no save, cannot
//! quit, and is not rendered: only the frame shown at the end is.

use super::recorded::{Moment, Recorded};
use std::path::PathBuf;
use std::time::Instant;

use super::{Engine, Game, Pick, PickFrom, Reloaded};
use crate::error::{Error, Result};
use crate::history::{History, Kept};
use crate::history::{Hovered, Keyframe};

impl<G: Game> Engine<G> {
    /// Starts keeping history from the current frame, in at most `cap`
    /// bytes (R1).
    ///
    /// # Errors
    /// The game keeps no history (a game in Rust that does not say how),
    /// or its state does not encode.
    pub fn keep_history(&mut self, cap: usize) -> Result {
        let kept = self
            .game
            .keep()
            .ok_or_else(|| Error::rule(crate::Rule::R1, "this game keeps no history"))?;
        let generation = self.game.generation();
        self.history = Some(History::new(self.keyframe_of(kept), cap, generation));
        self.running = generation;
        self.shown.clear();
        Ok(())
    }

    /// Bounds every re-simulation (a rewind, a reload from a past frame,
    /// a report) by `limit`, asked before each frame run again: `Some`
    /// stops it with that message, as the budget of whoever asked for it
    /// ran out (H9). `None` takes the bound away.
    pub fn set_resimulation_limit(&mut self, limit: Option<Box<dyn FnMut() -> Option<String>>>) {
        self.limit = limit;
    }

    /// Asks the re-simulation limit whether to stop before frame `frame`.
    pub(super) fn over_limit(&mut self, frame: u64) -> Option<Error> {
        let why = self.limit.as_mut()?()?;
        Some(Error::script(format!("frame {frame}: {why}")))
    }

    /// Runs the code of `generation` from now on (R1).
    fn run_generation(&mut self, generation: u32) -> Result {
        if self.running != generation {
            self.game.run_generation(generation)?;
            self.running = generation;
        }
        Ok(())
    }

    /// Before a live frame: the live code runs it. When the state is one
    /// older code left (a past frame shown, played on from), the live
    /// code's `reload(state)` migrates it first, as the reload did (R2).
    /// History notes which code runs the frame.
    pub(super) fn enter_live(&mut self) {
        let live = self.game.generation();
        let mut migrated = std::mem::take(&mut self.migrated_live);
        if self.running != live {
            if let Err(err) = self.run_generation(live) {
                self.errors.push(err);
            }
            match self.game.migrate() {
                Ok(()) => migrated = true,
                Err(err) => self.errors.push(err),
            }
        }
        if let Some(history) = &mut self.history {
            history.enter(self.frame, live, migrated);
        }
    }

    /// Before a reload of `changed`: the present is kept whole, so that
    /// the frames of the code it replaces can be forgotten from the
    /// oldest without losing the rest (R1).
    pub(super) fn before_reload(&mut self, changed: &[PathBuf]) {
        let code = changed
            .iter()
            .any(|p| p.extension().is_some_and(|x| x == "luau" || x == "lua"));
        let at_present = self
            .history
            .as_ref()
            .is_some_and(|h| h.last() == self.frame);
        let kept_already = self
            .history
            .as_ref()
            .and_then(|h| h.keyframe_frames().last())
            == Some(self.frame);
        if !(code && at_present && !kept_already) {
            return;
        }
        if let Some(kept) = self.game.keep() {
            let key = self.keyframe_of(kept);
            if let Some(history) = &mut self.history {
                history.push_keyframe(key);
            }
        }
    }

    /// After a reload that changed code: the new code is live from the
    /// next frame, and history forgets frames of code the game no longer
    /// holds.
    pub(super) fn after_reload(&mut self, reloaded: &Reloaded) {
        if reloaded.modules.is_empty() {
            return;
        }
        self.running = self.game.generation();
        self.migrated_live = reloaded.migrated;
        let oldest = self.game.oldest_generation();
        if let Some(history) = &mut self.history {
            history.forget_generations_before(oldest);
        }
    }

    /// Returns the history, when it is kept.
    pub fn history(&self) -> Option<&History> {
        self.history.as_ref()
    }

    fn keyframe_of(&self, kept: Kept) -> Keyframe {
        Keyframe {
            frame: self.frame,
            time: self.time,
            last_dt: self.last_dt,
            input: self.input.for_history(),
            kept,
        }
    }

    /// Opens the delivered frame's record with the input queued for it.
    pub(super) fn open_history(&mut self) {
        let Some(history) = &mut self.history else {
            return;
        };
        if self.frame <= history.last() {
            // Live play from a past frame: the old future and its cues go (R2).
            self.cues.forget_from(self.frame);
        }
        history.open(self.frame);
        for event in self.input.queued() {
            history.event(*event);
        }
        self.asked.set(false);
        self.shown.clear();
    }

    /// Closes the delivered frame's record with what hover answered, the
    /// hash it left and whether its `update` was `refused`.
    pub(super) fn close_history(&mut self, refused: bool) {
        if self.history.is_none() {
            return;
        }
        let digest = self.game.digest();
        let Some(history) = &mut self.history else {
            return;
        };
        let hovered = if self.asked.get() {
            let pick = Pick {
                from: PickFrom::Scene {
                    scene: &self.scene,
                    assets: &self.assets,
                },
                asked: None,
            };
            match pick.hover(self.input.ray()) {
                Some(name) => Hovered::Object(name),
                None => Hovered::Nothing,
            }
        } else {
            Hovered::NotAsked
        };
        if !history.close(self.last_dt, hovered, digest, refused) {
            self.end_history(format!(
                "R1: frame {}'s update asked what is under the pointer and got the {}th \
                 different object name; this run keeps no history from here",
                self.frame,
                crate::history::MAX_NAMES + 1
            ));
        }
    }

    /// Ends history with one line for the frame's errors.
    fn end_history(&mut self, why: String) {
        self.history = None;
        self.shown.clear();
        self.errors.push(Error::script(why));
    }

    /// Keeps the closed frame whole when history wants a keyframe of it.
    /// A state that cannot be kept (its JSON is past S7's limit) ends
    /// history, with one line: frames without keyframes could not be
    /// rebuilt, and would only grow.
    pub(super) fn keyframe(&mut self) {
        if !self
            .history
            .as_ref()
            .is_some_and(|h| h.wants_keyframe(self.frame))
        {
            return;
        }
        let started = Instant::now();
        match self.game.keep() {
            Some(kept) => {
                let key = self.keyframe_of(kept);
                let took = started.elapsed();
                let since = self.key_clock.map_or(took, |at| started - at);
                self.key_clock = Some(started);
                if let Some(history) = &mut self.history {
                    history.push_keyframe(key);
                    history.keyframe_took(took, since);
                }
            }
            None => self.end_history(format!(
                "R1: frame {}'s state could not be kept (its JSON is too large); this run keeps no history from here",
                self.frame
            )),
        }
    }

    /// Checks that `frame` is one history can build, naming the range
    /// when it is not.
    pub(super) fn check_kept(&self, frame: u64, asked: &str) -> Result<&History> {
        if self.logs.writing() {
            return Err(Error::rule(
                crate::Rule::R2,
                format!("{asked}: this run writes --record-input, whose log only goes forward"),
            ));
        }
        let Some(history) = &self.history else {
            return Err(Error::rule(
                crate::Rule::R1,
                format!("{asked}: this run keeps no history"),
            ));
        };
        let frames = history.frames();
        if !frames.contains(&frame) {
            return Err(Error::rule(
                crate::Rule::R1,
                format!(
                    "{asked}: frame {frame} is not in history, which holds frames {} to {}{}",
                    frames.start(),
                    frames.end(),
                    if frame < *frames.start() && *frames.start() > 0 {
                        " (older frames were dropped to stay within its memory cap)"
                    } else {
                        ""
                    }
                ),
            ));
        }
        Ok(history)
    }

    /// Goes back `frames` delivered frames: the state, time and input are
    /// the ones that frame left, and the next delivered frame continues
    /// from there, replacing the old future (R2). Until then the future is
    /// kept, to step forward through or to run again after a reload.
    ///
    /// # Errors
    /// History is not kept, or does not reach that far back; nothing
    /// changes.
    pub fn rewind(&mut self, frames: u64) -> Result {
        let Some(target) = self.frame.checked_sub(frames) else {
            let oldest = self.history.as_ref().map_or(0, |h| *h.frames().start());
            return Err(Error::rule(
                crate::Rule::R2,
                format!(
                    "rewind({frames}) from frame {} goes past the start of history (frame {oldest})",
                    self.frame
                ),
            ));
        };
        self.show(target)
    }

    /// Shows frame `frame` of history: the engine stands at the end of
    /// that frame (R2). Walking through a stretch of frames one by one
    /// runs each `update` once: the stretch from the keyframe is held.
    ///
    /// # Errors
    /// History does not hold the frame, or its keyframe does not decode;
    /// nothing changes.
    pub fn show(&mut self, frame: u64) -> Result {
        self.check_kept(frame, &format!("show frame {frame}"))?;
        if frame == self.frame {
            return Ok(());
        }
        if !self.shown.iter().any(|m| m.frame == frame) {
            let now = self.moment()?;
            if let Err(err) = self.rebuild(frame, true) {
                self.go_to(&now)?;
                return Err(err);
            }
        }
        let at = self
            .shown
            .iter()
            .position(|m| m.frame == frame)
            .expect("the stretch holds the frame");
        let moment = self.shown.swap_remove(at);
        let result = self.go_to(&moment);
        self.shown.push(moment);
        result
    }

    /// Reloads after `changed` (nothing, to run the code live now), then
    /// runs the recorded frames after `from` again with that code, from
    /// the state frame `from` left (R3). Returns what the reload changed
    /// and the first frame whose state hash differs from the old run's,
    /// or `None` when none does. The new run becomes history from
    /// `from + 1` on; frames up to `from` stay as they ran.
    ///
    /// # Errors
    /// History does not hold `from`, the new code does not load, a frame
    /// run again fails (its error names the frame and the line), or the
    /// re-simulation limit stops it: then nothing changes. The code, the
    /// state, the frame and history are what they were before the call.
    pub fn reload_from(
        &mut self,
        changed: &[PathBuf],
        from: u64,
    ) -> Result<(Reloaded, Option<u64>)> {
        self.check_kept(from, &format!("reload from frame {from}"))?;
        let now = self.moment()?;
        // The state at `from` is the old run's, built with its own code.
        if let Err(err) = self.rebuild(from, false) {
            self.go_to(&now)?;
            return Err(err);
        }
        let past = self.moment()?;
        self.go_to(&now)?;
        let reloaded = self.game.reload(changed).inspect_err(|err| {
            self.reload_error = Some(err.to_string());
        })?;
        let tail = self
            .history
            .as_mut()
            .expect("checked above")
            .split_off_after(from);
        let old: Vec<Recorded> = tail
            .frames()
            .map(|frame| Recorded::of_tail(&tail, self.history.as_ref().expect("kept"), frame))
            .collect();
        let rerun = self.rerun_from(&past, &old, !reloaded.modules.is_empty());
        match rerun {
            Ok(diverged) => {
                self.shown.clear();
                let mut reloaded = reloaded;
                self.took_reload(changed, &mut reloaded);
                Ok((reloaded, diverged))
            }
            Err(err) => {
                // Nothing changes: history gets its frames back, the code
                // its generation, the engine its present.
                if let Some(history) = &mut self.history {
                    history.put_back(tail);
                }
                if !reloaded.modules.is_empty() {
                    self.game.undo_reload()?;
                }
                // Whatever code ran last, the present's runs again.
                self.running = u32::MAX;
                self.go_to(&now)?;
                Err(err)
            }
        }
    }

    /// Runs `old`'s frames again from `past` with the live code, as
    /// history's frames anew (its frames after `past` taken out first);
    /// stops at the first frame that fails. Returns the first frame whose
    /// hash differs from the old run's.
    fn rerun_from(
        &mut self,
        past: &Moment,
        old: &[Recorded],
        reloaded: bool,
    ) -> Result<Option<u64>> {
        self.go_to(past)?;
        let live = self.game.generation();
        // The state is one older code made: the live code migrates it,
        // as a reload does (R3).
        let migrate = reloaded || past.generation != live;
        self.run_generation(live)?;
        if migrate {
            self.game.migrate()?;
        }
        if let Some(history) = &mut self.history {
            history.enter(past.frame + 1, live, migrate);
        }
        let mut diverged = None;
        self.replaying(|engine| {
            for recorded in old {
                if let Some(err) = engine.over_limit(engine.frame + 1) {
                    return Err(err);
                }
                let mut failed = None;
                let hash = engine.run_again(recorded, true, &mut failed);
                if let Some(err) = failed {
                    return Err(err);
                }
                if diverged.is_none() && hash != recorded.hash {
                    diverged = Some(engine.frame);
                }
            }
            Ok(())
        })?;
        Ok(diverged)
    }

    /// Holds where the engine stands now.
    pub(super) fn moment(&self) -> Result<Moment> {
        let state = self
            .game
            .hold()
            .ok_or_else(|| Error::rule(crate::Rule::R1, "this game keeps no history"))?;
        Ok(Moment {
            frame: self.frame,
            time: self.time,
            last_dt: self.last_dt,
            input: self.input.for_history(),
            state,
            generation: self.running,
        })
    }

    /// Stands the engine where `moment` was.
    pub(super) fn go_to(&mut self, moment: &Moment) -> Result {
        self.run_generation(moment.generation)?;
        self.game.put(&moment.state)?;
        self.frame = moment.frame;
        self.time = moment.time;
        self.last_dt = moment.last_dt;
        self.input.restore(moment.input.clone());
        Ok(())
    }

    /// Builds frame `frame` from the keyframe before it; with `hold`,
    /// keeps every frame of the stretch in `shown`.
    pub(super) fn rebuild(&mut self, frame: u64, hold: bool) -> Result {
        let history = self.history.as_ref().expect("checked by the caller");
        let key = history
            .keyframe_before(frame)
            .expect("a kept frame has a keyframe")
            .clone();
        // The keyframe's state is what the code of its frame left.
        let made_by = history.span(key.frame).generation;
        self.run_generation(made_by)?;
        self.game.restore(&key.kept)?;
        self.frame = key.frame;
        self.time = key.time;
        self.last_dt = key.last_dt;
        self.input.restore(key.input);
        if hold {
            self.shown.clear();
            self.shown.push(self.moment()?);
        }
        let mut first_error = None;
        self.replaying(|engine| {
            for f in key.frame + 1..=frame {
                if let Some(err) = engine.over_limit(f) {
                    first_error.get_or_insert(err);
                    break;
                }
                if !engine.enter_past(f, &mut first_error) {
                    break;
                }
                let history = engine.history.as_ref().expect("checked by the caller");
                let recorded = Recorded::of(history, f);
                engine.run_again(&recorded, false, &mut first_error);
                engine.check_again(&recorded, &mut first_error);
                if first_error.is_some() {
                    break;
                }
                if hold {
                    match engine.moment() {
                        Ok(moment) => engine.shown.push(moment),
                        Err(err) => {
                            first_error.get_or_insert(err);
                        }
                    }
                }
            }
        });
        match first_error {
            Some(err) => Err(err),
            None => Ok(()),
        }
    }

    /// Before frame `frame` of the past is run again: the code that ran
    /// it runs it, after the migration it had (R1). False when that code
    /// is gone (the error says so).
    pub(super) fn enter_past(&mut self, frame: u64, first_error: &mut Option<Error>) -> bool {
        let Some(span) = self.history.as_ref().map(|h| h.span(frame)) else {
            return true;
        };
        if let Err(err) = self.run_generation(span.generation) {
            first_error.get_or_insert(err);
            return false;
        }
        if span.first == frame
            && span.migrated
            && let Err(err) = self.game.migrate()
        {
            first_error.get_or_insert(Error::script(format!("frame {frame}: {err}")));
            return false;
        }
        true
    }

    /// Runs `run` with the live input queue set aside and the game told
    /// it is replaying (no sound, no save, no quit), then puts both back:
    /// the live queue waits for the next delivered frame, as it did.
    pub(super) fn replaying<R>(&mut self, run: impl FnOnce(&mut Self) -> R) -> R {
        let live = self.input.take_queue();
        self.game.set_replaying(true);
        let result = run(self);
        self.game.set_replaying(false);
        for event in live {
            self.input.push(event);
        }
        result
    }
}
