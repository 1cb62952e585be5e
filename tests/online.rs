//! Online play (rule N3) between two peers in this process, over a
//! simulated link that lives in the test: each packet is held back some
//! frames of the link's own time (a delay with jitter) and some are lost,
//! by a seeded generator. The peers are ticked frame by frame on made-up
//! times, as fast as the machine runs them, bounded in frames and wall
//! seconds; nothing leaves the process. (Two real processes over the
//! loopback are at the end.)

mod common;

use std::cell::RefCell;
use std::collections::HashSet;
use std::net::SocketAddr;
use std::rc::Rc;
use std::time::{Duration, Instant};

use common::game;
use ggrs::{Message, NonBlockingSocket};
use moonloop::engine::Engine;
use moonloop::input::Script;
use moonloop::netplay::{Online, Options};
use moonloop::session::Driver;
use moonloop::{ConstantClock, LuaGame};

/// Two players, each moving their own counter while they hold `go`,
/// and playing a cue when they press `fire` (and one every third frame,
/// so frames run again have sounds to not play twice): the state depends
/// on both players' every frame.
const DUEL: &str = r#"
return {
    config = { width = 100, height = 100, players = 2,
        actions = { go = { "d", "pad:dpad_right" }, fire = { "space", "pad:south" } } },
    init = function() return { a = 0, b = 0, shots = 0, n = 0 } end,
    update = function(state, input, dt)
        local one, two = input:player(1), input:player(2)
        local shots = state.shots
        if state.n % 3 == 0 then
            input:cue("blip")
        end
        for _, p in { one, two } do
            if p:pressed("fire") then
                shots += 1
                input:cue("hit")
            end
        end
        return {
            a = state.a + (if one:down("go") then 1 else 0),
            b = state.b + (if two:down("go") then 3 else 0),
            shots = shots,
            n = state.n + 1,
        }
    end,
}
"#;

/// Each peer's own input: both press with the first player's keys.
const ONE: &str = "10 press d\n40 press space\n41 release space\n90 release d\n150 press space\n151 release space\n200 press d\n260 release d\n";
const TWO: &str = "20 press space\n21 release space\n30 press d\n120 release d\n170 press space\n171 release space\n180 press d\n250 release d\n";

/// A packet on its way.
struct Flying {
    due: u64,
    to: SocketAddr,
    from: SocketAddr,
    message: Message,
}

/// The link both peers share, on its own clock of ticks (a frame each):
/// packets held back `delay` ticks, up to `jitter` more, one in `loss_in`
/// lost.
struct Wire {
    flying: Vec<Flying>,
    tick: u64,
    delay: u64,
    jitter: u64,
    loss_in: u64,
    seed: u64,
    sent: u64,
    lost: u64,
    /// What a hostile peer makes of each message it sends: the messages
    /// that go instead, each with the address it claims to come from.
    tamper: Option<Tamper>,
}

/// A hostile peer's hand on the wire: given who sends a message and the
/// message, what goes out instead (none, the same, forged ones).
type Tamper = Box<dyn FnMut(SocketAddr, &Message) -> Vec<(SocketAddr, Message)>>;

impl Wire {
    /// The next number of a seeded xorshift64*: the same on every run.
    fn next(&mut self) -> u64 {
        self.seed ^= self.seed >> 12;
        self.seed ^= self.seed << 25;
        self.seed ^= self.seed >> 27;
        self.seed.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 32
    }
}

/// One peer's end of the wire.
struct End {
    at: SocketAddr,
    wire: Rc<RefCell<Wire>>,
}

impl NonBlockingSocket<SocketAddr> for End {
    fn send_to(&mut self, message: &Message, to: &SocketAddr) {
        let mut wire = self.wire.borrow_mut();
        if let Some(mut tamper) = wire.tamper.take() {
            let forged = tamper(self.at, message);
            wire.tamper = Some(tamper);
            for (from, message) in forged {
                let due = wire.tick + wire.delay;
                wire.flying.push(Flying {
                    due,
                    to: *to,
                    from,
                    message,
                });
            }
            return;
        }
        wire.sent += 1;
        if wire.loss_in > 0 && wire.next().is_multiple_of(wire.loss_in) {
            wire.lost += 1;
            return;
        }
        let jitter = if wire.jitter > 0 {
            wire.next() % (wire.jitter + 1)
        } else {
            0
        };
        let due = wire.tick + wire.delay + jitter;
        wire.flying.push(Flying {
            due,
            to: *to,
            from: self.at,
            message: message.clone(),
        });
    }

    fn receive_all_messages(&mut self) -> Vec<(SocketAddr, Message)> {
        let mut wire = self.wire.borrow_mut();
        let tick = wire.tick;
        let (here, rest): (Vec<Flying>, Vec<Flying>) = std::mem::take(&mut wire.flying)
            .into_iter()
            .partition(|f| f.to == self.at && f.due <= tick);
        wire.flying = rest;
        here.into_iter().map(|f| (f.from, f.message)).collect()
    }
}

/// A peer: its engine and its driver.
struct Peer {
    engine: Engine<LuaGame>,
    online: Online<End>,
    /// Every cue played, with its frame.
    heard: Vec<(u64, String)>,
}

fn peer(
    main: &str,
    local: usize,
    script: &str,
    wire: &Rc<RefCell<Wire>>,
) -> (tempfile::TempDir, Peer) {
    peer_with(main, local, script, wire, |_| {})
}

