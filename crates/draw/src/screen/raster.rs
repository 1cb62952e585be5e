//! The rasterizer: a frame's display list drawn with tiny-skia, through
//! the letterboxed viewport, each command guarded so game data never
//! panics the host.

use crate::skia::{SkiaColor as _, SkiaTransform as _};
use tiny_skia::{
    FillRule, FilterQuality, GradientStop, Paint, PathBuilder, Pixmap, PixmapMut, Point, Rect,
    Shader, SpreadMode, Stroke, StrokeDash, Transform,
};

use super::bands::Bands;
use super::{Command, Fill, PathOp, Screen, Shape, Sprite, Style};
use crate::text::Band;
use moonloop_assets::Store;
use moonloop_core::color::Rgba;
use moonloop_core::viewport::Viewport;

/// The longest one frame's drawing may take: the commands after are not
/// drawn, and the frame says so (H9). Counting pixels bounds drawing in
/// logical pixels; this bounds it on a large screen too, where each of
/// them is many device pixels (hundreds of rotated full-screen sprites
/// took tens of seconds a frame while within every count).
pub const MAX_RASTER_TIME: std::time::Duration = std::time::Duration::from_secs(1);

impl Screen {
    /// Draws the frame's commands onto `pixmap` through `viewport`, over
    /// whatever it holds.
    ///
    /// A command tiny-skia panics on (it has unwraps that extreme
    /// coordinates reach) is skipped and counted in
    /// [`Screen::skipped`]: game data never takes the host down (H10).
    pub fn rasterize(&mut self, pixmap: &mut PixmapMut<'_>, viewport: &Viewport, assets: &Store) {
        let view = viewport.transform();
        let clip = self.clip(viewport, pixmap.width(), pixmap.height());
        let bounds = bounds(viewport, pixmap.width(), pixmap.height());
        if self.bands.is_none() {
            self.bands = Some(Bands::new(self.band_count));
        }
        self.skipped = 0;
        self.late = 0;
        let deadline = std::time::Instant::now() + self.time_limit;
        self.deadline = Some(deadline);
        let mut next = 0;
        while next < self.commands.len() {
            if std::time::Instant::now() > deadline {
                self.late = (self.commands.len() - next) as u32;
                break;
            }
            let run = self.own_run(next, view);
            if self.worth_bands(next..run) {
                // Glyphs missing from the cache are rasterized here, on
                // this thread; the bands only read the cache.
                for (transform, command) in &self.commands[next..run] {
                    if let Command::Text {
                        layout, at, smooth, ..
                    } = command
                    {
                        let transform = view.pre_concat(*transform);
                        self.typesetter.prepare(*layout, *at, *smooth, transform);
                    }
                }
                let drawn = moonloop_core::contain::contain_panic(|| {
                    self.draw_in_bands(pixmap, next..run, view, clip.as_ref(), bounds, assets)
                });
                match drawn {
                    None => self.skipped += (run - next) as u32,
                    Some(late) => self.late += late,
                }
                next = run;
                continue;
            }
            let mut columns = std::mem::take(&mut self.columns);
            let (transform, command) = &self.commands[next];
            let transform = view.pre_concat(*transform);
            let drawn = moonloop_core::contain::contain_panic(|| match command {
                Command::Shape(shape, style) => draw_shape(
                    pixmap,
                    shape,
                    style,
                    transform,
                    &self.ops,
                    &self.stops,
                    &self.dashes,
                    clip.as_ref(),
                    bounds,
                ),
                Command::Text {
                    layout,
                    at,
                    color,
                    smooth,
                } => self.typesetter.draw(
                    pixmap,
                    *layout,
                    *at,
                    *color,
                    *smooth,
                    transform,
                    clip.as_ref(),
                ),
                Command::Image {
                    image,
                    source,
                    dest,
                    smooth,
                    alpha,
                } => {
                    let image = assets.image_at(*image);
                    // Pixel art drawn whole-pixel and opaque is a sprite
                    // blit, which makes exactly tiny-skia's picture.
                    if !*smooth
                        && *alpha == 1.0
                        && let Some(sprite) = Sprite::whole_pixel(*source, *dest, transform)
                    {
                        super::sprites::draw(
                            pixmap,
                            image,
                            &[sprite],
                            transform,
                            bounds,
                            &mut columns,
                        );
                        return;
                    }
                    draw_image(
                        pixmap,
                        image,
                        *source,
                        *dest,
                        *smooth,
                        *alpha,
                        transform,
                        clip.as_ref(),
                    );
                }
                Command::Sprites { image, sprites } => super::sprites::draw(
                    pixmap,
                    assets.image_at(*image),
                    &self.sprites[sprites.start as usize..sprites.end as usize],
                    transform,
                    bounds,
                    &mut columns,
                ),
            });
            self.columns = columns;
            if drawn.is_none() {
                self.skipped += 1;
            }
            next += 1;
        }
    }

