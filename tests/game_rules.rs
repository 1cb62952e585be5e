//! Games, handles, input, cues and the sandbox: rules G1-G2, C1-C3, H6,
//! H7 and H9, on games stepped under scripted clocks.

mod common;

use std::time::Duration;

use common::{game, json, load_error, session};
use moonloop::Engine;
use moonloop::LuaGame;
use moonloop::replay::ReplayWriter;
use moonloop::session::Session;
use moonloop::{ClockSpec, ConstantClock};
use moonloop::{InputEvent, Key, input::Script};

// rule: G1
#[test]
fn require_loads_files_beside_the_requiring_file() {
    let dir = game(&[
        (
            "main.luau",
            "local ball = require('./lib/ball')\nreturn { init = function() return { r = ball.radius, s = ball.speed } end }",
        ),
        (
            "lib/ball.luau",
            "local physics = require('./physics')\nreturn { radius = 4, speed = physics.speed }",
        ),
        ("lib/physics.lua", "return { speed = 12 }"),
    ]);
    assert_eq!(json(&session(dir.path())), "{\n  \"r\": 4,\n  \"s\": 12\n}");
}

// rule: G1
#[test]
fn modules_load_once() {
    let dir = game(&[
        (
            "main.luau",
            "local a = require('./counter')\nlocal b = require('./counter')\nreturn { init = function() return { same = rawequal(a, b) } end }",
        ),
        ("counter.luau", "return {}"),
    ]);
    assert!(json(&session(dir.path())).contains("\"same\": true"));
}

// rule: G1
#[test]
fn require_never_leaves_the_game_folder() {
    for path in [
        "../outside",
        "./sub/../../outside",
        "/etc/passwd",
        "outside",
        "@unknown/x",
    ] {
        let main = format!("local x = require('{path}')\nreturn {{}}");
        let err = load_error(&[("main.luau", &main), ("sub/x.luau", "return 1")]);
        assert!(
            err.contains(&format!("main.luau:1: require(\"{path}\")")),
            "{path}: {err}"
        );
    }
    let err = load_error(&[("main.luau", "return require('../outside')")]);
    assert!(err.contains("leaves the game folder"), "{err}");
}

// rule: G1
#[test]
fn a_link_out_of_the_folder_is_refused() {
    let outside = game(&[("secret.luau", "return 'secret'")]);
    let dir = game(&[(
        "main.luau",
        "return { init = function() return { s = require('./secret') } end }",
    )]);
    std::os::unix::fs::symlink(
        outside.path().join("secret.luau"),
        dir.path().join("secret.luau"),
    )
    .unwrap();
    let err = LuaGame::load(dir.path())
        .err()
        .expect("refused")
        .to_string();
    assert!(err.contains("leaves the game folder"), "{err}");
}

// rule: G1
#[test]
fn require_cycles_are_named() {
    let err = load_error(&[
        ("main.luau", "require('./a')\nreturn {}"),
        ("a.luau", "return require('./b')"),
        ("b.luau", "return require('./a')"),
    ]);
    assert!(err.contains("require cycle: "), "{err}");
    assert!(
        err.contains("/a.luau requires ") && err.contains("/b.luau requires "),
        "{err}"
    );
    assert!(
        err.ends_with("/a.luau (G1: move what both need into a third module)"),
        "{err}"
    );
}

// rule: G1
#[test]
fn the_host_library_is_required_by_alias() {
    let dir = game(&[(
        "main.luau",
        "local t = require('@moonloop/test')\nreturn { init = function() return { ok = type(t.expect) == 'function' } end }",
    )]);
    assert!(json(&session(dir.path())).contains("\"ok\": true"));
    let err = load_error(&[("main.luau", "return require('@moonloop/nope')")]);
    assert!(
        err.contains("no module `nope` in the host's library"),
        "{err}"
    );
}

// rule: G1
#[test]
fn main_lua_is_accepted_and_a_folder_without_main_is_not() {
    let dir = game(&[(
        "main.lua",
        "return { init = function() return { lua = true } end }",
    )]);
    assert!(json(&session(dir.path())).contains("\"lua\": true"));
    let err = load_error(&[("readme.txt", "")]);
    assert!(
        err.ends_with("has no main.luau (or main.lua); a game is a folder with one (G1)"),
        "{err}"
    );
}

