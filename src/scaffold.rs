//! `moonloop new NAME`: a game folder that runs, passes its test and
//! `moonloop check` from the start, with an editor set up for luau-lsp
//! (rule T2 in docs/checking.md).
//!
//! The folder carries the API's definitions and the runtime library's
//! sources in `.moonloop/`, which `.luaurc` and `.vscode/settings.json`
//! point the editor at, so completion and checking work without this
//! repository beside the game.

use std::path::Path;

use crate::error::{Error, Result};

mod template_2d;
mod template_3d;

/// The templates `moonloop new --template` offers.
pub const TEMPLATES: [&str; 3] = ["blank", "2d", "3d"];

const MAIN: &str = r##"--!strict
-- GAME_TITLE: move the square with the arrow keys (or WASD).

export type State = {
	x: number,
	y: number,
}

local SPEED = 240 -- pixels a second

local function init(): State
	return { x = 320, y = 180 }
end

local function update(state: State, input: Input, dt: number): State
	local dx = (if input:down("right") then 1 else 0) - (if input:down("left") then 1 else 0)
	local dy = (if input:down("down") then 1 else 0) - (if input:down("up") then 1 else 0)
	return {
		x = math.clamp(state.x + dx * SPEED * dt, 0, 640),
		y = math.clamp(state.y + dy * SPEED * dt, 0, 360),
	}
end

local function render(state: State, scene: Scene, screen: Screen)
	screen:rect(state.x - 16, state.y - 16, 32, 32, { fill = "#e0a040", radius = 4 })
	screen:text("GAME_TITLE", 12, 10, { size = 18, color = "#f0f0f0" })
end

local game: Game<State> = {
	config = {
		id = "GAME_ID",
		title = "GAME_TITLE",
		width = 640,
		height = 360,
		background = "#1e2030",
		actions = {
			left = { "left", "a" },
			right = { "right", "d" },
			up = { "up", "w" },
			down = { "down", "s" },
		},
	},
	init = init,
	update = update,
	render = render,
}

return game
"##;

const TEST: &str = r##"-- GAME_TITLE's tests: `moonloop test GAME_DIR` runs them headlessly.

test("the square moves right at its speed, whatever the frame rate", function()
	for _, clock in { "constant:1/60", "constant:1/144" } do
		local e = engine.new({ clock = clock })
		e:press("right")
		while e.time < 0.5 do
			e:advance(1)
		end
		expect(e.state.x).near(320 + 240 * e.time, 1e-6)
	end
end)
"##;

const README: &str = r##"# GAME_TITLE

Move the square with the arrow keys or WASD.

## Running

```sh
moonloop run GAME_DIR
```

## Testing and checking

```sh
moonloop test GAME_DIR
moonloop check GAME_DIR
```

`moonloop check` type-checks every `.luau` file against the moonloop API.
For an editor that checks as you type, install luau-lsp: `.luaurc` and
`.vscode/settings.json` already point it at the API's definitions in
`.moonloop/`.
"##;

const LUAURC: &str = r##"{
	"languageMode": "strict",
	"aliases": {
		"moonloop": ".moonloop/runtime"
	}
}
"##;

const VSCODE: &str = r##"{
	"luau-lsp.platform.type": "standard",
	"luau-lsp.sourcemap.enabled": false,
	"luau-lsp.types.definitionFiles": [".moonloop/moonloop.d.luau"],
	"luau-lsp.require.mode": "relativeToFile"
}
"##;

/// The API's definitions, as the host embeds them.
pub const DEFINITIONS: &str = include_str!("../runtime/moonloop.d.luau");

/// The longest game name: `config.id`'s bound.
pub const MAX_NAME: usize = 64;

/// Says whether `name` can name a new game: a letter or a digit first (a
/// name that starts with `-` reads as an option in every command the
/// game's README prints), then letters, digits, `-` and `_`, at most
/// [`MAX_NAME`] (it becomes the game's `config.id`).
fn is_game_name(name: &str) -> bool {
    name.len() <= MAX_NAME
        && name
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphanumeric())
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_".contains(c))
}