/// A peer as [`peer`] makes one, its options changed by `change`.
fn peer_with(
    main: &str,
    local: usize,
    script: &str,
    wire: &Rc<RefCell<Wire>>,
    change: impl FnOnce(&mut Options),
) -> (tempfile::TempDir, Peer) {
    let dir = game(&[("main.luau", main)]);
    let loaded = LuaGame::load(dir.path()).unwrap();
    let mut engine = Engine::new(loaded, Box::new(ConstantClock::new(1.0 / 60.0)));
    engine.keep_history(moonloop::history::DEFAULT_CAP).unwrap();
    let addr = |i: usize| -> SocketAddr { format!("127.0.0.1:{}", 9000 + i).parse().unwrap() };
    let end = End {
        at: addr(local),
        wire: wire.clone(),
    };
    let mut options = Options::new(local, addr(1 - local));
    options.reports = dir.path().to_path_buf();
    change(&mut options);
    let script = Script::parse(script).unwrap();
    let online = Online::start(end, options).unwrap().script(Some(script));
    (
        dir,
        Peer {
            engine,
            online,
            heard: Vec::new(),
        },
    )
}

/// Ticks both peers, a frame of made-up time each tick of the link,
/// until each has `frames` confirmed, or either ends, for at most 120 s
/// of wall time.
fn play(peers: &mut [&mut Peer; 2], wire: &Rc<RefCell<Wire>>, frames: u64) {
    let started = Instant::now();
    let base = Instant::now();
    while started.elapsed() < Duration::from_secs(120) {
        let tick = {
            let mut w = wire.borrow_mut();
            w.tick += 1;
            w.tick
        };
        let now = base + Duration::from_micros(16_667 * tick);
        let mut all_done = true;
        for p in peers.iter_mut() {
            p.online.tick(&mut p.engine, now);
            for cue in p.engine.cues_mut().drain() {
                p.heard.push((cue.frame, cue.name.to_string()));
            }
            all_done &= Driver::<LuaGame>::confirmed(&p.online).unwrap_or(0) >= frames;
            if Driver::<LuaGame>::ended(&p.online).is_some() {
                return;
            }
        }
        if all_done {
            return;
        }
    }
}

fn wire(delay: u64, jitter: u64, loss_in: u64) -> Rc<RefCell<Wire>> {
    Rc::new(RefCell::new(Wire {
        flying: Vec::new(),
        tick: 0,
        delay,
        jitter,
        loss_in,
        seed: 0x9e37_79b9_7f4a_7c15,
        sent: 0,
        lost: 0,
        tamper: None,
    }))
}

fn hash_at(p: &mut Peer, frame: u64) -> String {
    p.engine
        .with_state_at(frame, |g| g.state_hash().unwrap())
        .unwrap()
}

// rule: N3
#[test]
fn two_peers_over_a_slow_lossy_link_agree_with_a_local_run_of_the_same_input() {
    // 100 ms round trip (three frames each way, up to one more of
    // jitter), one packet in twenty lost, an hour's minute of play.
    let link = wire(3, 1, 20);
    // GGRS retries a lost synchronization packet on real time, which these
    // made-up ticks outrun many times over, while the deadlines are on
    // made-up time: they are set past this test's length.
    let slow = |o: &mut Options| {
        o.sync_wait = Duration::from_secs(600);
        o.frame_wait = Duration::from_secs(600);
    };
    let (a, mut one) = peer_with(DUEL, 0, ONE, &link, slow);
    let (_b, mut two) = peer_with(DUEL, 1, TWO, &link, slow);
    play(&mut [&mut one, &mut two], &link, 3600);
    for p in [&one, &two] {
        assert_eq!(Driver::<LuaGame>::ended(&p.online), None);
        assert!(
            Driver::<LuaGame>::confirmed(&p.online).unwrap() >= 3600,
            "confirmed 3600"
        );
    }
    // The same frames on both sides: every hundredth, and the last.
    for frame in (100..=3600).step_by(100) {
        assert_eq!(
            hash_at(&mut one, frame),
            hash_at(&mut two, frame),
            "frame {frame}"
        );
    }
    // And the same as a local run of the input the session applied: its
    // history, written as a replay, played by a plain engine.
    let name = moonloop::replay::game_name(one.engine.config()).to_string();
    let replay = one
        .engine
        .history_replay(moonloop::lua::DEFAULT_SEED, &name, None)
        .unwrap();
    let log = a.path().join("session.replay");
    std::fs::write(&log, replay.to_text()).unwrap();
    let mut local = moonloop::playback::open(a.path(), name, &log, Default::default())
        .unwrap()
        .engine;
    local.advance(3600).unwrap();
    assert_eq!(
        local.game().state_hash().unwrap(),
        hash_at(&mut one, 3600),
        "a local run of the same input"
    );
    // Both players' input reached both games: frame 300 holds both
    // counters as the scripts moved them (one: frames 10-89 and 200-259
    // held, two: 30-119 and 180-249, tripled), and four shots.
    let state = one
        .engine
        .with_state_at(300, |g| g.state_json().unwrap())
        .unwrap();
    assert!(state.contains("\"shots\": 4"), "{state}");
    // The link was slow: predictions were wrong, and frames ran again.
    // The link was slow: the peer ahead guessed wrong, went back and ran
    // frames again (the other waited for it), and kept quiet the sounds
    // those frames played the first time.
    let (a_stats, b_stats) = (one.online.stats(), two.online.stats());
    assert!(
        a_stats.resimulated + b_stats.resimulated > 0,
        "{a_stats:?} {b_stats:?}"
    );
    assert!(
        a_stats.sounds_kept_quiet + b_stats.sounds_kept_quiet > 0,
        "{a_stats:?} {b_stats:?}"
    );
    assert!(link.borrow().lost > 0, "packets were lost");
    // A frame run again plays no cue twice: each (frame, cue) once.
    for p in [&one, &two] {
        let mut seen = HashSet::new();
        for heard in &p.heard {
            assert!(seen.insert(heard.clone()), "{heard:?} played twice");
        }
        assert!(p.heard.len() >= 1200, "{} sounds", p.heard.len());
    }
}