// rule: G1
#[test]
fn a_misspelled_game_field_is_named() {
    let err = load_error(&[("main.luau", "return { Update = function(s) return s end }")]);
    assert!(
        err.ends_with("the game table has `Update`; did you mean `update`?"),
        "{err}"
    );
    let err = load_error(&[("main.luau", "return 42")]);
    assert!(
        err.contains("returned a number where a game table was expected"),
        "{err}"
    );
    let err = load_error(&[("main.luau", "return { config = { widht = 3 } }")]);
    assert!(err.contains("config.widht is not a config field"), "{err}");
}

// rule: G2
#[test]
fn without_init_the_state_is_an_empty_table() {
    let dir = game(&[("main.luau", "return { update = function(s) return s end }")]);
    assert_eq!(json(&session(dir.path())), "{}");
}

// rule: C1
#[test]
fn update_reads_input_and_plays_cues() {
    let dir = game(&[(
        "main.luau",
        r#"
        return {
            config = { actions = { jump = { "space", "w" } } },
            init = function() return { jumps = 0, held = 0 } end,
            update = function(state, input, dt)
                local jumps = state.jumps
                if input:pressed("jump") then
                    jumps += 1
                    input:cue("jump", { volume = 0.5, pitch = 2 })
                end
                return { jumps = jumps, held = state.held + (if input:down("w") then 1 else 0) }
            end,
        }
        "#,
    )]);
    let mut e = session(dir.path());
    let w = Key::from_name("w").unwrap();
    e.engine_mut().input_mut().push(InputEvent::Press(w));
    e.advance(3).unwrap();
    e.engine_mut().input_mut().push(InputEvent::Release(w));
    e.engine_mut()
        .input_mut()
        .push(InputEvent::Tap(Key::from_name("space").unwrap()));
    e.advance(2).unwrap();
    assert_eq!(json(&e), "{\n  \"held\": 3,\n  \"jumps\": 2\n}");
    let cues: Vec<(u64, &str, f64, f64)> = e
        .engine()
        .cues()
        .cues()
        .iter()
        .map(|c| (c.frame, &*c.name, c.volume, c.pitch))
        .collect();
    assert_eq!(
        cues,
        [(1, "jump", 0.5, 2.0), (4, "jump", 0.5, 2.0)],
        "cues logged with their frame"
    );
}

// rule: C1
#[test]
fn bad_input_names_and_cue_parameters_are_named() {
    let cases = [
        (
            "input:down('jmup')",
            "input:down(\"jmup\"): no key or action by that name",
        ),
        (
            "input:cue('hit', { volume = -1 })",
            "input:cue: `volume` must be 0 or more",
        ),
        (
            "input:cue('hit', { loudness = 1 })",
            "input:cue: unknown parameter `loudness`",
        ),
    ];
    for (call, message) in cases {
        let err = common::frame_error(&format!(
            "return {{ update = function(s, input)\n  {call}\n  return s\nend }}"
        ));
        assert!(
            err.starts_with(&format!("main.luau:2: {message}")),
            "{call}: {err}"
        );
    }
}

// rule: C2
#[test]
fn render_gets_the_state_the_scene_and_the_screen() {
    let dir = game(&[(
        "main.luau",
        r#"
        return {
            init = function() return { n = 1 } end,
            update = function(s) return { n = s.n + 1 } end,
            render = function(state, scene, screen)
                assert(state.n == 2, "render sees the state update returned")
                assert(type(scene) == "userdata" and type(screen) == "userdata")
            end,
        }
        "#,
    )]);
    session(dir.path()).advance(1).unwrap();
}

// rule: C1
#[test]
fn update_gets_nothing_that_draws() {
    let dir = game(&[(
        "main.luau",
        r##"
        return {
            update = function(...)
                local state, input, dt = ...
                assert(select("#", ...) == 3, "update gets three arguments")
                for _, call in { "rect", "circle", "image", "object", "camera", "light" } do
                    assert(not pcall(function() return input[call](input) end), "input:" .. call)
                end
                -- input:text() reads what was typed; it draws nothing.
                assert(input:text() == "", "input:text reads typed text")
                return state
            end,
        }
        "##,
    )]);
    session(dir.path()).advance(2).unwrap();
}

// rule: C2
#[test]
fn render_gets_nothing_that_reads_input_or_plays_a_cue() {
    let dir = game(&[(
        "main.luau",
        r##"
        return {
            render = function(...)
                local state, scene, screen = ...
                assert(select("#", ...) == 3, "render gets three arguments")
                for _, handle in { scene, screen } do
                    for _, call in { "cue", "down", "pressed", "pointer", "hover", "ray" } do
                        assert(not pcall(function() return handle[call](handle, "a") end), call)
                    end
                end
            end,
        }
        "##,
    )]);
    let mut e = session(dir.path());
    e.advance(2).unwrap();
    assert!(e.engine().cues().cues().is_empty());
}

