//! `input:play`, `stop`, `pause`, `resume`, `set` and `bus`: the sound
//! actions `update` takes (rule H13). Each is checked when it is called
//! and logged with its frame; the host plays the log. A sound is named by
//! a string the game chose, so what the state keeps about it is plain
//! data, and a replay plays the same sounds.

use crate::terminal::Number;
use mlua::{Lua, LuaString, Table, UserDataMethods, Value};

use crate::cues::{Action, Cue, CueLog};
use crate::sound::Bus;

/// What the sound actions need of the handle they are added to (the
/// `input` of `update`): the frame's cue log and number, while the handle
/// is live. A trait, so that this file need not know the handle's type.
pub trait Cues {
    /// Returns the frame's cue log and number.
    ///
    /// # Errors
    /// The handle is used outside its `update` (C3).
    #[allow(clippy::mut_from_ref)] // a lease, as the handle's own are
    fn cue_log(&self, lua: &Lua) -> mlua::Result<(&mut CueLog, u64)>;
}

/// The longest fade, in seconds.
const MAX_FADE: f64 = 3600.0;

fn fail(lua: &Lua, call: &str, reason: impl std::fmt::Display) -> mlua::Error {
    mlua::Error::RuntimeError(format!("{}input:{call}: {reason}", super::location(lua, 1)))
}

/// What a sound action's options table may say.
#[derive(Default)]
struct Options {
    sound: Option<String>,
    looped: Option<bool>,
    volume: Option<f64>,
    pitch: Option<f64>,
    pan: Option<f64>,
    bus: Option<Bus>,
    fade: f64,
}

fn options(lua: &Lua, call: &str, table: Option<Table>, allowed: &[&str]) -> mlua::Result<Options> {
    let mut o = Options::default();
    let Some(table) = table else {
        return Ok(o);
    };
    let list = || allowed.join(", ");
    let within = |v: f64, what: &str, low: f64, high: f64, range: &str| {
        if (low..=high).contains(&v) {
            Ok(v)
        } else {
            Err(fail(
                lua,
                call,
                format!("`{what}` is {}; it {range}", Number(v)),
            ))
        }
    };
    table.for_each::<Value, Value>(|key, value| {
        let Some(key) = key.as_string().map(|k| k.to_string_lossy()) else {
            return Err(fail(
                lua,
                call,
                format!("its options are named: {}", list()),
            ));
        };
        if !allowed.contains(&key.as_str()) {
            return Err(fail(
                lua,
                call,
                format!(
                    "no option `{}` (it takes {})",
                    crate::terminal::escape(&key),
                    list()
                ),
            ));
        }
        let number = |what: &str| -> mlua::Result<f64> {
            match value {
                Value::Integer(i) => Ok(i as f64),
                Value::Number(n) if n.is_finite() => Ok(n),
                _ => Err(fail(lua, call, format!("`{what}` must be a finite number"))),
            }
        };
        match key.as_str() {
            "sound" => {
                let Value::String(s) = &value else {
                    return Err(fail(lua, call, "`sound` is a sound file or a cue name"));
                };
                o.sound = Some(name(lua, call, "a sound name", s)?);
            }
            "loop" => {
                o.looped = Some(
                    value
                        .as_boolean()
                        .ok_or_else(|| fail(lua, call, "`loop` is true or false"))?,
                );
            }
            "volume" => {
                o.volume = Some(within(
                    number("volume")?,
                    "volume",
                    0.0,
                    16.0,
                    "goes from 0 to 16",
                )?)
            }
            "pitch" => {
                // Above 0: the smallest positive number is the low end.
                let v = number("pitch")?;
                o.pitch = Some(within(
                    v,
                    "pitch",
                    f64::MIN_POSITIVE,
                    8.0,
                    "is above 0 and at most 8",
                )?);
            }
            "pan" => {
                o.pan = Some(within(
                    number("pan")?,
                    "pan",
                    -1.0,
                    1.0,
                    "goes from -1 to 1",
                )?)
            }
            "fade" => o.fade = fade(lua, call, number("fade")?)?,
            "bus" => {
                let b = value
                    .as_string()
                    .and_then(|s| Bus::from_name(&s.to_string_lossy()));
                match b {
                    Some(Bus::Master) | None => {
                        return Err(fail(lua, call, "`bus` is \"music\" or \"effects\""));
                    }
                    b => o.bus = b,
                }
            }
            _ => unreachable!("checked against `allowed`"),
        }
        Ok(())
    })?;
    Ok(o)
}

fn fade(lua: &Lua, call: &str, seconds: f64) -> mlua::Result<f64> {
    if !(0.0..=MAX_FADE).contains(&seconds) {
        return Err(fail(
            lua,
            call,
            format!(
                "`fade` is {}; it is seconds, from 0 to {MAX_FADE}",
                Number(seconds)
            ),
        ));
    }
    Ok(seconds)
}

fn name(lua: &Lua, call: &str, what: &str, s: &LuaString) -> mlua::Result<String> {
    super::args::text(what, s, crate::cues::MAX_NAME).map_err(|e| fail(lua, call, e))
}

