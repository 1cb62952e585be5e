//! The window's behaviour without a window: a live session driven by
//! made-up keys, focus, sizes, pointer moves and time, as the window
//! drives it (rules H1, H5, H6, H8, R2-R4). The clock is scripted; the
//! times handed in stand for the window's wall clock, which only F9's
//! pace and the wake-ups read.

mod common;

use std::time::{Duration, Instant};

use common::game;
use moonloop::live::{Live, Request, Seek};
use moonloop::lua::Predicate;
use moonloop::reload::Watcher;
use moonloop::session::Session;
use moonloop::{Key, LuaGame};

/// Counts frames, records the last key the game saw and where the
/// pointer was; quits when `q` is pressed.
const COUNTER: &str = r#"
return {
    config = { width = 100, height = 100 },
    init = function() return { n = 0, keys = "", x = -1, y = -1 } end,
    update = function(state, input, dt)
        local keys = state.keys
        for _, name in { "space", "f5", "f9" } do
            if input:pressed(name) then
                keys ..= name .. " "
            end
        end
        if input:pressed("q") then
            input:quit()
        end
        local x, y = input:pointer()
        return { n = state.n + 1, keys = keys, x = x or -1, y = y or -1 }
    end,
}
"#;

fn key(name: &str) -> Key {
    Key::from_name(name).unwrap()
}

/// A live session of `main` (in its own folder), keeping history, with
/// a constant 1/60 clock; returns it and the time it started at.
fn start(main: &str) -> (tempfile::TempDir, Live<LuaGame>, Instant) {
    let dir = game(&[("main.luau", main)]);
    let mut session = common::session(dir.path());
    session
        .engine_mut()
        .keep_history(moonloop::history::DEFAULT_CAP)
        .unwrap();
    let t0 = Instant::now();
    let live = Live::new(session, t0);
    (dir, live, t0)
}

/// The wall time `ms` milliseconds after `t0`.
fn at(t0: Instant, ms: u64) -> Instant {
    t0 + Duration::from_millis(ms)
}

/// Presses and lets go of `name` (a tap, as a person's fingers do it).
fn tap(live: &mut Live<LuaGame>, name: &str) -> Option<Request> {
    let request = live.key(key(name), true, false);
    live.key(key(name), false, false);
    request
}

fn n(live: &Live<LuaGame>) -> f64 {
    let json = live.engine().game().state_json().unwrap();
    let at = json.find("\"n\": ").expect("n") + 5;
    json[at..]
        .split([',', '\n', '}'])
        .next()
        .unwrap()
        .trim()
        .parse()
        .unwrap()
}

fn state(live: &Live<LuaGame>) -> String {
    live.engine().game().state_json().unwrap()
}

// rule: H5
#[test]
fn f5_pauses_f6_steps_one_frame_and_a_paused_game_sleeps_until_an_event() {
    let (_dir, mut live, t0) = start(COUNTER);
    for i in 0..3 {
        assert!(live.frame(at(t0, i * 16)).delivered);
    }
    assert_eq!(tap(&mut live, "f5"), None, "F5 is the host's");
    assert!(live.engine().is_paused());
    assert!(
        !live.frame(at(t0, 50)).delivered,
        "a paused game runs no frame"
    );
    let wake = live.wake(at(t0, 50));
    assert!(wake.redraw, "the pause is drawn once");
    assert_eq!(wake.until, None, "then the window sleeps until an event");
    assert!(!live.wake(at(t0, 60)).redraw, "nothing more to draw");
    tap(&mut live, "f6");
    assert!(live.wake(at(t0, 70)).redraw, "F6 asks for a frame");
    assert!(live.frame(at(t0, 70)).delivered, "F6 runs one frame");
    assert!(!live.frame(at(t0, 80)).delivered, "and only one");
    assert_eq!(n(&live), 4.0);
    tap(&mut live, "f5");
    assert!(live.frame(at(t0, 90)).delivered, "F5 resumes");
    assert_eq!(n(&live), 5.0);
    assert!(
        !state(&live).contains("f5"),
        "the game never saw F5: {}",
        state(&live)
    );
}

// rule: H5
#[test]
fn a_lost_focus_pauses_and_the_developer_keys_follow_the_config() {
    let (_dir, mut live, t0) = start(COUNTER);
    live.focus(true);
    live.frame(at(t0, 0));
    live.focus(false);
    assert!(live.engine().is_paused(), "blurred: paused");
    assert!(!live.frame(at(t0, 16)).delivered);
    live.focus(true);
    assert!(!live.engine().is_paused(), "focused again: playing");
    assert!(live.frame(at(t0, 32)).delivered);

    // With the developer keys off, F5 and F9 are the game's, F11 the player's.
    let (_dir, mut off, t0) = start(&COUNTER.replace(
        "config = { width = 100, height = 100 }",
        "config = { width = 100, height = 100, dev_controls = false }",
    ));
    tap(&mut off, "f5");
    tap(&mut off, "f9");
    assert!(off.frame(at(t0, 0)).delivered, "F5 did not pause");
    assert!(
        state(&off).contains("\"keys\": \"f5 f9 \""),
        "{}",
        state(&off)
    );
    assert_eq!(tap(&mut off, "f11"), Some(Request::Fullscreen));
    off.shift(true);
    assert_eq!(tap(&mut off, "f2"), None, "no bug report either");
}