// rule: S6
#[test]
fn a_transition_that_returns_a_function_or_a_metatable_is_refused() {
    let dir = game(&[(
        "main.luau",
        "return { init = function() return { n = 1 } end }",
    )]);
    let mut e = session(dir.path());
    e.advance(1).unwrap();
    let lua = e.engine().game().lua().clone();
    for (body, refusal) in [
        ("return function(s) return print end", "state is a function"),
        (
            "return function(s) return setmetatable({}, {}) end",
            "state has a metatable",
        ),
        (
            "return function(s) return { n = 2, f = print } end",
            "state.f is a function",
        ),
    ] {
        let transition: mlua::Function = lua.load(body).eval().unwrap();
        let err = e
            .engine_mut()
            .game_mut()
            .apply(&transition)
            .unwrap_err()
            .to_string();
        assert!(err.contains(refusal), "{body}: {err}");
        assert!(json(&e).contains("\"n\": 1"), "the state is kept");
    }
}

// rule: C3
#[test]
fn handles_used_outside_their_function_fail_by_name() {
    let kept_input = r#"
        local kept
        return {
            update = function(s, input) kept = input ; return s end,
            render = function(s)
                kept:down("space")
            end,
        }"#;
    let dir = game(&[("main.luau", kept_input)]);
    let err = session(dir.path()).advance(1).unwrap_err().to_string();
    assert!(
        err.contains("main.luau:6: C3: `input` belongs to update and was used outside it"),
        "{err}"
    );

    let kept_screen = r#"
        local kept
        return {
            update = function(s, input)
                if kept then kept.rect(kept, 0, 0, 1, 1) end
                return s
            end,
            render = function(s, scene, screen) kept = screen end,
        }"#;
    let dir = game(&[("main.luau", kept_screen)]);
    let mut e = session(dir.path());
    e.advance(1).unwrap();
    let err = e.advance(1).unwrap_err().to_string();
    assert!(
        err.contains("C3: `screen` belongs to render and was used outside it"),
        "{err}"
    );
}

// rule: H6
#[test]
fn scripted_input_reaches_update_by_frame_and_by_time() {
    let dir = game(&[(
        "main.luau",
        r#"
        return {
            init = function() return { log = {} } end,
            update = function(state, input, dt)
                local log = table.clone(state.log)
                if input:pressed("right") then table.insert(log, "right") end
                if input:released("right") then table.insert(log, "-right") end
                if input:pressed("space") then table.insert(log, "space") end
                return { log = log }
            end,
        }
        "#,
    )]);
    let mut e = session(dir.path());
    e.engine_mut().set_script(
        Script::parse("2 press right\n0.05s release right\n0.05s tap space\n").unwrap(),
    );
    e.advance(5).unwrap();
    assert_eq!(
        json(&e),
        "{\n  \"log\": [\n    \"right\",\n    \"-right\",\n    \"space\"\n  ]\n}"
    );
}

// rule: H6
#[test]
fn a_replay_reaches_the_same_state_hash() {
    let dir = game(&[(
        "main.luau",
        r#"
        return {
            init = function() return { x = 0, jumps = 0 } end,
            update = function(state, input, dt)
                local speed = if input:down("right") then 5 else -1
                return { x = state.x + speed * dt, jumps = state.jumps + (if input:pressed("space") then 1 else 0) }
            end,
        }
        "#,
    )]);
    let log = dir.path().join("run.replay");
    // Record a jittery run with scripted input.
    let game = LuaGame::load(dir.path()).unwrap();
    let clock: ClockSpec = "jitter:seed=3,min=0.005,max=0.05".parse().unwrap();
    let mut e = Session::new(Engine::new(game, clock.build()));
    e.engine_mut().set_script(
        Script::parse("1 press right\n10 release right\n12 tap space\n0.4s tap space\n").unwrap(),
    );
    e.engine_mut()
        .set_replay_writer(ReplayWriter::create(&log, 0, None, None).unwrap());
    e.advance(40).unwrap();
    e.engine_mut().flush().unwrap();
    let recorded = e.engine().game().state_hash().unwrap();
    // Play it back under the log's own clock and input.
    let replay = moonloop::replay::load(&log).unwrap();
    let mut again = Session::new(Engine::new(
        LuaGame::load(dir.path()).unwrap(),
        Box::new(replay.clock()),
    ));
    again.engine_mut().set_script(replay.script.clone());
    again.advance(40).unwrap();
    assert_eq!(again.engine().game().state_hash().unwrap(), recorded);
    assert_eq!(
        again.engine().time(),
        e.engine().time(),
        "the same deltas, bit for bit"
    );
}

