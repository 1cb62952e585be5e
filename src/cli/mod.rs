//! The command line: `moonloop run`, `moonloop test`.
//!
//! Every failure a user can cause here ends as one line on stderr and an
//! exit code: 2 for a bad argument, a missing game or a game that does not
//! load; 1 for frames or tests that failed.

use crate::Refusal;
use crate::terminal::{say, tell};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod carried;
mod online;
mod run;
mod test;
mod tools;

use carried::{CARRIED, carried_command};
use run::{RunArgs, run};
use test::test;
use tools::{ExploreArgs, build, check, check_dt, explore, synctest};

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
        /// The platform the game runs on: this one, windows (on the
        /// runtime `tools/cross.sh windows` builds), or web (a page folder,
        /// on the runtime `tools/cross.sh web` builds; a game that poses a
        /// 3D scene is refused).
        #[arg(long, value_enum, default_value = "here")]
        target: crate::package::Target,
        /// The moonloop runtime to build on (default: this executable, or
        /// the one tools/cross.sh built for --target).
        #[arg(long, value_name = "FILE")]
        runtime: Option<PathBuf>,
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
        /// Also plays every run's input under several clocks through this
        /// check-dt scenario's outcome, which must agree (K4).
        #[arg(long, value_name = "SCENARIO")]
        check_dt: Option<PathBuf>,
        /// The clocks for --check-dt (as check-dt's --clocks).
        #[arg(long, value_name = "LIST", requires = "check_dt")]
        clocks: Option<String>,
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
        /// Plays this input file instead of generated input (a path as
        /// for `run --input`).
        #[arg(long, value_name = "FILE")]
        input: Option<PathBuf>,
    },
    /// Hosts a game for two over the network: waits for a player to
    /// join with the same game, then plays as player 1 (N3).
    Host {
        /// The game folder.
        game: PathBuf,
        /// Where to wait for the other player, HOST:PORT.
        #[arg(long, value_name = "HOST:PORT", default_value = "0.0.0.0:7700")]
        address: String,
        /// The seed both games' `math.random` start from.
        #[arg(long, default_value_t = crate::lua::DEFAULT_SEED)]
        seed: u64,
        /// Waits for N spectators too (`moonloop spectate`), 0 to 8,
        /// before the game starts; each is sent every confirmed input.
        #[arg(long, value_name = "N", default_value_t = 0, value_parser = clap::value_parser!(u64).range(0..=8))]
        spectators: u64,
        #[command(flatten)]
        peer: online::PeerArgs,
    },
    /// Joins a hosted game: checks both hold the same game, then plays as
    /// player 2 (N3).
    Join {
        /// The host, HOST:PORT.
        address: String,
        /// The game folder (the same files as the host's).
        game: PathBuf,
        #[command(flatten)]
        peer: online::PeerArgs,
    },
    /// Watches a hosted game (the host waits for spectators with
    /// --spectators): plays it on the inputs the host confirms (N3).
    Spectate {
        /// The host, HOST:PORT.
        address: String,
        /// The game folder (the same files as the host's).
        game: PathBuf,
        #[command(flatten)]
        watch: online::WatchArgs,
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
        /// What to start from: blank (a square to move, one test), 2d (a
        /// sprite sheet, a sound, a pixel font, a save, a scenario and
        /// tests, each used once) or 3d (a scene with a camera, a sky, a
        /// sun casting shadows, a glTF model, picking and tests).
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
    /// Says where the benchmarks are: a development tool apart from the
    /// host (`cargo run --release -p moonloop-bench` in the repository).
    #[command(hide = true, disable_help_flag = true)]
    Bench {
        /// Whatever was given after it.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true, hide = true)]
        rest: Vec<String>,
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
            // clap's first line names the problem; its usage block is noise
            // here. What it names on later lines (the required arguments
            // missing, an option's values) comes from the error's context.
            use clap::error::{ContextKind, ContextValue};
            let strings = |kind| match err.get(kind) {
                Some(ContextValue::Strings(list)) if !list.is_empty() => Some(list.join(", ")),
                Some(ContextValue::String(one)) => Some(one.clone()),
                _ => None,
            };
            let text = err.to_string();
            let mut first = text.lines().next().unwrap_or("bad arguments").to_string();
            if err.kind() == ErrorKind::MissingRequiredArgument
                && let Some(named) = strings(ContextKind::InvalidArg)
            {
                first = format!("{first} {named}");
            }
            let mut values = strings(ContextKind::ValidValue)
                .map_or(String::new(), |v| format!(" [possible values: {v}]"));
            if let Some(near) = strings(ContextKind::SuggestedSubcommand)
                .or_else(|| strings(ContextKind::SuggestedArg))
            {
                values = format!("{values}; did you mean {near}?");
            }
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
    if matches!(
        cli.command,
        Command::Run(_) | Command::Host { .. } | Command::Join { .. } | Command::Spectate { .. }
    ) {
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
                Err(refused) => Err(refused.into()),
            }
        }
        Command::Run(args) => run(args),
        Command::Build {
            game,
            out,
            verbose,
            target,
            runtime,
        } => build(&game, &out, (target, runtime.as_deref()), verbose),
        Command::Test {
            games,
            budget,
            bless,
            shard,
            report,
        } => test(games, budget, bless, shard.as_deref(), report.as_deref()),
        Command::Check { games } => Ok(check(&games)),
        Command::Host {
            game,
            address,
            seed,
            spectators,
            peer,
        } => online::host(game, &address, seed, spectators as usize, peer),
        Command::Spectate {
            address,
            game,
            watch,
        } => online::spectate(&address, game, watch),
        Command::Join {
            address,
            game,
            peer,
        } => online::join(&address, game, peer),
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
            check_dt,
            clocks,
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
            check_dt,
            clocks,
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
                crate::scaffold::shell_word(&name.display().to_string())
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
        Command::Bench { rest } => Err(crate::Error::usage_of(
            "bench",
            format!(
                "the benchmarks are a development tool, not part of this program: in \
                 moonloop's repository run `cargo run --release -p moonloop-bench --{}`",
                rest.iter().map(|a| format!(" {a}")).collect::<String>()
            ),
        )),
    };
    match outcome {
        Ok(code) => code,
        Err(err) => {
            tell!("moonloop: {}", crate::terminal::line(&err.chain()));
            ExitCode::from(err.exit_code())
        }
    }
}

pub(super) fn parse_budget(text: &str) -> Result<f64, Refusal> {
    match crate::clock::parse_number(text)? {
        secs if secs > 0.0 && secs <= 3600.0 => Ok(secs),
        _ => Err(refuse!(
            "`{text}` s is not a time budget from above 0 to 3600 s"
        )),
    }
}

/// Says whether a window can open here: a build with one, and a display.
///
/// # Errors
/// Neither, in one line that says to add `--headless`.
pub(super) fn check_display() -> crate::Result<()> {
    #[cfg(feature = "window")]
    return crate::window::check_display();
    #[cfg(not(feature = "window"))]
    Err(windowless())
}

/// What a build without the `window` feature says when asked for one.
#[cfg_attr(feature = "window", allow(dead_code))]
pub(super) fn windowless() -> crate::Error {
    crate::Error::Unbuilt {
        what: "window",
        feature: "window",
        advice: "; add --headless",
    }
}
