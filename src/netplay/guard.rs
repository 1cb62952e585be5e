//! The guard on a peer's socket (rule N3): what the other side sends is
//! read for who sent it and what it claims before GGRS takes it, and
//! dropped when no honest moonloop peer would send it. The other side is
//! the one party nobody vets: a count it sends is bounded before it is
//! used, and a spectator is read as a spectator.
//!
//! What is dropped, and why (docs/netplay.md lists the bounds):
//! - anything from an address that is not a peer of this session;
//! - inputs from a spectator (a spectator sends none but its goodbye;
//!   GGRS asserts on them and the players' game would end);
//! - a quality report claiming the sender is more than
//!   [`MAX_ADVANTAGE`] frames ahead or behind (GGRS would have this peer
//!   wait half of it, up to 16,383 frames, frozen);
//! - a quality reply whose time stamp is in the future or more than
//!   [`MAX_ROUND_TRIP`] old (the round trip shown would be a lie);
//! - inputs that start more than [`MAX_JUMP`] frames past the last the
//!   other player sent, and state hashes of frames not after the last
//!   one's or that far past its inputs (GGRS keeps every hash it is sent
//!   until its frame is confirmed: forged frames would pile up for ever).
//!
//! It also keeps what the session wants to know of the wire: which hash
//! reports came from the other player (so the closing line counts hashes
//! compared, not frames), and the magic number this peer's messages carry
//! to each side, so it can say goodbye on the way out.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::net::SocketAddr;
use std::rc::Rc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use ggrs::{Message, NonBlockingSocket};

use super::link::{Body, goodbye, inspect};

/// The most frames a peer may say it is ahead of this one (or behind):
/// one second. An honest peer is within its prediction window and input
/// delay of this one (24 frames at most).
pub const MAX_ADVANTAGE: i16 = 60;

/// The longest round trip a quality reply may show: a peer silent for
/// longer has been disconnected already.
pub const MAX_ROUND_TRIP: Duration = Duration::from_secs(60);

/// The most frames the other player's inputs or state hashes may move
/// on past its last inputs: two seconds. An honest peer's start where
/// this peer's acknowledgement left them, within its prediction window
/// and input delay (24 frames at most).
pub const MAX_JUMP: i32 = 120;

/// Hash reports of the other player's held until they are compared.
const MAX_REPORTS: usize = 64;

/// What the guard learned of the wire, shared with the session.
#[derive(Debug)]
pub(super) struct Heard {
    /// The other player.
    remote: SocketAddr,
    /// Who watches.
    spectators: Vec<SocketAddr>,
    /// The magic number this peer's messages carry, by the side they go to.
    magic: Vec<(SocketAddr, u16)>,
    /// Frames the other player sent its hash of, not yet confirmed here.
    reports: VecDeque<i32>,
    /// The last frame a report was counted for.
    last_report: i32,
    /// The latest frame the other player's inputs started at.
    last_input: i32,
    /// Hashes both sides had, compared by GGRS.
    compared: u64,
    /// Messages dropped.
    dropped: u64,
}

impl Heard {
    /// Counts as compared every hash report up to `confirmed` (GGRS
    /// compares a report once its frame is confirmed here); returns how
    /// many have been.
    pub(super) fn compared(&mut self, confirmed: i32) -> u64 {
        while self.reports.front().is_some_and(|&f| f <= confirmed) {
            self.reports.pop_front();
            self.compared += 1;
        }
        self.compared
    }

    /// Returns how many messages the guard dropped.
    pub(super) fn dropped(&self) -> u64 {
        self.dropped
    }

    /// Takes in a message `from`, or says it is dropped.
    fn admit(&mut self, from: SocketAddr, message: &Message) -> bool {
        let player = from == self.remote;
        if !player && !self.spectators.contains(&from) {
            return false;
        }
        let Some(shape) = inspect(message) else {
            return false;
        };
        match shape.body {
            // A spectator sends no inputs but its goodbye: an empty one
            // that asks to disconnect.
            Body::Input(input) if !player => input.disconnect_requested && input.bytes.is_empty(),
            Body::ChecksumReport(..) if !player => false,
            Body::QualityReport(ahead, _) => ahead.unsigned_abs() <= MAX_ADVANTAGE as u16,
            Body::QualityReply(stamp) => {
                let now = SystemTime::now()
                    .duration_since(UNIX_EPOCH)
                    .map_or(0, |d| d.as_millis());
                stamp <= now && now - stamp <= MAX_ROUND_TRIP.as_millis()
            }
            Body::Input(input) => {
                if input.start_frame > self.last_input.max(0) + MAX_JUMP {
                    return false;
                }
                self.last_input = self.last_input.max(input.start_frame);
                true
            }
            Body::ChecksumReport(_, frame) => {
                if frame <= self.last_report || frame > self.last_input.max(0) + MAX_JUMP {
                    return false;
                }
                self.last_report = frame;
                if self.reports.len() == MAX_REPORTS {
                    self.reports.pop_front();
                }
                self.reports.push_back(frame);
                true
            }
            _ => true,
        }
    }
}

/// A socket with the guard in front of it; the session keeps a second
/// handle ([`Guarded::watch`]) to read what it heard and to say goodbye.
pub struct Guarded<S> {
    socket: Rc<RefCell<S>>,
    heard: Rc<RefCell<Heard>>,
}

