//! Tests of `history`.

use super::*;
use crate::input::Key;

type History = super::History<String>;
type Keyframe = super::Keyframe<String>;

fn key(frame: u64, state: &str) -> Keyframe {
    Keyframe {
        frame,
        time: frame as f64,
        last_dt: 1.0,
        input: InputFrame::default(),
        kept: state.into(),
    }
}

fn space() -> InputEvent {
    InputEvent::Press(Key::from_name("space").unwrap())
}

fn run(history: &mut History, frames: std::ops::RangeInclusive<u64>) {
    for f in frames {
        let events = if f % 3 == 0 { vec![space()] } else { vec![] };
        history.record(f, 1.0 / 60.0, events, Hovered::NotAsked, Some(f));
        if history.wants_keyframe(f) {
            history.push_keyframe(key(f, "{}"));
        }
    }
}

// rule: R1
#[test]
fn every_frame_keeps_its_delta_events_and_hash() {
    let mut history = History::new(key(0, "{}"), DEFAULT_CAP, 0);
    run(&mut history, 1..=200);
    assert_eq!(history.frames(), 0..=200);
    assert_eq!(history.entry(9).unwrap().hash, Some(9));
    assert_eq!(history.events(9).count(), 1, "frame 9 pressed space");
    assert_eq!(history.events(10).count(), 0);
    assert_eq!(history.keyframe_before(130).unwrap().frame, 120);
    assert_eq!(
        history.keyframe_frames().collect::<Vec<_>>(),
        [0, 60, 120, 180]
    );
}

// rule: R2
#[test]
fn recording_an_old_frame_again_forks() {
    let mut history = History::new(key(0, "{}"), DEFAULT_CAP, 0);
    run(&mut history, 1..=200);
    history.record(
        100,
        0.5,
        [space(), space()],
        Hovered::Object("tile"),
        Some(7),
    );
    assert_eq!(history.last(), 100, "the old frames 100 to 200 are gone");
    assert_eq!(history.keyframe_frames().collect::<Vec<_>>(), [0, 60]);
    assert_eq!(history.entry(100).unwrap().dt, 0.5);
    assert_eq!(history.events(100).count(), 2);
    assert_eq!(history.events(99).count(), 1, "frame 99 keeps its press");
    assert_eq!(history.hovered(100), Hovered::Object("tile"));
    assert_eq!(history.hovered(99), Hovered::NotAsked);
}

// rule: R3
#[test]
fn a_tail_taken_out_and_put_back_leaves_history_as_it_was() {
    let mut history = History::new(key(0, "{}"), DEFAULT_CAP, 0);
    run(&mut history, 1..=100);
    history.enter(101, 1, true);
    run(&mut history, 101..=200);
    let frames = |h: &History| {
        (0..=200)
            .map(|f| (h.entry(f).copied(), h.events(f).count(), h.span(f)))
            .collect::<Vec<_>>()
    };
    let (before, keys, bytes) = (
        frames(&history),
        history.keyframe_frames().collect::<Vec<_>>(),
        history.bytes(),
    );
    let tail = history.split_off_after(50);
    assert_eq!(history.last(), 50);
    assert_eq!(tail.frames(), 51..=200);
    assert_eq!(tail.frame(60).unwrap().1.len(), 1, "frame 60 pressed space");
    assert_eq!(tail.frame(101).unwrap().0.hash, Some(101));
    // What replaced it is dropped when it is put back.
    history.enter(51, 2, false);
    run(&mut history, 51..=130);
    history.put_back(tail);
    assert_eq!(frames(&history), before);
    assert_eq!(history.keyframe_frames().collect::<Vec<_>>(), keys);
    assert_eq!(history.bytes(), bytes);
    assert_eq!(history.span(150).generation, 1);
}

// rule: R1
#[test]
fn frames_of_code_no_longer_held_are_forgotten_from_the_oldest() {
    let mut history = History::new(key(0, "{}"), DEFAULT_CAP, 0);
    run(&mut history, 1..=130);
    // A reload at frame 130 keeps that frame whole first.
    history.push_keyframe(key(130, "{}"));
    history.enter(131, 1, false);
    run(&mut history, 131..=200);
    history.forget_generations_before(1);
    assert_eq!(*history.frames().start(), 130);
    assert_eq!(history.span(131).generation, 1);
}

