//! The command line: `moonloop run`, `moonloop test`.
//!
//! Every failure a user can cause here ends as one line on stderr and an
//! exit code: 2 for a bad argument, a missing game or a game that does not
//! load; 1 for frames or tests that failed.

use crate::terminal::{say, tell};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Mutex;

use clap::{Args, Parser, Subcommand};

use crate::capture::Capture;
use crate::clock::ClockSpec;
use crate::config::Scaling;
use crate::engine::Engine;
use crate::error::{Error, Result};
use crate::headless;
use crate::input::Script;
use crate::lua::{LuaGame, TestReport, run_test_file_with};
use crate::reload::Watcher;
use crate::replay::ReplayWriter;
use crate::save::Saves;
use crate::session::Session;
use crate::window;

/// Runs `moonloop-check` from beside this binary on `games`, passing its
/// output and exit status through; says in one line how to build it when
/// it is missing (exit 2).
fn check(games: &[PathBuf]) -> ExitCode {
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
            use std::os::unix::process::ExitStatusExt as _;
            tell!(
                "moonloop check: the type checker stopped on signal {} before it finished \
                 (this is a bug in moonloop; please report it with the game)",
                status.signal().unwrap_or(0)
            );
            ExitCode::from(2)
        }
        Err(e) => {
            tell!("moonloop check: cannot run {}: {e}", checker.display());
            ExitCode::from(2)
        }
    }
}

/// moonloop runs games written in Luau.
#[derive(Debug, Parser)]
#[command(name = "moonloop", version, about)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

