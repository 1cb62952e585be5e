//! The wire between two peers (rule N3): one UDP socket each. Before the
//! game, the joining peer says which game it holds (its name, the hash of
//! every file, its players) until the host welcomes it, with the seed both
//! games start from, or refuses it, saying why. A spectator says the same
//! with another first byte, and is welcomed alike. Then the socket carries
//! GGRS's messages. Everything read off the network is bounded before it
//! is decoded: a packet is at most [`MAX_PACKET`] bytes.

use super::{Unlinked, Waiting};
use std::net::{SocketAddr, UdpSocket};
use std::path::Path;
use std::time::{Duration, Instant};

use bincode::Options as _;
use ggrs::{Message, NonBlockingSocket};
use serde::{Deserialize, Serialize};

/// The largest packet read or written.
pub const MAX_PACKET: usize = 4096;

/// What the first byte of a packet says it is.
const HELLO: u8 = 1;
const WELCOME: u8 = 2;
const REFUSED: u8 = 3;
const GGRS: u8 = 4;
/// A hello from a peer that watches rather than plays.
const WATCH: u8 = 5;

/// Bumped when what peers say to each other changes.
const PROTOCOL: u32 = 1;

/// How often a joining peer says hello until it is answered.
const HELLO_EVERY: Duration = Duration::from_millis(200);

/// Which game a peer holds: the same name, files and players on both
/// sides, or no game.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameId {
    /// What peers say to each other's version.
    pub protocol: u32,
    /// The game's `config.id`, else its title.
    pub name: String,
    /// The BLAKE3 hash of every file of the game, by path.
    pub content: String,
    /// Its players.
    pub players: u32,
}

impl GameId {
    /// The game in `folder`, named `name`, of `players` players.
    pub fn of(folder: &Path, name: &str, players: usize) -> GameId {
        let mut all = blake3::Hasher::new();
        for (path, hash) in crate::report::hash_files(folder) {
            all.update(path.as_bytes());
            all.update(b"\0");
            all.update(hash.as_bytes());
            all.update(b"\n");
        }
        GameId {
            protocol: PROTOCOL,
            name: name.to_string(),
            content: all.finalize().to_hex().to_string(),
            players: players as u32,
        }
    }

    /// Says how `other` differs from this game, if it does.
    fn differs(&self, other: &GameId) -> Option<String> {
        if other.protocol != self.protocol {
            return Some(format!(
                "it speaks moonloop's online protocol {}, this host {}: run the same moonloop",
                other.protocol, self.protocol
            ));
        }
        if other.name != self.name {
            return Some(format!(
                "it holds the game `{}`, this host `{}`",
                crate::terminal::escape(&other.name),
                crate::terminal::escape(&self.name)
            ));
        }
        if other.content != self.content {
            return Some(
                "its game's files are not this host's (another version, or an edit): both \
                 sides need the same files"
                    .into(),
            );
        }
        if other.players != self.players {
            return Some(format!(
                "its game takes {} players, this host's {}",
                other.players, self.players
            ));
        }
        None
    }
}

/// What the host answers a hello with.
#[derive(Debug, Clone, Serialize, Deserialize)]
enum Answer {
    /// Play: both games start from `seed`.
    Welcome { seed: u64 },
    /// Not this game: why.
    Refused { why: String },
}

/// Reads a hello off the network: whether the peer would watch, and the
/// game it holds; `None` for any packet that is not a hello, of any size
/// or content (the fuzz target `peer_hello` feeds it).
pub fn read_hello(packet: &[u8]) -> Option<(bool, GameId)> {
    let (&tag @ (HELLO | WATCH), body) = packet.split_first()? else {
        return None;
    };
    let theirs = codec().deserialize::<GameId>(body).ok()?;
    Some((tag == WATCH, theirs))
}

/// The host's answer to a hello, as the joining peer reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answered {
    /// Play: both games start from this seed.
    Welcome(u64),
    /// Not this game: why, made safe to print.
    Refused(String),
}

/// Reads the host's answer to a hello; `None` for any packet that is not
/// an answer.
pub fn read_answer(packet: &[u8]) -> Option<Answered> {
    let (&(WELCOME | REFUSED), body) = packet.split_first()? else {
        return None;
    };
    match codec().deserialize::<Answer>(body).ok()? {
        Answer::Welcome { seed } => Some(Answered::Welcome(seed)),
        Answer::Refused { why } => Some(Answered::Refused(crate::terminal::line(&why))),
    }
}

