//! What a peer says before the game (rule N3, H10): any packet is read as
//! a hello and, as the host would, answered; any packet is read as the
//! host's answer, as a joiner would. Nothing panics, and whatever a line
//! would print of what the peer sent (its game's name, the host's reason)
//! reaches the terminal escaped.
#![no_main]

use libfuzzer_sys::fuzz_target;
use moonloop::netplay::link::{self, GameId};

fuzz_target!(|data: &[u8]| {
    let mine = GameId {
        protocol: 1,
        name: "pong".into(),
        content: "0".repeat(64),
        players: 2,
    };
    if let Some((watch, theirs)) = link::read_hello(data) {
        let no_room = watch.then(|| "this host takes no spectators".to_string());
        match link::answer(&mine, &theirs, 7, no_room) {
            Ok(welcome) => assert_eq!(link::read_answer(&welcome), Some(Ok(7))),
            Err((why, refusal)) => {
                let shown = link::read_answer(&refusal).expect("an answer").unwrap_err();
                assert!(!shown.chars().any(char::is_control), "{shown:?}");
                assert!(!why.contains('\u{1b}'), "{why:?}");
            }
        }
    }
    if let Some(Err(why)) = link::read_answer(data) {
        assert!(!why.chars().any(char::is_control), "{why:?}");
    }
});
