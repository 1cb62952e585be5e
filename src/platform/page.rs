//! Page: play in a web page (rule B4). The browser's door for a game a
//! person plays, beside the headless run the page can also ask for.
//!
//! A page cannot block, so it does not hand the host a loop: the page's
//! script owns the loop (one `requestAnimationFrame` a frame) and calls in
//! through these few C functions, which the runtime exports:
//!
//! - `moonloop_page_start(zip, clock)` loads the zipped game, as
//!   `moonloop run game.zip` would, under `clock` (a clock SPEC, or empty
//!   for the wall clock: the page's own time);
//! - `moonloop_page_input(line)` hands the game an input event in the
//!   scripted input syntax (`press left`, `move 10 20`), which is what the
//!   page turns the browser's keys and pointer into;
//! - `moonloop_page_frame()` runs one tick and draws its picture, which
//!   `moonloop_page_pixels()` (RGBA, straight alpha) and
//!   `moonloop_page_width()`/`moonloop_page_height()` hand back;
//! - `moonloop_page_hash()` says the state hash, as `--state-hash` does;
//! - `moonloop_page_sound(frames)` mixes the next `frames` stereo frames
//!   of the game's sound (at `moonloop_page_sound_rate()`), which the
//!   page's audio callback (Web Audio) plays: the page's sound door.
//!
//! What goes wrong is printed (the page shows it) and the game goes on on
//! what it had, as in a window. The screen layer is drawn; a scene needs
//! the GPU this build lacks, and its frame says so.
//!
//! Saves go where a window's go, a file a game under [`SAVES`]; the page
//! mounts the browser's storage there (IndexedDB, through emscripten's
//! IDBFS), reads it in before the game starts and writes it back while it
//! plays. A page that mounted nothing (the headless check) saves in memory.

use std::cell::RefCell;
use std::ffi::{CStr, CString, c_char};
use std::path::Path;
use std::rc::Rc;
use std::str::FromStr as _;
use std::time::Instant;

use tiny_skia::Pixmap;

use crate::clock::ClockSpec;
use crate::engine::Engine;
use crate::input::InputEvent;
use crate::lua::{Limits, LuaGame};
use crate::package::Unpacked;
use crate::save::Saves;
use crate::session::Session;
use crate::sound::device::Device;
use crate::sound::{Command, Mixer, RATE};
use crate::terminal::tell;

/// Where the page mounts the browser's storage for saves.
pub const SAVES: &str = "/saves";

/// A game being played in the page.
struct Page {
    session: Session<LuaGame>,
    /// The last frame's picture, at the surface's size.
    pixels: Pixmap,
    /// The same picture with straight alpha, as a canvas's ImageData
    /// takes it: RGBA, rows top to bottom.
    straight: Vec<u8>,
    /// The state hash last asked for, kept for the page to read.
    hash: CString,
    /// The game's sound, mixed when the page's audio callback asks.
    mixer: Rc<RefCell<Mixer>>,
    /// The last block of sound mixed: stereo frames, left then right.
    sound: Vec<f32>,
    /// The private copy the game runs from; removed when the page goes.
    _unpacked: Unpacked,
}

thread_local! {
    static PAGE: RefCell<Option<Page>> = const { RefCell::new(None) };
}

/// Reads a string the page passed in.
///
/// # Safety
/// `text` is null or points at a NUL-terminated string that stays valid
/// for the call (emscripten's `ccall` with a `string` argument).
unsafe fn text<'a>(text: *const c_char) -> Option<&'a str> {
    if text.is_null() {
        return None;
    }
    // SAFETY: non-null, and NUL-terminated and valid for the call by the
    // function's contract.
    unsafe { CStr::from_ptr(text) }.to_str().ok()
}

/// Starts the game in the zip at `zip` under `clock` (a clock SPEC; empty
/// or null: the wall clock). Returns 0, or 1 with the reason printed.
///
/// # Safety
/// Both are null or NUL-terminated strings valid for the call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn moonloop_page_start(zip: *const c_char, clock: *const c_char) -> i32 {
    // SAFETY: passed on from this function's contract.
    let (zip, clock) = unsafe { (text(zip), text(clock)) };
    match start(zip.unwrap_or("/game.zip"), clock.unwrap_or("")) {
        Ok(page) => {
            PAGE.set(Some(page));
            0
        }
        Err(err) => {
            tell!("moonloop: {}", err.chain());
            1
        }
    }
}

fn start(zip: &str, clock: &str) -> crate::Result<Page> {
    let unpacked = crate::package::open_zip(Path::new(zip))?;
    let saves = if Path::new(SAVES).is_dir() {
        Saves::disk(SAVES.into())
    } else {
        Saves::memory(None)
    };
    let mut game =
        LuaGame::load_shown(unpacked.game(), "game.zip".into(), Limits::default(), saves)?;
    if let Some(notice) = game.take_save_notice() {
        tell!("moonloop: {}", crate::terminal::line(&notice));
    }
    let spec = if clock.is_empty() {
        ClockSpec::Wall {
            max_secs: crate::clock::DEFAULT_WALL_MAX_SECS,
        }
    } else {
        ClockSpec::from_str(clock)?
    };
    let engine = Engine::new(game, spec.build());
    let bank = crate::sound::Bank::new(engine.config().sounds.clone());
    let mixer = Rc::new(RefCell::new(Mixer::default()));
    let sound = Some(crate::sound::Player::on(
        Box::new(PageSound(Rc::clone(&mixer))),
        bank,
    ));
    let viewport = *engine.viewport();
    let pixels = Pixmap::new(viewport.surface.0.max(1), viewport.surface.1.max(1))
        .expect("a non-empty surface");
    Ok(Page {
        session: Session::new(engine).sound(sound),
        pixels,
        straight: Vec::new(),
        hash: CString::default(),
        mixer,
        sound: Vec::new(),
        _unpacked: unpacked,
    })
}

