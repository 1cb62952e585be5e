//! History: every frame of the session, so that any of them can be built
//! again (rule R1).
//!
//! A frame is kept as what it was given: its delta, the input events it
//! applied, the answer `input:hover()` gave it (if it asked), and a digest
//! of the state it left. Every [`KEY_EVERY`] frames a keyframe keeps the
//! state itself, encoded outside the game's VM, with what else a frame
//! reads (the random generator, the held keys). Frame `f` is rebuilt by
//! restoring the keyframe at or before `f` and running `update` again on
//! the frames between, with no sound, no save and no render.
//!
//! Each frame is run again by the code that ran it ([`Span`]): a reload
//! changes the future, never the past history shows.
//!
//! History costs memory, and its cap is a number of bytes: when the kept
//! frames pass it, the oldest keyframe and the frames up to the next one
//! go first, so the history is always a window ending at the present.

mod spans;

use std::collections::VecDeque;

use crate::input::{InputEvent, InputFrame};

pub use spans::Span;
use spans::Spans;

/// How many frames apart keyframes are, at least.
pub const KEY_EVERY: u64 = 60;

/// How many frames apart keyframes are, at most: a state whose encoding
/// takes more than 2% of the time between keyframes is kept half as
/// often, and one that takes under 0.5% twice as often again, so keeping
/// it stays a small part of the frames' time; rebuilding a frame runs at
/// most this many again.
pub const KEY_EVERY_MAX: u64 = 3600;

/// The most object names `input:hover()` answers that history keeps: a
/// game naming a new object under the pointer every frame would
/// otherwise grow them without end (they are never dropped, as frames
/// are).
pub const MAX_NAMES: usize = 4096;

/// What history may hold by default, in bytes (256 MiB).
pub const DEFAULT_CAP: usize = 256 << 20;

/// What a keyframe keeps of the state: whatever the game's layer encodes
/// it as (the Luau game keeps its canonical JSON, the random generator
/// and the physics worlds beside it). History asks it only what it costs.
pub trait Keep: std::fmt::Debug + Clone {
    /// About what it holds, in bytes: what the cap counts.
    fn bytes(&self) -> usize;
}

/// A state kept as text (its canonical encoding) and nothing beside it.
impl Keep for String {
    fn bytes(&self) -> usize {
        self.len()
    }
}

/// One recorded frame.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Entry {
    /// The delivered delta, in seconds (after the time scale).
    pub dt: f64,
    /// Where the frame's events start in the event log (counted since
    /// the session began).
    start: u64,
    /// How many events the frame applied.
    count: u32,
    /// What `input:hover()` answered: 0 for not asked, 1 for nothing, and
    /// 2 and up for a name in [`History::names`].
    hover: u32,
    /// The digest of the state at the end of the frame, when the game has
    /// one (see `state::Digester`).
    pub hash: Option<u64>,
    /// The frame's `update` was refused (an error the game ran on past,
    /// on the state it had): run again, it is refused again (R1).
    pub refused: bool,
}

/// What `input:hover()` answered a recorded frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hovered<'a> {
    /// The frame did not ask.
    NotAsked,
    /// The pointer was over nothing, or off the window.
    Nothing,
    /// The pointer was over this object.
    Object(&'a str),
}

/// A frame's state kept whole, and what the engine had at its end.
#[derive(Debug, Clone)]
pub struct Keyframe<K> {
    /// The frame it is the end of (0: the state `init` made).
    pub frame: u64,
    /// Simulated time at its end.
    pub time: f64,
    /// The frame's delta.
    pub last_dt: f64,
    /// The input after the frame closed (held keys, the pointer).
    pub input: InputFrame,
    /// The state and the generator.
    pub kept: K,
}

/// The session's frames: keyframes and, between them, what each frame was
/// given.
#[derive(Debug)]
pub struct History<K> {
    entries: VecDeque<Entry>,
    /// The frame number of `entries[0]`.
    first: u64,
    events: VecDeque<InputEvent>,
    /// The event number of `events[0]`.
    first_event: u64,
    keyframes: VecDeque<Keyframe<K>>,
    /// Object names `input:hover()` answered, each once.
    names: Vec<Box<str>>,
    cap: usize,
    /// What the keyframes' states and the names hold, in bytes.
    held: usize,
    /// How many frames apart keyframes are now.
    every: u64,
    /// Which code ran which frames.
    spans: Spans,
}

