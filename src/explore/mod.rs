//! `moonloop explore`: the machine plays the game (rules X1-X4 in
//! docs/exploring.md). Runs of generated input, each checked after every
//! frame against the game's properties; the first that breaks one is
//! shrunk to the shortest plan that still breaks it, and written as a
//! replay log the window, `--replay`, `seek` and the rewind tools open.
//!
//! A search is reproducible: run `i` of seed `s` gets its input from
//! `(s, i)` alone, and runs go in batches of [`BATCH`] whose results are
//! taken in run order, so any number of workers (`-j`) finds the same
//! failure. A search guided by the game's `features` is [`LANES`] guided
//! walks side by side: run `i` is lane `i % LANES`'s, and starts some of
//! its runs from the input that first reached a feature new to that lane,
//! learned only between batches. `--shard I/N` takes the runs whose index
//! is `I` modulo `N` (a guided search, whole lanes: those whose number is
//! `I` modulo `N`), so a run's input never depends on the shard count,
//! and the first failure of every shard together is the whole search's.

pub mod kept;
pub mod plan;
pub mod play;
pub mod report;
mod shrink;

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::error::{Error, Result};
use crate::lua::LuaGame;
use crate::lua::properties::Properties;
use crate::session::Session;
use crate::terminal::{say, tell};
use plan::{Inputs, Rng, Step};
pub use play::{Broke, CHECK_DT, DtCheck, Failure};

/// Runs a batch holds: results are taken between batches, in run order.
pub const BATCH: u64 = 16;

/// How many guided walks a search is: the most shards a guided search
/// splits into. Each lane learns from its own runs only, so a lane plays
/// alike in any shard.
pub const LANES: u64 = BATCH;

/// How many runs' lengths a guided run may reach, prefix and all.
const MAX_DEPTH: u64 = 10;

/// What a search is asked to do.
#[derive(Debug, Clone)]
pub struct Options {
    /// The game folder.
    pub game: PathBuf,
    /// Where run `i`'s input comes from, with `i`.
    pub seed: u64,
    /// How many runs (before a shard takes its share).
    pub runs: u64,
    /// How many frames each run plays.
    pub frames: u64,
    /// The longest the search runs, wall time.
    pub time: Duration,
    /// Workers.
    pub jobs: usize,
    /// This shard, of how many.
    pub shard: (u64, u64),
    /// Whether runs may start from input that reached new features.
    pub guided: bool,
    /// Where the failure's replay, state and picture go.
    pub out: PathBuf,
    /// The most candidates shrinking tries.
    pub shrink_runs: u64,
    /// A check-dt scenario every run must also pass (X1).
    pub dt: Option<play::DtCheck>,
}

/// What a search found.
#[derive(Debug)]
pub struct Found {
    /// Runs played, and frames.
    pub runs: u64,
    /// Frames played by those runs.
    pub frames: u64,
    /// Frames played in all, with the runs of the last batch after the
    /// failure (what the rate is of).
    pub played: u64,
    /// Features seen.
    pub features: usize,
    /// How long the search took (shrinking aside).
    pub seconds: f64,
    /// How long shrinking took.
    pub shrink_seconds: f64,
    /// The failure, shrunk, if one was found: run index, the plan before
    /// and after, where it breaks, and shrinking's runs.
    pub failure: Option<FoundFailure>,
    /// The properties checked, by name.
    pub properties: Vec<String>,
}

/// A failure the search found, and its shrunk form.
#[derive(Debug)]
pub struct FoundFailure {
    /// The run that found it.
    pub run: u64,
    /// Its plan's steps and frames before shrinking.
    pub original: (usize, u64),
    /// The shrunk plan.
    pub steps: Vec<Step>,
    /// Where the shrunk plan breaks.
    pub failure: Failure,
    /// Runs shrinking took.
    pub shrink_runs: u64,
}

/// What one run of a batch asked for.
struct Job {
    run: u64,
    /// Its lane's features seen so far (a guided search), or none.
    lane: usize,
    steps: Vec<Step>,
    /// How many frames it plays: `--frames`, or that many past the
    /// prefix it started from.
    frames: u64,
}

