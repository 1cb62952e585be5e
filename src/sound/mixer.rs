//! The mixer: voices playing clips, summed into interleaved stereo at the
//! output rate. It runs on the audio thread and allocates nothing once its
//! voice list is made.

use std::sync::Arc;

use super::Clip;

/// The output's sample rate, in frames per second.
pub const RATE: u32 = 48_000;

/// At most this many cues sound at once; a new one ends the oldest.
pub const MAX_VOICES: usize = 32;

/// How a cue is to be played: its parameters as `input:cue` took them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Params {
    /// Loudness, 0 or more; 1 is the clip as recorded.
    pub volume: f32,
    /// Playback rate, above 0; 2 is an octave up and half as long.
    pub pitch: f32,
    /// Stereo position, -1 (left) to 1 (right).
    pub pan: f32,
}

struct Voice {
    clip: Arc<Clip>,
    /// Where in the clip, in its frames.
    pos: f64,
    /// Clip frames per output frame.
    step: f64,
    left: f32,
    right: f32,
}

/// Voices being played.
pub struct Mixer {
    voices: Vec<Voice>,
}

impl Default for Mixer {
    fn default() -> Self {
        Mixer {
            voices: Vec::with_capacity(MAX_VOICES),
        }
    }
}

impl Mixer {
    /// Starts `clip`. Panning is a balance: at 0 both sides play the clip
    /// at full volume, and moving toward one side fades the other out.
    pub fn play(&mut self, clip: Arc<Clip>, params: Params) {
        if self.voices.len() == MAX_VOICES {
            self.voices.remove(0);
        }
        let pan = params.pan.clamp(-1.0, 1.0);
        self.voices.push(Voice {
            step: f64::from(params.pitch) * f64::from(clip.rate) / f64::from(RATE),
            clip,
            pos: 0.0,
            left: params.volume * (1.0 - pan).min(1.0),
            right: params.volume * (1.0 + pan).min(1.0),
        });
    }

    /// Returns how many voices are sounding.
    pub fn voices(&self) -> usize {
        self.voices.len()
    }

    /// Writes the next `out.len() / 2` stereo frames (left, right, ...),
    /// each sample from -1 to 1, and drops the voices that ended.
    pub fn fill(&mut self, out: &mut [f32]) {
        out.fill(0.0);
        for voice in &mut self.voices {
            let clip = &*voice.clip;
            let frames = clip.frames();
            for frame in out.chunks_exact_mut(2) {
                let at = voice.pos as usize;
                if at >= frames {
                    break;
                }
                let t = (voice.pos - at as f64) as f32;
                let (l, r) = clip.frame_at(at, t);
                frame[0] += l * voice.left;
                frame[1] += r * voice.right;
                voice.pos += voice.step;
            }
        }
        self.voices.retain(|v| (v.pos as usize) < v.clip.frames());
        for sample in out {
            *sample = sample.clamp(-1.0, 1.0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ramp(frames: usize) -> Arc<Clip> {
        Arc::new(Clip {
            rate: RATE,
            channels: 1,
            samples: (0..frames).map(|i| i as f32 / frames as f32).collect(),
        })
    }

    const CENTER: Params = Params {
        volume: 1.0,
        pitch: 1.0,
        pan: 0.0,
    };

    // rule: H7
    #[test]
    fn a_centered_clip_plays_as_recorded_on_both_sides() {
        let mut mixer = Mixer::default();
        mixer.play(ramp(4), CENTER);
        let mut out = [9.0; 12];
        mixer.fill(&mut out);
        assert_eq!(
            out,
            [
                0.0, 0.0, 0.25, 0.25, 0.5, 0.5, 0.75, 0.75, 0.0, 0.0, 0.0, 0.0
            ]
        );
        assert_eq!(mixer.voices(), 0, "an ended voice is dropped");
    }

    #[test]
    fn volume_pan_and_pitch_shape_the_voice() {
        let mut mixer = Mixer::default();
        let params = Params {
            volume: 0.5,
            pitch: 2.0,
            pan: -1.0,
        };
        mixer.play(ramp(8), params);
        let mut out = [0.0; 10];
        mixer.fill(&mut out);
        // Every other frame, at half volume, on the left only.
        assert_eq!(out, [0.0, 0.0, 0.125, 0.0, 0.25, 0.0, 0.375, 0.0, 0.0, 0.0]);

        let mut mixer = Mixer::default();
        let half_right = Params { pan: 0.5, ..CENTER };
        mixer.play(ramp(2), half_right);
        let mut out = [0.0; 4];
        mixer.fill(&mut out);
        assert_eq!(out, [0.0, 0.0, 0.25, 0.5]);
    }

    #[test]
    fn a_lower_pitch_interpolates_between_frames() {
        let mut mixer = Mixer::default();
        let half = Params {
            pitch: 0.5,
            ..CENTER
        };
        mixer.play(ramp(2), half);
        let mut out = [0.0; 8];
        mixer.fill(&mut out);
        // Frames 0, 0.5, 1, 1.5 of [0, 0.5]; past the last frame it holds.
        assert_eq!(out, [0.0, 0.0, 0.25, 0.25, 0.5, 0.5, 0.5, 0.5]);
    }

    #[test]
    fn voices_sum_and_the_sum_is_clipped() {
        let loud = Arc::new(Clip {
            rate: RATE,
            channels: 2,
            samples: vec![0.75, -0.75, 0.25, 0.5],
        });
        let mut mixer = Mixer::default();
        mixer.play(loud.clone(), CENTER);
        mixer.play(loud, CENTER);
        let mut out = [0.0; 4];
        mixer.fill(&mut out);
        assert_eq!(out, [1.0, -1.0, 0.5, 1.0]);
    }

    #[test]
    fn a_full_mixer_ends_its_oldest_voice() {
        let mut mixer = Mixer::default();
        for _ in 0..MAX_VOICES + 3 {
            mixer.play(ramp(100), CENTER);
        }
        assert_eq!(mixer.voices(), MAX_VOICES);
    }

    #[test]
    fn a_voice_continues_across_fills() {
        let mut mixer = Mixer::default();
        mixer.play(ramp(4), CENTER);
        let mut first = [0.0; 4];
        let mut second = [0.0; 4];
        mixer.fill(&mut first);
        mixer.fill(&mut second);
        assert_eq!(first, [0.0, 0.0, 0.25, 0.25]);
        assert_eq!(second, [0.5, 0.5, 0.75, 0.75]);
    }
}
