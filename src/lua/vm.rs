//! The Luau VM a game runs in: the sandbox, the time budget and the memory
//! cap (rule H9), and the one-line messages its errors become.

use crate::terminal::tell;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};
use std::time::{Duration, Instant};

use mlua::{Lua, LuaOptions, StdLib, Value, VmState, ffi};

/// How long one call into game code may run. Default: 1 s.
pub const DEFAULT_BUDGET: Duration = Duration::from_secs(1);

/// How much memory a game's VM may hold. Default: 512 MiB.
pub const DEFAULT_MEMORY_CAP: usize = 512 << 20;

/// Fixes the vendored Luau ships turned off. `LuauTableMoveTimeoutFix`:
/// without it `table.move({}, 1, 2^27, 2^30, {})` loops 2^27 times inside
/// C, where no budget can stop it (measured: 3.9 s against a 0.2 s budget).
/// `LuauTableRobustOom`: a table that cannot grow fails cleanly.
const FIXES_BEHIND_FLAGS: &[&str] = &["LuauTableMoveTimeoutFix", "LuauTableRobustOom"];

/// The limits a VM runs under.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// The time budget of each call from the host.
    pub budget: Duration,
    /// The memory cap in bytes.
    pub memory: usize,
    /// The seed `math.random` starts from (H11): not a limit, but, like
    /// the limits, chosen by whoever runs the game, not by the game.
    /// Default: 0.
    pub seed: u64,
    /// Whether each module is compiled to native code as it loads, as
    /// moonloop once did, rather than one a frame once the game runs
    /// (`lua::native`): the start-up bench's baseline. Default: no.
    pub native_at_load: bool,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            budget: DEFAULT_BUDGET,
            memory: DEFAULT_MEMORY_CAP,
            seed: super::determinism::DEFAULT_SEED,
            native_at_load: false,
        }
    }
}

/// Which host call is running, for the budget's message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Call {
    /// Loading a file (the chunk itself, or `require`).
    Load = 0,
    /// `init()`.
    Init = 1,
    /// `update(state, input, dt)`.
    Update = 2,
    /// `render(state, scene, screen)`.
    Render = 3,
    /// `reload(state)`.
    Reload = 4,
    /// A transition given to `apply`.
    Apply = 5,
    /// A test.
    Test = 6,
    /// A `moonloop seek` predicate.
    Seek = 7,
}

impl Call {
    fn name(code: u8) -> &'static str {
        [
            "loading",
            "init",
            "update",
            "render",
            "reload",
            "apply",
            "the test",
            "the --when expression",
        ]
        .get(code as usize)
        .copied()
        .unwrap_or("game code")
    }
}

