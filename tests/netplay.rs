//! Ready for rollback (rule N1 in docs/netplay.md): the sync test rolls
//! back and runs again the last frames after every frame and names the
//! first frame that comes out differently, from the command line and
//! from a game's own tests.

mod common;

use common::{game, moonloop};

/// A game that counts frames, draws random numbers and follows a key:
/// everything it reads is in the state or the input.
const READY: &str = r#"return {
  config = { actions = { jump = { "space" } } },
  init = function() return { n = 0, roll = 0, jumps = 0 } end,
  update = function(state, input)
    return {
      n = state.n + 1,
      roll = math.random(1, 1000),
      jumps = state.jumps + (if input:pressed("jump") then 1 else 0),
    }
  end,
}
"#;

/// A game whose update reads a module-level counter it changes: run
/// again, a frame sees a different count.
const COUNTER: &str = r#"local calls = 0
return {
  init = function() return { n = 0 } end,
  update = function(state)
    calls += 1
    return { n = state.n + calls }
  end,
}
"#;

/// A game whose update picks the first of a table keyed by fresh tables,
/// whose order follows their addresses.
const TABLE_KEYS: &str = r#"return {
  init = function() return { n = 0, pick = 0 } end,
  update = function(state)
    local seen = {}
    for i = 1, 64 do seen[{ i = i }] = i end
    local first = 0
    for _, i in pairs(seen) do first = i break end
    return { n = state.n + 1, pick = first }
  end,
}
"#;