    /// Returns where the run of commands from `start` that the host draws
    /// itself ends (sprites, and text from the glyph cache): those may be
    /// drawn in bands. `start` itself when the command there is not one.
    fn own_run(&self, start: usize, view: Transform) -> usize {
        let own = |(transform, command): &(Transform, Command)| match command {
            Command::Sprites { .. } => true,
            Command::Text { layout, .. } => {
                self.typesetter.cached(*layout, view.pre_concat(*transform))
            }
            _ => false,
        };
        start + self.commands[start..].iter().take_while(|c| own(c)).count()
    }

    /// Says whether commands `run` are enough work to wake the bands for.
    fn worth_bands(&self, run: std::ops::Range<usize>) -> bool {
        if run.is_empty() || self.bands.as_ref().is_none_or(|b| b.count() == 1) {
            return false;
        }
        let work: usize = self.commands[run]
            .iter()
            .map(|(_, command)| match command {
                Command::Sprites { sprites, .. } => sprites.len(),
                _ => TEXT_WORK,
            })
            .sum();
        work >= PARALLEL_WORK
    }

    /// Draws commands `run` (all the host's own) in bands: each band draws
    /// every command of the run, in order, into its rows.
    fn draw_in_bands(
        &self,
        pixmap: &mut PixmapMut<'_>,
        run: std::ops::Range<usize>,
        view: Transform,
        clip: Option<&tiny_skia::Mask>,
        bounds: super::sprites::Bounds,
        assets: &Store,
    ) -> u32 {
        let (Some(bands), Some(deadline)) = (&self.bands, self.deadline) else {
            return 0;
        };
        // The most commands any band left undrawn when time ran out.
        let late = std::sync::atomic::AtomicU32::new(0);
        let (width, height) = (pixmap.width() as usize, pixmap.height() as usize);
        let rows = Rows(pixmap.data_mut().as_mut_ptr());
        let rows = &rows;
        let commands = &self.commands[run];
        bands.run(height, &|index, band| {
            // SAFETY: `band` is inside the picture and no other band's.
            let pixels = unsafe {
                std::slice::from_raw_parts_mut(
                    rows.0.add(band.start * width * 4),
                    band.len() * width * 4,
                )
            };
            let mut target = Band {
                pixels,
                first: band.start,
                width,
                height,
            };
            let [x0, y0, x1, y1] = bounds;
            let inside = [x0, y0.max(band.start as i32), x1, y1.min(band.end as i32)];
            let mut columns = self.band_columns[index]
                .lock()
                .unwrap_or_else(|p| p.into_inner());
            for (i, (transform, command)) in commands.iter().enumerate() {
                if std::time::Instant::now() > deadline {
                    let left = (commands.len() - i) as u32;
                    late.fetch_max(left, std::sync::atomic::Ordering::Relaxed);
                    break;
                }
                let transform = view.pre_concat(*transform);
                match command {
                    Command::Sprites { image, sprites } if inside[1] < inside[3] => {
                        super::sprites::draw_rows(
                            target.pixels,
                            band.start,
                            width,
                            assets.image_at(*image),
                            &self.sprites[sprites.start as usize..sprites.end as usize],
                            transform,
                            inside,
                            &mut columns,
                        );
                    }
                    Command::Text {
                        layout,
                        at,
                        color,
                        smooth,
                    } => self.typesetter.draw_band(
                        &mut target,
                        *layout,
                        *at,
                        *color,
                        *smooth,
                        transform,
                        clip,
                    ),
                    _ => {}
                }
            }
        });
        late.into_inner()
    }