/// Creates a sandboxed VM: Luau's sandbox on, native code made as frames run,
/// no way to load code but `require`, and the memory cap set.
///
/// The caller installs `require` and the host's globals before calling
/// [`seal`], which freezes the libraries and globals.
pub fn new_vm(limits: Limits) -> mlua::Result<Lua> {
    static FIXES: std::sync::Once = std::sync::Once::new();
    FIXES.call_once(|| {
        for flag in FIXES_BEHIND_FLAGS {
            // An unknown name is an older or newer Luau; the fix is then
            // either on already or not there to turn on.
            let _ = Lua::set_fflag(flag, true);
        }
    });
    let lua = Lua::new_with(StdLib::ALL_SAFE, LuaOptions::default())?;
    super::native::install(&lua, limits.native_at_load);
    let globals = lua.globals();
    // Code comes in through `require` alone, which confines it to the game
    // folder; environments are not the game's to swap.
    // Ported code meets them by name, not as "attempt to call a nil
    // value".
    for (name, instead) in [
        ("loadstring", "put the code in a module and require it"),
        ("load", "put the code in a module and require it"),
        ("dofile", "require the module (\"./name\")"),
        ("loadfile", "require the module (\"./name\")"),
        (
            "getfenv",
            "pass what the function needs as arguments, or keep it in a module",
        ),
        (
            "setfenv",
            "pass what the function needs as arguments, or keep it in a module",
        ),
    ] {
        let message = format!(
            "H9: {name} is not offered: code comes in through require alone, from the game \
             folder, and environments are not the game's to swap; {instead}"
        );
        globals.raw_set(
            name,
            lua.create_function(move |lua, _: mlua::MultiValue| -> mlua::Result<()> {
                Err(mlua::Error::RuntimeError(format!(
                    "{}{message}",
                    super::location(lua, 1)
                )))
            })?,
        )?;
    }
    super::determinism::install(&lua, limits.seed)?;
    // Game output goes to stderr, marked and escaped: stdout carries what
    // --print-state and --state-hash say, which a game must not forge.
    // Tables and functions print as `tostring` names them (`table: 1`),
    // never by address, which differs between runs (H11).
    let tostring: mlua::Function = globals.raw_get("tostring")?;
    globals.raw_set(
        "print",
        lua.create_function(move |_, args: mlua::Variadic<Value>| {
            let mut line = String::from("[game]");
            for arg in args.iter() {
                line.push(if line.len() == 6 { ' ' } else { '\t' });
                let text = match arg {
                    Value::String(s) => s.to_string_lossy(),
                    other => tostring.call::<mlua::LuaString>(other)?.to_string_lossy(),
                };
                line.push_str(&crate::terminal::line(&text));
                if line.len() > crate::terminal::MAX_MESSAGE {
                    break;
                }
            }
            tell!("{line}");
            Ok(())
        })?,
    )?;
    lua.set_memory_limit(limits.memory)?;
    Ok(lua)
}

/// Turns the sandbox on: libraries and host globals become read-only, and
/// the game's globals live in a table of their own.
pub fn seal(lua: &Lua) -> mlua::Result<()> {
    lua.sandbox(true)
}

/// Stops a call into Luau that runs past its time budget.
///
/// A watchdog thread checks running calls every few milliseconds. Only when
/// a call overruns does it install Luau's interrupt callback, which then
/// raises the error at the next loop edge or call. A call that finishes in
/// time costs two relaxed atomic stores and no callback at all: an interrupt
/// installed for good would be called at every loop edge and halve the
/// speed of tight loops (measured: 0.5x).
///
/// Where no thread can start (a web page that is not cross-origin
/// isolated), the interrupt is installed for each call instead and reads
/// the clock every [`CLOCK_EVERY`] safepoints: slower, and the same stop.
#[derive(Debug)]
pub struct Budget {
    limit_ns: AtomicU64,
    /// Odd while a call runs; each call start and end adds one.
    seq: AtomicU64,
    what: AtomicU8,
    /// The `seq` of the call the watchdog stopped, or 0.
    fired: AtomicU64,
    /// The VM's `lua_Callbacks`, where the interrupt pointer lives; 0 once
    /// the VM is gone.
    callbacks: Mutex<usize>,
    /// mlua's interrupt trampoline, to write into `callbacks` on overrun.
    trampoline: AtomicUsize,
    armed: AtomicBool,
    /// Whether the last guarded call was stopped for its budget.
    last_stopped: AtomicBool,
    /// No watchdog thread: the interrupt itself reads the clock.
    threadless: bool,
    /// When the running call started (threadless), and the safepoints
    /// since the clock was last read.
    started: Mutex<(Instant, u32)>,
}

/// How many safepoints a threadless budget lets pass between readings of
/// the clock.
const CLOCK_EVERY: u32 = 256;

/// A budget attached to its VM. Dropping it detaches the budget, so the
/// watchdog never writes into the callbacks of a VM that is gone: hold it
/// where it drops before the VM (a field declared before the `Lua`, a
/// local declared after it).
#[derive(Debug)]
pub struct Attached(Arc<Budget>);