// Parsed once per process: the size of `run`'s arguments costs nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Subcommand)]
enum Command {
    /// Runs a game: a folder, or a .zip of one.
    Run(RunArgs),
    /// Writes one executable that carries the game and runs it anywhere.
    Build {
        /// The game folder.
        game: PathBuf,
        /// The executable to write.
        #[arg(short, long, value_name = "FILE")]
        out: PathBuf,
        /// Lists every file packed (what .moonloopignore leaves out is not).
        #[arg(short, long)]
        verbose: bool,
    },
    /// Plays the game with generated input, checking its properties after
    /// every frame; shrinks the first failure to the shortest replay.
    Explore {
        /// The game folder.
        game: PathBuf,
        /// Where the search's input comes from: the same seed, the same
        /// search.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// How many runs.
        #[arg(long, default_value_t = 500, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
        runs: u64,
        /// How many frames each run plays (1/60 s each).
        #[arg(long, default_value_t = 1800, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
        frames: u64,
        /// The longest the search runs, in seconds of wall time.
        #[arg(long, value_name = "SECONDS", default_value_t = 300.0, value_parser = parse_budget)]
        time: f64,
        /// Workers (default: one a core).
        #[arg(short = 'j', long, value_parser = clap::value_parser!(u64).range(1..=256))]
        jobs: Option<u64>,
        /// This shard of the search, I/N (or N, with JOB_COMPLETION_INDEX).
        #[arg(long, value_name = "I/N")]
        shard: Option<String>,
        /// Searches at random only, not guided by the game's `features`.
        #[arg(long)]
        unguided: bool,
        /// Where the failure's replay and state are written.
        #[arg(long, value_name = "DIR", default_value = "moonloop-explore")]
        out: PathBuf,
        /// Writes a report: JUnit XML (.xml) or JSON lines (.jsonl).
        #[arg(long, value_name = "PATH")]
        report: Option<PathBuf>,
    },
    /// Plays the game rolling back and running again the last frames
    /// after every frame, as online play would (N1): says whether every
    /// frame came out the same.
    Synctest {
        /// The game folder.
        game: PathBuf,
        /// How many frames to play (1/60 s each).
        #[arg(long, default_value_t = 600, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
        frames: u64,
        /// How many frames to roll back after each.
        #[arg(long, default_value_t = crate::engine::SYNCTEST_DEPTH, value_parser = clap::value_parser!(u64).range(1..=64))]
        depth: u64,
        /// Where the generated input comes from.
        #[arg(long, default_value_t = 0)]
        seed: u64,
        /// Plays this input file of the game's instead of generated input.
        #[arg(long, value_name = "FILE")]
        input: Option<String>,
    },
    /// Runs each game's tests/*.luau and prints "N passed, N failed".
    Test {
        /// Game folders; default: every folder in games/ with a tests/ folder.
        games: Vec<PathBuf>,
        /// How long each test may run, in seconds (default 10).
        #[arg(long, value_name = "SECONDS", value_parser = parse_budget)]
        budget: Option<f64>,
        /// Writes the golden pictures `picture:matches` finds missing or
        /// changed, and says which.
        #[arg(long)]
        bless: bool,
        /// Runs this shard of the test files, I/N (or N, with
        /// JOB_COMPLETION_INDEX): file K when K modulo N is I.
        #[arg(long, value_name = "I/N")]
        shard: Option<String>,
        /// Writes a report: JUnit XML (.xml) or JSON lines (.jsonl).
        #[arg(long, value_name = "PATH")]
        report: Option<PathBuf>,
    },
    /// Type-checks every .luau file of each game in strict mode against
    /// the API (runs moonloop-check, built beside this binary).
    Check {
        /// Game folders or .luau files; default: the current folder.
        games: Vec<PathBuf>,
    },
    /// Makes a new game folder that runs, passes its test and checks.
    New {
        /// The folder to make (its name becomes the game's title and id).
        name: PathBuf,
        /// What to start from: blank (a square to move, one test) or 2d (a
        /// sprite sheet, a sound, a pixel font, a save, a scenario and
        /// tests, each used once).
        #[arg(long, value_name = "NAME", default_value = "blank", value_parser = crate::scaffold::TEMPLATES)]
        template: String,
    },
    /// Runs one scenario under several clocks and compares the outcomes (K4).
    CheckDt {
        /// The game folder.
        game: PathBuf,
        /// The scenario file, in the game folder.
        #[arg(long, value_name = "FILE")]
        scenario: PathBuf,
        /// The clocks, comma-separated (default: constant:1/60,
        /// constant:1/144, list:1/30,1/90,1/240, jitter:seed=7,min=0.008,max=0.033).
        #[arg(long, value_name = "SPEC,...")]
        clocks: Option<String>,
    },
    /// Finds the first frame of a replay at which a Luau expression over
    /// `state` holds, and prints that frame's number and state (R4).
    Seek {
        /// The game folder.
        game: PathBuf,
        /// The log written by --record-input.
        #[arg(long, value_name = "FILE")]
        replay: PathBuf,
        /// A Luau expression over `state`, as in `state.ball.vy ~= state.ball.vy`.
        #[arg(long, value_name = "EXPR")]
        when: String,
    },
    /// Measures the host's speed as ratios against in-process baselines.
    Bench {
        /// Exits 1 when a CPU target is missed (renderer targets on a
        /// software adapter are reported as needing a GPU, not failed).
        #[arg(long)]
        check: bool,
        /// Prints the rows as JSON.
        #[arg(long)]
        json: bool,
        /// Runs one group of cases only: frame, history, screen, record,
        /// budget, render or explore (hot reload latency is measured with
        /// frame).
        #[arg(long, value_name = "GROUP", value_parser = clap::builder::PossibleValuesParser::new(crate::bench::GROUPS))]
        only: Option<String>,
    },
    /// Runs a game for a long time with reloads and recordings, and
    /// reports memory (a test of the host, not part of the normal tests).
    Soak {
        /// The game folder.
        game: PathBuf,
        /// Frames to run. Default: 1,000,000.
        #[arg(long, default_value_t = 1_000_000)]
        frames: u64,
        /// Reload every N frames. Default: 1,000.
        #[arg(long, default_value_t = 1_000)]
        reload_every: u64,
        /// Record every Nth frame into a folder. Default: 10,000.
        #[arg(long, default_value_t = 10_000)]
        record_every: u64,
        /// Where recorded frames go. Default: none are recorded.
        #[arg(long)]
        record: Option<PathBuf>,
        /// History's cap in MiB. Default: 256, a window's.
        #[arg(long, value_name = "MIB", default_value_t = 256, value_parser = clap::value_parser!(u32).range(1..=65536))]
        history_cap: u32,
    },
}

