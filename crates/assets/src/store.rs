//! Store: the one cache of a game's decoded assets (images, models,
//! sounds, fonts), loaded through the door by name, each under a cap on the total
//! the host holds (rule H10).
//!
//! An asset is loaded once and named by a small id from then on, so a
//! frame that draws the same sprite every frame allocates nothing. A
//! reload that changes an asset's file loads it again in place, under the
//! same id, and bumps the store's generation and the asset's: every other
//! cache (the renderer's GPU textures and meshes) compares generations
//! instead of waiting to be told to forget. Generations are unique in the
//! process, not only in one store: a cache that outlives a game (the
//! renderer a test's pictures share) never takes another store's asset
//! of the same id and generation for its own.

use moonloop_core::Refusal;
use std::collections::HashMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use tiny_skia::Pixmap;

use super::gltf::Model;
use crate::sound::Clip;

/// The most bytes of decoded images the store holds (screen images and
/// scene textures alike).
pub const MAX_IMAGE_BYTES: u64 = 512 << 20;

/// The most bytes of model data the store holds.
pub const MAX_MODEL_BYTES: u64 = 512 << 20;

/// The most bytes of decoded sound the store holds.
pub const MAX_SOUND_BYTES: u64 = 512 << 20;

/// The most bytes of font files the store holds.
pub const MAX_FONT_BYTES: u64 = 128 << 20;

/// The largest font file the host reads.
pub const MAX_FONT_FILE: u64 = 32 << 20;

/// The most failed names remembered (so a broken file is not read again
/// every frame); past it, failures are simply not remembered.
const MAX_FAILURES: usize = 1024;

/// The most warnings kept until they are taken.
const MAX_WARNINGS: usize = 64;

/// An image in the store.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ImageId(pub u32);

/// A model in the store.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ModelId(pub u32);

/// A font file in the store.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FontId(pub u32);

/// One kind of asset: loaded entries by id, and names that failed.
struct Shelf<T> {
    by_name: HashMap<String, u32>,
    entries: Vec<Entry<T>>,
    failed: HashMap<String, Refusal>,
    held: u64,
}

struct Entry<T> {
    name: String,
    value: Arc<T>,
    bytes: u64,
    /// The store's generation when this was (re)loaded.
    generation: u64,
}

impl<T> Default for Shelf<T> {
    fn default() -> Self {
        Shelf {
            by_name: HashMap::new(),
            entries: Vec::new(),
            failed: HashMap::new(),
            held: 0,
        }
    }
}

impl<T> Shelf<T> {
    /// Returns the id of `name`, loading it with `load` (which gives the
    /// value and its size in bytes) the first time; `cap` bounds the total.
    fn get(
        &mut self,
        name: &str,
        what: &str,
        cap: u64,
        generation: u64,
        load: impl FnOnce() -> Result<(T, u64), Refusal>,
    ) -> Result<u32, Refusal> {
        if let Some(&id) = self.by_name.get(name) {
            return Ok(id);
        }
        if let Some(why) = self.failed.get(name) {
            return Err(why.clone());
        }
        let loaded = load().and_then(|(value, bytes)| {
            if self.held + bytes > cap {
                return Err(refuse!(
                    "`{}` does not fit: the game's {what} would hold more than {} (H10)",
                    moonloop_door::escape(name),
                    super::bytes(cap)
                ));
            }
            Ok((value, bytes))
        });
        match loaded {
            Ok((value, bytes)) => {
                let id = self.entries.len() as u32;
                self.held += bytes;
                self.entries.push(Entry {
                    name: name.to_string(),
                    value: Arc::new(value),
                    bytes,
                    generation,
                });
                self.by_name.insert(name.to_string(), id);
                Ok(id)
            }
            Err(why) => {
                if self.failed.len() < MAX_FAILURES {
                    self.failed.insert(name.to_string(), why.clone());
                }
                Err(why)
            }
        }
    }

