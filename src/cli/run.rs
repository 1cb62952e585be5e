//! `moonloop run`: a game in a window or headless, from its folder, a
//! zip or a replay, with its clock, input, recording, sound and saves.

use crate::terminal::{say, tell};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;

use crate::capture::Capture;
use crate::clock::ClockSpec;
use crate::config::Scaling;
use crate::engine::Engine;
use crate::error::{Error, Result};
use crate::headless;
use crate::lua::LuaGame;
use crate::reload::Watcher;
use crate::replay::ReplayWriter;
use crate::save::Saves;
use crate::session::Session;

use super::parse_budget;
use crate::sound::audio_file;

#[derive(Debug, Args)]
pub(super) struct RunArgs {
    /// The game folder (holding main.luau), or a .zip of one.
    pub(super) game: PathBuf,
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
    /// The sound device a window plays through ("default": ALSA's on
    /// Linux, WASAPI's default endpoint on Windows; "off" for none), or a
    /// .wav file the mix is rendered into, in step with simulated time.
    #[arg(long, value_name = "DEVICE|FILE.wav", default_value = "default")]
    audio: String,
    /// When the window closes, writes where its frames spent their time
    /// to FILE: the way they were presented, the frames, and the
    /// nanoseconds spent running, drawing and presenting them, one
    /// `name value` a line (what moonloop-bench's window rows read).
    #[arg(long, value_name = "FILE", conflicts_with = "headless")]
    frame_times: Option<PathBuf>,
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
    /// default is the user's data folder, $XDG_DATA_HOME/moonloop or
    /// %APPDATA%\moonloop; a headless run's is memory, gone when it ends;
    /// a replay brings its own).
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

pub(super) fn run(mut args: RunArgs) -> Result<ExitCode> {
    if !args.headless {
        super::check_display()?;
    }
    // A zipped game runs from a private copy, behind the same walls.
    let _unpacked = if args.game.is_file()
        && args
            .game
            .extension()
            .is_some_and(|x| x.eq_ignore_ascii_case("zip"))
    {
        if args.watch {
            return Err(Error::usage(
                "a zipped game does not reload; --watch is for game folders",
            ));
        }
        crate::interrupt::install();
        let unpacked = crate::package::open_zip(&args.game)?;
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
                return Err(Error::usage_of(
                    format!("--until {until}"),
                    format!("{} holds {} frames", path.display(), playback.frames),
                ));
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
                            "moonloop: {} set (as an absolute path); saves last until the \
                             game closes (--save-dir DIR keeps them)",
                            crate::platform::folders::DATA_ROOT_FROM
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
                .map(|path| crate::input::load_script(path, actions))
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
        // With no file to render into, the cues are still looked up (a
        // player with no output), so a headless run names a sound that
        // is not there as the window does.
        let bank = crate::sound::Bank::new(engine.config().sounds.clone());
        let sound = Some(match audio_file(&args.audio) {
            Some(path) => crate::sound::Player::to_file(path, bank)?,
            None => crate::sound::Player::open("off", bank),
        });
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
        let seed = limits.seed;
        in_window(
            engine,
            &args,
            Windowed {
                watcher,
                frames,
                replay_frames,
                seed,
            },
        )?
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

/// What a windowed run takes besides its engine and arguments.
#[cfg_attr(not(feature = "window"), allow(dead_code))]
struct Windowed {
    watcher: Option<Watcher>,
    frames: Option<u64>,
    /// The frames of the replay played, when one is.
    replay_frames: Option<u64>,
    seed: u64,
}

/// Plays `engine` in a window until it closes (or `frames`), as `args`
/// ask: from a replay's frame `--until`, recording, rewinding.
#[cfg(feature = "window")]
fn in_window(
    mut engine: Engine<LuaGame>,
    args: &RunArgs,
    windowed: Windowed,
) -> Result<(Engine<LuaGame>, crate::tally::ErrorTally)> {
    let Windowed {
        watcher,
        frames,
        replay_frames,
        seed,
    } = windowed;
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
        // Played as every runner plays frames: the cues of frames
        // played unseen are let go, not heard and not kept.
        let mut played = Session::new(engine);
        if let Err(err) = played.advance(whole) {
            tell!("moonloop: {}", crate::terminal::line(&err.to_string()));
        }
        engine = played.finish()?.0;
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
    let options = crate::window::Options {
        record: args.record.clone(),
        watcher,
        frames,
        audio: args.audio.clone(),
        frame_times: args.frame_times.clone(),
        paused: args.until.is_some(),
        origin: crate::report::Origin {
            seed,
            saved: engine.game().loaded_save().map(str::to_string),
        },
        look: crate::window::Choice {
            fullscreen: args.fullscreen,
            scale: args.scale,
        },
        seek: args
            .when
            .as_deref()
            .map(|when| window_seek(&engine, when))
            .transpose()?,
        driver: None,
    };
    crate::window::run(engine, options)?.finish()
}

/// A build without the `window` feature plays headless only.
#[cfg(not(feature = "window"))]
fn in_window(
    _: Engine<LuaGame>,
    _: &RunArgs,
    _: Windowed,
) -> Result<(Engine<LuaGame>, crate::tally::ErrorTally)> {
    Err(super::windowless())
}

/// Shift+F9's predicate in a window: `when` compiled in the game's VM,
/// with the pure libraries only, as `moonloop seek` asks it (R4).
///
/// # Errors
/// The expression does not compile.
#[cfg(feature = "window")]
fn window_seek(
    engine: &Engine<LuaGame>,
    when: &str,
) -> Result<(crate::live::Seek<LuaGame>, String)> {
    let predicate = crate::lua::Predicate::compile(engine.game(), when)?;
    let holds = move |game: &LuaGame, frame: u64| predicate.holds(game, frame);
    Ok((Box::new(holds), when.to_string()))
}

/// The check a replay of a broken property runs after every frame.
fn property_check(game: &Path) -> Result<crate::session::Check<LuaGame>> {
    let properties = crate::lua::properties::Properties::load(game)?;
    Ok(Box::new(move |engine: &Engine<LuaGame>| {
        match properties.broken(engine.game(), engine.frame()) {
            Ok(None) => None,
            Ok(Some((name, why))) => Some(Error::rule(
                crate::Rule::X1,
                crate::explore::Broke::Property(name, why).describe(),
            )),
            Err(err) => Some(err),
        }
    }))
}
