//! The online case (rule N3): pong played by two peers in this process,
//! over a link of the bench's own (three frames each way, so the peer
//! ahead guesses and rolls back), against the same frames played by one
//! engine; and how many bytes a second each peer sends.

use std::cell::RefCell;
use std::net::SocketAddr;
use std::path::Path;
use std::rc::Rc;
use std::time::{Duration, Instant};

use ggrs::{Message, NonBlockingSocket};

use super::Row;
use moonloop::clock::ConstantClock;
use moonloop::engine::Engine;
use moonloop::error::{Error, Result};
use moonloop::input::Script;
use moonloop::lua::LuaGame;
use moonloop::netplay::{Online, Options, link};
use moonloop::session::Driver;

/// Frames played.
const FRAMES: u64 = 1200;

/// Frames a packet takes to arrive.
const DELAY: u64 = 3;

/// Each peer's input: paddles up and down every second or so.
const MOVES: &str = "30 press w\n70 release w\n100 press s\n160 release s\n\
    220 press w\n260 release w\n330 press s\n400 release s\n470 press w\n520 release w\n";

/// A link between the two peers, counting each one's bytes.
struct Link {
    tick: u64,
    flying: Vec<(u64, SocketAddr, SocketAddr, Message)>,
    sent: [u64; 2],
}

struct End {
    at: SocketAddr,
    index: usize,
    link: Rc<RefCell<Link>>,
}

impl NonBlockingSocket<SocketAddr> for End {
    fn send_to(&mut self, message: &Message, to: &SocketAddr) {
        let mut link = self.link.borrow_mut();
        link.sent[self.index] += link::encode(message).len() as u64 + 28;
        let due = link.tick + DELAY;
        link.flying.push((due, *to, self.at, message.clone()));
    }

    fn receive_all_messages(&mut self) -> Vec<(SocketAddr, Message)> {
        let mut link = self.link.borrow_mut();
        let tick = link.tick;
        let (here, rest) = std::mem::take(&mut link.flying)
            .into_iter()
            .partition(|(due, to, _, _)| *to == self.at && *due <= tick);
        link.flying = rest;
        let here: Vec<_> = here;
        here.into_iter().map(|(_, _, from, m)| (from, m)).collect()
    }
}

fn address(i: usize) -> SocketAddr {
    SocketAddr::from(([127, 0, 0, 1], 9100 + i as u16))
}

/// Plays [`FRAMES`] of pong online; returns the time it took, and each
/// peer's bytes a second of play.
fn online(pong: &Path) -> Result<(Duration, [f64; 2], u64)> {
    let link = Rc::new(RefCell::new(Link {
        tick: 0,
        flying: Vec::new(),
        sent: [0; 2],
    }));
    let mut peers = Vec::new();
    for i in 0..2 {
        let game = LuaGame::load(pong)?;
        let engine = Engine::new(game, Box::new(ConstantClock::new(1.0 / 60.0)));
        let end = End {
            at: address(i),
            index: i,
            link: link.clone(),
        };
        let script = Script::parse(MOVES).map_err(|(_, why)| Error::usage(why))?;
        let driver = Online::start(end, Options::new(i, address(1 - i)))?.script(Some(script));
        peers.push((engine, driver));
    }
    let base = Instant::now();
    let started = Instant::now();
    loop {
        let tick = {
            let mut l = link.borrow_mut();
            l.tick += 1;
            l.tick
        };
        let now = base + Duration::from_micros(16_667 * tick);
        for (engine, driver) in &mut peers {
            driver.tick(engine, now);
            engine.cues_mut().drain().for_each(drop);
        }
        let done = peers
            .iter()
            .all(|(_, d)| Driver::<LuaGame>::confirmed(d).unwrap_or(0) >= FRAMES);
        if done || tick > FRAMES * 4 {
            break;
        }
    }
    let took = started.elapsed();
    let seconds = FRAMES as f64 / 60.0;
    let sent = link.borrow().sent;
    let rollbacks = peers.iter().map(|(_, d)| d.stats().resimulated).sum();
    Ok((
        took,
        [sent[0] as f64 / seconds, sent[1] as f64 / seconds],
        rollbacks,
    ))
}

/// The row, where pong is there.
///
/// # Errors
/// Pong does not load.
pub fn row() -> Result<Option<Row>> {
    let pong = super::repository().join("games/pong");
    if !pong.join("main.luau").is_file() {
        return Ok(None);
    }
    let local = {
        let game = LuaGame::load(&pong)?;
        let mut engine = Engine::new(game, Box::new(ConstantClock::new(1.0 / 60.0)));
        let script = Script::parse(MOVES).map_err(|(_, why)| Error::usage(why))?;
        engine.set_script(script);
        let started = Instant::now();
        engine.advance(FRAMES)?;
        started.elapsed()
    };
    let (took, bytes, resimulated) = online(&pong)?;
    Ok(Some(Row {
        case: "pong online, two peers 3 frames apart: a frame of both vs one played alone".into(),
        baseline: local / FRAMES as u32,
        measured: took / FRAMES as u32,
        note: Some(format!(
            "each peer sends {:.0} and {:.0} bytes a second (UDP headers counted); {resimulated} \
             frames run again in {FRAMES}",
            bytes[0], bytes[1]
        )),
        ..Row::default()
    }))
}
