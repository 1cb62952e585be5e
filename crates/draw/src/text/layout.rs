//! The layouts kept from frame to frame: a text and its style map to the
//! glyphs placed for it, so drawing the same string again allocates
//! nothing and shapes nothing (H14).
//!
//! Both what one frame lays out and what is kept are bounded (H10): a
//! frame lays out at most [`MAX_FRAME_GLYPHS`] glyphs, and when the kept
//! layouts pass their caps at a frame's start, only those the last frame
//! used stay.

use moonloop_core::Refusal;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};

use cosmic_text::CacheKeyFlags;
use cosmic_text::fontdb;

use super::TextStyle;

/// The most glyphs one frame lays out (counting text drawn again).
pub const MAX_FRAME_GLYPHS: usize = 1_000_000;

/// Past this many glyphs kept, a frame's start keeps only the last
/// frame's layouts.
const MAX_KEPT_GLYPHS: usize = 1_000_000;

/// Past this many layouts kept, likewise.
const MAX_KEPT_LAYOUTS: usize = 8192;

/// One glyph of a layout, placed from the text's top-left anchor in
/// logical pixels; `y` is its baseline.
#[derive(Debug, Clone, Copy)]
pub struct Placed {
    pub font: fontdb::ID,
    pub glyph: u16,
    pub x: f32,
    pub y: f32,
    pub size: f32,
    pub weight: fontdb::Weight,
    pub flags: CacheKeyFlags,
}

/// What a layout depends on besides its text (whose hash it carries).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Key {
    hash: u64,
    face: u32,
    /// The generation of the face's file (a reloaded font lays out anew).
    generation: u64,
    size: u32,
    width: Option<u32>,
    line_height: u32,
    align: u8,
}

impl Key {
    /// The key of `text` in `style`, lines `line_height` ems apart, its
    /// font file at `generation`.
    pub fn new(text: &str, style: &TextStyle, line_height: f32, generation: u64) -> Key {
        let mut key = Key {
            hash: 0,
            face: style.face.0,
            generation,
            size: style.size.to_bits(),
            width: style.width.map(f32::to_bits),
            line_height: line_height.to_bits(),
            align: style.align as u8,
        };
        // SipHash with fixed keys: the same on every run.
        let mut h = std::collections::hash_map::DefaultHasher::new();
        text.hash(&mut h);
        (
            key.face,
            key.generation,
            key.size,
            key.width,
            key.line_height,
            key.align,
        )
            .hash(&mut h);
        key.hash = h.finish();
        key
    }
}

struct Entry {
    key: Key,
    text: Box<str>,
    glyphs: Vec<Placed>,
    width: f32,
    height: f32,
    /// The frame that last used it.
    used: u64,
    /// The next entry whose key has the same hash.
    next: Option<u32>,
}

/// The kept layouts.
#[derive(Default)]
pub struct Layouts {
    entries: Vec<Entry>,
    /// Hash to the first entry with it.
    index: HashMap<u64, u32>,
    frame: u64,
    frame_glyphs: usize,
    kept_glyphs: usize,
}

impl Layouts {
    /// Returns how many layouts are kept.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Starts a frame; over the caps, keeps only the last frame's layouts.
    /// Layout ids from earlier frames are no longer valid after it.
    pub fn begin_frame(&mut self) {
        let last = self.frame;
        self.frame += 1;
        self.frame_glyphs = 0;
        if self.entries.len() <= MAX_KEPT_LAYOUTS && self.kept_glyphs <= MAX_KEPT_GLYPHS {
            return;
        }
        self.entries.retain(|e| e.used == last);
        self.index.clear();
        self.kept_glyphs = 0;
        for i in 0..self.entries.len() {
            self.link(i as u32);
            self.kept_glyphs += self.entries[i].glyphs.len();
        }
    }

    fn link(&mut self, i: u32) {
        let hash = self.entries[i as usize].key.hash;
        let next = self.index.insert(hash, i);
        self.entries[i as usize].next = next;
    }

    /// Counts `glyphs` more laid out this frame.
    fn count(&mut self, glyphs: usize) -> Result<(), Refusal> {
        if self.frame_glyphs + glyphs > MAX_FRAME_GLYPHS {
            return Err(refuse!(
                "this frame has laid out more than {MAX_FRAME_GLYPHS} glyphs (H10: look for a \
                 loop that writes text without end)"
            ));
        }
        self.frame_glyphs += glyphs;
        Ok(())
    }

    /// Finds the layout of `text` under `key`, marking it used.
    ///
    /// # Errors
    /// The frame would pass [`MAX_FRAME_GLYPHS`].
    pub fn find(&mut self, text: &str, key: &Key) -> Result<Option<u32>, Refusal> {
        let mut at = self.index.get(&key.hash).copied();
        while let Some(i) = at {
            let entry = &self.entries[i as usize];
            if entry.key == *key && &*entry.text == text {
                let n = entry.glyphs.len();
                self.count(n)?;
                self.entries[i as usize].used = self.frame;
                return Ok(Some(i));
            }
            at = entry.next;
        }
        Ok(None)
    }

    /// Keeps a new layout; returns its id.
    ///
    /// # Errors
    /// The frame would pass [`MAX_FRAME_GLYPHS`].
    pub fn insert(
        &mut self,
        text: &str,
        key: Key,
        glyphs: Vec<Placed>,
        width: f32,
        height: f32,
    ) -> Result<u32, Refusal> {
        self.count(glyphs.len())?;
        self.kept_glyphs += glyphs.len();
        let i = self.entries.len() as u32;
        self.entries.push(Entry {
            key,
            text: text.into(),
            glyphs,
            width,
            height,
            used: self.frame,
            next: None,
        });
        self.link(i);
        Ok(i)
    }

    /// Returns a layout's width and height.
    pub fn size_of(&self, id: u32) -> (f32, f32) {
        self.entries
            .get(id as usize)
            .map_or((0.0, 0.0), |e| (e.width, e.height))
    }

    /// Returns a layout's glyphs (none for an id a reset forgot: a font that panicked the shaper
    /// starts the typesetter afresh mid-frame.)
    pub fn glyphs(&self, id: u32) -> &[Placed] {
        self.entries.get(id as usize).map_or(&[], |e| &e.glyphs)
    }
}
