//! The mixer: voices playing clips and streams, each on a bus, summed into
//! interleaved stereo at the output rate (rules H7, H13).
//!
//! It is driven by [`Command`]s: the sound actions of `update`, turned into
//! sources by the game's side. It runs on the audio thread (or the
//! `--audio` renderer) and allocates nothing once made.

use std::sync::Arc;

use super::Clip;
use super::stream::Stream;

/// The output's sample rate, in frames per second.
pub const RATE: u32 = 48_000;

/// At most this many voices sound at once; a new one ends the oldest.
pub const MAX_VOICES: usize = 32;

/// Frames mixed per block: bus fades advance per frame within a block.
const BLOCK: usize = 1024;

/// How a sound is to be played.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Params {
    /// Loudness, 0 or more; 1 is the sound as recorded.
    pub volume: f32,
    /// Playback rate, above 0; 2 is an octave up and half as long.
    pub pitch: f32,
    /// Stereo position, -1 (left) to 1 (right).
    pub pan: f32,
}

impl Default for Params {
    fn default() -> Self {
        Params {
            volume: 1.0,
            pitch: 1.0,
            pan: 0.0,
        }
    }
}

pub use moonloop_core::cues::Bus;

/// What a voice plays.
pub enum Source {
    /// A sound decoded whole.
    Clip(Arc<Clip>),
    /// A sound decoded as it plays.
    Stream(Stream),
}

/// A sound to start.
pub struct Start {
    /// The voice, by the hash of the game's name for it; 0 for a cue,
    /// which nothing names again.
    pub voice: u64,
    /// What it plays.
    pub source: Source,
    /// Its volume, pitch and pan.
    pub params: Params,
    /// Whether it starts again at its end (a clip; a stream loops itself).
    pub looped: bool,
    /// Its bus.
    pub bus: Bus,
    /// Seconds to fade in over; 0 starts at full volume.
    pub fade: f32,
}

/// One thing the mixer is told to do.
pub enum Command {
    /// Starts a sound, ending one of the same voice first.
    Start(Start),
    /// Ends a voice, fading out over seconds.
    Stop { voice: u64, fade: f32 },
    /// Holds a voice where it is.
    Pause { voice: u64 },
    /// Lets a held voice go on.
    Resume { voice: u64 },
    /// Changes a voice's volume (over seconds), pitch and pan.
    Set {
        voice: u64,
        params: Params,
        fade: f32,
    },
    /// Sets a bus's volume over seconds.
    Bus { bus: Bus, volume: f32, fade: f32 },
}

/// A value that moves in a straight line to a target over some frames.
#[derive(Debug, Clone, Copy)]
struct Ramp {
    value: f32,
    target: f32,
    step: f32,
    left: u32,
}

impl Ramp {
    fn at(value: f32) -> Ramp {
        Ramp {
            value,
            target: value,
            step: 0.0,
            left: 0,
        }
    }

    fn to(&mut self, target: f32, seconds: f32) {
        let frames = (seconds.max(0.0) * RATE as f32).round() as u32;
        self.target = target;
        if frames == 0 {
            self.value = target;
            self.left = 0;
        } else {
            self.step = (target - self.value) / frames as f32;
            self.left = frames;
        }
    }

    fn next(&mut self) -> f32 {
        if self.left > 0 {
            self.left -= 1;
            self.value = if self.left == 0 {
                self.target
            } else {
                self.value + self.step
            };
        }
        self.value
    }
}

struct Voice {
    id: u64,
    source: Source,
    /// Where in the source, in its frames.
    pos: f64,
    /// Source frames per output frame.
    step: f64,
    gain: Ramp,
    pan: f32,
    looped: bool,
    bus: Bus,
    paused: bool,
    /// Ends when its fade reaches silence.
    stopping: bool,
    ended: bool,
}

impl Voice {
    fn retune(&mut self, pitch: f32) {
        let rate = match &self.source {
            Source::Clip(c) => c.rate,
            Source::Stream(s) => s.rate,
        };
        self.step = f64::from(pitch.clamp(1.0 / 8.0, 8.0)) * f64::from(rate) / f64::from(RATE);
    }