    /// Loads again every entry `changed` says changed; an entry whose new
    /// file does not load keeps its old value, and the reason is kept in
    /// `problems`. Returns the names loaded again.
    fn refresh(
        &mut self,
        changed: impl Fn(&str) -> bool,
        generation: u64,
        cap: u64,
        problems: &mut Vec<String>,
        mut load: impl FnMut(&str) -> Result<(T, u64), Refusal>,
    ) -> Vec<String> {
        self.failed.clear();
        let mut loaded = Vec::new();
        for entry in &mut self.entries {
            if !changed(&entry.name) {
                continue;
            }
            match load(&entry.name) {
                Ok((value, bytes)) if self.held - entry.bytes + bytes <= cap => {
                    self.held = self.held - entry.bytes + bytes;
                    entry.value = Arc::new(value);
                    entry.bytes = bytes;
                    entry.generation = generation;
                    loaded.push(entry.name.clone());
                }
                Ok(_) => problems.push(format!(
                    "`{}` changed but no longer fits in the store (H10); the old one stays",
                    entry.name
                )),
                Err(why) => problems.push(format!("{why}; the old one stays")),
            }
        }
        loaded
    }
}

/// The decoded assets of one game.
pub struct Store {
    root: Option<PathBuf>,
    generation: u64,
    images: Shelf<Pixmap>,
    models: Shelf<Model>,
    sounds: Shelf<Clip>,
    fonts: Shelf<Vec<u8>>,
    warnings: Vec<String>,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store")
            .field("root", &self.root)
            .field("generation", &self.generation)
            .field("images", &self.images.entries.len())
            .field("models", &self.models.entries.len())
            .field("sounds", &self.sounds.entries.len())
            .finish()
    }
}

/// The next store generation: unique in the process.
fn next_generation() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

impl Store {
    /// Creates an empty store for the game folder `root` (none: nothing
    /// can be loaded).
    pub fn new(root: Option<PathBuf>) -> Store {
        Store {
            root,
            generation: next_generation(),
            images: Shelf::default(),
            models: Shelf::default(),
            sounds: Shelf::default(),
            fonts: Shelf::default(),
            warnings: Vec::new(),
        }
    }

    /// Returns the game folder assets load from.
    pub fn root(&self) -> Option<&Path> {
        self.root.as_deref()
    }

    /// Returns the generation: it moves whenever a reload changes an asset.
    #[inline]
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// Returns the id of PNG image `name`, loading it the first time.
    ///
    /// # Errors
    /// The door refuses the name, the file is not a PNG within the limits,
    /// or the store's images would pass [`MAX_IMAGE_BYTES`].
    pub fn image(&mut self, name: &str) -> Result<ImageId, Refusal> {
        // Borrowed, not cloned: a name found already costs no allocation.
        let root = self.root.as_deref();
        self.images
            .get(name, "images", MAX_IMAGE_BYTES, self.generation, || {
                let pixmap = super::png::load(root, name)?;
                let bytes = pixmap.data().len() as u64;
                Ok((pixmap, bytes))
            })
            .map(ImageId)
    }

    /// Returns a loaded image.
    #[inline]
    pub fn image_at(&self, id: ImageId) -> &Pixmap {
        &self.images.entries[id.0 as usize].value
    }

    /// Returns the generation image `id` was last loaded at.
    #[inline]
    pub fn image_generation(&self, id: ImageId) -> u64 {
        self.images.entries[id.0 as usize].generation
    }

    /// Returns the id of glTF model `name`, loading it the first time.
    ///
    /// # Errors
    /// As [`super::gltf::load`], or the store's models would pass
    /// [`MAX_MODEL_BYTES`].
    pub fn model(&mut self, name: &str) -> Result<ModelId, Refusal> {
        // Borrowed, not cloned: a name found already costs no allocation.
        let root = self.root.as_deref();
        let mut notes = Vec::new();
        let id = self
            .models
            .get(name, "models", MAX_MODEL_BYTES, self.generation, || {
                let mut model = super::gltf::load(root, name)?;
                notes = std::mem::take(&mut model.notes);
                let bytes = model.bytes() as u64;
                Ok((model, bytes))
            })
            .map(ModelId)?;
        say_notes(notes);
        Ok(id)
    }

    /// Returns a loaded model.
    #[inline]
    pub fn model_at(&self, id: ModelId) -> &Model {
        &self.models.entries[id.0 as usize].value
    }

    /// Returns the generation model `id` was last loaded at.
    #[inline]
    pub fn model_generation(&self, id: ModelId) -> u64 {
        self.models.entries[id.0 as usize].generation
    }