// rule: H5
#[test]
fn f2_f3_f11_and_shift_f2_are_requests_for_the_window() {
    let (_dir, mut live, _t0) = start(COUNTER);
    assert_eq!(tap(&mut live, "f2"), Some(Request::Screenshot));
    assert_eq!(tap(&mut live, "f3"), Some(Request::ToggleRecording));
    assert_eq!(tap(&mut live, "f11"), Some(Request::Fullscreen));
    assert_eq!(
        live.key(key("f11"), true, true),
        None,
        "a held key's repeats ask nothing"
    );
    live.shift(true);
    assert_eq!(tap(&mut live, "f2"), Some(Request::Report));
}

// rule: R2
#[test]
fn f9_held_goes_back_sixty_frames_a_second_and_letting_go_plays_on_from_there() {
    let (_dir, mut live, t0) = start(COUNTER);
    for i in 0..120 {
        live.frame(at(t0, i));
    }
    assert_eq!(n(&live), 120.0);
    live.key(key("f9"), true, false);
    let shown = live.frame(at(t0, 1000));
    assert!(shown.rewound && !shown.delivered, "{shown:?}");
    assert_eq!(live.engine().frame(), 119, "one frame at once");
    // Half a second later (however many frames the window drew between),
    // thirty more.
    live.frame(at(t0, 1200));
    let shown = live.frame(at(t0, 1500));
    assert!(shown.rewound);
    assert_eq!(live.engine().frame(), 89, "thirty more by 0.5 s");
    assert_eq!(n(&live), 89.0, "the state is that frame's");
    live.key(key("f9"), false, false);
    assert!(live.frame(at(t0, 1600)).delivered, "letting go plays on");
    assert_eq!(live.engine().frame(), 90);
    assert_eq!(
        live.engine().history().unwrap().last(),
        90,
        "the old future is gone"
    );
}

// rule: R2
#[test]
fn f10_steps_back_and_f6_steps_forward_through_history_keeping_the_future() {
    let (_dir, mut live, t0) = start(COUNTER);
    for i in 0..30 {
        live.frame(at(t0, i));
    }
    tap(&mut live, "f5");
    tap(&mut live, "f10");
    tap(&mut live, "f10");
    assert_eq!(live.engine().frame(), 28);
    tap(&mut live, "f6");
    assert_eq!(
        live.engine().frame(),
        29,
        "forward through what was recorded"
    );
    assert_eq!(
        live.engine().history().unwrap().last(),
        30,
        "the future is kept"
    );
    tap(&mut live, "f6");
    tap(&mut live, "f6");
    live.frame(at(t0, 100));
    assert_eq!(
        live.engine().frame(),
        31,
        "past its end, F6 runs a new frame"
    );
}

// rule: R3
#[test]
fn f12_runs_the_past_again_through_edited_code_and_marks_the_first_change() {
    let (dir, mut live, t0) = start(COUNTER);
    for i in 0..100 {
        live.frame(at(t0, i));
    }
    std::fs::write(
        dir.path().join("main.luau"),
        COUNTER.replace(
            "n = state.n + 1",
            "n = state.n + (if state.n >= 70 then 2 else 1)",
        ),
    )
    .unwrap();
    live.session_mut()
        .reload(&[std::path::PathBuf::from("main.luau")])
        .unwrap();
    tap(&mut live, "f5");
    live.key(key("f9"), true, false);
    live.frame(at(t0, 2000));
    live.frame(at(t0, 2500));
    live.key(key("f9"), false, false);
    assert_eq!(live.engine().frame(), 69);
    tap(&mut live, "f12");
    assert_eq!(
        live.changed_at(),
        Some(71),
        "frame 71 was the first to run `+ 2`"
    );
    assert_eq!(
        live.engine().frame(),
        100,
        "the game stands at the end of the new run"
    );
    assert_eq!(n(&live), 130.0);
}

// rule: H1
#[test]
fn a_resized_window_letterboxes_and_the_pointer_maps_through_the_viewport() {
    let (_dir, mut live, t0) = start(COUNTER);
    live.resize(400, 200);
    let viewport = *live.engine().viewport();
    assert_eq!(viewport.logical, (100, 100));
    // The game is 200 pixels square in the middle: x from 100 to 300.
    live.pointer((200.0, 100.0), None);
    live.frame(at(t0, 0));
    assert!(
        state(&live).contains("\"x\": 50") && state(&live).contains("\"y\": 50"),
        "{}",
        state(&live)
    );
    live.pointer((50.0, 100.0), None);
    live.frame(at(t0, 16));
    assert!(
        state(&live).contains("\"x\": -1"),
        "over a bar, no pointer: {}",
        state(&live)
    );
}