/// Logs `cue`, raising the log's refusal at the author's line.
fn log(
    lua: &Lua,
    call: &str,
    this: &impl Cues,
    cue: impl FnOnce(&mut crate::cues::CueLog, u64) -> Result<Cue, String>,
) -> mlua::Result<()> {
    let (log, frame) = this.cue_log(lua)?;
    let cue = cue(log, frame).map_err(|e| fail(lua, call, e))?;
    log.push(cue).map_err(|e| fail(lua, call, e))
}

/// An action on a named sound that is not playing does nothing, and the
/// author hears of it in one line; the frame goes on.
fn not_playing(lua: &Lua, this: &impl Cues, call: &str, id: &str) -> mlua::Result<bool> {
    let (log, _) = this.cue_log(lua)?;
    if log.playing(id).is_some() {
        return Ok(false);
    }
    log.warn(format!(
        "{}input:{call}: no sound `{}` is playing (start it with input:play), so there is nothing to {call}",
        super::location(lua, 1),
        crate::terminal::escape(id)
    ));
    Ok(true)
}

/// Adds the sound actions to the `input` handle.
pub fn add_methods<H: Cues + 'static, M: UserDataMethods<H>>(methods: &mut M) {
    methods.add_method(
        "play",
        |lua, this, (id, opts): (LuaString, Option<Table>)| {
            let id = name(lua, "play", "a sound's name", &id)?;
            let allowed = ["sound", "loop", "volume", "pitch", "pan", "bus", "fade"];
            let o = options(lua, "play", opts, &allowed)?;
            log(lua, "play", this, |log, frame| {
                let sound = log.intern(o.sound.as_deref().unwrap_or(&id))?;
                Ok(Cue {
                    frame,
                    action: Action::Play,
                    name: log.intern(&id)?,
                    sound: Some(sound),
                    looped: o.looped.unwrap_or(false),
                    bus: o.bus.unwrap_or(Bus::Effects),
                    fade: o.fade,
                    volume: o.volume.unwrap_or(1.0),
                    pitch: o.pitch.unwrap_or(1.0),
                    pan: o.pan.unwrap_or(0.0),
                })
            })
        },
    );
    methods.add_method(
        "stop",
        |lua, this, (id, opts): (LuaString, Option<Table>)| {
            let id = name(lua, "stop", "a sound's name", &id)?;
            let o = options(lua, "stop", opts, &["fade"])?;
            simple(lua, this, "stop", Action::Stop, &id, o.fade)
        },
    );
    methods.add_method("pause", |lua, this, id: LuaString| {
        let id = name(lua, "pause", "a sound's name", &id)?;
        simple(lua, this, "pause", Action::Pause, &id, 0.0)
    });
    methods.add_method("resume", |lua, this, id: LuaString| {
        let id = name(lua, "resume", "a sound's name", &id)?;
        simple(lua, this, "resume", Action::Resume, &id, 0.0)
    });
    methods.add_method(
        "set",
        |lua, this, (id, opts): (LuaString, Option<Table>)| {
            let id = name(lua, "set", "a sound's name", &id)?;
            let o = options(lua, "set", opts, &["volume", "pitch", "pan", "fade"])?;
            if not_playing(lua, this, "set", &id)? {
                return Ok(());
            }
            log(lua, "set", this, |log, frame| {
                let (volume, pitch, pan) = log.playing(&id).unwrap_or((1.0, 1.0, 0.0));
                Ok(Cue {
                    frame,
                    action: Action::Set,
                    name: log.intern(&id)?,
                    sound: None,
                    looped: false,
                    bus: Bus::Effects,
                    fade: o.fade,
                    volume: o.volume.unwrap_or(volume),
                    pitch: o.pitch.unwrap_or(pitch),
                    pan: o.pan.unwrap_or(pan),
                })
            })
        },
    );
    methods.add_method(
        "bus",
        |lua, this, (bus, volume, opts): (LuaString, f64, Option<Table>)| {
            let shown = bus.to_string_lossy();
            let Some(bus) = Bus::from_name(&shown) else {
                return Err(fail(
                    lua,
                    "bus",
                    format!(
                        "no bus `{}` (the buses are master, music and effects)",
                        crate::terminal::escape(&shown)
                    ),
                ));
            };
            if !(volume.is_finite() && (0.0..=16.0).contains(&volume)) {
                return Err(fail(
                    lua,
                    "bus",
                    format!("the volume is {}; it goes from 0 to 16", Number(volume)),
                ));
            }
            let o = options(lua, "bus", opts, &["fade"])?;
            log(lua, "bus", this, |log, frame| {
                Ok(Cue {
                    frame,
                    action: Action::Bus,
                    name: log.intern(bus.name())?,
                    sound: None,
                    looped: false,
                    bus,
                    fade: o.fade,
                    volume,
                    pitch: 1.0,
                    pan: 0.0,
                })
            })
        },
    );
}

/// Logs a stop, pause or resume of named sound `id` (one that is not
/// playing is named in a line and does nothing).
fn simple(
    lua: &Lua,
    this: &impl Cues,
    call: &str,
    action: Action,
    id: &str,
    fade: f64,
) -> mlua::Result<()> {
    if not_playing(lua, this, call, id)? {
        return Ok(());
    }
    log(lua, call, this, |log, frame| {
        Ok(Cue {
            frame,
            action,
            name: log.intern(id)?,
            sound: None,
            looped: false,
            bus: Bus::Effects,
            fade,
            volume: 0.0,
            pitch: 1.0,
            pan: 0.0,
        })
    })
}
