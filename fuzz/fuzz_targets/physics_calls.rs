//! Physics calls from Luau with arbitrary arguments, one a frame, on a 2D
//! and a 3D world kept in the state, with the host going back a few
//! frames now and then (rules P1-P10, R1): each call steps or answers or
//! is refused with a named error at the author's line, nothing panics,
//! and playing frames again after going back gives the same state hash
//! as playing them the first time (the rapier world kept beside a world
//! table goes back with it).
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use moonloop::{ConstantClock, Engine, LuaGame};

/// What a `{NAME}` in a template becomes: one of these, by the next byte.
fn choices(name: &str) -> &'static [&'static str] {
    match name {
        "N" => &[
            "0", "1", "-1", "5", "40", "100", "0.001", "1e9", "-1e30", "0/0", "math.huge",
        ],
        "DT" => &["1/60", "1/60", "1/30", "0", "1", "-1", "0/0", "2"],
        "ID" => &["'a'", "'b'", "1", "2", "'floor'", "1.5", "true", "'nope'"],
        "SHAPE" => &[
            "physics.circle({N})",
            "physics.box({N}, {N})",
            "physics.capsule({N}, {N})",
            "physics.polygon({ 0, 0, 10, 0, 0, 10 })",
            "physics.polygon({ 0, 0, 1, 1, 2, 2 })",
            "physics.polygon({ {N}, {N}, {N} })",
            "physics.polyline({ 0, 0, 100, 0, 100, {N} })",
            "{ kind = 'circle', radius = {N} }",
            "physics.ball({N})",
        ],
        "SHAPE3" => &[
            "physics.ball({N})",
            "physics.cuboid({N}, {N}, {N})",
            "physics.cylinder({N}, {N})",
            "physics.capsule({N}, {N})",
            "physics.circle(1)",
        ],
        "KIND" => &["'dynamic'", "'fixed'", "'kinematic'", "'rocket'", "nil"],
        "BODY" => &[
            "{ x = {N}, y = {N}, shape = {SHAPE} }",
            "{ kind = {KIND}, x = {N}, y = {N}, shape = {SHAPE} }",
            "{ x = {N}, y = {N}, shape = {SHAPE}, sensor = true, data = { name = 'crate' } }",
            "{ x = {N}, y = {N}, vx = {N}, spin = {N}, shape = {SHAPE}, bullet = true, restitution = {N}, density = {N} }",
            "{ x = {N}, y = {N}, shape = {SHAPE}, group = {N}, mask = {N}, fixed_rotation = true }",
            "{ x = {N}, shape = {SHAPE}, pad = 1 }",
        ],
        "BODY3" => &[
            "{ x = {N}, y = {N}, z = {N}, shape = {SHAPE3} }",
            "{ kind = {KIND}, y = {N}, shape = {SHAPE3}, rotation = { x = {N}, y = 0, z = 0, w = {N} } }",
            "{ y = {N}, vz = {N}, spin = { x = {N}, y = 0, z = 0 }, shape = {SHAPE3}, sensor = true }",
        ],
        "JOINT" => &[
            "{ kind = 'revolute', a = {ID}, b = {ID} }",
            "{ kind = 'prismatic', a = {ID}, b = {ID}, axis = { x = {N}, y = {N} }, limits = { {N}, {N} } }",
            "{ kind = 'fixed', a = {ID}, b = {ID}, anchor_a = { x = {N}, y = {N} } }",
            "{ kind = 'rope', a = {ID}, b = {ID}, length = {N} }",
            "{ kind = 'glue', a = {ID}, b = {ID} }",
        ],
        "CMD" => &[
            "{ id = {ID}, impulse = { x = {N}, y = {N} } }",
            "{ id = {ID}, push = { x = {N}, y = {N} }, spin = {N} }",
            "{ id = {ID}, position = { x = {N}, y = {N} }, angle = {N} }",
            "{ id = {ID}, velocity = { x = {N}, y = {N} } }",
            "{ id = {ID}, walk = { x = {N}, y = {N} }, slope = {N}, stairs = {N} }",
        ],
        "CMD3" => &[
            "{ id = {ID}, impulse = { x = {N}, y = {N}, z = {N} } }",
            "{ id = {ID}, walk = { x = {N}, y = 0, z = {N} } }",
            "{ id = {ID}, rotation = { x = 0, y = {N}, z = 0, w = 1 }, position = { x = {N}, y = {N}, z = 0 } }",
        ],
        _ => &[],
    }
}

