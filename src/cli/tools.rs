//! The commands beside `run` and `test`: `check` (the type checker),
//! `build`, `synctest`, `explore` and `check-dt`.

use crate::terminal::{say, tell};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::clock::ClockSpec;
use crate::error::{Error, Result};
use crate::lua::LuaGame;

/// Runs `moonloop-check` from beside this binary on `games`, passing its
/// output and exit status through; says in one line how to build it when
/// it is missing (exit 2).
pub(super) fn check(games: &[PathBuf]) -> ExitCode {
    let name = format!("moonloop-check{}", std::env::consts::EXE_SUFFIX);
    let beside = std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(|dir| dir.join(&name)));
    let Some(checker) = beside.filter(|p| p.is_file()) else {
        tell!(
            "moonloop check: the type checker is not built; build it with \
             `cargo build --release -p moonloop-check` (it goes beside moonloop)"
        );
        return ExitCode::from(2);
    };
    match std::process::Command::new(&checker).args(games).status() {
        Ok(status) if status.code().is_some() => {
            ExitCode::from(status.code().unwrap_or(2).clamp(0, 255) as u8)
        }
        Ok(status) => {
            #[cfg(unix)]
            let signal = std::os::unix::process::ExitStatusExt::signal(&status).unwrap_or(0);
            #[cfg(not(unix))]
            let signal = {
                let _ = status;
                0
            };
            tell!(
                "moonloop check: the type checker stopped on signal {signal} before it \
                 finished (this is a bug in moonloop; please report it with the game)"
            );
            ExitCode::from(2)
        }
        Err(e) => {
            tell!("moonloop check: cannot run {}: {e}", checker.display());
            ExitCode::from(2)
        }
    }
}

/// `moonloop synctest`: exit 1 when a frame came out differently or
/// failed, with the line that says where.
pub(super) fn synctest(options: &crate::synctest::Options) -> Result<ExitCode> {
    match crate::synctest::run(options)? {
        crate::synctest::Outcome::Passed(passed) => {
            let quit = if passed.frames < options.frames {
                " (then the game quit)"
            } else {
                ""
            };
            say!(
                "synctest: {} frames played{quit}, each rolled back {} frames: {} frames run again, \
                 every one the same",
                passed.frames,
                options.depth,
                passed.checked
            );
            Ok(ExitCode::SUCCESS)
        }
        crate::synctest::Outcome::Failed(line) => {
            tell!("moonloop: {}", crate::terminal::line(&line));
            if options.input.is_none() {
                tell!(
                    "moonloop: the input came from --seed {}; the same seed plays it again",
                    options.seed
                );
            }
            Ok(ExitCode::FAILURE)
        }
    }
}

