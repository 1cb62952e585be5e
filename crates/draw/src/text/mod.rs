//! Text (rule H14): fonts from the game folder, shaped, wrapped and
//! aligned by cosmic-text, each glyph rasterized once per font and size.
//!
//! The [`Typesetter`] knows the embedded font (DejaVu Sans, the default
//! and the fallback for characters a game's font lacks) and the font
//! files a game names, loaded through the asset door. Text is laid out
//! when `render` writes it, and the layout is kept: the same string in the
//! same style next frame costs a lookup, not a shaping pass. Pixels come
//! from the glyph cache ([`glyphs`]).
//!
//! A size is the em, in logical pixels, as in CSS. The host never reads
//! the system's fonts, so text looks the same on every machine.

mod glyphs;
mod layout;

use moonloop_core::Refusal;
use std::sync::Arc;

use cosmic_text::fontdb::{self, Database, Source};
use cosmic_text::{Attrs, Buffer, Family, FontSystem, Metrics, Shaping, Wrap};
use tiny_skia::{Mask, PixmapMut, Transform};

use glyphs::Glyphs;
use layout::{Key, Layouts, Placed};
use moonloop_assets::faces::check_faces;
use moonloop_assets::{FontId, Store};
use moonloop_core::color::Rgba;

pub use glyphs::Band;
pub use layout::MAX_FRAME_GLYPHS;

/// Horizontal alignment of text at its x.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    /// x is the left edge.
    Left,
    /// x is the center.
    Center,
    /// x is the right edge.
    Right,
}

/// The most font files one game uses.
pub const MAX_FONTS: usize = 64;

/// The family name the embedded font is known by.
const EMBEDDED: &str = "DejaVu Sans";

/// A font the typesetter has loaded: the embedded one or a game's file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FaceId(u32);

impl FaceId {
    /// The embedded font, DejaVu Sans.
    pub const EMBEDDED: FaceId = FaceId(0);
}

/// How a text is laid out.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TextStyle {
    /// The font.
    pub face: FaceId,
    /// The em, in logical pixels.
    pub size: f32,
    /// Wrap to this width, in logical pixels; `None`: break at `\n` only.
    pub width: Option<f32>,
    /// Distance from one line to the next, as a multiple of the size;
    /// `None`: the font's own.
    pub line_height: Option<f32>,
    /// Where `x` is: unwrapped, the left edge, center or right edge of
    /// each line; wrapped, lines align inside the box from `x` to
    /// `x + width`.
    pub align: Align,
}

impl TextStyle {
    /// The embedded font at `size`, unwrapped, left-aligned.
    pub fn plain(size: f32) -> TextStyle {
        TextStyle {
            face: FaceId::EMBEDDED,
            size,
            width: None,
            line_height: None,
            align: Align::Left,
        }
    }
}

/// A layout made this frame, to be drawn by [`Typesetter::draw`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LayoutId(u32);

struct Face {
    /// The store's font and the generation it was loaded at; `None` for
    /// the embedded font.
    file: Option<(FontId, u64)>,
    /// The family name it is asked for by (unique to this face).
    family: String,
    /// Its faces in the font database.
    ids: Vec<fontdb::ID>,
    /// The font's own line height, in ems.
    line_height: f32,
}

/// Lays out and draws text: the fonts, the layouts kept from frame to
/// frame, and the glyph cache.
pub struct Typesetter {
    system: FontSystem,
    buffer: Buffer,
    faces: Vec<Face>,
    layouts: Layouts,
    glyphs: Glyphs,
}

impl std::fmt::Debug for Typesetter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Typesetter")
            .field("faces", &self.faces.len())
            .field("layouts", &self.layouts.len())
            .field("glyphs", &self.glyphs.len())
            .finish()
    }
}

impl Default for Typesetter {
    fn default() -> Self {
        Typesetter::new()
    }
}

