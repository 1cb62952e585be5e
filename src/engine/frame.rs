//! The one way a frame runs (steps 2 to 11 of SPEC.md): live play, a
//! rollback's frames, history's re-simulation and the sync test's all
//! come here. What differs is where the frame's input and answers come
//! from ([`Source`]), and so what it leaves: a live frame is recorded,
//! drawn and checked; a frame run again from history is run as it was,
//! its cues let go and nothing drawn.

use super::recorded::Recorded;
use super::{Engine, Game, Pick, PickFrom, UpdateCtx};
use crate::error::Error;
use crate::history::Hovered;

/// Where a frame's input and answers come from.
pub(super) enum Source<'a> {
    /// The queue (or the input script), with the pointer cast into the
    /// scene as last drawn: play, a rollback's frames, exploration. The
    /// frame goes into history, is drawn and checked against a replay;
    /// what goes wrong is the frame's error.
    Live,
    /// A frame history recorded (R1, R3, N1): its events, and what hover
    /// answered then. Its cues are let go and nothing is drawn; with
    /// `record`, history takes it anew (a re-simulation through new
    /// code). What goes wrong first goes into `first_error`.
    Again {
        recorded: &'a Recorded,
        record: bool,
        first_error: &'a mut Option<Error>,
    },
}

impl<G: Game> Engine<G> {
    /// Runs steps 2 to 11 of one frame worth `dt` seconds, from `source`.
    /// Returns the digest history took of a frame run again with
    /// `record`.
    pub(super) fn run_frame(&mut self, dt: f64, source: Source<'_>) -> Option<u64> {
        let live = matches!(source, Source::Live);
        if live {
            self.errors.clear();
        }

        // 2. The frame counter, simulated time and the last delta advance;
        // the frame's input opens.
        self.frame += 1;
        self.time += dt;
        self.last_dt = dt;
        match &source {
            Source::Live => self.begin_input(dt),
            Source::Again {
                recorded, record, ..
            } => self.begin_again(recorded, *record),
        }

        // 3 and 4. The viewport follows the surface; the screen is cleared.
        if live {
            self.clear_layers();
        }

        // 5. update runs; its result replaces the state.
        let (cues, pick) = match &source {
            Source::Live => (
                &mut self.cues,
                Pick {
                    from: PickFrom::Scene {
                        scene: &self.scene,
                        assets: &self.assets,
                    },
                    asked: self.history.is_some().then_some(&self.asked),
                },
            ),
            Source::Again { recorded, .. } => (
                &mut self.quiet,
                Pick {
                    from: PickFrom::Recorded(recorded.hover().flatten()),
                    asked: None,
                },
            ),
        };
        let ctx = UpdateCtx {
            frame: self.frame,
            input: &self.input,
            cues,
            pick,
        };
        let updated = self.game.update(ctx, dt);

        match source {
            Source::Live => {
                let refused = updated.map_err(|err| self.errors.push(err)).is_err();
                for warning in self.cues.take_warnings() {
                    self.errors.push(Error::script(warning));
                }
                // History closes the frame before render moves the scene:
                // a hover it asked is answered again from the scene that
                // frame saw, the one drawn last (H6).
                self.close_history(refused);
                // 6 and 7. render runs; world matrices and the camera follow.
                self.render_layers();
                self.check_hash();
                // 11. The input frame closes.
                self.input.close();
                self.keyframe();
                self.sync_check();
                None
            }
            Source::Again {
                recorded,
                record,
                first_error,
            } => {
                // A frame whose update was refused when it ran is refused
                // again: the state stays as it did then, which the digest
                // checks.
                let refused = match updated {
                    Ok(()) => false,
                    Err(_) if recorded.refused => true,
                    Err(err) => {
                        first_error
                            .get_or_insert(Error::script(format!("frame {}: {err}", self.frame)));
                        true
                    }
                };
                self.quiet.drain().for_each(drop);
                self.quiet.take_warnings();
                // 11. The input frame closes.
                self.input.close();
                if record {
                    return self.close_again(recorded, refused);
                }
                None
            }
        }
    }

    /// Opens a frame run again with the events it recorded; history opens
    /// it anew when it is to `record` it.
    fn begin_again(&mut self, recorded: &Recorded, record: bool) {
        for event in &recorded.events {
            self.input.push(*event);
        }
        if record && let Some(history) = &mut self.history {
            history.open(self.frame);
            for event in &recorded.events {
                history.event(*event);
            }
        }
        self.input.begin(|_| {});
    }

    /// Closes a frame run again into history anew, with the hover answer
    /// it was given; returns the digest it left.
    fn close_again(&mut self, recorded: &Recorded, refused: bool) -> Option<u64> {
        let hash = self.game.digest();
        if let Some(history) = &mut self.history {
            let hovered = match recorded.hover() {
                None => Hovered::NotAsked,
                Some(None) => Hovered::Nothing,
                Some(Some(name)) => Hovered::Object(name),
            };
            // A recorded answer is a name history kept already.
            let _ = history.close(recorded.dt, hovered, hash, refused);
        }
        self.keyframe();
        hash
    }
}
