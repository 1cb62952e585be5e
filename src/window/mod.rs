//! Window: any game in a resizable winit window (rule H1), fed by live
//! input (H6). The only file that touches winit.
//!
//! The loop ticks the engine at the clock's pace, not the display's: vsync
//! does not throttle everywhere (it does not under Xvfb), so a paced clock
//! wakes at its next slot and a wall clock at the monitor's rate. A paused
//! game wakes only for events: it draws when something changed, not in a
//! loop. Each frame's pictures come from the compositor (steps 7-10); the
//! developer keys are `devkeys.rs`'s.

use crate::terminal::tell;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use winit::application::ApplicationHandler;
use winit::event::{ElementState, Ime, MouseButton, MouseScrollDelta, WindowEvent};
use winit::event_loop::{ActiveEventLoop, ControlFlow, EventLoop};
use winit::keyboard::PhysicalKey;
use winit::window::{Window, WindowId};

use crate::compositor::Compositor;
use crate::engine::{Engine, Game};
use crate::error::{Error, Result};
use crate::input::{InputEvent, Key};
use crate::live::{Live, Request, Seek};
use crate::overlay::Overlay;
use crate::record::Recorder;
use crate::reload::Watcher;
use crate::session::Session;
use crate::sound::{Bank, Player};
use tiny_skia::Pixmap;

mod keys;
mod look;
mod present;

use crate::input::pads::Pads;
use keys::key_name;
pub use look::Choice;
use look::Look;
pub use present::FrameTimes;
use present::Presenter;

/// How a windowed run behaves.
pub struct Options<G> {
    /// Record from the start to this path.
    pub record: Option<PathBuf>,
    /// Reload files as they change.
    pub watcher: Option<Watcher>,
    /// Close after this many delivered frames.
    pub frames: Option<u64>,
    /// The ALSA device to play cues on; "off" plays none, and empty (the
    /// default) is ALSA's `default`.
    pub audio: String,
    /// Where to write where the frames spent their time, when the
    /// window closes (`--frame-times`).
    pub frame_times: Option<PathBuf>,
    /// Opens paused (F5 plays on).
    pub paused: bool,
    /// What the run started from, for a bug report (Shift+F2).
    pub origin: crate::report::Origin,
    /// The player's fullscreen and window scale.
    pub look: Choice,
    /// What Shift+F9 seeks (`--when`), and the expression as typed.
    pub seek: Option<(Seek<G>, String)>,
    /// What runs the frames in place of the clock (online play).
    pub driver: Option<Box<dyn crate::session::Driver<G>>>,
}

impl<G> Default for Options<G> {
    fn default() -> Self {
        Options {
            record: None,
            watcher: None,
            frames: None,
            audio: String::new(),
            frame_times: None,
            paused: false,
            origin: crate::report::Origin::default(),
            look: Choice::default(),
            seek: None,
            driver: None,
        }
    }
}

struct Gpu {
    window: Arc<Window>,
    presenter: Presenter,
    compositor: Compositor,
}

struct App<G: Game> {
    /// The session in a person's hands: the window only turns events
    /// into its calls and presents what a frame drew.
    live: Live<G>,
    choice: Choice,
    instance: wgpu::Instance,
    gpu: Option<Gpu>,
    overlay: Overlay,
    recorder: Option<Recorder>,
    screenshots: u32,
    fatal: Option<Error>,
    /// What the window shows of the config, to follow it after a reload;
    /// set when the window opens.
    look: Option<Look>,
    /// The gamepads, looked for once a second.
    pads: Pads,
    /// Where the overlay panel was last drawn, in surface pixels.
    panel_at: Option<(i32, i32)>,
    /// The pointer, in surface pixels.
    cursor: (f64, f64),
    closing: bool,
    /// Where the frames spent their time.
    times: FrameTimes,
    /// The physics view and the overlay panel over it, the surface's
    /// size, kept from frame to frame while it shows (P9).
    view: Option<Pixmap>,
}

