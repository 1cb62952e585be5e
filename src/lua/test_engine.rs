//! The engine a test builds (`local e = engine.new()`): a game stepped in
//! its own VM, driven by the test (advance, tap, rewind, reload, state_at,
//! seek, picture) and read back as copies of plain data (S5).

use std::sync::Arc;

use mlua::{Function, Lua, Table, UserData, UserDataFields, UserDataMethods, Value};

use super::engines::Member;
use super::game::LuaGame;
use super::vm::Budget;
use crate::engine::Engine;
use crate::input::{InputEvent, Key};
use crate::session::Session;
use crate::state;

/// An engine built by a test, stepping a game in its own VM.
pub(super) struct EngineHandle {
    /// The game and its recording, stepped as every runner steps one.
    session: Session<LuaGame>,
    /// Draws `e:picture()` of a frame with a 3D scene (made when first
    /// asked; a 2D frame is drawn on the CPU, exactly).
    pictures: Option<crate::compositor::Compositor>,
    /// Its place among the test file's engines, which share one cap.
    member: Member,
}

pub(super) fn fail(lua: &Lua, message: impl std::fmt::Display) -> mlua::Error {
    mlua::Error::RuntimeError(format!("{}{message}", super::location(lua, 1)))
}

impl EngineHandle {
    /// A handle on `engine`, recording to `capture`, sharing its test
    /// file's cap as `member`.
    pub(super) fn new(
        engine: Engine<LuaGame>,
        capture: Option<crate::capture::Capture>,
        member: Member,
    ) -> EngineHandle {
        // Cues are looked up as a run looks them up, so a sound that is
        // not there fails the test (H7).
        EngineHandle {
            session: Session::new(engine).capture(capture).look_up_cues(),
            pictures: None,
            member,
        }
    }

    fn key(lua: &Lua, name: &str) -> mlua::Result<Key> {
        Key::from_name(name)
            .or_else(|| Key::any_pad(name).map(|pads| pads[0]))
            .ok_or_else(|| {
                fail(
                    lua,
                    format!(
                        "no key `{name}` (keys are named like a, 1, space, left, mouse_left, \
                         pad1:south, pad:start)"
                    ),
                )
            })
    }

    /// Before game code runs: the game may hold what the other engines
    /// of the test file leave of their shared cap, and never more than
    /// its own config allows (H10).
    fn fit(&self) {
        let game = self.session.engine().game();
        let cap = self.member.share().min(crate::Game::config(game).memory);
        let _ = game.lua().set_memory_limit(cap);
    }

    /// Says why a frame failed: a game that ran out of memory the other
    /// engines of the test file left it, short of its own cap, is told
    /// whose memory it was (H10), not that it passed its cap (H9).
    fn why_it_failed(&self, err: crate::Error) -> String {
        let game = self.session.engine().game();
        let share = self.member.share();
        if share < crate::Game::config(game).memory && matches!(err, crate::Error::OutOfMemory(_)) {
            let frame = self.session.engine().frame();
            format!(
                "advance: frame {frame}: {}",
                super::engines::exhausted(share)
            )
        } else {
            self.in_game(err)
        }
    }

    /// The line of `err` with a recording's file named as the test named
    /// it, inside the game's folder, not where that lies on disk.
    fn in_game(&self, err: crate::Error) -> String {
        match err {
            crate::Error::Record { path, source } => {
                // The file was found from the folder's real path.
                let dir = self.session.engine().game().dir();
                let real = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
                let shown = path
                    .strip_prefix(&real)
                    .or_else(|_| path.strip_prefix(dir))
                    .unwrap_or(&path);
                format!(
                    "recording to {} failed: {source}",
                    crate::terminal::escape(&shown.to_string_lossy())
                )
            }
            other => other.chain(),
        }
    }

    fn state_into(&self, lua: &Lua) -> mlua::Result<Value> {
        let value =
            state::copy(self.session.engine().game().state(), lua).map_err(|e| fail(lua, e))?;
        if let Value::Table(t) = &value {
            freeze_deep(t)?;
        }
        Ok(value)
    }
}

