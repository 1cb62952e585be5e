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

impl CueLog {
    /// Records a cue played on `frame`.
    pub fn play(&mut self, frame: u64, name: &str, volume: f64, pitch: f64, pan: f64) {
        let name = match self.names.iter().find(|n| &***n == name) {
            Some(interned) => interned.clone(),
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
        log.play(3, "hit", 1.0, 1.0, 0.0);
        log.play(5, "hit", 0.5, 2.0, -1.0);
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
}