/// Opens the game's window and runs it until it is closed; returns the
/// session that drove it, for its driver's last word.
///
/// # Errors
/// There is no display (the message suggests `--headless`), or no
/// graphics adapter can draw to the window.
pub fn run<G: Game>(engine: Engine<G>, options: Options<G>) -> Result<Session<G>> {
    check_display()?;
    crate::interrupt::install();
    let event_loop = EventLoop::new()?;
    let recorder = match &options.record {
        Some(path) => Some(Recorder::start(path, false)?),
        None => None,
    };
    let sound = Player::for_device(&options.audio, Bank::new(engine.config().sounds.clone()))?;
    let frame_times = options.frame_times;
    let session = Session::new(engine)
        .watch(options.watcher)
        .sound(Some(sound))
        .drive(options.driver);
    let live = Live::new(session, Instant::now())
        .paused(options.paused)
        .close_after(options.frames)
        .seek(options.seek)
        .origin(options.origin);
    let mut app = App {
        live,
        choice: options.look,
        instance: wgpu::Instance::new(wgpu::InstanceDescriptor::new_with_display_handle_from_env(
            Box::new(event_loop.owned_display_handle()),
        )),
        gpu: None,
        overlay: Overlay::default(),
        recorder,
        screenshots: 0,
        fatal: None,
        look: None,
        pads: Pads::new(),
        panel_at: None,
        cursor: (0.0, 0.0),
        closing: false,
        times: FrameTimes::default(),
        view: None,
    };
    event_loop.run_app(&mut app)?;
    if let Some(path) = &frame_times
        && let Some(gpu) = &app.gpu
        && let Err(e) = app.times.write(path, gpu.presenter.way())
    {
        tell!("moonloop: cannot write {}: {e}", path.display());
    }
    // The window and its surface go before the recording is finished.
    app.gpu = None;
    if let Some(err) = app.fatal.take() {
        return Err(err);
    }
    if let Some(recorder) = app.recorder.take() {
        report_recording(recorder);
    }
    Ok(app.live.finish())
}

/// The physics view drawn over a surface-sized pixmap kept in `kept`,
/// with the overlay panel `panel` on top: the overlay that replaces it.
fn view<'a>(
    kept: &'a mut Option<Pixmap>,
    surface: (u32, u32),
    viewport: &crate::viewport::Viewport,
    colliders: &crate::colliders::Colliders,
    panel: Option<(&Pixmap, i32, i32)>,
) -> Option<(&'a Pixmap, i32, i32)> {
    if kept
        .as_ref()
        .is_none_or(|p| (p.width(), p.height()) != surface)
    {
        *kept = Pixmap::new(surface.0.max(1), surface.1.max(1));
    }
    let pixmap = kept.as_mut()?;
    pixmap.fill(tiny_skia::Color::TRANSPARENT);
    crate::colliders::draw(pixmap, colliders, viewport);
    if let Some((p, x, y)) = panel {
        pixmap.draw_pixmap(
            x,
            y,
            p.as_ref(),
            &tiny_skia::PixmapPaint::default(),
            tiny_skia::Transform::identity(),
            None,
        );
    }
    Some((pixmap, 0, 0))
}

/// Says whether there is a display to open a window on.
///
/// # Errors
/// Neither `DISPLAY` nor `WAYLAND_DISPLAY` is set; the message suggests
/// `--headless`.
pub fn check_display() -> Result<()> {
    let none =
        std::env::var_os("DISPLAY").is_none() && std::env::var_os("WAYLAND_DISPLAY").is_none();
    if none && cfg!(all(unix, not(target_os = "macos"))) {
        return Err(Error::usage(
            "there is no display to open a window on (DISPLAY and WAYLAND_DISPLAY are unset); add --headless",
        ));
    }
    Ok(())
}

/// Finishes a recording and says where it went; an animated PNG takes a
/// moment to compress, so it says that first.
pub fn report_recording(recorder: Recorder) {
    tell!("finishing the recording {}", recorder.path().display());
    match recorder.finish() {
        Ok(s) if s.dropped > 0 => tell!(
            "recorded {} frames to {} ({} dropped: the encoder fell behind)",
            s.frames,
            s.path.display(),
            s.dropped
        ),
        Ok(s) => tell!("recorded {} frames to {}", s.frames, s.path.display()),
        Err(e) => tell!("moonloop: {}", e.chain()),
    }
}

impl<G: Game> App<G> {
    fn create(&mut self, event_loop: &ActiveEventLoop) -> Result<()> {
        let engine = self.live.engine();
        let root = engine.game().folder();
        let (look, attributes, warning) =
            Look::open(engine.config(), root.as_deref(), &self.choice);
        if let Some(warning) = warning {
            tell!("moonloop: {warning}");
        }
        let window = Arc::new(event_loop.create_window(attributes)?);
        look.show_cursor(&window);
        // Composed text (accents, CJK input methods) arrives as Ime::Commit.
        window.set_ime_allowed(true);
        let (presenter, compositor) =
            Presenter::open(&self.instance, &window, look.present_mode())?;
        self.look = Some(look);
        let (width, height) = presenter.size();
        self.live.resize(width, height);
        if let Some(rate) = window
            .current_monitor()
            .and_then(|m| m.refresh_rate_millihertz())
        {
            self.live
                .set_tick_interval(Duration::from_secs_f64(1000.0 / rate.max(1000) as f64));
        }
        self.gpu = Some(Gpu {
            window,
            presenter,
            compositor,
        });
        Ok(())
    }

