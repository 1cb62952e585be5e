//! Gamepads (rule H6): pad buttons are keys, axes read through a dead
//! zone, both scriptable and replayed, and a bad pad name gets one line.

mod common;

use common::{game, moonloop};

const PAD_GAME: &str = r#"
return {
  config = { actions = { fire = { "x", "pad:south" } } },
  init = function() return { x = 0, fired = 0, any = 0 } end,
  update = function(s, input, dt)
    return {
      x = s.x + input:axis("pad2:leftx") * dt,
      fired = s.fired + (if input:pressed("fire") then 1 else 0),
      any = input:axis("pad:righttrigger"),
    }
  end,
}
"#;

// rule: H6
#[test]
fn pad_input_scripts_and_replays_like_keys() {
    let dir = game(&[
        ("g/main.luau", PAD_GAME),
        (
            "g/pad.txt",
            "1 press pad3:south\n2 release pad3:south\n1 axis pad2:leftx 1\n3 axis pad2:leftx 0.05\n2 axis pad4:righttrigger 1\n",
        ),
    ]);
    let out = common::headless(
        dir.path(),
        "g",
        "constant:1/4",
        4,
        &[
            "--print-state",
            "--input",
            "g/pad.txt",
            "--record-input",
            "pad.replay",
        ],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    // Two frames at full right (the third is inside the dead zone), one
    // press of pad 3 through `pad:south`, pad 4's trigger all the way.
    assert_eq!(
        out.stdout,
        "{\n  \"any\": 1,\n  \"fired\": 1,\n  \"x\": 0.5\n}\n"
    );
    let log = std::fs::read_to_string(dir.path().join("pad.replay")).unwrap();
    assert!(
        log.contains("\npress pad3:south\n") && log.contains("\naxis pad2:leftx 1\n"),
        "{log}"
    );
    let replayed = common::replay(dir.path(), "g", "pad.replay", "--print-state");
    assert_eq!(replayed.code, 0, "{}", replayed.stderr);
    assert_eq!(replayed.stdout, out.stdout);
}

// rule: H6
#[test]
fn unknown_pad_names_get_one_line() {
    let rows: &[(&str, &str, &str)] = &[
        (
            "return {}",
            "1 press pad5:south",
            "moonloop: g/in.txt:1: unknown key `pad5:south`",
        ),
        (
            "return {}",
            "1 press pad:jump",
            "moonloop: g/in.txt:1: unknown key `pad:jump`",
        ),
        (
            "return {}",
            "1 axis pad1:up 0.5",
            "moonloop: g/in.txt:1: unknown axis `pad1:up` (axes are named like pad1:leftx; the axes are leftx, lefty, rightx, righty, lefttrigger, righttrigger)",
        ),
        (
            "return {}",
            "1 axis pad1:leftx 2",
            "moonloop: g/in.txt:1: an axis reads from -1 to 1, not 2",
        ),
        (
            "return {}",
            "1 axis pad1:leftx -1e308",
            "moonloop: g/in.txt:1: an axis reads from -1 to 1, not -1e308",
        ),
        (
            "return { config = { actions = { jump = { 'pad:a' } } } }",
            "",
            "moonloop: g/main.luau: config.actions.jump names `pad:a`, which is not a key",
        ),
    ];
    for (main, input, first) in rows {
        let dir = game(&[("g/main.luau", main), ("g/in.txt", input)]);
        let out = moonloop(
            &[
                "run",
                "g",
                "--headless",
                "--frames",
                "1",
                "--input",
                "g/in.txt",
            ],
            dir.path(),
        );
        assert_eq!(out.code, 2, "{input}: {}", out.stderr);
        assert!(
            out.stderr.starts_with(first),
            "{input}\n  gave: {}\n  wanted: {first}",
            out.stderr
        );
        assert_eq!(out.stderr.lines().count(), 1, "{}", out.stderr);
    }
    // In Luau, a bad axis name is the game's error, with its line.
    let dir = game(&[(
        "main.luau",
        "return { update = function(s, input) input:axis('leftx') return s end }",
    )]);
    let err = common::session(dir.path())
        .advance(1)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("main.luau:1: input:axis(\"leftx\"): no axis by that name"),
        "{err}"
    );
}