/// The statements a frame's `update` runs, on `w` (2D) and `v` (3D).
const STATEMENTS: &[&str] = &[
    "w = physics.step(w, {DT})",
    "w = physics.step(w, {DT})",
    "w = physics.step(w, {DT}, { {CMD} })",
    "w = physics.add(w, {ID}, physics.body({BODY}))",
    "w = physics.add(w, {ID}, physics.body({BODY}))",
    "w = physics.remove(w, {ID})",
    "w = physics.join(w, 'j', physics.joint({JOINT}))",
    "w = physics.unjoin(w, 'j')",
    "local _ = physics.ray(w, {N}, {N}, {N}, {N})",
    "local _ = physics.cast(w, {SHAPE}, {N}, {N}, {N}, {N})",
    "local _ = physics.touching(w, {ID}, {ID})",
    "for i = 1, 60 do w = physics.add(w, 100 + i, physics.body({ x = (i % 10) * {N}, y = (i // 10) * 9, shape = {SHAPE} })) end",
    "local p = physics.step(w, {DT})",
    "local t = table.clone(w); t.bodies = table.clone(w.bodies); t.bodies[{ID}] = nil; w = physics.step(t, {DT})",
    "v = physics.step(v, {DT})",
    "v = physics.step(v, {DT}, { {CMD3} })",
    "v = physics.add(v, {ID}, physics.body({BODY3}))",
    "v = physics.remove(v, {ID})",
    "local _ = physics.ray(v, {N}, {N}, {N}, {N}, {N}, {N})",
];

/// Fills each `{NAME}` of `template` by the bytes in turn.
fn fill(template: &str, bytes: &mut impl Iterator<Item = u8>, depth: usize) -> String {
    let mut out = String::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        let Some(close) = rest[open..].find('}').map(|c| open + c) else {
            break;
        };
        let name = &rest[open + 1..close];
        let options = choices(name);
        out.push_str(&rest[..open]);
        if options.is_empty() || depth > 4 {
            out.push_str(&rest[open..=close]);
        } else {
            let pick = options[usize::from(bytes.next().unwrap_or(0)) % options.len()];
            out.push_str(&fill(pick, bytes, depth + 1));
        }
        rest = &rest[close + 1..];
    }
    out.push_str(rest);
    out
}

fn folder() -> &'static tempfile::TempDir {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| {
        moonloop::error::forward_uncontained_panics();
        tempfile::tempdir().unwrap()
    })
}

const INIT: &str = "physics.world({ gravity = { x = 0, y = 600 }, bodies = { \
    floor = { kind = 'fixed', x = 0, y = 300, shape = physics.box(800, 20) }, \
    a = { x = 0, y = 250, shape = physics.circle(10) }, \
    b = { x = 15, y = 230, shape = physics.box(20, 20), data = { name = 'crate' } } } })";

const INIT3: &str = "physics.world3d({ bodies = { \
    floor = { kind = 'fixed', y = -0.5, shape = physics.cuboid(10, 1, 10) }, \
    a = { y = 1, shape = physics.ball(0.5) } } })";

fuzz_target!(|bytes: &[u8]| {
    if bytes.len() > 8 * 30 {
        return;
    }
    let chunks: Vec<&[u8]> = bytes.chunks(8).collect();
    let mut update = String::new();
    for (i, chunk) in chunks.iter().enumerate() {
        let statement = STATEMENTS[usize::from(chunk[0]) % STATEMENTS.len()];
        let line = fill(statement, &mut chunk[1..].iter().copied().cycle().take(64), 0);
        update.push_str(&format!("    if state.n == {} then {line} end\n", i + 1));
    }
    let main = format!(
        "local physics = require('@moonloop/physics')\nreturn {{\n  init = function() return {{ n = 0, w = {INIT}, v = {INIT3} }} end,\n  update = function(state)\n    local w, v = state.w, state.v\n{update}    return {{ n = state.n + 1, w = w, v = v }}\n  end,\n}}\n"
    );
    let dir = folder().path().join(format!("g{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("main.luau"), &main).unwrap();
    let game = LuaGame::load(&dir).expect("the generated game loads");
    let mut engine = Engine::new(game, Box::new(ConstantClock::new(1.0 / 60.0)));
    engine.keep_history(16 << 20).expect("history starts");
    let refused = |text: &str| {
        assert!(text.contains("main.luau:"), "refused without its place: {text}\n{main}");
        for word in ["Handle", "panicked at", "rapier", "mlua"] {
            assert!(!text.contains(word), "`{word}` in a refusal: {text}\n{main}");
        }
    };
    let hash = |engine: &Engine<LuaGame>| engine.game().state_hash().expect("a state hashes");
    for chunk in &chunks {
        if let Err(err) = engine.advance(1) {
            refused(&err.to_string());
        }
        // Now and then, back a few frames and play them again.
        let back = u64::from(chunk[0] >> 6);
        if back > 0 && engine.frame() > back {
            let was = hash(&engine);
            engine.rewind(back).expect("history holds the last frames");
            for _ in 0..back {
                if let Err(err) = engine.advance(1) {
                    refused(&err.to_string());
                }
            }
            assert_eq!(hash(&engine), was, "frames played again differ\n{main}");
        }
    }
});
