//! Screen: the 2D layer `render` draws on (rule H3), in the game's logical
//! coordinates.
//!
//! Drawing calls are checked when they are made and recorded into a
//! display list; pixels are made only when a picture is asked for
//! ([`Screen::rasterize`]), so a headless run that records nothing never
//! rasterizes. The list's storage is kept from frame to frame.

use moonloop_core::Number;
use moonloop_core::Refusal;
use std::ops::Range;

use tiny_skia::Transform;

mod aligned;
mod bands;
mod cover;
mod raster;
pub use raster::MAX_RASTER_TIME;
mod sprites;

pub use sprites::{Sheet, Sprite, SpriteSpec};
mod style;
pub use style::{Fill, PathOp, Style, TextSpec};

pub use crate::text::Align;
use crate::text::{LayoutId, TextStyle, Typesetter};
use moonloop_assets::{ImageId, Store};
use moonloop_core::color::Rgba;

#[derive(Debug, Clone)]
enum Shape {
    Rect { rect: [f32; 4], radius: f32 },
    Ellipse { center: [f32; 2], radii: [f32; 2] },
    Path { ops: Range<u32> },
}

#[derive(Debug, Clone)]
enum Command {
    Shape(Shape, Style),
    Text {
        layout: LayoutId,
        at: [f32; 2],
        color: Rgba,
        smooth: bool,
    },
    Image {
        image: ImageId,
        source: [f32; 4],
        dest: [f32; 4],
        smooth: bool,
        alpha: f32,
    },
    Sprites {
        image: ImageId,
        sprites: Range<u32>,
    },
}

/// The 2D layer of one game.
#[derive(Debug)]
pub struct Screen {
    logical: (u32, u32),
    commands: Vec<(Transform, Command)>,
    ops: Vec<PathOp>,
    stops: Vec<(f32, Rgba)>,
    dashes: Vec<f32>,
    sprites: Vec<Sprite>,
    /// Logical pixels this frame's drawing covers, counted against
    /// [`MAX_COVER`] screens.
    cover: f64,
    /// The sprite blit's scratch space, kept between frames.
    columns: Vec<u32>,
    /// How many bands big sprite batches are drawn in, and the workers
    /// (started at the first picture), each band with its scratch space.
    band_count: usize,
    bands: Option<bands::Bands>,
    band_columns: Vec<std::sync::Mutex<Vec<u32>>>,
    /// Bytes of text written this frame (counted as the display list's).
    text_bytes: usize,
    transform: Transform,
    alpha: f32,
    stack: Vec<(Transform, f32)>,
    typesetter: Typesetter,
    skipped: u32,
    /// Commands the last rasterize left undrawn when its time ran out.
    late: u32,
    /// When the rasterize under way must stop, and how long one may take.
    deadline: Option<std::time::Instant>,
    time_limit: std::time::Duration,
}

/// The most bytes of drawing one frame's display list holds.
pub const MAX_FRAME_BYTES: usize = 64 << 20;

pub use cover::MAX_COVER;

/// The longest text one `text` call writes, in bytes.
pub const MAX_TEXT: usize = 64 << 10;

/// The widest box text wraps in, in logical pixels.
pub const MAX_TEXT_WIDTH: f32 = 1.0e6;

/// The most transforms `push` may stack.
pub const MAX_STACK: usize = 256;

/// The largest font size, in logical pixels.
pub const MAX_TEXT_SIZE: f32 = 4096.0;

#[inline]
fn finite(name: &str, v: f64) -> Result<f32, Refusal> {
    if v.is_finite() {
        Ok(v as f32)
    } else {
        Err(refuse!(
            "`{name}` is {}; it must be a finite number",
            Number(v)
        ))
    }
}

fn size(name: &str, v: f64) -> Result<f32, Refusal> {
    let v = finite(name, v)?;
    if v < 0.0 {
        return Err(refuse!("`{name}` is {}; sizes are 0 or more", Number(v)));
    }
    Ok(v)
}