/// What a host says to a hello: the packet, and why it is a refusal
/// (`None` for a welcome).
#[derive(Debug, Clone)]
pub struct Reply {
    /// The packet to send.
    pub packet: Vec<u8>,
    /// Why the peer is turned away, in the host's words; none when welcome.
    pub refused: Option<String>,
}

/// What a host answers the hello of a peer holding `theirs`, its game
/// being `game`: a welcome with `seed`, or a refusal saying why (how
/// `theirs` differs, or `no_room`).
pub fn answer(game: &GameId, theirs: &GameId, seed: u64, no_room: Option<String>) -> Reply {
    match game.differs(theirs).or(no_room) {
        Some(why) => Reply {
            packet: packet(REFUSED, &Answer::Refused { why: why.clone() }),
            refused: Some(why),
        },
        None => Reply {
            packet: packet(WELCOME, &Answer::Welcome { seed }),
            refused: None,
        },
    }
}

/// The encoding of everything on the wire, bounded.
fn codec() -> impl bincode::Options {
    bincode::DefaultOptions::new().with_limit(MAX_PACKET as u64)
}

fn packet(tag: u8, body: &impl Serialize) -> Vec<u8> {
    let mut bytes = vec![tag];
    // Bounded, and of types that always encode: a failure is a bug.
    bytes.extend(codec().serialize(body).unwrap_or_default());
    bytes
}

/// Reads a GGRS message off a packet from the network: `None` for any
/// packet that is not one, of any size or content (what the fuzz target
/// `net_packet` feeds a peer through). An input's compressed bytes are
/// decoded here first, where a decoder that panics on hostile bytes (GGRS
/// 0.13's does) is contained, and such a packet dropped.
pub fn decode(packet: &[u8]) -> Option<Message> {
    let (&GGRS, body) = packet.split_first()? else {
        return None;
    };
    if packet.len() > MAX_PACKET {
        return None;
    }
    if let Ok(Shape {
        body: Body::Input(input),
        ..
    }) = codec().deserialize::<Shape>(body)
    {
        // Counted before anything is made of it: a length the bytes claim
        // is read first, and a packet whose inputs would unpack past
        // MAX_PACKET is dropped (GGRS would allocate what they claim).
        let readable = crate::error::contain_panic(|| {
            bitfield_rle::decode_len(&input.bytes).is_ok_and(|n| n <= MAX_PACKET)
                && bitfield_rle::decode(&input.bytes).is_ok()
        });
        if readable != Some(true) || input.peer_connect_status.len() > 8 {
            return None;
        }
    }
    codec().deserialize(body).ok()
}

// GGRS 0.13's message, as it goes on the wire, for `decode` and the guard
// (guard.rs) to look into (its own types are private to it). A message of
// another shape is not looked into and goes to GGRS as it is.
#[derive(Debug, Deserialize)]
pub(super) struct Shape {
    pub(super) magic: u16,
    pub(super) body: Body,
}

#[derive(Debug, Deserialize)]
#[allow(dead_code)] // what is not checked is read only to be skipped over
pub(super) enum Body {
    SyncRequest(u32),
    SyncReply(u32),
    Input(InputShape),
    InputAck(i32),
    /// The frames the sender says it is ahead, and its time stamp.
    QualityReport(i16, u128),
    /// The time stamp of a report, sent back.
    QualityReply(u128),
    /// A confirmed frame's state hash, and the frame.
    ChecksumReport(u128, i32),
    KeepAlive,
}

#[derive(Debug, Deserialize)]
#[allow(dead_code)] // as `Body`
pub(super) struct InputShape {
    pub(super) peer_connect_status: Vec<(bool, i32)>,
    pub(super) disconnect_requested: bool,
    pub(super) start_frame: i32,
    pub(super) ack_frame: i32,
    pub(super) bytes: Vec<u8>,
}

/// Reads what `message` says, as [`Shape`]; `None` for one of a shape
/// GGRS does not send.
pub(super) fn inspect(message: &Message) -> Option<Shape> {
    let bytes = codec().serialize(message).ok()?;
    codec().deserialize(&bytes).ok()
}