#[derive(Debug, Args)]
struct RunArgs {
    /// The game folder (holding main.luau), or a .zip of one.
    game: PathBuf,
    /// Runs without a window (the default opens one).
    #[arg(long)]
    headless: bool,
    /// The clock. paced takes frames a second, the others seconds a frame:
    /// wall, wall:max=0.1, paced:60, constant:1/60, list:1/30,1/60,
    /// jitter:seed=7,min=0.008,max=0.033.
    #[arg(long, value_name = "SPEC")]
    clock: Option<ClockSpec>,
    /// Stops after N delivered frames.
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    frames: Option<u64>,
    /// Records the picture to a folder of PNGs, a .gif or an animated .png.
    #[arg(long, value_name = "PATH")]
    record: Option<PathBuf>,
    /// Feeds scripted input from FILE.
    #[arg(long, value_name = "FILE")]
    input: Option<PathBuf>,
    /// Writes every delta and input event to FILE, for --replay.
    #[arg(long, value_name = "FILE")]
    record_input: Option<PathBuf>,
    /// Plays back a log written by --record-input.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["clock", "input"])]
    replay: Option<PathBuf>,
    /// Plays the replay up to frame N and stops there: headless, to print
    /// that frame's state; in a window, paused on it, to play on or rewind.
    #[arg(long, value_name = "N", requires = "replay", conflicts_with = "frames")]
    until: Option<u64>,
    /// In a window, Shift+F9 shows (paused) the next frame of history at
    /// which this Luau expression over `state` and `frame` holds, as
    /// `moonloop seek` finds it in a replay.
    #[arg(long, value_name = "EXPR", conflicts_with = "headless")]
    when: Option<String>,
    /// Reloads scripts when they change (on by default in a window).
    #[arg(long, conflicts_with = "no_watch")]
    watch: bool,
    /// Does not watch the game folder.
    #[arg(long)]
    no_watch: bool,
    /// The ALSA device that plays sound in a window ("off" for none), or a
    /// .wav file the mix is rendered into, in step with simulated time.
    #[arg(long, value_name = "DEVICE|FILE.wav", default_value = "default")]
    audio: String,
    /// Opens the window fullscreen.
    #[arg(long)]
    fullscreen: bool,
    /// Opens the window N times the game's size (1 to 16; default the
    /// game's config.scale).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=16))]
    scale: Option<u32>,
    /// How the game grows to fill the window: whole (whole pixels, for
    /// pixel art) or fit (as large as fits). Default: the game's
    /// config.scaling, else fit.
    #[arg(long, value_name = "MODE", value_parser = ["whole", "fit"])]
    scaling: Option<String>,
    /// The seed `math.random` starts from (default 0; a replay brings its own).
    #[arg(long, value_name = "N", conflicts_with = "replay")]
    seed: Option<u64>,
    /// Keeps the game's save in DIR/<config.id>/save.json (a window's
    /// default is the user's data folder, $XDG_DATA_HOME/moonloop; a
    /// headless run's is memory, gone when it ends; a replay brings its own).
    #[arg(long, value_name = "DIR", conflicts_with = "replay")]
    save_dir: Option<PathBuf>,
    /// Raises the time budget of each call into game code past its
    /// default of 1 s (a game's config can only lower it).
    #[arg(long, value_name = "SECONDS", value_parser = parse_budget)]
    budget: Option<f64>,
    /// Raises the game VM's memory cap past its default of 512 MiB (a
    /// game's config can only lower it).
    #[arg(long, value_name = "MIB", value_parser = clap::value_parser!(u32).range(1..=65536))]
    memory: Option<u32>,
    /// Prints the final state as canonical JSON.
    #[arg(long)]
    print_state: bool,
    /// How errors name the game's folder (a built game's own name).
    #[arg(long, hide = true, value_name = "NAME")]
    shown_as: Option<String>,
    /// Prints the hash of the final state's canonical encoding.
    #[arg(long)]
    state_hash: bool,
}

/// The options a built game shows its player: how to play it, not how
/// to build or test it. The rest of `run`'s still work (a CI run of the
/// built game, `--headless --frames 60 --print-state`), unlisted.
const PLAYER_OPTIONS: &[&str] = &[
    "fullscreen",
    "scale",
    "scaling",
    "audio",
    "save_dir",
    "headless",
    "help",
    "version",
];

/// A built executable's own command line: the game's name, title and
/// version, and the options a player uses.
fn carried_command(name: &str, about: &crate::package::About) -> clap::Command {
    use clap::Args as _;
    let title = if about.title.is_empty() {
        name.to_string()
    } else {
        about.title.clone()
    };
    let version = about
        .version
        .clone()
        .unwrap_or_else(|| "(no version: the game's config.version is not set)".into());
    let command = clap::Command::new(name.to_string())
        .about(format!("{title}: a game made with moonloop"))
        .version(version)
        .override_usage(format!("{name} [OPTIONS]"))
        .disable_help_subcommand(true);
    RunArgs::augment_args(command).mut_args(|arg| {
        let shown = PLAYER_OPTIONS.contains(&arg.get_id().as_str());
        arg.hide(!shown)
    })
}

/// Where a built executable's game goes in `run`'s arguments until it is
/// unpacked.
const CARRIED: &str = "\u{0}carried game";