// rule: N3
#[test]
fn games_that_come_apart_are_stopped_at_the_first_frame_that_differs() {
    let link = wire(1, 0, 0);
    let other = DUEL.replace(
        "n = state.n + 1",
        "n = state.n + (if state.n >= 55 then 2 else 1)",
    );
    let (_a, mut one) = peer(DUEL, 0, ONE, &link);
    let (b, mut two) = peer(&other, 1, TWO, &link);
    play(&mut [&mut one, &mut two], &link, 300);
    let ended = Driver::<LuaGame>::ended(&one.online)
        .or_else(|| Driver::<LuaGame>::ended(&two.online))
        .expect("the session ended");
    assert!(ended.contains("came apart at frame 60"), "{ended}");
    // The closing lines of the side that saw it say so too, not "all
    // alike".
    for p in [&one, &two] {
        if Driver::<LuaGame>::ended(&p.online).is_some_and(|e| e.contains("came apart")) {
            let status = Driver::<LuaGame>::status(&p.online).join("\n");
            assert!(status.contains("and frame 60 came apart"), "{status}");
            assert!(!status.contains("all alike"), "{status}");
        }
    }
    if let Some(said) = Driver::<LuaGame>::ended(&two.online) {
        assert!(said.contains("replay.txt"), "{said}");
        let written = b.path().join("moonloop-desync-60-player2/replay.txt");
        assert!(written.is_file(), "{}", written.display());
    }
}

// rule: N3
#[test]
fn a_peer_that_goes_away_ends_the_session_for_the_other() {
    let link = wire(1, 0, 0);
    let (_a, mut one) = peer(DUEL, 0, ONE, &link);
    let (_b, mut two) = peer(DUEL, 1, TWO, &link);
    play(&mut [&mut one, &mut two], &link, 60);
    drop(two);
    let started = Instant::now();
    while Driver::<LuaGame>::ended(&one.online).is_none() {
        assert!(started.elapsed() < Duration::from_secs(15), "never noticed");
        one.online.tick(&mut one.engine, Instant::now());
        std::thread::sleep(Duration::from_millis(2));
    }
    let said = Driver::<LuaGame>::ended(&one.online).unwrap();
    assert!(said.contains("the other player left"), "{said}");
}