/// Refuses an option `call` does not take, naming the ones it does.
pub(super) fn check_options(
    lua: &Lua,
    options: &Table,
    known: &[&str],
    call: &str,
) -> mlua::Result<()> {
    for pair in options.pairs::<Value, Value>() {
        let (key, _) = pair?;
        let name = match &key {
            Value::String(s) => s.to_string_lossy(),
            other => format!("a {}", other.type_name()),
        };
        if !known.contains(&name.as_str()) {
            return Err(fail(
                lua,
                format!("{call}: no option `{name}` (it takes {})", known.join(", ")),
            ));
        }
    }
    Ok(())
}

/// The most text a test's edits of its game's files hold, all together.
const MAX_EDITS: usize = 16 << 20;

/// Reads a count of frames a test gave `call`: a whole number, 0 or more,
/// as the author wrote it in the error (`rewind(2.5)`), not as a failed
/// conversion to i64.
fn whole_frames(lua: &Lua, call: &str, n: f64, rule: &str) -> mlua::Result<u64> {
    if n.fract() == 0.0 && (0.0..=9.007_199_254_740_992e15).contains(&n) {
        Ok(n as u64)
    } else {
        Err(fail(
            lua,
            format!("{call}({}): {rule}", crate::terminal::Number(n)),
        ))
    }
}

/// Freezes a copied state, so a test cannot mistake writing it for changing
/// the game (S3 holds on both sides).
fn freeze_deep(table: &Table) -> mlua::Result<()> {
    for pair in table.pairs::<Value, Value>() {
        if let (_, Value::Table(child)) = pair? {
            freeze_deep(&child)?;
        }
    }
    table.set_readonly(true);
    Ok(())
}

impl UserData for EngineHandle {
    fn add_fields<F: UserDataFields<Self>>(fields: &mut F) {
        fields.add_field_method_get("state", |lua, this| this.state_into(lua));
        fields.add_field_method_get("frame", |_, this| Ok(this.session.engine().frame()));
        fields.add_field_method_get("time", |_, this| Ok(this.session.engine().time()));
        fields.add_field_method_get("dt", |_, this| Ok(this.session.engine().last_dt()));
        fields.add_field_method_get("cues", |lua, this| {
            cue_list(lua, this.session.engine().cues().cues())
        });
        fields.add_field_method_get("quit", |_, this| {
            Ok(crate::Game::wants_to_quit(this.session.engine().game()))
        });
        fields.add_field_method_get("saved", |lua, this| {
            let Some(json) = this.session.engine().game().save_json() else {
                return Ok(Value::Nil);
            };
            let value =
                state::from_json(lua, json).map_err(|e| fail(lua, format!("saved: {e}")))?;
            if let Value::Table(t) = &value {
                freeze_deep(t)?;
            }
            Ok(value)
        });
    }

