//! Cues and sound actions: what `update` does with sound, logged per frame
//! (rules H7, H13).
//!
//! The log is what tests read; the audio device (when there is one) or the
//! `--audio` renderer plays from it. Names are interned, so a game
//! replaying the same few cues adds nothing to the heap but the log
//! entries themselves. The log also knows which named sounds the game has
//! started and not stopped, so a stop of one that is not playing is named.

use crate::Refusal;
use std::rc::Rc;

/// The buses a voice plays on; both go through the master bus.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bus {
    /// Everything, after the other two.
    Master,
    /// Music.
    Music,
    /// Everything else (the default for sounds and cues).
    Effects,
}

impl Bus {
    /// The bus named `name`.
    pub fn from_name(name: &str) -> Option<Bus> {
        match name {
            "master" => Some(Bus::Master),
            "music" => Some(Bus::Music),
            "effects" => Some(Bus::Effects),
            _ => None,
        }
    }

    /// The bus's name.
    pub fn name(self) -> &'static str {
        match self {
            Bus::Master => "master",
            Bus::Music => "music",
            Bus::Effects => "effects",
        }
    }
}

/// What a logged entry does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// A cue: a sound played once, named by its sound (`input:cue`).
    Cue,
    /// A named sound starts (`input:play`).
    Play,
    /// A named sound ends (`input:stop`).
    Stop,
    /// A named sound holds (`input:pause`).
    Pause,
    /// A held sound goes on (`input:resume`).
    Resume,
    /// A named sound's volume, pitch or pan changes (`input:set`).
    Set,
    /// A bus's volume changes (`input:bus`).
    Bus,
}

impl Action {
    /// The action's name, as tests read it.
    pub fn name(self) -> &'static str {
        match self {
            Action::Cue => "cue",
            Action::Play => "play",
            Action::Stop => "stop",
            Action::Pause => "pause",
            Action::Resume => "resume",
            Action::Set => "set",
            Action::Bus => "bus",
        }
    }
}

/// One cue or sound action of `update`.
#[derive(Debug, Clone, PartialEq)]
pub struct Cue {
    /// The delivered frame whose `update` did it.
    pub frame: u64,
    /// What it does.
    pub action: Action,
    /// A cue's sound; the name the game gave a sound (play to set); a
    /// bus's name.
    pub name: Rc<str>,
    /// What a `play` plays: a sound file or a cue name.
    pub sound: Option<Rc<str>>,
    /// Whether a `play` loops until stopped.
    pub looped: bool,
    /// A `play`'s bus, or the bus a `bus` action sets.
    pub bus: Bus,
    /// Seconds a play fades in, a stop out, a set or bus moves over.
    pub fade: f64,
    /// Loudness, 0 to 1. Default: 1.
    pub volume: f64,
    /// Playback rate, 1 is the sound as recorded. Default: 1.
    pub pitch: f64,
    /// Stereo position, -1 left to 1 right. Default: 0.
    pub pan: f64,
}

/// A named sound the game started and has not stopped.
#[derive(Debug, Clone)]
struct Playing {
    name: Rc<str>,
    volume: f64,
    pitch: f64,
    pan: f64,
}

/// The cues and sound actions so far.
#[derive(Debug, Default)]
pub struct CueLog {
    cues: Vec<Cue>,
    names: Vec<Rc<str>>,
    playing: Vec<Playing>,
    warnings: Vec<String>,
}

/// The most named sounds the log remembers as playing; past it the
/// oldest is forgotten (the mixer sounds at most 32 at once anyway).
pub const MAX_PLAYING: usize = 256;

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
    /// As [`CueLog::push`].
    pub fn play(
        &mut self,
        frame: u64,
        name: &str,
        volume: f64,
        pitch: f64,
        pan: f64,
    ) -> Result<(), Refusal> {
        let name = self.intern(name)?;
        self.push(Cue {
            frame,
            action: Action::Cue,
            name,
            sound: None,
            looped: false,
            bus: Bus::Effects,
            fade: 0.0,
            volume,
            pitch,
            pan,
        })
    }

    /// Interns `name`.
    ///
    /// # Errors
    /// The name is too long or one of too many (H10).
    pub fn intern(&mut self, name: &str) -> Result<Rc<str>, Refusal> {
        if name.len() > MAX_NAME {
            return Err(refuse!(
                "a cue name of {} bytes is too long (at most {MAX_NAME}, H10)",
                name.len()
            ));
        }
        match self.names.iter().find(|n| &***n == name) {
            Some(interned) => Ok(interned.clone()),
            None if self.names.len() == MAX_NAMES => Err(refuse!(
                "a game plays at most {MAX_NAMES} different cue names (H10)"
            )),
            None => {
                let interned: Rc<str> = name.into();
                self.names.push(interned.clone());
                Ok(interned)
            }
        }
    }

    /// Returns the volume, pitch and pan of named sound `name` if the game
    /// started it and has not stopped it.
    pub fn playing(&self, name: &str) -> Option<(f64, f64, f64)> {
        self.playing
            .iter()
            .find(|p| &*p.name == name)
            .map(|p| (p.volume, p.pitch, p.pan))
    }

    /// Logs `cue`, and keeps what it says about which named sounds play.
    ///
    /// # Errors
    /// The frame has logged [`MAX_PER_FRAME`] entries, or the log is full
    /// (H10): each bounds what the host keeps on the game's behalf.
    pub fn push(&mut self, cue: Cue) -> Result<(), Refusal> {
        let this_frame = self
            .cues
            .iter()
            .rev()
            .take_while(|c| c.frame == cue.frame)
            .count();
        if this_frame == MAX_PER_FRAME {
            return Err(refuse!("a frame plays at most {MAX_PER_FRAME} cues (H10)"));
        }
        if self.cues.len() == MAX_LOGGED {
            return Err(refuse!(
                "the cue log holds {MAX_LOGGED} cues, the most it keeps (H10: a test that \
                 runs this long should read e.cues and start a new engine)"
            ));
        }
        match cue.action {
            Action::Play | Action::Set => {
                self.playing.retain(|p| p.name != cue.name);
                if self.playing.len() == MAX_PLAYING {
                    self.playing.remove(0);
                }
                self.playing.push(Playing {
                    name: cue.name.clone(),
                    volume: cue.volume,
                    pitch: cue.pitch,
                    pan: cue.pan,
                });
            }
            Action::Stop => self.playing.retain(|p| p.name != cue.name),
            _ => {}
        }
        self.cues.push(cue);
        Ok(())
    }

    /// Keeps a line about a sound action that did nothing (a stop of a
    /// sound that is not playing), for the frame's errors.
    pub fn warn(&mut self, line: String) {
        if self.warnings.len() < 64 {
            self.warnings.push(line);
        }
    }

    /// Takes the lines kept since the last call.
    pub fn take_warnings(&mut self) -> Vec<String> {
        std::mem::take(&mut self.warnings)
    }

    /// Returns every cue logged, oldest first.
    pub fn cues(&self) -> &[Cue] {
        &self.cues
    }

    /// Forgets the cues of frame `frame` and later: a past frame is being
    /// played again live, and its old future goes (R2).
    pub fn forget_from(&mut self, frame: u64) {
        self.cues.retain(|cue| cue.frame < frame);
    }

    /// Keeps only the logged cues `keep` says to (online play drops the
    /// sounds a frame run again played the first time).
    pub fn retain(&mut self, keep: impl FnMut(&Cue) -> bool) {
        self.cues.retain(keep);
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
