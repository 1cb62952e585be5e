//! The state is a value: rules S1-S7, checked on games stepped frame by
//! frame under a constant 1/60 clock.

mod common;

use common::{game, json, load_error, session};
use moonloop::ConstantClock;
use moonloop::Engine;
use moonloop::LuaGame;
use moonloop::session::Session;

/// Makes messages independent of the temporary folder's name.
fn local(dir: &std::path::Path, message: &str) -> String {
    message.replace(&format!("{}/", dir.display()), "")
}

const COUNTER: &str = r#"
return {
    init = function() return { n = 0, list = { 1, 2 } } end,
    update = function(state, input, dt)
        return { n = state.n + 1, list = state.list }
    end,
}
"#;

// rule: S1
#[test]
fn update_gets_the_current_state_and_returns_the_next() {
    let dir = game(&[("main.luau", COUNTER)]);
    let mut e = session(dir.path());
    // Frame 1 and 2: each update sees the state the last one returned.
    e.advance(2).unwrap();
    assert_eq!(
        json(&e),
        "{\n  \"list\": [\n    1,\n    2\n  ],\n  \"n\": 2\n}",
        "two frames counted"
    );
}

// rule: S2
#[test]
fn every_state_the_host_takes_is_deeply_frozen() {
    let dir = game(&[(
        "main.luau",
        r#"
        return {
            init = function() return { a = { b = { c = 1 } } } end,
            update = function(state)
                assert(table.isfrozen(state), "the state")
                assert(table.isfrozen(state.a.b), "a nested table")
                return { a = { b = { c = state.a.b.c + 1 } }, fresh = {} }
            end,
        }
        "#,
    )]);
    let mut e = session(dir.path());
    e.advance(3).expect("every update saw a frozen state");
}

// rule: S2
#[test]
fn tables_frozen_by_the_game_are_still_checked() {
    // The walk skips frozen tables; one the game froze itself must not
    // smuggle a function past S5.
    let dir = game(&[(
        "main.luau",
        r#"
        return {
            init = function() return {} end,
            update = function(state)
                return { sneaky = table.freeze({ f = print }) }
            end,
        }
        "#,
    )]);
    let mut e = session(dir.path());
    let err = e.advance(1).unwrap_err().to_string();
    assert!(err.contains("state.sneaky.f is a function (S5"), "{err}");
}

// rule: S2
#[test]
fn unchanged_subtables_are_shared_not_copied() {
    let dir = game(&[(
        "main.luau",
        r#"
        local seen
        return {
            init = function() return { big = { 1, 2, 3 }, n = 0 } end,
            update = function(state)
                if seen then assert(rawequal(seen, state.big), "the same frozen table") end
                seen = state.big
                return { big = state.big, n = state.n + 1 }
            end,
        }
        "#,
    )]);
    session(dir.path()).advance(3).unwrap();
}

// rule: S3
#[test]
fn writing_the_state_names_the_rule_and_the_fix() {
    let dir = game(&[(
        "main.luau",
        "return {\n  init = function() return { n = 0 } end,\n  update = function(state)\n    state.n = 1\n    return state\n  end,\n}\n",
    )]);
    let mut e = session(dir.path());
    let err = e.advance(1).unwrap_err().to_string();
    assert_eq!(
        local(dir.path(), &err),
        "main.luau:4: attempt to modify a readonly table (S3: the state is frozen, as are the libraries; return a new table instead, table.clone copies one)"
    );
    assert_eq!(json(&e), "{\n  \"n\": 0\n}", "the state is kept");
}

// rule: S3
#[test]
fn writing_the_state_from_render_fails_too() {
    let dir = game(&[(
        "main.luau",
        "return {\n  init = function() return { n = 0 } end,\n  update = function(s) return s end,\n  render = function(state)\n    state.n = 5\n  end,\n}\n",
    )]);
    let err = session(dir.path()).advance(1).unwrap_err().to_string();
    assert!(
        local(dir.path(), &err).starts_with("main.luau:5: attempt to modify a readonly table (S3"),
        "{err}"
    );
}

