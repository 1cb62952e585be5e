//! The audio device, through ALSA's `libasound.so.2` loaded when a window
//! opens. Loading it at run time rather than linking it means building
//! moonloop needs no ALSA headers, and a machine without ALSA, or without a
//! sound card, runs games the same, silently.

use moonloop_core::refuse;

use moonloop_core::Refusal;
use std::ffi::{CStr, CString, c_char, c_int, c_long, c_uint, c_ulong, c_void};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, TryRecvError, sync_channel};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use super::mixer::{Command, Mixer, RATE};
#[cfg(test)]
use {super::mixer::Params, moonloop_assets::sound::Clip};

/// Frames mixed and written at a time: 10 ms.
const PERIOD: usize = RATE as usize / 100;
/// How far ahead of the speaker the output runs.
const LATENCY_US: c_uint = 40_000;
/// Cues waiting for the audio thread; more in one frame are dropped.
const QUEUE: usize = 64;

const SND_PCM_STREAM_PLAYBACK: c_int = 0;
const SND_PCM_NONBLOCK: c_int = 1;
const SND_PCM_FORMAT_S16_LE: c_int = 2;
const SND_PCM_ACCESS_RW_INTERLEAVED: c_int = 3;

type Pcm = *mut c_void;
/// ALSA's `snd_local_error_handler_t`; the last argument is a `va_list`.
type ErrorHandler =
    unsafe extern "C" fn(*const c_char, c_int, *const c_char, c_int, *const c_char, *mut c_void);

/// The few ALSA functions the output uses.
struct Api {
    open: unsafe extern "C" fn(*mut Pcm, *const c_char, c_int, c_int) -> c_int,
    set_params: unsafe extern "C" fn(Pcm, c_int, c_int, c_uint, c_uint, c_int, c_uint) -> c_int,
    writei: unsafe extern "C" fn(Pcm, *const c_void, c_ulong) -> c_long,
    recover: unsafe extern "C" fn(Pcm, c_int, c_int) -> c_int,
    nonblock: unsafe extern "C" fn(Pcm, c_int) -> c_int,
    close: unsafe extern "C" fn(Pcm) -> c_int,
    strerror: unsafe extern "C" fn(c_int) -> *const c_char,
    set_error_handler: Option<unsafe extern "C" fn(Option<ErrorHandler>) -> Option<ErrorHandler>>,
    _library: libloading::Library,
}

impl Api {
    fn load() -> Result<Api, String> {
        // SAFETY: libasound's initialisers have no preconditions, and each
        // symbol is read with the signature of ALSA's own header.
        unsafe {
            let library = libloading::Library::new("libasound.so.2")
                .map_err(|_| "ALSA's libasound.so.2 is not installed".to_string())?;
            macro_rules! symbol {
                ($name:literal) => {
                    *library
                        .get(concat!($name, "\0").as_bytes())
                        .map_err(|e| format!("libasound.so.2: {e}"))?
                };
            }
            Ok(Api {
                open: symbol!("snd_pcm_open"),
                set_params: symbol!("snd_pcm_set_params"),
                writei: symbol!("snd_pcm_writei"),
                recover: symbol!("snd_pcm_recover"),
                nonblock: symbol!("snd_pcm_nonblock"),
                close: symbol!("snd_pcm_close"),
                strerror: symbol!("snd_strerror"),
                // Since alsa-lib 1.1.6; older ones print their errors.
                set_error_handler: library.get(b"snd_lib_error_set_local\0").ok().map(|s| *s),
                _library: library,
            })
        }
    }

    fn error(&self, code: c_int) -> String {
        // SAFETY: snd_strerror returns a static string for any code.
        unsafe { CStr::from_ptr((self.strerror)(code)) }
            .to_string_lossy()
            .into_owned()
    }

    /// Keeps ALSA from printing its own messages on this thread: what went
    /// wrong reaches the user as one line of ours.
    fn quiet(&self) {
        unsafe extern "C" fn ignore(
            _: *const c_char,
            _: c_int,
            _: *const c_char,
            _: c_int,
            _: *const c_char,
            _: *mut c_void,
        ) {
        }
        if let Some(set) = self.set_error_handler {
            // SAFETY: the handler has the type ALSA calls it with.
            unsafe { set(Some(ignore)) };
        }
    }
}

/// An open playback device, fed by a thread that mixes the cues sent to it.
pub struct Output {
    /// The device's name, as it was asked for.
    name: String,
    cues: Option<SyncSender<Command>>,
    thread: Option<JoinHandle<()>>,
    /// Frames gone to the device (a test waits on it).
    #[cfg_attr(not(test), allow(dead_code))]
    written: Arc<AtomicU64>,
    failure: Arc<Mutex<Option<String>>>,
}

/// The device handle, moved to the audio thread.
struct Device(Pcm);
// SAFETY: an ALSA PCM may be used from any one thread at a time; after the
// move only the audio thread touches it.
unsafe impl Send for Device {}