    /// Returns how many commands the last [`Screen::rasterize`] skipped
    /// because tiny-skia could not draw them.
    pub fn skipped(&self) -> u32 {
        self.skipped
    }

    /// Returns how many commands the last [`Screen::rasterize`] left
    /// undrawn because its [`MAX_RASTER_TIME`] ran out.
    pub fn late(&self) -> u32 {
        self.late
    }

    /// Returns a mask of the letterboxed area when the viewport leaves
    /// bars, so nothing drawn off the logical area lands in them.
    fn clip(&self, viewport: &Viewport, width: u32, height: u32) -> Option<tiny_skia::Mask> {
        if viewport.width == width && viewport.height == height {
            return None;
        }
        let mut mask = tiny_skia::Mask::new(width, height)?;
        let rect = Rect::from_xywh(
            viewport.x as f32,
            viewport.y as f32,
            viewport.width as f32,
            viewport.height as f32,
        )?;
        mask.fill_path(
            &PathBuilder::from_rect(rect),
            FillRule::Winding,
            false,
            Transform::identity(),
        );
        Some(mask)
    }
}

/// How much of the host's own drawing a run holds before it is drawn in
/// bands, counted in sprites (a line of text counts as [`TEXT_WORK`]):
/// waking the workers costs more than a few sprites do.
const PARALLEL_WORK: usize = 64;

/// What a line of text counts as, in sprites.
const TEXT_WORK: usize = 16;

/// The picture's bytes, shared by the bands: each writes only its rows.
struct Rows(*mut u8);

// SAFETY: bands are disjoint row ranges, so no two threads touch a byte.
unsafe impl Sync for Rows {}

/// The device pixels the letterboxed area covers, inside the pixmap.
fn bounds(viewport: &Viewport, width: u32, height: u32) -> super::sprites::Bounds {
    let edge = |start: u32, len: u32, limit: u32| {
        let a = start.min(limit);
        (a as i32, start.saturating_add(len).min(limit) as i32)
    };
    let (x0, x1) = edge(viewport.x, viewport.width, width);
    let (y0, y1) = edge(viewport.y, viewport.height, height);
    [x0, y0, x1, y1]
}

fn shader(fill: &Fill, alpha: f32, stops: &[(f32, Rgba)]) -> Option<Shader<'static>> {
    let gradient = |range: (u32, u32)| -> Vec<GradientStop> {
        stops[range.0 as usize..range.1 as usize]
            .iter()
            .map(|(offset, color)| GradientStop::new(*offset, color.fade(alpha).to_skia()))
            .collect()
    };
    match fill {
        Fill::Solid(color) => Some(Shader::SolidColor(color.fade(alpha).to_skia())),
        Fill::Linear { points, stops } => tiny_skia::LinearGradient::new(
            Point::from_xy(points[0], points[1]),
            Point::from_xy(points[2], points[3]),
            gradient(*stops),
            SpreadMode::Pad,
            Transform::identity(),
        ),
        Fill::Radial { circle, stops } => {
            let center = Point::from_xy(circle[0], circle[1]);
            tiny_skia::RadialGradient::new(
                center,
                0.0,
                center,
                circle[2],
                gradient(*stops),
                SpreadMode::Pad,
                Transform::identity(),
            )
        }
    }
}

