//! The handles game code gets (rules C1-C3): `input` in `update`, `scene`
//! and `screen` in `render`.
//!
//! Each handle is one userdata made when the game loads and reused every
//! frame, so no frame allocates one. The host lends the real objects to a
//! handle only while its function runs (leases.rs); used at any other
//! time, a handle finds nothing lent and raises the C3 error. That check
//! is the whole scoping rule, and it costs one pointer test per call.

use std::rc::Rc;

use mlua::{Lua, LuaString, UserData, UserDataMethods, Value};

use super::leases::{Leases, Names, with_input};
use crate::cues::CueLog;
use crate::input::{Binding, InputFrame};

/// The `input` handle `update` gets (C1).
pub struct InputHandle {
    leases: Rc<Leases>,
    names: Names,
    /// The empty string `input:text()` returns on most frames, made once:
    /// a new string handle every frame would allocate.
    no_text: std::cell::OnceCell<LuaString>,
    /// Each player's view (`input:player(i)`, N2), made when first asked.
    players: super::players::Views,
    /// Axis names looked up (reading a name's bytes allocates).
    axes: Names<crate::input::Axis>,
}

impl InputHandle {
    /// Creates the handle reading from `leases`.
    pub fn new(leases: Rc<Leases>) -> Self {
        InputHandle {
            leases,
            names: Names::default(),
            no_text: std::cell::OnceCell::new(),
            players: super::players::Views::default(),
            axes: Names::default(),
        }
    }

    fn with<R>(&self, lua: &Lua, f: impl FnOnce(&InputFrame) -> R) -> mlua::Result<R> {
        with_input(&self.leases, lua, f)
    }

    fn binding(&self, lua: &Lua, call: &str, name: &Value) -> mlua::Result<Binding> {
        let Value::String(name) = name else {
            return Err(mlua::Error::RuntimeError(format!(
                "{}input:{call}: expected a key or action name, got a {}",
                super::location(lua, 1),
                crate::state::type_of(name)
            )));
        };
        if let Some(binding) = self.names.cached(name) {
            // Still check the scope: the cache must not answer outside update.
            self.with(lua, |_| ())?;
            return Ok(binding);
        }
        let text = name.to_string_lossy();
        let binding = self.with(lua, |input| input.binding(&text))?.ok_or_else(|| {
            let actions: Vec<String> = self
                .with(lua, |input| input.actions().iter().map(|a| a.name.clone()).collect())
                .unwrap_or_default();
            let actions = if actions.is_empty() {
                "none in config.actions".to_string()
            } else {
                actions.join(", ")
            };
            mlua::Error::RuntimeError(format!(
                "{}input:{call}(\"{text}\"): no key or action by that name (actions: {actions}; \
                 keys are named like a, 1, space, left, mouse_left, pad1:south, pad:start)",
                super::location(lua, 1),
            ))
        })?;
        self.names.keep(name, binding);
        Ok(binding)
    }
}

impl super::sounds::Cues for InputHandle {
    /// Returns the frame's cue log and number, inside `update` only.
    #[allow(clippy::mut_from_ref)] // a lease, as `Leases::screen` is
    fn cue_log(&self, lua: &Lua) -> mlua::Result<(&mut CueLog, u64)> {
        self.with(lua, |_| ())?;
        // SAFETY: as in `with`: lent for the duration of `update`, and
        // Luau cannot run two input methods at once.
        Ok((
            unsafe { &mut *self.leases.cues.get() },
            self.leases.frame.get(),
        ))
    }
}

