//! A headless run's recording (rule H4, step 8): a compositor with no
//! window that draws each delivered frame, and the recorder it hands the
//! picture to.

use crate::compositor::{Compositor, Steps};
use crate::engine::{Engine, Game};
use crate::record::Recorder;

/// What a run records each delivered frame with (step 8).
pub struct Capture {
    /// Draws the frame.
    pub compositor: Compositor,
    /// Takes it.
    pub recorder: Recorder,
}

impl Capture {
    /// Starts recording to `path` on a headless compositor; `blocking` as
    /// for [`Recorder::start`].
    ///
    /// # Errors
    /// No adapter, or the path cannot be written.
    pub fn start(path: &std::path::Path, blocking: bool) -> crate::Result<Capture> {
        let recorder = Recorder::start(path, blocking)?;
        Ok(Capture {
            compositor: Compositor::headless()?,
            recorder,
        })
    }

    /// Draws `engine`'s last frame and hands it to the recorder; returns
    /// what went wrong drawing it, if anything did.
    pub fn take<G: Game>(&mut self, engine: &mut Engine<G>) -> Option<crate::Error> {
        let steps = Steps {
            record: Some(&mut self.recorder),
            ..Steps::default()
        };
        self.compositor.frame(engine, steps)
    }
}