/// The message that says goodbye: an input that asks to disconnect, which
/// GGRS on the other side takes as this peer leaving, at once (without it
/// the other side waits out its silence timeout). `magic` is the one this
/// peer's messages to that side carry, without which GGRS drops it.
pub(super) fn goodbye(magic: u16) -> Option<Message> {
    /// The start of GGRS 0.13's message body, in its order: only the third
    /// variant is written.
    #[derive(Serialize)]
    #[allow(dead_code)] // only `Input` is made
    enum Out {
        SyncRequest(u32),
        SyncReply(u32),
        Input(Vec<(bool, i32)>, bool, i32, i32, Vec<u8>),
    }
    let bytes = codec()
        .serialize(&(magic, Out::Input(Vec::new(), true, 0, -1, Vec::new())))
        .ok()?;
    codec().deserialize(&bytes).ok()
}

/// Writes `message` as a packet, as a peer sends it.
pub fn encode(message: &Message) -> Vec<u8> {
    packet(GGRS, message)
}

/// A peer's socket: the handshake, then GGRS's messages.
pub struct Link {
    socket: UdpSocket,
    /// The welcome the host answered each peer with, to answer again a
    /// hello that comes after it (the first welcome was lost).
    welcomed: Vec<(SocketAddr, Vec<u8>)>,
    buffer: Vec<u8>,
}

impl Link {
    fn bind(address: SocketAddr) -> Result<Link, Unlinked> {
        let listen = |source| Unlinked::Listen { address, source };
        let socket = UdpSocket::bind(address).map_err(listen)?;
        socket.set_nonblocking(true).map_err(listen)?;
        Ok(Link {
            socket,
            welcomed: Vec::new(),
            buffer: vec![0; MAX_PACKET + 1],
        })
    }

    /// Returns the address this peer listens on.
    pub fn address(&self) -> Option<SocketAddr> {
        self.socket.local_addr().ok()
    }

    /// Reads one packet, if one is waiting: who sent it and its bytes.
    fn read(&mut self) -> Option<(SocketAddr, Vec<u8>)> {
        loop {
            match self.socket.recv_from(&mut self.buffer) {
                // A packet larger than any peer sends is dropped.
                Ok((n, _)) if n > MAX_PACKET || n == 0 => continue,
                Ok((n, from)) => return Some((from, self.buffer[..n].to_vec())),
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => return None,
                // ICMP news of a peer gone (connection refused) and the
                // like: the session's own timeout says so.
                Err(_) => return None,
            }
        }
    }

    /// Listens on `address` for a player holding `game` and for
    /// `spectators` peers to watch, for at most `wait`; welcomes the first
    /// player and the first `spectators` watchers that hold it, with
    /// `seed`, and says to every other why not. Returns the link, the
    /// player's address and the watchers'.
    ///
    /// # Errors
    /// The address cannot be listened on, nobody came in time, or the
    /// run was interrupted.
    pub fn host(
        address: SocketAddr,
        game: &GameId,
        seed: u64,
        wait: Duration,
        spectators: usize,
    ) -> Result<(Link, SocketAddr, Vec<SocketAddr>), Unlinked> {
        let mut link = Link::bind(address)?;
        let until = Instant::now() + wait;
        let mut player = None;
        let mut watching = Vec::new();
        while Instant::now() < until {
            if let Some(player) = player
                && watching.len() == spectators
            {
                return Ok((link, player, watching));
            }
            if crate::interrupt::requested() {
                return Err(Unlinked::Interrupted(Waiting::ForPlayer));
            }
            let Some((from, bytes)) = link.read() else {
                std::thread::sleep(Duration::from_millis(5));
                continue;
            };
            if !matches!(bytes.first(), Some(&(HELLO | WATCH))) {
                continue;
            }
            if let Some((_, welcome)) = link.welcomed.iter().find(|(peer, _)| *peer == from) {
                // It did not hear its welcome: say it again.
                let _ = link.socket.send_to(welcome, from);
                continue;
            }
            let Some((watch, theirs)) = read_hello(&bytes) else {
                continue;
            };
            let room = if watch {
                watching.len() < spectators
            } else {
                player.is_none()
            };
            let no_room = (!room).then(|| {
                if !watch {
                    "this host has its player already".to_string()
                } else if spectators == 0 {
                    "this host takes no spectators (it was started without --spectators)"
                        .to_string()
                } else {
                    format!("this host takes {spectators} spectators, and has them")
                }
            });
            let reply = answer(game, &theirs, seed, no_room);
            if let Some(why) = reply.refused {
                crate::terminal::tell!("online: refused {from}: {why}");
                let _ = link.socket.send_to(&reply.packet, from);
                continue;
            }
            let answer = reply.packet;
            let _ = link.socket.send_to(&answer, from);
            link.welcomed.push((from, answer));
            if !watch {
                crate::terminal::tell!("online: {from} joined to play");
                player = Some(from);
            } else {
                crate::terminal::tell!("online: {from} joined to watch");
                watching.push(from);
            }
        }
        Err(match player {
            None => Unlinked::NoPlayer { waited: wait },
            Some(_) => Unlinked::TooFewWatching {
                joined: watching.len(),
                wanted: spectators,
                waited: wait,
            },
        })
    }

