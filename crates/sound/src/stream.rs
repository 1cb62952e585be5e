//! Streamed sounds: music decoded a little ahead of where it plays, so a
//! sound of any length holds a second or two of samples, not all of them
//! (rule H13).
//!
//! A [`Feeder`] decodes into a bounded ring that the mixer's voice reads
//! from. Under a window the feeder runs on its own thread and the audio
//! thread only copies from the ring (never waiting for the lock, never
//! allocating); rendering `--audio`, the renderer pumps every feeder before
//! each block it mixes, so the same run gives the same bytes.

use moonloop_core::Refusal;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex, Weak};

use super::decode::Decoder;

/// Frames a stream's ring holds: enough for a block at the highest pitch
/// from the highest rate (1024 output frames x 8 x 8) and the largest
/// packet, with room to spare: 2 MiB of stereo.
const RING_FRAMES: usize = 262_144;

struct Ring {
    samples: VecDeque<f32>,
    /// No more samples will come.
    ended: bool,
}

/// The side of a stream the mixer reads.
pub struct Stream {
    shared: Arc<Mutex<Ring>>,
    /// Frames per second.
    pub rate: u32,
    /// 1 or 2.
    pub channels: usize,
    /// Samples taken from the ring, the first of them frame `base`.
    window: Vec<f32>,
    base: usize,
}

/// The side of a stream that decodes.
pub struct Feeder {
    shared: Arc<Mutex<Ring>>,
    decoder: Decoder,
    looped: bool,
    scratch: Vec<f32>,
    /// Why the sound stopped short or played damaged, for the player to say.
    fault: Arc<Mutex<Option<Refusal>>>,
}

/// Tells whether a stream is still playing or decoding, without keeping
/// it alive, and what went wrong with it.
pub struct Watch {
    ring: Weak<Mutex<Ring>>,
    fault: Arc<Mutex<Option<Refusal>>>,
}

impl Watch {
    /// Says whether the stream's voice or its feeder still exists.
    pub fn alive(&self) -> bool {
        self.ring.strong_count() > 0
    }

    /// Takes what went wrong with the sound's file, once.
    pub fn take_fault(&self) -> Option<Refusal> {
        self.fault.lock().unwrap_or_else(|p| p.into_inner()).take()
    }
}

impl Feeder {
    /// A watch on this feeder's stream.
    pub fn watch(&self) -> Watch {
        Watch {
            ring: Arc::downgrade(&self.shared),
            fault: self.fault.clone(),
        }
    }

    fn fail(&self, why: Refusal) {
        *self.fault.lock().unwrap_or_else(|p| p.into_inner()) = Some(why);
    }
}

/// Opens a stream of `decoder`'s sound, looping back to its start at the
/// end when `looped`.
pub fn open(decoder: Decoder, looped: bool) -> (Stream, Feeder) {
    let channels = decoder.channels;
    let shared = Arc::new(Mutex::new(Ring {
        samples: VecDeque::with_capacity(RING_FRAMES * channels),
        ended: false,
    }));
    let stream = Stream {
        shared: shared.clone(),
        rate: decoder.rate,
        channels,
        window: Vec::with_capacity(RING_FRAMES * channels),
        base: 0,
    };
    let feeder = Feeder {
        shared,
        decoder,
        looped,
        scratch: Vec::with_capacity(16_384),
        fault: Arc::default(),
    };
    (stream, feeder)
}

impl Feeder {
    /// Decodes until the ring is full or the sound ends; returns false once
    /// nothing more will be decoded (the end, or the stream was dropped).
    /// A packet that does not fit yet waits in the feeder for the next
    /// pump.
    pub fn pump(&mut self) -> bool {
        let room = RING_FRAMES * self.decoder.channels;
        loop {
            if Arc::strong_count(&self.shared) == 1 {
                return false;
            }
            if self.scratch.is_empty() {
                let more = match self.decoder.next(&mut self.scratch) {
                    Ok(true) => true,
                    Ok(false) => {
                        if let Some(why) = self.decoder.ending_fault() {
                            self.fail(why);
                        }
                        self.looped
                            && match self.decoder.rewind() {
                                Ok(()) => self.decoder.next(&mut self.scratch).unwrap_or(false),
                                Err(why) => {
                                    self.fail(why);
                                    false
                                }
                            }
                    }
                    Err(why) => {
                        self.fail(why);
                        false
                    }
                };
                if !more {
                    let mut ring = self.shared.lock().unwrap_or_else(|p| p.into_inner());
                    ring.ended = true;
                    return false;
                }
            }
            let mut ring = self.shared.lock().unwrap_or_else(|p| p.into_inner());
            if ring.samples.len() + self.scratch.len() > room {
                return true;
            }
            ring.samples.extend(self.scratch.drain(..));
        }
    }

    /// Pumps on a thread of its own until the stream ends or is dropped.
    pub fn spawn(mut self) {
        let _ = std::thread::Builder::new()
            .name("moonloop-stream".into())
            .spawn(move || {
                while self.pump() {
                    std::thread::sleep(std::time::Duration::from_millis(10));
                }
            });
    }
}

impl Stream {
    /// Returns the (left, right) sample a fraction `t` past frame `at`,
    /// taking more from the ring when needed (`None`: not decoded yet, or
    /// past the end). Frames before `at` are let go.
    pub fn frame_at(&mut self, at: usize, t: f32) -> Option<(f32, f32)> {
        let c = self.channels;
        if at < self.base {
            return None;
        }
        let have = self.base + self.window.len() / c;
        if at + 1 >= have {
            self.refill(at);
        }
        let i = at.checked_sub(self.base)?;
        let next = if (i + 1) * c < self.window.len() {
            i + 1
        } else {
            i
        };
        let get = |f: usize, ch: usize| self.window.get(f * c + ch).copied();
        let lerp = |ch: usize| -> Option<f32> {
            let a = get(i, ch)?;
            Some(a + (get(next, ch)? - a) * t)
        };
        if c == 1 {
            let s = lerp(0)?;
            Some((s, s))
        } else {
            Some((lerp(0)?, lerp(1)?))
        }
    }

    /// Drops the frames before `at` and tops the window up from the ring,
    /// without waiting for the lock.
    fn refill(&mut self, at: usize) {
        let c = self.channels;
        let keep_from = (at.saturating_sub(self.base) * c).min(self.window.len());
        self.window.drain(..keep_from);
        self.base += keep_from / c;
        let Ok(mut ring) = self.shared.try_lock() else {
            return;
        };
        let room = self.window.capacity() - self.window.len();
        let n = room.min(ring.samples.len()) / c * c;
        self.window.extend(ring.samples.drain(..n));
    }

    /// Says whether the stream has played out: the ring ended and empty,
    /// and the window used up past `at`.
    pub fn ended(&self, at: usize) -> bool {
        let used = at >= self.base + self.window.len() / self.channels;
        used && self
            .shared
            .try_lock()
            .is_ok_and(|ring| ring.ended && ring.samples.is_empty())
    }
}