/// Parses `args` and runs the command, returning the process's exit code.
pub fn main(args: impl IntoIterator<Item = OsString>) -> ExitCode {
    // A built executable carries its game: its arguments are `run`'s,
    // without the game (H12).
    let mut args: Vec<OsString> = args.into_iter().collect();
    let carried = match crate::package::embedded() {
        Ok(carried) => carried,
        Err(why) => {
            tell!("moonloop: {why}");
            return ExitCode::from(2);
        }
    };
    let mut player_name = String::from("moonloop");
    let parsed = match &carried {
        Some(payload) => {
            if args.iter().any(|a| a == "--watch") {
                tell!("moonloop: a built game does not reload; --watch is for game folders");
                return ExitCode::from(2);
            }
            let rest = args.split_off(1.min(args.len()));
            let name = args
                .first()
                .and_then(|a| Path::new(a).file_name())
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| "game".into());
            player_name = name.clone();
            // The game's folder once it is unpacked, which waits until the
            // arguments are known to run a game (`--help` unpacks nothing).
            args.push(CARRIED.into());
            args.push("--shown-as".into());
            args.push(name.clone().into());
            if !rest.iter().any(|a| a == "--no-watch") {
                args.push("--no-watch".into());
            }
            args.extend(rest);
            let about = crate::package::About::of(payload).unwrap_or_default();
            carried_command(&name, &about)
                .try_get_matches_from(args)
                .and_then(|matches| {
                    use clap::FromArgMatches as _;
                    RunArgs::from_arg_matches(&matches)
                })
                .map(|run| Cli {
                    command: Command::Run(run),
                })
        }
        None => Cli::try_parse_from(args),
    };
    let cli = match parsed {
        Ok(cli) => cli,
        Err(err) => {
            use clap::error::ErrorKind;
            if matches!(
                err.kind(),
                ErrorKind::DisplayHelp | ErrorKind::DisplayVersion
            ) {
                let _ = err.print();
                return ExitCode::SUCCESS;
            }
            // clap's first line names the problem; its usage block is noise here.
            // An option of a few values names them on a line of its own.
            let text = err.to_string();
            let first = text.lines().next().unwrap_or("bad arguments");
            let values = text
                .lines()
                .map(str::trim)
                .find(|l| l.starts_with("[possible values: "))
                .map_or(String::new(), |l| format!(" {l}"));
            tell!(
                "{player_name}: {}{values} (see {player_name} --help)",
                first.trim_start_matches("error: ")
            );
            return ExitCode::from(2);
        }
    };
    // A run ends between frames on a signal, finishing its recording and
    // removing a packaged game's folder: the handler goes in as soon as
    // the command is known to be a run, before anything is unpacked.
    if matches!(cli.command, Command::Run(_)) {
        crate::interrupt::install();
    }
    // Held until the run ends: the unpacked folder goes with it.
    let mut _unpacked = None;
    let outcome = match cli.command {
        Command::Run(mut args) if carried.is_some() && args.game == Path::new(CARRIED) => {
            // A signal while unpacking ends the run before its first
            // frame, and the folder is removed on the way out.
            crate::interrupt::install();
            let zip = carried.unwrap_or_default();
            match crate::package::unpack(&zip, "the game this executable carries") {
                Ok(unpacked) => {
                    args.game = unpacked.game().to_path_buf();
                    _unpacked = Some(unpacked);
                    run(args)
                }
                Err(why) => Err(Error::Usage(why)),
            }
        }
        Command::Run(args) => run(args),
        Command::Build { game, out, verbose } => build(&game, &out, verbose),
        Command::Test {
            games,
            budget,
            bless,
            shard,
            report,
        } => {
            crate::lua::picture::bless(bless);
            test(games, budget, shard.as_deref(), report.as_deref())
        }
        Command::Check { games } => Ok(check(&games)),
        Command::Explore {
            game,
            seed,
            runs,
            frames,
            time,
            jobs,
            shard,
            unguided,
            out,
            report,
        } => explore(ExploreArgs {
            game,
            seed,
            runs,
            frames,
            time,
            jobs,
            shard,
            unguided,
            out,
            report,
        }),
        Command::Synctest {
            game,
            frames,
            depth,
            seed,
            input,
        } => synctest(&crate::synctest::Options {
            game,
            frames,
            depth,
            seed,
            input,
        }),
        Command::New { name, template } => crate::scaffold::new_game(&name, &template).map(|()| {
            say!(
                "made {0}: run it with `moonloop run {0}`, test it with `moonloop test {0}`",
                name.display()
            );
            ExitCode::SUCCESS
        }),
        Command::CheckDt {
            game,
            scenario,
            clocks,
        } => check_dt(&game, &scenario, clocks.as_deref()),
        Command::Soak {
            game,
            frames,
            reload_every,
            record_every,
            record,
            history_cap,
        } => {
            let cap = (history_cap as usize) << 20;
            crate::soak::run(&game, frames, reload_every.max(1), record_every.max(1), record.as_deref(), cap).map(|r| {
                say!(
                    "{} frames, {} reloads, {} recorded, {} failed, in {:.1} s",
                    r.frames, r.reloads, r.recorded, r.errors, r.seconds
                );
                say!(
                    "memory (resident): {} KiB at 10% of the run, {} KiB at the end ({:+.1}%), peak {} KiB",
                    r.memory_early,
                    r.memory_final,
                    (r.memory_final as f64 / r.memory_early.max(1) as f64 - 1.0) * 100.0,
                    r.memory_peak
                );
                say!("game VM: {} KiB at 10% of the run, {} KiB at the end", r.vm_early, r.vm_final);
                say!(
                    "history: at most {} KiB of its {} KiB cap; {} frames held at the end",
                    r.history_peak / 1024,
                    cap / 1024,
                    r.history_frames
                );
                if r.errors == 0 { ExitCode::SUCCESS } else { ExitCode::FAILURE }
            })
        }
        Command::Seek { game, replay, when } => crate::seek::run(&game, &replay, &when),
        Command::Bench { check, json, only } => {
            crate::bench::Report::run(only.as_deref()).map(|report| {
                if json {
                    say!("{}", report.json());
                } else {
                    report.print();
                }
                if check && !report.holds() {
                    ExitCode::FAILURE
                } else {
                    ExitCode::SUCCESS
                }
            })
        }
    };
    match outcome {
        Ok(code) => code,
        Err(err) => {
            tell!("moonloop: {}", crate::terminal::line(&err.chain()));
            ExitCode::from(2)
        }
    }
}

