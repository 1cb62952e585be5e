//! moonloop-bench: the host's speed as ratios against baselines run in
//! the same process. A development tool, built and run from moonloop's
//! repository (`cargo run --release -p moonloop-bench -- [--only GROUP]`)
//! and never shipped with the host (docs/cli.md#bench).
//!
//! Each case times a batch of iterations long enough to swamp the clock's
//! resolution, repeats the batch, and keeps the median, so a noisy
//! neighbour moves the numbers less than a mean would. Ratios, not times,
//! are the result: they hold across machines where absolute times do not.

/// Prints a line to stdout, its control characters escaped as the host
/// escapes them, dropping it if stdout has closed.
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let text = format!($($arg)*);
        let _ = writeln!(std::io::stdout(), "{}", moonloop::terminal::escape_lines(&text));
    }};
}

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use mlua::{Function, Value};

use moonloop::clock::ConstantClock;
use moonloop::engine::Engine;
use moonloop::error::{Error, Result};
use moonloop::lua::{Budget, Call, Limits, LuaGame};
use moonloop::session::Session;

mod explore;
mod fill;
mod history;
mod online;
mod physics;
mod record;
mod render;
mod report;
mod rollback;
mod screen_cases;
mod sprites;
mod startup;
mod web;
mod window;

/// moonloop's repository, whose example games some cases play: the bench
/// runs from it (`cargo run -p moonloop-bench`), never from elsewhere.
fn repository() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A game's limits, every module compiled to native code as it loads.
fn at_load() -> Limits {
    Limits {
        native_at_load: true,
        ..Limits::default()
    }
}

/// How long one timed batch should take.
const BATCH: Duration = Duration::from_millis(40);
/// How many batches each case runs; the median is kept.
const BATCHES: usize = 9;

/// Returns the number of iterations of case `case` that take about a
/// quarter of a batch.
fn calibrate(run: &mut impl FnMut(usize, u64), case: usize) -> u64 {
    let mut n = 1;
    loop {
        let start = Instant::now();
        run(case, n);
        if start.elapsed() >= BATCH / 4 || n >= 1 << 30 {
            return n * 4;
        }
        n *= 2;
    }
}

/// Times `K` cases of `run(case, n)` (which runs case `case` `n` times)
/// in turn, batch by batch (A B A B ...), and returns each one's median
/// time per iteration. Timed in turn, a machine that drifts (another
/// process, a CPU clock that changes) moves both sides of a ratio alike.
fn interleaved<const K: usize>(mut run: impl FnMut(usize, u64)) -> [Duration; K] {
    let counts: [u64; K] = std::array::from_fn(|case| calibrate(&mut run, case));
    let mut times: [Vec<Duration>; K] = std::array::from_fn(|_| Vec::with_capacity(BATCHES));
    for _ in 0..BATCHES {
        for case in 0..K {
            let start = Instant::now();
            run(case, counts[case]);
            times[case].push(start.elapsed() / counts[case] as u32);
        }
    }
    times.map(|mut t| {
        t.sort();
        t[BATCHES / 2]
    })
}

/// One line of the report.
#[derive(Debug, Clone, Default)]
pub struct Row {
    /// What was measured.
    pub case: String,
    /// The baseline's time per iteration.
    pub baseline: Duration,
    /// The measured time per iteration.
    pub measured: Duration,
    /// What the ratio should stay under, if anything.
    pub target: Option<f64>,
    /// Whether the row times the renderer (judged on a real GPU only).
    pub gpu: bool,
    /// What else the row must say (frames a recording dropped).
    pub note: Option<String>,
    /// Why the row misses its target whatever the ratio says (a recording
    /// that met it by dropping frames).
    pub fails: Option<String>,
}

impl Row {
    /// Returns measured / baseline.
    pub fn ratio(&self) -> f64 {
        self.measured.as_secs_f64() / self.baseline.as_secs_f64()
    }
}