/// Plays `jobs` on `workers` threads (each loads the game's properties
/// once); results come back in the jobs' order.
fn play_batch(
    game: &Path,
    jobs: &[Job],
    workers: usize,
    seen: &[HashSet<u64>],
    dt: Option<&play::DtCheck>,
    deadline: Option<Instant>,
) -> Result<Vec<play::Played>> {
    let next = Mutex::new(0usize);
    let stopped = std::sync::atomic::AtomicBool::new(false);
    let results: Mutex<Vec<Option<Result<play::Played>>>> =
        Mutex::new((0..jobs.len()).map(|_| None).collect());
    std::thread::scope(|scope| {
        for _ in 0..workers.min(jobs.len()).max(1) {
            scope.spawn(|| {
                let properties = match Properties::load(game) {
                    Ok(p) => p,
                    Err(e) => {
                        let mut r = results.lock().unwrap_or_else(|p| p.into_inner());
                        if let Some(slot) = r.iter_mut().find(|s| s.is_none()) {
                            *slot = Some(Err(e));
                        }
                        return;
                    }
                };
                loop {
                    let i = {
                        let mut n = next.lock().unwrap_or_else(|p| p.into_inner());
                        let i = *n;
                        *n += 1;
                        i
                    };
                    // A run that could not be played (its features failed)
                    // ends the search: the runs after it are not played.
                    if stopped.load(std::sync::atomic::Ordering::Relaxed) {
                        break;
                    }
                    let Some(job) = jobs.get(i) else { break };
                    let seen = &seen[job.lane];
                    let played = play::play(
                        game,
                        &job.steps,
                        job.frames,
                        &properties,
                        seen,
                        dt,
                        deadline,
                    );
                    if played.is_err() {
                        stopped.store(true, std::sync::atomic::Ordering::Relaxed);
                    }
                    results.lock().unwrap_or_else(|p| p.into_inner())[i] = Some(played);
                }
            });
        }
    });
    results
        .into_inner()
        .unwrap_or_else(|p| p.into_inner())
        .into_iter()
        .map(|r| r.unwrap_or_else(|| Err(Error::script("a run did not finish"))))
        .collect()
}

