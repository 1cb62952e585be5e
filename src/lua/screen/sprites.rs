//! `screen:sprite`, `screen:sprites` and `screen:tiles` (rule H15): the
//! sheet, the frames and the per-sprite options read from Luau.
//!
//! A sheet is a plain table, `{ image = "ships.png", width = 16, height =
//! 16 }` cut into a grid, or with `frames = { name = {x, y, w, h}, ... }`
//! naming rectangles; frames are numbered from 1 or named. Fields are read
//! through the handle's string cache, so a batch drawn every frame
//! allocates nothing.

use crate::Refusal;
use crate::terminal::Number;
use mlua::{Lua, Table, UserDataMethods, Value};

use super::{ScreenHandle, args, check, fail, ink, number, text_arg};
use crate::assets::{ImageId, MAX_NAME};
use crate::screen::{Sheet, SpriteSpec};

/// The fields a sprite takes, in the order [`sprite`] reads them by.
pub const FIELDS: [&str; 8] = [
    "x", "y", "frame", "scale", "flip_x", "flip_y", "tint", "alpha",
];

/// The fields a sprite takes, for error messages.
const SPRITE_FIELDS: &str = "x, y, frame, scale, flip_x, flip_y, tint, alpha";

/// The fields a sheet takes, for error messages.
const SHEET_FIELDS: &str = "image = \"NAME.png\", width, height, frames = { name = {x, y, w, h} }";

/// The most sprites one `screen:sprites` call draws: what a frame's display
/// list holds, refused before the list is read.
const MAX_BATCH: usize = 1 << 18;

/// The most tiles one `screen:tiles` call lays out.
const MAX_TILES: usize = 1 << 20;

/// A sheet read from Luau: its grid and, when it names frames, the table.
struct Read {
    sheet: Sheet,
    frames: Option<Table>,
    /// Whether the sheet gave a cell size (tiles need one).
    grid: bool,
}

/// Reads a sheet table, loading its image through the asset door.
fn sheet(lua: &Lua, this: &ScreenHandle, call: &str, value: &Value) -> mlua::Result<Read> {
    let Value::Table(t) = value else {
        return Err(fail(
            lua,
            call,
            "a sheet is { image = \"sheet.png\", width = 16, height = 16 } (or with frames = {...})",
        ));
    };
    // The fields are walked rather than looked up: asking for an absent
    // one would make its name as a Luau string on every call.
    let (mut image, mut width, mut height, mut frames) = (None, None, None, None);
    t.for_each::<Value, Value>(|key, value| {
        let Value::String(key) = &key else {
            return Err(fail(lua, call, format!("a sheet takes {SHEET_FIELDS}")));
        };
        let key = text_arg(lua, this, call, "a sheet field", key, 64)?;
        match (&*key, value) {
            ("image", Value::String(name)) => {
                image = Some(text_arg(lua, this, call, "an image name", &name, MAX_NAME)?);
            }
            ("width", v) => width = Some(number(lua, call, "sheet.width", &v)?),
            ("height", v) => height = Some(number(lua, call, "sheet.height", &v)?),
            ("frames", Value::Table(f)) => frames = Some(f),
            ("image", _) => return Err(fail(lua, call, "sheet.image should be a file name")),
            ("frames", _) => {
                return Err(fail(
                    lua,
                    call,
                    "sheet.frames should be a table of name = {x, y, w, h}",
                ));
            }
            (other, _) => {
                return Err(fail(
                    lua,
                    call,
                    format!("a sheet has no field `{other}` (it takes {SHEET_FIELDS})"),
                ));
            }
        }
        Ok(())
    })?;
    let Some(name) = image else {
        return Err(fail(lua, call, "the sheet needs image = \"NAME.png\""));
    };
    let assets = this.leases.assets(lua, "screen")?;
    let image = check(lua, call, assets.image(&name))?;
    let size = {
        let pixmap = assets.image_at(image);
        (pixmap.width(), pixmap.height())
    };
    let grid = frames.is_none() || width.is_some();
    let cell = |v: Option<f64>, key: &str| -> mlua::Result<f64> {
        match v {
            Some(v) => Ok(v),
            None if frames.is_some() => Ok(1.0),
            None => Err(fail(
                lua,
                call,
                format!("the sheet needs {key} (a cell's size in pixels) or frames"),
            )),
        }
    };
    let (w, h) = (cell(width, "width")?, cell(height, "height")?);
    let sheet = check(
        lua,
        call,
        Sheet::grid(image, size, (w, h)).map_err(|e| refuse!("sheet {e}")),
    )?;
    Ok(Read {
        sheet,
        frames,
        grid,
    })
}

