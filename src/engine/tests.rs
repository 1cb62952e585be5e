//! The engine stepped from Rust, with no Luau: counters, declined ticks,
//! errors, pauses and cues, frame by frame.

use super::*;
use crate::clock::{ConstantClock, ListClock};
use crate::input::{Binding, InputEvent, Key};

/// A game in plain Rust: counts what it saw.
#[derive(Default)]
struct Probe {
    updates: Vec<(u64, f64)>,
    renders: u64,
    space_pressed: Vec<u64>,
    fail_update_on: Option<u64>,
}

impl Game for Probe {
    fn update(&mut self, ctx: UpdateCtx<'_>, dt: f64) -> Result {
        if self.fail_update_on == Some(ctx.frame) {
            return Err(Error::script("boom"));
        }
        self.updates.push((ctx.frame, dt));
        let space = Binding::Key(Key::from_name("space").unwrap());
        if ctx.input.pressed(space) {
            self.space_pressed.push(ctx.frame);
        }
        if ctx.frame.is_multiple_of(2) {
            ctx.cues.play(ctx.frame, "even", 1.0, 1.0, 0.0).unwrap();
        }
        Ok(())
    }

    fn render(&mut self, _ctx: RenderCtx<'_>) -> Result {
        self.renders += 1;
        Ok(())
    }
}

impl Past for Probe {}

impl Reload for Probe {}

fn clock(deltas: &[Option<f64>]) -> Box<dyn Clock> {
    // A clock that follows a list of answers, None declining.
    struct Answers(Vec<Option<f64>>, usize);
    impl Clock for Answers {
        fn tick(&mut self, _now: Instant) -> Option<f64> {
            self.1 += 1;
            self.0[(self.1 - 1) % self.0.len()]
        }
    }
    Box::new(Answers(deltas.to_vec(), 0))
}

#[test]
fn delivered_frames_advance_counter_time_and_delta() {
    let mut engine = Engine::new(
        Probe::default(),
        Box::new(ListClock::repeating(vec![0.5, 0.25])),
    );
    engine.advance(3).unwrap();
    assert_eq!(engine.frame(), 3, "three delivered frames");
    assert_eq!(engine.time(), 1.25, "simulated time is the sum of deltas");
    assert_eq!(engine.last_dt(), 0.5);
    assert_eq!(engine.game().updates, [(1, 0.5), (2, 0.25), (3, 0.5)]);
    assert_eq!(
        engine.game().renders,
        3,
        "render runs once per delivered frame"
    );
}

#[test]
fn declined_tick_changes_nothing() {
    let mut engine = Engine::new(Probe::default(), clock(&[Some(0.1), None, None, Some(0.1)]));
    let now = Instant::now();
    engine
        .input_mut()
        .push(InputEvent::Tap(Key::from_name("space").unwrap()));
    // tick 1: delivered, sees the press.
    assert_eq!(engine.tick(now), Tick::Delivered);
    engine
        .input_mut()
        .push(InputEvent::Press(Key::from_name("space").unwrap()));
    // ticks 2 and 3: declined; nothing advances and the queued input waits.
    assert_eq!(engine.tick(now), Tick::Declined);
    assert_eq!(engine.tick(now), Tick::Declined);
    assert_eq!(
        (engine.frame(), engine.time()),
        (1, 0.1),
        "a declined tick changes nothing"
    );
    assert_eq!(engine.game().renders, 1, "no render on a declined tick");
    // tick 4: delivered; the tap's release and the new press apply now.
    assert_eq!(engine.tick(now), Tick::Delivered);
    assert_eq!(
        engine.game().space_pressed,
        [1, 2],
        "each edge seen by exactly one delivered frame"
    );
}

// rule: S4
#[test]
fn advance_raises_the_first_error_and_render_still_runs() {
    let probe = Probe {
        fail_update_on: Some(2),
        ..Default::default()
    };
    let mut engine = Engine::new(probe, Box::new(ConstantClock::new(0.1)));
    let err = engine.advance(5).unwrap_err();
    assert_eq!(err.to_string(), "boom");
    assert_eq!(engine.frame(), 2, "the advance stops at the failing frame");
    assert_eq!(engine.game().renders, 2, "render ran on the failing frame");
}

#[test]
fn pause_declines_and_resume_restarts_the_clock() {
    let mut engine = Engine::new(Probe::default(), Box::new(ConstantClock::new(0.1)));
    engine.pause();
    assert_eq!(engine.tick(Instant::now()), Tick::Declined);
    engine.resume();
    assert_eq!(engine.tick(Instant::now()), Tick::Delivered);
}

// rule: H7
#[test]
fn cues_are_logged_by_frame() {
    let mut engine = Engine::new(Probe::default(), Box::new(ConstantClock::new(0.1)));
    engine.advance(4).unwrap();
    let frames: Vec<u64> = engine.cues().cues().iter().map(|c| c.frame).collect();
    assert_eq!(frames, [2, 4]);
}