/// A port on the loopback nobody listens on now.
fn free_port() -> u16 {
    std::net::UdpSocket::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn spawn(dir: &std::path::Path, args: &[&str]) -> std::process::Child {
    std::process::Command::new(common::binary())
        .args(args)
        .current_dir(dir)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap()
}

/// Player 2, headless, joining `address` to play `frames` of g with the
/// input in two.txt.
fn join_headless(dir: &std::path::Path, address: &str, frames: &str) -> std::process::Child {
    let args = ["join", address, "g", "--headless", "--input", "two.txt"];
    spawn(
        dir,
        &[&args[..], &["--frames", frames, "--wait", "30"]].concat(),
    )
}

/// Player 1, headless, hosting g on `address` with the input in one.txt
/// for 300 frames, with `extra` arguments.
fn host_headless(dir: &std::path::Path, address: &str, extra: &[&str]) -> std::process::Child {
    let args = [
        "host",
        "g",
        "--address",
        address,
        "--headless",
        "--input",
        "one.txt",
    ];
    spawn(
        dir,
        &[&args[..], extra, &["--frames", "300", "--wait", "30"]].concat(),
    )
}

/// Waits for both players to end well and print the same frame 300;
/// returns the host's stdout and stderr and the joiner's stderr.
fn both_play_300(host: std::process::Child, join: std::process::Child) -> (String, String, String) {
    let (host_code, host_out, host_err) = output(host);
    let (join_code, join_out, join_err) = output(join);
    assert_eq!(host_code, Some(0), "{host_err}");
    assert_eq!(join_code, Some(0), "{join_err}");
    assert!(host_out.starts_with("frame 300: "), "{host_out}");
    assert_eq!(host_out, join_out, "the same frame 300 on both sides");
    (host_out, host_err, join_err)
}

fn output(child: std::process::Child) -> (Option<i32>, String, String) {
    let out = child.wait_with_output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

// rule: N3
#[test]
fn host_and_join_play_one_game_over_the_loopback_and_agree_on_it() {
    let dir = game(&[("g/main.luau", DUEL), ("one.txt", ONE), ("two.txt", TWO)]);
    let port = free_port();
    let address = format!("127.0.0.1:{port}");
    let host = host_headless(dir.path(), &address, &[]);
    let join = join_headless(dir.path(), &address, "300");
    let (host_out, host_err, join_err) = both_play_300(host, join);
    assert!(host_err.contains("joined to play"), "{host_err}");
    assert!(join_err.contains("playing as player 2"), "{join_err}");
    assert!(host_out.starts_with("frame 300: "), "{host_out}");
}

// rule: N3
#[test]
fn each_side_records_its_session_and_replays_it_to_the_same_hash() {
    let dir = game(&[("g/main.luau", DUEL), ("one.txt", ONE), ("two.txt", TWO)]);
    let address = format!("127.0.0.1:{}", free_port());
    let host = host_headless(
        dir.path(),
        &address,
        &["--record-input", "host.replay", "--print-state"],
    );
    let args = ["join", &address, "g", "--headless", "--input", "two.txt"];
    let more = ["--frames", "300", "--wait", "30", "--print-state"];
    let join = spawn(
        dir.path(),
        &[&args[..], &more, &["--record-input", "join.replay"]].concat(),
    );
    let (host_out, host_err, join_err) = both_play_300(host, join);
    let hash = host_out
        .lines()
        .next()
        .unwrap()
        .strip_prefix("frame 300: ")
        .unwrap();
    // --print-state: the state of frame 300 after its hash.
    assert!(host_out.lines().nth(1) == Some("{"), "{host_out}");
    assert!(
        host_err.contains("wrote this side's 300 frames to host.replay"),
        "{host_err}"
    );
    assert!(
        join_err.contains("wrote this side's 300 frames to join.replay"),
        "{join_err}"
    );
    for log in ["host.replay", "join.replay"] {
        let played = common::replay(dir.path(), "g", log, "--state-hash");
        assert_eq!(played.code, 0, "{log}: {}", played.stderr);
        assert_eq!(played.stdout.trim(), hash, "{log}");
    }
}

// rule: N3
#[test]
fn each_side_records_the_picture_of_its_session_as_its_replay_draws_it() {
    // The duel, drawn: each player's bar grows as they hold `go`.
    let drawn = DUEL.replace(
        "    end,\n}",
        "    end,\n    render = function(state, scene, screen)\n        \
         screen:rect(0, 10, state.a % 100, 10, { fill = \"#e0a040\" })\n        \
         screen:rect(0, 50, state.b % 100, 10, { fill = \"#40a0e0\" })\n    end,\n}",
    );
    assert!(drawn.contains("render"), "the duel has a render now");
    let dir = game(&[("g/main.luau", &drawn), ("one.txt", ONE), ("two.txt", TWO)]);
    let address = format!("127.0.0.1:{}", free_port());
    let host = host_headless(
        dir.path(),
        &address,
        &["--record-input", "host.replay", "--record", "host-frames"],
    );
    let args = ["join", &address, "g", "--headless", "--input", "two.txt"];
    let more = ["--frames", "300", "--wait", "30", "--record", "join.gif"];
    let join = spawn(dir.path(), &[&args[..], &more].concat());
    let (_, host_err, join_err) = both_play_300(host, join);
    assert!(
        host_err.contains("recorded 300 frames to host-frames"),
        "{host_err}"
    );
    assert!(
        join_err.contains("recorded 300 frames to join.gif"),
        "{join_err}"
    );
    let gif = std::fs::read(dir.path().join("join.gif")).unwrap();
    assert!(gif.starts_with(b"GIF89a"), "a GIF");
    // The host's frames are what its replay draws, frame by frame.
    let again = common::moonloop(
        &[
            "run",
            "g",
            "--headless",
            "--replay",
            "host.replay",
            "--record",
            "again",
        ],
        dir.path(),
    );
    assert_eq!(again.code, 0, "{}", again.stderr);
    let frames = |name: &str| {
        let mut files: Vec<_> = std::fs::read_dir(dir.path().join(name))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        files
            .iter()
            .map(|f| std::fs::read(f).unwrap())
            .collect::<Vec<_>>()
    };
    let (online, replayed) = (frames("host-frames"), frames("again"));
    assert_eq!(online.len(), 300);
    assert!(online == replayed, "the same pictures");
    assert!(
        online[0] != online[299],
        "the bars grew between the first frame and the last"
    );
    // A path that names no recording format is refused before anyone
    // waits for a player.
    let refused = common::moonloop(
        &[
            "host",
            "g",
            "--headless",
            "--wait",
            "30",
            "--record",
            "duel.mp4",
        ],
        dir.path(),
    );
    assert_eq!(refused.code, 2, "{}", refused.stderr);
    assert!(
        refused.stderr.contains("duel.mp4") && !refused.stderr.contains("waiting for a player"),
        "{}",
        refused.stderr
    );
}

// rule: N3
#[test]
fn a_peer_with_other_files_is_refused_saying_why() {
    // The same name (config.id), another version of the files.
    let named = DUEL.replace("config = {", "config = { id = \"duel\",");
    let dir = game(&[
        ("g/main.luau", &named),
        ("h/main.luau", &named.replace("shots += 1", "shots += 2")),
    ]);
    let port = free_port();
    let address = format!("127.0.0.1:{port}");
    let host = spawn(
        dir.path(),
        &[
            "host",
            "g",
            "--address",
            &address,
            "--headless",
            "--wait",
            "3",
        ],
    );
    let join = spawn(
        dir.path(),
        &["join", &address, "h", "--headless", "--wait", "10"],
    );
    let (join_code, _, join_err) = output(join);
    let (host_code, _, host_err) = output(host);
    assert_eq!(join_code, Some(2), "{join_err}");
    assert!(
        join_err.contains("refused this game") && join_err.contains("files are not this host's"),
        "{join_err}"
    );
    assert_eq!(host_code, Some(2), "nobody else joined: {host_err}");
    // A game of one player cannot be hosted at all.
    let alone = game(&[("main.luau", "return { update = function(s) return s end }")]);
    let out = common::moonloop(&["host", ".", "--headless", "--wait", "1"], alone.path());
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("two players or more"), "{}", out.stderr);
}

// rule: N3
#[test]
fn a_hosts_window_and_a_headless_joiner_play_the_same_frames() {
    let x = common::Xvfb::start();
    let dir = game(&[("g/main.luau", DUEL), ("two.txt", TWO)]);
    let address = format!("127.0.0.1:{}", free_port());
    let host = x
        .command(common::binary())
        .args([
            "host",
            "g",
            "--address",
            &address,
            "--frames",
            "240",
            "--audio",
            "off",
        ])
        .args(["--wait", "30"])
        .current_dir(dir.path())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let join = join_headless(dir.path(), &address, "240");
    let (join_code, join_out, join_err) = output(join);
    let (host_code, host_out, host_err) = output(host);
    assert_eq!(host_code, Some(0), "{host_err}");
    assert_eq!(join_code, Some(0), "{join_err}");
    assert!(host_out.starts_with("frame 240: "), "{host_out}{host_err}");
    assert_eq!(host_out, join_out, "the window's frame 240 is the joiner's");
}

// rule: N3, H10
#[test]
fn an_address_no_host_can_have_is_refused_at_once_and_printed_escaped() {
    let dir = game(&[("g/main.luau", DUEL)]);
    for (address, said) in [
        (
            "127.0.0.1:0",
            "online: `127.0.0.1:0` has port 0, which no host listens on",
        ),
        (
            "\u{1b}[2J:5",
            "online: `\\x1b[2J:5` is not an address (HOST:PORT)",
        ),
    ] {
        let started = Instant::now();
        let (code, _, stderr) = output(spawn(dir.path(), &["join", address, "g", "--headless"]));
        assert_eq!(code, Some(2), "{stderr}");
        assert!(stderr.contains(said), "{stderr}");
        assert!(!stderr.contains('\u{1b}'), "escaped: {stderr:?}");
        assert!(started.elapsed() < Duration::from_secs(10), "at once");
    }
}

// rule: N3
#[test]
fn a_spectator_watches_the_players_frames_on_the_inputs_the_host_confirms() {
    let dir = game(&[("g/main.luau", DUEL), ("one.txt", ONE), ("two.txt", TWO)]);
    let port = free_port();
    let address = format!("127.0.0.1:{port}");
    let host = host_headless(dir.path(), &address, &["--spectators", "1"]);
    let watch = spawn(
        dir.path(),
        &[
            "spectate",
            &address,
            "g",
            "--headless",
            "--frames",
            "300",
            "--wait",
            "30",
        ],
    );
    let join = join_headless(dir.path(), &address, "300");
    // One more, a second into the game's five seconds, is told it began.
    std::thread::sleep(Duration::from_secs(1));
    let late = spawn(
        dir.path(),
        &["spectate", &address, "g", "--headless", "--wait", "10"],
    );
    let (late_code, _, late_err) = output(late);
    let (host_out, host_err, _) = both_play_300(host, join);
    let (watch_code, watch_out, watch_err) = output(watch);
    assert_eq!(watch_code, Some(0), "{watch_err}");
    assert_eq!(
        watch_out, host_out,
        "the spectator saw the players' frame 300"
    );
    assert!(host_err.contains("joined to watch"), "{host_err}");
    assert!(watch_err.contains("watching"), "{watch_err}");
    assert!(
        host_err.contains(", 1 spectator\n"),
        "the host's status: {host_err}"
    );
    assert_eq!(late_code, Some(2), "{late_err}");
    assert!(
        late_err.contains("refused this game: its game has begun"),
        "{late_err}"
    );
}

// A hostile peer (issue #50): the other side is the one party nobody
// vets. Each row below has the second player's game (or a spectator's)
// send, through the wire's tamper, what no honest moonloop peer sends,
// and shows the host ends in its bounded time with a line, or plays on,
// rather than waiting for ever. All in made-up time, bounded in ticks.

/// GGRS's message as it goes on the wire, for a test to forge one (its
/// own types are private to it).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
struct Wired {
    magic: u16,
    body: WiredBody,
}

#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
enum WiredBody {
    SyncRequest(u32),
    SyncReply(u32),
    Input(Vec<(bool, i32)>, bool, i32, i32, Vec<u8>),
    InputAck(i32),
    QualityReport(i16, u128),
    QualityReply(u128),
    ChecksumReport(u128, i32),
    KeepAlive,
}

fn codec() -> impl bincode::Options {
    use bincode::Options as _;
    bincode::DefaultOptions::new().with_limit(4096)
}

/// Reads `message` as it is on the wire.
fn open(message: &Message) -> Wired {
    use bincode::Options as _;
    let bytes = moonloop::netplay::link::encode(message);
    codec().deserialize(&bytes[1..]).unwrap()
}

/// Makes a message of `wired`, as a peer would decode it.
fn seal(wired: &Wired) -> Message {
    use bincode::Options as _;
    let mut bytes = vec![4];
    bytes.extend(codec().serialize(wired).unwrap());
    moonloop::netplay::link::decode(&bytes).expect("a message GGRS reads")
}

/// The address of player (or spectator) `i` on the test's wire.
fn at(i: usize) -> SocketAddr {
    format!("127.0.0.1:{}", 9000 + i).parse().unwrap()
}

/// Ticks `peers` on the wire for at most `ticks` frames of made-up time,
/// or until one of them ends; returns the ticks run.
fn run_for(peers: &mut [&mut Peer], wire: &Rc<RefCell<Wire>>, ticks: u64) -> u64 {
    let base = Instant::now();
    for n in 1..=ticks {
        let tick = {
            let mut w = wire.borrow_mut();
            w.tick += 1;
            w.tick
        };
        let now = base + Duration::from_micros(16_667 * tick);
        for p in peers.iter_mut() {
            p.online.tick(&mut p.engine, now);
            p.engine.cues_mut().drain().for_each(drop);
            if Driver::<LuaGame>::ended(&p.online).is_some() {
                return n;
            }
        }
    }
    ticks
}

/// A spectator of the host at `at(0)`, watching from `at(2)` on `wire`:
/// its game's folder, its engine and its session.
fn spectator(
    wire: &Rc<RefCell<Wire>>,
) -> (
    tempfile::TempDir,
    Engine<LuaGame>,
    moonloop::netplay::Spectating<End>,
) {
    let dir = game(&[("main.luau", DUEL)]);
    let watcher = Engine::new(
        LuaGame::load(dir.path()).unwrap(),
        Box::new(ConstantClock::new(1.0 / 60.0)),
    );
    let end = End {
        at: at(2),
        wire: wire.clone(),
    };
    let spectating =
        moonloop::netplay::Spectating::start(end, at(0), Duration::from_secs(3)).unwrap();
    (dir, watcher, spectating)
}

/// What the host said when it ended, or a failure naming what it did.
fn host_said(host: &Peer) -> String {
    Driver::<LuaGame>::ended(&host.online)
        .unwrap_or_else(|| panic!("the host never ended: {:?}", host.online.stats()))
}

/// A second player whose every message goes through `tamper`.
fn hostile(
    wire: &Rc<RefCell<Wire>>,
    tamper: impl FnMut(&Message) -> Vec<Message> + 'static,
) -> (tempfile::TempDir, Peer) {
    let mut tamper = tamper;
    wire.borrow_mut().tamper = Some(Box::new(move |from, message| {
        if from == at(1) {
            tamper(message).into_iter().map(|m| (from, m)).collect()
        } else {
            vec![(from, message.clone())]
        }
    }));
    peer(DUEL, 1, TWO, wire)
}

/// A tamper that sends `extra`, under the sender's own magic number,
/// beside each input it sends.
fn beside_each_input(extra: WiredBody) -> impl FnMut(&Message) -> Vec<Message> {
    move |message| {
        let wired = open(message);
        let mut out = vec![message.clone()];
        if matches!(wired.body, WiredBody::Input(..)) {
            out.push(seal(&Wired {
                magic: wired.magic,
                body: extra.clone(),
            }));
        }
        out
    }
}

// rule: N3
#[test]
fn a_player_that_never_synchronizes_ends_the_host_at_the_sync_deadline() {
    // It answered the hello (this is after it), then sends nothing.
    let link = wire(1, 0, 0);
    let (_a, mut host) = peer(DUEL, 0, ONE, &link);
    let (_b, mut two) = hostile(&link, |_| Vec::new());
    // The deadline is 10 s: 600 frames of made-up time, and a few more.
    let ticks = run_for(&mut [&mut host, &mut two], &link, 700);
    assert!(ticks <= 620, "ended after {ticks} ticks");
    let said = host_said(&host);
    assert!(
        said.contains("did not finish connecting in 10 s") && said.contains("--sync-wait"),
        "{said}"
    );
}

// rule: N3
#[test]
fn a_player_that_only_keeps_alive_ends_the_host_at_the_frame_deadline() {
    // Honest for 100 messages (it synchronizes and plays a little), then
    // every message it sends is a keep-alive: it talks, and sends nothing
    // to play.
    let link = wire(1, 0, 0);
    let (_a, mut host) = peer(DUEL, 0, ONE, &link);
    let mut sent = 0;
    let (_b, mut two) = hostile(&link, move |message| {
        sent += 1;
        let mut wired = open(message);
        if sent > 100 {
            wired.body = WiredBody::KeepAlive;
        }
        vec![seal(&wired)]
    });
    let ticks = run_for(&mut [&mut host, &mut two], &link, 1200);
    assert!(ticks < 1000, "ended after {ticks} ticks");
    let said = host_said(&host);
    assert!(
        said.contains("no frame could be played for 10 s") && said.contains("--frame-wait"),
        "{said}"
    );
}

// rule: N3
#[test]
fn a_peer_claiming_to_be_far_ahead_does_not_freeze_the_host() {
    // Beside each input, a quality report saying it is 32,767 frames
    // ahead: GGRS alone would have the host wait 16,383 frames. (Forged
    // with each input: GGRS's own reports go on real time, which these
    // made-up ticks outrun.)
    let link = wire(1, 0, 0);
    let (_a, mut host) = peer(DUEL, 0, ONE, &link);
    let (_b, mut two) = hostile(
        &link,
        beside_each_input(WiredBody::QualityReport(i16::MAX, 0)),
    );
    play(&mut [&mut host, &mut two], &link, 600);
    let stats = host.online.stats();
    assert_eq!(Driver::<LuaGame>::ended(&host.online), None);
    assert!(stats.confirmed >= 600, "{stats:?}");
    assert!(stats.waited < 60, "waited {} frames", stats.waited);
    assert!(stats.dropped > 0, "the reports were dropped: {stats:?}");
}

// rule: N3
#[test]
fn a_forged_time_stamp_shows_no_absurd_round_trip() {
    // Beside each input, a quality reply with a time stamp from 1970.
    let link = wire(1, 0, 0);
    let (_a, mut host) = peer(DUEL, 0, ONE, &link);
    let (_b, mut two) = hostile(&link, beside_each_input(WiredBody::QualityReply(1)));
    play(&mut [&mut host, &mut two], &link, 600);
    let stats = host.online.stats();
    assert!(stats.ping < 60_000, "a ping of {} ms", stats.ping);
    assert!(stats.dropped > 0, "the replies were dropped: {stats:?}");
}

// rule: N3
#[test]
fn a_player_that_marks_itself_gone_ends_the_session_saying_so() {
    // After its first 150 messages, its inputs say it is disconnected.
    let link = wire(1, 0, 0);
    let (_a, mut host) = peer(DUEL, 0, ONE, &link);
    let mut sent = 0;
    let (_b, mut two) = hostile(&link, move |message| {
        sent += 1;
        let mut wired = open(message);
        if let WiredBody::Input(status, ..) = &mut wired.body
            && sent > 150
            && let Some(own) = status.get_mut(1)
        {
            own.0 = true;
        }
        vec![seal(&wired)]
    });
    play(&mut [&mut host, &mut two], &link, 600);
    let said = host_said(&host);
    assert!(said.contains("the other player left at frame"), "{said}");
}

// rule: N3
#[test]
fn the_closing_line_counts_the_hashes_compared() {
    // The other side sends no state hash: none can be compared, and the
    // host must not say it compared any.
    let link = wire(1, 0, 0);
    let (_a, mut host) = peer(DUEL, 0, ONE, &link);
    let (_b, mut two) = hostile(&link, |message| match open(message).body {
        WiredBody::ChecksumReport(..) => Vec::new(),
        _ => vec![message.clone()],
    });
    play(&mut [&mut host, &mut two], &link, 300);
    let status = Driver::<LuaGame>::status(&host.online).join("\n");
    assert!(
        status.contains("hashes compared every 10 frames: 0 so far"),
        "{status}"
    );
    // An honest pair compares about one a ten frames.
    let link = wire(1, 0, 0);
    let (_c, mut one) = peer(DUEL, 0, ONE, &link);
    let (_d, mut two) = peer(DUEL, 1, TWO, &link);
    play(&mut [&mut one, &mut two], &link, 300);
    let compared = one.online.stats().compared;
    assert!((20..=30).contains(&compared), "{compared} compared");
}

// rule: N3
#[test]
fn a_peer_that_closes_says_goodbye_and_the_other_ends_at_once() {
    let link = wire(1, 0, 0);
    let (_a, mut one) = peer(DUEL, 0, ONE, &link);
    let (_b, mut two) = peer(DUEL, 1, TWO, &link);
    play(&mut [&mut one, &mut two], &link, 120);
    drop(two);
    // Without a goodbye the host waits out 3 s of real silence (GGRS's
    // timeout), hundreds of these ticks.
    let ticks = run_for(&mut [&mut one], &link, 300);
    assert!(ticks <= 5, "ended after {ticks} ticks");
    let said = host_said(&one);
    assert!(said.contains("the other player left"), "{said}");
}

// rule: N3
#[test]
fn the_side_that_stops_first_at_the_last_frame_leaves_the_other_to_play_it() {
    // Both stop at frame 120. With input delay, a side that is ahead
    // (the other stalled a moment at frame 110) has both inputs of frame
    // 120 a frame or two before the other has played it, and closes at
    // once (a window does not linger): its goodbye comes in with its last
    // input. The other has every input it needs and plays to 120; the
    // goodbye is not the other player leaving early.
    for first in [0, 1] {
        let link = wire(1, 0, 0);
        let until = |o: &mut Options| o.until = Some(120);
        let (_a, one) = peer_with(DUEL, 0, ONE, &link, until);
        let (_b, two) = peer_with(DUEL, 1, TWO, &link, until);
        let mut peers = [Some(one), Some(two)];
        let mut stalled = 0;
        let base = Instant::now();
        let started = Instant::now();
        while peers[first].is_some() {
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "never got there"
            );
            let tick = {
                let mut w = link.borrow_mut();
                w.tick += 1;
                w.tick
            };
            let now = base + Duration::from_micros(16_667 * tick);
            for i in [first, 1 - first] {
                let Some(p) = peers[i].as_mut() else { continue };
                if i != first && p.engine.frame() == 110 && stalled < 4 {
                    stalled += 1;
                    continue;
                }
                p.online.tick(&mut p.engine, now);
                p.engine.cues_mut().drain().for_each(drop);
                assert_eq!(Driver::<LuaGame>::ended(&p.online), None);
                if i == first && Driver::<LuaGame>::confirmed(&p.online) >= Some(120) {
                    // It closes, saying goodbye, before the other's turn.
                    peers[i] = None;
                }
            }
        }
        let mut other = peers[1 - first].take().unwrap();
        assert!(
            other.engine.frame() < 120,
            "the race is not set up: the other is at frame {} already",
            other.engine.frame()
        );
        run_for(&mut [&mut other], &link, 60);
        assert_eq!(Driver::<LuaGame>::ended(&other.online), None);
        assert!(
            Driver::<LuaGame>::confirmed(&other.online) >= Some(120),
            "{:?}",
            other.online.stats()
        );
        assert!(other.engine.frame() >= 120);
    }
}

