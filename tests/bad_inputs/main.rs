//! A table of bad inputs (rule H9 and the promise behind every rule): each
//! row is a game that misbehaves, run headless for 5 frames. The first line
//! the user sees, the exit code, and what survives are checked: the run
//! finishes all its frames, exits 1, and the state is the last good one.

#[path = "../common/mod.rs"]
mod common;
mod surfaces;
mod walls;

use common::{Outcome, game, moonloop};

fn run(main: &str) -> Outcome {
    let dir = game(&[
        ("g/main.luau", main),
        ("g/helper.luau", "return { value = 1 }"),
    ]);
    let args = [
        "run",
        "g",
        "--headless",
        "--clock",
        "constant:1/60",
        "--frames",
        "5",
        "--print-state",
    ];
    moonloop(&args, dir.path())
}

/// A game whose update misbehaves from frame 3 on (`BODY` is spliced in);
/// frames 1 and 2 count, so the last good state is `{ n = 2 }`.
fn update_row(body: &str) -> String {
    format!(
        "return {{\n  config = {{ id = \"bad-inputs\", budget = 0.2, memory = 32 }},\n  init = function() return {{ n = 0 }} end,\n  update = function(state, input, dt)\n    if state.n >= 2 then\n      {body}\n    end\n    return {{ n = state.n + 1 }}\n  end,\n}}\n"
    )
}

/// The same for render: update always counts.
fn render_row(body: &str) -> String {
    format!(
        "return {{\n  config = {{ budget = 0.2, memory = 32 }},\n  init = function() return {{ n = 0 }} end,\n  update = function(state) return {{ n = state.n + 1 }} end,\n  render = function(state, scene, screen)\n    if state.n >= 3 then\n      {body}\n    end\n  end,\n}}\n"
    )
}

