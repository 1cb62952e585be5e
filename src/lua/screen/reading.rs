//! Reading the screen's arguments (rules H3, H10): fills and gradients,
//! stroke styles, points and paths, text and its style, each checked and
//! bounded before anything is drawn, refused at the author's line.

use crate::terminal::Number;

use mlua::{Lua, Table, Value};
use tiny_skia::{LineCap, LineJoin};

use std::rc::Rc;

use super::{ScreenHandle, color, fail, number};
use crate::color::Rgba;
use crate::screen::{Align, Fill, PathOp, Screen, Style, TextSpec};

/// The most numbers (or path items) one polygon, polyline or path call
/// takes.
const MAX_PATH_NUMBERS: usize = 1 << 20;

/// The most lengths one dash pattern has.
const MAX_DASHES: usize = 64;

/// The most stops one gradient has.
const MAX_STOPS: usize = 256;

fn fill(
    lua: &Lua,
    screen: &mut Screen,
    call: &str,
    what: &str,
    value: &Value,
) -> mlua::Result<Fill> {
    let Value::Table(t) = value else {
        return Ok(Fill::Solid(color(lua, call, what, value)?));
    };
    let linear: Option<Table> = t.raw_get("linear")?;
    let radial: Option<Table> = t.raw_get("radial")?;
    if linear.is_none() && radial.is_none() {
        return Ok(Fill::Solid(color(lua, call, what, value)?));
    }
    let stops: Table = t.raw_get::<Option<Table>>("stops")?.ok_or_else(|| {
        fail(
            lua,
            call,
            format!("{what}: a gradient needs stops = {{ {{0, \"red\"}}, {{1, \"blue\"}} }}"),
        )
    })?;
    if stops.raw_len() > MAX_STOPS {
        return Err(fail(
            lua,
            call,
            format!("{what}: a gradient has at most {MAX_STOPS} stops"),
        ));
    }
    let mut list = Vec::new();
    for stop in stops.sequence_values::<Table>() {
        let stop = stop.map_err(|_| {
            fail(
                lua,
                call,
                format!("{what}.stops: each stop is {{offset, color}}"),
            )
        })?;
        let offset = number(
            lua,
            call,
            &format!("{what}.stops offset"),
            &stop.raw_get(1)?,
        )?;
        if !(0.0..=1.0).contains(&offset) {
            return Err(fail(
                lua,
                call,
                format!("{what}.stops: offset {offset} is not from 0 to 1"),
            ));
        }
        list.push((
            offset as f32,
            color(lua, call, &format!("{what}.stops"), &stop.raw_get(2)?)?,
        ));
    }
    if list.is_empty() {
        return Err(fail(
            lua,
            call,
            format!("{what}: a gradient needs at least one stop"),
        ));
    }
    let stops = screen
        .add_stops(&list)
        .map_err(|reason| fail(lua, call, reason))?;
    let coords = |t: &Table, n: usize, name: &str| -> mlua::Result<Vec<f32>> {
        (1..=n)
            .map(|i| {
                let v = number(lua, call, &format!("{what}.{name}[{i}]"), &t.raw_get(i)?)?;
                if v.is_finite() {
                    Ok(v as f32)
                } else {
                    Err(fail(
                        lua,
                        call,
                        format!("{what}.{name}[{i}] is {v}; it must be a finite number"),
                    ))
                }
            })
            .collect()
    };
    Ok(match (linear, radial) {
        (Some(l), _) => {
            let p = coords(&l, 4, "linear")?;
            Fill::Linear {
                points: [p[0], p[1], p[2], p[3]],
                stops,
            }
        }
        (_, Some(r)) => {
            let c = coords(&r, 3, "radial")?;
            if c[2] < 0.0 {
                return Err(fail(
                    lua,
                    call,
                    format!(
                        "{what}.radial: the radius is {}; it must be 0 or more",
                        c[2]
                    ),
                ));
            }
            Fill::Radial {
                circle: [c[0], c[1], c[2]],
                stops,
            }
        }
        _ => unreachable!("one of linear and radial is set"),
    })
}