    fn add_methods<M: UserDataMethods<Self>>(methods: &mut M) {
        methods.add_method_mut("advance", |lua, this, ticks: Option<i64>| {
            this.fit();
            let ticks = ticks.unwrap_or(1);
            if ticks < 0 {
                return Err(fail(
                    lua,
                    format!("advance({ticks}): the number of ticks is 0 or more"),
                ));
            }
            // The frames run in the game's VM, where the test's budget
            // cannot interrupt; the loop asks it between frames instead.
            let budget = lua.app_data_ref::<Arc<Budget>>().map(|b| Arc::clone(&b));
            for _ in 0..ticks {
                if let Some(budget) = &budget
                    && budget.overran()
                {
                    return Err(budget.stopped(&super::location(lua, 1)));
                }
                if let Err(err) = this.session.advance(1) {
                    return Err(fail(lua, this.why_it_failed(err)));
                }
            }
            Ok(())
        });
        methods.add_method_mut("apply", |lua, this, transition: Function| {
            this.fit();
            let current = this.state_into(lua)?;
            let next: Value = transition.call(current)?;
            let game_lua = this.session.engine().game().lua().clone();
            let next =
                state::copy(&next, &game_lua).map_err(|e| fail(lua, format!("apply: {e}")))?;
            this.session
                .engine_mut()
                .game_mut()
                .set_state(next)
                .map_err(|e| fail(lua, format!("apply: {e}")))
        });
        for (name, make) in [
            ("press", InputEvent::Press as fn(Key) -> InputEvent),
            ("release", InputEvent::Release),
            ("tap", InputEvent::Tap),
        ] {
            methods.add_method_mut(name, move |lua, this, key: String| {
                let key = Self::key(lua, &key)?;
                this.session.engine_mut().input_mut().push(make(key));
                Ok(())
            });
        }
        methods.add_method_mut("axis", |lua, this, (name, value): (String, f64)| {
            if !value.is_finite() {
                return Err(fail(
                    lua,
                    format!(
                        "axis: {} is not a number from -1 to 1",
                        crate::terminal::Number(value)
                    ),
                ));
            }
            let event = InputEvent::parse(&["axis", &name, &value.to_string()], &[])
                .map_err(|why| fail(lua, format!("axis: {why}")))?;
            this.session.engine_mut().input_mut().push(event);
            Ok(())
        });
        methods.add_method_mut("type", |lua, this, text: mlua::LuaString| {
            let text = text.to_str().map_err(|_| fail(lua, "type: the text is not UTF-8"))?;
            if text.len() > crate::input::MAX_TEXT {
                return Err(fail(
                    lua,
                    format!(
                        "type: {} bytes is more than a frame holds ({}); type it over several frames",
                        text.len(),
                        crate::input::MAX_TEXT
                    ),
                ));
            }
            for piece in crate::input::TextPiece::split(&text) {
                this.session.engine_mut().input_mut().push(InputEvent::Text(piece));
            }
            Ok(())
        });
        methods.add_method_mut("move", |lua, this, (x, y): (f64, f64)| {
            if !(x.is_finite() && y.is_finite()) {
                return Err(fail(
                    lua,
                    format!(
                        "move({}, {}): the pointer moves to a finite place",
                        crate::terminal::Number(x),
                        crate::terminal::Number(y)
                    ),
                ));
            }
            this.session
                .engine_mut()
                .input_mut()
                .push(InputEvent::Move(x, y));
            Ok(())
        });
        methods.add_method_mut("rewind", |lua, this, frames: Option<f64>| {
            this.fit();
            let frames = whole_frames(
                lua,
                "rewind",
                frames.unwrap_or(1.0),
                "the number of frames is a whole number, 0 or more",
            )?;
            this.session
                .engine_mut()
                .rewind(frames)
                .map_err(|e| fail(lua, e))
        });
        methods.add_method_mut("seek", |lua, this, predicate: Function| {
            this.fit();
            // The predicate sees a frozen copy of each state: looking
            // never changes the run looked at.
            let found = this
                .session
                .engine_mut()
                .seek(|game, frame| {
                    let copied = state::copy(game.state(), lua)
                        .map_err(|e| crate::Error::script(format!("seek: {e}")))?;
                    if let Value::Table(t) = &copied {
                        freeze_deep(t).map_err(|e| crate::Error::script(e.to_string()))?;
                    }
                    let answer: Value = predicate.call((copied, frame)).map_err(|e| {
                        crate::Error::script(format!("seek: {}", super::describe(&e)))
                    })?;
                    Ok(!matches!(answer, Value::Nil | Value::Boolean(false)))
                })
                .map_err(|e| fail(lua, e))?;
            Ok(found.map_or(Value::Nil, |f| Value::Number(f as f64)))
        });
        methods.add_method_mut("state_at", |lua, this, frame: f64| {
            this.fit();
            let frame = whole_frames(lua, "state_at", frame, "frames are whole numbers, from 0")?;
            let copied = this
                .session
                .engine_mut()
                .with_state_at(frame, |game| state::copy(game.state(), lua))
                .map_err(|e| fail(lua, e))?
                .map_err(|e| fail(lua, e))?;
            if let Value::Table(t) = &copied {
                freeze_deep(t)?;
            }
            Ok(copied)
        });
        methods.add_method_mut("reload", |lua, this, (edits, options): (Option<Table>, Option<Table>)| {
            this.fit();
            let game = this.session.engine().game();
            let mut changed = Vec::new();
            // The edits, all read and checked before any is staged: one
            // that is refused (or a reload that fails) leaves the game's
            // files as they were, so the next reload does not meet it.
            let mut staged: Vec<(std::path::PathBuf, Vec<u8>)> = Vec::new();
            match edits {
                // No edits: every loaded file, as if all were saved again.
                None => changed = game.loaded_files(),
                Some(edits) => {
                    for pair in edits.pairs::<Value, Value>() {
                        let (file, edit) = pair?;
                        let Value::String(file) = file else {
                            return Err(fail(
                                lua,
                                "reload: each edit is keyed by a file of the game, as in { [\"main.luau\"] = ... }",
                            ));
                        };
                        let file = file.to_string_lossy();
                        // The test sees its game's folder and nothing else (H10).
                        let rel = crate::assets::check_name(&file)
                            .map_err(|why| fail(lua, format!("reload: {why}")))?
                            .to_path_buf();
                        let text = match edit {
                            Value::String(s) => s.as_bytes().to_vec(),
                            Value::Table(t) => {
                                let old = game
                                    .modules()
                                    .text(&rel)
                                    .map_err(|e| fail(lua, format!("reload: {e}")))?;
                                let mut text = String::from_utf8_lossy(&old).into_owned();
                                // One {find, replace}, or a list of them,
                                // applied in order.
                                let pairs: Vec<Table> = match t.raw_get::<Value>(1)? {
                                    Value::Table(_) => t.sequence_values::<Table>().collect::<mlua::Result<_>>()?,
                                    _ => vec![t],
                                };
                                for pair in pairs {
                                    let (find, replace) = match (pair.raw_get::<Value>(1)?, pair.raw_get::<Value>(2)?) {
                                        (Value::String(f), Value::String(r)) => (f.to_string_lossy(), r.to_string_lossy()),
                                        _ => {
                                            return Err(fail(
                                                lua,
                                                format!("reload: the edit of {file} is {{find, replace}} (two strings), or a list of them"),
                                            ));
                                        }
                                    };
                                    if !text.contains(&find) {
                                        return Err(fail(
                                            lua,
                                            format!("reload: `{find}` is not in {file}"),
                                        ));
                                    }
                                    text = text.replacen(&find, &replace, 1);
                                }
                                text.into_bytes()
                            }
                            _ => {
                                return Err(fail(
                                    lua,
                                    "reload: each edit is a file's new text, or {find, replace}",
                                ));
                            }
                        };
                        // Edits live in the host, outside the game's cap:
                        // each is at most a source file, and all of them
                        // together a bounded amount (H10).
                        crate::lua::require::check_source(&text)
                            .map_err(|why| fail(lua, format!("reload: {file}: {why}")))?;
                        let staging: usize = staged.iter().map(|(_, t)| t.len()).sum();
                        if game.modules().edited_bytes() + staging + text.len() > MAX_EDITS {
                            return Err(fail(
                                lua,
                                format!(
                                    "reload: a test's edits hold at most {} of text in all (H10)",
                                    crate::assets::bytes(MAX_EDITS as u64)
                                ),
                            ));
                        }
                        staged.push((rel, text));
                    }
                }
            }
            let from = match &options {
                None => None,
                Some(options) => {
                    check_options(lua, options, &["from"], "reload")?;
                    let from: i64 = options.get::<Option<i64>>("from")?.ok_or_else(|| {
                        fail(lua, "reload: the options are { from = FRAME }")
                    })?;
                    Some(u64::try_from(from).map_err(|_| {
                        fail(lua, format!("reload: from = {from}: frames count from 0"))
                    })?)
                }
            };
            // What the edits replace, put back when the reload fails.
            let mut replaced = Vec::new();
            for (rel, text) in staged {
                let before = this.session.engine().game().modules().edit(&rel, text);
                replaced.push((rel.clone(), before));
                changed.push(rel);
            }
            // true when the new code took; an error (the old code runs on,
            // as in a window) is raised where the test can expect it. With
            // `from`, the first frame the new code changed, or nil (R3).
            let reloaded = match from {
                None => this.session.engine_mut().reload(&changed).map(|_| Value::Boolean(true)),
                Some(from) => this
                    .session
                    .engine_mut()
                    .reload_from(&changed, from)
                    .map(|(_, diverged)| diverged.map_or(Value::Nil, |f| Value::Number(f as f64))),
            };
            reloaded.map_err(|e| {
                // Code that did not load is not kept as the file's text.
                for (rel, before) in replaced.into_iter().rev() {
                    this.session.engine().game().modules().unedit(&rel, before);
                }
                fail(lua, e)
            })
        });
        methods.add_method_mut("finish", |lua, this, ()| {
            match this.session.take_capture() {
                None => Ok(0),
                Some(capture) => capture
                    .recorder
                    .finish()
                    .map(|s| s.frames)
                    .map_err(|e| fail(lua, this.in_game(e))),
            }
        });
        methods.add_method_mut("picture", |lua, this, options: Option<Table>| {
            // P9: the physics view is drawn into a picture only when asked.
            let colliders = match &options {
                Some(options) => {
                    check_options(lua, options, &["colliders"], "picture")?;
                    match options.get::<Value>("colliders")? {
                        Value::Nil => false,
                        Value::Boolean(on) => on,
                        other => {
                            return Err(fail(
                                lua,
                                format!(
                                    "picture: colliders is true or false, not a {}",
                                    crate::state::type_of(&other)
                                ),
                            ));
                        }
                    }
                }
                None => false,
            };
            this.fit();
            let root = this.session.engine().game().dir().to_path_buf();
            let pixmap = if this.session.engine().scene().objects().is_empty() {
                crate::compositor::screen_picture(this.session.engine_mut())
            } else {
                if this.pictures.is_none() {
                    let made = crate::compositor::Compositor::headless()
                        .map_err(|e| fail(lua, format!("picture: {}", e.chain())))?;
                    this.pictures = Some(made);
                }
                let compositor = this.pictures.as_mut().expect("made above");
                let (pixmap, fault) = compositor.picture(this.session.engine_mut(), None);
                if let Some(fault) = fault {
                    return Err(fail(lua, format!("picture: {fault}")));
                }
                pixmap
            };
            let mut pixmap = pixmap;
            if colliders {
                let size = (pixmap.width(), pixmap.height());
                let viewport = crate::viewport::Viewport::whole(size, size);
                let shapes = this.session.engine().colliders();
                crate::colliders::draw(&mut pixmap, &shapes, &viewport);
            }
            let blessing = lua.app_data_ref::<super::picture::Blessing>().is_some();
            Ok(super::picture::Picture::new(pixmap, root, blessing))
        });
        methods.add_method("hash", |lua, this, ()| {
            this.session
                .engine()
                .game()
                .state_hash()
                .map_err(|e| fail(lua, e))
        });
        methods.add_method("json", |lua, this, ()| {
            this.session
                .engine()
                .game()
                .state_json()
                .map_err(|e| fail(lua, e))
        });
    }
}

/// Builds the `engine` library: `engine.new{ game = "..", clock = "..",
/// input = "..", budget = seconds }`.
/// The cues a run played, as tests and scenarios both see them: a list of
/// `{ frame, name, volume, pitch, pan }`.
pub(super) fn cue_list(lua: &Lua, cues: &[crate::cues::Cue]) -> mlua::Result<Table> {
    let list = lua.create_table()?;
    for cue in cues {
        let entry = lua.create_table()?;
        entry.raw_set("frame", cue.frame)?;
        entry.raw_set("name", &*cue.name)?;
        entry.raw_set("volume", cue.volume)?;
        entry.raw_set("pitch", cue.pitch)?;
        entry.raw_set("pan", cue.pan)?;
        entry.raw_set("action", cue.action.name())?;
        if cue.action != crate::cues::Action::Cue {
            if let Some(sound) = &cue.sound {
                entry.raw_set("sound", &**sound)?;
            }
            entry.raw_set("loop", cue.looped)?;
            entry.raw_set("bus", cue.bus.name())?;
            entry.raw_set("fade", cue.fade)?;
        }
        list.raw_push(entry)?;
    }
    Ok(list)
}