// rule: N3
#[test]
fn a_spectator_that_sends_inputs_ends_nothing_for_the_players() {
    // The spectator at(2) sends, beside what it should, every input the
    // second player sends, under its own magic number: as a player would.
    let link = wire(1, 0, 0);
    let (_a, mut host) = peer_with(DUEL, 0, ONE, &link, |o| o.spectators = vec![at(2)]);
    let (_b, mut two) = peer(DUEL, 1, TWO, &link);
    let last_input: Rc<RefCell<Option<WiredBody>>> = Rc::default();
    let kept = last_input.clone();
    link.borrow_mut().tamper = Some(Box::new(move |from, message| {
        let mut out = vec![(from, message.clone())];
        let wired = open(message);
        if from == at(1) && matches!(wired.body, WiredBody::Input(..)) {
            *kept.borrow_mut() = Some(wired.body);
        } else if from == at(2)
            && let Some(body) = kept.borrow().clone()
        {
            let forged = Wired {
                magic: wired.magic,
                body,
            };
            out.push((from, seal(&forged)));
        }
        out
    }));
    let (_c, mut watcher, mut spectating) = spectator(&link);
    let base = Instant::now();
    for _ in 0..1500 {
        let tick = {
            let mut w = link.borrow_mut();
            w.tick += 1;
            w.tick
        };
        let now = base + Duration::from_micros(16_667 * tick);
        host.online.tick(&mut host.engine, now);
        two.online.tick(&mut two.engine, now);
        spectating.tick(&mut watcher, now);
        if Driver::<LuaGame>::ended(&host.online).is_some()
            || Driver::<LuaGame>::confirmed(&host.online).unwrap_or(0) >= 600
        {
            break;
        }
    }
    assert_eq!(Driver::<LuaGame>::ended(&host.online), None);
    assert!(
        host.online.stats().confirmed >= 600,
        "{:?}",
        host.online.stats()
    );
    assert!(
        host.online.stats().dropped > 0,
        "the spectator's inputs were dropped"
    );
}