    /// Returns sound file `name` (`.wav` or `.ogg`), decoded, loading it
    /// the first time.
    ///
    /// # Errors
    /// The door refuses the name, the file is not a sound the host
    /// decodes, or the store's sounds would pass [`MAX_SOUND_BYTES`].
    pub fn sound(&mut self, name: &str) -> Result<Arc<Clip>, Refusal> {
        // Borrowed, not cloned: a name found already costs no allocation.
        let root = self.root.as_deref();
        let id = self
            .sounds
            .get(name, "sounds", MAX_SOUND_BYTES, self.generation, || {
                let clip = load_sound(root, name)?;
                let bytes = clip.samples.len() as u64 * 4;
                Ok((clip, bytes))
            })?;
        Ok(self.sounds.entries[id as usize].value.clone())
    }

    /// Returns the id of font file `name` (TrueType or OpenType), loading
    /// it the first time.
    ///
    /// # Errors
    /// The door refuses the name, the file is larger than [`MAX_FONT_FILE`]
    /// or holds no font face, or the store's fonts would pass
    /// [`MAX_FONT_BYTES`].
    pub fn font(&mut self, name: &str) -> Result<FontId, Refusal> {
        // Borrowed, not cloned: a name found already costs no allocation.
        let root = self.root.as_deref();
        self.fonts
            .get(name, "fonts", MAX_FONT_BYTES, self.generation, || {
                load_font(root, name)
            })
            .map(FontId)
    }

    /// Returns a loaded font file's bytes.
    pub fn font_at(&self, id: FontId) -> Arc<Vec<u8>> {
        self.fonts.entries[id.0 as usize].value.clone()
    }

    /// Returns the generation font `id` was last loaded at.
    #[inline]
    pub fn font_generation(&self, id: FontId) -> u64 {
        self.fonts.entries[id.0 as usize].generation
    }

    /// Says whether the game folder has a file `name` (a sound looked for
    /// by the cue's name).
    pub fn has_file(&self, name: &str) -> bool {
        super::find(self.root.as_deref(), name, "file").is_ok()
    }

    /// Loads again every asset whose file is in `changed` (paths relative
    /// to the game folder, as the watcher reports them), and bumps the
    /// generation when any changed. A model loads again when any file
    /// beside it changes (its buffers). Problems are kept as warnings.
    /// Returns the names of the assets loaded again.
    pub fn refresh(&mut self, changed: &[PathBuf]) -> Vec<String> {
        let touched = |name: &str| changed.iter().any(|c| Path::new(name) == c);
        let model_touched = |name: &str| {
            let folder = Path::new(name).parent().unwrap_or(Path::new(""));
            changed
                .iter()
                .any(|c| Path::new(name) == c || c.parent() == Some(folder))
        };
        let generation = next_generation();
        let root = self.root.clone();
        let root = root.as_deref();
        let mut problems = Vec::new();
        let mut loaded = self.images.refresh(
            touched,
            generation,
            MAX_IMAGE_BYTES,
            &mut problems,
            |name| {
                let pixmap = super::png::load(root, name)?;
                let bytes = pixmap.data().len() as u64;
                Ok((pixmap, bytes))
            },
        );
        let mut notes = Vec::new();
        loaded.extend(self.models.refresh(
            model_touched,
            generation,
            MAX_MODEL_BYTES,
            &mut problems,
            |name| {
                let mut model = super::gltf::load(root, name)?;
                notes.append(&mut model.notes);
                let bytes = model.bytes() as u64;
                Ok((model, bytes))
            },
        ));
        say_notes(notes);
        loaded.extend(self.sounds.refresh(
            touched,
            generation,
            MAX_SOUND_BYTES,
            &mut problems,
            |name| {
                let clip = load_sound(root, name)?;
                let bytes = clip.samples.len() as u64 * 4;
                Ok((clip, bytes))
            },
        ));
        loaded.extend(self.fonts.refresh(
            touched,
            generation,
            MAX_FONT_BYTES,
            &mut problems,
            |name| load_font(root, name),
        ));
        self.generation = generation;
        for problem in problems {
            self.warn(problem);
        }
        loaded
    }

    /// Keeps a warning about an asset, met where no Luau call is running
    /// to raise it (a reload, a GPU upload), for the frame's errors.
    pub fn warn(&mut self, warning: String) {
        if self.warnings.len() < MAX_WARNINGS && !self.warnings.contains(&warning) {
            self.warnings.push(warning);
        }
    }

