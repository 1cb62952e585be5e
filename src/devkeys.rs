//! Developer keys: the host's controls in a window (pause, step, time
//! scale, screenshot, recording, overlay), as a small state machine with
//! no window in it, so every rule here is tested without one.
//!
//! | key | does |
//! |---|---|
//! | F1 | shows or hides the overlay |
//! | F2 | saves a screenshot (the game's picture, without the overlay) |
//! | F3 | starts or stops a recording |
//! | F4 | moves the overlay to the next corner |
//! | F5 | pauses or resumes |
//! | F6 | steps one frame while paused |
//! | F7, F8 | slower and faster: 1/4, 1/2, 1 or 2 times |
//! | F9 | held, goes back through history a frame a frame; let go, plays on from there (R2) |
//! | F10 | steps back one frame while paused |
//! | F12 | runs history again from the frame shown, with the code as it is now (R3) |
//! | Shift+F9 | shows the next frame where `--when` holds (R4, in live.rs) |
//! | Shift+F1 | shows or hides the physics view (P9, live.rs) |
//! | Shift+F2 | writes a bug report (live.rs) |
//!
//! Escape is the game's: the host never quits on a key (close the window,
//! Ctrl+C in the terminal, or the game's `input:quit()`). With
//! `config.dev_controls = false` every key is the game's but F11, the
//! player's fullscreen key (window/look.rs).

use crate::overlay::Corner;

/// The time scales F7 and F8 step through.
pub const SCALES: [f64; 4] = [0.25, 0.5, 1.0, 2.0];

/// A key the developer controls may take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DevKey {
    /// Show or hide the overlay.
    F1,
    /// Screenshot.
    F2,
    /// Start or stop recording.
    F3,
    /// Move the overlay.
    F4,
    /// Pause or resume.
    F5,
    /// Step while paused.
    F6,
    /// Slower.
    F7,
    /// Faster.
    F8,
    /// Rewind while held.
    F9,
    /// Step back while paused.
    F10,
    /// Run history again from the frame shown, with the code as it is now.
    F12,
}

impl DevKey {
    /// Says whether the key moves time (pause, step, speed, rewind, run
    /// again), as opposed to showing or saving what is there.
    pub fn moves_time(self) -> bool {
        !matches!(self, DevKey::F1 | DevKey::F2 | DevKey::F3 | DevKey::F4)
    }

    /// Returns the developer key the host key `key` is, if it is one (F11
    /// is the player's, never a developer key).
    pub fn of(key: crate::input::Key) -> Option<DevKey> {
        Some(match key.name() {
            "f1" => DevKey::F1,
            "f2" => DevKey::F2,
            "f3" => DevKey::F3,
            "f4" => DevKey::F4,
            "f5" => DevKey::F5,
            "f6" => DevKey::F6,
            "f7" => DevKey::F7,
            "f8" => DevKey::F8,
            "f9" => DevKey::F9,
            "f10" => DevKey::F10,
            "f12" => DevKey::F12,
            _ => return None,
        })
    }
}

/// What the window must do after a key or a focus change.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Act {
    /// Nothing beyond redrawing.
    Redraw,
    /// Save a screenshot.
    Screenshot,
    /// Start or stop the recording.
    ToggleRecording,
    /// Pause the engine.
    Pause,
    /// Resume the engine (its clock starts afresh).
    Resume,
    /// Run one frame of the step delta, then stay paused.
    Step,
    /// Multiply each delta by this.
    Scale(f64),
    /// Start (true) or stop going back through history, a frame a frame.
    Rewind(bool),
    /// Show the frame before the one shown.
    StepBack,
    /// Run the recorded frames again from the frame shown (R3).
    RunAgain,
}

/// The developer controls' state.
#[derive(Debug, Clone)]
pub struct DevControls {
    /// Whether the keys work at all (`config.dev_controls`).
    pub enabled: bool,
    /// Whether the overlay shows.
    pub overlay: bool,
    /// Where it shows.
    pub corner: Corner,
    user_paused: bool,
    blurred: bool,
    /// F9 is held.
    pub rewinding: bool,
    had_focus: bool,
    scale: usize,
}

impl DevControls {
    /// Creates the controls, working when `enabled`; nothing paused, real
    /// speed, overlay hidden.
    pub fn new(enabled: bool) -> DevControls {
        DevControls {
            enabled,
            overlay: false,
            corner: Corner::default(),
            user_paused: false,
            blurred: false,
            rewinding: false,
            had_focus: false,
            scale: 2,
        }
    }

    /// Says whether the simulation should be paused now (by F5 or by a
    /// lost focus).
    pub fn paused(&self) -> bool {
        self.user_paused || self.blurred
    }

    /// Returns the time scale.
    pub fn scale(&self) -> f64 {
        SCALES[self.scale]
    }

