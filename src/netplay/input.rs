//! What crosses the network each frame (rule N3): one player's actions,
//! held or not, as bits. A peer samples its own player's bits from the
//! keys and pads of its machine (through the first player's bindings,
//! whoever it plays), and every peer turns every player's bits back into
//! the same key events, so `input:player(i)` reads alike everywhere and a
//! replay of the session records them as any input.

use crate::Refusal;
use serde::{Deserialize, Serialize};

use crate::input::{Binding, InputEvent, InputFrame};

/// The most actions a player has online: one bit each.
pub const MAX_ACTIONS: usize = 32;

/// One player's input for one frame: bit `a` is action `a` of their list
/// held. `Default` (nothing held) is a player not there.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct NetInput {
    /// The actions held.
    pub held: u32,
}

/// Refuses a game that cannot be played online: fewer than two players,
/// or a player with more actions than an input carries.
///
/// # Errors
/// The line says which, and what to change.
pub fn check_players(players: &[Vec<crate::input::Action>]) -> Result<(), Refusal> {
    if players.len() < 2 {
        return Err(
            "N3: online play needs a game of two players or more: set config.players (2, or \
             each player's actions) and read them with input:player(i)"
                .into(),
        );
    }
    if let Some((i, many)) = players
        .iter()
        .enumerate()
        .find(|(_, actions)| actions.len() > MAX_ACTIONS)
    {
        return Err(refuse!(
            "N3: player {} has {} actions; online play carries at most {MAX_ACTIONS} a player",
            i + 1,
            many.len()
        ));
    }
    Ok(())
}

/// The local player's input, sampled from this machine's keys and pads.
pub struct Sampler {
    frame: InputFrame,
}

impl Sampler {
    /// A sampler reading the first player's bindings of `input`'s game.
    pub fn new(input: &InputFrame) -> Sampler {
        let mut frame = InputFrame::new(input.actions().to_vec());
        frame.set_actions(input.actions().to_vec(), input.players().to_vec());
        Sampler { frame }
    }

    /// Takes what happened to this machine's devices since the last sample.
    pub fn push(&mut self, event: InputEvent) {
        self.frame.push(event);
    }

    /// Returns the input frame events are queued on (a script feeds it).
    pub fn frame_mut(&mut self) -> &mut InputFrame {
        &mut self.frame
    }

    /// Returns what this machine's player, `player` (from 0), holds now:
    /// each of their actions, through its own keys or the keys of the
    /// first player's action of that name (so a peer plays with the keys
    /// of player 1, whichever player it is).
    pub fn sample(&mut self, player: usize) -> NetInput {
        self.frame.begin(|_| {});
        let players = self.frame.players();
        let mut held = 0u32;
        if let Some(actions) = players.get(player) {
            for (a, action) in actions.iter().enumerate().take(MAX_ACTIONS) {
                let own = self.frame.down(Binding::Player(player as u8, a as u16));
                let first = players[0]
                    .iter()
                    .position(|b| b.name == action.name)
                    .is_some_and(|b| self.frame.down(Binding::Player(0, b as u16)));
                if own || first {
                    held |= 1 << a;
                }
            }
        }
        self.frame.close();
        NetInput { held }
    }
}

/// Queues on `input` the key events that make each player's actions held
/// as `inputs` say: a press of an action's first key where it should be
/// held and is not, a release where it is and should not be.
pub fn apply(input: &mut InputFrame, inputs: &[NetInput]) {
    let mut events: Vec<InputEvent> = Vec::new();
    for (player, (net, actions)) in inputs.iter().zip(input.players()).enumerate() {
        for (a, action) in actions.iter().enumerate().take(MAX_ACTIONS) {
            let want = net.held & (1 << a) != 0;
            let binding = Binding::Player(player as u8, a as u16);
            let Some(key) = action.first_key() else {
                continue;
            };
            if want && !input.down(binding) {
                events.push(InputEvent::Press(key));
            } else if !want && input.down(binding) {
                // Every key of the action comes up, so none holds it.
                for key in action.keys() {
                    events.push(InputEvent::Release(key));
                }
            }
        }
    }
    for event in events {
        input.push(event);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::{Action, Key};

    fn key(name: &str) -> Key {
        Key::from_name(name).unwrap()
    }

    fn two_players() -> InputFrame {
        let mut frame = InputFrame::new(Vec::new());
        frame.set_actions(
            Vec::new(),
            vec![
                vec![
                    Action::new("up", &[key("w")]),
                    Action::new("fire", &[key("space")]),
                ],
                vec![
                    Action::new("up", &[key("up")]),
                    Action::new("fire", &[key("enter")]),
                ],
            ],
        );
        frame
    }

    #[test]
    fn a_peers_player_is_sampled_through_its_own_keys_or_the_first_players() {
        let mut sampler = Sampler::new(&two_players());
        sampler.push(InputEvent::Press(key("space")));
        assert_eq!(sampler.sample(0), NetInput { held: 0b10 });
        assert_eq!(sampler.sample(0), NetInput { held: 0b10 }, "still held");
        assert_eq!(
            sampler.sample(1),
            NetInput { held: 0b10 },
            "the second player fires with the first player's key too"
        );
        sampler.push(InputEvent::Release(key("space")));
        sampler.push(InputEvent::Press(key("up")));
        assert_eq!(
            sampler.sample(0),
            NetInput { held: 0 },
            "the second player's keys are not the first's"
        );
        assert_eq!(sampler.sample(1), NetInput { held: 0b01 }, "but their own");
    }

    #[test]
    fn each_players_bits_come_back_as_their_keys() {
        let mut frame = two_players();
        apply(
            &mut frame,
            &[NetInput { held: 0b01 }, NetInput { held: 0b10 }],
        );
        frame.begin(|_| {});
        assert!(frame.down(Binding::Player(0, 0)));
        assert!(!frame.down(Binding::Player(0, 1)));
        assert!(
            frame.pressed(Binding::Player(1, 1)),
            "an edge, as a key gives"
        );
        frame.close();
        apply(&mut frame, &[NetInput { held: 0b01 }, NetInput { held: 0 }]);
        frame.begin(|_| {});
        assert!(frame.down(Binding::Player(0, 0)), "held on");
        assert!(frame.released(Binding::Player(1, 1)));
        frame.close();
    }

    #[test]
    fn a_game_of_one_player_is_refused_online() {
        assert!(
            check_players(&[Vec::new()])
                .unwrap_err()
                .contains("two players")
        );
        assert!(check_players(two_players().players()).is_ok());
    }
}
