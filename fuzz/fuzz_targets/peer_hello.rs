//! What a peer says before the game (rule N3, H10): any packet is read as
//! a hello and, as the host would, answered; any packet is read as the
//! host's answer, as a joiner would. Nothing panics, and whatever a line
//! would print of what the peer sent (its game's name, the host's reason)
//! reaches the terminal escaped.
#![no_main]

use libfuzzer_sys::fuzz_target;
use moonloop::netplay::link::{self, Answered, GameId};

fuzz_target!(|data: &[u8]| {
    let mine = GameId {
        protocol: 1,
        name: "pong".into(),
        content: "0".repeat(64),
        players: 2,
    };
    if let Some((watch, theirs)) = link::read_hello(data) {
        let no_room = watch.then(|| "this host takes no spectators".to_string());
        let reply = link::answer(&mine, &theirs, 7, no_room);
        match (reply.refused, link::read_answer(&reply.packet)) {
            (None, answered) => assert_eq!(answered, Some(Answered::Welcome(7))),
            (Some(why), Some(Answered::Refused(shown))) => {
                assert!(!shown.chars().any(char::is_control), "{shown:?}");
                assert!(!why.contains('\u{1b}'), "{why:?}");
            }
            (Some(_), other) => panic!("a refusal reads as {other:?}"),
        }
    }
    if let Some(Answered::Refused(why)) = link::read_answer(data) {
        assert!(!why.chars().any(char::is_control), "{why:?}");
    }
});