pub(super) fn build(
    game: &Path,
    out: &Path,
    (target, runtime): (crate::package::Target, Option<&Path>),
    verbose: bool,
) -> Result<ExitCode> {
    // A game that does not load is not worth shipping: say so now.
    let loaded = LuaGame::load(game)?;
    if target == crate::package::Target::Web {
        refuse_a_scene(game)?;
    }
    let runtime = target.runtime(runtime)?;
    let config = crate::Game::config(&loaded);
    let about = crate::package::About {
        title: config.title.clone(),
        version: config.version.clone(),
    };
    let (size, files) = if target == crate::package::Target::Web {
        crate::package::build_web(game, out, &about, &runtime)?
    } else {
        crate::package::build(game, out, &about, (target, &runtime))?
    };
    if verbose {
        for file in &files {
            say!("packed {}", file.display());
        }
    }
    if target == crate::package::Target::Web {
        tell!(
            "built the page {} ({}); serve the folder over HTTP (a page opened from the disk \
             cannot load its runtime) and open index.html",
            out.display(),
            crate::assets::bytes(size)
        );
    } else {
        tell!(
            "built {} ({}); `{} --help` shows the player its options",
            out.display(),
            crate::assets::bytes(size),
            out.display()
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// How long a game is played, headless and untouched, to see whether it
/// poses a 3D scene before it goes into a web page: two seconds.
const SCENE_LOOK_FRAMES: u64 = 120;

/// Refuses a game that poses a 3D scene in its first
/// [`SCENE_LOOK_FRAMES`] frames (no input, a constant clock, its saves in
/// memory): the page draws the screen layer alone, and a game whose
/// picture is mostly its scene would ship as an empty page (B3).
fn refuse_a_scene(game: &Path) -> Result<()> {
    let clock = Box::new(crate::ConstantClock::new(1.0 / 60.0));
    let mut engine = crate::Engine::new(LuaGame::load(game)?, clock);
    for frame in 1..=SCENE_LOOK_FRAMES {
        // A frame that fails is the game's to show; the look goes on.
        let _ = engine.advance(1);
        if !crate::compositor::flat(&engine) {
            return Err(Error::usage_of(
                crate::terminal::escape(&game.to_string_lossy()),
                format!(
                    "the game poses a 3D scene (frame {frame}), which a web page cannot draw \
                     yet: the page draws the screen layer alone; ship it as an executable \
                     (--target here or windows)"
                ),
            ));
        }
    }
    Ok(())
}

/// `moonloop explore`'s arguments.
pub(super) struct ExploreArgs {
    pub(super) game: PathBuf,
    pub(super) seed: u64,
    pub(super) runs: u64,
    pub(super) frames: u64,
    pub(super) time: f64,
    pub(super) jobs: Option<u64>,
    pub(super) shard: Option<String>,
    pub(super) unguided: bool,
    pub(super) out: PathBuf,
    pub(super) report: Option<PathBuf>,
    pub(super) check_dt: Option<PathBuf>,
    pub(super) clocks: Option<String>,
}

/// Runs a search; exit 1 when a run broke something, 0 when none did.
pub(super) fn explore(args: ExploreArgs) -> Result<ExitCode> {
    if let Some(path) = &args.report {
        crate::explore::report::check(path)?;
    }
    let shard = match &args.shard {
        None => (0, 1),
        Some(text) => crate::explore::report::parse_shard(text)
            .map_err(|why| Error::usage(format!("--shard {why}")))?,
    };
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    let options = crate::explore::Options {
        game: args.game.clone(),
        seed: args.seed,
        runs: args.runs,
        frames: args.frames,
        time: std::time::Duration::from_secs_f64(args.time),
        jobs: args.jobs.map_or(cores, |j| j as usize),
        shard,
        guided: !args.unguided,
        out: args.out.clone(),
        shrink_runs: 3000,
        dt: match &args.check_dt {
            None => None,
            Some(scenario) => Some(crate::explore::DtCheck {
                scenario: scenario_file(&args.game, scenario),
                clocks: clock_specs(args.clocks.as_deref())?.1,
            }),
        },
    };
    if let Ok(real) = args.out.canonicalize().or_else(|_| {
        args.out
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .map_or(std::env::current_dir(), |p| p.canonicalize())
    }) && let Ok(game) = args.game.canonicalize()
        && real.starts_with(&game)
    {
        return Err(Error::usage_of(
            format!("--out {}", args.out.display()),
            "inside the game folder it would be shipped with the game; write it elsewhere",
        ));
    }
    let found = crate::explore::search(&options)?;
    let broke = crate::explore::print(&found, &options);
    if let Some(failure) = &found.failure {
        let written = crate::explore::write_failure(&args.game, &args.out, failure, args.seed)?;
        if !written.changes.is_empty() {
            say!("frame {} changed:", failure.failure.frame);
            for line in written.changes.iter().take(12) {
                say!("  {line}");
            }
            if written.changes.len() > 12 {
                say!("  ... (all of them in {}/changes.txt)", args.out.display());
            }
        }
        match &written.gif {
            crate::explore::Gif::Written(path) => say!("the last seconds: {}", path.display()),
            crate::explore::Gif::Missing(why) => {
                say!("no GIF of the last seconds: {}", crate::terminal::line(why))
            }
        }
        let dt_broke = matches!(
            &failure.failure.broke,
            crate::explore::Broke::Property(name, _) if name == crate::explore::CHECK_DT
        );
        if dt_broke {
            say!(
                "wrote {0}/replay.txt, {0}/state.json and {0}/changes.txt: the replay is the input at 1/60 s a frame, under which the scenario's outcome is the reference; `moonloop explore {1} --check-dt {2} --seed {3}` finds it again",
                args.out.display(),
                args.game.display(),
                args.check_dt.as_deref().unwrap_or(Path::new("")).display(),
                args.seed
            );
        } else {
            say!(
                "wrote {0}/replay.txt, {0}/state.json and {0}/changes.txt: `moonloop run {1} --headless --replay {0}/replay.txt` breaks at frame {2}; `--replay ... --until {2}` opens it in a window",
                args.out.display(),
                args.game.display(),
                failure.failure.frame
            );
        }
    }
    if let Some(path) = &args.report {
        let suite = args.game.display().to_string();
        let mut cases: Vec<crate::explore::report::Case> = found
            .properties
            .iter()
            .map(|name| crate::explore::report::Case {
                suite: suite.clone(),
                name: name.clone(),
                seconds: 0.0,
                failure: None,
            })
            .collect();
        cases.push(crate::explore::report::Case {
            suite: suite.clone(),
            name: "every frame runs without error".into(),
            seconds: found.seconds,
            failure: None,
        });
        if let Some(f) = &found.failure {
            let why = format!(
                "{} at frame {} (run {}, seed {}); shrunk to {} steps; replay in {}",
                f.failure.broke.describe(),
                f.failure.frame,
                f.run,
                args.seed,
                f.steps.len(),
                args.out.join("replay.txt").display()
            );
            let name = match &f.failure.broke {
                crate::explore::Broke::Property(name, _) => name.clone(),
                crate::explore::Broke::Frame(_) => "every frame runs without error".into(),
            };
            if let Some(case) = cases.iter_mut().find(|c| c.name == name) {
                case.failure = Some(why);
            }
        }
        crate::explore::report::write(path, &cases)?;
    }
    Ok(if broke {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

/// The clocks `--clocks` names (check-dt's four when it is not given), as
/// written and as read.
fn clock_specs(clocks: Option<&str>) -> Result<(Vec<String>, Vec<ClockSpec>)> {
    let specs: Vec<String> = match clocks {
        Some(text) => crate::lua::split_clocks(text),
        None => crate::lua::DEFAULT_CLOCKS
            .iter()
            .map(|s| s.to_string())
            .collect(),
    };
    let clocks = specs
        .iter()
        .map(|s| s.parse::<ClockSpec>())
        .collect::<Result<Vec<_>, _>>()?;
    Ok((specs, clocks))
}

/// A scenario named relative to the game folder, or as a path.
fn scenario_file(game: &Path, scenario: &Path) -> PathBuf {
    if scenario.is_relative() && game.join(scenario).is_file() {
        game.join(scenario)
    } else {
        scenario.to_path_buf()
    }
}

/// Runs a scenario under each clock and prints a table; exit 1 when any
/// outcome differs from the first clock's.
pub(super) fn check_dt(game: &Path, scenario: &Path, clocks: Option<&str>) -> Result<ExitCode> {
    let (specs, clocks) = clock_specs(clocks)?;
    let file = scenario_file(game, scenario);
    let runs = crate::lua::check_dt(game, &file, &clocks)?;
    // Each clock is shown as the author wrote it (`1/75`, not 0.013333).
    let shown: Vec<String> = specs
        .iter()
        .map(|s| crate::terminal::line(s.trim()))
        .collect();
    say!(
        "{:<40} {:>7} {:>11}  outcome",
        "clock",
        "frames",
        "simulated"
    );
    let reference = runs.first().and_then(|r| r.outcome.json());
    for (i, run) in runs.iter().enumerate() {
        use crate::lua::Ending;
        let verdict = match (&run.outcome, reference) {
            (Ending::Failed(why), _) => format!("FAILED: {}", crate::terminal::line(why)),
            (Ending::Outcome(json), _) if i == 0 => {
                format!("{} (reference)", crate::lua::compact(json))
            }
            (Ending::Outcome(json), Some(reference)) if json == reference => "same".to_string(),
            (Ending::Outcome(json), _) => format!("DIFFERENT: {}", crate::lua::compact(json)),
        };
        say!(
            "{:<40} {:>7} {:>9.3} s  {verdict}",
            shown[i],
            run.frames,
            run.elapsed
        );
    }
    let mismatches = crate::lua::disagreements(&runs, &shown);
    if mismatches.is_empty() {
        match runs.len() {
            1 => say!("the one clock ran; name two or more with --clocks to compare them"),
            n => say!("all {n} clocks agree"),
        }
        Ok(ExitCode::SUCCESS)
    } else {
        for m in &mismatches {
            say!("K4: {}", crate::terminal::line(m));
        }
        Ok(ExitCode::FAILURE)
    }
}