const STYLE_KEYS: &str = "fill, stroke, color, width, cap, join, dash, alpha, radius";

/// Reads a style table. `lines` says what `color` and the default mean: a
/// stroke (lines) or a fill (areas).
pub(super) fn style(
    lua: &Lua,
    screen: &mut Screen,
    call: &str,
    value: Option<Table>,
    lines: bool,
) -> mlua::Result<(Style, f64)> {
    let mut style = Style::default();
    let mut radius = 0.0;
    let default = Fill::Solid(Rgba::WHITE);
    let Some(table) = value else {
        if lines {
            style.stroke = Some(default);
        } else {
            style.fill = Some(default);
        }
        return Ok((style, radius));
    };
    let mut colored = false;
    for pair in table.pairs::<Value, Value>() {
        let (key, value) = pair?;
        let Value::String(key) = key else {
            return Err(fail(
                lua,
                call,
                format!("a style's keys are names ({STYLE_KEYS})"),
            ));
        };
        let key = key.to_string_lossy();
        match key.as_str() {
            "fill" => style.fill = Some(fill(lua, screen, call, "style.fill", &value)?),
            "stroke" => style.stroke = Some(fill(lua, screen, call, "style.stroke", &value)?),
            "color" => {
                colored = true;
                let c = fill(lua, screen, call, "style.color", &value)?;
                if lines {
                    style.stroke = Some(c);
                } else {
                    style.fill = Some(c);
                }
            }
            "width" => {
                let w = number(lua, call, "style.width", &value)?;
                if !(w.is_finite() && w >= 0.0) {
                    return Err(fail(
                        lua,
                        call,
                        format!("style.width is {}; it must be 0 or more", Number(w)),
                    ));
                }
                style.width = w as f32;
            }
            "alpha" => {
                let a = number(lua, call, "style.alpha", &value)?;
                if !(0.0..=1.0).contains(&a) {
                    return Err(fail(
                        lua,
                        call,
                        format!("style.alpha is {}; it goes from 0 to 1", Number(a)),
                    ));
                }
                style.alpha = a as f32;
            }
            "radius" => radius = number(lua, call, "style.radius", &value)?,
            "cap" => {
                style.cap = match value.as_string().map(|s| s.to_string_lossy()).as_deref() {
                    Some("butt") => LineCap::Butt,
                    Some("round") => LineCap::Round,
                    Some("square") => LineCap::Square,
                    _ => {
                        return Err(fail(
                            lua,
                            call,
                            "style.cap is \"butt\", \"round\" or \"square\"",
                        ));
                    }
                }
            }
            "join" => {
                style.join = match value.as_string().map(|s| s.to_string_lossy()).as_deref() {
                    Some("miter") => LineJoin::Miter,
                    Some("round") => LineJoin::Round,
                    Some("bevel") => LineJoin::Bevel,
                    _ => {
                        return Err(fail(
                            lua,
                            call,
                            "style.join is \"miter\", \"round\" or \"bevel\"",
                        ));
                    }
                }
            }
            "dash" => {
                let Value::Table(t) = &value else {
                    return Err(fail(
                        lua,
                        call,
                        "style.dash is a list of lengths, such as {8, 4}",
                    ));
                };
                if t.raw_len() > MAX_DASHES {
                    return Err(fail(
                        lua,
                        call,
                        format!("style.dash has at most {MAX_DASHES} lengths"),
                    ));
                }
                let mut dashes = Vec::new();
                for v in t.sequence_values::<Value>() {
                    let d = number(lua, call, "style.dash", &v?)?;
                    if !(d.is_finite() && d >= 0.0) {
                        return Err(fail(
                            lua,
                            call,
                            format!("style.dash has {d}; lengths are 0 or more"),
                        ));
                    }
                    dashes.push(d as f32);
                }
                if dashes.len() < 2 || dashes.len() % 2 == 1 || dashes.iter().all(|d| *d == 0.0) {
                    return Err(fail(
                        lua,
                        call,
                        "style.dash needs an even number of lengths, not all 0, such as {8, 4}",
                    ));
                }
                style.dash = Some(
                    screen
                        .add_dashes(&dashes)
                        .map_err(|reason| fail(lua, call, reason))?,
                );
            }
            other => {
                return Err(fail(
                    lua,
                    call,
                    format!("a style has no `{other}` (it takes {STYLE_KEYS})"),
                ));
            }
        }
    }
    if style.fill.is_none() && style.stroke.is_none() && !colored {
        if lines {
            style.stroke = Some(default);
        } else {
            style.fill = Some(default);
        }
    }
    Ok((style, radius))
}

