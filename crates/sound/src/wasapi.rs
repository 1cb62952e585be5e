//! The audio device on Windows: WASAPI, in shared mode, through cpal.
//!
//! cpal is the well-kept crate for this (COM, the endpoint's mix format,
//! its event-driven buffer), and on Windows it needs nothing but the
//! system's own DLLs. Windows calls back for each buffer on a thread of
//! its own; the callback fills it from a [`Feed`], the mixer the game's
//! frames send their commands to.

use moonloop_core::refuse;

use std::sync::mpsc::{SyncSender, sync_channel};
use std::sync::{Arc, Mutex};

use cpal::traits::{DeviceTrait, HostTrait, StreamTrait};
use cpal::{FromSample, SampleFormat, SizedSample, StreamConfig};

use super::feed::Feed;
use super::mixer::{Command, RATE};
use moonloop_core::Refusal;

/// Cues waiting for the device's thread; more in one frame are dropped.
const QUEUE: usize = 64;

/// An open output endpoint, playing what its feed mixes.
pub struct Output {
    name: String,
    cues: SyncSender<Command>,
    failure: Arc<Mutex<Option<String>>>,
    /// Playing while held; dropped, Windows stops calling back.
    _stream: cpal::Stream,
}

impl Output {
    /// Opens the endpoint `name` ("default": the one Windows plays
    /// through now) at 48 kHz stereo when it takes that (shared mode
    /// converts), else at its own mix format.
    ///
    /// # Errors
    /// There is no such endpoint, or it refuses a stream (another
    /// program holds it exclusively, or it went away).
    pub fn open(name: &str) -> Result<Output, Refusal> {
        let host = cpal::default_host();
        let device = if name == "default" {
            host.default_output_device()
                .ok_or_else(|| refuse!("Windows has no sound output device"))?
        } else {
            host.output_devices()
                .map_err(|e| refuse!("the sound devices cannot be listed: {e}"))?
                .find(|d| d.description().is_ok_and(|d| d.name() == name))
                .ok_or_else(|| refuse!("no sound device `{}`", moonloop_door::escape(name)))?
        };
        let label = device
            .description()
            .map_or_else(|_| name.to_string(), |d| d.name().to_string());
        let failed =
            |e: cpal::Error| refuse!("sound device `{}`: {e}", moonloop_door::escape(&label));
        let (format, config) = match stereo_at_our_rate(&device) {
            Some(config) => (SampleFormat::F32, config),
            None => {
                let own = device.default_output_config().map_err(failed)?;
                (own.sample_format(), own.config())
            }
        };
        let (cues, receiver) = sync_channel(QUEUE);
        let feed = Feed::new(receiver, config.sample_rate, usize::from(config.channels));
        let failure = Arc::new(Mutex::new(None));
        let stream = match format {
            SampleFormat::F32 => stream::<f32>(&device, &config, feed, &failure),
            SampleFormat::I16 => stream::<i16>(&device, &config, feed, &failure),
            SampleFormat::I32 => stream::<i32>(&device, &config, feed, &failure),
            SampleFormat::U16 => stream::<u16>(&device, &config, feed, &failure),
            other => {
                return Err(refuse!(
                    "sound device `{}` plays {other} samples, which moonloop does not write",
                    moonloop_door::escape(&label)
                ));
            }
        }
        .map_err(failed)?;
        stream.play().map_err(failed)?;
        Ok(Output {
            name: label,
            cues,
            failure,
            _stream: stream,
        })
    }
}

/// The device's 48 kHz stereo float config, if it lists one.
fn stereo_at_our_rate(device: &cpal::Device) -> Option<StreamConfig> {
    device
        .supported_output_configs()
        .ok()?
        .find(|c| {
            c.channels() == 2
                && c.sample_format() == SampleFormat::F32
                && (c.min_sample_rate()..=c.max_sample_rate()).contains(&RATE)
        })
        .map(|c| c.with_sample_rate(RATE).config())
}

/// Builds the stream that fills each of the device's buffers of `T`
/// from `feed`.
fn stream<T: SizedSample + FromSample<f32>>(
    device: &cpal::Device,
    config: &StreamConfig,
    mut feed: Feed,
    failure: &Arc<Mutex<Option<String>>>,
) -> Result<cpal::Stream, cpal::Error> {
    let failure = failure.clone();
    // Sized to the largest buffer asked for so far: the callback stops
    // allocating after its first few calls.
    let mut mixed: Vec<f32> = Vec::new();
    device.build_output_stream::<T, _, _>(
        config.clone(),
        move |out: &mut [T], _| {
            mixed.resize(out.len(), 0.0);
            feed.fill(&mut mixed);
            for (o, s) in out.iter_mut().zip(&mixed) {
                *o = T::from_sample(*s);
            }
        },
        move |e| {
            *failure.lock().unwrap_or_else(|p| p.into_inner()) =
                Some(format!("the sound device stopped: {e}"));
        },
        None,
    )
}

impl super::device::Device for Output {
    fn name(&self) -> String {
        format!("WASAPI {}", self.name)
    }

    fn send(&self, command: Command) {
        let _ = self.cues.try_send(command);
    }

    fn failure(&self) -> Option<String> {
        self.failure
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }
}