// rule: N3
#[test]
fn a_real_host_ends_on_a_joiner_that_says_hello_and_then_nothing() {
    // Over the loopback: a joiner that holds the same game, is welcomed,
    // and never synchronizes. The host ends at its --sync-wait with the
    // line, rather than waiting "for player 1" for ever.
    use bincode::Options as _;
    let dir = game(&[("g/main.luau", DUEL), ("one.txt", ONE)]);
    let port = free_port();
    let address = format!("127.0.0.1:{port}");
    let started = Instant::now();
    let host = host_headless(dir.path(), &address, &["--sync-wait", "1"]);
    let id = moonloop::netplay::link::GameId::of(&dir.path().join("g"), "g", 2);
    let mut hello = vec![1u8];
    hello.extend(codec().serialize(&id).unwrap());
    let joiner = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    joiner
        .set_read_timeout(Some(Duration::from_millis(100)))
        .unwrap();
    let mut welcomed = false;
    let mut buffer = [0u8; 4096];
    // Hello until welcomed (at most 100 tries, ten seconds), then silence.
    for _ in 0..100 {
        joiner.send_to(&hello, &address).unwrap();
        if let Ok((n, _)) = joiner.recv_from(&mut buffer)
            && n > 0
            && buffer[0] == 2
        {
            welcomed = true;
            break;
        }
    }
    assert!(welcomed, "the host welcomed the joiner");
    let (code, _, stderr) = output(host);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains("the other player did not finish connecting in 1 s"),
        "{stderr}"
    );
    assert!(started.elapsed() < Duration::from_secs(30), "it ended");
}