    /// Joins the host at `host` with `game`, to play or (`watch`) to
    /// watch, saying hello until it answers, for at most `wait`. Returns
    /// the link and the seed the games start from.
    ///
    /// # Errors
    /// The host refused the game (the line says why), did not answer in
    /// time, or the run was interrupted.
    pub fn join(
        host: SocketAddr,
        game: &GameId,
        wait: Duration,
        watch: bool,
    ) -> Result<(Link, u64), Unlinked> {
        let any: SocketAddr = if host.ip().is_loopback() {
            "127.0.0.1:0".parse().expect("an address")
        } else if host.is_ipv6() {
            "[::]:0".parse().expect("an address")
        } else {
            "0.0.0.0:0".parse().expect("an address")
        };
        let mut link = Link::bind(any)?;
        let hello = packet(if watch { WATCH } else { HELLO }, game);
        let until = Instant::now() + wait;
        let mut said = Instant::now() - HELLO_EVERY;
        while Instant::now() < until {
            if crate::interrupt::requested() {
                return Err(Unlinked::Interrupted(Waiting::ToJoin));
            }
            if said.elapsed() >= HELLO_EVERY {
                said = Instant::now();
                let _ = link.socket.send_to(&hello, host);
            }
            let Some((from, bytes)) = link.read() else {
                std::thread::sleep(Duration::from_millis(5));
                continue;
            };
            if from != host {
                continue;
            }
            match read_answer(&bytes) {
                Some(Answered::Welcome(seed)) => return Ok((link, seed)),
                Some(Answered::Refused(why)) => return Err(Unlinked::Refused { host, why }),
                None => continue,
            }
        }
        Err(Unlinked::NoAnswer { host, waited: wait })
    }
}

impl NonBlockingSocket<SocketAddr> for Link {
    fn send_to(&mut self, msg: &Message, addr: &SocketAddr) {
        let bytes = encode(msg);
        if bytes.len() <= MAX_PACKET {
            let _ = self.socket.send_to(&bytes, addr);
        }
    }

    fn receive_all_messages(&mut self) -> Vec<(SocketAddr, Message)> {
        let mut messages = Vec::new();
        // At most a few hundred a call: a flood is read over many frames.
        for _ in 0..256 {
            let Some((from, bytes)) = self.read() else {
                break;
            };
            match bytes.first() {
                Some(&GGRS) => {
                    if let Some(message) = decode(&bytes) {
                        messages.push((from, message));
                    }
                }
                // A peer did not hear its welcome: say it again. One that
                // comes once the game is under way is told so, not left
                // waiting (only a host has welcomed anyone).
                Some(&(HELLO | WATCH)) if !self.welcomed.is_empty() => {
                    match self.welcomed.iter().find(|(peer, _)| *peer == from) {
                        Some((_, welcome)) => {
                            let _ = self.socket.send_to(welcome, from);
                        }
                        None => {
                            let why = "its game has begun; a player or a spectator joins \
                                       before it starts (the host waits for --spectators N)";
                            let answer = packet(REFUSED, &Answer::Refused { why: why.into() });
                            let _ = self.socket.send_to(&answer, from);
                        }
                    }
                }
                _ => {}
            }
        }
        messages
    }
}