    /// The next stereo frame, before gains; advances.
    fn sample(&mut self) -> (f32, f32) {
        let at = self.pos as usize;
        let t = (self.pos - at as f64) as f32;
        let frame = match &mut self.source {
            Source::Clip(clip) => {
                let frames = clip.frames();
                if at >= frames {
                    if self.looped {
                        self.pos -= frames as f64;
                        return self.sample();
                    }
                    self.ended = true;
                    return (0.0, 0.0);
                }
                clip.frame_at(at, t)
            }
            Source::Stream(stream) => match stream.frame_at(at, t) {
                Some(frame) => frame,
                None => {
                    if stream.ended(at) {
                        self.ended = true;
                    }
                    // Not decoded yet (a starved feeder): silence, and wait.
                    return (0.0, 0.0);
                }
            },
        };
        self.pos += self.step;
        frame
    }
}

/// Voices being played, and the buses' volumes.
pub struct Mixer {
    voices: Vec<Voice>,
    /// Master, music, effects.
    buses: [Ramp; 3],
    /// Per frame of a block: master times music, master times effects.
    gains: Box<[[f32; 2]; BLOCK]>,
}

impl Default for Mixer {
    fn default() -> Self {
        Mixer {
            voices: Vec::with_capacity(MAX_VOICES),
            buses: [Ramp::at(1.0); 3],
            gains: Box::new([[1.0; 2]; BLOCK]),
        }
    }
}

fn bus_index(bus: Bus) -> usize {
    match bus {
        Bus::Master => 0,
        Bus::Music => 1,
        Bus::Effects => 2,
    }
}

impl Mixer {
    /// Starts `clip` as a cue (fire and forget) on the effects bus.
    /// Panning is a balance: at 0 both sides play the clip at full volume,
    /// and moving toward one side fades the other out.
    pub fn play(&mut self, clip: Arc<Clip>, params: Params) {
        self.apply(Command::Start(Start {
            voice: 0,
            source: Source::Clip(clip),
            params,
            looped: false,
            bus: Bus::Effects,
            fade: 0.0,
        }));
    }

    /// Does what `command` says. A command for a voice that is not
    /// sounding does nothing (the game's side has said so already).
    pub fn apply(&mut self, command: Command) {
        match command {
            Command::Start(start) => {
                if start.voice != 0 {
                    self.voices.retain(|v| v.id != start.voice);
                }
                if self.voices.len() == MAX_VOICES {
                    self.voices.remove(0);
                }
                let mut gain = Ramp::at(if start.fade > 0.0 {
                    0.0
                } else {
                    start.params.volume
                });
                gain.to(start.params.volume, start.fade);
                let mut voice = Voice {
                    id: start.voice,
                    source: start.source,
                    pos: 0.0,
                    step: 1.0,
                    gain,
                    pan: start.params.pan.clamp(-1.0, 1.0),
                    looped: start.looped,
                    bus: if start.bus == Bus::Music {
                        Bus::Music
                    } else {
                        Bus::Effects
                    },
                    paused: false,
                    stopping: false,
                    ended: false,
                };
                voice.retune(start.params.pitch);
                self.voices.push(voice);
            }
            Command::Stop { voice, fade } => {
                for v in self.named(voice) {
                    v.gain.to(0.0, fade);
                    v.stopping = true;
                    v.paused = false;
                }
            }
            Command::Pause { voice } => self.named(voice).for_each(|v| v.paused = true),
            Command::Resume { voice } => self.named(voice).for_each(|v| v.paused = false),
            Command::Set {
                voice,
                params,
                fade,
            } => {
                for v in self.named(voice) {
                    if !v.stopping {
                        v.gain.to(params.volume, fade);
                    }
                    v.pan = params.pan.clamp(-1.0, 1.0);
                    v.retune(params.pitch);
                }
            }
            Command::Bus { bus, volume, fade } => self.buses[bus_index(bus)].to(volume, fade),
        }
    }

    /// The sounding voices the game named `id` (none for 0, a cue's).
    fn named(&mut self, id: u64) -> impl Iterator<Item = &mut Voice> {
        self.voices
            .iter_mut()
            .filter(move |v| v.id == id && id != 0)
    }

    /// Returns how many voices are sounding (or held).
    pub fn voices(&self) -> usize {
        self.voices.len()
    }

    /// Writes the next `out.len() / 2` stereo frames (left, right, ...),
    /// each sample from -1 to 1, and drops the voices that ended.
    pub fn fill(&mut self, out: &mut [f32]) {
        for block in out.chunks_mut(BLOCK * 2) {
            self.fill_block(block);
        }
    }