/// The frames after some frame, taken out of history to be put back if
/// what replaces them fails (R3).
#[derive(Debug)]
pub struct Tail<K> {
    after: u64,
    entries: Vec<Entry>,
    events: Vec<InputEvent>,
    keyframes: Vec<Keyframe<K>>,
    spans: Vec<Span>,
}

impl<K> Tail<K> {
    /// The frames it holds: their number, from the frame after `after`.
    pub fn frames(&self) -> std::ops::RangeInclusive<u64> {
        self.after + 1..=self.after + self.entries.len() as u64
    }

    /// Frame `frame`'s entry and the events it applied.
    pub fn frame(&self, frame: u64) -> Option<(&Entry, &[InputEvent])> {
        let entry = self
            .entries
            .get(frame.checked_sub(self.after + 1)? as usize)?;
        let base = self.entries.first().map_or(0, |e| e.start);
        let start = (entry.start - base) as usize;
        Some((entry, &self.events[start..start + entry.count as usize]))
    }
}

impl<K: Keep> History<K> {
    /// Starts a history at `key`, the frame it begins with, that holds at
    /// most `cap` bytes, its frames run by code of `generation` until
    /// [`History::enter`] says otherwise.
    pub fn new(key: Keyframe<K>, cap: usize, generation: u32) -> Self {
        let mut history = History {
            entries: VecDeque::with_capacity(4096),
            first: key.frame + 1,
            events: VecDeque::with_capacity(1024),
            first_event: 0,
            keyframes: VecDeque::with_capacity(64),
            names: Vec::new(),
            cap,
            held: 0,
            every: KEY_EVERY,
            spans: Spans::new(key.frame + 1, generation),
        };
        history.push_keyframe(key);
        history
    }

    /// Says that frame `frame`, about to be recorded, runs code of
    /// `generation`, and whether that code migrated the state first.
    pub fn enter(&mut self, frame: u64, generation: u32, migrated: bool) {
        self.spans.enter(frame, generation, migrated);
    }

    /// The stretch of frames `frame` is in: the code that ran it.
    pub fn span(&self, frame: u64) -> Span {
        self.spans.of(frame)
    }

    /// Drops the oldest frames while the frames the keyframe after them
    /// begins could not be run again: they ran code older than
    /// `generation`, which the game no longer holds. One keyframe stays.
    pub fn forget_generations_before(&mut self, generation: u32) {
        let Some(first) = self.spans.first_of(generation) else {
            return;
        };
        while self.keyframes.len() > 1 && self.keyframes[0].frame + 1 < first {
            self.drop_oldest();
        }
    }

    /// Takes every frame after `frame` out (their entries, events,
    /// keyframes and spans), leaving history to end at `frame`.
    pub fn split_off_after(&mut self, frame: u64) -> Tail<K> {
        let keep = frame.saturating_sub(self.first - 1) as usize;
        let entries: Vec<Entry> = if keep < self.entries.len() {
            self.entries.drain(keep..).collect()
        } else {
            Vec::new()
        };
        let events = match entries.first() {
            Some(e) => self
                .events
                .drain((e.start - self.first_event) as usize..)
                .collect(),
            None => Vec::new(),
        };
        let mut keyframes = Vec::new();
        while self.keyframes.len() > 1 && self.keyframes.back().is_some_and(|k| k.frame > frame) {
            let key = self.keyframes.pop_back().expect("more than one");
            self.held -= key.kept.bytes();
            keyframes.push(key);
        }
        keyframes.reverse();
        Tail {
            after: frame,
            entries,
            events,
            keyframes,
            spans: self.spans.split_off_after(frame),
        }
    }