    fn resize(&mut self, width: u32, height: u32) {
        let Some(gpu) = &mut self.gpu else { return };
        gpu.presenter
            .resize(gpu.compositor.renderer(), (width, height));
        let (width, height) = gpu.presenter.size();
        self.live.resize(width, height);
    }

    /// Does what only the window can do for a person's input.
    fn fulfil(&mut self, request: Option<Request>) {
        let Some(request) = request else { return };
        match request {
            Request::Fullscreen => {
                if let Some(gpu) = &self.gpu {
                    look::toggle_fullscreen(&gpu.window);
                }
            }
            Request::Screenshot => self.screenshot(),
            Request::ToggleRecording => self.toggle_recording(),
            Request::Report => {
                if let Some(gpu) = &mut self.gpu {
                    self.live.report(&mut gpu.compositor, Path::new(""));
                }
            }
        }
    }

    /// Saves the game's picture, as a recording would take it: the
    /// logical size, no overlay, no letterbox bars.
    fn screenshot(&mut self) {
        let Some(gpu) = &mut self.gpu else { return };
        let engine = self.live.session_mut().engine_mut();
        let (picture, _) = gpu.compositor.picture(engine, None);
        self.screenshots += 1;
        let path = PathBuf::from(format!("moonloop-screenshot-{}.png", self.screenshots));
        match picture.save_png(&path) {
            Ok(()) => tell!("screenshot saved to {}", path.display()),
            Err(e) => tell!("moonloop: cannot save {}: {e}", path.display()),
        }
    }

    fn toggle_recording(&mut self) {
        match self.recorder.take() {
            Some(recorder) => report_recording(recorder),
            None => {
                let path = PathBuf::from(format!(
                    "moonloop-recording-{}.png",
                    self.live.started().elapsed().as_secs()
                ));
                match Recorder::start(&path, false) {
                    Ok(r) => {
                        tell!("recording to {} (F3 stops)", path.display());
                        self.recorder = Some(r);
                    }
                    Err(e) => tell!("moonloop: {}", e.chain()),
                }
            }
        }
    }

    fn frame(&mut self, event_loop: &ActiveEventLoop) {
        if self.closing {
            return;
        }
        let began = Instant::now();
        let shown = self.live.frame(began);
        self.times.frames += 1;
        self.times.game += began.elapsed();
        let Some(gpu) = &mut self.gpu else { return };
        if let Some(look) = &mut self.look {
            let game = self.live.engine().game();
            let (vsync, warning) = look.follow(&gpu.window, game.config(), || game.folder());
            if let Some(warning) = warning {
                tell!("moonloop: {warning}");
            }
            if vsync {
                gpu.presenter
                    .set_present_mode(gpu.compositor.renderer(), look.present_mode());
            }
        }
        let recording = self
            .recorder
            .as_ref()
            .map(|r| (r.path().display().to_string(), r.dropped()));
        let stats = self
            .live
            .stats(began, began.elapsed().as_secs_f64(), recording);
        self.overlay.visible = self.live.dev().overlay;
        let scale = gpu.window.scale_factor() as f32;
        let surface = gpu.presenter.size();
        let panel = self.overlay.draw(&stats, scale);
        let corner = self.live.dev().corner;
        let mut overlay = panel.map(|p| {
            let (x, y) = corner.place((p.width(), p.height()), surface);
            (p, x, y)
        });
        self.panel_at = overlay.as_ref().map(|(_, x, y)| (*x, *y));
        if self.live.colliders_shown() {
            let engine = self.live.engine();
            overlay = view(
                &mut self.view,
                surface,
                engine.viewport(),
                &engine.colliders(),
                overlay,
            );
        } else {
            self.view = None;
        }
        // The recorder takes delivered frames, and the past ones F9 shows:
        // a paused game records nothing.
        let record = self
            .recorder
            .as_mut()
            .filter(|_| shown.delivered || shown.rewound);
        let engine = self.live.session_mut().engine_mut();
        let fault = gpu.presenter.frame(
            &gpu.window,
            &mut gpu.compositor,
            engine,
            (record, overlay),
            &mut self.times,
        );
        if let Some(fault) = fault {
            self.live.fault(&fault);
        }
        self.overlay.sample(
            began
                .elapsed()
                .as_secs_f64()
                .max(self.live.tick_interval().as_secs_f64()),
        );
        if shown.close {
            self.close(event_loop);
        }
    }