/// Runs the search `options` asks for, printing a progress line now and
/// then on stderr.
///
/// # Errors
/// The game or its properties do not load.
pub fn search(options: &Options) -> Result<Found> {
    let started = Instant::now();
    let game = LuaGame::load(&options.game)?;
    let config = crate::Game::config(&game);
    let inputs = Inputs::of(config.every_action(), config.logical());
    drop(game);
    let properties = Properties::load(&options.game)?;
    let mut names: Vec<String> = properties.names().map(str::to_string).collect();
    if options.dt.is_some() {
        names.push(CHECK_DT.to_string());
    }
    let (shard, shards) = options.shard;
    if options.guided && shards > LANES {
        return Err(Error::usage(format!(
            "a guided search splits into at most {LANES} shards (its lanes); --unguided splits \
             into any number"
        )));
    }
    // Each lane's inputs that first reached a feature new to it, and the
    // features it has seen: a lane learns from its own runs only.
    let lanes = if options.guided { LANES as usize } else { 1 };
    let mut kept = kept::Kept::new(lanes);
    let mine = |run: u64| {
        let unit = if options.guided { run % LANES } else { run };
        unit % shards == shard
    };
    let (mut runs, mut frames, mut played_all) = (0u64, 0u64, 0u64);
    let mut last_said = Instant::now();
    let mut found = None;
    let mut start = 0u64;
    'search: while start < options.runs {
        if started.elapsed() >= options.time {
            break;
        }
        let end = (start + BATCH).min(options.runs);
        let jobs: Vec<Job> = (start..end)
            .filter(|&run| mine(run))
            .map(|run| {
                let lane = (run % lanes as u64) as usize;
                let corpus = &kept.corpus[lane];
                let mut rng = Rng::for_run(options.seed, run);
                let (steps, frames) = if options.guided && !corpus.is_empty() && rng.unit() < 0.7 {
                    // The newer an entry, the further it reached: the
                    // later of two picks leans toward them. A run from
                    // one plays its frames past where it starts, so the
                    // search goes deeper than one run's length.
                    let n = corpus.len() as u64;
                    let pick = rng.below(n).max(rng.below(n)) as usize;
                    let (prefix, from) = &corpus[pick];
                    let frames = (*from + options.frames).min(options.frames * MAX_DEPTH);
                    (plan::make(&inputs, &mut rng, frames, prefix, *from), frames)
                } else {
                    (
                        plan::make(&inputs, &mut rng, options.frames, &[], 1),
                        options.frames,
                    )
                };
                Job {
                    run,
                    lane,
                    steps,
                    frames,
                }
            })
            .collect();
        start = end;
        let results = play_batch(
            &options.game,
            &jobs,
            options.jobs,
            &kept.seen,
            options.dt.as_ref(),
            Some(started + options.time),
        )?;
        played_all += results.iter().map(|p| p.frames).sum::<u64>();
        for (job, played) in jobs.into_iter().zip(results) {
            runs += 1;
            frames += played.frames;
            if let Some(line) = kept.take(job.lane, &job.steps, &played.new) {
                tell!("{line}");
            }
            if let Some(failure) = played.failure {
                found = Some((job, failure, played.frames));
                break 'search;
            }
        }
        if last_said.elapsed() >= Duration::from_secs(2) {
            last_said = Instant::now();
            tell!(
                "explore: {runs} runs, {frames} frames, {} states seen, {:.0} s",
                kept.distinct(),
                started.elapsed().as_secs_f64()
            );
        }
    }
    let searched = started.elapsed().as_secs_f64();
    let failure = match found {
        None => None,
        Some((job, failure, played)) => {
            let original = (
                job.steps
                    .iter()
                    .filter(|s| s.frame <= failure.frame)
                    .count(),
                played,
            );
            let shrunk = shrink::shrink(
                &options.game,
                &properties,
                options.dt.as_ref(),
                job.steps,
                failure,
                shrink::Effort {
                    runs: options.shrink_runs,
                    jobs: options.jobs,
                    deadline: Some(started + options.time),
                },
            )?;
            if shrunk.cut_short {
                tell!(
                    "explore: --time ran out while shrinking; the replay is the shortest plan \
                     found by then ({} steps)",
                    shrunk.steps.len()
                );
            }
            Some(FoundFailure {
                run: job.run,
                original,
                steps: shrunk.steps,
                failure: shrunk.failure,
                shrink_runs: shrunk.runs,
            })
        }
    };
    Ok(Found {
        runs,
        frames,
        played: played_all,
        features: kept.distinct(),
        seconds: searched,
        shrink_seconds: started.elapsed().as_secs_f64() - searched,
        failure,
        properties: names,
    })
}

/// How many frames before the failure the GIF shows: the last three
/// seconds at 60 frames a second.
const GIF_FRAMES: u64 = 180;

/// How many changed places `changes.txt` lists.
const CHANGES: usize = 200;

/// The GIF of a failure's last seconds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Gif {
    /// Written there.
    Written(PathBuf),
    /// Not written, for this reason (the recording failed or was refused).
    Missing(String),
}

/// What [`write_failure`] wrote, for the closing lines.
#[derive(Debug)]
pub struct Written {
    /// The GIF of the last seconds, or why there is none.
    pub gif: Gif,
    /// The places the failing frame changed (empty when it broke at
    /// `init`'s state or changed nothing).
    pub changes: Vec<String>,
}

impl Default for Written {
    fn default() -> Self {
        Written {
            gif: Gif::Missing(String::new()),
            changes: Vec::new(),
        }
    }
}