struct TempGame(PathBuf);

impl TempGame {
    fn new(name: &str, main: &str) -> Result<TempGame> {
        let dir =
            std::env::temp_dir().join(format!("moonloop-bench-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).map_err(|e| Error::io(&dir, e))?;
        let file = dir.join("main.luau");
        std::fs::write(&file, main).map_err(|e| Error::io(&file, e))?;
        Ok(TempGame(dir))
    }
}

impl Drop for TempGame {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

// The frame cases' games: each defines `init` and `update`, and
// [`frame_case`] adds the game table with the baseline, `bench`: the same
// update called in a loop inside Luau.

const TRIVIAL: &str = r#"
local function init() return { n = 0 } end
local function update(state, input, dt)
    return state
end
"#;

pub(crate) const BALLS: &str = r#"
local function init()
    local balls = {}
    for i = 1, 1000 do
        balls[i] = { x = (i * 37) % 1280, y = (i * 91) % 720, vx = (i % 7) * 40 - 120, vy = (i % 5) * 50 - 100 }
    end
    return { balls = balls }
end
local function update(state, input, dt)
    local balls = table.create(#state.balls)
    for i, b in state.balls do
        local x, y, vx, vy = b.x + b.vx * dt, b.y + b.vy * dt, b.vx, b.vy
        if x < 0 or x > 1280 then vx = -vx end
        if y < 0 or y > 720 then vy = -vy end
        balls[i] = { x = x, y = y, vx = vx, vy = vy }
    end
    return { balls = balls }
end
"#;

/// 1,000 balls of which ten move each frame: the rest are shared with the
/// last state, as games that change a little of a big state do.
const FEW_BALLS: &str = r#"
local function init()
    local balls = {}
    for i = 1, 1000 do
        balls[i] = { x = i, y = 2 * i, vx = 1, vy = -1 }
    end
    return { balls = balls, n = 0 }
end
local function update(state, input, dt)
    local balls = table.clone(state.balls)
    for k = 1, 10 do
        local i = (state.n * 10 + k) % #balls + 1
        local b = balls[i]
        balls[i] = { x = b.x + b.vx * dt, y = b.y + b.vy * dt, vx = b.vx, vy = b.vy }
    end
    return { balls = balls, n = state.n + 1 }
end
"#;

/// Ends every frame case's game.
const GAME_TABLE: &str = r#"
return {
    init = init,
    update = update,
    bench = function(state, n)
        for i = 1, n do
            state = update(state, nil, 1 / 60)
        end
        return state
    end,
}
"#;

const TIGHT_LOOP: &str = r#"
return function(n)
    local x = 0
    for i = 1, n do
        x += i % 7
    end
    return x
end
"#;

/// Times a game's whole headless frame against its update called in a
/// loop inside Luau.
fn frame_case(name: &str, game: &str) -> Result<(Duration, Duration)> {
    let dir = TempGame::new(name, &format!("{game}{GAME_TABLE}"))?;
    // The baseline runs in its own copy of the game, so both start alike,
    // compiled to native code as it loads: it runs no frames that would
    // compile it.
    let baseline_game = LuaGame::load_with(&dir.0, at_load())?;
    let bench: Function = baseline_game
        .main_table()
        .get("bench")
        .map_err(|e| Error::script(e.to_string()))?;
    let state = baseline_game.state().clone();
    let game = LuaGame::load(&dir.0)?;
    let mut engine = Session::new(Engine::new(game, Box::new(ConstantClock::new(1.0 / 60.0))));
    let [baseline, measured] = interleaved(|case, n| {
        if case == 0 {
            bench.call::<Value>((&state, n)).expect("the baseline runs");
        } else {
            engine.advance(n).expect("the game runs");
        }
    });
    Ok((baseline, measured))
}

/// Times a tight Luau loop with the time budget on against the same loop
/// with no budget, and against a naive interrupt callback.
fn budget_case() -> Result<(Duration, Duration, Duration)> {
    let script = |e: mlua::Error| Error::script(e.to_string());
    // Native code, as a game's runs from its second frame.
    let make = || -> Result<(mlua::Lua, Function)> {
        let lua = moonloop::lua::new_vm(at_load()).map_err(script)?;
        let f: Function = lua
            .load(TIGHT_LOOP)
            .set_name("=bench")
            .eval()
            .map_err(script)?;
        Ok((lua, f))
    };
    const N: u64 = 100_000;
    let (_bare_lua, bare) = make()?;
    let (budget_lua, guarded) = make()?;
    // Declared after its VM: it detaches as it drops, first.
    let budget = Budget::install(&budget_lua, Duration::from_secs(1)).map_err(script)?;
    let (naive_lua, naive) = make()?;
    naive_lua.set_interrupt(|_| Ok(mlua::VmState::Continue));
    let [off, on, naive_time] = interleaved(|case, n| {
        for _ in 0..n {
            match case {
                0 => {
                    bare.call::<f64>(N).unwrap();
                }
                1 => {
                    budget.guard(Call::Update, || guarded.call::<f64>(N).unwrap());
                }
                _ => {
                    naive.call::<f64>(N).unwrap();
                }
            }
        }
    });
    drop(budget);
    Ok((off, on, naive_time))
}

/// The game in `dir` at 60 frames a second in a session, as a headless
/// run drives it, keeping history when asked.
fn headless(dir: &std::path::Path, history: bool) -> Result<Session<LuaGame>> {
    let game = LuaGame::load(dir)?;
    let mut engine = Engine::new(game, Box::new(ConstantClock::new(1.0 / 60.0)));
    if history {
        engine.keep_history(moonloop::history::DEFAULT_CAP)?;
    }
    Ok(Session::new(engine))
}

/// Sleeps until the paced clock's next slot, then runs a turn there, as
/// a headless run does.
fn tick_paced(session: &mut Session<LuaGame>) {
    if let Some(due) = session.next_due() {
        let now = Instant::now();
        if due > now {
            std::thread::sleep(due - now);
        }
    }
    session.tick(Instant::now(), false);
}

/// Measures hot reload in a headless run paced at 60 Hz, driven by the
/// session as `run --headless --watch` is: from writing a file to the
/// reload being done, and to the first frame whose `update` ran the new
/// code. Returns the medians of `rounds` edits.
pub fn reload_latency(rounds: usize) -> Result<(Duration, Duration)> {
    let source = |version: usize| {
        format!(
            "return {{ update = function(state, input, dt) return {{ version = {version} }} end }}\n"
        )
    };
    let dir = TempGame::new("reload", &source(0))?;
    let game = LuaGame::load(&dir.0)?;
    let engine = Engine::new(game, Box::new(moonloop::clock::PacedClock::from_hz(60.0)));
    let watcher = moonloop::reload::Watcher::new(&dir.0)?;
    let mut session = Session::new(engine).watch(Some(watcher)).quiet();
    let version = |session: &Session<LuaGame>| -> usize {
        match session.engine().game().state() {
            Value::Table(t) => t.get::<usize>("version").unwrap_or(0),
            _ => 0,
        }
    };
    let (mut to_reload, mut to_frame) = (Vec::new(), Vec::new());
    for round in 1..=rounds {
        // A few frames between edits, as when a person types.
        for _ in 0..3 {
            tick_paced(&mut session);
        }
        let file = dir.0.join("main.luau");
        let written = Instant::now();
        std::fs::write(&file, source(round)).map_err(|e| Error::io(&file, e))?;
        let deadline = written + Duration::from_secs(5);
        // Wait for the next slot on the watcher, reloading the moment the
        // edit settles (asked each millisecond, to time it to one).
        let mut reloaded = None;
        while version(&session) != round && Instant::now() < deadline {
            let due = session.next_due().unwrap_or_else(Instant::now);
            while Instant::now() < due {
                let soon = (Instant::now() + Duration::from_millis(1)).min(due);
                if let Some(result) = session.wait_for_edits(soon) {
                    result?;
                    reloaded.get_or_insert_with(|| written.elapsed());
                }
            }
            session.tick(Instant::now(), false);
        }
        if version(&session) != round {
            return Err(Error::usage("the reload was not seen within 5 s"));
        }
        to_frame.push(written.elapsed());
        to_reload.push(reloaded.unwrap_or_default());
    }
    to_reload.sort();
    to_frame.sort();
    Ok((to_reload[rounds / 2], to_frame[rounds / 2]))
}

/// The groups of cases `--only` picks from.
pub const GROUPS: [&str; 11] = [
    "frame", "history", "screen", "record", "budget", "render", "explore", "physics", "rollback",
    "window", "web",
];

/// Runs every case (or only those of `only`'s group) and returns the
/// report's rows.
///
/// # Errors
/// A benchmark game fails to load or run.
pub fn run(only: Option<&str>) -> Result<Vec<Row>> {
    let want = |group: &str| only.is_none_or(|o| o == group);
    let mut rows = Vec::new();
    if want("frame") {
        rows.extend(frame_rows()?);
    }
    if want("history") {
        rows.extend(history::rows()?);
    }
    if want("screen") {
        rows.extend(screen_rows()?);
    }
    if want("record") {
        rows.extend(record_rows()?);
    }
    if want("budget") {
        rows.extend(budget_rows()?);
    }
    if want("explore") {
        rows.extend(explore::rows()?);
    }
    if want("physics") {
        rows.extend(physics::rows()?);
    }
    if want("rollback") {
        rows.extend(rollback::rows()?);
    }
    Ok(rows)
}

/// The frame's own cost: the host around `update`.
fn frame_rows() -> Result<Vec<Row>> {
    let mut rows = Vec::new();
    let (baseline, measured) = frame_case("trivial", TRIVIAL)?;
    rows.push(Row {
        case: "trivial game: headless frame vs update called in Luau".into(),
        baseline,
        measured,
        target: None,
        ..Row::default()
    });
    let (baseline, measured) = frame_case("balls", BALLS)?;
    rows.push(Row {
        case: "1,000 balls: headless frame vs update called in Luau".into(),
        baseline,
        measured,
        target: Some(1.5),
        ..Row::default()
    });
    let (baseline, measured) = frame_case("few-balls", FEW_BALLS)?;
    rows.push(Row {
        case: "1,000 balls, ten new a frame: headless frame vs update in Luau".into(),
        baseline,
        measured,
        target: None,
        ..Row::default()
    });
    rows.extend(startup::row());
    Ok(rows)
}

/// The screen layer: shapes, text, sprites and fills.
fn screen_rows() -> Result<Vec<Row>> {
    let mut rows = Vec::new();
    let (direct, through_luau) = screen_cases::drawing_case()?;
    rows.push(Row {
        case: "200 shapes + 50 lines of text: through Luau vs tiny-skia direct".into(),
        baseline: direct,
        measured: through_luau,
        target: Some(1.2),
        ..Row::default()
    });
    let (outlines, cached) = screen_cases::text_case()?;
    rows.push(Row {
        case: "100 lines of text at 1280x720: glyph cache vs outlines filled each frame".into(),
        baseline: outlines,
        measured: cached,
        target: Some(0.5),
        ..Row::default()
    });
    let (plain, ours) = sprites::case()?;
    rows.push(Row {
        case: "screen sprites: 2,000 sprites + 100 text lines vs a tiny-skia fill a sprite".into(),
        baseline: plain,
        measured: ours,
        target: Some(0.4),
        note: Some(format!(
            "{:.2} ms a frame through Luau (target 4 ms)",
            ours.as_secs_f64() * 1e3
        )),
        fails: (ours > Duration::from_millis(4)).then(|| "over 4 ms a frame".to_string()),
        ..Row::default()
    });
    let (plain, ours) = fill::case()?;
    rows.push(Row {
        case: "screen fill: the layer and 40 panels on whole pixels vs tiny-skia fills".into(),
        baseline: plain,
        measured: ours,
        target: None,
        ..Row::default()
    });
    if let Some((headless, drawn)) = sprites::swarm_case()? {
        rows.push(Row {
            case: "games/swarm at 640x360: frame with its picture vs update and render".into(),
            baseline: headless,
            measured: drawn,
            target: None,
            note: Some(format!("{:.2} ms a frame", drawn.as_secs_f64() * 1e3)),
            ..Row::default()
        });
    }
    Ok(rows)
}

/// The recorder's encoders.
fn record_rows() -> Result<Vec<Row>> {
    let mut rows = Vec::new();
    let fps = |d: Duration| format!("{:.0} frames a second", 1.0 / d.as_secs_f64());
    if let Some((whole, differences)) = record::gif_case()? {
        rows.push(Row {
            case: "record gif: pong at 640x360, differences vs whole frames quantized".into(),
            baseline: whole,
            measured: differences,
            target: None,
            note: Some(fps(differences)),
            fails: (differences > Duration::from_secs_f64(1.0 / 60.0))
                .then(|| "slower than 60 frames a second".into()),
            ..Row::default()
        });
    }
    if let Some((whole, differences)) = record::apng_case()? {
        rows.push(Row {
            case: "record apng: pong at 1280x720, differences vs whole frames".into(),
            baseline: whole,
            measured: differences,
            target: None,
            note: Some(fps(differences)),
            fails: (differences > Duration::from_secs_f64(1.0 / 60.0))
                .then(|| "slower than 60 frames a second".into()),
            ..Row::default()
        });
    }
    Ok(rows)
}

/// The time budget's interrupt.
fn budget_rows() -> Result<Vec<Row>> {
    let mut rows = Vec::new();
    let (off, on, naive) = budget_case()?;
    rows.push(Row {
        case: "tight loop: time budget on vs off".into(),
        baseline: off,
        measured: on,
        target: Some(1.25),
        ..Row::default()
    });
    rows.push(Row {
        case: "tight loop: naive interrupt callback vs none (for reference)".into(),
        baseline: off,
        measured: naive,
        target: None,
        ..Row::default()
    });
    Ok(rows)
}

use report::Report;

/// The command line: what to measure and how to say it.
#[derive(clap::Parser)]
#[command(
    name = "moonloop-bench",
    version,
    about = "Measures the moonloop host against baselines run in the same process"
)]
struct Args {
    /// Exits 1 when a CPU target is missed (renderer targets on a
    /// software adapter are reported as needing a GPU, not failed).
    #[arg(long)]
    check: bool,
    /// Prints the rows as JSON.
    #[arg(long)]
    json: bool,
    /// Runs one group of cases only: frame, history, screen, record,
    /// budget, render, explore, physics, rollback, window (a game in a
    /// real window: needs a display and the moonloop executable beside
    /// this one; hot reload latency is measured with frame) or web (a
    /// game in a web page: needs `tools/cross.sh web` and chromium).
    #[arg(long, value_name = "GROUP", value_parser = clap::builder::PossibleValuesParser::new(GROUPS))]
    only: Option<String>,
}

fn main() -> ExitCode {
    let args = <Args as clap::Parser>::parse();
    match Report::run(args.only.as_deref()) {
        Ok(report) => {
            if args.json {
                say!("{}", report.json());
            } else {
                report.print();
            }
            if args.check && !report.holds() {
                ExitCode::FAILURE
            } else {
                ExitCode::SUCCESS
            }
        }
        Err(err) => {
            eprintln!("moonloop-bench: {}", moonloop::terminal::line(&err.chain()));
            ExitCode::from(err.exit_code())
        }
    }
}