impl Read {
    /// The pixels of a frame given by number or name; a refusal is the
    /// game's error, for the caller to place.
    fn frame(&self, value: &Value) -> Result<[u32; 4], Refusal> {
        if let Some(frames) = &self.frames {
            let named = match value {
                Value::String(_) | Value::Integer(_) | Value::Number(_) => frames
                    .raw_get::<Value>(value.clone())
                    .map_err(|e| e.to_string())?,
                _ => Value::Nil,
            };
            if let Value::Table(rect) = named {
                let mut r = [0.0; 4];
                for (i, slot) in r.iter_mut().enumerate() {
                    let v = rect.raw_get(i + 1).map_err(|e| e.to_string())?;
                    *slot = args::finite("a frame's x, y, w, h", &v)?;
                }
                return self.sheet.rect(r);
            }
            if let Value::String(name) = value {
                let name: String = name.to_string_lossy().chars().take(64).collect();
                return Err(refuse!("the sheet has no frame `{name}`"));
            }
        }
        self.sheet.frame(args::number("frame", value)?)
    }
}

fn flag(lua: &Lua, call: &str, name: &str, value: &Value) -> mlua::Result<bool> {
    value
        .as_boolean()
        .ok_or_else(|| fail(lua, call, format!("`{name}` is true or false")))
}

/// Reads `scale`: one number for both axes, or `{sx, sy}`.
fn scale(lua: &Lua, call: &str, value: &Value) -> mlua::Result<(f64, f64)> {
    if let Value::Table(t) = value {
        let sx = number(lua, call, "scale[1]", &t.raw_get(1)?)?;
        let sy = number(lua, call, "scale[2]", &t.raw_get(2)?)?;
        return Ok((sx, sy));
    }
    let s = number(lua, call, "scale", value)?;
    Ok((s, s))
}

/// Reads one option shared by sprites and tiles into `spec`; says whether
/// `key` was one.
fn common(
    lua: &Lua,
    this: &ScreenHandle,
    call: &str,
    spec: &mut SpriteSpec,
    key: &str,
    value: &Value,
    flips: bool,
) -> mlua::Result<bool> {
    match key {
        "scale" => spec.scale = scale(lua, call, value)?,
        "flip_x" if flips => spec.flip[0] = flag(lua, call, "flip_x", value)?,
        "flip_y" if flips => spec.flip[1] = flag(lua, call, "flip_y", value)?,
        "tint" => spec.tint = ink(lua, this, call, "tint", value)?,
        "alpha" => spec.alpha = number(lua, call, "alpha", value)?,
        _ => return Ok(false),
    }
    Ok(true)
}

/// Reads one sprite table of a batch.
fn sprite(lua: &Lua, this: &ScreenHandle, read: &Read, t: &Table) -> mlua::Result<SpriteSpec> {
    const CALL: &str = "sprites";
    let mut spec = SpriteSpec::new((0.0, 0.0), [0; 4]);
    let mut frame = Value::Integer(1);
    t.for_each::<Value, Value>(|key, value| {
        let Value::String(key) = &key else {
            return Err(fail(lua, CALL, format!("a sprite takes {SPRITE_FIELDS}")));
        };
        // Fields are known by address (Luau interns strings): no lookup.
        let address = key.to_pointer() as usize;
        match this.sprite_keys(lua)?.iter().position(|&a| a == address) {
            Some(0) => spec.at.0 = number(lua, CALL, "x", &value)?,
            Some(1) => spec.at.1 = number(lua, CALL, "y", &value)?,
            Some(2) => frame = value,
            Some(3) => spec.scale = scale(lua, CALL, &value)?,
            Some(4) => spec.flip[0] = flag(lua, CALL, "flip_x", &value)?,
            Some(5) => spec.flip[1] = flag(lua, CALL, "flip_y", &value)?,
            Some(6) => spec.tint = ink(lua, this, CALL, "tint", &value)?,
            Some(7) => spec.alpha = number(lua, CALL, "alpha", &value)?,
            _ => {
                let key = text_arg(lua, this, CALL, "a sprite field", key, 64)?;
                return Err(fail(
                    lua,
                    CALL,
                    format!("a sprite has no field `{key}` (it takes {SPRITE_FIELDS})"),
                ));
            }
        }
        Ok(())
    })?;
    spec.frame = read.frame(&frame).map_err(|e| fail(lua, CALL, e))?;
    Ok(spec)
}

/// Reads the options table of `sprite` or `tiles` into `spec`.
fn options(
    lua: &Lua,
    this: &ScreenHandle,
    call: &str,
    opts: Option<&Table>,
    spec: &mut SpriteSpec,
    takes: &str,
) -> mlua::Result<()> {
    let Some(t) = opts else {
        return Ok(());
    };
    t.for_each::<Value, Value>(|key, value| {
        let Value::String(key) = &key else {
            return Err(fail(lua, call, format!("the options take {takes}")));
        };
        let key = text_arg(lua, this, call, "an option", key, 64)?;
        if !common(lua, this, call, spec, &key, &value, takes.contains("flip"))? {
            return Err(fail(
                lua,
                call,
                format!("no option `{key}` (it takes {takes})"),
            ));
        }
        Ok(())
    })
}

fn finish(
    lua: &Lua,
    this: &ScreenHandle,
    call: &str,
    image: ImageId,
    begin: u32,
) -> mlua::Result<()> {
    let screen = this.leases.screen(lua, "screen")?;
    check(lua, call, screen.sprites_end(image, begin))
}

