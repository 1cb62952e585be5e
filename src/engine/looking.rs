//! Reading history without moving the present (rules R1, R4): the state
//! at any kept frame, the first frame where a predicate holds, and the
//! whole session written as a replay log. Each runs the past again with
//! the code that ran it, then puts the present back.

use super::recorded::Recorded;
use super::{Engine, Game};
use crate::error::Result;

impl<G: Game> Engine<G> {
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

    /// Finds the first frame of history, from its oldest, whose state
    /// `holds` (given the game standing at that frame, and the frame),
    /// running each frame again once, in order (R4); the present is put
    /// back. `None` when it never holds.
    ///
    /// # Errors
    /// History is not kept, a frame run again fails, the re-simulation
    /// limit stops it, or `holds` fails; the present is put back.
    pub fn seek(&mut self, holds: impl FnMut(&G, u64) -> Result<bool>) -> Result<Option<u64>> {
        let oldest = *self.check_kept(self.frame, "seek")?.frames().start();
        self.seek_from(oldest, holds)
    }

    /// Finds the first frame of history from `first` on (from its oldest
    /// when `first` is older) whose state `holds`, as [`Engine::seek`]
    /// does; `None` when it never holds, or `first` is past history's
    /// last frame.
    ///
    /// # Errors
    /// As [`Engine::seek`].
    pub fn seek_from(
        &mut self,
        first: u64,
        mut holds: impl FnMut(&G, u64) -> Result<bool>,
    ) -> Result<Option<u64>> {
        let history = self.check_kept(self.frame, "seek")?;
        let (first, last) = (first.max(*history.frames().start()), history.last());
        if first > last {
            return Ok(None);
        }
        let now = self.moment()?;
        let found = self.rebuild(first, false).and_then(|()| {
            if holds(&self.game, first)? {
                return Ok(Some(first));
            }
            self.replaying(|engine| {
                for frame in first + 1..=last {
                    if let Some(err) = engine.over_limit(frame) {
                        return Err(err);
                    }
                    let mut failed = None;
                    if engine.enter_past(frame, &mut failed) {
                        let history = engine.history.as_ref().expect("checked above");
                        let recorded = Recorded::of(history, frame);
                        engine.run_again(&recorded, false, &mut failed);
                        engine.check_again(&recorded, &mut failed);
                    }
                    if let Some(err) = failed {
                        return Err(err);
                    }
                    if holds(&engine.game, frame)? {
                        return Ok(Some(frame));
                    }
                }
                Ok(None)
            })
        });
        self.go_to(&now)?;
        found
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
        self.history_replay_until(seed, game, saved, u64::MAX)
    }

    /// Like [`Engine::history_replay`], of history's frames up to `until`
    /// only: an online session's, whose last frames were played on a
    /// guess of the other player's input.
    ///
    /// # Errors
    /// As [`Engine::history_replay`].
    pub fn history_replay_until(
        &mut self,
        seed: u64,
        game: &str,
        saved: Option<&str>,
        until: u64,
    ) -> Result<crate::replay::Replay> {
        let last = self.check_kept(0, "a replay of history")?.last().min(until);
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
            properties: false,
        };
        let mut events = Vec::new();
        let mut first_error = None;
        self.replaying(|engine| {
            for frame in 1..=last {
                if let Some(err) = engine.over_limit(frame) {
                    first_error.get_or_insert(err);
                    break;
                }
                engine.enter_past(frame, &mut first_error);
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
}
