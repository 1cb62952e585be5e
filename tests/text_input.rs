//! Typed text (rule H6): `input:text()` gives what was typed in a frame,
//! apart from key edges; scripts type with `text "..."`, replays record it.

mod common;

use common::{game, moonloop};

const NAME_ENTRY: &str = r#"
return {
  init = function() return { name = "", frames = {} } end,
  update = function(s, input, dt)
    local typed = input:text()
    local name = s.name .. typed
    if input:pressed("backspace") then name = string.sub(name, 1, #name - 1) end
    local frames = table.clone(s.frames)
    if typed ~= "" then table.insert(frames, typed) end
    return { name = name, frames = frames }
  end,
}
"#;

// rule: H6
#[test]
fn a_script_types_text_and_a_replay_types_it_again() {
    let dir = game(&[
        ("g/main.luau", NAME_ENTRY),
        // Space and `#` inside the quotes are text; the rest is a comment.
        (
            "g/typing.txt",
            "2 text \"Ada L#\" # a name\n3 press backspace\n3 text \"\\\"ove\\\\\"\n",
        ),
    ]);
    let out = common::headless(
        dir.path(),
        "g",
        "constant:1/60",
        4,
        &[
            "--input",
            "g/typing.txt",
            "--record-input",
            "run.replay",
            "--print-state",
        ],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    // Frame 3's backspace takes the last character of what it typed.
    assert!(
        out.stdout.contains("\"name\": \"Ada L#\\\"ove\""),
        "{}",
        out.stdout
    );
    // One entry a frame: frame 2 typed the name, frame 3 the rest.
    assert!(
        out.stdout
            .contains("\"frames\": [\n    \"Ada L#\",\n    \"\\\"ove\\\\\"\n  ]"),
        "{}",
        out.stdout
    );

    let log = std::fs::read_to_string(dir.path().join("run.replay")).unwrap();
    assert!(log.contains("\ntext \"Ada L#\"\n"), "{log}");
    let replayed = common::replay(dir.path(), "g", "run.replay", "--print-state");
    assert_eq!(replayed.code, 0, "{}", replayed.stderr);
    assert_eq!(replayed.stdout, out.stdout);
}

// rule: H6
#[test]
fn a_bad_text_line_is_named() {
    let dir = game(&[("g/main.luau", NAME_ENTRY), ("g/bad.txt", "1 text Ada\n")]);
    let out = moonloop(
        &[
            "run",
            "g",
            "--headless",
            "--frames",
            "1",
            "--input",
            "g/bad.txt",
        ],
        dir.path(),
    );
    assert_eq!(out.code, 2);
    assert_eq!(
        out.stderr.trim(),
        "moonloop: g/bad.txt:1: `text` takes a string in double quotes, like text \"Ada\""
    );
}
