//! Cues: named sounds that `update` plays, logged per frame (rule H7).
//!
//! The log is what tests read; the audio device (when there is one) plays
//! from it. Cue names are interned, so a game replaying the same few cues
//! adds nothing to the heap but the log entries themselves.

use std::rc::Rc;

/// One cue played by `update`.
#[derive(Debug, Clone, PartialEq)]
pub struct Cue {
    /// The delivered frame whose `update` played it.
    pub frame: u64,
    /// The cue's name, as the game wrote it.
    pub name: Rc<str>,
    /// Loudness, 0 to 1. Default: 1.
    pub volume: f64,
    /// Playback rate, 1 is the sound as recorded. Default: 1.
    pub pitch: f64,
    /// Stereo position, -1 left to 1 right. Default: 0.
    pub pan: f64,
}

/// The cues played so far.
#[derive(Debug, Default)]
pub struct CueLog {
    cues: Vec<Cue>,
    names: Vec<Rc<str>>,
}

/// The longest cue name, in bytes.
pub const MAX_NAME: usize = 256;

/// The most different cue names a game may play.
pub const MAX_NAMES: usize = 1024;

/// The most cues one frame may play.
pub const MAX_PER_FRAME: usize = 256;

/// The most cues the log holds before it is drained (a test that never
/// drains it reads them all).
pub const MAX_LOGGED: usize = 1_000_000;

impl CueLog {
    /// Records a cue played on `frame`.
    ///
    /// # Errors
    /// The name is too long or one of too many, the frame has played
    /// [`MAX_PER_FRAME`] cues, or the log is full (H10): each bounds what
    /// the host keeps on the game's behalf.
    pub fn play(
        &mut self,
        frame: u64,
        name: &str,
        volume: f64,
        pitch: f64,
        pan: f64,
    ) -> Result<(), String> {
        if name.len() > MAX_NAME {
            return Err(format!(
                "a cue name of {} bytes is too long (at most {MAX_NAME}, H10)",
                name.len()
            ));
        }
        let this_frame = self
            .cues
            .iter()
            .rev()
            .take_while(|c| c.frame == frame)
            .count();
        if this_frame == MAX_PER_FRAME {
            return Err(format!("a frame plays at most {MAX_PER_FRAME} cues (H10)"));
        }
        if self.cues.len() == MAX_LOGGED {
            return Err(format!(
                "the cue log holds {MAX_LOGGED} cues, the most it keeps (H10: a test that \
                 runs this long should read e.cues and start a new engine)"
            ));
        }
        let name = match self.names.iter().find(|n| &***n == name) {
            Some(interned) => interned.clone(),
            None if self.names.len() == MAX_NAMES => {
                return Err(format!(
                    "a game plays at most {MAX_NAMES} different cue names (H10)"
                ));
            }
            None => {
                let interned: Rc<str> = name.into();
                self.names.push(interned.clone());
                interned
            }
        };
        self.cues.push(Cue {
            frame,
            name,
            volume,
            pitch,
            pan,
        });
        Ok(())
    }

    /// Returns every cue logged, oldest first.
    pub fn cues(&self) -> &[Cue] {
        &self.cues
    }

    /// Removes and returns the logged cues (a player drains them each frame).
    pub fn drain(&mut self) -> std::vec::Drain<'_, Cue> {
        self.cues.drain(..)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // rule: H7
    #[test]
    fn cues_are_logged_with_their_frame() {
        let mut log = CueLog::default();
        log.play(3, "hit", 1.0, 1.0, 0.0).unwrap();
        log.play(5, "hit", 0.5, 2.0, -1.0).unwrap();
        let frames: Vec<(u64, &str, f64)> = log
            .cues()
            .iter()
            .map(|c| (c.frame, &*c.name, c.volume))
            .collect();
        assert_eq!(frames, [(3, "hit", 1.0), (5, "hit", 0.5)]);
        assert!(
            Rc::ptr_eq(&log.cues()[0].name, &log.cues()[1].name),
            "names are interned"
        );
    }

    // rule: H10
    #[test]
    fn what_the_log_keeps_is_bounded() {
        let mut log = CueLog::default();
        assert!(
            log.play(1, &"x".repeat(MAX_NAME + 1), 1.0, 1.0, 0.0)
                .is_err()
        );
        for i in 0..MAX_PER_FRAME {
            log.play(1, "hit", 1.0, 1.0, 0.0)
                .unwrap_or_else(|e| panic!("{i}: {e}"));
        }
        assert_eq!(
            log.play(1, "hit", 1.0, 1.0, 0.0).unwrap_err(),
            "a frame plays at most 256 cues (H10)"
        );
        log.play(2, "hit", 1.0, 1.0, 0.0).unwrap();
        for i in 1..MAX_NAMES {
            log.play(3 + i as u64, &format!("n{i}"), 1.0, 1.0, 0.0)
                .unwrap();
        }
        assert_eq!(
            log.play(9999, "one more", 1.0, 1.0, 0.0).unwrap_err(),
            "a game plays at most 1024 different cue names (H10)"
        );
        log.play(9999, "hit", 1.0, 1.0, 0.0).unwrap();
    }
}