impl UserData for InputHandle {
    fn add_methods<M: UserDataMethods<Self>>(methods: &mut M) {
        super::sounds::add_methods(methods);
        methods.add_method("down", |lua, this, name: Value| {
            let binding = this.binding(lua, "down", &name)?;
            this.with(lua, |input| input.down(binding))
        });
        methods.add_method("pressed", |lua, this, name: Value| {
            let binding = this.binding(lua, "pressed", &name)?;
            this.with(lua, |input| input.pressed(binding))
        });
        methods.add_method("released", |lua, this, name: Value| {
            let binding = this.binding(lua, "released", &name)?;
            this.with(lua, |input| input.released(binding))
        });
        methods.add_method("player", |lua, this, player: Value| {
            this.players.view(lua, &this.leases, &player)
        });
        methods.add_method("pointer", |lua, this, ()| {
            this.with(lua, |input| {
                input
                    .pointer()
                    .map_or((None, None), |(x, y)| (Some(x), Some(y)))
            })
        });
        methods.add_method("ray", |lua, this, ()| {
            this.with(lua, |input| {
                input.ray().map_or((None, None), |(o, d)| {
                    (
                        Some(mlua::Vector::new(o[0], o[1], o[2])),
                        Some(mlua::Vector::new(d[0], d[1], d[2])),
                    )
                })
            })
        });
        methods.add_method("hover", |lua, this, ()| {
            let ray = this.with(lua, |input| input.ray())?;
            this.leases.with_pick(|pick| {
                pick.and_then(|pick| pick.hover(ray))
                    .map(|name| lua.create_string(name))
                    .transpose()
            })
        });
        methods.add_method("axis", |lua, this, name: LuaString| {
            let axis = this
                .axes
                .find(&name, crate::input::Axis::from_name, |shown| {
                    format!(
                        "{}input:axis(\"{shown}\"): no axis by that name (axes are named like \
                     pad1:leftx or pad:leftx, for any pad; the axes are {})",
                        super::location(lua, 1),
                        crate::input::PAD_AXES.join(", ")
                    )
                })?;
            this.with(lua, |input| input.axis(axis))
        });
        methods.add_method("text", |lua, this, ()| {
            let typed = this.with(lua, |input| {
                (!input.text().is_empty()).then(|| lua.create_string(input.text()))
            })?;
            match typed {
                Some(text) => text,
                None => {
                    if let Some(empty) = this.no_text.get() {
                        return Ok(empty.clone());
                    }
                    let empty = lua.create_string("")?;
                    Ok(this.no_text.get_or_init(|| empty).clone())
                }
            }
        });
        methods.add_method("wheel", |lua, this, ()| {
            this.with(lua, |input| input.wheel())
        });
        methods.add_method("quit", |lua, this, ()| {
            this.with(lua, |_| ())?;
            this.leases.quit.set(true);
            Ok(())
        });
        methods.add_method("save", |lua, this, value: Value| {
            this.with(lua, |_| ())?;
            save(lua, &this.leases, &value)
        });
        methods.add_method(
            "cue",
            |lua, this, (name, params): (LuaString, Option<mlua::Table>)| {
                this.with(lua, |_| ())?;
                let (mut volume, mut pitch, mut pan) = (1.0, 1.0, 0.0);
                if let Some(params) = params {
                    for pair in params.pairs::<String, Value>() {
                        let (key, value) = pair.map_err(|_| {
                            cue_error(lua, "its parameters are named: volume, pitch, pan")
                        })?;
                        let number = match value {
                            Value::Integer(i) => i as f64,
                            Value::Number(n) if n.is_finite() => n,
                            _ => {
                                return Err(cue_error(
                                    lua,
                                    format!("`{key}` must be a finite number"),
                                ));
                            }
                        };
                        match key.as_str() {
                            "volume" if number >= 0.0 => volume = number,
                            "pitch" if number > 0.0 => pitch = number,
                            "pan" if (-1.0..=1.0).contains(&number) => pan = number,
                            "volume" => return Err(cue_error(lua, "`volume` must be 0 or more")),
                            "pitch" => return Err(cue_error(lua, "`pitch` must be above 0")),
                            "pan" => return Err(cue_error(lua, "`pan` must be from -1 to 1")),
                            other => {
                                return Err(cue_error(
                                    lua,
                                    format!("unknown parameter `{other}` (use volume, pitch, pan)"),
                                ));
                            }
                        }
                    }
                }
                if name.as_bytes().len() > crate::cues::MAX_NAME {
                    return Err(cue_error(
                        lua,
                        format!(
                            "a cue name of {} bytes is too long (at most {}, H10)",
                            name.as_bytes().len(),
                            crate::cues::MAX_NAME
                        ),
                    ));
                }
                let name = name.to_string_lossy();
                let cues = this.leases.cues.get();
                // SAFETY: as in `with`: lent for the duration of `update`.
                unsafe { (*cues).play(this.leases.frame.get(), &name, volume, pitch, pan) }
                    .map_err(|reason| cue_error(lua, reason))
            },
        );
    }
}

/// `input:save(value)`: checks `value` is plain data (S5) small enough to
/// save, and keeps its JSON to be written when the frame's state is taken.
fn save(lua: &Lua, leases: &Leases, value: &Value) -> mlua::Result<()> {
    let fail = |why: crate::Refusal| {
        mlua::Error::RuntimeError(format!("{}input:save: {why}", super::location(lua, 1)))
    };
    if !leases.saving.get() {
        return Err(fail(
            "the game has no config.id; set config.id = \"name\" so its save has a folder (H12)"
                .into(),
        ));
    }
    if value.is_nil() {
        return Err(fail("nothing to save; pass the value to keep (H12)".into()));
    }
    crate::state::take_as(lua, value, "the save").map_err(fail)?;
    let json = crate::state::to_json(value).map_err(|e| fail(crate::lua::describe(&e).into()))?;
    crate::save::check_size(&json, "the save's").map_err(fail)?;
    // A save holds the worlds' tables, not rapier's worlds beside them:
    // the game steps on from the tables, as a game loading it will (P3).
    crate::physics::forget(lua);
    *leases.pending_save.borrow_mut() = Some(json);
    Ok(())
}

fn cue_error(lua: &Lua, reason: impl std::fmt::Display) -> mlua::Error {
    mlua::Error::RuntimeError(format!("{}input:cue: {reason}", super::location(lua, 1)))
}