#[test]
fn misbehaving_updates_get_one_line_and_the_loop_lives_on() {
    // (what the update does, the start of the first line after "frame 3: g/main.luau:")
    let rows: &[(&str, &str)] = &[
        ("error('boom')", "6: boom"),
        ("return nil", "4: S4: update returned nil"),
        ("return", "4: S4: update returned nil"),
        (
            "return print",
            "4: update returned a state where state is a function",
        ),
        (
            "return { f = print }",
            "4: update returned a state where state.f is a function",
        ),
        (
            "return setmetatable({}, {})",
            "4: update returned a state where state has a metatable",
        ),
        (
            "return { u = newproxy() }",
            "4: update returned a state where state.u is a userdata",
        ),
        ("state.n = 5", "6: attempt to modify a readonly table (S3"),
        (
            "while true do end",
            "6: H9: update ran past its time budget of 0.2 s",
        ),
        (
            "local function f() return f() + 1 end f()",
            "6: stack overflow (H9: recursion too deep)",
        ),
        (
            "local s = string.rep('x', 100 * 1024 * 1024)",
            "H9: the game ran out of memory",
        ),
        (
            "local t = {1} while true do t = { t, t } end",
            "H9: the game ran out of memory",
        ),
        (
            "require('../outside')",
            "6: require(\"../outside\"): the path leaves the game folder; a game can only require its own files (G1)",
        ),
        (
            "require('/etc/passwd')",
            "6: require(\"/etc/passwd\"): a path starts with ./ or ../ (beside this file) or @moonloop/ (G1)",
        ),
        (
            "require('@unknown/x')",
            "6: require(\"@unknown/x\"): unknown alias; the host's library is `@moonloop/NAME`",
        ),
        (
            "input:down('jmup')",
            "6: input:down(\"jmup\"): no key or action by that name",
        ),
        ("io.open('x')", "6: attempt to index nil with 'open'"),
        ("os.execute('ls')", "6: attempt to call a nil value"),
        (
            "loadstring('return 1')()",
            "6: H9: loadstring is not offered: code comes in through require alone",
        ),
        ("getfenv(1).x = 1", "6: H9: getfenv is not offered"),
        (
            "table.insert = nil",
            "6: attempt to modify a readonly table",
        ),
        (
            "string.rep = print",
            "6: attempt to modify a readonly table",
        ),
        (
            "rawset(string, 'x', 1)",
            "6: attempt to modify a readonly table",
        ),
        (
            "setmetatable(_G, nil)",
            "6: attempt to modify a readonly table",
        ),
        (
            "collectgarbage('stop')",
            "6: H9: collectgarbage(\"stop\") is not offered: the host runs the collector itself",
        ),
        ("debug.sethook(print)", "6: attempt to call a nil value"),
        ("debug.getregistry()", "6: attempt to call a nil value"),
        // H12: a save is small plain data.
        (
            "input:save({ f = print })",
            "6: input:save: the save.f is a function",
        ),
        (
            "local t = {} t.me = t input:save(t)",
            "6: input:save: the save.me refers back",
        ),
        (
            "input:save(string.rep('x', 2^21))",
            "6: input:save: the save's JSON is 2.0 MiB; a save is at most 1 MiB (H12)",
        ),
    ];
    for (body, first) in rows {
        let out = run(&update_row(body));
        let line = out.stderr.lines().next().unwrap_or_default();
        let memory = first.starts_with("H9: the game ran out");
        let expected = if memory {
            format!("frame 3: {first}")
        } else {
            format!("frame 3: g/main.luau:{first}")
        };
        assert!(
            line.starts_with(&expected),
            "{body}: first line {line:?}, expected {expected:?}"
        );
        assert_eq!(out.code, 1, "{body}: exit code");
        assert!(
            out.stderr.contains("(on 3 frames from frame 3)"),
            "{body}: all frames ran\n{}",
            out.stderr
        );
        assert_eq!(
            out.stdout, "{\n  \"n\": 2\n}\n",
            "{body}: the last good state survives"
        );
        // The binary's panic hook prints "internal error" (for a panic on
        // any of its threads); a panic that got past it says "panicked".
        assert!(
            !out.stderr.contains("internal error") && !out.stderr.contains("panicked"),
            "{body}"
        );
    }
}