impl Typesetter {
    /// A typesetter that knows the embedded font.
    pub fn new() -> Typesetter {
        let mut db = Database::new();
        let embedded: Arc<dyn AsRef<[u8]> + Send + Sync> = Arc::new(dejavu::sans::regular());
        let ids = db.load_font_source(Source::Binary(embedded)).to_vec();
        // The locale is fixed: fallback and line breaking never depend on
        // the machine (H11).
        let mut system = FontSystem::new_with_locale_and_db("en-US".into(), db);
        let line_height = ids
            .first()
            .and_then(|&id| natural_line_height(&mut system, id))
            .unwrap_or(1.2);
        let buffer = Buffer::new_empty(Metrics::new(16.0, 16.0 * line_height));
        Typesetter {
            system,
            buffer,
            faces: vec![Face {
                file: None,
                family: EMBEDDED.to_string(),
                ids,
                line_height,
            }],
            layouts: Layouts::default(),
            glyphs: Glyphs::default(),
        }
    }

    /// Returns the face for font file `name`, loading it through `store`
    /// the first time and again when its file changed.
    ///
    /// # Errors
    /// As [`Store::font`], or the game uses more than [`MAX_FONTS`] files.
    pub fn face(&mut self, store: &mut Store, name: &str) -> Result<FaceId, Refusal> {
        let file = store.font(name)?;
        let generation = store.font_generation(file);
        let found = self
            .faces
            .iter()
            .position(|f| f.file.is_some_and(|(id, _)| id == file));
        if let Some(i) = found {
            if self.faces[i].file == Some((file, generation)) {
                return Ok(FaceId(i as u32));
            }
            // The file changed on disk: its old faces go. Layouts made with
            // them stay valid for what this frame already drew, are never
            // found again (their key has the old generation) and age out;
            // glyphs are keyed by faces, which are new.
            let old = std::mem::take(&mut self.faces[i].ids);
            for id in old {
                self.system.db_mut().remove_face(id);
            }
            self.load_into(i, store, file, generation)?;
            return Ok(FaceId(i as u32));
        }
        if self.faces.len() > MAX_FONTS {
            return Err(refuse!(
                "`{}` would be font file {}; a game uses at most {MAX_FONTS} (H10)",
                moonloop_door::escape(name),
                self.faces.len()
            ));
        }
        self.faces.push(Face {
            file: None,
            family: String::new(),
            ids: Vec::new(),
            line_height: 1.2,
        });
        let i = self.faces.len() - 1;
        if let Err(why) = self.load_into(i, store, file, generation) {
            self.faces.pop();
            return Err(why);
        }
        Ok(FaceId(i as u32))
    }

    /// Loads a font from `bytes` that no file holds (the fuzz target's).
    ///
    /// # Errors
    /// The bytes hold no face, or [`MAX_FONTS`] are loaded.
    pub fn face_from_bytes(&mut self, bytes: Vec<u8>) -> Result<FaceId, Refusal> {
        if self.faces.len() > MAX_FONTS {
            return Err(refuse!("a game uses at most {MAX_FONTS} fonts (H10)"));
        }
        let i = self.faces.len();
        let family = format!("moonloop bytes {i}");
        let face = self.load_face(Arc::new(bytes), family, None)?;
        self.faces.push(face);
        Ok(FaceId(i as u32))
    }

    /// Loads the store's font `file` as face `i`.
    fn load_into(
        &mut self,
        i: usize,
        store: &Store,
        file: FontId,
        generation: u64,
    ) -> Result<(), Refusal> {
        let family = format!("moonloop font {}.{generation}", file.0);
        self.faces[i] = self.load_face(store.font_at(file), family, Some((file, generation)))?;
        Ok(())
    }

