//! The handles game code gets (rules C1-C3): `input` in `update`, `scene`
//! and `screen` in `render`.
//!
//! Each handle is one userdata made when the game loads and reused every
//! frame, so no frame allocates one. The host lends the real objects to a
//! handle only while its function runs; used at any other time, a handle
//! finds nothing lent and raises the C3 error. That check is the whole
//! scoping rule, and it costs one pointer test per call.

use std::cell::{Cell, RefCell};
use std::ffi::c_void;
use std::rc::Rc;

use mlua::{Lua, LuaString, UserData, UserDataMethods, Value};

use crate::assets::Store;
use crate::cues::CueLog;
use crate::engine::Pick;
use crate::input::{Binding, InputFrame};
use crate::scene::Scene;
use crate::screen::Screen;

/// What is lent to the handles right now.
#[derive(Debug)]
pub struct Leases {
    input: Cell<*const InputFrame>,
    cues: Cell<*mut CueLog>,
    frame: Cell<u64>,
    /// What `input:hover()` casts into, while `update` runs.
    pick: Cell<Option<Pick<'static>>>,
    screen: Cell<*mut Screen>,
    scene: Cell<*mut Scene>,
    assets: Cell<*mut Store>,
    /// Whether the game may save (its config has an id, H12).
    saving: Cell<bool>,
    /// The save `update` asked for, as canonical JSON, until the frame's
    /// state is taken.
    pending_save: RefCell<Option<String>>,
    /// Whether the running `update` asked the host to quit.
    quit: Cell<bool>,
}

impl Default for Leases {
    fn default() -> Self {
        Leases {
            input: Cell::new(std::ptr::null()),
            cues: Cell::new(std::ptr::null_mut()),
            frame: Cell::new(0),
            pick: Cell::new(None),
            screen: Cell::new(std::ptr::null_mut()),
            scene: Cell::new(std::ptr::null_mut()),
            assets: Cell::new(std::ptr::null_mut()),
            saving: Cell::new(false),
            pending_save: RefCell::new(None),
            quit: Cell::new(false),
        }
    }
}

/// Takes the lease back when the call ends, even by unwinding.
struct Return<'a>(&'a Leases);

impl Drop for Return<'_> {
    fn drop(&mut self) {
        self.0.input.set(std::ptr::null());
        self.0.cues.set(std::ptr::null_mut());
        self.0.pick.set(None);
        self.0.screen.set(std::ptr::null_mut());
        self.0.scene.set(std::ptr::null_mut());
        self.0.assets.set(std::ptr::null_mut());
    }
}

impl Leases {
    /// Lends `input` and `cues` to the `input` handle while `f` runs.
    pub fn lend_update<R>(
        &self,
        frame: u64,
        input: &InputFrame,
        cues: &mut CueLog,
        pick: Pick<'_>,
        f: impl FnOnce() -> R,
    ) -> R {
        self.input.set(input);
        self.cues.set(cues);
        self.frame.set(frame);
        self.pending_save.borrow_mut().take();
        self.quit.set(false);
        // SAFETY: the lease is taken back (by `Return`) before `pick`'s
        // borrows end; `'static` only lets it sit in the cell meanwhile.
        self.pick.set(Some(unsafe {
            std::mem::transmute::<Pick<'_>, Pick<'static>>(pick)
        }));
        let _back = Return(self);
        f()
    }

    /// Lets `input:save` work (the game has a `config.id`) or not.
    pub fn allow_saving(&self, allowed: bool) {
        self.saving.set(allowed);
    }

    /// Takes whether the last `update` asked to quit.
    pub fn take_quit(&self) -> bool {
        self.quit.replace(false)
    }

    /// Takes the save the last `update` asked for.
    pub fn take_save(&self) -> Option<String> {
        self.pending_save.borrow_mut().take()
    }

    /// Lends `screen`, `scene` and `assets` to their handles while `f` runs.
    pub fn lend_render<R>(
        &self,
        screen: &mut Screen,
        scene: &mut Scene,
        assets: &mut Store,
        f: impl FnOnce() -> R,
    ) -> R {
        self.screen.set(screen);
        self.scene.set(scene);
        self.assets.set(assets);
        let _back = Return(self);
        f()
    }

    /// Returns the assets lent to `render`, or the C3 error outside it.
    #[allow(clippy::mut_from_ref)]
    pub fn assets(&self, lua: &Lua, handle: &str) -> mlua::Result<&mut Store> {
        let assets = self.assets.get();
        if assets.is_null() {
            return Err(outside(lua, handle, "render"));
        }
        // SAFETY: as for `screen`; the screen and scene handles use the
        // store one call at a time.
        Ok(unsafe { &mut *assets })
    }

