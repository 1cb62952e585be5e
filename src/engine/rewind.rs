//! The engine's side of history (R1-R3): keeping each frame as it is
//! delivered, and building any kept frame again by running `update` on
//! the recorded input from the keyframe before it.
//!
//! A frame run again gets what it got the first time: its delta, the
//! input events queued for it, and what `input:hover()` answered. It plays
//! no sound (its cues go to a log no one drains), writes no save, cannot
//! quit, and is not rendered: only the frame shown at the end is.

use super::*;
use crate::history::{Hovered, Keyframe};
use crate::input::InputEvent;

/// A frame of history held whole: the engine's counters, the input after
/// it closed, and the state as the game holds it.
#[derive(Debug)]
pub(super) struct Moment {
    frame: u64,
    time: f64,
    last_dt: f64,
    input: InputFrame,
    state: Held,
}

/// A recorded frame copied out of history: to run again while history
/// changes (a reload replaces the old future), or beside it.
struct Recorded {
    dt: f64,
    events: Vec<InputEvent>,
    hover: Option<Option<String>>,
    hash: Option<u64>,
}

impl Recorded {
    fn of(history: &History, frame: u64) -> Recorded {
        let entry = history.entry(frame);
        Recorded {
            dt: entry.map_or(0.0, |e| e.dt),
            events: history.events(frame).collect(),
            hover: match history.hovered(frame) {
                Hovered::NotAsked => None,
                Hovered::Nothing => Some(None),
                Hovered::Object(name) => Some(Some(name.to_string())),
            },
            hash: entry.and_then(|e| e.hash),
        }
    }