    /// Loads the faces in `bytes` under `family`, a name no other face
    /// has, so asking for it never finds another font.
    fn load_face(
        &mut self,
        bytes: Arc<Vec<u8>>,
        family: String,
        file: Option<(FontId, u64)>,
    ) -> Result<Face, Refusal> {
        check_faces(&bytes)?;
        let bytes: Arc<dyn AsRef<[u8]> + Send + Sync> = bytes;
        let db = self.system.db_mut();
        let mut ids = Vec::new();
        let loaded = moonloop_core::contain::contain_panic(|| {
            let mut scratch = Database::new();
            scratch.load_font_source(Source::Binary(bytes));
            scratch.faces().cloned().collect::<Vec<_>>()
        })
        .unwrap_or_default();
        for mut info in loaded {
            info.families = vec![(family.clone(), fontdb::Language::English_UnitedStates)];
            ids.push(db.push_face_info(info));
        }
        if ids.is_empty() {
            return Err("the font file holds no face the host can read".into());
        }
        let system = &mut self.system;
        let line_height =
            moonloop_core::contain::contain_panic(|| natural_line_height(system, ids[0]))
                .flatten()
                .unwrap_or(1.2);
        Ok(Face {
            file,
            family,
            ids,
            line_height,
        })
    }

    /// Starts a frame: layouts and glyphs over their caps give way to
    /// those the last frame used.
    pub fn begin_frame(&mut self) {
        self.layouts.begin_frame();
        self.glyphs.begin_frame();
    }

    /// Lays out `text` in `style` (or finds it laid out already).
    ///
    /// # Errors
    /// The frame has laid out more than [`MAX_FRAME_GLYPHS`] glyphs, or
    /// the font could not shape the text.
    pub fn layout(&mut self, text: &str, style: &TextStyle) -> Result<LayoutId, Refusal> {
        let face = &self.faces[style.face.0 as usize];
        let line_height = style.line_height.unwrap_or(face.line_height);
        let generation = face.file.map_or(0, |(_, g)| g);
        let key = Key::new(text, style, line_height, generation);
        if let Some(id) = self.layouts.find(text, &key)? {
            return Ok(LayoutId(id));
        }
        let family = face.family.as_str();
        let (buffer, system) = (&mut self.buffer, &mut self.system);
        let shaped = moonloop_core::contain::contain_panic(|| {
            shape(buffer, system, text, style, family, line_height)
        });
        let Some((placed, width, height)) = shaped else {
            // A panic may leave the font system half-changed: start afresh.
            *self = Typesetter::new();
            return Err("the font could not lay this text out".into());
        };
        // A broken font's metrics can send the pen to infinity.
        let finite = |v: f32| v.is_finite() && v.abs() < 1.0e9;
        if !(finite(width) && finite(height) && placed.iter().all(|g| finite(g.x) && finite(g.y))) {
            return Err("the font's measurements are not finite numbers; it is broken".into());
        }
        self.layouts
            .insert(text, key, placed, width, height)
            .map(LayoutId)
    }

    /// Returns a layout's width (its widest line) and height (its lines
    /// times the line height), in logical pixels.
    pub fn size_of(&self, id: LayoutId) -> (f32, f32) {
        self.layouts.size_of(id.0)
    }

    /// Draws layout `id` with its top-left anchor at `at` (logical
    /// pixels, before `transform`), in `color`; `smooth: false` draws a
    /// pixel font crisp (whole-pixel positions, no partial coverage).
    #[allow(clippy::too_many_arguments)]
    pub fn draw(
        &mut self,
        pixmap: &mut PixmapMut<'_>,
        id: LayoutId,
        at: [f32; 2],
        color: Rgba,
        smooth: bool,
        transform: Transform,
        clip: Option<&Mask>,
    ) {
        let glyphs = self.layouts.glyphs(id.0);
        self.glyphs.draw(
            &mut self.system,
            pixmap,
            glyphs,
            at,
            color,
            smooth,
            transform,
            clip,
        );
    }

    /// Says whether layout `id` drawn through `transform` is blended from
    /// the glyph cache (and so may be drawn in bands, after
    /// [`Typesetter::prepare`]) rather than filled from outlines.
    pub fn cached(&self, id: LayoutId, transform: Transform) -> bool {
        glyphs::Glyphs::cached(self.layouts.glyphs(id.0), transform)
    }