    /// Returns the screen lent to `render`, or the C3 error outside it.
    #[allow(clippy::mut_from_ref)]
    pub fn screen(&self, lua: &Lua, handle: &str) -> mlua::Result<&mut Screen> {
        let screen = self.screen.get();
        if screen.is_null() {
            return Err(outside(lua, handle, "render"));
        }
        // SAFETY: non-null only inside `lend_render`, whose exclusive
        // borrow of the screen outlives the method call using it; Luau
        // cannot call two screen methods at once.
        Ok(unsafe { &mut *screen })
    }

    /// Returns the scene lent to `render`, or the C3 error outside it.
    #[allow(clippy::mut_from_ref)]
    pub fn scene(&self, lua: &Lua, handle: &str) -> mlua::Result<&mut Scene> {
        let scene = self.scene.get();
        if scene.is_null() {
            return Err(outside(lua, handle, "render"));
        }
        // SAFETY: as for `screen`.
        Ok(unsafe { &mut *scene })
    }
}

fn outside(lua: &Lua, handle: &str, function: &str) -> mlua::Error {
    mlua::Error::RuntimeError(format!(
        "{}C3: `{handle}` belongs to {function} and was used outside it; \
         use it only while {function} runs and keep what you need in the state",
        super::location(lua, 1)
    ))
}

/// Names already looked up, by the address of the interned Luau string.
/// Reading a string's bytes through mlua allocates; comparing its address
/// does not, so steady frames look names up for free. The cached string
/// keeps its address from being reused.
pub(super) struct Names<T = Binding>(RefCell<Vec<(*const c_void, LuaString, T)>>);

impl<T> Default for Names<T> {
    fn default() -> Self {
        Names(RefCell::new(Vec::with_capacity(16)))
    }
}

/// The most names cached before the cache starts over.
const NAME_CACHE: usize = 256;

impl<T: Copy> Names<T> {
    /// What `name` was found to mean before, if it was looked up.
    pub(super) fn cached(&self, name: &LuaString) -> Option<T> {
        let address = name.to_pointer();
        let names = self.0.borrow();
        names
            .iter()
            .find(|(a, _, _)| *a == address)
            .map(|(_, _, b)| *b)
    }

    /// Remembers what `name` means.
    pub(super) fn keep(&self, name: &LuaString, binding: T) {
        let mut names = self.0.borrow_mut();
        if names.len() == NAME_CACHE {
            names.clear();
        }
        names.push((name.to_pointer(), name.clone(), binding));
    }

    /// What `name` means: as found before, or read by `parse` now and
    /// kept; `refusal` words the error for a name `parse` does not know.
    pub(super) fn find(
        &self,
        name: &LuaString,
        parse: impl FnOnce(&str) -> Option<T>,
        refusal: impl FnOnce(&str) -> String,
    ) -> mlua::Result<T> {
        if let Some(found) = self.cached(name) {
            return Ok(found);
        }
        let text = name.to_string_lossy();
        let found = parse(&text)
            .ok_or_else(|| mlua::Error::RuntimeError(refusal(&crate::terminal::escape(&text))))?;
        self.keep(name, found);
        Ok(found)
    }
}

/// Runs `f` on the input frame lent to `leases`: inside `update` only (C3).
pub(super) fn with_input<R>(
    leases: &Leases,
    lua: &Lua,
    f: impl FnOnce(&InputFrame) -> R,
) -> mlua::Result<R> {
    let input = leases.input.get();
    if input.is_null() {
        return Err(outside(lua, "input", "update"));
    }
    // SAFETY: non-null only inside `lend_update`, whose borrow of the
    // input frame outlives this call.
    Ok(f(unsafe { &*input }))
}

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
            let Some(pick) = this.leases.pick.get() else {
                return Ok(None);
            };
            pick.hover(ray)
                .map(|name| lua.create_string(name))
                .transpose()
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
                                    &format!("`{key}` must be a finite number"),
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
                                    &format!(
                                        "unknown parameter `{other}` (use volume, pitch, pan)"
                                    ),
                                ));
                            }
                        }
                    }
                }
                if name.as_bytes().len() > crate::cues::MAX_NAME {
                    return Err(cue_error(
                        lua,
                        &format!(
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
                    .map_err(|reason| cue_error(lua, &reason))
            },
        );
    }
}

/// `input:save(value)`: checks `value` is plain data (S5) small enough to
/// save, and keeps its JSON to be written when the frame's state is taken.
fn save(lua: &Lua, leases: &Leases, value: &Value) -> mlua::Result<()> {
    let fail = |why: String| {
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
    crate::state::take(lua, value).map_err(|why| {
        fail(match why.strip_prefix("state") {
            Some(rest) => format!("the save{rest}"),
            None => why,
        })
    })?;
    let json = crate::state::to_json(value).map_err(|e| fail(crate::lua::describe(&e)))?;
    crate::save::check_size(&json, "the save's").map_err(fail)?;
    *leases.pending_save.borrow_mut() = Some(json);
    Ok(())
}

fn cue_error(lua: &Lua, reason: &str) -> mlua::Error {
    mlua::Error::RuntimeError(format!("{}input:cue: {reason}", super::location(lua, 1)))
}
