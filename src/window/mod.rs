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
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use winit::application::ApplicationHandler;
use winit::dpi::PhysicalPosition;
use winit::event::{ElementState, Ime, MouseButton, MouseScrollDelta, WindowEvent};
use winit::event_loop::{ActiveEventLoop, ControlFlow, EventLoop};
use winit::keyboard::{KeyCode, PhysicalKey};
use winit::window::{Window, WindowId};

use crate::compositor::{Compositor, Steps};
use crate::devkeys::{Act, DevControls};
use crate::engine::{Engine, Game};
use crate::error::{Error, Result};
use crate::headless;
use crate::input::{InputEvent, Key};
use crate::overlay::{Overlay, Stats};
use crate::record::Recorder;
use crate::reload::Watcher;
use crate::render::Renderer;
use crate::session::Session;
use crate::sound::{Bank, Player};
use crate::tally::ErrorTally;

mod keys;
mod look;
pub mod padmap;
pub mod pads;

use keys::{dev_key, key_name};
pub use look::Choice;
use look::Look;
use pads::Pads;

/// The longest F12 runs the past again before it stops, changing nothing:
/// a window that froze for a minute on a looping game was no answer.
const RERUN_LIMIT: std::time::Duration = std::time::Duration::from_secs(10);

/// How a windowed run behaves.
#[derive(Debug, Default)]
pub struct Options {
    /// Record from the start to this path.
    pub record: Option<PathBuf>,
    /// Reload files as they change.
    pub watcher: Option<Watcher>,
    /// Close after this many delivered frames.
    pub frames: Option<u64>,
    /// The ALSA device to play cues on; "off" plays none, and empty (the
    /// default) is ALSA's `default`.
    pub audio: String,
    /// Opens paused (F5 plays on).
    pub paused: bool,
    /// What the run started from, for a bug report (Shift+F2).
    pub origin: crate::report::Origin,
    /// The player's fullscreen and window scale.
    pub look: Choice,
}

struct Gpu {
    window: Arc<Window>,
    surface: wgpu::Surface<'static>,
    config: wgpu::SurfaceConfiguration,
    compositor: Compositor,
}

struct App<G: Game> {
    /// The game and what lives around it: the one place frames are
    /// driven from (the window only feeds it events and presents).
    session: Session<G>,
    options: Options,
    instance: wgpu::Instance,
    gpu: Option<Gpu>,
    overlay: Overlay,
    dev: DevControls,
    recorder: Option<Recorder>,
    started: Instant,
    next_tick: Instant,
    tick_interval: Duration,
    /// F6 asked for one frame.
    step: bool,
    screenshots: u32,
    last_error: Option<String>,
    fatal: Option<Error>,
    start_frame: u64,
    /// What the window shows of the config, to follow it after a reload;
    /// set when the window opens.
    look: Option<Look>,
    /// The gamepads, looked for once a second.
    pads: Pads,
    /// The first frame the last run from the past changed (F12, R3).
    changed_at: Option<u64>,
    /// The timeline is being dragged with the mouse.
    scrubbing: bool,
    /// Whether a Shift key is held.
    shift: bool,
    /// Bug reports written.
    reports: u32,
    /// When F9 held goes back the next frame.
    /// When F9 held began going back, and how many frames it has gone:
    /// it goes back at 60 frames a second of wall time, whatever the
    /// window's own frame rate (at 45 it went 45).
    rewind: Option<(Instant, u64)>,
    /// Where the overlay panel was last drawn, in surface pixels.
    panel_at: Option<(i32, i32)>,
    /// The pointer, in surface pixels.
    cursor: (f64, f64),
    closing: bool,
}

