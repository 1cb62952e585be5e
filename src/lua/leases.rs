//! What the host lends game code for one call (rules C1-C3): the input
//! frame and cue log while `update` runs, the screen and scene while
//! `render` runs. Each handle holds the one [`Leases`] of its game and
//! finds in it only what is lent right now; anything else is the C3
//! error. Also the name cache the input handles share.

use std::cell::{Cell, RefCell};
use std::ffi::c_void;

use mlua::{Lua, LuaString};

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
    pub(super) cues: Cell<*mut CueLog>,
    pub(super) frame: Cell<u64>,
    /// What `input:hover()` casts into, while `update` runs: the address
    /// of the [`Pick`] lent to it (see [`Leases::with_pick`]), or null.
    pick: Cell<*const ()>,
    screen: Cell<*mut Screen>,
    scene: Cell<*mut Scene>,
    assets: Cell<*mut Store>,
    /// Whether the game may save (its config has an id, H12).
    pub(super) saving: Cell<bool>,
    /// The save `update` asked for, as canonical JSON, until the frame's
    /// state is taken.
    pub(super) pending_save: RefCell<Option<String>>,
    /// Whether the running `update` asked the host to quit.
    pub(super) quit: Cell<bool>,
}

impl Default for Leases {
    fn default() -> Self {
        Leases {
            input: Cell::new(std::ptr::null()),
            cues: Cell::new(std::ptr::null_mut()),
            frame: Cell::new(0),
            pick: Cell::new(std::ptr::null()),
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
        self.0.pick.set(std::ptr::null());
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
        self.pick.set(std::ptr::from_ref(&pick).cast());
        let _back = Return(self);
        f()
    }

    /// Runs `f` on what `input:hover()` casts into: the pick lent to the
    /// running `update`, or `None` outside it.
    pub(super) fn with_pick<R>(&self, f: impl FnOnce(Option<&Pick<'_>>) -> R) -> R {
        let pick = self.pick.get().cast::<Pick<'_>>();
        // SAFETY: non-null only inside `lend_update`, whose `pick` (on its
        // stack, with its borrows) outlives the call that runs this; the
        // reference does not leave `f`.
        f(unsafe { pick.as_ref() })
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