    /// Rasterizes the glyphs of layout `id` the cache lacks.
    pub fn prepare(&mut self, id: LayoutId, at: [f32; 2], smooth: bool, transform: Transform) {
        let placed = self.layouts.glyphs(id.0);
        self.glyphs
            .prepare(&mut self.system, placed, at, smooth, transform);
    }

    /// Blends layout `id`, prepared, into the rows of `band`: exactly what
    /// [`Typesetter::draw`] writes there.
    #[allow(clippy::too_many_arguments)]
    pub fn draw_band(
        &self,
        band: &mut Band<'_>,
        id: LayoutId,
        at: [f32; 2],
        color: Rgba,
        smooth: bool,
        transform: Transform,
        clip: Option<&Mask>,
    ) {
        let placed = self.layouts.glyphs(id.0);
        self.glyphs
            .blend(band, placed, at, color, smooth, transform, clip);
    }

    /// Returns how many glyph images have been rasterized since the
    /// typesetter was made (each glyph is once per font and size).
    pub fn rasterized(&self) -> u64 {
        self.glyphs.rasterized()
    }

    /// Returns the outlines of layout `id`'s glyphs as tiny-skia paths at
    /// their places (for drawing text without the cache, as the bench's
    /// baseline does).
    pub fn outlines(
        &mut self,
        id: LayoutId,
        at: [f32; 2],
        mut each: impl FnMut(&tiny_skia::Path, Transform),
    ) {
        let glyphs = self.layouts.glyphs(id.0);
        for g in glyphs {
            if let Some(path) = self.glyphs.outline(&mut self.system, g) {
                each(
                    path,
                    Transform::from_translate(at[0] + g.x, at[1] + g.y).pre_scale(1.0, -1.0),
                );
            }
        }
    }
}

/// Shapes and lays out `text` into glyphs placed from the text's top-left
/// anchor; returns them with the widest line's width and the height.
fn shape(
    buffer: &mut Buffer,
    system: &mut FontSystem,
    text: &str,
    style: &TextStyle,
    family: &str,
    line_height: f32,
) -> (Vec<Placed>, f32, f32) {
    let mut placed = Vec::new();
    if style.size <= 0.0 {
        return (placed, 0.0, 0.0);
    }
    let line_px = style.size * line_height;
    buffer.set_metrics_and_size(Metrics::new(style.size, line_px), style.width, None);
    buffer.set_wrap(if style.width.is_some() {
        Wrap::WordOrGlyph
    } else {
        Wrap::None
    });
    let align = match (style.width, style.align) {
        (Some(_), Align::Center) => cosmic_text::Align::Center,
        (Some(_), Align::Right) => cosmic_text::Align::Right,
        _ => cosmic_text::Align::Left,
    };
    let attrs = Attrs::new().family(Family::Name(family));
    buffer.set_text(text, &attrs, Shaping::Advanced, Some(align));
    buffer.shape_until_scroll(system, false);
    let (mut widest, mut lines) = (0.0f32, 0u32);
    for run in buffer.layout_runs() {
        widest = widest.max(run.line_w);
        lines += 1;
        // Unwrapped, x is each line's left edge, center or right edge.
        let shift = match (style.width, style.align) {
            (None, Align::Center) => -run.line_w / 2.0,
            (None, Align::Right) => -run.line_w,
            _ => 0.0,
        };
        for g in run.glyphs {
            placed.push(Placed {
                font: g.font_id,
                glyph: g.glyph_id,
                x: g.x + g.font_size * g.x_offset + shift,
                y: run.line_y - g.font_size * g.y_offset,
                size: g.font_size,
                weight: g.font_weight,
                flags: g.cache_key_flags,
            });
        }
    }
    (placed, widest, lines.max(1) as f32 * line_px)
}

