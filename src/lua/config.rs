//! The binding for a game's `config` table: read into the host's
//! [`Config`] when the game loads and each time it reloads.

use super::errors::script;
use std::time::Duration;

use mlua::{Table, Value};

use super::vm::Limits;
use crate::color::Rgba;
use crate::config::{
    Config, MAX_ACTIONS, MAX_PLAYERS as PLAYERS, MAX_SCALE, MAX_SIDE, MAX_TITLE, Scaling,
};
use crate::error::{Error, Result};
use crate::input::{Action, Key};
use crate::state;

pub(super) const CONFIG_FIELDS: &[&str] = &[
    "title",
    "width",
    "height",
    "background",
    "actions",
    "players",
    "budget",
    "memory",
    "pause_on_blur",
    "dev_controls",
    "sounds",
    "id",
    "fullscreen",
    "vsync",
    "cursor",
    "icon",
    "version",
    "scaling",
    "scale",
];
/// Reads `config.title`: at most [`MAX_TITLE`] characters, none of them
/// control characters (a window system refuses a NUL; a newline has no
/// place in a title bar).
fn read_title(value: &mlua::LuaString, file: &str) -> Result<String> {
    let bad = |why: &str| in_file(file, format!("config.title {why}"));
    if value.as_bytes().len() > 4 * MAX_TITLE {
        return Err(bad(&format!("is longer than {MAX_TITLE} characters")));
    }
    let title = value.to_string_lossy();
    if title.chars().count() > MAX_TITLE {
        return Err(bad(&format!("is longer than {MAX_TITLE} characters")));
    }
    if let Some(c) = title.chars().find(|c| c.is_control()) {
        return Err(bad(&format!(
            "holds the control character {}; a title is one line of text",
            crate::terminal::escape(&c.to_string())
        )));
    }
    Ok(title)
}