impl std::ops::Deref for Attached {
    type Target = Arc<Budget>;

    fn deref(&self) -> &Arc<Budget> {
        &self.0
    }
}

impl Drop for Attached {
    fn drop(&mut self) {
        self.0.detach();
    }
}

impl Budget {
    /// Installs a budget of `limit` per call on `lua`.
    pub fn install(lua: &Lua, limit: Duration) -> mlua::Result<Attached> {
        Budget::install_as(lua, limit, watchdog().is_none())
    }

    /// Installs a budget, `threadless` (the interrupt reads the clock) or
    /// watched by the watchdog thread.
    fn install_as(lua: &Lua, limit: Duration, threadless: bool) -> mlua::Result<Attached> {
        let budget = Arc::new(Budget {
            limit_ns: AtomicU64::new(limit.as_nanos() as u64),
            seq: AtomicU64::new(0),
            what: AtomicU8::new(0),
            fired: AtomicU64::new(0),
            callbacks: Mutex::new(0),
            trampoline: AtomicUsize::new(0),
            armed: AtomicBool::new(false),
            last_stopped: AtomicBool::new(false),
            threadless,
            started: Mutex::new((Instant::now(), 0)),
        });
        let for_callback = Arc::downgrade(&budget);
        lua.set_interrupt(move |lua| {
            let Some(budget) = for_callback.upgrade() else {
                return Ok(VmState::Continue);
            };
            let seq = budget.seq.load(Ordering::Relaxed);
            if seq % 2 == 1 && budget.fired.load(Ordering::Relaxed) == seq {
                // The host's trampoline is finishing the call (raising the
                // stop, or taking a result that came in late): let it.
                let in_host = lua
                    .inspect_stack(0, |debug| {
                        debug.source().short_src.as_deref() == Some("moonloop")
                    })
                    .unwrap_or(false);
                if in_host {
                    return Ok(VmState::Continue);
                }
                // Stay armed until the call ends, so a `pcall` in a loop
                // cannot swallow the stop.
                return Err(budget.stopped(&super::location(lua, 0)));
            }
            if budget.threadless {
                if seq % 2 == 1 && budget.past_limit(seq) {
                    return Err(budget.stopped(&super::location(lua, 0)));
                }
                return Ok(VmState::Continue);
            }
            budget.disarm();
            Ok(VmState::Continue)
        });
        // Keep mlua's trampoline, but take it out of the VM until needed.
        // SAFETY: on the VM's own thread, before any call runs: the
        // callbacks struct lives as long as the VM, and its address is
        // kept under the budget's lock, cleared before the VM goes
        // (`Attached`). The watchdog's later writes of the interrupt
        // field are atomic word stores, read by Luau as a plain aligned
        // word at its safepoints, as Luau's own REPL interrupts scripts.
        unsafe {
            lua.exec_raw::<()>((), |state| {
                let callbacks = ffi::lua_callbacks(state);
                let trampoline = (*callbacks).interrupt.map_or(0, |f| f as usize);
                budget.trampoline.store(trampoline, Ordering::Relaxed);
                (*callbacks).interrupt = None;
                *budget.callbacks.lock().unwrap() = callbacks as usize;
            })?;
        }
        if let Some(watched) = watchdog().filter(|_| !threadless) {
            watched.lock().unwrap().push(Arc::downgrade(&budget));
        }
        Ok(Attached(budget))
    }

    /// Returns the time each call may run.
    pub fn limit(&self) -> Duration {
        Duration::from_nanos(self.limit_ns.load(Ordering::Relaxed))
    }

    /// Sets the time each call may run.
    pub fn set_limit(&self, limit: Duration) {
        self.limit_ns
            .store(limit.as_nanos() as u64, Ordering::Relaxed);
    }

