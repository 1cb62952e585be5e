//! Screen and scene calls from Luau with arbitrary arguments: each is
//! drawn or refused with a named error, and rasterizing never panics.
#![no_main]

use libfuzzer_sys::fuzz_target;
use moonloop::ConstantClock;
use moonloop::Engine;
use moonloop::LuaGame;

const VALUES: &[&str] = &[
    "0", "1", "-1", "0.5", "1e9", "-1e9", "0/0", "math.huge", "-math.huge", "100", "'red'", "'#fff8'", "nil",
    "{}", "{1, 2, 3, 4}", "vector.create(1, 2, 3)", "'cube'", "'x'", "true",
];
const CALLS: &[(&str, usize)] = &[
    ("screen:rect", 4),
    ("screen:circle", 3),
    ("screen:ellipse", 4),
    ("screen:line", 4),
    ("screen:text('hi', ", 2),
    ("screen:translate", 2),
    ("screen:rotate", 1),
    ("screen:scale", 2),
    ("screen:alpha", 1),
    ("screen:measure('x', ", 1),
    ("scene:camera{ position = ", 1),
];

fn call(bytes: &[u8]) -> String {
    let mut lines = Vec::new();
    for chunk in bytes.chunks(5) {
        let (name, arity) = CALLS[chunk[0] as usize % CALLS.len()];
        let args: Vec<&str> = (0..arity).map(|k| VALUES[*chunk.get(k + 1).unwrap_or(&0) as usize % VALUES.len()]).collect();
        let line = if name.ends_with(", ") {
            format!("{name}{})", args.join(", "))
        } else if name.ends_with("= ") {
            format!("{name}{} }}", args.join(", "))
        } else {
            format!("{name}({})", args.join(", "))
        };
        lines.push(format!("pcall(function() {line} end)"));
    }
    lines.join("\n")
}

fuzz_target!(|bytes: &[u8]| {
    // Panics the host contains (a decoder's, the rasterizer's) are refusals,
    // not findings.
    static HOOK: std::sync::Once = std::sync::Once::new();
    HOOK.call_once(moonloop::internals::error::forward_uncontained_panics);
    if bytes.len() > 200 {
        return;
    }
    let main = format!(
        "return {{ config = {{ width = 64, height = 48 }}, render = function(state, scene, screen)\n{}\nend }}",
        call(bytes)
    );
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("main.luau"), main).unwrap();
    let game = LuaGame::load(dir.path()).expect("the generated game loads");
    let mut engine = Engine::new(game, Box::new(ConstantClock::new(0.1)));
    engine.set_surface(96, 48);
    let _ = engine.advance(1);
    let _ = moonloop::screen_picture(&mut engine);
});
