//! The `screen` handle `render` draws with (rules H3, C2, C3): each method
//! reads its Luau arguments, checks them, and records a command on the
//! [`Screen`] lent for the call.

use crate::Refusal;
use std::cell::RefCell;
use std::rc::Rc;

use mlua::{Lua, Table, UserData, UserDataMethods, Value};

use super::args;
use super::leases::Leases;
use super::strings::Strings;
use crate::color::Rgba;
use crate::screen::{MAX_TEXT, PathOp, TextSpec};

mod quick;
mod reading;
mod sprites;

use reading::{ink, path_ops, points, style, text_arg, text_style};

/// A sprite's field names, held as Luau strings, and their addresses.
struct SpriteKeys {
    _strings: Vec<mlua::LuaString>,
    addresses: [usize; sprites::FIELDS.len()],
}

/// The `screen` handle.
pub struct ScreenHandle {
    leases: Rc<Leases>,
    /// Scratch space for path operations, kept between calls.
    ops: RefCell<Vec<PathOp>>,
    /// Strings read so far (texts, names, colors).
    strings: Strings,
    /// A sprite's field names as Luau strings, kept alive so their
    /// addresses name them (see [`ScreenHandle::sprite_keys`]).
    sprite_keys: std::cell::OnceCell<SpriteKeys>,
    /// A sprite batch as read off the stack, kept between calls.
    quick: RefCell<Vec<quick::Quick>>,
}

impl ScreenHandle {
    /// Creates the handle drawing on what `leases` lends.
    pub fn new(leases: Rc<Leases>) -> Self {
        ScreenHandle {
            leases,
            ops: RefCell::new(Vec::with_capacity(64)),
            strings: Strings::default(),
            sprite_keys: std::cell::OnceCell::new(),
            quick: RefCell::new(Vec::new()),
        }
    }

    /// Returns the addresses of the Luau strings naming a sprite's fields,
    /// in [`sprites::FIELDS`] order: Luau interns strings, so a key is one
    /// of them exactly when it has that address.
    fn sprite_keys(&self, lua: &Lua) -> mlua::Result<&[usize; sprites::FIELDS.len()]> {
        if self.sprite_keys.get().is_none() {
            let mut strings = Vec::with_capacity(sprites::FIELDS.len());
            let mut addresses = [0; sprites::FIELDS.len()];
            for (name, address) in sprites::FIELDS.iter().zip(&mut addresses) {
                let s = lua.create_string(name)?;
                *address = s.to_pointer() as usize;
                strings.push(s);
            }
            let _ = self.sprite_keys.set(SpriteKeys {
                _strings: strings,
                addresses,
            });
        }
        Ok(&self.sprite_keys.get().expect("set above").addresses)
    }
}

/// Raises `screen:CALL: REASON` at the caller's line.
pub(super) fn fail(lua: &Lua, call: &str, reason: impl std::fmt::Display) -> mlua::Error {
    mlua::Error::RuntimeError(format!(
        "{}screen:{call}: {reason}",
        super::location(lua, 1)
    ))
}

/// Turns a [`Screen`] refusal into the error the author reads.
pub(super) fn check<R>(lua: &Lua, call: &str, result: Result<R, Refusal>) -> mlua::Result<R> {
    result.map_err(|reason| fail(lua, call, reason))
}

pub(super) fn number(lua: &Lua, call: &str, name: &str, value: &Value) -> mlua::Result<f64> {
    args::number(name, value).map_err(|reason| fail(lua, call, reason))
}

pub(super) fn color(lua: &Lua, call: &str, what: &str, value: &Value) -> mlua::Result<Rgba> {
    args::color(value).map_err(|reason| fail(lua, call, format!("{what}: {reason}")))
}