// rule: N1
#[test]
fn every_example_game_is_ready_for_rollback() {
    let games = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("games");
    let mut names: Vec<_> = std::fs::read_dir(&games)
        .expect("games/")
        .filter_map(|e| e.ok())
        .filter(|e| e.path().join("main.luau").is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert!(names.len() >= 5, "{names:?}");
    for name in names {
        let out = moonloop(
            &["synctest", &format!("games/{name}"), "--frames", "240"],
            games.parent().unwrap(),
        );
        assert!(
            out.code == 0 && out.stdout.contains("every one the same"),
            "{name}: exit {}\n{}{}",
            out.code,
            out.stdout,
            out.stderr
        );
    }
}

// rule: N1
#[test]
fn a_ready_game_passes_and_every_frame_is_checked() {
    let dir = game(&[("g/main.luau", READY)]);
    let out = moonloop(
        &["synctest", "g", "--frames", "100", "--depth", "5"],
        dir.path(),
    );
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    // Frames 5 to 100 each roll back 5: 96 windows of 5 frames.
    assert!(
        out.stdout
            .contains("100 frames played, each rolled back 5 frames: 480 frames run again"),
        "{}",
        out.stdout
    );
}

// rule: N1
#[test]
fn a_module_level_counter_is_found_at_its_first_frame() {
    let dir = game(&[("g/main.luau", COUNTER)]);
    let out = moonloop(&["synctest", "g"], dir.path());
    assert_eq!(out.code, 1, "{}{}", out.stdout, out.stderr);
    let first = out.stderr.lines().next().unwrap_or_default();
    // The first window is frames 1 to 7 run again from frame 0: frame 1
    // saw 8 calls where it had seen 1.
    assert!(
        first.starts_with("moonloop: N1: frame 1 came out differently when run again from frame 0")
            && first.contains("state.n: 1 -> 8")
            && first.contains("a module-level variable"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("--seed 0"), "{}", out.stderr);
    assert!(!out.stderr.contains("panicked"), "{}", out.stderr);
}

// rule: N1
#[test]
fn iterating_a_table_keyed_by_tables_is_found() {
    let dir = game(&[("g/main.luau", TABLE_KEYS)]);
    let out = moonloop(&["synctest", "g", "--frames", "600"], dir.path());
    assert_eq!(out.code, 1, "{}{}", out.stdout, out.stderr);
    assert!(
        out.stderr.contains("came out differently") && out.stderr.contains("state.pick: "),
        "{}",
        out.stderr
    );
}

// rule: N1
#[test]
fn a_frame_that_fails_on_its_own_is_told_apart() {
    let main = "return {\n  init = function() return { n = 0 } end,\n  update = function(state)\n    if state.n == 20 then error(\"out of luck\") end\n    return { n = state.n + 1 }\n  end,\n}\n";
    let dir = game(&[("g/main.luau", main)]);
    let out = moonloop(&["synctest", "g"], dir.path());
    assert_eq!(out.code, 1, "{}{}", out.stdout, out.stderr);
    assert!(
        out.stderr
            .contains("frame 21 failed before the sync test could check it")
            && out.stderr.contains("main.luau:4")
            && out.stderr.contains("out of luck"),
        "{}",
        out.stderr
    );
}

// rule: N1
#[test]
fn an_input_file_is_played_and_bad_settings_are_refused() {
    let input = "10 press space\n12 release space\n40 press space\n";
    let dir = game(&[("g/main.luau", READY), ("g/jumps.txt", input)]);
    let out = moonloop(
        &["synctest", "g", "--input", "g/jumps.txt", "--frames", "60"],
        dir.path(),
    );
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    // One rule for an input file, as `run --input` takes it: a path as
    // the shell gives it, absolute too.
    let absolute = dir.path().join("g/jumps.txt").display().to_string();
    let out = moonloop(
        &["synctest", "g", "--input", &absolute, "--frames", "60"],
        dir.path(),
    );
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    for (args, said) in [
        (&["synctest", "g", "--depth", "0"][..], "--depth"),
        (&["synctest", "g", "--depth", "65"][..], "--depth"),
        (
            &["synctest", "g", "--input", "../elsewhere.txt"][..],
            "elsewhere.txt",
        ),
        (&["synctest", "nowhere"][..], "nowhere"),
    ] {
        let out = moonloop(args, dir.path());
        assert_eq!(out.code, 2, "{args:?}: {}{}", out.stdout, out.stderr);
        assert!(
            out.stderr.lines().count() == 1 && out.stderr.contains(said),
            "{args:?}: {}",
            out.stderr
        );
    }
}

// rule: N1
#[test]
fn a_test_file_asks_for_a_sync_test() {
    let tests = r#"
test("a ready game passes, through a rewind", function()
	local e = engine.new({ synctest = true })
	e:press("space")
	e:advance(30)
	e:rewind(12)
	e:advance(30)
	expect(e.frame).equals(48)
	expect(e.state.jumps).equals(1)
end)
test("a counter is found", function()
	local e = engine.new({ game = "counter", synctest = 3 })
	expect(function()
		e:advance(10)
	end).errors("N1: frame 1 came out differently when run again from frame 0")
end)
test("the depth is bounded", function()
	expect(function()
		engine.new({ synctest = 0 })
	end).errors("synctest is true or the frames to roll back, 1 to 64")
	expect(function()
		engine.new({ synctest = 65 })
	end).errors("1 to 64")
end)
"#;
    let dir = game(&[
        ("g/main.luau", READY),
        ("g/counter/main.luau", COUNTER),
        ("g/tests/sync.luau", tests),
    ]);
    let out = moonloop(&["test", "g"], dir.path());
    assert!(
        out.code == 0 && out.stdout.contains("3 passed, 0 failed"),
        "exit {}\n{}{}",
        out.code,
        out.stdout,
        out.stderr
    );
}

/// A game of two players counted from its actions: each reads their own
/// pad, and the keyboard is the first player's.
const COUNTED: &str = r#"return {
  config = { players = 2, actions = { jump = { "space", "pad:south" } } },
  init = function() return { one = 0, two = 0, any = 0, x = 0 } end,
  update = function(state, input)
    return {
      one = state.one + (if input:player(1):down("jump") then 1 else 0),
      two = state.two + (if input:player(2):down("jump") then 1 else 0),
      any = state.any + (if input:down("jump") then 1 else 0),
      x = input:player(2):axis("leftx"),
    }
  end,
}
"#;

// rule: N2
#[test]
fn each_player_reads_their_own_keys_and_pad() {
    let tests = r#"
test("a count gives each player the actions on their own pad", function()
	local e = engine.new()
	e:press("space")
	e:advance(2)
	e:release("space")
	e:press("pad2:south")
	e:axis("pad2:leftx", 1)
	e:advance(3)
	expect(e.state.one).equals(2)
	expect(e.state.two).equals(3)
	expect(e.state.any).equals(5)
	expect(e.state.x).equals(1)
	-- Player 1's pad is theirs, not player 2's.
	e:release("pad2:south")
	e:press("pad1:south")
	e:advance(1)
	expect(e.state.one).equals(3)
	expect(e.state.two).equals(3)
end)
test("a list gives each player their own keys", function()
	local e = engine.new({ game = "listed" })
	e:press("w")
	e:press("down")
	e:advance(4)
	expect(e.state).equals({ a = 4, b = 0, c = 0, d = 4 })
end)
test("asking past the players, or for an action a player lacks, is one clear error", function()
	local e = engine.new({ game = "asks" })
	e:advance(1)
	expect(function()
		e:advance(1)
	end).errors("main.luau:6: input:player(3): the game takes 2 players, 1 to 2")
	local one = engine.new({ game = "one" })
	expect(function()
		one:advance(1)
	end).errors("input:player(2): the game takes 1 player (config.players says how many it takes)")
	local lacks = engine.new({ game = "lacks" })
	expect(function()
		lacks:advance(1)
	end).errors("input:player(1):down(\"fly\"): player 1 has no action by that name (theirs: jump)")
end)
"#;
    let listed = r#"return {
  config = { players = { { up = { "w" }, down = { "s" } }, { up = { "up" }, down = { "down" } } } },
  init = function() return { a = 0, b = 0, c = 0, d = 0 } end,
  update = function(s, input)
    local one, two = input:player(1), input:player(2)
    return {
      a = s.a + (if one:down("up") then 1 else 0), b = s.b + (if one:down("down") then 1 else 0),
      c = s.c + (if two:down("up") then 1 else 0), d = s.d + (if two:down("down") then 1 else 0),
    }
  end,
}
"#;
    let asks = "return {\n  config = { players = 2, actions = { go = { \"a\" } } },\n  init = function() return { n = 0 } end,\n  update = function(s, input)\n    if s.n == 1 then\n      input:player(3)\n    end\n    return { n = s.n + 1 }\n  end,\n}\n";
    let one =
        "return {\n  update = function(s, input)\n    input:player(2)\n    return s\n  end,\n}\n";
    let lacks = "return {\n  config = { actions = { jump = { \"space\" } } },\n  update = function(s, input)\n    input:player(1):down(\"fly\")\n    return s\n  end,\n}\n";
    let dir = game(&[
        ("g/main.luau", COUNTED),
        ("g/listed/main.luau", listed),
        ("g/asks/main.luau", asks),
        ("g/one/main.luau", one),
        ("g/lacks/main.luau", lacks),
        ("g/tests/players.luau", tests),
    ]);
    let out = moonloop(&["test", "g"], dir.path());
    assert!(
        out.code == 0 && out.stdout.contains("3 passed, 0 failed"),
        "exit {}\n{}{}",
        out.code,
        out.stdout,
        out.stderr
    );
}

// rule: N2
#[test]
fn a_bad_players_field_is_one_line_naming_it() {
    for (players, said) in [
        ("5", "config.players should be how many players, 1 to 4"),
        ("0", "config.players should be how many players"),
        ("1.5", "config.players should be how many players"),
        ("{}", "config.players should be how many players"),
        (
            "{ { up = { \"w\" } }, 3 }",
            "config.players[2] should map names to lists of keys",
        ),
        (
            "{ { up = { \"nokey\" } } }",
            "config.players[1].up names `nokey`, which is not a key",
        ),
        ("\"two\"", "config.players should be how many players"),
    ] {
        let main = format!(
            "return {{\n  config = {{ players = {players} }},\n  update = function(s) return s end,\n}}\n"
        );
        let line = common::load_error(&[("main.luau", &main)]);
        assert!(
            line.contains(said) && !line.contains('\n'),
            "{players}: {line}"
        );
    }
    let line = common::load_error(&[(
        "main.luau",
        "return { config = { players = 2 }, update = function(s) return s end }\n",
    )]);
    assert!(
        line.contains("config.players is a count, so each player is given config.actions"),
        "{line}"
    );
}