/// Opens the game's window and runs it until it is closed.
///
/// # Errors
/// There is no display (the message suggests `--headless`), or no
/// graphics adapter can draw to the window.
pub fn run<G: Game>(engine: Engine<G>, options: Options) -> Result<(Engine<G>, ErrorTally)> {
    check_display()?;
    crate::interrupt::install();
    let event_loop = EventLoop::new()?;
    let recorder = match &options.record {
        Some(path) => Some(Recorder::start(path, false)?),
        None => None,
    };
    let start_frame = engine.frame();
    let mut dev = DevControls::new(engine.config().dev_controls);
    let mut engine = engine;
    if options.paused {
        dev.start_paused();
        engine.pause();
    }
    let sound = Player::for_device(&options.audio, Bank::new(engine.config().sounds.clone()))
        .map_err(crate::Error::Usage)?;
    let mut options = options;
    let session = Session::new(engine)
        .watch(options.watcher.take())
        .sound(Some(sound));
    let mut app = App {
        session,
        options,
        instance: wgpu::Instance::new(wgpu::InstanceDescriptor::new_with_display_handle_from_env(
            Box::new(event_loop.owned_display_handle()),
        )),
        gpu: None,
        overlay: Overlay::default(),
        dev,
        recorder,
        started: Instant::now(),
        next_tick: Instant::now(),
        tick_interval: headless::WALL_TICK,
        step: false,
        screenshots: 0,
        last_error: None,
        fatal: None,
        start_frame,
        look: None,
        pads: Pads::new(),
        changed_at: None,
        scrubbing: false,
        panel_at: None,
        rewind: None,
        shift: false,
        reports: 0,
        cursor: (0.0, 0.0),
        closing: false,
    };
    event_loop.run_app(&mut app)?;
    // The window and its surface go before the recording is finished.
    app.gpu = None;
    if let Some(err) = app.fatal.take() {
        return Err(err);
    }
    if let Some(recorder) = app.recorder.take() {
        report_recording(recorder);
    }
    app.session.finish()
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
        return Err(Error::Usage(
            "there is no display to open a window on (DISPLAY and WAYLAND_DISPLAY are unset); add --headless".into(),
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
        let root = self.session.engine().game().folder();
        let (look, attributes, warning) = Look::open(
            self.session.engine().config(),
            root.as_deref(),
            &self.options.look,
        );
        if let Some(warning) = warning {
            tell!("moonloop: {warning}");
        }
        let window = Arc::new(event_loop.create_window(attributes)?);
        look.show_cursor(&window);
        // Composed text (accents, CJK input methods) arrives as Ime::Commit.
        window.set_ime_allowed(true);
        let surface = self.instance.create_surface(window.clone())?;
        let (renderer, adapter) = Renderer::for_surface(&self.instance, &surface)?;
        let size = window.inner_size();
        let max = renderer.max_side();
        let mut surface_config = surface
            .get_default_config(
                &adapter,
                size.width.clamp(1, max),
                size.height.clamp(1, max),
            )
            .ok_or_else(|| {
                Error::Usage(format!(
                    "the adapter {} cannot draw to this window",
                    renderer.adapter()
                ))
            })?;
        surface_config.present_mode = look.present_mode();
        self.look = Some(look);
        surface.configure(renderer.device(), &surface_config);
        self.session
            .engine_mut()
            .set_surface(surface_config.width, surface_config.height);
        if let Some(rate) = window
            .current_monitor()
            .and_then(|m| m.refresh_rate_millihertz())
        {
            self.tick_interval = Duration::from_secs_f64(1000.0 / rate.max(1000) as f64);
        }
        self.gpu = Some(Gpu {
            window,
            surface,
            config: surface_config,
            compositor: Compositor::new(renderer),
        });
        Ok(())
    }

    fn resize(&mut self, width: u32, height: u32) {
        let Some(gpu) = &mut self.gpu else { return };
        let max = gpu.compositor.renderer().max_side();
        gpu.config.width = width.clamp(1, max);
        gpu.config.height = height.clamp(1, max);
        gpu.surface
            .configure(gpu.compositor.renderer().device(), &gpu.config);
        self.session
            .engine_mut()
            .set_surface(gpu.config.width, gpu.config.height);
        gpu.window.request_redraw();
    }

    fn apply(&mut self, act: Act) {
        match act {
            Act::Redraw => {}
            Act::Screenshot => self.screenshot(),
            Act::ToggleRecording => self.toggle_recording(),
            Act::Pause => self.session.engine_mut().pause(),
            Act::Resume => self.session.engine_mut().resume(),
            Act::Step => {
                // Back in history, F6 steps forward through what was
                // recorded, keeping the future; past its end, it runs a
                // new frame live.
                let ahead = self
                    .session
                    .engine()
                    .history()
                    .is_some_and(|h| self.session.engine().frame() < h.last());
                if ahead {
                    let next = self.session.engine().frame() + 1;
                    self.show(next);
                } else {
                    self.step = true;
                }
            }
            Act::Scale(scale) => self.session.engine_mut().set_time_scale(scale),
            Act::Rewind(true) => self.session.engine_mut().pause(),
            Act::Rewind(false) => {
                if !self.dev.paused() {
                    self.session.engine_mut().resume();
                }
            }
            Act::StepBack => self.go_back(1),
            Act::RunAgain => self.run_again(),
        }
        if let Some(gpu) = &self.gpu {
            gpu.window.request_redraw();
        }
    }

    fn key(&mut self, code: KeyCode, pressed: bool, repeat: bool) {
        // F11 is the player's, whatever the game's dev controls say.
        if code == KeyCode::F11 {
            if pressed
                && !repeat
                && let Some(gpu) = &self.gpu
            {
                look::toggle_fullscreen(&gpu.window);
            }
            return;
        }
        if code == KeyCode::F2 && self.shift && self.dev.enabled {
            if pressed && !repeat {
                self.report();
            }
            return;
        }
        if let Some(dev) = dev_key(code)
            && self.dev.enabled
        {
            if pressed
                && !repeat
                && let Some(act) = self.dev.key(dev)
            {
                self.apply(act);
            }
            if !pressed && let Some(act) = self.dev.release(dev) {
                self.apply(act);
            }
            return;
        }
        if repeat {
            return;
        }
        if let Some(key) = key_name(code).and_then(Key::from_name) {
            let event = if pressed {
                InputEvent::Press(key)
            } else {
                InputEvent::Release(key)
            };
            self.session.engine_mut().input_mut().push(event);
        }
    }

    /// Shows the frame `frames` before the one shown, drawn by the current
    /// `render` (R2); at the start of history it stays there.
    fn go_back(&mut self, frames: u64) {
        if self.session.engine().history().is_none() {
            return;
        }
        let oldest = self
            .session
            .engine()
            .history()
            .map_or(0, |h| *h.frames().start());
        let target = self
            .session
            .engine()
            .frame()
            .saturating_sub(frames)
            .max(oldest);
        self.show(target);
    }

    /// Shows frame `frame` of history.
    fn show(&mut self, frame: u64) {
        match self.session.engine_mut().show(frame) {
            Ok(()) => self.session.engine_mut().render_again(),
            Err(err) => self.last_error = Some(crate::terminal::line(&err.to_string())),
        }
        if let Some(gpu) = &self.gpu {
            gpu.window.request_redraw();
        }
    }

    /// Runs the recorded frames again from the keyframe at or before the
    /// frame shown, with the code as it is now, and marks the first frame
    /// whose state differs from the old run's (R3).
    fn run_again(&mut self) {
        let Some(history) = self.session.engine().history() else {
            return;
        };
        let from = history
            .keyframe_frames()
            .filter(|&k| k <= self.session.engine().frame())
            .last()
            .unwrap_or(0);
        let last = history.last();
        // The person who pressed F12 waits for it: it runs at most so long.
        let until = std::time::Instant::now() + RERUN_LIMIT;
        self.session
            .engine_mut()
            .set_resimulation_limit(Some(Box::new(move || {
                (std::time::Instant::now() > until).then(|| {
                format!(
                    "F12 ran the past again for {} s and stopped (a frame that takes long, or a \
                     loop that never ends?); nothing changed",
                    RERUN_LIMIT.as_secs()
                )
            })
            })));
        let rerun = self.session.engine_mut().reload_from(&[], from);
        self.session.engine_mut().set_resimulation_limit(None);
        match rerun {
            Ok((_, changed)) => {
                self.changed_at = changed;
                match changed {
                    Some(frame) => tell!(
                        "ran frames {} to {last} again: the state first differs at frame {frame}",
                        from + 1
                    ),
                    None => tell!(
                        "ran frames {} to {last} again: no frame's state differs",
                        from + 1
                    ),
                }
                self.session.engine_mut().render_again();
            }
            Err(err) => {
                let line = crate::terminal::line(&err.to_string());
                tell!("moonloop: {line}");
                self.last_error = Some(line);
            }
        }
    }

    /// Writes a bug report folder (Shift+F2): the replay of the session,
    /// its files' hashes and a GIF of the last ten seconds.
    fn report(&mut self) {
        let Some(gpu) = &mut self.gpu else { return };
        self.reports += 1;
        let dir = PathBuf::from(format!(
            "moonloop-report-{}-{}",
            self.started.elapsed().as_secs(),
            self.reports
        ));
        tell!("writing a bug report to {}", dir.display());
        match crate::report::write(
            self.session.engine_mut(),
            &mut gpu.compositor,
            &dir,
            &self.options.origin,
        ) {
            Ok(w) => tell!(
                "wrote {}: {} frames of replay, {} of GIF (open it with moonloop run GAME --replay {}/replay.txt --until N)",
                w.dir.display(),
                w.frames,
                w.gif_frames,
                w.dir.display()
            ),
            Err(err) => {
                let line = crate::terminal::line(&err.chain());
                tell!("moonloop: no bug report: {line}");
                self.last_error = Some(line);
            }
        }
    }

    /// Queues typed text for the next frame's `input:text()`.
    fn type_text(&mut self, text: &str) {
        for piece in crate::input::TextPiece::split(text) {
            self.session
                .engine_mut()
                .input_mut()
                .push(InputEvent::Text(piece));
        }
    }

    /// Saves the game's picture, as a recording would take it: the
    /// logical size, no overlay, no letterbox bars.
    fn screenshot(&mut self) {
        let Some(gpu) = &mut self.gpu else { return };
        let (picture, _) = gpu.compositor.picture(self.session.engine_mut(), None);
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
                    self.started.elapsed().as_secs()
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
        let mut rewound = false;
        if self.dev.rewinding {
            let (since, gone) = *self.rewind.get_or_insert((began, 0));
            let due = ((began - since).as_secs_f64() / crate::engine::STEP_DELTA) as u64 + 1;
            if due > gone {
                self.go_back(due - gone);
                self.rewind = Some((since, due));
                rewound = true;
            }
        } else {
            self.rewind = None;
        }
        let turn = self.session.tick(began, std::mem::take(&mut self.step));
        let delivered = turn.delivered;
        if delivered {
            // A frame that ran cleanly clears the overlay's last error.
            self.last_error = turn.trouble;
        }
        let Some(gpu) = &mut self.gpu else { return };
        if let Some(look) = &mut self.look {
            let game = self.session.engine().game();
            let (vsync, warning) = look.follow(&gpu.window, game.config(), || game.folder());
            if let Some(warning) = warning {
                tell!("moonloop: {warning}");
            }
            if vsync {
                gpu.config.present_mode = look.present_mode();
                gpu.surface
                    .configure(gpu.compositor.renderer().device(), &gpu.config);
            }
        }
        let stats = Stats {
            frame_secs: began.elapsed().as_secs_f64(),
            dt: self.session.engine().last_dt(),
            frame: self.session.engine().frame(),
            simulated: self.session.engine().time(),
            wall: self.started.elapsed().as_secs_f64(),
            recording: self
                .recorder
                .as_ref()
                .map(|r| (r.path().display().to_string(), r.dropped())),
            speed: self.dev.status(),
            sound: self.dev.overlay.then(|| {
                self.session
                    .player()
                    .map(Player::status)
                    .unwrap_or_default()
            }),
            error: self
                .session
                .engine()
                .reload_error()
                .map(str::to_string)
                .or_else(|| self.last_error.clone()),
            timeline: self
                .session
                .engine()
                .history()
                .map(|h| crate::overlay::Timeline {
                    first: *h.frames().start(),
                    last: h.last(),
                    shown: self.session.engine().frame(),
                    changed: self.changed_at,
                }),
        };
        self.overlay.visible = self.dev.overlay;
        let scale = gpu.window.scale_factor() as f32;
        let surface = (gpu.config.width, gpu.config.height);
        let panel = self.overlay.draw(&stats, scale);
        let overlay = panel.map(|p| {
            let (x, y) = self.dev.corner.place((p.width(), p.height()), surface);
            (p, x, y)
        });
        self.panel_at = overlay.as_ref().map(|(_, x, y)| (*x, *y));
        let texture = match gpu.surface.get_current_texture() {
            wgpu::CurrentSurfaceTexture::Success(texture)
            | wgpu::CurrentSurfaceTexture::Suboptimal(texture) => Some(texture),
            _ => {
                gpu.surface
                    .configure(gpu.compositor.renderer().device(), &gpu.config);
                None
            }
        };
        let view = texture
            .as_ref()
            .map(|t| t.texture.create_view(&Default::default()));
        let steps = Steps {
            // The recorder takes delivered frames, and the past ones F9
            // shows: a paused game records nothing.
            record: self.recorder.as_mut().filter(|_| delivered || rewound),
            overlay,
            present: view.as_ref().map(|v| (v, gpu.config.format)),
        };
        if let Some(fault) = gpu.compositor.frame(self.session.engine_mut(), steps) {
            self.last_error = Some(self.session.report(&fault));
        }
        if let Some(texture) = texture {
            gpu.window.pre_present_notify();
            gpu.compositor.show(texture);
        }
        self.overlay.sample(
            began
                .elapsed()
                .as_secs_f64()
                .max(self.tick_interval.as_secs_f64()),
        );
        let quit = self.session.engine().game().wants_to_quit();
        if quit
            || self
                .options
                .frames
                .is_some_and(|n| self.session.engine().frame() - self.start_frame >= n)
        {
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
            WindowEvent::Focused(focused) => {
                let act = self
                    .dev
                    .focus(focused, self.session.engine().config().pause_on_blur);
                // Pausing and resuming restarts the clock: the first delta
                // after focus returns is 0 (K1).
                self.apply(act);
            }
            WindowEvent::KeyboardInput { event, .. } => {
                if let PhysicalKey::Code(code) = event.physical_key {
                    self.key(code, event.state == ElementState::Pressed, event.repeat);
                }
                // Typed text comes with the press, repeats included (a held
                // key types again); an input method's composed text comes
                // as a commit instead.
                if event.state == ElementState::Pressed
                    && let Some(text) = &event.text
                {
                    self.type_text(text);
                }
            }
            WindowEvent::Ime(Ime::Commit(text)) => self.type_text(&text),
            WindowEvent::ModifiersChanged(modifiers) => self.shift = modifiers.state().shift_key(),
            WindowEvent::CursorMoved { position, .. } => {
                self.cursor = (position.x, position.y);
                if self.scrubbing {
                    if let Some(frame) = self.timeline_frame() {
                        self.show(frame);
                    }
                } else {
                    self.pointer(position);
                }
            }
            WindowEvent::CursorLeft { .. } => self
                .session
                .engine_mut()
                .input_mut()
                .push(InputEvent::Leave),
            WindowEvent::MouseInput { state, button, .. } => {
                let name = match button {
                    MouseButton::Left => "mouse_left",
                    MouseButton::Right => "mouse_right",
                    MouseButton::Middle => "mouse_middle",
                    _ => return,
                };
                if self.scrub(name, state == ElementState::Pressed) {
                    return;
                }
                let key = Key::from_name(name).expect("mouse buttons are keys");
                let event = if state == ElementState::Pressed {
                    InputEvent::Press(key)
                } else {
                    InputEvent::Release(key)
                };
                self.session.engine_mut().input_mut().push(event);
            }
            WindowEvent::MouseWheel { delta, .. } => {
                let (dx, dy) = match delta {
                    MouseScrollDelta::LineDelta(x, y) => (x as f64, y as f64),
                    MouseScrollDelta::PixelDelta(p) => (p.x / 20.0, p.y / 20.0),
                };
                self.session
                    .engine_mut()
                    .input_mut()
                    .push(InputEvent::Wheel(dx, dy));
            }
            WindowEvent::RedrawRequested => self.frame(event_loop),
            _ => {}
        }
    }

    fn about_to_wait(&mut self, event_loop: &ActiveEventLoop) {
        if crate::interrupt::requested() {
            return self.close(event_loop);
        }
        if let Some(reloaded) = self.session.look_for_edits() {
            match reloaded {
                // The developer keys follow the config, as all else does.
                Ok(_) => self.dev.enabled = self.session.engine().config().dev_controls,
                Err(line) => self.last_error = Some(line),
            }
            if let Some(gpu) = &self.gpu {
                gpu.window.request_redraw();
            }
        }
        let now = Instant::now();
        let input = self.session.engine_mut().input_mut();
        self.pads.poll(now, |event| input.push(event));
        // A paused game waits for events (a key, a resize, an edit): it
        // has nothing to draw until one comes.
        if self.session.engine().is_paused() && !self.step && !self.dev.rewinding {
            let flow = if self.session.is_watching() {
                ControlFlow::WaitUntil(now + Duration::from_millis(50))
            } else {
                ControlFlow::Wait
            };
            return event_loop.set_control_flow(flow);
        }
        let due = self.session.engine().next_due().unwrap_or(self.next_tick);
        if now >= due || self.step {
            self.next_tick = (self.next_tick + self.tick_interval).max(now);
            if let Some(gpu) = &self.gpu {
                gpu.window.request_redraw();
            }
        }
        let wake = self
            .session
            .engine()
            .next_due()
            .unwrap_or(self.next_tick)
            .max(now + Duration::from_micros(500));
        // Wake early enough to reload an edit promptly, and to see a
        // Ctrl+C.
        let wake = if self.session.is_watching() {
            wake.min(now + Duration::from_millis(4))
        } else {
            wake.min(now + Duration::from_millis(100))
        };
        event_loop.set_control_flow(ControlFlow::WaitUntil(wake));
    }
}

impl<G: Game> App<G> {
    /// Returns the frame of the overlay's timeline under the pointer.
    fn timeline_frame(&self) -> Option<u64> {
        let (px, py) = self.panel_at?;
        let (x, y) = self.cursor;
        self.overlay
            .timeline_frame((x - px as f64) as f32, (y - py as f64) as f32)
    }

    /// Takes a left button on the overlay's timeline: pressed, it pauses
    /// and shows the frame under the pointer, and dragging scrubs;
    /// released, the game plays on from there unless F5 paused it (R2).
    /// Returns whether the button was the timeline's, not the game's.
    fn scrub(&mut self, button: &str, pressed: bool) -> bool {
        if button != "mouse_left" {
            return false;
        }
        if pressed {
            let Some(frame) = self.timeline_frame() else {
                return false;
            };
            self.scrubbing = true;
            self.session.engine_mut().pause();
            self.show(frame);
            return true;
        }
        if !std::mem::take(&mut self.scrubbing) {
            return false;
        }
        if !self.dev.paused() {
            self.session.engine_mut().resume();
        }
        true
    }

    fn pointer(&mut self, position: PhysicalPosition<f64>) {
        let event = match self
            .session
            .engine()
            .viewport()
            .to_logical((position.x, position.y))
        {
            Some((x, y)) => InputEvent::Move(x, y),
            None => InputEvent::Leave,
        };
        self.session.engine_mut().input_mut().push(event);
    }
}