// rule: H7
#[test]
fn cues_are_logged_for_tests_to_read() {
    let dir = game(&[(
        "main.luau",
        "return { update = function(s, input) input:cue('tick') ; return s end }",
    )]);
    let mut e = session(dir.path());
    e.advance(3).unwrap();
    let frames: Vec<u64> = e.engine().cues().cues().iter().map(|c| c.frame).collect();
    assert_eq!(frames, [1, 2, 3]);
}

// rule: H9
#[test]
fn a_runaway_function_is_stopped_and_the_loop_lives_on() {
    for (function, body) in [
        ("update", "update = function(s) while true do end end"),
        (
            "render",
            "update = function(s) return s end, render = function(s) while true do end end",
        ),
        (
            "update",
            "update = function(s) while true do pcall(function() while true do end end) end end",
        ),
    ] {
        let main = format!("return {{ config = {{ budget = 0.05 }}, {body} }}");
        let dir = game(&[("main.luau", &main)]);
        let mut e = session(dir.path());
        let err = e.advance(1).unwrap_err().to_string();
        assert!(
            err.contains(&format!(
                "H9: {function} ran past its time budget of 0.05 s"
            )),
            "{err}"
        );
        let err = e.advance(1).unwrap_err().to_string();
        assert!(
            err.contains("H9"),
            "the next frame runs (and is stopped) too: {err}"
        );
        assert_eq!(e.engine().frame(), 2);
    }
    let err = load_error(&[(
        "main.luau",
        "return { config = { budget = 0.05 }, init = function() while true do end end }",
    )]);
    assert!(err.contains("H9: init ran past its time budget"), "{err}");
}

// rule: H9
#[test]
fn a_fast_function_is_never_stopped() {
    let dir = game(&[(
        "main.luau",
        "return { config = { budget = 1 }, update = function(s) local n = 0 for i = 1, 10000 do n += i end return s end }",
    )]);
    let game = LuaGame::load(dir.path()).unwrap();
    let mut e = Session::new(Engine::new(game, Box::new(ConstantClock::new(0.01))));
    // 600 frames take far longer than one budget in all; each is short.
    // (A whole second's budget leaves room for a busy machine to preempt
    // a frame; a quarter second did not, on a loaded 2-core CI machine.)
    for _ in 0..600 {
        e.advance(1).unwrap();
        std::thread::sleep(Duration::from_micros(500));
    }
}

// rule: H9
#[test]
fn memory_is_capped() {
    let dir = game(&[(
        "main.luau",
        "return { config = { memory = 16 }, update = function(s)\n  local t = { 'xxxxxxxxxxxxxxxx' }\n  while true do local n = #t for i = 1, n do t[n + i] = t[i] .. i end end\nend }",
    )]);
    let mut e = session(dir.path());
    let err = e.advance(1).unwrap_err().to_string();
    assert!(err.contains("H9: the game ran out of memory"), "{err}");
    e.advance(1).unwrap_err();
    assert_eq!(e.engine().frame(), 2, "the loop lives on");
}

// rule: H9
#[test]
fn the_sandbox_has_no_way_out() {
    let probes = [
        "io == nil",
        "os.execute == nil and os.remove == nil and os.getenv == nil and os.exit == nil",
        "not pcall(loadstring, 'return 1') and not pcall(load, 'return 1') and not pcall(dofile, 'x')",
        "not pcall(getfenv, 1) and not pcall(setfenv, 1, {})",
        "not pcall(function() string.upper = nil end)",
        "not pcall(function() table.insert = print end)",
        // What debug keeps reads the stack; nothing in it writes or escapes.
        "debug.sethook == nil and debug.getregistry == nil and debug.setupvalue == nil",
        "debug.setlocal == nil and debug.getupvalue == nil and debug.getmetatable == nil",
    ];
    for probe in probes {
        let main = format!("assert({probe}, 'probe')\nreturn {{}}");
        let dir = game(&[("main.luau", &main)]);
        LuaGame::load(dir.path()).unwrap_or_else(|e| panic!("{probe}: {e}"));
    }
}

// rule: H9
#[test]
fn deep_recursion_is_an_error_not_a_crash() {
    let dir = game(&[(
        "main.luau",
        "local function f(n) return f(n + 1) + 1 end\nreturn { update = function(s) f(1) return s end }",
    )]);
    let err = session(dir.path()).advance(1).unwrap_err().to_string();
    assert!(err.contains("stack overflow"), "{err}");
}
