//! `input:player(i)` (rule N2 in docs/netplay.md): one player's view of
//! the input. It answers `down`, `pressed` and `released` for the actions
//! `config.players` gives that player, and `axis` for their pad (player
//! `i` holds pad `i`). A game without `config.players` has one player,
//! whose actions are `config.actions`.
//!
//! Views are userdata made the first time a player is asked for and kept:
//! asking every frame allocates nothing.

use std::cell::RefCell;
use std::rc::Rc;

use mlua::{AnyUserData, Lua, LuaString, UserData, UserDataMethods, Value};

use super::leases::{Leases, Names, with_input};
use crate::config::MAX_PLAYERS;
use crate::input::{Axis, Binding, InputFrame, PAD_AXES};

/// The views made so far, by player.
#[derive(Default)]
pub(super) struct Views(RefCell<Vec<(usize, AnyUserData)>>);

impl Views {
    /// Player `player`'s view (from 1), made the first time.
    pub(super) fn view(
        &self,
        lua: &Lua,
        leases: &Rc<Leases>,
        player: &Value,
    ) -> mlua::Result<AnyUserData> {
        let count = with_input(leases, lua, players)?;
        let number = match player {
            Value::Integer(n) => Some(*n as f64),
            Value::Number(n) => Some(*n),
            _ => None,
        };
        let Some(n) = number.filter(|n| n.fract() == 0.0 && (1.0..=count as f64).contains(n))
        else {
            let took = if count == 1 {
                String::from("1 player (config.players says how many it takes)")
            } else {
                format!("{count} players, 1 to {count}")
            };
            let asked = match number {
                Some(n) => crate::terminal::Number(n).to_string(),
                None => format!("a {}", crate::state::type_of(player)),
            };
            return Err(mlua::Error::RuntimeError(format!(
                "{}input:player({asked}): the game takes {took}",
                super::location(lua, 1),
            )));
        };
        let index = n as usize - 1;
        if let Some((_, view)) = self.0.borrow().iter().find(|(i, _)| *i == index) {
            return Ok(view.clone());
        }
        let view = lua.create_userdata(PlayerHandle {
            leases: Rc::clone(leases),
            player: index,
            names: Names::default(),
            axes: Names::default(),
        })?;
        self.0.borrow_mut().push((index, view.clone()));
        Ok(view)
    }
}

/// How many players the game takes: those `config.players` lists, or one.
fn players(input: &InputFrame) -> usize {
    input.players().len().clamp(1, MAX_PLAYERS)
}

/// One player's view of the input.
struct PlayerHandle {
    leases: Rc<Leases>,
    /// The player, from 0.
    player: usize,
    names: Names,
    /// Axis names looked up, to their index in [`PAD_AXES`].
    axes: Names<usize>,
}

impl PlayerHandle {
    fn binding(&self, lua: &Lua, call: &str, name: &Value) -> mlua::Result<Binding> {
        let number = self.player + 1;
        let Value::String(name) = name else {
            return Err(mlua::Error::RuntimeError(format!(
                "{}input:player({number}):{call}: expected an action's name, got a {}",
                super::location(lua, 1),
                crate::state::type_of(name)
            )));
        };
        if let Some(binding) = self.names.cached(name) {
            // Still check the scope: the cache must not answer outside update.
            with_input(&self.leases, lua, |_| ())?;
            return Ok(binding);
        }
        let text = name.to_string_lossy();
        let found = with_input(&self.leases, lua, |input| {
            if input.players().is_empty() {
                // One player: theirs are the game's actions.
                let i = input.actions().iter().position(|a| a.name == text)?;
                return Some(Binding::Action(i));
            }
            input.player_binding(self.player, &text)
        })?;
        let Some(binding) = found else {
            let names: Vec<String> = with_input(&self.leases, lua, |input| {
                let actions = match input.players().get(self.player) {
                    Some(own) => own.as_slice(),
                    None => input.actions(),
                };
                actions.iter().map(|a| a.name.clone()).collect()
            })?;
            let names = if names.is_empty() {
                String::from("none")
            } else {
                names.join(", ")
            };
            return Err(mlua::Error::RuntimeError(format!(
                "{}input:player({number}):{call}(\"{}\"): player {number} has no action by that \
                 name (theirs: {names})",
                super::location(lua, 1),
                crate::terminal::escape(&text),
            )));
        };
        self.names.keep(name, binding);
        Ok(binding)
    }
}

impl UserData for PlayerHandle {
    fn add_methods<M: UserDataMethods<Self>>(methods: &mut M) {
        methods.add_method("down", |lua, this, name: Value| {
            let binding = this.binding(lua, "down", &name)?;
            with_input(&this.leases, lua, |input| input.down(binding))
        });
        methods.add_method("pressed", |lua, this, name: Value| {
            let binding = this.binding(lua, "pressed", &name)?;
            with_input(&this.leases, lua, |input| input.pressed(binding))
        });
        methods.add_method("released", |lua, this, name: Value| {
            let binding = this.binding(lua, "released", &name)?;
            with_input(&this.leases, lua, |input| input.released(binding))
        });
        methods.add_method("axis", |lua, this, name: LuaString| {
            let number = this.player + 1;
            let axis = this.axes.find(
                &name,
                |n| PAD_AXES.iter().position(|a| *a == n),
                |shown| {
                    format!(
                        "{}input:player({number}):axis(\"{shown}\"): no axis by that name (a \
                         player's axes are those of their pad: {})",
                        super::location(lua, 1),
                        PAD_AXES.join(", ")
                    )
                },
            )?;
            let axis = Axis {
                pad: Some(number),
                axis,
            };
            with_input(&this.leases, lua, |input| input.axis(axis))
        });
    }
}
