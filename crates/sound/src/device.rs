//! The sound device door: where the player sends each frame's mixer
//! commands to be heard. Each platform's door implements it: ALSA
//! (alsa.rs), WASAPI (wasapi.rs), the page's Web Audio (opened by the
//! page door); [`super::output`] opens the one this build has.

use super::mixer::Command;

/// An open sound device, mixing on a thread of its own.
pub trait Device {
    /// The device, named as the overlay and `--audio`'s line say it
    /// ("ALSA default").
    fn name(&self) -> String;

    /// Hands `command` to the mixer; one that finds its queue full is
    /// dropped (a frame never waits on sound).
    fn send(&self, command: Command);

    /// Why the device stopped playing, if it did.
    fn failure(&self) -> Option<String>;
}