/// The page's sound door: the mixer lives on the page's one thread, and
/// what the game plays reaches it at once; the page's audio callback
/// pulls the samples ([`moonloop_page_sound`]).
struct PageSound(Rc<RefCell<Mixer>>);

impl Device for PageSound {
    fn name(&self) -> String {
        "the page (Web Audio)".into()
    }

    fn send(&self, command: Command) {
        self.0.borrow_mut().apply(command);
    }

    fn failure(&self) -> Option<String> {
        None
    }
}

/// The most stereo frames one call to [`moonloop_page_sound`] mixes.
const MAX_SOUND_FRAMES: u32 = 16_384;

/// Mixes the next `frames` stereo frames of the game's sound (at most
/// 16,384) and returns them, left and right interleaved, from -1 to 1;
/// null when no game runs. Valid until the next call.
#[unsafe(no_mangle)]
pub extern "C" fn moonloop_page_sound(frames: u32) -> *const f32 {
    PAGE.with_borrow_mut(|page| {
        let Some(page) = page else {
            return std::ptr::null();
        };
        let samples = frames.min(MAX_SOUND_FRAMES) as usize * 2;
        page.sound.resize(samples, 0.0);
        page.mixer.borrow_mut().fill(&mut page.sound);
        page.sound.as_ptr()
    })
}

/// The rate [`moonloop_page_sound`] mixes at, in frames a second.
#[unsafe(no_mangle)]
pub extern "C" fn moonloop_page_sound_rate() -> u32 {
    RATE
}

/// Hands the game one input event, a line in the scripted input syntax.
/// Returns 0, or 1 when the line does not read (said once, printed).
///
/// # Safety
/// `line` is null or a NUL-terminated string valid for the call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn moonloop_page_input(line: *const c_char) -> i32 {
    // SAFETY: passed on from this function's contract.
    let Some(line) = (unsafe { text(line) }) else {
        return 1;
    };
    PAGE.with_borrow_mut(|page| {
        let Some(page) = page else { return 1 };
        let engine = page.session.engine_mut();
        match InputEvent::parse_line(line, &engine.config().actions) {
            Ok(events) => {
                for event in events {
                    engine.input_mut().push(event);
                }
                0
            }
            Err(why) => {
                tell!("moonloop: page input `{line}`: {why}");
                1
            }
        }
    })
}

/// Runs one tick at the page's time and draws the frame's picture.
/// Returns 0 to go on, 1 when the game asked to end, 2 when no game runs.
#[unsafe(no_mangle)]
pub extern "C" fn moonloop_page_frame() -> i32 {
    PAGE.with_borrow_mut(|page| {
        let Some(page) = page else { return 2 };
        let turn = page.session.tick(Instant::now(), false);
        if let Some(trouble) = &turn.trouble {
            tell!("{trouble}");
        }
        let engine = page.session.engine_mut();
        let surface = engine.viewport().surface;
        if (page.pixels.width(), page.pixels.height()) != surface
            && let Some(resized) = Pixmap::new(surface.0.max(1), surface.1.max(1))
        {
            page.pixels = resized;
        }
        crate::compositor::screen_picture_into(engine, &mut page.pixels);
        straighten(&page.pixels, &mut page.straight);
        i32::from(turn.quit)
    })
}

/// Writes `picture`'s pixels into `out` with straight alpha: what the
/// screen draws is premultiplied, and a canvas shown premultiplied pixels
/// would darken every see-through edge.
fn straighten(picture: &Pixmap, out: &mut Vec<u8>) {
    out.clear();
    out.extend(picture.pixels().iter().flat_map(|p| {
        let c = p.demultiply();
        [c.red(), c.green(), c.blue(), c.alpha()]
    }));
}

/// The last frame's pixels: RGBA with straight alpha, rows top to bottom.
#[unsafe(no_mangle)]
pub extern "C" fn moonloop_page_pixels() -> *const u8 {
    PAGE.with_borrow(|page| match page {
        Some(page) if !page.straight.is_empty() => page.straight.as_ptr(),
        _ => std::ptr::null(),
    })
}

/// The last frame's picture's width, in pixels.
#[unsafe(no_mangle)]
pub extern "C" fn moonloop_page_width() -> u32 {
    PAGE.with_borrow(|page| page.as_ref().map_or(0, |p| p.pixels.width()))
}

/// The last frame's picture's height, in pixels.
#[unsafe(no_mangle)]
pub extern "C" fn moonloop_page_height() -> u32 {
    PAGE.with_borrow(|page| page.as_ref().map_or(0, |p| p.pixels.height()))
}

/// The frames delivered so far.
#[unsafe(no_mangle)]
pub extern "C" fn moonloop_page_frames() -> f64 {
    PAGE.with_borrow(|page| {
        page.as_ref()
            .map_or(0.0, |p| p.session.engine().frame() as f64)
    })
}

/// The state's hash now, as `--state-hash` prints it (empty when no game
/// runs or the state does not hash), valid until the next call.
#[unsafe(no_mangle)]
pub extern "C" fn moonloop_page_hash() -> *const c_char {
    PAGE.with_borrow_mut(|page| {
        let Some(page) = page else {
            return c"".as_ptr();
        };
        let hash = page
            .session
            .engine()
            .game()
            .state_hash()
            .unwrap_or_default();
        page.hash = CString::new(hash).unwrap_or_default();
        page.hash.as_ptr()
    })
}