impl Screen {
    /// Creates a screen layer for a game of `logical` size.
    pub fn new(logical: (u32, u32)) -> Screen {
        Screen {
            logical,
            commands: Vec::with_capacity(256),
            ops: Vec::with_capacity(1024),
            stops: Vec::with_capacity(64),
            dashes: Vec::with_capacity(16),
            sprites: Vec::with_capacity(1024),
            cover: 0.0,
            columns: Vec::new(),
            band_count: std::thread::available_parallelism().map_or(1, usize::from),
            bands: None,
            band_columns: (0..bands::MAX_BANDS).map(|_| Default::default()).collect(),
            text_bytes: 0,
            transform: Transform::identity(),
            alpha: 1.0,
            stack: Vec::with_capacity(16),
            typesetter: Typesetter::new(),
            skipped: 0,
            late: 0,
            deadline: None,
            time_limit: raster::MAX_RASTER_TIME,
        }
    }

    /// Draws big sprite batches in `count` bands at once (1: on the
    /// frame's thread alone); the default is one a core. The picture is
    /// the same either way (H15).
    pub fn set_bands(&mut self, count: usize) {
        self.band_count = count.clamp(1, bands::MAX_BANDS);
        self.bands = None;
    }

    /// Lets one frame's drawing take up to `limit` before the rest is
    /// left undrawn (H9; [`MAX_RASTER_TIME`] unless set). Tests
    /// that compare pictures raise it so a slow machine cannot cut them.
    pub fn set_time_limit(&mut self, limit: std::time::Duration) {
        self.time_limit = limit;
    }

    /// Returns the logical size.
    pub fn logical(&self) -> (u32, u32) {
        self.logical
    }

    /// Clears the layer for a new frame (step 4) of a game whose logical
    /// size is now `logical`: no commands, the identity transform (the
    /// viewport's is applied underneath when rasterizing), full alpha.
    pub fn clear(&mut self, logical: (u32, u32)) {
        self.logical = logical;
        self.commands.clear();
        self.ops.clear();
        self.stops.clear();
        self.dashes.clear();
        self.sprites.clear();
        self.cover = 0.0;
        self.text_bytes = 0;
        self.typesetter.begin_frame();
        self.transform = Transform::identity();
        self.alpha = 1.0;
        self.stack.clear();
    }

    /// Returns how many drawing commands the frame holds.
    pub fn len(&self) -> usize {
        self.commands.len()
    }

    /// Says whether nothing was drawn this frame.
    pub fn is_empty(&self) -> bool {
        self.commands.is_empty()
    }

    /// Returns the bytes the frame's display list holds.
    fn held(&self) -> usize {
        use std::mem::size_of;
        self.commands.len() * size_of::<(Transform, Command)>()
            + self.ops.len() * size_of::<PathOp>()
            + self.stops.len() * size_of::<(f32, Rgba)>()
            + self.dashes.len() * size_of::<f32>()
            + self.sprites.len() * size_of::<Sprite>()
            + self.text_bytes
    }

    /// Checks that `more` bytes still fit in the frame's display list.
    #[inline]
    fn room(&self, more: usize) -> Result<(), Refusal> {
        if self.held() + more > MAX_FRAME_BYTES {
            return Err(refuse!(
                "this frame has drawn more than {} (H10: the host holds at most that much \
                 drawing a frame; look for a loop that draws without end)",
                moonloop_assets::bytes(MAX_FRAME_BYTES as u64)
            ));
        }
        Ok(())
    }

    /// Adds a gradient stop list; returns its range for a [`Fill`].
    ///
    /// # Errors
    /// The frame's display list is full.
    pub fn add_stops(&mut self, stops: &[(f32, Rgba)]) -> Result<(u32, u32), Refusal> {
        self.room(std::mem::size_of_val(stops))?;
        let start = self.stops.len() as u32;
        self.stops.extend_from_slice(stops);
        Ok((start, self.stops.len() as u32))
    }