/// Writes what a failure needs to be looked at into `out`: `replay.txt`
/// (the shrunk run, which `--replay` plays and checks the properties of),
/// `state.json` (the state at the frame it broke), `changes.txt` (what
/// that frame changed, place by place) and `last-seconds.gif` (the last
/// three seconds up to it, when there is a graphics adapter to draw them).
///
/// # Errors
/// The files cannot be written, or the game does not load.
pub fn write_failure(
    game: &Path,
    out: &Path,
    failure: &FoundFailure,
    seed: u64,
) -> Result<Written> {
    std::fs::create_dir_all(out).map_err(|e| Error::io(out, e))?;
    let replay_path = out.join("replay.txt");
    let loaded = LuaGame::load(game)?;
    let name = crate::replay::game_name(crate::Game::config(&loaded)).to_string();
    let mut engine = crate::engine::Engine::new(
        loaded,
        Box::new(crate::clock::ConstantClock::new(1.0 / 60.0)),
    );
    engine.set_script(plan::script(&failure.steps));
    let mut writer =
        crate::replay::ReplayWriter::create(&replay_path, seed_of(seed), Some(&name), None)?;
    writer.properties()?;
    engine.set_replay_writer(writer);
    let target = failure.failure.frame;
    let mut session = Session::new(engine);
    let _ = session.advance(target.saturating_sub(GIF_FRAMES));
    let gif_path = out.join("last-seconds.gif");
    let mut gif = Ok(());
    match crate::capture::Capture::start(&gif_path, true) {
        Ok(capture) => session = session.capture(Some(capture)),
        Err(why) => gif = Err(why.to_string()),
    }
    let mut before = None;
    while session.engine().frame() < target {
        let frame = session.engine().frame();
        if frame + 1 == target {
            before = Some(session.engine().game().state().clone());
        }
        // The run failed at `target` and at no frame before it: an error
        // before it is the recording's, which ends the GIF; the target
        // frame's is the failure being shown.
        if let Err(err) = session.advance(1)
            && session.engine().frame() < target
            && gif.is_ok()
        {
            gif = Err(err.to_string());
            session.take_capture();
        }
        if session.engine().frame() == frame {
            break;
        }
    }
    let capture = session.take_capture();
    let (mut engine, _) = session.finish()?;
    let state = engine.game().state_json().unwrap_or_default();
    engine.flush()?;
    crate::files::write(
        &out.join("state.json"),
        state + "\n",
        crate::files::Readers::Owner,
    )?;
    let mut changes = match &before {
        Some(old) => crate::state::changes(old, engine.game().state(), CHANGES)
            .unwrap_or_else(|e| vec![format!("the states could not be compared: {e}")]),
        None => Vec::new(),
    };
    // What the broken property read comes first: the puck that left the
    // table, not the copy of the world kept for drawing.
    if let Broke::Property(name, _) = &failure.failure.broke
        && !changes.is_empty()
    {
        let read = crate::lua::properties::Properties::load(game)
            .and_then(|p| p.read_by(name, engine.game(), target))
            .unwrap_or_default();
        changes = crate::state::read_first(changes, &read);
    }
    let mut text = changes.join("\n");
    if before.is_none() {
        text = "it broke at init's state: no frame ran before it".into();
    } else if changes.is_empty() {
        text = format!("frame {target} changed nothing in the state");
    }
    crate::files::write(
        &out.join("changes.txt"),
        text + "\n",
        crate::files::Readers::Owner,
    )?;
    let gif = gif.and_then(|()| match capture {
        Some(c) => c.recorder.finish().map(drop).map_err(|e| e.to_string()),
        None => Ok(()),
    });
    let gif = match gif {
        Ok(()) => Gif::Written(gif_path),
        Err(why) => {
            let _ = std::fs::remove_file(&gif_path);
            Gif::Missing(why)
        }
    };
    Ok(Written { gif, changes })
}

/// The `math.random` seed explored games start from: the default one,
/// whatever the search's seed (which seeds the input, not the game).
fn seed_of(_search: u64) -> u64 {
    crate::lua::DEFAULT_SEED
}

/// Prints what a search found; says whether it found a failure.
pub fn print(found: &Found, options: &Options) -> bool {
    say!(
        "explored {} runs, {} frames ({:.0} frames a second), {} states seen, in {:.1} s (seed {})",
        found.runs,
        found.frames,
        found.played as f64 / found.seconds.max(1e-9),
        found.features,
        found.seconds,
        options.seed
    );
    match &found.failure {
        None => {
            match found.properties.len() {
                0 => say!("no run broke a frame (the game states no properties)"),
                1 => say!("no run broke a frame or the game's property"),
                n => say!("no run broke a frame or any of the game's {n} properties"),
            }
            false
        }
        Some(f) => {
            say!(
                "run {} broke at frame {}: {}",
                f.run,
                f.failure.frame,
                crate::terminal::line(&f.failure.broke.describe())
            );
            say!(
                "shrunk from {} steps over {} frames to {} steps over {} frames, in {} runs ({:.1} s)",
                f.original.0,
                f.original.1,
                f.steps.len(),
                f.failure.frame,
                f.shrink_runs,
                found.shrink_seconds
            );
            true
        }
    }
}