impl UserData for ScreenHandle {
    fn add_methods<M: UserDataMethods<Self>>(methods: &mut M) {
        methods.add_method(
            "rect",
            |lua, this, (x, y, w, h, s): (f64, f64, f64, f64, Option<Table>)| {
                let screen = this.leases.screen(lua, "screen")?;
                let (style, radius) = style(lua, screen, "rect", s, false)?;
                check(lua, "rect", screen.rect(x, y, w, h, radius, style))
            },
        );
        methods.add_method(
            "circle",
            |lua, this, (x, y, r, s): (f64, f64, f64, Option<Table>)| {
                let screen = this.leases.screen(lua, "screen")?;
                let (style, _) = style(lua, screen, "circle", s, false)?;
                check(lua, "circle", screen.circle(x, y, r, style))
            },
        );
        methods.add_method(
            "ellipse",
            |lua, this, (x, y, rx, ry, s): (f64, f64, f64, f64, Option<Table>)| {
                let screen = this.leases.screen(lua, "screen")?;
                let (style, _) = style(lua, screen, "ellipse", s, false)?;
                check(lua, "ellipse", screen.ellipse(x, y, rx, ry, style))
            },
        );
        methods.add_method(
            "line",
            |lua, this, (x1, y1, x2, y2, s): (f64, f64, f64, f64, Option<Table>)| {
                let screen = this.leases.screen(lua, "screen")?;
                let (style, _) = style(lua, screen, "line", s, true)?;
                let ops = [
                    PathOp::Move(x1 as f32, y1 as f32),
                    PathOp::Line(x2 as f32, y2 as f32),
                ];
                check(lua, "line", screen.path(&ops, style))
            },
        );
        for (name, closed) in [("polyline", false), ("polygon", true)] {
            methods.add_method(name, move |lua, this, (list, s): (Table, Option<Table>)| {
                let screen = this.leases.screen(lua, "screen")?;
                let mut ops = this.ops.borrow_mut();
                points(lua, name, &list, &mut ops)?;
                if closed {
                    ops.push(PathOp::Close);
                }
                let (style, _) = style(lua, screen, name, s, !closed)?;
                check(lua, name, screen.path(&ops, style))
            });
        }
        methods.add_method("path", |lua, this, (list, s): (Table, Option<Table>)| {
            let screen = this.leases.screen(lua, "screen")?;
            let mut ops = this.ops.borrow_mut();
            path_ops(lua, &list, &mut ops)?;
            let (style, _) = style(lua, screen, "path", s, false)?;
            check(lua, "path", screen.path(&ops, style))
        });
        methods.add_method(
            "text",
            |lua, this, (text, x, y, s): (mlua::LuaString, f64, f64, Option<Table>)| {
                let screen = this.leases.screen(lua, "screen")?;
                let mut font = None;
                let (spec, paint) = text_style(lua, this, "text", s.as_ref(), &mut font)?;
                let text = text_arg(lua, this, "text", "the text", &text, MAX_TEXT)?;
                let assets = this.leases.assets(lua, "screen")?;
                let spec = TextSpec {
                    font: font.as_deref(),
                    ..spec
                };
                check(lua, "text", screen.text(assets, &text, x, y, &spec, paint))
            },
        );
        methods.add_method(
            "measure",
            |lua, this, (text, s): (mlua::LuaString, Value)| {
                let screen = this.leases.screen(lua, "screen")?;
                let mut font = None;
                let (spec, _) = match &s {
                    Value::Nil => (TextSpec::default(), Rgba::WHITE),
                    Value::Table(t) => text_style(lua, this, "measure", Some(t), &mut font)?,
                    size => {
                        let size = number(lua, "measure", "size", size)?;
                        (
                            TextSpec {
                                size,
                                ..TextSpec::default()
                            },
                            Rgba::WHITE,
                        )
                    }
                };
                let text = text_arg(lua, this, "measure", "the text", &text, MAX_TEXT)?;
                let assets = this.leases.assets(lua, "screen")?;
                let spec = TextSpec {
                    font: font.as_deref(),
                    ..spec
                };
                check(lua, "measure", screen.measure(assets, &text, &spec))
            },
        );
        methods.add_method("image", |lua, this, (name, x, y, opts): (mlua::LuaString, f64, f64, Option<Table>)| {
            let screen = this.leases.screen(lua, "screen")?;
            let name = check(lua, "image", args::text("an image name", &name, crate::assets::MAX_NAME))?;
            let (mut w, mut h, mut source, mut rotation, mut smooth, mut alpha) = (None, None, None, 0.0, true, 1.0);
            if let Some(t) = opts {
                for pair in t.pairs::<String, Value>() {
                    let (key, value) = pair?;
                    match key.as_str() {
                        "width" => w = Some(number(lua, "image", "width", &value)?),
                        "height" => h = Some(number(lua, "image", "height", &value)?),
                        "rotation" => rotation = number(lua, "image", "rotation", &value)?,
                        "alpha" => alpha = number(lua, "image", "alpha", &value)?,
                        "smooth" => {
                            smooth = value.as_boolean().ok_or_else(|| fail(lua, "image", "`smooth` is true or false"))?
                        }
                        "source" => {
                            let Value::Table(s) = &value else {
                                return Err(fail(lua, "image", "`source` is {x, y, w, h} in image pixels"));
                            };
                            let mut r = [0.0; 4];
                            for (i, slot) in r.iter_mut().enumerate() {
                                *slot = number(lua, "image", "source", &s.raw_get(i + 1)?)?;
                            }
                            source = Some(r);
                        }
                        other => {
                            return Err(fail(
                                lua,
                                "image",
                                format!("no option `{other}` (it takes width, height, source, rotation, smooth, alpha)"),
                            ));
                        }
                    }
                }
            }
            let assets = this.leases.assets(lua, "screen")?;
            check(lua, "image", screen.image(assets, &name, (x, y), (w, h), source, rotation, smooth, alpha))
        });
        methods.add_method("translate", |lua, this, (x, y): (f64, f64)| {
            let screen = this.leases.screen(lua, "screen")?;
            check(lua, "translate", screen.translate(x, y))
        });
        methods.add_method("rotate", |lua, this, radians: f64| {
            let screen = this.leases.screen(lua, "screen")?;
            check(lua, "rotate", screen.rotate(radians))
        });
        methods.add_method("scale", |lua, this, (sx, sy): (f64, Option<f64>)| {
            let screen = this.leases.screen(lua, "screen")?;
            check(lua, "scale", screen.scale(sx, sy.unwrap_or(sx)))
        });
        methods.add_method("alpha", |lua, this, a: f64| {
            let screen = this.leases.screen(lua, "screen")?;
            check(lua, "alpha", screen.set_alpha(a))
        });
        methods.add_method("push", |lua, this, ()| {
            let screen = this.leases.screen(lua, "screen")?;
            check(lua, "push", screen.push_state())
        });
        methods.add_method("pop", |lua, this, ()| {
            let screen = this.leases.screen(lua, "screen")?;
            check(lua, "pop", screen.pop_state())
        });
        sprites::add_methods(methods);
        methods.add_method("size", |lua, this, ()| {
            Ok(this.leases.screen(lua, "screen")?.logical())
        });
    }
}
