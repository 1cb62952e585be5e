//! Opening the sound output this build has: one implementation a
//! platform, chosen when the host is built (the `audio` feature: ALSA,
//! loaded at run time, on Linux; WASAPI through cpal on Windows). A
//! build without one opens none, and its games run silently, their cues
//! logged as in a headless run. (The web page's door opens its own: its
//! mixer lives on the page's thread.)

use super::device::Device;
use moonloop_core::Refusal;

/// Opens the device `name` ("default": the system's choice).
///
/// # Errors
/// There is no such device, the system's sound library is missing, or
/// this build has no sound output.
pub fn open(name: &str) -> Result<Box<dyn Device>, Refusal> {
    #[cfg(all(feature = "audio", target_os = "linux"))]
    return Ok(Box::new(super::alsa::Output::open(name)?));
    #[cfg(all(feature = "audio", windows))]
    return Ok(Box::new(super::wasapi::Output::open(name)?));
    #[cfg(all(feature = "audio", not(any(target_os = "linux", windows))))]
    return Err(moonloop_core::refuse!(
        "this moonloop has no sound output on this platform yet (`{}` was not opened)",
        moonloop_door::escape(name)
    ));
    #[cfg(not(feature = "audio"))]
    Err(moonloop_core::refuse!(
        "this moonloop has no sound output: it was built without the Cargo feature `audio` \
         (`{}` was not opened)",
        moonloop_door::escape(name)
    ))
}