    /// Handles a developer key; `None` when the key is the game's (the
    /// controls are off).
    pub fn key(&mut self, key: DevKey) -> Option<Act> {
        if !self.enabled {
            return None;
        }
        Some(match key {
            DevKey::F1 => {
                self.overlay = !self.overlay;
                Act::Redraw
            }
            DevKey::F2 => Act::Screenshot,
            DevKey::F3 => Act::ToggleRecording,
            DevKey::F4 => {
                self.corner = self.corner.next();
                Act::Redraw
            }
            DevKey::F5 => {
                let was = self.paused();
                self.user_paused = !self.user_paused;
                self.transition(was)
            }
            DevKey::F9 => {
                self.rewinding = true;
                Act::Rewind(true)
            }
            DevKey::F10 if self.paused() => Act::StepBack,
            DevKey::F10 => Act::Redraw,
            DevKey::F12 => Act::RunAgain,
            DevKey::F6 if self.paused() => Act::Step,
            DevKey::F6 => Act::Redraw,
            DevKey::F7 | DevKey::F8 => {
                self.scale = if key == DevKey::F7 {
                    self.scale.saturating_sub(1)
                } else {
                    (self.scale + 1).min(SCALES.len() - 1)
                };
                Act::Scale(SCALES[self.scale])
            }
        })
    }

    /// Starts paused, as if F5 had been pressed (a replay opened at a
    /// frame, `--until`).
    pub fn start_paused(&mut self) {
        self.user_paused = true;
    }

    /// Pauses as F5 would, staying paused if already (a seek that found
    /// its frame shows it paused).
    pub fn pause(&mut self) -> Act {
        let was = self.paused();
        self.user_paused = true;
        self.transition(was)
    }

    /// Takes the release of developer key `key`: letting go of F9 plays
    /// on from the frame shown, unless F5 or a lost focus paused the game.
    pub fn release(&mut self, key: DevKey) -> Option<Act> {
        if !self.enabled || key != DevKey::F9 || !self.rewinding {
            return None;
        }
        self.rewinding = false;
        Some(Act::Rewind(false))
    }

    /// Handles the window gaining (`true`) or losing focus, when the game
    /// pauses on blur. A window that never had focus (no window manager)
    /// is not paused by lacking it.
    pub fn focus(&mut self, focused: bool, pause_on_blur: bool) -> Act {
        let was = self.paused();
        self.had_focus |= focused;
        self.blurred = pause_on_blur && !focused && self.had_focus;
        self.transition(was)
    }

    fn transition(&self, was: bool) -> Act {
        match (was, self.paused()) {
            (false, true) => Act::Pause,
            (true, false) => Act::Resume,
            _ => Act::Redraw,
        }
    }

    /// Returns the overlay's line for a paused or scaled game.
    pub fn status(&self) -> Option<String> {
        if self.rewinding {
            Some("rewinding (let go of F9 to play on from here)".into())
        } else if self.user_paused {
            Some("paused (F5 resumes, F6 steps, F10 steps back)".into())
        } else if self.blurred {
            Some("paused: the window lost focus".into())
        } else if self.scale != 2 {
            Some(format!("speed x{}", SCALES[self.scale]))
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn f5_pauses_f6_steps_only_while_paused_and_f5_resumes() {
        let mut dev = DevControls::new(true);
        assert_eq!(
            dev.key(DevKey::F6),
            Some(Act::Redraw),
            "no step while running"
        );
        assert_eq!(dev.key(DevKey::F5), Some(Act::Pause));
        assert!(dev.paused());
        assert_eq!(dev.key(DevKey::F6), Some(Act::Step));
        assert_eq!(
            dev.key(DevKey::F6),
            Some(Act::Step),
            "each press steps once"
        );
        assert_eq!(dev.key(DevKey::F5), Some(Act::Resume));
        assert!(!dev.paused());
    }

    #[test]
    fn losing_focus_pauses_and_regaining_it_resumes_unless_f5_paused() {
        let mut dev = DevControls::new(true);
        assert_eq!(
            dev.focus(false, true),
            Act::Redraw,
            "a window that never had focus (no window manager) runs"
        );
        assert_eq!(dev.focus(true, true), Act::Redraw);
        assert_eq!(dev.focus(false, true), Act::Pause);
        assert_eq!(dev.focus(true, true), Act::Resume);
        assert_eq!(dev.key(DevKey::F5), Some(Act::Pause));
        assert_eq!(dev.focus(false, true), Act::Redraw, "already paused");
        assert_eq!(dev.focus(true, true), Act::Redraw, "F5 still holds it");
        assert_eq!(dev.key(DevKey::F5), Some(Act::Resume));
        assert_eq!(dev.focus(false, false), Act::Redraw, "no pause on blur");
    }

    #[test]
    fn f7_and_f8_step_the_time_scale_within_its_range() {
        let mut dev = DevControls::new(true);
        assert_eq!(dev.key(DevKey::F8), Some(Act::Scale(2.0)));
        assert_eq!(dev.key(DevKey::F8), Some(Act::Scale(2.0)), "2x is the top");
        for expected in [1.0, 0.5, 0.25, 0.25] {
            assert_eq!(dev.key(DevKey::F7), Some(Act::Scale(expected)));
        }
        assert_eq!(dev.status().as_deref(), Some("speed x0.25"));
    }

    #[test]
    fn the_overlay_toggles_and_moves_and_disabled_controls_take_nothing() {
        let mut dev = DevControls::new(true);
        dev.key(DevKey::F1);
        assert!(dev.overlay);
        dev.key(DevKey::F4);
        assert_eq!(dev.corner, Corner::TopRight);
        assert_eq!(dev.key(DevKey::F2), Some(Act::Screenshot));
        assert_eq!(dev.key(DevKey::F3), Some(Act::ToggleRecording));
        let mut off = DevControls::new(false);
        assert_eq!(off.key(DevKey::F5), None, "the key is the game's");
        assert!(!off.paused());
    }
}
