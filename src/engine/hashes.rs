//! The replay logs a run touches (rule H11): the one it writes
//! (`--record-input`: every delta, input event and state hash) and the one
//! it plays (`--replay`: each frame's hash checked against the recorded
//! one, the first that differs named).

use crate::error::{Error, Result};
use crate::input::InputFrame;
use crate::replay::ReplayWriter;

/// The log being written and the hashes being checked.
#[derive(Default)]
pub(super) struct Logs {
    writer: Option<ReplayWriter>,
    /// The hashes a replay recorded, by frame from 1.
    expected: Option<Vec<Option<String>>>,
    /// The first frame whose hash differed from the replay's.
    diverged: Option<u64>,
    /// The log being written, the frame at which the disk refused it and
    /// why: nothing more is written to it, and the run goes on.
    refused: Option<(std::path::PathBuf, u64, std::io::Error)>,
}

impl Logs {
    /// Writes every frame to `writer` from now on.
    pub(super) fn write_to(&mut self, writer: ReplayWriter) {
        self.writer = Some(writer);
    }

    /// Checks each frame's hash against `hashes` from now on (`None`:
    /// stops checking).
    pub(super) fn check_against(&mut self, hashes: Option<Vec<Option<String>>>) {
        self.expected = hashes;
    }

    /// Says whether a log is being written (history then keeps nothing:
    /// a log only goes forward).
    pub(super) fn writing(&self) -> bool {
        self.writer.is_some()
    }

    /// Says whether the frames' hashes are wanted at all.
    pub(super) fn wants_hashes(&self) -> bool {
        self.writer.is_some() || self.expected.is_some()
    }

    /// Returns the first frame whose hash differed from the replay's.
    pub(super) fn diverged(&self) -> Option<u64> {
        self.diverged
    }

    /// Opens frame `frame` of `dt` seconds in the log being written, with
    /// the events `input` applies now.
    pub(super) fn begin(&mut self, frame: u64, dt: f64, input: &mut InputFrame) -> Result {
        let Some(writer) = &mut self.writer else {
            input.begin(|_| {});
            return Ok(());
        };
        let mut result = writer.frame(frame, dt);
        input.begin(|event| {
            if result.is_ok() {
                result = writer.event(event);
            }
        });
        self.refuse(frame, result)
    }

    /// Stops writing the log at `frame` when `result` says the disk
    /// refused it: said once, at that frame; the log ends at the frame
    /// before, its last whole one, and [`Logs::finish`] says so.
    fn refuse(&mut self, frame: u64, result: Result) -> Result {
        let Err(err) = result else {
            return Ok(());
        };
        if let (Some(writer), Error::Io { source, .. }) = (self.writer.take(), &err) {
            let kind = source.kind();
            let why = std::io::Error::new(kind, source.to_string());
            self.refused = Some((writer.path().to_path_buf(), frame, why));
        }
        Err(err)
    }

    /// Takes frame `frame`'s state `hash`: written to the log being
    /// written, and checked against the replay's. What goes wrong joins
    /// `errors`: a write that failed, and the divergence, the first time.
    pub(super) fn hash(&mut self, frame: u64, hash: &str, errors: &mut Vec<Error>) {
        if let Some(writer) = &mut self.writer {
            let written = writer.hash(hash);
            if let Err(err) = self.refuse(frame, written) {
                errors.push(err);
            }
        }
        let recorded = self
            .expected
            .as_ref()
            .and_then(|hashes| hashes.get(frame as usize - 1))
            .and_then(Option::as_ref);
        if let Some(recorded) = recorded
            && recorded != hash
            && self.diverged.is_none()
        {
            self.diverged = Some(frame);
            errors.push(Error::rule(
                crate::Rule::H11,
                format!(
                    "the replay diverged: frame {frame}'s state hash is {hash}, the replay \
                 recorded {recorded} (the game's code or files changed, or it reads something \
                 that differs between runs)"
                ),
            ));
        }
    }

    /// Ends the log being written and writes it to disk.
    ///
    /// # Errors
    /// The log could not be written.
    pub(super) fn finish(&mut self) -> Result {
        if let Some((path, frame, why)) = self.refused.take() {
            let kind = why.kind();
            return Err(Error::Write {
                path,
                source: std::io::Error::new(
                    kind,
                    format!(
                        "the replay log stops before frame {frame}, where the disk refused it \
                         ({why}); it plays to the frame before"
                    ),
                ),
            });
        }
        match self.writer.take() {
            Some(writer) => writer.finish(),
            None => Ok(()),
        }
    }
}