// rule: N3
#[test]
fn a_spectator_that_never_synchronizes_is_dropped_and_the_players_play_on() {
    // The host waits for a spectator at(2) that was welcomed and then
    // says nothing: at the sync deadline it plays on without it.
    let link = wire(1, 0, 0);
    let (_a, mut host) = peer_with(DUEL, 0, ONE, &link, |o| o.spectators = vec![at(2)]);
    let (_b, mut two) = peer(DUEL, 1, TWO, &link);
    run_for(&mut [&mut host, &mut two], &link, 1000);
    assert_eq!(Driver::<LuaGame>::ended(&host.online), None);
    assert!(
        host.online.stats().confirmed >= 300,
        "{:?}",
        host.online.stats()
    );
}

// rule: N3
#[test]
fn a_spectator_plays_the_last_frame_whose_input_came_with_the_hosts_goodbye() {
    // The host stops at frame 120 as soon as both inputs of it are known,
    // sends the spectator that frame's input and says goodbye: the two
    // come in together, before the spectator has played the frame.
    let link = wire(1, 0, 0);
    let until = Some(120);
    let (_a, host) = peer_with(DUEL, 0, ONE, &link, |o| {
        o.spectators = vec![at(2)];
        o.until = until;
    });
    let (_b, mut two) = peer_with(DUEL, 1, TWO, &link, |o| o.until = until);
    let (_c, mut watcher, spectating) = spectator(&link);
    let mut spectating = spectating.waits(Duration::from_secs(10), Duration::from_secs(10), until);
    let mut host = Some(host);
    let base = Instant::now();
    for _ in 0..2000 {
        let t = {
            let mut w = link.borrow_mut();
            w.tick += 1;
            w.tick
        };
        let now = base + Duration::from_micros(16_667 * t);
        if let Some(h) = host.as_mut() {
            h.online.tick(&mut h.engine, now);
            if Driver::<LuaGame>::confirmed(&h.online) >= until {
                assert!(watcher.frame() < 120, "the race is not set up");
                host = None;
            }
        }
        two.online.tick(&mut two.engine, now);
        Driver::<LuaGame>::tick(&mut spectating, &mut watcher, now);
        assert_eq!(Driver::<LuaGame>::ended(&spectating), None);
        if host.is_none() && watcher.frame() >= 120 {
            break;
        }
    }
    assert!(host.is_none(), "the host never got to frame 120");
    assert_eq!(
        watcher.frame(),
        120,
        "the spectator played to the host's end"
    );
    assert_eq!(
        watcher.game().state_hash().unwrap(),
        hash_at(&mut two, 120),
        "and saw what the players played"
    );
}