impl<S: NonBlockingSocket<SocketAddr>> Guarded<S> {
    /// Guards `socket` for a session with the other player at `remote`
    /// and `spectators` watching.
    pub(super) fn new(socket: S, remote: SocketAddr, spectators: Vec<SocketAddr>) -> Guarded<S> {
        Guarded {
            socket: Rc::new(RefCell::new(socket)),
            heard: Rc::new(RefCell::new(Heard {
                remote,
                spectators,
                magic: Vec::new(),
                reports: VecDeque::new(),
                last_report: -1,
                last_input: -1,
                compared: 0,
                dropped: 0,
            })),
        }
    }

    /// A second handle on the same socket and what it heard.
    pub(super) fn watch(&self) -> Guarded<S> {
        Guarded {
            socket: Rc::clone(&self.socket),
            heard: Rc::clone(&self.heard),
        }
    }

    /// Returns what the guard heard.
    pub(super) fn heard(&self) -> std::cell::RefMut<'_, Heard> {
        self.heard.borrow_mut()
    }

    /// Says goodbye to every side this peer has spoken to, so each ends
    /// at once rather than after its silence timeout. Sent three times:
    /// it is one datagram each, and may be lost.
    pub(super) fn say_goodbye(&self) {
        let heard = self.heard.borrow();
        let Ok(mut socket) = self.socket.try_borrow_mut() else {
            return;
        };
        for &(to, magic) in &heard.magic {
            if let Some(message) = goodbye(magic) {
                for _ in 0..3 {
                    socket.send_to(&message, &to);
                }
            }
        }
    }
}

impl<S: NonBlockingSocket<SocketAddr>> NonBlockingSocket<SocketAddr> for Guarded<S> {
    fn send_to(&mut self, message: &Message, to: &SocketAddr) {
        {
            let mut heard = self.heard.borrow_mut();
            if !heard.magic.iter().any(|(a, _)| a == to)
                && let Some(shape) = inspect(message)
            {
                heard.magic.push((*to, shape.magic));
            }
        }
        self.socket.borrow_mut().send_to(message, to);
    }

    fn receive_all_messages(&mut self) -> Vec<(SocketAddr, Message)> {
        let mut messages = self.socket.borrow_mut().receive_all_messages();
        let mut heard = self.heard.borrow_mut();
        let before = messages.len();
        messages.retain(|(from, message)| heard.admit(*from, message));
        heard.dropped += (before - messages.len()) as u64;
        messages
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bincode::Options as _;

    /// GGRS's messages as they go on the wire, to forge one.
    #[derive(serde::Serialize)]
    #[allow(dead_code)] // the variants before those used hold their place
    enum Body {
        SyncRequest(u32),
        SyncReply(u32),
        Input(Vec<(bool, i32)>, bool, i32, i32, Vec<u8>),
        InputAck(i32),
        QualityReport(i16, u128),
        QualityReply(u128),
        ChecksumReport(u128, i32),
    }

    fn message(body: Body) -> Message {
        let codec = bincode::DefaultOptions::new().with_limit(4096);
        codec
            .deserialize(&codec.serialize(&(7u16, body)).unwrap())
            .unwrap()
    }

    fn heard() -> Heard {
        Heard {
            remote: "127.0.0.1:1".parse().unwrap(),
            spectators: vec!["127.0.0.1:2".parse().unwrap()],
            magic: Vec::new(),
            reports: VecDeque::new(),
            last_report: -1,
            last_input: -1,
            compared: 0,
            dropped: 0,
        }
    }

    // rule: N3
    #[test]
    fn frame_numbers_a_peer_sends_are_bounded_before_ggrs_keeps_them() {
        let mut h = heard();
        let player: SocketAddr = "127.0.0.1:1".parse().unwrap();
        let input = |start| message(Body::Input(vec![(false, 0); 2], false, start, -1, vec![]));
        let hash = |frame| message(Body::ChecksumReport(1, frame));
        assert!(h.admit(player, &input(0)));
        assert!(h.admit(player, &hash(10)));
        assert!(!h.admit(player, &hash(10)), "a frame's hash once");
        assert!(!h.admit(player, &hash(9)), "hashes move on");
        assert!(
            !h.admit(player, &hash(1_000_000)),
            "no hash far past the inputs"
        );
        assert!(
            !h.admit(player, &input(1_000_000)),
            "no input far past the last"
        );
        assert!(h.admit(player, &input(100)));
        assert!(h.admit(player, &hash(200)));
        // A spectator sends neither; a stranger nothing at all.
        let spectator: SocketAddr = "127.0.0.1:2".parse().unwrap();
        assert!(!h.admit(spectator, &input(101)));
        assert!(!h.admit(spectator, &hash(300)));
        assert!(h.admit(spectator, &message(Body::InputAck(5))));
        let goodbye = message(Body::Input(vec![], true, 0, -1, vec![]));
        assert!(h.admit(spectator, &goodbye), "a spectator's goodbye");
        assert!(!h.admit("127.0.0.1:3".parse().unwrap(), &message(Body::InputAck(5))));
        // Reports past 60 frames ahead, and time stamps from 1970.
        assert!(!h.admit(player, &message(Body::QualityReport(i16::MAX, 0))));
        assert!(h.admit(player, &message(Body::QualityReport(8, 0))));
        assert!(!h.admit(player, &message(Body::QualityReply(1))));
    }
}