    fn close(&mut self, event_loop: &ActiveEventLoop) {
        self.closing = true;
        // The window goes at once; taking the GPU down after it is the
        // process's business (on a software adapter about 70 ms, which a
        // player would otherwise watch as a frozen last frame).
        if let Some(gpu) = &self.gpu {
            gpu.window.set_visible(false);
        }
        event_loop.exit();
    }

    /// Returns the frame of the overlay's timeline under the pointer.
    fn timeline_frame(&self) -> Option<u64> {
        let (px, py) = self.panel_at?;
        let (x, y) = self.cursor;
        self.overlay
            .timeline_frame((x - px as f64) as f32, (y - py as f64) as f32)
    }
}

impl<G: Game> ApplicationHandler for App<G> {
    fn resumed(&mut self, event_loop: &ActiveEventLoop) {
        if self.gpu.is_none()
            && let Err(err) = self.create(event_loop)
        {
            self.fatal = Some(err);
            self.close(event_loop);
        }
    }

    fn window_event(&mut self, event_loop: &ActiveEventLoop, _id: WindowId, event: WindowEvent) {
        match event {
            // Closed politely or destroyed from outside: either way the
            // run ends, and nothing draws to the window again.
            WindowEvent::CloseRequested | WindowEvent::Destroyed => self.close(event_loop),
            WindowEvent::Resized(size) => self.resize(size.width, size.height),
            WindowEvent::Focused(focused) => self.live.focus(focused),
            WindowEvent::KeyboardInput { event, .. } => {
                if let PhysicalKey::Code(code) = event.physical_key
                    && let Some(key) = key_name(code).and_then(Key::from_name)
                {
                    let pressed = event.state == ElementState::Pressed;
                    let request = self.live.key(key, pressed, event.repeat);
                    self.fulfil(request);
                }
                // Typed text comes with the press, repeats included (a held
                // key types again); an input method's composed text comes
                // as a commit instead.
                if event.state == ElementState::Pressed
                    && let Some(text) = &event.text
                {
                    self.live.text(text);
                }
            }
            WindowEvent::Ime(Ime::Commit(text)) => self.live.text(&text),
            WindowEvent::ModifiersChanged(modifiers) => {
                self.live.shift(modifiers.state().shift_key());
            }
            WindowEvent::CursorMoved { position, .. } => {
                self.cursor = (position.x, position.y);
                let timeline = self.timeline_frame();
                self.live.pointer(self.cursor, timeline);
            }
            WindowEvent::CursorLeft { .. } => self.live.input(InputEvent::Leave),
            WindowEvent::MouseInput { state, button, .. } => {
                let name = match button {
                    MouseButton::Left => "mouse_left",
                    MouseButton::Right => "mouse_right",
                    MouseButton::Middle => "mouse_middle",
                    _ => return,
                };
                let key = Key::from_name(name).expect("mouse buttons are keys");
                let timeline = self.timeline_frame();
                self.live
                    .button(key, state == ElementState::Pressed, timeline);
            }
            WindowEvent::MouseWheel { delta, .. } => {
                let (dx, dy) = match delta {
                    MouseScrollDelta::LineDelta(x, y) => (x as f64, y as f64),
                    MouseScrollDelta::PixelDelta(p) => (p.x / 20.0, p.y / 20.0),
                };
                self.live.input(InputEvent::Wheel(dx, dy));
            }
            WindowEvent::RedrawRequested => self.frame(event_loop),
            _ => {}
        }
    }

    fn about_to_wait(&mut self, event_loop: &ActiveEventLoop) {
        if crate::interrupt::requested() {
            return self.close(event_loop);
        }
        let now = Instant::now();
        let input = self.live.session_mut().engine_mut().input_mut();
        self.pads.poll(now, |event| input.push(event));
        let wake = self.live.wake(now);
        if wake.redraw
            && let Some(gpu) = &self.gpu
        {
            gpu.window.request_redraw();
        }
        event_loop.set_control_flow(match wake.until {
            Some(until) => ControlFlow::WaitUntil(until),
            None => ControlFlow::Wait,
        });
    }
}