/// Adds the sprite methods to the screen handle.
pub fn add_methods<M: UserDataMethods<ScreenHandle>>(methods: &mut M) {
    methods.add_method(
        "sprite",
        |lua, this, (sheet_value, frame, x, y, opts): (Value, Value, f64, f64, Option<Table>)| {
            const CALL: &str = "sprite";
            let read = sheet(lua, this, CALL, &sheet_value)?;
            let frame = read.frame(&frame).map_err(|e| fail(lua, CALL, e))?;
            let mut spec = SpriteSpec::new((x, y), frame);
            options(
                lua,
                this,
                CALL,
                opts.as_ref(),
                &mut spec,
                "scale, flip_x, flip_y, tint, alpha",
            )?;
            let screen = this.leases.screen(lua, "screen")?;
            let begin = screen.sprites_begin();
            check(lua, CALL, screen.sprite(&spec))?;
            finish(lua, this, CALL, read.sheet.image, begin)
        },
    );
    methods.add_method(
        "sprites",
        |lua, this, (sheet_value, list): (Value, Table)| {
            const CALL: &str = "sprites";
            let read = sheet(lua, this, CALL, &sheet_value)?;
            let begin = this.leases.screen(lua, "screen")?.sprites_begin();
            let n = list.raw_len();
            if n > MAX_BATCH {
                return Err(fail(
                    lua,
                    CALL,
                    format!("a batch holds at most {MAX_BATCH} sprites (H10); this one has {n}"),
                ));
            }
            let keys = *this.sprite_keys(lua)?;
            let mut quick = this.quick.borrow_mut();
            super::quick::read(lua, &list, &keys, &mut quick)?;
            for (i, q) in quick.iter().enumerate() {
                let i = i + 1;
                let spec = if q.slow {
                    let Value::Table(t) = list.raw_get::<Value>(i)? else {
                        return Err(fail(
                            lua,
                            CALL,
                            format!("sprite {i} should be a table {{ x = , y = , frame = }}"),
                        ));
                    };
                    sprite(lua, this, &read, &t)?
                } else {
                    let frame = read
                        .frame(&Value::Number(q.frame))
                        .map_err(|e| fail(lua, CALL, e))?;
                    SpriteSpec {
                        at: (q.x, q.y),
                        frame,
                        scale: (q.scale, q.scale),
                        flip: q.flip,
                        alpha: q.alpha,
                        ..SpriteSpec::new((0.0, 0.0), frame)
                    }
                };
                let screen = this.leases.screen(lua, "screen")?;
                check(
                    lua,
                    CALL,
                    screen.sprite(&spec).map_err(|e| refuse!("sprite {i}: {e}")),
                )?;
            }
            finish(lua, this, CALL, read.sheet.image, begin)
        },
    );
    methods.add_method(
        "tiles",
        |lua,
         this,
         (sheet_value, tiles, columns, x, y, opts): (
            Value,
            Table,
            f64,
            f64,
            f64,
            Option<Table>,
        )| {
            const CALL: &str = "tiles";
            let read = sheet(lua, this, CALL, &sheet_value)?;
            if !read.grid {
                return Err(fail(
                    lua,
                    CALL,
                    "tiles need a sheet cut into a grid (give it width and height)",
                ));
            }
            if columns.fract() != 0.0 || columns < 1.0 || columns > MAX_TILES as f64 {
                return Err(fail(
                    lua,
                    CALL,
                    format!(
                        "`columns` is {}; it is a whole number from 1 to {MAX_TILES}",
                        Number(columns)
                    ),
                ));
            }
            let n = tiles.raw_len();
            if n > MAX_TILES {
                return Err(fail(
                    lua,
                    CALL,
                    format!("a tilemap has at most {MAX_TILES} tiles (H10); this one has {n}"),
                ));
            }
            let mut spec = SpriteSpec::new((0.0, 0.0), [0; 4]);
            options(
                lua,
                this,
                CALL,
                opts.as_ref(),
                &mut spec,
                "scale, tint, alpha",
            )?;
            let (sw, sh) = (f64::from(read.sheet.cell.0), f64::from(read.sheet.cell.1));
            let (tw, th) = (sw * spec.scale.0, sh * spec.scale.1);
            let columns = columns as usize;
            let begin = this.leases.screen(lua, "screen")?.sprites_begin();
            for i in 1..=n {
                let tile = tiles.raw_get::<Value>(i)?;
                if matches!(tile, Value::Integer(0)) || tile == Value::Number(0.0) {
                    continue;
                }
                spec.frame = read
                    .frame(&tile)
                    .map_err(|e| fail(lua, CALL, format!("tile {i}: {e}")))?;
                let (col, row) = ((i - 1) % columns, (i - 1) / columns);
                spec.at = (x + col as f64 * tw, y + row as f64 * th);
                let screen = this.leases.screen(lua, "screen")?;
                check(lua, CALL, screen.sprite(&spec))?;
            }
            finish(lua, this, CALL, read.sheet.image, begin)
        },
    );
}