    /// Adds a dash pattern; returns its range for a [`Style`].
    ///
    /// # Errors
    /// The frame's display list is full.
    pub fn add_dashes(&mut self, dashes: &[f32]) -> Result<(u32, u32), Refusal> {
        self.room(std::mem::size_of_val(dashes))?;
        let start = self.dashes.len() as u32;
        self.dashes.extend_from_slice(dashes);
        Ok((start, self.dashes.len() as u32))
    }

    fn push(&mut self, command: Command) -> Result<(), Refusal> {
        self.room(std::mem::size_of::<(Transform, Command)>())?;
        self.charge(&command)?;
        self.commands.push((self.transform, command));
        Ok(())
    }

    fn style(&self, style: Style) -> Style {
        Style {
            alpha: style.alpha * self.alpha,
            ..style
        }
    }

    /// Draws a rectangle, its corners rounded by `radius`.
    ///
    /// # Errors
    /// An argument is not finite, or a size is negative.
    pub fn rect(
        &mut self,
        x: f64,
        y: f64,
        w: f64,
        h: f64,
        radius: f64,
        style: Style,
    ) -> Result<(), Refusal> {
        let rect = [
            finite("x", x)?,
            finite("y", y)?,
            size("w", w)?,
            size("h", h)?,
        ];
        let radius = size("radius", radius)?;
        let style = self.style(style);
        self.push(Command::Shape(Shape::Rect { rect, radius }, style))
    }

    /// Draws an ellipse centered on `(x, y)` (a circle when `rx == ry`).
    ///
    /// # Errors
    /// An argument is not finite, or a radius is negative.
    pub fn ellipse(
        &mut self,
        x: f64,
        y: f64,
        rx: f64,
        ry: f64,
        style: Style,
    ) -> Result<(), Refusal> {
        let center = [finite("x", x)?, finite("y", y)?];
        let radii = [size("rx", rx)?, size("ry", ry)?];
        let style = self.style(style);
        self.push(Command::Shape(Shape::Ellipse { center, radii }, style))
    }

    /// Draws a circle of radius `r` about (`x`, `y`); refuses as
    /// [`Screen::ellipse`] does, naming the radius `r`.
    pub fn circle(&mut self, x: f64, y: f64, r: f64, style: Style) -> Result<(), Refusal> {
        size("r", r)?;
        self.ellipse(x, y, r, r, style)
    }

    /// Draws a path made of `ops`.
    ///
    /// # Errors
    /// A coordinate is not finite, or the path does not start with a move
    /// (polylines and polygons are paths that do).
    pub fn path(&mut self, ops: &[PathOp], style: Style) -> Result<(), Refusal> {
        if !matches!(ops.first(), None | Some(PathOp::Move(..))) {
            return Err("a path starts with a move".into());
        }
        for (i, op) in ops.iter().enumerate() {
            let coords: &[f32] = match op {
                PathOp::Move(a, b) | PathOp::Line(a, b) => &[*a, *b],
                PathOp::Quad(a, b, c, d) => &[*a, *b, *c, *d],
                PathOp::Cubic(a, b, c, d, e, f) => &[*a, *b, *c, *d, *e, *f],
                PathOp::Close => &[],
            };
            if let Some(v) = coords.iter().find(|v| !v.is_finite()) {
                return Err(refuse!(
                    "point {} has a coordinate that is {v}; it must be a finite number",
                    i + 1
                ));
            }
        }
        self.room(std::mem::size_of_val(ops))?;
        let start = self.ops.len() as u32;
        self.ops.extend_from_slice(ops);
        let style = self.style(style);
        self.push(Command::Shape(
            Shape::Path {
                ops: start..self.ops.len() as u32,
            },
            style,
        ))
    }

