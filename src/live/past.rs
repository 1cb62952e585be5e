//! The window's hands on history (rules R2-R5): F9 held going back at 60
//! frames a second of wall time, F10 and F6 stepping through what was
//! recorded, the timeline's frame, F12 running the past again through the
//! live code, and Shift+F9 seeking the frames where an expression holds.
//! Every call says what went wrong as one line for the overlay, and is
//! said on the terminal where a person asked for a long job (F12, a seek).

use std::time::{Duration, Instant};

use crate::engine::{Engine, Game};
use crate::error::Result;
use crate::terminal::tell;

/// The longest F12 (and a Shift+F9 seek) runs the past before it stops,
/// changing nothing: a window that froze for a minute on a looping game
/// was no answer.
pub const PAST_LIMIT: Duration = Duration::from_secs(10);

/// A predicate over the state, for Shift+F9 to seek (R4).
pub type Seek<G> = Box<dyn FnMut(&G, u64) -> Result<bool>>;

/// What the window's time controls remember between frames.
pub struct Past<G> {
    /// When F9 held began going back, and how many frames it has gone:
    /// it goes back at 60 frames a second of wall time, whatever the
    /// window's own frame rate (at 45 it went 45).
    rewind: Option<(Instant, u64)>,
    /// The first frame the last run of the past changed (F12, R3).
    changed_at: Option<u64>,
    /// What Shift+F9 seeks, and the expression as it was typed.
    seek: Option<(Seek<G>, String)>,
}

impl<G> Default for Past<G> {
    fn default() -> Self {
        Past {
            rewind: None,
            changed_at: None,
            seek: None,
        }
    }
}

impl<G: Game> Past<G> {
    /// Lets Shift+F9 seek where `seek` holds.
    pub fn set_seek(&mut self, seek: Option<(Seek<G>, String)>) {
        self.seek = seek;
    }

    /// Returns the first frame the last run of the past changed.
    pub fn changed_at(&self) -> Option<u64> {
        self.changed_at
    }

    /// Goes back the frames F9 has owed since it went down, when `held`
    /// at `now`; returns whether the frame shown changed, and what went
    /// wrong.
    pub fn rewind(
        &mut self,
        engine: &mut Engine<G>,
        held: bool,
        now: Instant,
    ) -> (bool, Option<String>) {
        if !held {
            self.rewind = None;
            return (false, None);
        }
        let (since, gone) = *self.rewind.get_or_insert((now, 0));
        let due = ((now - since).as_secs_f64() / crate::engine::STEP_DELTA) as u64 + 1;
        if due <= gone {
            return (false, None);
        }
        self.rewind = Some((since, due));
        (true, Self::back(engine, due - gone))
    }

    /// Shows the frame `frames` before the one shown, drawn by the code
    /// that ran it (R2, R5); at the start of history it stays there.
    pub fn back(engine: &mut Engine<G>, frames: u64) -> Option<String> {
        let oldest = *engine.history()?.frames().start();
        let target = engine.frame().saturating_sub(frames).max(oldest);
        Self::show(engine, target)
    }

    /// Steps forward one frame through the recorded future, keeping it
    /// (F6 after a rewind); returns whether there was one to step to.
    pub fn forward(engine: &mut Engine<G>) -> (bool, Option<String>) {
        let ahead = engine.history().is_some_and(|h| engine.frame() < h.last());
        if !ahead {
            return (false, None);
        }
        let next = engine.frame() + 1;
        (true, Self::show(engine, next))
    }

    /// Shows frame `frame` of history.
    pub fn show(engine: &mut Engine<G>, frame: u64) -> Option<String> {
        match engine.show(frame) {
            Ok(()) => {
                engine.render_again();
                None
            }
            Err(err) => Some(crate::terminal::line(&err.to_string())),
        }
    }

    /// Runs the recorded frames again from the keyframe at or before the
    /// frame shown, with the code as it is now, and marks the first frame
    /// whose state differs from the old run's (F12, R3, R6).
    pub fn run_again(&mut self, engine: &mut Engine<G>) -> Option<String> {
        let history = engine.history()?;
        let from = history
            .keyframe_frames()
            .filter(|&k| k <= engine.frame())
            .last()
            .unwrap_or(0);
        let last = history.last();
        match within_limit(engine, "F12", |engine| engine.reload_from(&[], from)) {
            Ok((_, changed)) => {
                self.changed_at = changed;
                match changed {
                    Some(frame) => tell!(
                        "ran frames {} to {last} again: the state first differs at frame {frame}",
                        from + 1
                    ),
                    None => tell!(
                        "ran frames {} to {last} again: no frame's state differs",
                        from + 1
                    ),
                }
                engine.render_again();
                None
            }
            Err(err) => {
                let line = crate::terminal::line(&err.to_string());
                tell!("moonloop: {line}");
                Some(line)
            }
        }
    }

    /// Shift+F9: shows the next frame of history after the one shown at
    /// which the `--when` expression holds, going round to the oldest
    /// frame when none after it does (R4). Returns whether it found one
    /// (the window then pauses on it).
    pub fn seek_next(&mut self, engine: &mut Engine<G>) -> (bool, Option<String>) {
        let Some((mut holds, when)) = self.seek.take() else {
            let line = "Shift+F9 seeks the frames where an expression holds: start the window \
                        with --when EXPR (moonloop run GAME --when 'state.lives == 0')";
            tell!("moonloop: {line}");
            return (false, Some(line.to_string()));
        };
        let shown = engine.frame();
        let found = within_limit(engine, "Shift+F9", |engine| {
            let oldest = engine.history().map_or(0, |h| *h.frames().start());
            match engine.seek_from(shown + 1, &mut holds)? {
                Some(frame) => Ok(Some(frame)),
                None if shown > oldest => engine.seek_from(oldest, &mut holds),
                None => Ok(None),
            }
        });
        let said = match found {
            Ok(Some(frame)) => {
                tell!("--when `{when}` holds at frame {frame}");
                (true, Self::show(engine, frame))
            }
            Ok(None) => {
                let line = format!("--when `{when}` holds at no frame of history");
                tell!("moonloop: {line}");
                (false, Some(line))
            }
            Err(err) => {
                let line = format!("--when: {}", crate::terminal::line(&err.to_string()));
                tell!("moonloop: {line}");
                (false, Some(line))
            }
        };
        self.seek = Some((holds, when));
        said
    }
}

/// Runs `f` on `engine` with re-simulation stopped after [`PAST_LIMIT`]
/// of wall time (`what` names who asked, in the error).
fn within_limit<G: Game, R>(
    engine: &mut Engine<G>,
    what: &'static str,
    f: impl FnOnce(&mut Engine<G>) -> R,
) -> R {
    let until = Instant::now() + PAST_LIMIT;
    engine.set_resimulation_limit(Some(Box::new(move || {
        (Instant::now() > until).then(|| {
            format!(
                "{what} ran the past for {} s and stopped (a frame that takes long, or a loop \
                 that never ends?); nothing changed",
                PAST_LIMIT.as_secs()
            )
        })
    })));
    let result = f(engine);
    engine.set_resimulation_limit(None);
    result
}