pub(super) fn read_config(
    game: &Table,
    file: &str,
    default_title: String,
    ceilings: Limits,
) -> Result<Config> {
    let mut config = Config {
        title: default_title,
        budget: ceilings.budget,
        memory: ceilings.memory,
        ..Config::default()
    };
    let table = match game.raw_get::<Value>("config").map_err(script)? {
        Value::Nil => return Ok(config),
        Value::Table(t) => t,
        other => {
            return Err(in_file(
                file,
                format!(
                    "config is a {}; it should be a table",
                    state::type_of(&other)
                ),
            ));
        }
    };
    let bad = |field: &str, want: &str| in_file(file, format!("config.{field} should be {want}"));
    // `players = N` reads `actions`, which may come later in the table.
    let mut players = Value::Nil;
    for pair in table.pairs::<Value, Value>() {
        let (key, value) = pair.map_err(script)?;
        let Value::String(key) = key else {
            return Err(in_file(file, "config has a key that is not a name"));
        };
        let key = key.to_string_lossy();
        let number = match &value {
            Value::Integer(i) => Some(*i as f64),
            Value::Number(n) => Some(*n),
            _ => None,
        };
        match key.as_str() {
            "title" => match &value {
                Value::String(s) => config.title = read_title(s, file)?,
                _ => return Err(bad("title", "a string")),
            },
            "version" => match &value {
                Value::String(s)
                    if (1..=64).contains(&s.as_bytes().len())
                        && s.to_str().is_ok_and(|v| !v.chars().any(char::is_control)) =>
                {
                    config.version = Some(s.to_string_lossy())
                }
                _ => {
                    return Err(bad(
                        "version",
                        "a string of 1 to 64 printable characters, such as \"1.2.0\"",
                    ));
                }
            },
            "width" | "height" => match number {
                Some(n) if (1.0..=MAX_SIDE as f64).contains(&n) && n.fract() == 0.0 => {
                    if key == "width" {
                        config.width = n as u32;
                    } else {
                        config.height = n as u32;
                    }
                }
                _ => return Err(bad(&key, &format!("a whole number from 1 to {MAX_SIDE}"))),
            },
            "scaling" => match &value {
                Value::String(s) if let Some(scaling) = Scaling::parse(&s.to_string_lossy()) => {
                    config.scaling = scaling
                }
                _ => {
                    return Err(bad(
                        "scaling",
                        "\"fit\" (as large as fits) or \"whole\" (whole pixels, for pixel art)",
                    ));
                }
            },
            "scale" => match number {
                Some(n) if (1.0..=MAX_SCALE as f64).contains(&n) && n.fract() == 0.0 => {
                    config.scale = n as u32
                }
                _ => {
                    return Err(bad(
                        "scale",
                        &format!("a whole number from 1 to {MAX_SCALE}"),
                    ));
                }
            },
            "background" => match &value {
                Value::String(s) => {
                    config.background = Rgba::parse(&s.to_string_lossy())
                        .map_err(|why| in_file(file, format!("config.background: {why}")))?
                }
                _ => return Err(bad("background", "a color string such as \"#1e1e2e\"")),
            },
            // A game may lower its limits, never raise them: only whoever
            // runs it may, with --budget and --memory (H10).
            "budget" => match number {
                Some(n) if n > 0.0 && n <= ceilings.budget.as_secs_f64() => {
                    config.budget = Duration::from_secs_f64(n)
                }
                Some(n) if n > 0.0 => {
                    return Err(in_file(
                        file,
                        format!(
                            "config.budget is {n} s; a game may lower its time budget but not \
                         raise it past {} s (whoever runs it can, with --budget) (H10)",
                            ceilings.budget.as_secs_f64()
                        ),
                    ));
                }
                _ => return Err(bad("budget", "seconds above 0, such as 0.5")),
            },
            "memory" => match number {
                Some(n) if n >= 1.0 && n * 1048576.0 <= ceilings.memory as f64 => {
                    config.memory = (n * 1048576.0) as usize
                }
                Some(n) if n >= 1.0 => {
                    return Err(in_file(
                        file,
                        format!(
                            "config.memory is {n} MiB; a game may lower its memory cap but not \
                         raise it past {} MiB (whoever runs it can, with --memory) (H10)",
                            ceilings.memory >> 20
                        ),
                    ));
                }
                _ => return Err(bad("memory", "megabytes, 1 or more, such as 256")),
            },
            "actions" => config.actions = read_actions(&value, file, "config.actions", None)?,
            "players" => players = value,
            "id" => {
                let Value::String(id) = &value else {
                    return Err(bad("id", "a name such as \"asteroids\""));
                };
                let id = id.to_string_lossy();
                crate::save::check_id(&id).map_err(|why| {
                    in_file(
                        file,
                        format!("config.id `{}` {why}", crate::terminal::escape(&id)),
                    )
                })?;
                config.id = Some(id);
            }
            "sounds" => config.sounds = read_sounds(&value, file)?,
            "pause_on_blur" | "dev_controls" | "fullscreen" | "vsync" | "cursor" => {
                let Value::Boolean(on) = value else {
                    return Err(bad(&key, "true or false"));
                };
                *match key.as_str() {
                    "pause_on_blur" => &mut config.pause_on_blur,
                    "dev_controls" => &mut config.dev_controls,
                    "fullscreen" => &mut config.fullscreen,
                    "vsync" => &mut config.vsync,
                    _ => &mut config.cursor,
                } = on;
            }
            "icon" => {
                let Value::String(name) = &value else {
                    return Err(bad(
                        "icon",
                        "a PNG in the game folder, such as \"icon.png\"",
                    ));
                };
                let name = name.to_string_lossy();
                // The name goes through the asset door's checks now; the
                // file is read when a window opens (headless runs have none).
                crate::assets::check_name(&name)
                    .map_err(|why| in_file(file, format!("config.icon: {why}")))?;
                if !name.to_ascii_lowercase().ends_with(".png") {
                    return Err(in_file(
                        file,
                        format!(
                            "config.icon `{}` is not a .png file",
                            crate::terminal::escape(&name)
                        ),
                    ));
                }
                config.icon = Some(name);
            }
            other => {
                return Err(in_file(
                    file,
                    format!(
                        "config.{other} is not a config field (the fields are {})",
                        CONFIG_FIELDS.join(", ")
                    ),
                ));
            }
        }
    }
    config.players = read_players(&players, table.raw_get("actions").map_err(script)?, file)?;
    Ok(config)
}