    /// Takes the warnings kept since the last call.
    pub fn take_warnings(&mut self) -> Vec<String> {
        std::mem::take(&mut self.warnings)
    }

    /// Says whether warnings are waiting.
    pub fn has_warnings(&self) -> bool {
        !self.warnings.is_empty()
    }
}

fn load_font(root: Option<&Path>, name: &str) -> Result<(Vec<u8>, u64), Refusal> {
    let bytes = super::read(root, name, "font", MAX_FONT_FILE)?;
    crate::faces::check_faces(&bytes)
        .map_err(|why| refuse!("`{}`: {why}", moonloop_door::escape(name)))?;
    let faces = crate::faces::count_faces(&bytes);
    if faces == 0 {
        return Err(refuse!(
            "`{}` is not a font (a TrueType or OpenType file)",
            moonloop_door::escape(name)
        ));
    }
    let held = bytes.len() as u64;
    Ok((bytes, held))
}

fn load_sound(root: Option<&Path>, name: &str) -> Result<Clip, Refusal> {
    let bytes = super::read(root, name, "sound", crate::sound::MAX_FILE)?;
    let ext = Path::new(name)
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .unwrap_or_default();
    Clip::decode(&bytes, &ext).map_err(|why| refuse!("`{}`: {why}", moonloop_door::escape(name)))
}

/// Says what a model uses that the host does not draw, once as it loads.
/// A note, not an error: the game goes on, drawing what the host can, and
/// a headless run still passes (its author may not be able to change the
/// model).
fn say_notes(notes: Vec<String>) {
    for note in notes {
        let line = format!("moonloop: note: {}", moonloop_door::line(&note));
        // Dropped if stderr has closed: a note must not end the run.
        let _ = writeln!(std::io::stderr(), "{}", moonloop_door::escape_lines(&line));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn png(path: &Path, color: [u8; 4]) {
        let mut pixmap = Pixmap::new(2, 2).unwrap();
        pixmap.fill(tiny_skia::Color::from_rgba8(
            color[0], color[1], color[2], color[3],
        ));
        pixmap.save_png(path).unwrap();
    }

    #[test]
    fn an_asset_loads_once_and_keeps_its_id() {
        let dir = tempfile::tempdir().unwrap();
        png(&dir.path().join("a.png"), [255, 0, 0, 255]);
        let mut store = Store::new(Some(dir.path().to_path_buf()));
        let a = store.image("a.png").unwrap();
        assert_eq!(store.image("a.png").unwrap(), a);
        assert_eq!(store.image_at(a).width(), 2);
        assert!(store.image("missing.png").is_err());
    }

    #[test]
    fn a_changed_file_loads_again_under_the_same_id_and_a_new_generation() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.png");
        png(&path, [255, 0, 0, 255]);
        let mut store = Store::new(Some(dir.path().to_path_buf()));
        let a = store.image("a.png").unwrap();
        let before = store.image_generation(a);
        png(&path, [0, 0, 255, 255]);
        store.refresh(&[PathBuf::from("other.png")]);
        assert_eq!(
            store.image_generation(a),
            before,
            "an unrelated change leaves it"
        );
        store.refresh(&[PathBuf::from("a.png")]);
        assert_ne!(store.image_generation(a), before, "its change reloads it");
        assert_eq!(store.image_at(a).pixel(0, 0).unwrap().blue(), 255);
        // A file that breaks keeps the old picture, and says so.
        std::fs::write(&path, "not a png").unwrap();
        store.refresh(&[PathBuf::from("a.png")]);
        assert_eq!(store.image_at(a).pixel(0, 0).unwrap().blue(), 255);
        let warnings = store.take_warnings();
        assert!(warnings[0].contains("is not a PNG image"), "{warnings:?}");
    }

    #[test]
    fn a_broken_file_is_read_once_until_it_changes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("b.png");
        std::fs::write(&path, "not a png").unwrap();
        let mut store = Store::new(Some(dir.path().to_path_buf()));
        assert!(store.image("b.png").is_err());
        png(&path, [0, 255, 0, 255]);
        assert!(store.image("b.png").is_err(), "the failure is remembered");
        store.refresh(&[PathBuf::from("b.png")]);
        assert!(store.image("b.png").is_ok(), "until the file changes");
    }
}