#[test]
fn misbehaving_renders_get_one_line_and_the_state_still_advances() {
    let rows: &[(&str, &str)] = &[
        ("error('boom')", "7: boom"),
        ("state.n = 1", "7: attempt to modify a readonly table (S3"),
        (
            "scene:fog({ color = 'grey', near = 5, far = 1 })",
            "7: scene:fog: `near` (5) is 0 or more and below `far` (1)",
        ),
        (
            "scene:fog({ color = 'grey', far = 0 / 0 })",
            "7: scene:fog: `far` is nan; it must be a finite number",
        ),
        (
            "scene:sky({ top = 'blue', bottm = 'red' })",
            "7: scene:sky: no property `bottm` (it takes top, bottom, image)",
        ),
        (
            "scene:sky(3)",
            "7: scene:sky: takes { top, bottom, image }, or false for none, not a number",
        ),
        (
            "while true do end",
            "7: H9: render ran past its time budget of 0.2 s",
        ),
        (
            "screen:rect(0 / 0, 0, 1, 1)",
            "7: screen:rect: `x` is nan; it must be a finite number",
        ),
        (
            "screen:rect(0, 0, -1, 1)",
            "7: screen:rect: `w` is -1; sizes are 0 or more",
        ),
        (
            "screen:text('x', 0, 0, { size = 1e12 })",
            "7: screen:text: `size` is 1000000000000; text is at most 4096 pixels",
        ),
        (
            "screen:image('missing.png', 0, 0)",
            "7: screen:image: no image `missing.png` in the game folder",
        ),
        (
            "screen:image('main.luau', 0, 0)",
            "7: screen:image: `main.luau` is not a PNG image",
        ),
        (
            "screen:text('x', 0, 0, { font = 'main.luau' })",
            "7: screen:text: `main.luau` is not a font (a TrueType or OpenType file)",
        ),
        (
            "screen:text('x', 0, 0, { font = 'missing.ttf' })",
            "7: screen:text: no font `missing.ttf` in the game folder",
        ),
        (
            "screen:measure('x', { font = '../outside.ttf' })",
            "7: screen:measure: `../outside.ttf`",
        ),
        (
            "screen:text('x', 0, 0, { width = -1 })",
            "7: screen:text: `width` is -1; text wraps to a width above 0",
        ),
        (
            "screen:text('x', 0, 0, { line_height = 0 })",
            "7: screen:text: `line_height` is 0; it is a multiple of the size, above 0",
        ),
        (
            "screen:text('x', 0, 0, { colour = 'red' })",
            "7: screen:text: no style field `colour` (a text style takes size, color",
        ),
        (
            "screen:text('x', 0, 0, { align = 'middle' })",
            "7: screen:text: style.align is \"left\", \"center\" or \"right\"",
        ),
        (
            "screen:rect(0, 0, 1, 1, { fill = 'not a color' })",
            "7: screen:rect: style.fill: `not a color` is not a color",
        ),
        (
            "scene:object('a', { mesh = 'truncated.gltf' })",
            "7: scene:object: no model `truncated.gltf` in the game folder",
        ),
        (
            "scene:object('a', { position = vector.create(math.huge, 0, 0) })",
            "7: scene:object: `position` has a component that is not finite",
        ),
        (
            "scene:object('a', { parent = 'a' })",
            "7: scene:object: `a` cannot be its own parent",
        ),
    ];
    for (body, first) in rows {
        let out = run(&render_row(body));
        let line = out.stderr.lines().next().unwrap_or_default();
        let expected = format!("frame 3: g/main.luau:{first}");
        assert!(
            line.starts_with(&expected),
            "{body}: first line {line:?}, expected {expected:?}"
        );
        assert_eq!(out.code, 1, "{body}");
        assert_eq!(
            out.stdout, "{\n  \"n\": 5\n}\n",
            "{body}: update ran on every frame"
        );
    }
}

#[test]
fn failures_while_loading_exit_2_with_one_line() {
    let rows: &[(&str, &str)] = &[
        (
            "local x = = 1",
            "moonloop: g/main.luau:1: Expected identifier when parsing expression, got '='",
        ),
        ("error('at load')", "moonloop: g/main.luau:1: at load"),
        (
            "return { init = function() error('in init') end }",
            "moonloop: g/main.luau:1: in init",
        ),
        (
            "return { init = function() while true do end end, config = { budget = 0.1 } }",
            "moonloop: g/main.luau:1: H9: init ran past its time budget of 0.1 s",
        ),
        (
            "return { init = function() return nil end }",
            "moonloop: g/main.luau:1: S4: init returned nil",
        ),
        (
            "local a = require('./main') return {}",
            "moonloop: g/main.luau:1: require cycle: g/main.luau requires g/main.luau",
        ),
        (
            "return { config = { width = -1 } }",
            "moonloop: g/main.luau: config.width should be a whole number from 1 to 4096",
        ),
        (
            "return { config = { background = 'nope' } }",
            "moonloop: g/main.luau: config.background: `nope` is not a color",
        ),
        (
            "return { config = { sounds = { wall = 'bleep' } } }",
            "moonloop: g/main.luau: config.sounds.wall: `bleep` is neither a .wav, .ogg or .flac file nor a built-in sound (blip, coin, hit, jump, explosion, powerup)",
        ),
        (
            "return { config = { actions = { jump = { 'spacebar' } } } }",
            "moonloop: g/main.luau: config.actions.jump names `spacebar`, which is not a key",
        ),
        (
            "return { config = { fullscreen = 'yes' } }",
            "moonloop: g/main.luau: config.fullscreen should be true or false",
        ),
        (
            "return { config = { icon = 'icon.gif' } }",
            "moonloop: g/main.luau: config.icon `icon.gif` is not a .png file",
        ),
        (
            "return { config = { icon = '/etc/icon.png' } }",
            "moonloop: g/main.luau: config.icon: `/etc/icon.png` is not a path inside the game folder",
        ),
        (
            "return { config = { id = 'my game' } }",
            "moonloop: g/main.luau: config.id `my game` is made of ASCII letters, digits, -, _ and .",
        ),
    ];
    for (main, first) in rows {
        let out = run(main);
        let line = out.stderr.lines().next().unwrap_or_default();
        assert!(
            line.starts_with(first),
            "{main}: first line {line:?}, expected {first:?}"
        );
        assert_eq!(
            out.stderr.lines().count(),
            1,
            "{main}: one line only:\n{}",
            out.stderr
        );
        assert_eq!(out.code, 2, "{main}");
    }
}

