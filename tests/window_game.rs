//! A window for a game written in Rust (rule H1): the window takes any
//! `Game`, its config included. Its own test binary, without the test
//! harness, because winit opens windows from the main thread only.

mod common;

use moonloop::Config;
use moonloop::ConstantClock;
use moonloop::Style;
use moonloop::{Engine, Game, RenderCtx, UpdateCtx};

struct Squares {
    config: Config,
    updates: u64,
    renders: u64,
}

impl Game for Squares {
    fn update(&mut self, _ctx: UpdateCtx<'_>, _dt: f64) -> moonloop::Result {
        self.updates += 1;
        Ok(())
    }

    fn render(&mut self, ctx: RenderCtx<'_>) -> moonloop::Result {
        self.renders += 1;
        let style = Style {
            fill: Some(moonloop::Fill::Solid(moonloop::Rgba::WHITE)),
            ..Style::default()
        };
        ctx.screen
            .rect(10.0, 10.0, 40.0, 40.0, 0.0, style)
            .map_err(|r| moonloop::Error::script(String::from(r)))
    }

    fn config(&self) -> &Config {
        &self.config
    }
}

impl moonloop::Past for Squares {}

impl moonloop::Reload for Squares {}

fn main() {
    let x = common::Xvfb::start();
    // SAFETY: set before any other thread of this process starts.
    unsafe {
        std::env::set_var("DISPLAY", &x.display);
        std::env::remove_var("WAYLAND_DISPLAY");
    }
    let game = Squares {
        config: Config {
            title: "squares in rust".into(),
            width: 160,
            height: 120,
            ..Config::default()
        },
        updates: 0,
        renders: 0,
    };
    let engine = Engine::new(game, Box::new(ConstantClock::new(1.0 / 60.0)));
    let options = moonloop::WindowOptions {
        frames: Some(10),
        audio: "off".into(),
        ..Default::default()
    };
    let (engine, tally) = moonloop::run_window(engine, options)
        .and_then(moonloop::session::Session::finish)
        .expect("the window runs");
    assert!(tally.is_empty(), "{:?}", tally.entries);
    assert_eq!(engine.frame(), 10, "ten frames were delivered");
    assert_eq!(engine.game().updates, 10);
    assert!(engine.game().renders >= 10);
    println!("test a_window_runs_a_game_written_in_rust ... ok");
}