// rule: S4
#[test]
fn update_returning_nil_is_refused_and_the_state_kept() {
    let dir = game(&[(
        "main.luau",
        "return {\n  init = function() return { n = 7 } end,\n  update = function(state)\n    if state.n > 0 then return nil end\n  end,\n}\n",
    )]);
    let mut e = session(dir.path());
    let err = e.advance(1).unwrap_err().to_string();
    assert_eq!(
        local(dir.path(), &err),
        "main.luau:3: S4: update returned nil; return the next state (the host kept the state it had)"
    );
    assert_eq!(json(&e), "{\n  \"n\": 7\n}");
}

// rule: S4
#[test]
fn update_returning_nothing_is_refused() {
    let dir = game(&[("main.luau", "return { update = function(state) end }")]);
    let err = session(dir.path()).advance(1).unwrap_err().to_string();
    // Returning nothing reads as returning nil.
    assert!(err.contains("S4: update returned nil"), "{err}");
}

// rule: S4
#[test]
fn under_run_the_loop_goes_on_after_a_nil_update() {
    // Every other frame returns nil; the engine's tick (what `run` drives)
    // reports each failure and keeps going on the last good state.
    let dir = game(&[(
        "main.luau",
        r#"
        return {
            init = function() return { n = 0 } end,
            update = function(state, input, dt)
                if state.n % 2 == 1 and not state.skipped then
                    return nil
                end
                return { n = state.n + 1 }
            end,
        }
        "#,
    )]);
    let mut e = session(dir.path());
    let mut failures = 0;
    for _ in 0..5 {
        // As a window runs it: each frame's trouble is shown, and the
        // game goes on.
        let turn = e.tick(std::time::Instant::now(), false);
        failures += usize::from(turn.trouble.is_some());
    }
    assert_eq!(e.engine().frame(), 5, "all five frames ran");
    assert_eq!(failures, 4, "frames 2 to 5 were refused");
    assert_eq!(json(&e), "{\n  \"n\": 1\n}", "the last good state");
}

// rule: S5
#[test]
fn non_plain_values_are_refused_with_their_path() {
    let cases = [
        (
            "{ enemies = { {}, {}, { think = function() end } } }",
            "state.enemies[3].think is a function",
        ),
        ("setmetatable({}, {})", "state has a metatable"),
        (
            "{ a = { b = setmetatable({}, {}) } }",
            "state.a.b has a metatable",
        ),
        (
            "{ co = coroutine.create(print) }",
            "state.co is a thread (coroutine)",
        ),
        ("{ buf = buffer.create(4) }", "state.buf is a buffer"),
        (
            "{ [true] = 1 }",
            "state has a key that is a boolean (S5: keys are strings or numbers)",
        ),
        (
            "{ [\"odd key\"] = { print } }",
            "state[\"odd key\"][1] is a function",
        ),
        ("print", "state is a function"),
    ];
    for (value, message) in cases {
        let main = format!("return {{ init = function() return {value} end }}");
        let err = load_error(&[("main.luau", &main)]);
        assert!(err.contains(message), "{value}: {err}");
        assert!(err.contains("S5"), "{value}: names the rule: {err}");
    }
}

// rule: S5
#[test]
fn a_refused_table_is_refused_again_every_time_it_comes_back() {
    // The walk freezes tables on its way down. Refusing one must not leave
    // it (or the frozen tables above the offender) looking already checked
    // the next time update returns it.
    for kept in [
        "{ inner = { f = print } }",
        "table.freeze({ inner = { f = print } })",
        "{ inner = table.freeze({ f = print }) }",
    ] {
        let main = format!(
            r#"
            local kept = {kept}
            return {{
                init = function() return {{ n = 0 }} end,
                update = function(state) return {{ n = state.n + 1, kept = kept }} end,
            }}
            "#
        );
        let dir = game(&[("main.luau", &main)]);
        let mut e = session(dir.path());
        for frame in 1..=3 {
            let err = e
                .advance(1)
                .expect_err(&format!("{kept}: frame {frame} refused"));
            assert!(
                err.to_string().contains("state.kept.inner.f is a function"),
                "{kept}: frame {frame}: {err}"
            );
        }
        assert_eq!(json(&e), "{\n  \"n\": 0\n}", "{kept}: the first state kept");
    }
}

