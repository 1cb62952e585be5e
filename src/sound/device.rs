//! The sound device door: where the player sends each frame's mixer
//! commands to be heard. A platform has one implementation, chosen when
//! the host is built (the `audio` feature: ALSA, loaded at run time, on
//! Linux); a build without one opens none, and its games run silently,
//! their cues logged as in a headless run.

use super::Command;
use crate::Refusal;

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

/// Opens the device `name` ("default": the system's choice).
///
/// # Errors
/// There is no such device, the system's sound library is missing, or
/// this build has no sound output.
pub fn open(name: &str) -> Result<Box<dyn Device>, Refusal> {
    #[cfg(all(feature = "audio", target_os = "linux"))]
    return Ok(Box::new(super::alsa::Output::open(name)?));
    #[cfg(all(feature = "audio", not(target_os = "linux")))]
    return Err(refuse!(
        "this moonloop has no sound output on this platform yet (`{}` was not opened)",
        crate::terminal::escape(name)
    ));
    #[cfg(not(feature = "audio"))]
    Err(refuse!(
        "this moonloop has no sound output: it was built without the Cargo feature `audio` \
         (`{}` was not opened)",
        crate::terminal::escape(name)
    ))
}