impl Output {
    /// Opens the ALSA device `name` ("default" is the system's choice) for
    /// 48 kHz 16-bit stereo and starts its thread.
    ///
    /// # Errors
    /// ALSA is missing, or the device cannot be opened (no sound card).
    pub fn open(name: &str) -> Result<Output, Refusal> {
        let api = Arc::new(Api::load()?);
        api.quiet();
        let c_name = CString::new(name).map_err(|_| format!("`{name}` is not a device name"))?;
        let mut pcm: Pcm = std::ptr::null_mut();
        // SAFETY: `pcm` is written by a successful open and closed once, by
        // the audio thread or below.
        unsafe {
            // Opened without blocking, so a device another program holds
            // fails at once instead of stalling the window; writes block.
            let code = (api.open)(
                &mut pcm,
                c_name.as_ptr(),
                SND_PCM_STREAM_PLAYBACK,
                SND_PCM_NONBLOCK,
            );
            // What ALSA says when there is no sound card, or no such name.
            const ENOENT: c_int = 2;
            if code == -ENOENT {
                return Err(refuse!("no ALSA device `{name}`"));
            }
            if code < 0 {
                return Err(refuse!("ALSA device `{name}`: {}", api.error(code)));
            }
            let code = (api.nonblock)(pcm, 0);
            if code < 0 {
                (api.close)(pcm);
                return Err(refuse!("ALSA device `{name}`: {}", api.error(code)));
            }
            let code = (api.set_params)(
                pcm,
                SND_PCM_FORMAT_S16_LE,
                SND_PCM_ACCESS_RW_INTERLEAVED,
                2,
                RATE,
                1,
                LATENCY_US,
            );
            if code < 0 {
                (api.close)(pcm);
                return Err(refuse!("ALSA device `{name}`: {}", api.error(code)));
            }
        }
        let (sender, receiver) = sync_channel(QUEUE);
        let written = Arc::new(AtomicU64::new(0));
        let failure = Arc::new(Mutex::new(None));
        let device = Device(pcm);
        let thread = {
            let (written, failure) = (written.clone(), failure.clone());
            std::thread::Builder::new()
                .name("moonloop-audio".into())
                .spawn(move || {
                    let device = device;
                    if let Err(why) = feed(&api, device.0, &receiver, &written) {
                        *failure.lock().unwrap_or_else(|p| p.into_inner()) = Some(why);
                    }
                    // SAFETY: the device is open and no one else holds it.
                    unsafe { (api.close)(device.0) };
                })
                .map_err(|e| format!("no audio thread: {e}"))?
        };
        Ok(Output {
            name: name.to_string(),
            cues: Some(sender),
            thread: Some(thread),
            written,
            failure,
        })
    }

    /// Plays `clip` as a cue; a cue that finds the queue full is dropped.
    #[cfg(test)]
    pub fn play(&self, clip: Arc<Clip>, params: Params) {
        self.send(Command::Start(super::mixer::Start {
            voice: 0,
            source: super::mixer::Source::Clip(clip),
            params,
            looped: false,
            bus: super::mixer::Bus::Effects,
            fade: 0.0,
        }));
    }

    /// Hands `command` to the audio thread; one that finds the queue full
    /// is dropped.
    pub fn send(&self, command: Command) {
        if let Some(cues) = &self.cues {
            let _ = cues.try_send(command);
        }
    }

    /// Returns how many frames have gone to the device.
    #[cfg(test)]
    pub fn frames_written(&self) -> u64 {
        self.written.load(Ordering::Relaxed)
    }

    /// Returns why the device stopped playing, if it did.
    pub fn failure(&self) -> Option<String> {
        self.failure
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }
}

impl super::device::Device for Output {
    fn name(&self) -> String {
        format!("ALSA {}", self.name)
    }

    fn send(&self, command: Command) {
        Output::send(self, command);
    }

    fn failure(&self) -> Option<String> {
        Output::failure(self)
    }
}

impl Drop for Output {
    fn drop(&mut self) {
        self.cues = None;
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Mixes and writes one period after another until the sender goes.
fn feed(api: &Api, pcm: Pcm, cues: &Receiver<Command>, written: &AtomicU64) -> Result<(), String> {
    api.quiet();
    let mut mixer = Mixer::default();
    let mut mixed = [0.0f32; PERIOD * 2];
    let mut samples = [0i16; PERIOD * 2];
    loop {
        loop {
            match cues.try_recv() {
                Ok(command) => mixer.apply(command),
                Err(TryRecvError::Empty) => break,
                Err(TryRecvError::Disconnected) => return Ok(()),
            }
        }
        mixer.fill(&mut mixed);
        for (out, s) in samples.iter_mut().zip(mixed) {
            *out = (s * 32767.0) as i16;
        }
        let mut done = 0;
        while done < PERIOD {
            // SAFETY: the buffer holds PERIOD - done more interleaved frames.
            let n = unsafe {
                (api.writei)(
                    pcm,
                    samples[done * 2..].as_ptr().cast(),
                    (PERIOD - done) as c_ulong,
                )
            };
            if n >= 0 {
                done += n as usize;
                continue;
            }
            // An underrun (the game stalled) or a suspend: recover and go on.
            // SAFETY: the device is open.
            let code = unsafe { (api.recover)(pcm, n as c_int, 1) };
            if code < 0 {
                return Err(format!("the audio device stopped: {}", api.error(code)));
            }
        }
        written.fetch_add(PERIOD as u64, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_device_is_named() {
        match Output::open("no-such-device") {
            Ok(_) => panic!("opened a device that does not exist"),
            Err(why) => assert!(
                why == "ALSA's libasound.so.2 is not installed"
                    || why == "no ALSA device `no-such-device`",
                "{why}"
            ),
        }
    }

    // rule: H7
    #[test]
    fn cues_reach_alsas_null_device() {
        // ALSA's `null` device takes samples and drops them; it needs
        // libasound2 (installed by test.sh) and no sound card.
        let output = match Output::open("null") {
            Ok(output) => output,
            Err(why) => panic!("{why} (./test.sh installs libasound2)"),
        };
        let clip = Arc::new(super::super::synth::built_in("blip").unwrap());
        let frames = clip.frames() as u64;
        output.play(
            clip,
            Params {
                volume: 1.0,
                pitch: 1.0,
                pan: 0.0,
            },
        );
        let start = std::time::Instant::now();
        while output.frames_written() < frames * 2 {
            assert!(start.elapsed().as_secs() < 10, "the device took nothing");
            std::thread::yield_now();
        }
        assert_eq!(output.failure(), None);
    }
}