// rule: S5
#[test]
fn library_tables_are_not_plain_data() {
    // The sandbox freezes the libraries; frozen is not the same as checked.
    for (value, path) in [
        ("math", "state.lib."),
        ("string", "state.lib."),
        ("{ t = table }", "state.lib.t."),
    ] {
        let main = format!("return {{ init = function() return {{ lib = {value} }} end }}");
        let err = load_error(&[("main.luau", &main)]);
        assert!(err.contains(path), "{value}: {err}");
        assert!(err.contains("is a function (S5"), "{value}: {err}");
    }
}

// rule: S5
#[test]
fn cycles_are_refused() {
    let err = load_error(&[(
        "main.luau",
        "return { init = function() local a = {} ; local b = { a = a } ; a.b = b ; return { a = a } end }",
    )]);
    assert!(
        err.contains("state.a.b.a refers back to a table that holds it"),
        "{err}"
    );
}

// rule: S5
#[test]
fn plain_values_are_accepted() {
    let dir = game(&[(
        "main.luau",
        "return { init = function() return { s = 'x', n = 1.5, b = false, v = vector.create(1, 2, 3), t = { 1, { 2 } } } end }",
    )]);
    let e = session(dir.path());
    assert!(
        json(&e).contains("\"v\": {\"$vector\": [1, 2, 3]}"),
        "{}",
        json(&e)
    );
}

// rule: S6
#[test]
fn apply_runs_a_transition_between_frames() {
    let dir = game(&[("main.luau", COUNTER)]);
    let mut e = session(dir.path());
    e.advance(1).unwrap();
    let lua = e.engine().game().lua().clone();
    let set_ten: mlua::Function = lua
        .load("return function(state) return { n = 10, list = state.list } end")
        .eval()
        .unwrap();
    e.engine_mut().game_mut().apply(&set_ten).unwrap();
    e.advance(1).unwrap();
    assert!(
        json(&e).contains("\"n\": 11"),
        "the next update received the applied state: {}",
        json(&e)
    );
    let to_nil: mlua::Function = lua
        .load("return function(state) return nil end")
        .eval()
        .unwrap();
    let err = e
        .engine_mut()
        .game_mut()
        .apply(&to_nil)
        .unwrap_err()
        .to_string();
    assert!(err.contains("S4: apply's transition returned nil"), "{err}");
    assert!(
        json(&e).contains("\"n\": 11"),
        "a refused transition keeps the state"
    );
}

// rule: S7
#[test]
fn canonical_encoding_sorts_keys_and_writes_exact_floats() {
    let dir = game(&[(
        "main.luau",
        "return { init = function() return { z = 0.1 + 0.2, a = 1/3, [2] = 'two', [1] = 'one', m = { [10] = true, b = -0 } } end }",
    )]);
    let e = session(dir.path());
    assert_eq!(
        json(&e),
        r#"{"$map": [
  [1, "one"],
  [2, "two"],
  ["a", 0.3333333333333333],
  ["m", {"$map": [
    [10, true],
    ["b", -0]
  ]}],
  ["z", 0.30000000000000004]
]}"#
    );
}

// rule: S7
#[test]
fn same_game_clock_and_input_give_the_same_hash() {
    let dir = game(&[(
        "main.luau",
        "return { init = function() return { x = 0 } end, update = function(s, input, dt) return { x = s.x + dt * 3.7 } end }",
    )]);
    let hash = |frames| {
        let game = LuaGame::load(dir.path()).unwrap();
        let mut e = Session::new(Engine::new(game, Box::new(ConstantClock::new(1.0 / 144.0))));
        e.advance(frames).unwrap();
        e.engine().game().state_hash().unwrap()
    };
    assert_eq!(hash(100), hash(100), "two runs agree");
    assert_ne!(hash(100), hash(101), "a different state hashes differently");
}

// rule: S7
#[test]
fn the_hash_tells_number_keys_from_string_keys() {
    let a = game(&[(
        "main.luau",
        "return { init = function() return { [1] = 'x', n = 1 } end }",
    )]);
    let b = game(&[(
        "main.luau",
        "return { init = function() return { ['1'] = 'x', n = 1 } end }",
    )]);
    let hash = |dir: &std::path::Path| session(dir).engine().game().state_hash().unwrap();
    assert_ne!(hash(a.path()), hash(b.path()));
}