    /// What hover answered: not asked, nothing, or an object.
    fn hover(&self) -> Option<Option<&str>> {
        self.hover.as_ref().map(|answer| answer.as_deref())
    }
}

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
            .ok_or_else(|| Error::Script("R1: this game keeps no history".into()))?;
        self.history = Some(History::new(self.keyframe_of(kept), cap));
        self.shown.clear();
        Ok(())
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

    /// Closes the delivered frame's record with what hover answered and
    /// the hash it left.
    pub(super) fn close_history(&mut self) {
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
        if !history.close(self.last_dt, hovered, digest) {
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
        self.errors.push(Error::Script(why));
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
    fn check_kept(&self, frame: u64, asked: &str) -> Result<&History> {
        if self.replay.is_some() {
            return Err(Error::Script(format!(
                "R2: {asked}: this run writes --record-input, whose log only goes forward"
            )));
        }
        let Some(history) = &self.history else {
            return Err(Error::Script(format!(
                "R1: {asked}: this run keeps no history"
            )));
        };
        let frames = history.frames();
        if !frames.contains(&frame) {
            return Err(Error::Script(format!(
                "R1: {asked}: frame {frame} is not in history, which holds frames {} to {}{}",
                frames.start(),
                frames.end(),
                if frame < *frames.start() && *frames.start() > 0 {
                    " (older frames were dropped to stay within its memory cap)"
                } else {
                    ""
                }
            )));
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
            return Err(Error::Script(format!(
                "R2: rewind({frames}) from frame {} goes past the start of history (frame {oldest})",
                self.frame
            )));
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

    /// Calls `visit` with the game standing at frame `frame` of history,
    /// then puts the present back (R1).
    ///
    /// # Errors
    /// As [`Engine::show`].
    pub fn with_state_at<R>(&mut self, frame: u64, visit: impl FnOnce(&G) -> R) -> Result<R> {
        self.check_kept(frame, &format!("state_at({frame})"))?;
        let now = self.moment()?;
        let built = self.rebuild(frame, false);
        let seen = built.map(|()| visit(&self.game));
        self.go_to(&now)?;
        seen
    }

    /// Reloads after `changed`, then runs the recorded frames after `from`
    /// again with the new code, from the state frame `from` left (R3).
    /// Returns what the reload changed and the first frame whose state
    /// hash differs from the old run's, or `None` when none does. The new
    /// run becomes history.
    ///
    /// # Errors
    /// History does not hold `from`, or the new code does not load: then
    /// nothing changes, history included. An error of a frame run again
    /// is the frame's own and does not stop the run; the first is
    /// returned after it.
    pub fn reload_from(
        &mut self,
        changed: &[PathBuf],
        from: u64,
    ) -> Result<(Reloaded, Option<u64>)> {
        self.check_kept(from, &format!("reload from frame {from}"))?;
        let now = self.moment()?;
        // The state at `from` is the old run's, built with the old code.
        self.rebuild(from, false)?;
        let past = self.moment()?;
        self.go_to(&now)?;
        let reloaded = self.reload(changed)?;

        let history = self.history.as_ref().expect("checked above");
        let old: Vec<Recorded> = (from + 1..=history.last())
            .map(|frame| Recorded::of(history, frame))
            .collect();
        self.go_to(&past)?;
        let mut first_error = self.game.migrate().err();
        let mut diverged = None;
        self.replaying(|engine| {
            for recorded in &old {
                let hash = engine.run_again(recorded, true, &mut first_error);
                if diverged.is_none() && hash != recorded.hash {
                    diverged = Some(engine.frame);
                }
            }
        });
        self.shown.clear();
        match first_error {
            Some(err) => Err(err),
            None => Ok((reloaded, diverged)),
        }
    }

    /// Writes history as a replay log (the format `--record-input`
    /// writes), with the S7 hash of every frame, built by running history
    /// again from frame 0: `seed` and `saved` are what the run started
    /// from, `game` the name the log records (R1, H11).
    ///
    /// # Errors
    /// History no longer reaches frame 0 (its cap dropped the oldest
    /// frames), or a frame run again failed.
    pub fn history_replay(
        &mut self,
        seed: u64,
        game: &str,
        saved: Option<&str>,
    ) -> Result<crate::replay::Replay> {
        let last = self.check_kept(0, "a replay of history")?.last();
        let now = self.moment()?;
        self.rebuild(0, false)?;
        let mut replay = crate::replay::Replay {
            deltas: Vec::with_capacity(last as usize),
            script: crate::input::Script::new(Vec::new()),
            seed,
            game: Some(game.to_string()),
            saved: saved.map(str::to_string),
            hashes: Vec::with_capacity(last as usize),
            cut: None,
        };
        let mut events = Vec::new();
        let mut first_error = None;
        self.replaying(|engine| {
            for frame in 1..=last {
                let recorded = Recorded::of(engine.history.as_ref().expect("checked above"), frame);
                let when = crate::input::When::Frame(frame);
                events.extend(recorded.events.iter().map(|e| (when, *e)));
                engine.run_again(&recorded, false, &mut first_error);
                replay.deltas.push(recorded.dt);
                replay.hashes.push(engine.game.state_hash());
            }
        });
        replay.script = crate::input::Script::new(events);
        self.go_to(&now)?;
        match first_error {
            Some(err) => Err(err),
            None => Ok(replay),
        }
    }

    /// Holds where the engine stands now.
    fn moment(&self) -> Result<Moment> {
        let state = self
            .game
            .hold()
            .ok_or_else(|| Error::Script("R1: this game keeps no history".into()))?;
        Ok(Moment {
            frame: self.frame,
            time: self.time,
            last_dt: self.last_dt,
            input: self.input.for_history(),
            state,
        })
    }

    /// Stands the engine where `moment` was.
    fn go_to(&mut self, moment: &Moment) -> Result {
        self.game.put(&moment.state)?;
        self.frame = moment.frame;
        self.time = moment.time;
        self.last_dt = moment.last_dt;
        self.input.restore(moment.input.clone());
        Ok(())
    }

    /// Builds frame `frame` from the keyframe before it; with `hold`,
    /// keeps every frame of the stretch in `shown`.
    fn rebuild(&mut self, frame: u64, hold: bool) -> Result {
        let history = self.history.as_ref().expect("checked by the caller");
        let key = history
            .keyframe_before(frame)
            .expect("a kept frame has a keyframe")
            .clone();
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
                let history = engine.history.as_ref().expect("checked by the caller");
                let recorded = Recorded::of(history, f);
                engine.run_again(&recorded, false, &mut first_error);
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

    /// Runs `run` with the live input queue set aside and the game told
    /// it is replaying (no sound, no save, no quit), then puts both back:
    /// the live queue waits for the next delivered frame, as it did.
    fn replaying<R>(&mut self, run: impl FnOnce(&mut Self) -> R) -> R {
        let live = self.input.take_queue();
        self.game.set_replaying(true);
        let result = run(self);
        self.game.set_replaying(false);
        for event in live {
            self.input.push(event);
        }
        result
    }

    /// Runs one recorded frame again: its delta, its queued events and
    /// what hover answered (the live queue is set aside by
    /// [`Engine::replaying`]). With `record`, the frame is history's anew,
    /// and the hash it left is returned.
    fn run_again(
        &mut self,
        recorded: &Recorded,
        record: bool,
        first_error: &mut Option<Error>,
    ) -> Option<u64> {
        let (dt, events, hover) = (recorded.dt, &recorded.events, recorded.hover());
        self.frame += 1;
        self.time += dt;
        self.last_dt = dt;
        for event in events {
            self.input.push(*event);
        }
        if record && let Some(history) = &mut self.history {
            history.open(self.frame);
            for event in events {
                history.event(*event);
            }
        }
        self.input.begin(|_| {});
        let ctx = UpdateCtx {
            frame: self.frame,
            input: &self.input,
            cues: &mut self.quiet,
            pick: Pick {
                from: PickFrom::Recorded(hover.flatten()),
                asked: None,
            },
        };
        if let Err(err) = self.game.update(ctx, dt) {
            first_error.get_or_insert(Error::Script(format!("frame {}: {err}", self.frame)));
        }
        self.quiet.drain().for_each(drop);
        self.quiet.take_warnings();
        self.input.close();
        if !record {
            return None;
        }
        let hash = self.game.digest();
        if let Some(history) = &mut self.history {
            let hovered = match hover {
                None => Hovered::NotAsked,
                Some(None) => Hovered::Nothing,
                Some(Some(name)) => Hovered::Object(name),
            };
            // A recorded answer is a name history kept already.
            let _ = history.close(dt, hovered, hash);
        }
        self.keyframe();
        hash
    }
}