// rule: R2
#[test]
fn the_timeline_pauses_where_pressed_scrubs_while_dragged_and_plays_on_when_let_go() {
    let (_dir, mut live, t0) = start(COUNTER);
    for i in 0..60 {
        live.frame(at(t0, i));
    }
    let left = key("mouse_left");
    live.button(left, true, Some(10));
    assert!(live.engine().is_paused());
    assert_eq!(live.engine().frame(), 10);
    live.pointer((0.0, 0.0), Some(20));
    assert_eq!(live.engine().frame(), 20, "dragging scrubs");
    live.button(left, false, None);
    assert!(!live.engine().is_paused(), "letting go plays on");
    live.frame(at(t0, 100));
    assert_eq!(live.engine().frame(), 21);
    // Off the timeline, the button is the game's.
    live.button(left, true, None);
    assert!(!live.engine().is_paused());
}

// rule: R4
#[test]
fn shift_f9_shows_paused_the_next_frame_where_when_holds_going_round() {
    let (_dir, live, t0) = start(COUNTER);
    let when = "state.n % 25 == 0";
    let predicate = Predicate::compile(live.engine().game(), when).unwrap();
    let seek: Seek<LuaGame> = Box::new(move |g: &LuaGame, frame| predicate.holds(g, frame));
    let mut live = live.seek(Some((seek, when.to_string())));
    for i in 0..60 {
        live.frame(at(t0, i));
    }
    live.shift(true);
    live.key(key("f9"), true, false);
    live.key(key("f9"), false, false);
    assert!(live.engine().is_paused(), "the frame found is shown paused");
    assert_eq!(
        live.engine().frame(),
        0,
        "after frame 60 none holds: round to frame 0"
    );
    tap(&mut live, "f9");
    assert_eq!(live.engine().frame(), 25);
    tap(&mut live, "f9");
    assert_eq!(live.engine().frame(), 50);
    assert_eq!(
        live.engine().history().unwrap().last(),
        60,
        "the future is kept"
    );
    assert!(!live.frame(at(t0, 200)).rewound, "Shift+F9 is no rewind");

    // Without --when, it says how to give one.
    let (_dir, mut bare, _t0) = start(COUNTER);
    bare.shift(true);
    tap(&mut bare, "f9");
    assert!(
        bare.last_error().unwrap().contains("--when"),
        "{:?}",
        bare.last_error()
    );
}

// rule: S4
#[test]
fn a_game_that_quits_and_a_run_of_n_frames_close_the_window() {
    let (_dir, mut live, t0) = start(COUNTER);
    assert!(!live.frame(at(t0, 0)).close);
    live.key(key("q"), true, false);
    assert!(live.frame(at(t0, 16)).close, "input:quit()");

    let (_dir, live, t0) = start(COUNTER);
    let mut live = live.close_after(Some(3));
    let closes: Vec<bool> = (0..3).map(|i| live.frame(at(t0, i)).close).collect();
    assert_eq!(closes, [false, false, true], "--frames 3");
}

// rule: H8
#[test]
fn an_edit_reloads_between_frames_and_the_developer_keys_follow_the_config() {
    let (dir, live, t0) = start(COUNTER);
    let watcher = Watcher::new(dir.path()).unwrap();
    let (engine, _) = live.finish().finish().unwrap();
    let mut live = Live::new(Session::new(engine).watch(Some(watcher)), t0);
    live.frame(at(t0, 0));
    let off = COUNTER.replace(
        "config = { width = 100, height = 100 }",
        "config = { width = 100, height = 100, dev_controls = false }",
    );
    let path = dir.path().join("main.luau");
    std::fs::write(path.with_extension("saving"), off).unwrap();
    std::fs::rename(path.with_extension("saving"), &path).unwrap();
    // The watcher's events come from the OS: wait for them, bounded.
    let deadline = Instant::now() + Duration::from_secs(10);
    while live.engine().config().dev_controls {
        assert!(Instant::now() < deadline, "the edit was never reloaded");
        let wake = live.wake(Instant::now());
        assert!(
            wake.until.is_some(),
            "a watched game wakes to look for edits"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    tap(&mut live, "f5");
    assert!(!live.engine().is_paused(), "F5 is the game's now");
    assert!(live.frame(at(t0, 16)).delivered);
    assert!(state(&live).contains("f5"), "{}", state(&live));
}

// rule: P9
#[test]
fn shift_f1_shows_and_hides_the_physics_view_and_is_the_game_s_when_the_keys_are_off() {
    let (_dir, mut live, t0) = start(COUNTER);
    assert!(!live.colliders_shown());
    live.shift(true);
    assert_eq!(tap(&mut live, "f1"), None);
    assert!(live.colliders_shown());
    assert!(!live.dev().overlay, "Shift+F1 is not F1");
    tap(&mut live, "f1");
    assert!(!live.colliders_shown());
    live.shift(false);
    tap(&mut live, "f1");
    assert!(live.dev().overlay && !live.colliders_shown());
    live.frame(at(t0, 0));

    let (_dir, mut off, _) = start(&COUNTER.replace(
        "config = { width = 100, height = 100 }",
        "config = { width = 100, height = 100, dev_controls = false }",
    ));
    off.shift(true);
    tap(&mut off, "f1");
    assert!(!off.colliders_shown());
}