/// Reads `config.players` (N2): a count, each player given `actions`
/// with `pad:` meaning their own pad (and the keyboard and mouse for the
/// first player only), or a list of each player's own actions.
fn read_players(value: &Value, actions: Value, file: &str) -> Result<Vec<Vec<Action>>> {
    let bad = || {
        in_file(
            file,
            format!(
                "config.players should be how many players, 1 to {PLAYERS} (each given \
             config.actions on their own pad), or a list of each player's actions, as in \
             {{ {{ up = {{\"w\"}} }}, {{ up = {{\"up\"}} }} }}"
            ),
        )
    };
    match value {
        Value::Nil => Ok(Vec::new()),
        Value::Integer(_) | Value::Number(_) => {
            let count = match value {
                Value::Integer(n) => *n as f64,
                Value::Number(n) => *n,
                _ => unreachable!("matched above"),
            };
            if !(1.0..=PLAYERS as f64).contains(&count) || count.fract() != 0.0 {
                return Err(bad());
            }
            if actions.is_nil() {
                return Err(in_file(
                    file,
                    "config.players is a count, so each player is given config.actions, \
                     but there are none; declare actions, or list each player's own",
                ));
            }
            (1..=count as usize)
                .map(|player| {
                    let label = format!("config.players[{player}]");
                    read_actions(&actions, file, &label, Some(player))
                })
                .collect()
        }
        Value::Table(list) => {
            let count = list.raw_len();
            if count == 0 || count > PLAYERS || list.pairs::<Value, Value>().count() != count {
                return Err(bad());
            }
            (1..=count)
                .map(|player| {
                    let label = format!("config.players[{player}]");
                    read_actions(&list.raw_get(player).map_err(script)?, file, &label, None)
                })
                .collect()
        }
        _ => Err(bad()),
    }
}

fn read_sounds(value: &Value, file: &str) -> Result<Vec<(String, String)>> {
    let bad = || {
        in_file(
            file,
            "config.sounds should map cue names to a sound file or a built-in sound, \
             as in { wall = \"blip\", goal = \"sounds/cheer.ogg\" }",
        )
    };
    let Value::Table(table) = value else {
        return Err(bad());
    };
    let mut sounds = Vec::new();
    for pair in table.pairs::<Value, Value>() {
        let (Value::String(name), Value::String(to)) = pair.map_err(script)? else {
            return Err(bad());
        };
        let (name, to) = (name.to_string_lossy(), to.to_string_lossy());
        if !crate::sound::is_sound_file(&to) && crate::sound::built_in(&to).is_none() {
            return Err(in_file(
                file,
                format!(
                    "config.sounds.{name}: `{to}` is neither a .wav, .ogg or .flac file nor a \
                 built-in sound ({})",
                    crate::sound::BUILT_IN.join(", ")
                ),
            ));
        }
        sounds.push((name, to));
    }
    sounds.sort();
    Ok(sounds)
}

/// Reads a table of actions at `label` (`config.actions`, or one
/// player's). For player `own` of a counted `players`, `pad:` binds that
/// player's pad alone, and keys off the pads bind for the first player.
fn read_actions(value: &Value, file: &str, label: &str, own: Option<usize>) -> Result<Vec<Action>> {
    let bad = || {
        in_file(
            file,
            format!(
                "{label} should map names to lists of keys, as in {{ jump = {{\"space\", \"w\"}} }}"
            ),
        )
    };
    let Value::Table(table) = value else {
        return Err(bad());
    };
    let mut actions = Vec::new();
    for pair in table.pairs::<Value, Value>() {
        let (Value::String(name), Value::Table(keys)) = pair.map_err(script)? else {
            return Err(bad());
        };
        let name = name.to_string_lossy();
        let mut bound = Vec::new();
        for key in keys.sequence_values::<Value>() {
            let Value::String(key) = key.map_err(script)? else {
                return Err(bad());
            };
            let key = key.to_string_lossy();
            if let Some(pads) = Key::any_pad(&key) {
                match own {
                    Some(player) => bound.push(pads[player - 1]),
                    None => bound.extend(pads),
                }
                continue;
            }
            let key = Key::from_name(&key).ok_or_else(|| {
                in_file(
                    file,
                    format!(
                        "{label}.{name} names `{key}`, which is not a key \
                     (keys are named like a, 1, space, left, mouse_left, pad:south, pad2:start)"
                    ),
                )
            })?;
            if own.is_none_or(|player| player == 1 || key.name().starts_with("pad")) {
                bound.push(key);
            }
        }
        // An action shadows the key of the same name (`input:down("up")`
        // asks the action), so one named like a key must bind that key.
        // (A player's view reads actions alone: nothing is shadowed.)
        if label == "config.actions"
            && let Some(key) = Key::from_name(&name)
            && !bound.contains(&key)
        {
            return Err(in_file(
                file,
                format!(
                    "{label}.{name} is named like the key `{name}` but does not \
                     bind it, so input:down(\"{name}\") would stop reading that key; add \
                     \"{name}\" to its keys or rename the action"
                ),
            ));
        }
        if actions.len() == MAX_ACTIONS {
            return Err(in_file(
                file,
                format!("{label} has more than {MAX_ACTIONS} actions"),
            ));
        }
        actions.push(Action::new(name, &bound));
    }
    actions.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(actions)
}

/// A config that does not read, blamed on the file that declares it.
fn in_file(file: &str, what: impl Into<String>) -> Error {
    Error::Script(crate::Failure::in_file(file, what))
}