    /// Puts `tail` back where it was taken from, dropping whatever was
    /// recorded after its frame since.
    pub fn put_back(&mut self, tail: Tail<K>) {
        self.truncate_after(tail.after);
        self.entries.extend(tail.entries);
        self.events.extend(tail.events);
        for key in tail.keyframes {
            self.held += key.kept.bytes();
            self.keyframes.push_back(key);
        }
        self.spans.put_back(tail.after, tail.spans);
    }

    /// Returns the frames that can be rebuilt: from the oldest keyframe's
    /// to the last recorded.
    pub fn frames(&self) -> std::ops::RangeInclusive<u64> {
        self.keyframes[0].frame..=self.last()
    }

    /// Returns the last recorded frame (the oldest keyframe's, when none
    /// came after it).
    pub fn last(&self) -> u64 {
        self.first + self.entries.len() as u64 - 1
    }

    /// Returns the byte cap.
    pub fn cap(&self) -> usize {
        self.cap
    }

    /// Returns what history holds, in bytes: every frame's entry and
    /// events, and every keyframe.
    pub fn bytes(&self) -> usize {
        self.entries.len() * size_of::<Entry>()
            + self.events.len() * size_of::<InputEvent>()
            + self.keyframes.len() * size_of::<Keyframe<K>>()
            + self.held
    }

    /// Says whether frame `frame` should leave a keyframe.
    pub fn wants_keyframe(&self, frame: u64) -> bool {
        let last = self.keyframes.back().map_or(0, |k| k.frame);
        frame >= last + self.every
    }

    /// Takes how long the last keyframe took to encode and how long the
    /// frames since the one before took, and spaces the next ones by it
    /// (see [`KEY_EVERY_MAX`]).
    pub fn keyframe_took(&mut self, took: std::time::Duration, since: std::time::Duration) {
        let share = took.as_secs_f64() / since.as_secs_f64().max(1e-9);
        if share > 0.02 {
            self.every = (self.every * 2).min(KEY_EVERY_MAX);
        } else if share < 0.005 {
            self.every = (self.every / 2).max(KEY_EVERY);
        }
    }

    /// Returns how many frames apart keyframes are now.
    pub fn keyframe_every(&self) -> u64 {
        self.every
    }

    /// Opens frame `frame`'s record. A frame at or before the last
    /// recorded one forks: the old frames from it on are dropped first
    /// (R2). The frame's events follow ([`History::event`]), then
    /// [`History::close`].
    pub fn open(&mut self, frame: u64) {
        if frame <= self.last() {
            self.truncate_after(frame - 1);
        }
        debug_assert_eq!(frame, self.last() + 1, "frames are recorded in order");
    }

    /// Records an input event of the open frame, as it was queued.
    pub fn event(&mut self, event: InputEvent) {
        self.events.push_back(event);
    }

    /// Closes the open frame: its delta, what hover answered, the hash it
    /// left and whether its update was refused. Returns false when hover answered a name past
    /// [`MAX_NAMES`]: the frame is kept as if nothing was under the
    /// pointer, and history can no longer rebuild it exactly.
    pub fn close(
        &mut self,
        dt: f64,
        hovered: Hovered<'_>,
        hash: Option<u64>,
        refused: bool,
    ) -> bool {
        let start = self
            .entries
            .back()
            .map_or(self.first_event, |e| e.start + e.count as u64);
        let count = (self.first_event + self.events.len() as u64 - start) as u32;
        let (hover, kept) = match hovered {
            Hovered::NotAsked => (0, true),
            Hovered::Nothing => (1, true),
            Hovered::Object(name) => match self.intern(name) {
                Some(at) => (at, true),
                None => (1, false),
            },
        };
        self.entries.push_back(Entry {
            dt,
            start,
            count,
            hover,
            hash,
            refused,
        });
        if self.bytes() > self.cap && self.keyframes.len() > 1 {
            self.drop_oldest();
        }
        kept
    }

    /// Records frame `frame` whole: [`History::open`], its events, and
    /// [`History::close`] (an update that ran).
    pub fn record(
        &mut self,
        frame: u64,
        dt: f64,
        events: impl IntoIterator<Item = InputEvent>,
        hovered: Hovered<'_>,
        hash: Option<u64>,
    ) -> bool {
        self.open(frame);
        for event in events {
            self.event(event);
        }
        self.close(dt, hovered, hash, false)
    }