/// The font's line height (ascent, descent and gap) in ems.
fn natural_line_height(system: &mut FontSystem, id: fontdb::ID) -> Option<f32> {
    let font = system.get_font(id, fontdb::Weight::NORMAL)?;
    let m = font.as_swash().metrics(&[]);
    let em = f32::from(m.units_per_em);
    let height = (m.ascent + m.descent + m.leading) / em;
    (height.is_finite() && height > 0.1 && height < 10.0).then_some(height)
}

#[cfg(test)]
mod tests {
    use super::*;
    use moonloop_assets::faces::{MAX_FACES, count_faces};

    /// A collection header claiming `claimed` faces, with `offsets`
    /// offsets, and a font's bytes after it.
    fn collection(claimed: u32, offsets: u32) -> Vec<u8> {
        let mut bytes = b"ttcf".to_vec();
        bytes.extend_from_slice(&[0, 1, 0, 0]);
        bytes.extend_from_slice(&claimed.to_be_bytes());
        let start = 12 + 4 * offsets;
        for _ in 0..offsets {
            bytes.extend_from_slice(&start.to_be_bytes());
        }
        bytes.extend_from_slice(dejavu::sans::regular());
        bytes
    }

    // rule: H10
    #[test]
    fn a_collection_is_held_to_its_faces_before_they_are_read() {
        assert!(check_faces(&collection(2, 2)).is_ok());
        assert!(
            check_faces(dejavu::sans::regular()).is_ok(),
            "not a collection"
        );
        let claims = collection(5_000_000, 2);
        let err = check_faces(&claims).unwrap_err();
        assert!(err.contains("claims 5000000 faces"), "{err}");
        assert_eq!(count_faces(&claims), 0);
        assert!(Typesetter::new().face_from_bytes(claims).is_err());
        assert!(check_faces(&collection(MAX_FACES, MAX_FACES)).is_ok());
        assert!(check_faces(&collection(MAX_FACES + 1, MAX_FACES + 1)).is_err());
    }

    #[test]
    fn measuring_scales_with_size_and_counts_lines() {
        let mut t = Typesetter::new();
        let one = t.layout("Hello", &TextStyle::plain(20.0)).unwrap();
        let (w, h) = t.size_of(one);
        let two = t.layout("Hello", &TextStyle::plain(40.0)).unwrap();
        let (w2, h2) = t.size_of(two);
        assert!(
            (w2 - 2.0 * w).abs() < 0.5 && (h2 - 2.0 * h).abs() < 1e-3,
            "{w} {w2}"
        );
        let lines = t.layout("a\nb", &TextStyle::plain(20.0)).unwrap();
        assert!(
            (t.size_of(lines).1 - 2.0 * h).abs() < 1e-3,
            "two lines are twice as tall"
        );
        let empty = t.layout("", &TextStyle::plain(20.0)).unwrap();
        assert_eq!(t.size_of(empty).0, 0.0);
    }

    #[test]
    fn wrapping_breaks_between_words_inside_the_width() {
        let mut t = Typesetter::new();
        let style = TextStyle {
            width: Some(60.0),
            ..TextStyle::plain(16.0)
        };
        let id = t.layout("one two three four", &style).unwrap();
        let (w, h) = t.size_of(id);
        let x = t.layout("x", &TextStyle::plain(16.0)).unwrap();
        let line = t.size_of(x).1;
        assert!(w <= 60.0, "no line is wider than the box: {w}");
        assert!(
            h >= 3.0 * line - 0.01,
            "four words in 60 px take three lines or more: {h}"
        );
    }

    #[test]
    fn the_same_text_is_laid_out_once() {
        let mut t = Typesetter::new();
        let a = t.layout("same", &TextStyle::plain(12.0)).unwrap();
        let b = t.layout("same", &TextStyle::plain(12.0)).unwrap();
        assert_eq!(a, b);
        assert_eq!(t.layouts.len(), 1);
    }
}