#[test]
fn one_games_modules_are_out_of_anothers_reach_across_reloads() {
    // Game `a` (inside `b`'s folder: a test sees its own game's folder and
    // nothing else) keeps its module in a global; game `b` looks for it. Each
    // game has a VM of its own, so `b` finds nothing, before and after both
    // reload, and `a`'s reload hands `a` its new module, not the old table.
    let dir = game(&[
        ("b/a/secret.luau", "return { key = 'a' }"),
        (
            "b/a/main.luau",
            "stash = require('./secret')\nreturn {\n  init = function() return { key = '' } end,\n  update = function() return { key = stash.key } end,\n}\n",
        ),
        (
            "b/main.luau",
            "return {\n  init = function() return { seen = '' } end,\n  update = function() return { seen = if stash then stash.key else 'nothing' } end,\n}\n",
        ),
        (
            "b/tests/reach.luau",
            "test('a module of game a is out of reach of game b', function()\n  local a = engine.new{ game = 'a' }\n  local b = engine.new()\n  a:advance(1)\n  b:advance(1)\n  expect(a.state.key).equals('a')\n  expect(b.state.seen).equals('nothing')\n  expect(stash).equals(nil)\n  a:reload{ ['secret.luau'] = \"return { key = 'a2' }\" }\n  b:reload()\n  a:advance(1)\n  b:advance(1)\n  expect(a.state.key).equals('a2')\n  expect(b.state.seen).equals('nothing')\nend)\n",
        ),
    ]);
    let out = moonloop(&["test", "b"], dir.path());
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    assert!(
        out.stdout.ends_with("1 passed, 0 failed\n"),
        "{}",
        out.stdout
    );
}

// rule: H10 (docs/sandbox.md, "Limits"): a game that fails a different way
// every time is printed up to a bound and counted past it; what the host
// keeps does not grow with the run.
#[test]
fn errors_that_differ_every_time_are_printed_up_to_a_bound() {
    let dir = game(&[(
        "g/main.luau",
        r#"return {
            init = function() return { n = 0 } end,
            update = function(state, input)
                for i = 1, 64 do input:pause(state.n .. ":" .. i) end
                return { n = state.n + 1 }
            end,
        }"#,
    )]);
    let out = common::headless(dir.path(), "g", "constant:1/60", 40, &["--print-state"]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert!(out.stdout.contains(r#""n": 40"#), "{}", out.stdout);
    let lines: Vec<&str> = out.stderr.lines().collect();
    // 1000 kinds, the line saying the rest are counted, and the sum.
    assert_eq!(lines.len(), 1002, "{}", lines[lines.len() - 1]);
    assert_eq!(
        lines[1000],
        "moonloop: more than 1000 different errors; from frame 16 on, new ones are counted, not printed"
    );
    assert_eq!(
        lines[1001],
        "moonloop: 1560 more errors past the first 1000 different ones were not printed"
    );
    assert!(lines[999].starts_with("frame 16: g/main.luau:4: input:pause: no sound `15:40`"));
}