    /// Turns what a `text` or `measure` call asked for into a style,
    /// loading its font through `assets`.
    ///
    /// # Errors
    /// The size, width or line height is out of range, or the font does
    /// not load.
    fn style_of(&mut self, assets: &mut Store, spec: &TextSpec<'_>) -> Result<TextStyle, Refusal> {
        let size_px = size("size", spec.size)?;
        if size_px > MAX_TEXT_SIZE {
            return Err(refuse!(
                "`size` is {}; text is at most {MAX_TEXT_SIZE} pixels",
                Number(size_px)
            ));
        }
        let width = match spec.width {
            None => None,
            Some(w) => {
                let w = finite("width", w)?;
                if !(w > 0.0 && w <= MAX_TEXT_WIDTH) {
                    return Err(refuse!(
                        "`width` is {}; text wraps to a width above 0 and at most {MAX_TEXT_WIDTH}",
                        Number(w)
                    ));
                }
                Some(w)
            }
        };
        let line_height = match spec.line_height {
            None => None,
            Some(l) => {
                let l = finite("line_height", l)?;
                if !(l > 0.0 && l <= 16.0) {
                    return Err(refuse!(
                        "`line_height` is {}; it is a multiple of the size, above 0 and at most 16",
                        Number(l)
                    ));
                }
                Some(l)
            }
        };
        let face = match spec.font {
            None => crate::text::FaceId::EMBEDDED,
            Some(name) => self.typesetter.face(assets, name)?,
        };
        Ok(TextStyle {
            face,
            size: size_px,
            width,
            line_height,
            align: spec.align,
        })
    }

    /// Checks a text's length and that it fits in the frame.
    fn text_room(&self, text: &str) -> Result<(), Refusal> {
        if text.len() > MAX_TEXT {
            return Err(refuse!(
                "the text is {}; one call writes at most {} (H10)",
                moonloop_door::sizes(text.len() as u64, MAX_TEXT as u64).0,
                moonloop_door::sizes(text.len() as u64, MAX_TEXT as u64).1
            ));
        }
        self.room(text.len())
    }

    /// Writes `text` with its top at `y`, laid out as `spec` says.
    ///
    /// # Errors
    /// A coordinate is not finite, the style is out of range, its font
    /// does not load, or the frame has written too much.
    pub fn text(
        &mut self,
        assets: &mut Store,
        text: &str,
        x: f64,
        y: f64,
        spec: &TextSpec<'_>,
        color: Rgba,
    ) -> Result<(), Refusal> {
        let at = [finite("x", x)?, finite("y", y)?];
        self.text_room(text)?;
        let style = self.style_of(assets, spec)?;
        let layout = self.typesetter.layout(text, &style)?;
        self.text_bytes += text.len();
        let color = color.fade(self.alpha);
        self.push(Command::Text {
            layout,
            at,
            color,
            smooth: spec.smooth,
        })
    }

    /// Measures `text` laid out as `spec` says, in logical pixels: the
    /// widest line's width, and the lines' height.
    ///
    /// # Errors
    /// As [`Screen::text`].
    pub fn measure(
        &mut self,
        assets: &mut Store,
        text: &str,
        spec: &TextSpec<'_>,
    ) -> Result<(f32, f32), Refusal> {
        self.text_room(text)?;
        let style = self.style_of(assets, spec)?;
        let layout = self.typesetter.layout(text, &style)?;
        Ok(self.typesetter.size_of(layout))
    }

    /// Returns how many glyph images the screen has rasterized in all
    /// (each glyph once per font and size, H14).
    pub fn glyphs_rasterized(&self) -> u64 {
        self.typesetter.rasterized()
    }