    fn fill_block(&mut self, out: &mut [f32]) {
        out.fill(0.0);
        let frames = out.len() / 2;
        for g in &mut self.gains[..frames] {
            let master = self.buses[0].next();
            *g = [master * self.buses[1].next(), master * self.buses[2].next()];
        }
        for voice in &mut self.voices {
            if voice.paused {
                continue;
            }
            let (left, right) = ((1.0 - voice.pan).min(1.0), (1.0 + voice.pan).min(1.0));
            let bus = usize::from(voice.bus == Bus::Effects);
            for (frame, gains) in out.chunks_exact_mut(2).zip(self.gains.iter()) {
                if voice.ended {
                    break;
                }
                let (l, r) = voice.sample();
                let gain = voice.gain.next() * gains[bus];
                frame[0] += l * gain * left;
                frame[1] += r * gain * right;
                if voice.stopping && voice.gain.left == 0 {
                    voice.ended = true;
                }
            }
        }
        self.voices.retain(|v| !v.ended);
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

    fn ones(frames: usize) -> Arc<Clip> {
        Arc::new(Clip {
            rate: RATE,
            channels: 1,
            samples: vec![0.5; frames],
        })
    }

    const CENTER: Params = Params {
        volume: 1.0,
        pitch: 1.0,
        pan: 0.0,
    };

    fn start(voice: u64, clip: Arc<Clip>, looped: bool, fade: f32) -> Command {
        Command::Start(Start {
            voice,
            source: Source::Clip(clip),
            params: CENTER,
            looped,
            bus: Bus::Effects,
            fade,
        })
    }

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

    // rule: H13
    #[test]
    fn a_looping_voice_plays_until_stopped_and_a_stop_fades_it_out() {
        let mut mixer = Mixer::default();
        mixer.apply(start(7, ramp(2), true, 0.0));
        let mut out = [0.0; 12];
        mixer.fill(&mut out);
        assert_eq!(
            out,
            [0.0, 0.0, 0.5, 0.5, 0.0, 0.0, 0.5, 0.5, 0.0, 0.0, 0.5, 0.5]
        );
        // A fade of 4 frames: 3/4, 2/4, 1/4, then silence, and the voice goes.
        mixer.apply(start(7, ones(100), true, 0.0));
        mixer.apply(Command::Stop {
            voice: 7,
            fade: 4.0 / RATE as f32,
        });
        let mut out = [0.0; 10];
        mixer.fill(&mut out);
        let left: Vec<f32> = out.iter().step_by(2).copied().collect();
        assert_eq!(left, [0.375, 0.25, 0.125, 0.0, 0.0]);
        assert_eq!(mixer.voices(), 0);
    }

    // rule: H13
    #[test]
    fn pause_holds_a_voice_where_it_is_and_resume_goes_on() {
        let mut mixer = Mixer::default();
        mixer.apply(start(1, ramp(4), false, 0.0));
        let mut out = [0.0; 4];
        mixer.fill(&mut out);
        mixer.apply(Command::Pause { voice: 1 });
        mixer.fill(&mut out);
        assert_eq!(out, [0.0; 4], "held: silent");
        mixer.apply(Command::Resume { voice: 1 });
        mixer.fill(&mut out);
        assert_eq!(out, [0.5, 0.5, 0.75, 0.75], "from where it was");
    }

    // rule: H13
    #[test]
    fn fades_and_buses_scale_what_plays_on_them() {
        let mut mixer = Mixer::default();
        mixer.apply(start(1, ones(100), false, 4.0 / RATE as f32));
        let mut out = [0.0; 10];
        mixer.fill(&mut out);
        let left: Vec<f32> = out.iter().step_by(2).copied().collect();
        assert_eq!(
            left,
            [0.125, 0.25, 0.375, 0.5, 0.5],
            "faded in over 4 frames"
        );
        mixer.apply(Command::Bus {
            bus: Bus::Effects,
            volume: 0.5,
            fade: 0.0,
        });
        mixer.fill(&mut out);
        assert_eq!(out[0], 0.25, "the effects bus at half");
        mixer.apply(Command::Bus {
            bus: Bus::Master,
            volume: 0.0,
            fade: 0.0,
        });
        mixer.fill(&mut out);
        assert_eq!(out, [0.0; 10], "the master bus silences all");
        mixer.apply(Command::Bus {
            bus: Bus::Master,
            volume: 1.0,
            fade: 0.0,
        });
        mixer.apply(Command::Set {
            voice: 1,
            params: Params {
                volume: 2.0,
                pan: 1.0,
                ..CENTER
            },
            fade: 0.0,
        });
        mixer.fill(&mut out);
        assert_eq!(
            &out[..2],
            [0.0, 0.5],
            "twice as loud on a bus at half, all on the right"
        );
    }
}