pub(super) fn points(
    lua: &Lua,
    call: &str,
    list: &Table,
    ops: &mut Vec<PathOp>,
) -> mlua::Result<()> {
    ops.clear();
    let n = list.raw_len();
    if n % 2 == 1 {
        return Err(fail(
            lua,
            call,
            format!(
                "points has {n} numbers; a flat list {{x1, y1, x2, y2, ...}} has two for each point"
            ),
        ));
    }
    if n > MAX_PATH_NUMBERS {
        return Err(fail(
            lua,
            call,
            format!("points has {n} numbers; one call takes at most {MAX_PATH_NUMBERS} (H10)"),
        ));
    }
    if n < 4 {
        return Err(fail(
            lua,
            call,
            "points are a flat list {x1, y1, x2, y2, ...} of at least two points",
        ));
    }
    for i in (1..=n).step_by(2) {
        let x = number(lua, call, &format!("points[{i}]"), &list.raw_get(i)?)? as f32;
        let y = number(
            lua,
            call,
            &format!("points[{}]", i + 1),
            &list.raw_get(i + 1)?,
        )? as f32;
        ops.push(if i == 1 {
            PathOp::Move(x, y)
        } else {
            PathOp::Line(x, y)
        });
    }
    Ok(())
}

pub(super) fn path_ops(lua: &Lua, list: &Table, ops: &mut Vec<PathOp>) -> mlua::Result<()> {
    ops.clear();
    if list.raw_len() > MAX_PATH_NUMBERS {
        return Err(fail(
            lua,
            "path",
            format!(
                "the path has {} items; one call takes at most {MAX_PATH_NUMBERS} (H10)",
                list.raw_len()
            ),
        ));
    }
    let items: Vec<Value> = list
        .sequence_values::<Value>()
        .collect::<mlua::Result<_>>()?;
    let mut i = 0;
    while i < items.len() {
        let Value::String(verb) = &items[i] else {
            return Err(fail(
                lua,
                "path",
                format!("item {} should be move, line, quad, cubic or close", i + 1),
            ));
        };
        let verb = verb.to_string_lossy();
        let count = match verb.as_str() {
            "move" | "line" => 2,
            "quad" => 4,
            "cubic" => 6,
            "close" => 0,
            other => {
                return Err(fail(
                    lua,
                    "path",
                    format!("unknown step `{other}` (use move, line, quad, cubic, close)"),
                ));
            }
        };
        let mut n = [0f32; 6];
        for (k, slot) in n.iter_mut().take(count).enumerate() {
            let v = items.get(i + 1 + k).ok_or_else(|| {
                fail(
                    lua,
                    "path",
                    format!("`{verb}` at item {} needs {count} numbers", i + 1),
                )
            })?;
            *slot = number(lua, "path", &format!("item {}", i + 2 + k), v)? as f32;
        }
        ops.push(match verb.as_str() {
            "move" => PathOp::Move(n[0], n[1]),
            "line" => PathOp::Line(n[0], n[1]),
            "quad" => PathOp::Quad(n[0], n[1], n[2], n[3]),
            "cubic" => PathOp::Cubic(n[0], n[1], n[2], n[3], n[4], n[5]),
            _ => PathOp::Close,
        });
        i += 1 + count;
    }
    Ok(())
}

