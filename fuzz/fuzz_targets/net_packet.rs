//! Whatever arrives from the network (rule N3, H10): a host of an online
//! session with one spectator is fed packets cut from the input, one
//! batch a frame, and must neither panic nor run its game past the frames
//! it was asked for. Packets are decoded as the peer's socket decodes
//! them (bounded to 4 KiB), then handed to the session's guard and GGRS
//! as from the other player, or, for a packet whose first byte has its
//! high bit set, from the spectator (a spectator's inputs once ended the
//! players' game). Seeds hold the hostile shapes of issue #50: a report
//! claiming 32,767 frames ahead, a forged time stamp, keep-alives only,
//! inputs marking the player gone, a goodbye.
#![no_main]

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use ggrs::{Message, NonBlockingSocket};
use libfuzzer_sys::fuzz_target;
use moonloop::engine::{Engine, Game, Past, Reload, RenderCtx, UpdateCtx};
use moonloop::history::Held;
use moonloop::netplay::{Online, Options, link};
use moonloop::session::Driver;
use moonloop::{ConstantClock, Result};

/// A game in Rust: a counter the engine can hold and put back.
#[derive(Default)]
struct Counter(u64);

impl Game for Counter {
    fn update(&mut self, _: UpdateCtx<'_>, _: f64) -> Result {
        self.0 += 1;
        Ok(())
    }
    fn render(&mut self, _: RenderCtx<'_>) -> Result {
        Ok(())
    }
}

impl Past for Counter {
    fn state_hash(&self) -> Option<String> {
        Some(format!("{:016x}", self.0))
    }
    fn hold(&self) -> Option<Held> {
        Some(Held(Box::new(self.0)))
    }
    fn put(&mut self, held: &Held) -> Result {
        self.0 = *held.0.downcast_ref::<u64>().expect("a counter");
        Ok(())
    }
}

impl Reload for Counter {}

/// The network: batches of packets, one a call, from the other player
/// or the spectator.
struct Feed {
    batches: Vec<Vec<Vec<u8>>>,
    from: SocketAddr,
    spectator: SocketAddr,
}

impl NonBlockingSocket<SocketAddr> for Feed {
    fn send_to(&mut self, _: &Message, _: &SocketAddr) {}

    fn receive_all_messages(&mut self) -> Vec<(SocketAddr, Message)> {
        let Some(batch) = self.batches.pop() else {
            return Vec::new();
        };
        batch
            .iter()
            .filter_map(|p| {
                let (&first, rest) = p.split_first()?;
                let mut packet = vec![first & 0x7f];
                packet.extend_from_slice(rest);
                let from = if first & 0x80 != 0 {
                    self.spectator
                } else {
                    self.from
                };
                link::decode(&packet).map(|m| (from, m))
            })
            .collect()
    }
}

fuzz_target!(|data: &[u8]| {
    HOOK.call_once(moonloop::error::forward_uncontained_panics);
    // Batches split at 0xff 0xfe, packets at 0xff 0xfd.
    let mut batches: Vec<Vec<Vec<u8>>> = split(data, [0xff, 0xfe])
        .iter()
        .map(|batch| split(batch, [0xff, 0xfd]))
        .take(64)
        .collect();
    batches.reverse();
    let frames = batches.len() as u64;
    let from: SocketAddr = "127.0.0.1:9001".parse().unwrap();
    let spectator: SocketAddr = "127.0.0.1:9002".parse().unwrap();
    let feed = Feed {
        batches,
        from,
        spectator,
    };
    let mut options = Options::new(0, from);
    options.spectators = vec![spectator];
    let mut online = Online::start(feed, options).expect("a session starts");
    let mut engine = Engine::new(Counter::default(), Box::new(ConstantClock::new(1.0 / 60.0)));
    let start = Instant::now();
    for tick in 0..frames {
        online.tick(&mut engine, start + Duration::from_millis(17 * tick));
        assert!(engine.frame() <= tick + 1, "one frame a tick at most");
    }
});

static HOOK: std::sync::Once = std::sync::Once::new();

/// `data` cut at every `mark`.
fn split(data: &[u8], mark: [u8; 2]) -> Vec<Vec<u8>> {
    let mut parts = vec![Vec::new()];
    let mut i = 0;
    while i < data.len() {
        if data[i..].starts_with(&mark) {
            parts.push(Vec::new());
            i += 2;
        } else {
            parts.last_mut().expect("one part").push(data[i]);
            i += 1;
        }
    }
    parts
}