// rule: R1
#[test]
fn keyframes_that_cost_much_of_the_frames_time_are_spaced_out() {
    use std::time::Duration;
    let mut history = History::new(key(0, "{}"), DEFAULT_CAP, 0);
    let ms = Duration::from_millis;
    history.keyframe_took(ms(1), ms(1000));
    assert_eq!(
        history.keyframe_every(),
        KEY_EVERY,
        "0.1%: as often as ever"
    );
    history.keyframe_took(ms(30), ms(1000));
    assert_eq!(history.keyframe_every(), 2 * KEY_EVERY, "3%: half as often");
    for _ in 0..20 {
        history.keyframe_took(ms(500), ms(1000));
    }
    assert_eq!(
        history.keyframe_every(),
        KEY_EVERY_MAX,
        "never past the most"
    );
    assert!(!history.wants_keyframe(KEY_EVERY_MAX - 1));
    assert!(history.wants_keyframe(KEY_EVERY_MAX));
    history.keyframe_took(ms(1), ms(1000));
    assert_eq!(
        history.keyframe_every(),
        KEY_EVERY_MAX / 2,
        "cheap again: twice as often"
    );
}

// rule: R1
#[test]
fn hover_names_are_bounded() {
    let mut history = History::new(key(0, "{}"), DEFAULT_CAP, 0);
    for f in 1..=MAX_NAMES as u64 {
        let name = format!("tile{f}");
        assert!(history.record(f, 0.1, [], Hovered::Object(&name), None));
    }
    let f = MAX_NAMES as u64 + 1;
    assert!(!history.record(f, 0.1, [], Hovered::Object("one too many"), None));
    assert!(
        history.record(f + 1, 0.1, [], Hovered::Object("tile7"), None),
        "a name kept before still is"
    );
    assert_eq!(history.hovered(f + 1), Hovered::Object("tile7"));
}

// rule: R1
#[test]
fn the_cap_drops_the_oldest_keyframe_first() {
    let big = "x".repeat(10_000);
    let mut history = History::new(key(0, &big), 50_000, 0);
    for f in 1..=1_000_000 {
        history.record(f, 1.0 / 60.0, [space()], Hovered::Nothing, None);
        if history.wants_keyframe(f) {
            history.push_keyframe(key(f, &big));
        }
        assert!(history.bytes() <= 50_000 + 10_000 + size_of::<Keyframe>());
    }
    assert_eq!(history.last(), 1_000_000);
    let oldest = *history.frames().start();
    assert!(oldest > 999_000, "only the newest frames stay: {oldest}");
    assert_eq!(history.events(oldest + 1).count(), 1);
    assert_eq!(history.events(oldest).count(), 0, "before the window");
}

/// A kept state that holds more than its text: worlds kept beside it.
#[derive(Debug, Clone)]
struct Beside {
    state: String,
    worlds: usize,
}

impl Keep for Beside {
    fn bytes(&self) -> usize {
        self.state.len() + self.worlds
    }
}

// rule: R1
#[test]
fn what_a_keyframe_holds_is_counted_out_as_it_was_counted_in() {
    let key = |frame: u64| super::Keyframe {
        frame,
        time: frame as f64,
        last_dt: 1.0,
        input: InputFrame::default(),
        kept: Beside {
            state: "{}".into(),
            worlds: 100_000,
        },
    };
    let mut history = super::History::new(key(0), usize::MAX, 0);
    let empty = history.bytes();
    for f in 1..=600 {
        history.record(f, 1.0 / 60.0, [], Hovered::NotAsked, None);
        if history.wants_keyframe(f) {
            history.push_keyframe(key(f));
        }
    }
    // A fork drops the keyframes after frame 0, and a tail taken out and
    // put back leaves the count where it was: every byte counted in when
    // a keyframe came is counted out when it goes, worlds included.
    let tail = history.split_off_after(100);
    history.put_back(tail);
    history.truncate_after(0);
    assert_eq!(history.bytes(), empty);
}