/// The fields of a text style, as `text` and `measure` take it.
const TEXT_STYLE_FIELDS: &str = "size, color, align, font, width, line_height and smooth";

/// Reads Luau string `s` of at most `max` bytes through the handle's
/// string cache (no copy for a string seen before).
pub(super) fn text_arg(
    lua: &Lua,
    this: &ScreenHandle,
    call: &str,
    what: &str,
    s: &mlua::LuaString,
    max: usize,
) -> mlua::Result<Rc<str>> {
    this.strings.get(s, max).map_err(|len| {
        fail(
            lua,
            call,
            format!(
                "{what} of {} is too long (at most {}, H10)",
                moonloop_door::sizes(len as u64, max as u64).0,
                moonloop_door::sizes(len as u64, max as u64).1
            ),
        )
    })
}

/// Reads a color; a color name seen before is not copied again.
pub(super) fn ink(
    lua: &Lua,
    this: &ScreenHandle,
    call: &str,
    what: &str,
    value: &Value,
) -> mlua::Result<Rgba> {
    match value {
        Value::String(s) => {
            let name = text_arg(lua, this, call, "a color name", s, 64)?;
            Rgba::parse(&name).map_err(|reason| fail(lua, call, format!("{what}: {reason}")))
        }
        _ => color(lua, call, what, value),
    }
}

/// Reads a text style table into a spec (its font name kept in `font`
/// for the spec to borrow) and a color.
///
/// Fields are read without copying their names or (seen before) their
/// strings, so a style read every frame allocates nothing.
pub(super) fn text_style(
    lua: &Lua,
    this: &ScreenHandle,
    call: &str,
    value: Option<&Table>,
    font: &mut Option<Rc<str>>,
) -> mlua::Result<(TextSpec<'static>, Rgba)> {
    let mut spec = TextSpec::default();
    let mut paint = Rgba::WHITE;
    let Some(t) = value else {
        return Ok((spec, paint));
    };
    t.for_each::<Value, Value>(|key, value| {
        let Value::String(key) = &key else {
            return Err(fail(
                lua,
                call,
                format!("a text style takes {TEXT_STYLE_FIELDS}"),
            ));
        };
        let key = text_arg(lua, this, call, "a style field", key, 64)?;
        match &*key {
            "size" => spec.size = number(lua, call, "style.size", &value)?,
            "color" => paint = ink(lua, this, call, "style.color", &value)?,
            "width" => spec.width = Some(number(lua, call, "style.width", &value)?),
            "line_height" => {
                spec.line_height = Some(number(lua, call, "style.line_height", &value)?);
            }
            "smooth" => {
                spec.smooth = value
                    .as_boolean()
                    .ok_or_else(|| fail(lua, call, "style.smooth is true or false"))?;
            }
            "font" => {
                let Value::String(name) = &value else {
                    return Err(fail(
                        lua,
                        call,
                        "style.font is the name of a .ttf or .otf file in the game folder",
                    ));
                };
                *font = Some(text_arg(
                    lua,
                    this,
                    call,
                    "a font name",
                    name,
                    crate::assets::MAX_NAME,
                )?);
            }
            "align" => {
                let name = match &value {
                    Value::String(s) => Some(text_arg(lua, this, call, "style.align", s, 16)?),
                    _ => None,
                };
                spec.align = match name.as_deref() {
                    Some("left") => Align::Left,
                    Some("center") => Align::Center,
                    Some("right") => Align::Right,
                    _ => {
                        return Err(fail(
                            lua,
                            call,
                            "style.align is \"left\", \"center\" or \"right\"",
                        ));
                    }
                }
            }
            other => {
                return Err(fail(
                    lua,
                    call,
                    format!(
                        "no style field `{}` (a text style takes {TEXT_STYLE_FIELDS})",
                        crate::terminal::escape(other)
                    ),
                ));
            }
        }
        Ok(())
    })?;
    Ok((spec, paint))
}