fn build_path(shape: &Shape, ops: &[PathOp]) -> Option<tiny_skia::Path> {
    let mut pb = PathBuilder::new();
    match shape {
        Shape::Rect {
            rect: [x, y, w, h],
            radius,
        } => {
            let r = radius.min(w / 2.0).min(h / 2.0);
            if r <= 0.0 {
                return Some(PathBuilder::from_rect(Rect::from_xywh(*x, *y, *w, *h)?));
            }
            // Quarter circles as cubics; 0.5523 is the usual control ratio.
            let k = r * 0.552_284_8;
            let (x1, y1) = (x + w, y + h);
            pb.move_to(x + r, *y);
            pb.line_to(x1 - r, *y);
            pb.cubic_to(x1 - r + k, *y, x1, y + r - k, x1, y + r);
            pb.line_to(x1, y1 - r);
            pb.cubic_to(x1, y1 - r + k, x1 - r + k, y1, x1 - r, y1);
            pb.line_to(x + r, y1);
            pb.cubic_to(x + r - k, y1, *x, y1 - r + k, *x, y1 - r);
            pb.line_to(*x, y + r);
            pb.cubic_to(*x, y + r - k, x + r - k, *y, x + r, *y);
            pb.close();
        }
        Shape::Ellipse { center, radii } => {
            pb.push_oval(Rect::from_xywh(
                center[0] - radii[0],
                center[1] - radii[1],
                radii[0] * 2.0,
                radii[1] * 2.0,
            )?);
        }
        Shape::Path { ops: range } => {
            for op in &ops[range.start as usize..range.end as usize] {
                match *op {
                    PathOp::Move(x, y) => pb.move_to(x, y),
                    PathOp::Line(x, y) => pb.line_to(x, y),
                    PathOp::Quad(a, b, x, y) => pb.quad_to(a, b, x, y),
                    PathOp::Cubic(a, b, c, d, x, y) => pb.cubic_to(a, b, c, d, x, y),
                    PathOp::Close => pb.close(),
                }
            }
        }
    }
    pb.finish()
}

#[allow(clippy::too_many_arguments)]
fn draw_shape(
    pixmap: &mut PixmapMut<'_>,
    shape: &Shape,
    style: &Style,
    transform: Transform,
    ops: &[PathOp],
    stops: &[(f32, Rgba)],
    dashes: &[f32],
    clip: Option<&tiny_skia::Mask>,
    bounds: super::sprites::Bounds,
) {
    // A solid rectangle on whole pixels is blended directly (the letterbox
    // mask is a whole-pixel rectangle too, so `bounds` stands for it).
    let mut filled = false;
    if let (Shape::Rect { rect, radius }, Some(Fill::Solid(color))) = (shape, &style.fill)
        && *radius == 0.0
    {
        filled = super::aligned::fill(
            pixmap,
            *rect,
            color.fade(style.alpha).to_skia(),
            transform,
            bounds,
        );
        if filled && style.stroke.is_none() {
            return;
        }
    }
    let Some(path) = build_path(shape, ops) else {
        return;
    };
    if let Some(fill) = style.fill.as_ref().filter(|_| !filled)
        && let Some(shader) = shader(fill, style.alpha, stops)
    {
        let paint = Paint {
            shader,
            anti_alias: true,
            ..Paint::default()
        };
        pixmap.fill_path(&path, &paint, FillRule::Winding, transform, clip);
    }
    if let Some(stroke) = &style.stroke
        && let Some(shader) = shader(stroke, style.alpha, stops)
    {
        let paint = Paint {
            shader,
            anti_alias: true,
            ..Paint::default()
        };
        let dash = style
            .dash
            .and_then(|(a, b)| StrokeDash::new(dashes[a as usize..b as usize].to_vec(), 0.0));
        let stroke = Stroke {
            width: style.width,
            line_cap: style.cap,
            line_join: style.join,
            dash,
            ..Stroke::default()
        };
        pixmap.stroke_path(&path, &paint, &stroke, transform, clip);
    }
}

#[allow(clippy::too_many_arguments)]
fn draw_image(
    pixmap: &mut PixmapMut<'_>,
    image: &Pixmap,
    source: [f32; 4],
    dest: [f32; 4],
    smooth: bool,
    alpha: f32,
    transform: Transform,
    clip: Option<&tiny_skia::Mask>,
) {
    let [sx, sy, sw, sh] = source;
    let [x, y, w, h] = dest;
    if sw == 0.0 || sh == 0.0 {
        return;
    }
    let Some(rect) = Rect::from_xywh(x, y, w, h) else {
        return;
    };
    let quality = if smooth {
        FilterQuality::Bilinear
    } else {
        FilterQuality::Nearest
    };
    let pattern = Transform::from_translate(x, y)
        .pre_scale(w / sw, h / sh)
        .pre_translate(-sx, -sy);
    let paint = Paint {
        shader: tiny_skia::Pattern::new(image.as_ref(), SpreadMode::Pad, quality, alpha, pattern),
        anti_alias: smooth,
        ..Paint::default()
    };
    pixmap.fill_rect(rect, &paint, transform, clip);
}
