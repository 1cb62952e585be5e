//! The past history shows is the past that happened (rules R1-R3, and
//! R5-R7 in docs/rewind.md): every frame of the past is run again with
//! the code that ran it, a plain reload changes the future only, a reload
//! from a frame rewrites the frames after it and nothing before, and a
//! re-simulation that fails changes nothing.
//!
//! Each case is a Luau test file run by `moonloop test`, as an author's
//! would be, against a game that counts by one.

mod common;

use common::{game, moonloop};

/// A game whose state counts frames by one.
const COUNTING: &str = "return {\n  init = function() return { n = 0 } end,\n  update = function(state) return { n = state.n + 1 } end,\n}\n";

/// Runs the Luau test file `tests` against `main` and checks every test
/// in it passed.
fn passes(main: &str, tests: &str) {
    let dir = game(&[("g/main.luau", main), ("g/tests/past.luau", tests)]);
    let out = moonloop(&["test", "g"], dir.path());
    assert!(
        out.code == 0 && !out.stdout.contains("FAIL"),
        "exit {}\n{}{}",
        out.code,
        out.stdout,
        out.stderr
    );
}

// rule: R1, R5
#[test]
fn a_plain_reload_changes_the_future_only() {
    passes(
        COUNTING,
        r#"
test("the past keeps the code that ran it", function()
	local e = engine.new()
	e:advance(100)
	e:reload({ ["main.luau"] = { "state.n + 1", "state.n + 2" } })
	expect(e:state_at(40).n).equals(40)
	expect(e:state_at(100).n).equals(100)
	expect(e.state.n).equals(100)
	e:advance(10)
	expect(e.state.n).equals(120)
	expect(e:state_at(100).n).equals(100)
	expect(e:state_at(105).n).equals(110)
	e:rewind(10)
	expect(e.frame).equals(100)
	expect(e.state.n).equals(100)
	-- Played on from there, the live code runs the frames.
	e:advance(1)
	expect(e.state.n).equals(102)
end)
"#,
    );
}

// rule: R3, R6
#[test]
fn a_reload_from_a_frame_rewrites_the_frames_after_it_and_nothing_before() {
    passes(
        COUNTING,
        r#"
local EDIT = {
	["main.luau"] = "return {\n  init = function() return { n = 0 } end,\n  update = function(state) return { n = state.n + 2 } end,\n}\n",
}

test("from = 50 rewrites 51 on", function()
	local e = engine.new()
	e:advance(100)
	expect(e:reload(EDIT, { from = 50 })).equals(51)
	expect(e.state.n).equals(150)
	expect(e:state_at(40).n).equals(40)
	expect(e:state_at(50).n).equals(50)
	expect(e:state_at(51).n).equals(52)
	e:rewind(1)
	expect(e.state.n).equals(148)
end)

test("the same reload again changes nothing", function()
	local e = engine.new()
	e:advance(100)
	e:reload(EDIT, { from = 50 })
	expect(e:reload(EDIT, { from = 50 })).equals(nil)
	expect(e.state.n).equals(150)
	expect(e:state_at(50).n).equals(50)
end)
"#,
    );
}

// rule: R1, R5
#[test]
fn states_of_another_shape_stay_readable() {
    passes(
        COUNTING,
        r#"
local SHAPE = {
	["main.luau"] = "return {\n  init = function() return { count = 0 } end,\n  update = function(state) return { count = state.count + 1 } end,\n  reload = function(state) return { count = state.n or state.count } end,\n}\n",
}

test("frames before a shape-changing reload read as they were", function()
	local e = engine.new()
	e:advance(100)
	e:reload(SHAPE)
	expect(e.state.count).equals(100)
	e:advance(20)
	expect(e.state.count).equals(120)
	expect(e:state_at(40).n).equals(40)
	expect(e:state_at(40).count).equals(nil)
	expect(e:state_at(110).count).equals(110)
	e:rewind(60)
	expect(e.state.n).equals(60)
	-- Played on from the old shape: the live code migrates it first.
	e:advance(1)
	expect(e.state.count).equals(61)
	expect(e:state_at(61).count).equals(61)
	expect(e:state_at(30).n).equals(30)
end)
"#,
    );
}

// rule: R3, R7
#[test]
fn a_failed_re_simulation_changes_nothing() {
    passes(
        COUNTING,
        r#"
test("new code that fails part-way leaves the code, the state and history as they were", function()
	local e = engine.new()
	e:advance(100)
	local before = e:hash()
	local BOOM = { ["main.luau"] = { "return { n = state.n + 1 }", "if state.n == 70 then error('boom at seventy') end return { n = state.n + 2 }" } }
	expect(function()
		e:reload(BOOM, { from = 50 })
	end).errors("frame 61: g/main.luau:3: boom at seventy")
	expect(e.frame).equals(100)
	expect(e:hash()).equals(before)
	expect(e:state_at(80).n).equals(80)
	expect(e:state_at(100).n).equals(100)
	-- The old code runs on; the file's text is as it was.
	e:advance(1)
	expect(e.state.n).equals(101)
	expect(e:reload({ ["main.luau"] = { "state.n + 1", "state.n + 3" } }, { from = 90 })).equals(91)
	expect(e.state.n).equals(90 + 11 * 3)
end)
"#,
    );
}

// rule: R7, H9
#[test]
fn a_re_simulation_runs_under_the_budget_of_whoever_asked_and_stops_changing_nothing() {
    use std::cell::Cell;
    use std::rc::Rc;
    let dir = game(&[("main.luau", COUNTING)]);
    let mut e = common::session(dir.path());
    e.engine_mut().keep_history(16 << 20).unwrap();
    e.advance(300).unwrap();
    let before = common::json(&e);
    // A limit that lets 100 frames run again, then says the asker's
    // budget is spent.
    let asked = Rc::new(Cell::new(0u32));
    let counted = Rc::clone(&asked);
    e.engine_mut()
        .set_resimulation_limit(Some(Box::new(move || {
            counted.set(counted.get() + 1);
            (counted.get() > 100).then(|| "H9: the test ran past its time budget".to_string())
        })));
    let err = e.engine_mut().reload_from(&[], 0).unwrap_err().to_string();
    assert!(
        err.contains("frame 101: H9: the test ran past its time budget"),
        "{err}"
    );
    assert_eq!(e.engine().frame(), 300, "the present is where it was");
    assert_eq!(common::json(&e), before);
    asked.set(0);
    e.engine_mut().set_resimulation_limit(None);
    let at = e
        .engine_mut()
        .with_state_at(299, |g| g.state_json().unwrap())
        .unwrap();
    assert!(at.contains("\"n\": 299"), "history is whole: {at}");
    assert_eq!(
        e.engine_mut().reload_from(&[], 0).unwrap().1,
        None,
        "the same code, the same past"
    );
}

// rule: R4
#[test]
fn a_test_seeks_the_first_frame_something_holds() {
    passes(
        COUNTING,
        r#"
test("seek finds the frame, and the present stays", function()
	local e = engine.new()
	e:advance(200)
	expect(e:seek(function(state, frame)
		return state.n >= 123
	end)).equals(123)
	expect(e:seek(function(state, frame)
		return frame == 0
	end)).equals(0)
	expect(e:seek(function(state)
		return state.n < 0
	end)).equals(nil)
	expect(e.frame).equals(200)
	expect(e.state.n).equals(200)
	expect(function()
		e:seek(function(state)
			state.n = 1
		end)
	end).errors("readonly")
end)
"#,
    );
}