    fn intern(&mut self, name: &str) -> Option<u32> {
        let at = match self.names.iter().position(|n| **n == *name) {
            Some(at) => at,
            None if self.names.len() == MAX_NAMES => return None,
            None => {
                self.held += name.len() + size_of::<Box<str>>();
                self.names.push(name.into());
                self.names.len() - 1
            }
        };
        Some(at as u32 + 2)
    }

    /// Keeps `key`, the end of the last recorded frame, then drops the
    /// oldest history while it holds more than the cap (one keyframe, the
    /// newest, always stays).
    pub fn push_keyframe(&mut self, key: Keyframe<K>) {
        self.held += key.kept.bytes();
        self.keyframes.push_back(key);
        while self.bytes() > self.cap && self.keyframes.len() > 1 {
            self.drop_oldest();
        }
    }

    /// Drops the oldest keyframe and the frames up to the next one.
    fn drop_oldest(&mut self) {
        let Some(old) = self.keyframes.pop_front() else {
            return;
        };
        self.held -= old.kept.bytes();
        let next = self.keyframes[0].frame;
        self.spans.drop_before(next + 1);
        while self.first <= next && !self.entries.is_empty() {
            let entry = self.entries.pop_front().expect("not empty");
            self.first += 1;
            let end = entry.start + entry.count as u64;
            let drop = (end - self.first_event) as usize;
            self.events.drain(..drop);
            self.first_event = end;
        }
    }

    /// Drops every frame after `frame`, and the keyframes after it: the
    /// future a fork replaces.
    pub fn truncate_after(&mut self, frame: u64) {
        self.spans.truncate_after(frame);
        while self.keyframes.len() > 1 && self.keyframes.back().is_some_and(|k| k.frame > frame) {
            let key = self.keyframes.pop_back().expect("more than one");
            self.held -= key.kept.bytes();
        }
        let keep = frame.saturating_sub(self.first - 1) as usize;
        if keep < self.entries.len() {
            let end = self.entries[keep].start;
            self.entries.truncate(keep);
            self.events.truncate((end - self.first_event) as usize);
        }
    }

    /// Returns the keyframe at or before `frame`.
    pub fn keyframe_before(&self, frame: u64) -> Option<&Keyframe<K>> {
        self.keyframes.iter().rev().find(|k| k.frame <= frame)
    }

    /// Returns the frames keyframes end, oldest first.
    pub fn keyframe_frames(&self) -> impl Iterator<Item = u64> + '_ {
        self.keyframes.iter().map(|k| k.frame)
    }

    /// Returns frame `frame`'s entry.
    pub fn entry(&self, frame: u64) -> Option<&Entry> {
        let at = frame.checked_sub(self.first)?;
        self.entries.get(at as usize)
    }

    /// Returns the events frame `frame` applied, in order.
    pub fn events(&self, frame: u64) -> impl Iterator<Item = InputEvent> + '_ {
        let (start, count) = match self.entry(frame) {
            Some(e) => ((e.start - self.first_event) as usize, e.count as usize),
            None => (0, 0),
        };
        self.events.range(start..start + count).copied()
    }

    /// Returns what hover answered the frame of `entry` (one of this
    /// history's, or of a tail taken from it).
    pub fn hover_name(&self, entry: &Entry) -> Hovered<'_> {
        match entry.hover {
            0 => Hovered::NotAsked,
            1 => Hovered::Nothing,
            n => Hovered::Object(&self.names[n as usize - 2]),
        }
    }

    /// Returns what hover answered frame `frame`.
    pub fn hovered(&self, frame: u64) -> Hovered<'_> {
        match self.entry(frame).map_or(0, |e| e.hover) {
            0 => Hovered::NotAsked,
            1 => Hovered::Nothing,
            n => Hovered::Object(&self.names[n as usize - 2]),
        }
    }
}

/// Reads a hash as `--state-hash` writes it (16 hex digits).
pub fn hash_bits(hash: &str) -> Option<u64> {
    u64::from_str_radix(hash, 16).ok()
}

#[cfg(test)]
mod tests;