    /// Says whether the running call has passed its budget: a loop the
    /// host runs for game code (a test's `e:advance(n)`) asks between
    /// steps, since no Luau runs there to be interrupted.
    pub fn overran(&self) -> bool {
        let seq = self.seq.load(Ordering::Acquire);
        if self.threadless && seq % 2 == 1 && self.fired.load(Ordering::Relaxed) != seq {
            self.started.lock().unwrap().1 = CLOCK_EVERY;
            self.past_limit(seq);
        }
        seq % 2 == 1 && self.fired.load(Ordering::Relaxed) == seq
    }

    /// A threadless budget's check, at a safepoint of call `seq`: every
    /// [`CLOCK_EVERY`] safepoints it reads the clock, and marks the call
    /// stopped once it has run past the limit, as the watchdog would.
    fn past_limit(&self, seq: u64) -> bool {
        let mut started = self.started.lock().unwrap();
        started.1 += 1;
        if started.1 < CLOCK_EVERY {
            return false;
        }
        started.1 = 0;
        if started.0.elapsed() < self.limit() {
            return false;
        }
        self.fired.store(seq, Ordering::Relaxed);
        true
    }

    /// Returns the error a call stopped for its budget raises, at `place`.
    pub fn stopped(&self, place: &str) -> mlua::Error {
        mlua::Error::RuntimeError(format!("{place}{}", self.stopped_line()))
    }

    /// Says why a call stopped for its budget, without a place.
    pub fn stopped_line(&self) -> String {
        let what = Call::name(self.what.load(Ordering::Relaxed));
        let secs = self.limit().as_secs_f64();
        format!(
            "H9: {what} ran past its time budget of {secs} s and was stopped \
             (look for a loop that never ends)"
        )
    }

    /// Runs `f` as a host call of kind `what`, under the budget.
    pub fn guard<R>(&self, what: Call, f: impl FnOnce() -> R) -> R {
        let outer = self.seq.load(Ordering::Relaxed);
        if outer % 2 == 1 {
            // Nested (require inside init): the outer call's clock runs on.
            return f();
        }
        self.what.store(what as u8, Ordering::Relaxed);
        self.seq.store(outer + 1, Ordering::Release);
        if self.threadless {
            *self.started.lock().unwrap() = (Instant::now(), 0);
            self.watch_here();
        }
        let result = f();
        self.seq.store(outer + 2, Ordering::Release);
        // The watchdog stamps `fired` with the call it stopped.
        let stopped = self.fired.load(Ordering::Relaxed) == outer + 1;
        self.last_stopped.store(stopped, Ordering::Relaxed);
        if self.armed.load(Ordering::Relaxed) {
            self.disarm();
        }
        result
    }

    /// Says whether the last call [`Budget::guard`] ran was stopped for
    /// its budget, so its error can say so by its type (H9).
    pub fn last_call_stopped(&self) -> bool {
        self.last_stopped.load(Ordering::Relaxed)
    }

    fn arm(&self, seq: u64) {
        let callbacks = self.callbacks.lock().unwrap();
        if *callbacks == 0 || self.seq.load(Ordering::Acquire) != seq {
            return;
        }
        self.fired.store(seq, Ordering::Relaxed);
        self.armed.store(true, Ordering::Relaxed);
        // Luau reads this pointer at every safepoint; setting it from
        // another thread is how its own REPL breaks a runaway script.
        let slot = interrupt_slot(*callbacks);
        slot.store(self.trampoline.load(Ordering::Relaxed), Ordering::Release);
    }

    /// Installs the interrupt for the call starting now, without stopping
    /// it: a threadless budget's interrupt reads the clock itself.
    fn watch_here(&self) {
        let callbacks = self.callbacks.lock().unwrap();
        if *callbacks == 0 {
            return;
        }
        self.armed.store(true, Ordering::Relaxed);
        let slot = interrupt_slot(*callbacks);
        slot.store(self.trampoline.load(Ordering::Relaxed), Ordering::Release);
    }