// rule: N3
#[test]
fn a_spectator_that_closes_says_goodbye_and_the_host_plays_on() {
    let link = wire(1, 0, 0);
    let (_a, mut host) = peer_with(DUEL, 0, ONE, &link, |o| o.spectators = vec![at(2)]);
    let (_b, mut two) = peer(DUEL, 1, TWO, &link);
    let (_c, mut watcher, mut spectating) = spectator(&link);
    let base = Instant::now();
    let tick = |host: &mut Peer,
                two: &mut Peer,
                watching: Option<&mut moonloop::netplay::Spectating<End>>,
                watcher: &mut Engine<LuaGame>| {
        let t = {
            let mut w = link.borrow_mut();
            w.tick += 1;
            w.tick
        };
        let now = base + Duration::from_micros(16_667 * t);
        host.online.tick(&mut host.engine, now);
        two.online.tick(&mut two.engine, now);
        if let Some(s) = watching {
            Driver::<LuaGame>::tick(s, watcher, now);
        }
    };
    for _ in 0..200 {
        tick(&mut host, &mut two, Some(&mut spectating), &mut watcher);
    }
    assert!(
        Driver::<LuaGame>::status(&host.online)
            .join(" ")
            .contains("1 spectator")
    );
    drop(spectating);
    for _ in 0..5 {
        tick(&mut host, &mut two, None, &mut watcher);
    }
    let status = Driver::<LuaGame>::status(&host.online).join(" ");
    assert!(
        status.contains(", 0 spectators"),
        "it left at once: {status}"
    );
    assert_eq!(Driver::<LuaGame>::ended(&host.online), None);
}