    /// Draws image `name` (a PNG in the game folder) at `at`, `size` wide
    /// and high (`None`: the source's own), from `source` (x, y, w, h in
    /// image pixels; `None` for all of it), turned by `rotation` radians
    /// about the destination's center.
    ///
    /// # Errors
    /// The name leaves the game folder, the file is missing or not a PNG,
    /// or a number is not finite.
    #[allow(clippy::too_many_arguments)]
    pub fn image(
        &mut self,
        assets: &mut Store,
        name: &str,
        at: (f64, f64),
        size_px: (Option<f64>, Option<f64>),
        source: Option<[f64; 4]>,
        rotation: f64,
        smooth: bool,
        alpha: f64,
    ) -> Result<(), Refusal> {
        let id = assets.image(name)?;
        let (iw, ih) = {
            let image = assets.image_at(id);
            (image.width() as f32, image.height() as f32)
        };
        let source = match source {
            None => [0.0, 0.0, iw, ih],
            Some([sx, sy, sw, sh]) => {
                let s = [
                    finite("source x", sx)?,
                    finite("source y", sy)?,
                    size("source w", sw)?,
                    size("source h", sh)?,
                ];
                if s[0] < 0.0 || s[1] < 0.0 || s[0] + s[2] > iw || s[1] + s[3] > ih {
                    return Err(refuse!(
                        "the source rectangle {}, {}, {}, {} is outside the {iw}x{ih} image",
                        s[0],
                        s[1],
                        s[2],
                        s[3]
                    ));
                }
                s
            }
        };
        let x = finite("x", at.0)?;
        let y = finite("y", at.1)?;
        let w = size_px.0.map_or(Ok(source[2]), |w| size("width", w))?;
        let h = size_px.1.map_or(Ok(source[3]), |h| size("height", h))?;
        let rotation = finite("rotation", rotation)?;
        let alpha = finite("alpha", alpha)?.clamp(0.0, 1.0) * self.alpha;
        let saved = self.transform;
        if rotation != 0.0 {
            let (cx, cy) = (x + w / 2.0, y + h / 2.0);
            self.transform =
                self.transform
                    .pre_concat(Transform::from_rotate_at(rotation.to_degrees(), cx, cy));
        }
        let pushed = self.push(Command::Image {
            image: id,
            source,
            dest: [x, y, w, h],
            smooth,
            alpha,
        });
        self.transform = saved;
        pushed
    }

    /// Moves the origin by `(x, y)`.
    ///
    /// # Errors
    /// An argument is not finite.
    pub fn translate(&mut self, x: f64, y: f64) -> Result<(), Refusal> {
        self.transform = self
            .transform
            .pre_translate(finite("x", x)?, finite("y", y)?);
        Ok(())
    }

    /// Turns what follows by `radians` about the origin.
    ///
    /// # Errors
    /// The angle is not finite.
    pub fn rotate(&mut self, radians: f64) -> Result<(), Refusal> {
        let degrees = finite("radians", radians)?.to_degrees();
        self.transform = self.transform.pre_concat(Transform::from_rotate(degrees));
        Ok(())
    }

    /// Scales what follows by `sx`, `sy`.
    ///
    /// # Errors
    /// A factor is not finite.
    pub fn scale(&mut self, sx: f64, sy: f64) -> Result<(), Refusal> {
        self.transform = self
            .transform
            .pre_scale(finite("sx", sx)?, finite("sy", sy)?);
        Ok(())
    }

    /// Multiplies the opacity of what follows by `alpha` (0 to 1).
    ///
    /// # Errors
    /// `alpha` is outside 0..=1.
    pub fn set_alpha(&mut self, alpha: f64) -> Result<(), Refusal> {
        if !(0.0..=1.0).contains(&alpha) {
            return Err(refuse!("`alpha` is {}; it goes from 0 to 1", Number(alpha)));
        }
        self.alpha = alpha as f32;
        Ok(())
    }

    /// Saves the transform and alpha.
    ///
    /// # Errors
    /// More than [`MAX_STACK`] saves without a `pop`.
    pub fn push_state(&mut self) -> Result<(), Refusal> {
        if self.stack.len() == MAX_STACK {
            return Err(refuse!("more than {MAX_STACK} pushes without a pop"));
        }
        self.stack.push((self.transform, self.alpha));
        Ok(())
    }

    /// Restores the transform and alpha saved by the last `push`.
    ///
    /// # Errors
    /// Nothing was pushed.
    pub fn pop_state(&mut self) -> Result<(), Refusal> {
        let (transform, alpha) = self.stack.pop().ok_or("pop without a push")?;
        self.transform = transform;
        self.alpha = alpha;
        Ok(())
    }
}
