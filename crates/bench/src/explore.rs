//! The exploration cases (rules X1-X3): what a frame costs when the
//! machine plays pong (a fresh game each run, every property asked after
//! every frame) against a frame of pong played headless, on one worker
//! and on every core; and how many runs a guided search needs against a
//! random one to reach a planted bug eight levels into a game.

use std::path::Path;
use std::time::{Duration, Instant};

use super::{Row, TempGame};
use moonloop::clock::ConstantClock;
use moonloop::engine::Engine;
use moonloop::error::Result;
use moonloop::explore::{Options, search};
use moonloop::lua::LuaGame;

/// A game whose bug is deep: eight levels, each passed by walking from
/// the middle to one edge (right on odd levels, left on even ones),
/// before the last one breaks. At random that takes eight holds in a row
/// that the previous ones did not undo; guided by the level, each level
/// reached is a place to start from.
const DEEP: &str = "return {\n  config = { width = 100, height = 100, actions = { left = { \"left\" }, right = { \"right\" } } },\n  init = function() return { x = 50, level = 1 } end,\n  update = function(s, input, dt)\n    local x = math.clamp(s.x + (if input:down(\"right\") then 2 else 0) - (if input:down(\"left\") then 2 else 0), 0, 100)\n    local edge = if s.level % 2 == 1 then 100 else 0\n    if x == edge then return { x = 50, level = s.level + 1 } end\n    return { x = x, level = s.level }\n  end,\n}\n";

const DEEP_PROPERTIES: &str = "property(\"level 8 is never passed\", function(state) return state.level <= 8 end)\nfeatures(function(state) return { state.level } end)\n";

fn options(game: &Path, jobs: usize, runs: u64, frames: u64, guided: bool) -> Options {
    Options {
        game: game.to_path_buf(),
        seed: 0,
        runs,
        frames,
        time: Duration::from_secs(120),
        jobs,
        shard: (0, 1),
        guided,
        out: std::env::temp_dir().join("moonloop-bench-explore"),
        shrink_runs: 0,
        dt: None,
    }
}

/// Time per frame of pong played headless.
fn played(pong: &Path, frames: u64) -> Result<Duration> {
    let game = LuaGame::load(pong)?;
    let mut engine = moonloop::session::Session::new(Engine::new(
        game,
        Box::new(ConstantClock::new(1.0 / 60.0)),
    ));
    let started = Instant::now();
    engine.advance(frames)?;
    Ok(started.elapsed() / frames as u32)
}

/// Time per frame explored.
fn explored(pong: &Path, jobs: usize) -> Result<(Duration, u64)> {
    let started = Instant::now();
    let found = search(&options(pong, jobs, 16, 600, true))?;
    Ok((started.elapsed() / found.frames.max(1) as u32, found.frames))
}

/// The rows.
///
/// # Errors
/// A game does not load.
pub fn rows() -> Result<Vec<Row>> {
    let mut rows = Vec::new();
    let pong = super::repository().join("games/pong");
    if pong.join("main.luau").is_file() {
        let live = played(&pong, 9600)?;
        let (one, frames) = explored(&pong, 1)?;
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        let (all, _) = explored(&pong, cores)?;
        rows.push(Row {
            case: "pong: a frame explored on 1 worker vs a frame played headless".into(),
            baseline: live,
            measured: one,
            note: Some(format!(
                "{:.0} frames a second explored on 1 worker ({frames} frames, 16 runs)",
                1.0 / one.as_secs_f64()
            )),
            ..Row::default()
        });
        rows.push(Row {
            case: format!("pong: a frame explored on {cores} workers vs on 1"),
            baseline: one,
            measured: all,
            note: Some(format!(
                "{:.0} frames a second on {cores} workers",
                1.0 / all.as_secs_f64()
            )),
            ..Row::default()
        });
    }
    let plinko = super::repository().join("games/plinko");
    if plinko.join("main.luau").is_file() {
        rows.push(a_property_on_physics(&plinko)?);
    }
    let deep = TempGame::new("explore-deep", DEEP)?;
    std::fs::create_dir_all(deep.0.join("tests")).map_err(|e| moonloop::Error::io(&deep.0, e))?;
    std::fs::write(deep.0.join("tests/props.luau"), DEEP_PROPERTIES)
        .map_err(|e| moonloop::Error::io(&deep.0, e))?;
    let runs_to = |guided: bool| -> Result<(Duration, Option<u64>, u64)> {
        let started = Instant::now();
        let found = search(&options(&deep.0, 2, 2000, 600, guided))?;
        Ok((
            started.elapsed(),
            found.failure.map(|f| f.run + 1),
            found.runs,
        ))
    };
    let (random_time, random_runs, random_played) = runs_to(false)?;
    let (guided_time, guided_runs, guided_played) = runs_to(true)?;
    let said = |runs: Option<u64>, played: u64| match runs {
        Some(n) => format!("found at run {n}"),
        None => format!("not found in {played} runs"),
    };
    rows.push(Row {
        case: "a bug eight levels deep: guided search vs random, time to find it".into(),
        baseline: random_time,
        measured: guided_time,
        note: Some(format!(
            "random {}, guided {}",
            said(random_runs, random_played),
            said(guided_runs, guided_played)
        )),
        ..Row::default()
    });
    Ok(rows)
}

/// What one property that reads nothing costs a search of a physics game,
/// whose state holds a world of some seventy bodies that is new each
/// frame (X1: a property costs about what it does, not a copy of the
/// world). Plinko's own folder is searched without one; a copy of its
/// main script, with a test file declaring it, with one. Alternated, the
/// median of three each.
fn a_property_on_physics(plinko: &Path) -> Result<Row> {
    let main = std::fs::read_to_string(plinko.join("main.luau"))
        .map_err(|e| moonloop::Error::io(plinko, e))?;
    let with = TempGame::new("explore-property", &main)?;
    std::fs::create_dir_all(with.0.join("tests")).map_err(|e| moonloop::Error::io(&with.0, e))?;
    std::fs::write(
        with.0.join("tests/props.luau"),
        "property(\"t\", function() return true end)\n",
    )
    .map_err(|e| moonloop::Error::io(&with.0, e))?;
    let without = TempGame::new("explore-no-property", &main)?;
    let per_frame = |game: &Path| -> Result<Duration> {
        let started = Instant::now();
        let found = search(&options(game, 1, 8, 1200, true))?;
        Ok(started.elapsed() / found.frames.max(1) as u32)
    };
    let (mut base, mut measured) = (Vec::new(), Vec::new());
    for _ in 0..3 {
        base.push(per_frame(&without.0)?);
        measured.push(per_frame(&with.0)?);
    }
    base.sort();
    measured.sort();
    Ok(Row {
        case: "plinko: a frame explored with one property vs with none".into(),
        baseline: base[1],
        measured: measured[1],
        target: Some(1.5),
        note: Some(format!(
            "{:.0} frames a second with it, {:.0} without (1 worker)",
            1.0 / measured[1].as_secs_f64(),
            1.0 / base[1].as_secs_f64()
        )),
        ..Row::default()
    })
}
