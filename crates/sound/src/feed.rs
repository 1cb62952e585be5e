//! A device that pulls its samples: the mixer, the queue of commands it
//! takes from the game's frames, and the fitting of the mixer's 48 kHz
//! stereo to whatever rate and channels the device asks for.
//!
//! ALSA is pushed to (its thread writes a period at a time); Windows'
//! audio (WASAPI, through cpal) calls back for the next buffer on a
//! thread of its own, at the device's own rate and with its own
//! channels. The fitting lives here, apart from the door, so that it is
//! tested on every machine.

use std::sync::mpsc::Receiver;

use super::mixer::{Command, Mixer, RATE};

/// Stereo frames mixed at a time when the device wants more.
const CHUNK: usize = RATE as usize / 100;

/// The mixer, fed from the game's queue, read at the device's rate.
pub struct Feed {
    mixer: Mixer,
    cues: Receiver<Command>,
    /// The device's frames a second and its channels.
    rate: u32,
    channels: usize,
    /// Mixed stereo frames not yet used up, at the mixer's rate.
    mixed: Vec<f32>,
    /// Where the next device frame falls in `mixed`, in mixed frames.
    at: f64,
}

impl Feed {
    /// A feed for a device playing `rate` frames a second on `channels`
    /// channels, taking the game's commands from `cues`.
    pub fn new(cues: Receiver<Command>, rate: u32, channels: usize) -> Feed {
        Feed {
            mixer: Mixer::default(),
            cues,
            rate: rate.max(1),
            channels: channels.max(1),
            mixed: Vec::with_capacity(CHUNK * 2 * 8),
            at: 0.0,
        }
    }

    /// Fills `out` with the next frames, interleaved as the device lays
    /// them out: left on the first channel, right on the second, silence
    /// on the rest (a mono device hears both halves). A rate other than
    /// the mixer's is met by reading between mixed frames; at the
    /// mixer's own rate the frames are the mixer's, sample for sample.
    pub fn fill(&mut self, out: &mut [f32]) {
        self.take_commands();
        let step = f64::from(RATE) / f64::from(self.rate);
        for frame in out.chunks_mut(self.channels) {
            let whole = self.at as usize;
            while self.mixed.len() / 2 < whole + 2 {
                let from = self.mixed.len();
                self.mixed.resize(from + CHUNK * 2, 0.0);
                self.mixer.fill(&mut self.mixed[from..]);
            }
            let t = (self.at - whole as f64) as f32;
            let side = |c: usize| {
                let (a, b) = (self.mixed[whole * 2 + c], self.mixed[whole * 2 + 2 + c]);
                a + (b - a) * t
            };
            let (left, right) = (side(0), side(1));
            match frame {
                [mono] => *mono = (left + right) * 0.5,
                [l, r, rest @ ..] => {
                    *l = left;
                    *r = right;
                    rest.fill(0.0);
                }
                [] => {}
            }
            self.at += step;
        }
        // What is behind the next frame is used up.
        let used = (self.at as usize).min(self.mixed.len() / 2);
        self.mixed.drain(..used * 2);
        self.at -= used as f64;
    }

    /// Hands the mixer what the game sent since the last buffer (when
    /// the game closes the device, its stream goes with it).
    fn take_commands(&mut self) {
        while let Ok(command) = self.cues.try_recv() {
            self.mixer.apply(command);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::mixer::{Bus, Params, Source, Start};
    use super::*;
    use std::sync::Arc;
    use std::sync::mpsc::sync_channel;

    fn blip() -> Command {
        Command::Start(Start {
            voice: 1,
            source: Source::Clip(Arc::new(super::super::synth::built_in("blip").unwrap())),
            params: Params {
                volume: 1.0,
                pitch: 1.0,
                pan: -0.5,
            },
            looped: false,
            bus: Bus::Effects,
            fade: 0.0,
        })
    }

    /// What the mixer alone plays for a blip, `frames` stereo frames.
    fn mixed_alone(frames: usize) -> Vec<f32> {
        let mut mixer = Mixer::default();
        mixer.apply(blip());
        let mut out = vec![0.0; frames * 2];
        mixer.fill(&mut out);
        out
    }

    // rule: H7
    #[test]
    fn at_the_mixers_rate_a_stereo_device_hears_the_mixer_sample_for_sample() {
        let (send, cues) = sync_channel(8);
        let mut feed = Feed::new(cues, RATE, 2);
        send.send(blip()).unwrap();
        let mut heard = Vec::new();
        // Buffers of odd sizes, as a device asks for them.
        for frames in [441, 7, 1000, 480, 13] {
            let mut out = vec![9.0; frames * 2];
            feed.fill(&mut out);
            heard.extend(out);
        }
        assert_eq!(heard, mixed_alone(heard.len() / 2));
        assert!(heard.iter().any(|s| s.abs() > 0.1), "the blip is heard");
    }

    // rule: H7
    #[test]
    fn another_rate_and_more_channels_hear_the_same_sound_in_the_same_time() {
        let (send, cues) = sync_channel(8);
        // 44.1 kHz, 5.1: six channels, left and right first.
        let mut feed = Feed::new(cues, 44_100, 6);
        send.send(blip()).unwrap();
        let seconds = 0.25;
        let frames = (44_100.0 * seconds) as usize;
        let mut out = vec![9.0; frames * 6];
        for buffer in out.chunks_mut(6 * 441) {
            feed.fill(buffer);
        }
        let reference = mixed_alone((RATE as f64 * seconds) as usize + 2);
        for (i, frame) in out.chunks(6).enumerate() {
            assert_eq!(
                &frame[2..],
                &[0.0; 4],
                "frame {i}: only left and right sound"
            );
            // The device's frame i falls between the mixer's frames.
            let at = i as f64 * f64::from(RATE) / 44_100.0;
            let (w, t) = (at as usize, (at - at.floor()) as f32);
            for c in 0..2 {
                let (a, b) = (reference[w * 2 + c], reference[w * 2 + 2 + c]);
                let want = a + (b - a) * t;
                assert!(
                    (frame[c] - want).abs() < 1e-4,
                    "frame {i} channel {c}: {} vs {want}",
                    frame[c]
                );
            }
        }
        // Panned left: the left side is the louder.
        let energy = |c: usize| out.chunks(6).map(|f| f[c] * f[c]).sum::<f32>();
        assert!(energy(0) > energy(1) * 1.5 && energy(1) > 0.0);
    }

    // rule: H7
    #[test]
    fn a_mono_device_hears_both_sides() {
        let (send, cues) = sync_channel(8);
        let mut feed = Feed::new(cues, RATE, 1);
        send.send(blip()).unwrap();
        let mut out = vec![0.0; 2000];
        feed.fill(&mut out);
        let reference = mixed_alone(2000);
        for (i, s) in out.iter().enumerate() {
            let want = (reference[i * 2] + reference[i * 2 + 1]) * 0.5;
            assert!((s - want).abs() < 1e-6, "frame {i}");
        }
    }
}