    fn disarm(&self) {
        let callbacks = self.callbacks.lock().unwrap();
        if *callbacks != 0 {
            interrupt_slot(*callbacks).store(0, Ordering::Release);
        }
        self.armed.store(false, Ordering::Relaxed);
        self.fired.store(0, Ordering::Relaxed);
    }

    /// Detaches the budget from its VM, which is about to be dropped
    /// ([`Attached`] does it as it drops).
    fn detach(&self) {
        *self.callbacks.lock().unwrap() = 0;
    }
}

/// The interrupt field of a `lua_Callbacks`, viewed as an atomic word.
fn interrupt_slot(callbacks: usize) -> &'static AtomicUsize {
    let callbacks = callbacks as *mut ffi::lua_Callbacks;
    // SAFETY: the field is a pointer-sized, aligned `Option<fn>` inside a
    // live `lua_Callbacks` (guarded by `Budget::callbacks`); `Option<fn>`
    // has the same layout as a nullable pointer.
    unsafe { &*(std::ptr::addr_of_mut!((*callbacks).interrupt) as *const AtomicUsize) }
}

type Watched = Mutex<Vec<Weak<Budget>>>;

/// The watchdog's list of budgets, with its thread started; `None` where
/// no thread can start.
fn watchdog() -> Option<&'static Watched> {
    static WATCHED: OnceLock<Option<Watched>> = OnceLock::new();
    WATCHED
        .get_or_init(|| {
            std::thread::Builder::new()
                .name("moonloop-budget".into())
                .spawn(watch)
                .ok()
                .map(|_| Mutex::new(Vec::new()))
        })
        .as_ref()
}

fn watch() {
    // For each budget: the call seen running last time, and since when.
    let mut seen: Vec<(Weak<Budget>, u64, Instant)> = Vec::new();
    loop {
        let mut period = Duration::from_millis(50);
        {
            let mut watched = watchdog().expect("its own thread runs").lock().unwrap();
            watched.retain(|w| w.strong_count() > 0);
            seen.retain(|(w, _, _)| w.strong_count() > 0);
            let now = Instant::now();
            for weak in watched.iter() {
                let Some(budget) = weak.upgrade() else {
                    continue;
                };
                let limit = budget.limit();
                period = period.min(limit / 20);
                let seq = budget.seq.load(Ordering::Acquire);
                let entry = seen.iter_mut().find(|(w, _, _)| w.ptr_eq(weak));
                match entry {
                    None => seen.push((weak.clone(), seq, now)),
                    Some((_, last, since)) => {
                        if *last != seq {
                            *last = seq;
                            *since = now;
                        } else if seq % 2 == 1
                            && now - *since >= limit
                            && budget.fired.load(Ordering::Relaxed) != seq
                        {
                            budget.arm(seq);
                        }
                    }
                }
            }
        }
        std::thread::sleep(period.max(Duration::from_millis(1)));
    }
}

#[cfg(test)]
mod threadless {
    use super::*;

    // rule: H9
    #[test]
    fn a_budget_with_no_watchdog_stops_a_runaway_call_by_the_clock() {
        let lua = Lua::new();
        let budget = Budget::install_as(&lua, Duration::from_millis(100), true).unwrap();
        let started = Instant::now();
        let result = budget.guard(Call::Update, || lua.load("while true do end").exec());
        let took = started.elapsed();
        let err = result.expect_err("the loop is stopped").to_string();
        assert!(err.contains("H9: update ran past its time budget"), "{err}");
        assert!(budget.last_call_stopped());
        assert!(took < Duration::from_secs(5), "{took:?}");
        // A call in time is not stopped, and the next call starts afresh.
        let fine = budget.guard(Call::Update, || {
            lua.load("local t = 0 for i = 1, 1000 do t += i end return t")
                .eval::<i64>()
        });
        assert_eq!(fine.unwrap(), 500500);
        assert!(!budget.last_call_stopped());
    }
}