/// Writes `path` as one word of a shell command: as it is when it needs
/// no quoting, else in single quotes; `./` in front of one that starts
/// with `-`, so no command takes it for an option.
pub fn shell_word(path: &str) -> String {
    let path = if path.starts_with('-') {
        format!("./{path}")
    } else {
        path.to_string()
    };
    let plain = |c: char| c.is_ascii_alphanumeric() || "._/+-=:,@%".contains(c);
    if !path.is_empty() && path.chars().all(plain) {
        path
    } else {
        format!("'{}'", path.replace('\'', "'\\''"))
    }
}

/// Writes a new game folder at `dir` from `template` (one of
/// [`TEMPLATES`]).
///
/// # Errors
/// `dir` exists already, its name is not usable as a game's id, or a file
/// cannot be written.
pub fn new_game(dir: &Path, template: &str) -> Result<()> {
    if dir.exists() {
        return Err(Error::usage(format!(
            "`{}` exists already; name a folder that does not",
            dir.display()
        )));
    }
    let name = dir
        .file_name()
        .and_then(|n| n.to_str())
        .filter(|n| is_game_name(n))
        .ok_or_else(|| {
            Error::usage(format!(
                "`{}` is not a game name: a letter or a digit, then letters, digits, - and _, \
                 at most {MAX_NAME} in all (it becomes config.id)",
                crate::terminal::escape(&dir.display().to_string())
            ))
        })?;
    // The folder is written into the game's files (its README's commands,
    // a comment in its tests): a control character there would end a line
    // of Luau and start another.
    let path = dir.display().to_string();
    if path.chars().any(char::is_control) {
        return Err(Error::usage(format!(
            "`{}` holds a control character; name a folder without one",
            crate::terminal::escape(&path)
        )));
    }
    let title: String = name
        .split(['-', '_'])
        .filter(|w| !w.is_empty())
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map_or(String::new(), |f| f.to_uppercase().chain(c).collect())
        })
        .collect::<Vec<_>>()
        .join(" ");
    let shown = shell_word(&path);
    let fill = |text: &str| {
        text.replace("GAME_TITLE", &title)
            .replace("GAME_ID", &name.to_lowercase())
            .replace("GAME_DIR", &shown)
    };
    let (main, test, readme, extra): (_, _, _, &[(&str, &[u8])]) = match template {
        "2d" => (
            template_2d::MAIN,
            template_2d::TEST,
            template_2d::README,
            template_2d::FILES,
        ),
        "3d" => (
            template_3d::MAIN,
            template_3d::TEST,
            template_3d::README,
            template_3d::FILES,
        ),
        _ => (MAIN, TEST, README, &[]),
    };
    let mut files: Vec<(String, Vec<u8>)> = vec![
        ("main.luau".into(), fill(main).into()),
        ("tests/main.luau".into(), fill(test).into()),
        ("README.md".into(), fill(readme).into()),
        (".luaurc".into(), LUAURC.into()),
        (".vscode/settings.json".into(), VSCODE.into()),
        (".moonloop/moonloop.d.luau".into(), DEFINITIONS.into()),
    ];
    if template == "2d" {
        files.push((
            "fly.scenario.luau".into(),
            fill(template_2d::SCENARIO).into(),
        ));
    }
    for (file, bytes) in extra {
        files.push(((*file).into(), bytes.to_vec()));
    }
    for (module, source) in crate::lua::RUNTIME {
        files.push((format!(".moonloop/runtime/{module}.luau"), (*source).into()));
    }
    for (file, text) in files {
        let path = dir.join(&file);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| Error::io(parent, e))?;
        }
        crate::files::write(&path, text, crate::files::Readers::All)?;
    }
    Ok(())
}