/// `moonloop synctest`: exit 1 when a frame came out differently or
/// failed, with the line that says where.
fn synctest(options: &crate::synctest::Options) -> Result<ExitCode> {
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

fn build(game: &Path, out: &Path, verbose: bool) -> Result<ExitCode> {
    // A game that does not load is not worth shipping: say so now.
    let loaded = LuaGame::load(game)?;
    let config = crate::Game::config(&loaded);
    let about = crate::package::About {
        title: config.title.clone(),
        version: config.version.clone(),
    };
    let (size, files) = crate::package::build(game, out, &about).map_err(Error::Usage)?;
    if verbose {
        for file in &files {
            say!("packed {}", file.display());
        }
    }
    tell!(
        "built {} ({}); `{} --help` shows the player its options",
        out.display(),
        crate::assets::bytes(size),
        out.display()
    );
    Ok(ExitCode::SUCCESS)
}

fn run(mut args: RunArgs) -> Result<ExitCode> {
    if !args.headless {
        window::check_display()?;
    }
    // A zipped game runs from a private copy, behind the same walls.
    let _unpacked = if args.game.is_file()
        && args
            .game
            .extension()
            .is_some_and(|x| x.eq_ignore_ascii_case("zip"))
    {
        if args.watch {
            return Err(Error::Usage(
                "a zipped game does not reload; --watch is for game folders".into(),
            ));
        }
        crate::interrupt::install();
        let unpacked = crate::package::open_zip(&args.game).map_err(Error::Usage)?;
        args.shown_as = Some(args.game.to_string_lossy().into_owned());
        args.game = unpacked.game().to_path_buf();
        args.no_watch = true;
        Some(unpacked)
    } else {
        None
    };
    let mut limits = crate::lua::Limits::default();
    if let Some(secs) = args.budget {
        limits.budget = std::time::Duration::from_secs_f64(secs);
    }
    if let Some(mib) = args.memory {
        limits.memory = (mib as usize) << 20;
    }
    let shown = args.shown_as.clone().unwrap_or_else(|| {
        args.game
            .to_string_lossy()
            .trim_end_matches('/')
            .to_string()
    });
    let mut cut_short = false;
    let mut replay_frames = None;
    let mut check_properties = false;
    let (mut engine, frames) = match &args.replay {
        Some(path) => {
            let playback = crate::playback::open(&args.game, shown, path, limits)?;
            cut_short = playback.cut_short;
            limits.seed = playback.seed;
            if let Some(until) = args.until
                && until > playback.frames
            {
                return Err(Error::Usage(format!(
                    "--until {until}: {} holds {} frames",
                    path.display(),
                    playback.frames
                )));
            }
            let frames = args.until.or(args.frames).unwrap_or(playback.frames);
            replay_frames = Some(playback.frames);
            check_properties = playback.properties;
            (playback.engine, Some(frames))
        }
        None => {
            limits.seed = args.seed.unwrap_or(crate::lua::DEFAULT_SEED);
            let saves = match &args.save_dir {
                Some(dir) => Saves::disk(dir.clone()),
                None if args.headless => Saves::memory(None),
                None => match Saves::user_root() {
                    Some(root) => Saves::disk(root),
                    None => {
                        tell!(
                            "moonloop: neither XDG_DATA_HOME nor HOME is set; saves last until \
                             the game closes (--save-dir DIR keeps them)"
                        );
                        Saves::memory(None)
                    }
                },
            };
            let mut game = LuaGame::load_shown(&args.game, shown, limits, saves)?;
            if let Some(notice) = game.take_save_notice() {
                tell!("moonloop: {}", crate::terminal::line(&notice));
            }
            let spec = args.clock.clone().unwrap_or(ClockSpec::Wall {
                max_secs: crate::clock::DEFAULT_WALL_MAX_SECS,
            });
            let actions = &crate::Game::config(&game).actions;
            let script = args
                .input
                .as_deref()
                .map(|path| Script::load(path, actions))
                .transpose()?;
            let mut engine = Engine::new(game, spec.build());
            if let Some(script) = script {
                engine.set_script(script);
            }
            (engine, args.frames)
        }
    };
    if let Some(path) = &args.record_input {
        let saved = engine.game().loaded_save();
        let name = crate::replay::game_name(engine.config());
        engine.set_replay_writer(ReplayWriter::create(path, limits.seed, Some(name), saved)?);
    }
    // Windows watch the folder unless told not to; headless runs only when asked.
    let watch = if args.headless {
        args.watch
    } else {
        !args.no_watch
    };
    let watcher = if watch {
        Some(Watcher::new(&args.game)?)
    } else {
        None
    };
    if watcher.is_some() {
        tell!("watching {} for changes", args.game.display());
    }
    crate::interrupt::install();
    engine.set_scaling(args.scaling.as_deref().and_then(Scaling::parse));
    let (mut engine, tally) = if args.headless {
        let capture = args
            .record
            .as_deref()
            .map(|path| Capture::start(path, true))
            .transpose()?;
        let sound = audio_file(&args.audio)
            .map(|path| {
                let bank = crate::sound::Bank::new(engine.config().sounds.clone());
                crate::sound::Player::to_file(path, bank).map_err(crate::Error::Usage)
            })
            .transpose()?;
        // A replay `moonloop explore` wrote breaks a property: playing it
        // checks them, and the frame that breaks one fails (X1).
        let check = if check_properties {
            Some(property_check(&args.game)?)
        } else {
            None
        };
        let mut session = Session::new(engine)
            .watch(watcher)
            .sound(sound)
            .capture(capture)
            .check(check);
        headless::run(&mut session, frames);
        session.finish()?
    } else {
        // A window keeps history, to rewind and to run again (R1-R3); a
        // run writing --record-input does not, its log only goes forward.
        if args.record_input.is_none() {
            engine.keep_history(crate::history::DEFAULT_CAP)?;
        }
        let mut frames = frames;
        if let Some(until) = args.until {
            // Opened at a frame of a replay: the whole replay is played
            // unseen into history, so scrubbing and F12 reach every frame
            // it holds, and the window opens paused on frame `until`, with
            // live input and a wall clock from there on. Playing on forks;
            // its frames are not the replay's, so they are not checked
            // against its hashes.
            let whole = if engine.history().is_some() {
                replay_frames.unwrap_or(until)
            } else {
                until
            };
            if let Err(err) = engine.advance(whole) {
                tell!("moonloop: {}", crate::terminal::line(&err.to_string()));
            }
            if engine.frame() != until {
                match engine.show(until) {
                    Ok(()) => engine.render_again(),
                    Err(err) => tell!("moonloop: {}", crate::terminal::line(&err.to_string())),
                }
            }
            engine.forget_expected_hashes();
            engine.set_clock(
                ClockSpec::Wall {
                    max_secs: crate::clock::DEFAULT_WALL_MAX_SECS,
                }
                .build(),
            );
            frames = None;
        }
        let options = window::Options {
            record: args.record.clone(),
            watcher,
            frames,
            audio: args.audio.clone(),
            paused: args.until.is_some(),
            origin: crate::report::Origin {
                seed: limits.seed,
                saved: engine.game().loaded_save().map(str::to_string),
            },
            look: window::Choice {
                fullscreen: args.fullscreen,
                scale: args.scale,
            },
            seek: args
                .when
                .as_deref()
                .map(|when| window_seek(&engine, when))
                .transpose()?,
        };
        window::run(engine, options)?
    };
    engine.flush()?;
    tally.summarize();
    if args.print_state {
        say!("{}", engine.game().state_json()?);
    }
    if args.state_hash {
        say!("{}", engine.game().state_hash()?);
    }
    Ok(if crate::interrupt::requested() {
        tell!("moonloop: interrupted after frame {}", engine.frame());
        ExitCode::from(crate::interrupt::EXIT_CODE)
    } else if tally.is_empty() && !cut_short {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// Shift+F9's predicate in a window: `when` compiled in the game's VM,
/// with the pure libraries only, as `moonloop seek` asks it (R4).
///
/// # Errors
/// The expression does not compile.
fn window_seek(
    engine: &Engine<LuaGame>,
    when: &str,
) -> Result<(crate::live::Seek<LuaGame>, String)> {
    let predicate = engine.game().predicate(when)?;
    let holds = move |game: &LuaGame, frame: u64| game.holds(&predicate, frame);
    Ok((Box::new(holds), when.to_string()))
}

/// `moonloop explore`'s arguments.
struct ExploreArgs {
    game: PathBuf,
    seed: u64,
    runs: u64,
    frames: u64,
    time: f64,
    jobs: Option<u64>,
    shard: Option<String>,
    unguided: bool,
    out: PathBuf,
    report: Option<PathBuf>,
}

/// Runs a search; exit 1 when a run broke something, 0 when none did.
fn explore(args: ExploreArgs) -> Result<ExitCode> {
    let shard = match &args.shard {
        None => (0, 1),
        Some(text) => crate::explore::report::parse_shard(text)
            .map_err(|why| Error::Usage(format!("--shard {why}")))?,
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
    };
    if let Ok(real) = args.out.canonicalize().or_else(|_| {
        args.out
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .map_or(std::env::current_dir(), |p| p.canonicalize())
    }) && let Ok(game) = args.game.canonicalize()
        && real.starts_with(&game)
    {
        return Err(Error::Usage(format!(
            "--out {}: inside the game folder it would be shipped with the game; write it elsewhere",
            args.out.display()
        )));
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
            Ok(path) => say!("the last seconds: {}", path.display()),
            Err(why) => say!("no GIF of the last seconds: {}", crate::terminal::line(why)),
        }
        say!(
            "wrote {0}/replay.txt, {0}/state.json and {0}/changes.txt: `moonloop run {1} --headless --replay {0}/replay.txt` breaks at frame {2}; `--replay ... --until {2}` opens it in a window",
            args.out.display(),
            args.game.display(),
            failure.failure.frame
        );
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

/// The check a replay of a broken property runs after every frame.
fn property_check(game: &Path) -> Result<crate::session::Check<LuaGame>> {
    let properties = crate::lua::properties::Properties::load(game)?;
    Ok(Box::new(move |engine: &Engine<LuaGame>| {
        match properties.broken(engine.game().state(), engine.frame()) {
            Ok(None) => None,
            Ok(Some((name, why))) => Some(Error::Script(format!(
                "X1: {}",
                crate::explore::Broke::Property(name, why).describe()
            ))),
            Err(err) => Some(err),
        }
    }))
}

/// Runs a scenario under each clock and prints a table; exit 1 when any
/// outcome differs from the first clock's.
fn check_dt(game: &Path, scenario: &Path, clocks: Option<&str>) -> Result<ExitCode> {
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
        .collect::<Result<Vec<_>>>()?;
    // The scenario is named relative to the game folder, or as a path.
    let file = if scenario.is_relative() && game.join(scenario).is_file() {
        game.join(scenario)
    } else {
        scenario.to_path_buf()
    };
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
    let reference = runs.first().and_then(|r| r.outcome.clone().ok());
    let mut mismatches = Vec::new();
    for (i, run) in runs.iter().enumerate() {
        let verdict = match (&run.outcome, &reference) {
            (Err(why), _) => {
                mismatches.push(format!("under {} the run failed: {why}", shown[i]));
                format!("FAILED: {}", crate::terminal::line(why))
            }
            (Ok(json), _) if i == 0 => format!("{} (reference)", crate::lua::compact(json)),
            (Ok(json), Some(reference)) if json == reference => "same".to_string(),
            (Ok(json), _) => {
                mismatches.push(format!(
                    "under {} the outcome was {}, not {}",
                    shown[i],
                    crate::lua::compact(json),
                    reference
                        .as_deref()
                        .map(crate::lua::compact)
                        .unwrap_or_default()
                ));
                format!("DIFFERENT: {}", crate::lua::compact(json))
            }
        };
        say!(
            "{:<40} {:>7} {:>9.3} s  {verdict}",
            shown[i],
            run.frames,
            run.elapsed
        );
    }
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

/// Finds the test files of each game, runs them in parallel on the
/// available cores, and prints the results in file order.
fn test(
    games: Vec<PathBuf>,
    budget: Option<f64>,
    shard: Option<&str>,
    report: Option<&Path>,
) -> Result<ExitCode> {
    let (shard, shards) = match shard {
        None => (0, 1),
        Some(text) => crate::explore::report::parse_shard(text)
            .map_err(|why| Error::Usage(format!("--shard {why}")))?,
    };
    let games = if games.is_empty() {
        default_games()?
    } else {
        games
    };
    let mut files = Vec::new();
    for game in &games {
        if !game.is_dir() {
            return Err(Error::Game {
                path: game.clone(),
                reason: "no such game folder".into(),
            });
        }
        let dir = game.join("tests");
        let entries = std::fs::read_dir(&dir).map_err(|e| Error::io(&dir, e))?;
        let mut found: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "luau" || x == "lua"))
            .collect();
        found.sort();
        files.extend(found.into_iter().map(|f| (game.clone(), f)));
    }
    // Every shard lists the files alike (sorted) and takes its share.
    let files: Vec<_> = files
        .into_iter()
        .enumerate()
        .filter(|(k, _)| *k as u64 % shards == shard)
        .map(|(_, f)| f)
        .collect();
    let budget = budget.map_or(crate::lua::TEST_BUDGET, std::time::Duration::from_secs_f64);
    let reports = run_parallel(&files, budget);
    if let Some(path) = report {
        let cases: Vec<crate::explore::report::Case> = reports
            .iter()
            .flat_map(|r| {
                r.results
                    .iter()
                    .map(|(name, outcome)| crate::explore::report::Case {
                        suite: r.file.clone(),
                        name: name.clone(),
                        seconds: 0.0,
                        failure: outcome.as_ref().err().cloned(),
                    })
            })
            .collect();
        crate::explore::report::write(path, &cases)?;
    }
    let (mut passed, mut failed) = (0, 0);
    for report in &reports {
        for (name, outcome) in &report.results {
            match outcome {
                Ok(()) => {
                    passed += 1;
                    say!(
                        "ok    {}: {}",
                        crate::terminal::line(&report.file),
                        crate::terminal::line(name)
                    );
                }
                Err(why) => {
                    failed += 1;
                    say!(
                        "FAIL  {}: {}\n      {}",
                        crate::terminal::line(&report.file),
                        crate::terminal::line(name),
                        crate::terminal::line(why)
                    );
                }
            }
        }
    }
    say!("{passed} passed, {failed} failed");
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

fn run_parallel(files: &[(PathBuf, PathBuf)], budget: std::time::Duration) -> Vec<TestReport> {
    let next = Mutex::new(0usize);
    let results: Mutex<Vec<(usize, TestReport)>> = Mutex::new(Vec::new());
    let workers = std::thread::available_parallelism()
        .map_or(2, |n| n.get())
        .min(files.len().max(1));
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                loop {
                    let i = {
                        let mut next = next.lock().unwrap();
                        let i = *next;
                        *next += 1;
                        i
                    };
                    let Some((game, file)) = files.get(i) else {
                        break;
                    };
                    // One file that trips the host must not lose the
                    // others' results: it fails alone (the panic hook has
                    // printed what happened).
                    let report = std::panic::catch_unwind(|| run_test_file_with(game, file, budget))
                        .unwrap_or_else(|_| TestReport {
                            file: file.display().to_string(),
                            results: vec![(
                                "(the file)".into(),
                                Err("the host failed while running this file; see the internal error above".into()),
                            )],
                        });
                    results.lock().unwrap().push((i, report));
                }
            });
        }
    });
    let mut results = results.into_inner().unwrap();
    results.sort_by_key(|(i, _)| *i);
    results.into_iter().map(|(_, r)| r).collect()
}

fn parse_budget(text: &str) -> std::result::Result<f64, String> {
    match crate::clock::parse_number(text)? {
        secs if secs > 0.0 && secs <= 3600.0 => Ok(secs),
        _ => Err(format!(
            "`{text}` s is not a time budget from above 0 to 3600 s"
        )),
    }
}

fn default_games() -> Result<Vec<PathBuf>> {
    let here = Path::new(".");
    if here.join("tests").is_dir()
        && (here.join("main.luau").is_file() || here.join("main.lua").is_file())
    {
        return Ok(vec![PathBuf::from(".")]);
    }
    let dir = Path::new("games");
    let entries = std::fs::read_dir(dir).map_err(|e| Error::Game {
        path: dir.to_path_buf(),
        reason: format!("{e}; name the games to test, as in `moonloop test games/spinner`"),
    })?;
    let mut games: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("tests").is_dir())
        .collect();
    games.sort();
    Ok(games)
}

/// The WAV file `--audio` names, if it names one rather than a device.
pub fn audio_file(audio: &str) -> Option<&std::path::Path> {
    audio
        .to_ascii_lowercase()
        .ends_with(".wav")
        .then(|| std::path::Path::new(audio))
}
