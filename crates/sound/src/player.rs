//! The player: a frame's cues and sound actions, turned into the mixer's
//! commands and sent to the audio device or rendered into `--audio`'s
//! file (rules H7, H13).

use moonloop_core::refuse;
use moonloop_door::tell;

use std::hash::{Hash, Hasher};
use std::io::{Read, Seek};
use std::path::{Path, PathBuf};

use super::WriteError;
use super::device::Device;
use super::mixer::{Bus, Command, Params, Source, Start};
use super::{Bank, WavOut, decode, stream};
use moonloop_assets::Store;
use moonloop_core::cues::{Action, Cue};

/// How much of a streamed file's start its headers are checked in.
const HEADER_PREFIX: u64 = 4 << 20;

/// The most streamed sounds alive at once (each holds a file, a ring and,
/// under a window, a thread).
pub const MAX_STREAMS: usize = 8;

/// The most streams one frame may start (each reads its file's headers).
pub const MAX_STREAM_STARTS: u32 = 2;

/// The longest sound decoded whole into memory, in seconds: a longer one
/// streams, on any bus, so a long file never costs its whole decoding on
/// the frame it first plays, nor its whole length in memory.
pub const MAX_CLIP_SECONDS: f64 = 30.0;

/// The most seconds of sound one frame decodes whole (new sounds' first
/// plays): forty sounds first played on one frame are not decoded on it.
pub const MAX_FRAME_DECODE_SECONDS: f64 = 60.0;

enum Out {
    None,
    Device(Box<dyn Device>),
    File(Box<WavOut>),
}

/// Plays cues and sound actions through the audio device, when there is
/// one, or into a WAV file.
pub struct Player {
    bank: Bank,
    out: Out,
    /// "ALSA default", or why there is no sound.
    status: String,
    /// Sound names that could not be played, reported once each.
    reported: Vec<String>,
    /// The streams started, by sound name, while they live.
    streams: Vec<(String, stream::Watch)>,
    /// The frame streams were last started on, and how many.
    starts: (u64, u32),
    /// The frame sounds were last decoded whole on, and how many seconds.
    decoded: (u64, f64),
}

/// The mixer's name for the game's sound `name`: a hash, so the audio
/// thread handles no strings. (0 is the cues'.)
fn voice(name: &str) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    name.hash(&mut h);
    h.finish().max(1)
}

fn params(cue: &Cue) -> Params {
    Params {
        volume: cue.volume as f32,
        pitch: cue.pitch as f32,
        pan: cue.pan as f32,
    }
}

/// The most missing sounds named, one line each, until a reload.
const MAX_NAMED: usize = 16;

impl Player {
    /// Opens the sound device `device` ("default" is the system's choice; "off"
    /// opens none).
    pub fn open(device: &str, bank: Bank) -> Player {
        if device == "off" {
            return Player::with(Out::None, "off".to_string(), bank);
        }
        match super::output::open(device) {
            Ok(output) => Player::on(output, bank),
            Err(why) => Player::with(Out::None, format!("none ({why})"), bank),
        }
    }

    /// Plays through `device`, a door its caller opened (the web page's,
    /// whose mixer the page's audio callback pulls from).
    pub fn on(device: Box<dyn Device>, bank: Bank) -> Player {
        let name = device.name();
        Player::with(Out::Device(device), name, bank)
    }

    fn with(out: Out, status: String, bank: Bank) -> Player {
        Player {
            bank,
            out,
            status,
            reported: Vec::new(),
            streams: Vec::new(),
            starts: (0, 0),
            decoded: (0, 0.0),
        }
    }

    /// The player a window plays through: `--audio`'s `audio` ("" is
    /// the system's default device, "off" none, a `.wav` name renders
    /// into that file, anything else names a device: ALSA's on Linux, a
    /// WASAPI endpoint on Windows). A device that cannot
    /// open says so once on stderr, and the game runs on silently (the
    /// overlay says why too).
    ///
    /// # Errors
    /// The WAV file cannot be written.
    pub fn for_device(audio: &str, bank: Bank) -> Result<Player, WriteError> {
        let device = match audio {
            "" => "default",
            named => named,
        };
        if let Some(path) = crate::audio_file(device) {
            return Player::to_file(path, bank);
        }
        let player = Player::open(device, bank);
        if !player.is_playing() && device != "off" {
            // Said once, then the game runs on silently (F1 says it too).
            tell!(
                "moonloop: no sound: {}; the game runs on silently (--audio off says nothing)",
                player.status()
            );
        }
        Ok(player)
    }

    /// A player that renders into WAV file `path`.
    ///
    /// # Errors
    /// The file cannot be written.
    pub fn to_file(path: &Path, bank: Bank) -> Result<Player, WriteError> {
        Ok(Player {
            bank,
            out: Out::File(Box::new(WavOut::create(path)?)),
            status: format!("rendered into {}", path.display()),
            reported: Vec::new(),
            streams: Vec::new(),
            starts: (0, 0),
            decoded: (0, 0.0),
        })
    }

    /// Returns the output in use ("ALSA default"), or why there is none.
    pub fn status(&self) -> String {
        match &self.out {
            Out::Device(output) => match output.failure() {
                Some(why) => format!("none ({why})"),
                None => self.status.clone(),
            },
            _ => self.status.clone(),
        }
    }

    /// Whether sound reaches a device or a file.
    pub fn is_playing(&self) -> bool {
        !matches!(self.out, Out::None)
    }

    /// Returns the bank, to forget its sounds after a reload.
    pub fn bank_mut(&mut self) -> &mut Bank {
        &mut self.bank
    }

    /// Returns a line for each streamed sound whose file turned out
    /// broken as it played (cut short, damaged packets, unreadable), once
    /// each; a sound that plays silence never does so unsaid.
    pub fn faults(&mut self) -> Vec<String> {
        let mut lines = Vec::new();
        self.streams.retain(|(name, watch)| {
            if let Some(why) = watch.take_fault() {
                lines.push(format!("sound `{}`: {why}", moonloop_door::escape(name)));
            }
            watch.alive()
        });
        lines
    }

    /// Plays `cue`. Returns a line for the user the first time a sound
    /// name cannot be played; the action is logged all the same.
    pub fn play(&mut self, cue: &Cue, assets: &mut Store) -> Option<String> {
        let (command, feeder) = match self.command(cue, assets) {
            Ok(made) => made,
            Err((name, why)) => {
                if self.reported.contains(&name) || self.reported.len() > MAX_NAMED {
                    return None;
                }
                self.reported.push(name.clone());
                if self.reported.len() > MAX_NAMED {
                    // A game that cues hundreds of sounds it has not got
                    // would bury every other line (the tally prints a
                    // thousand different errors).
                    return Some(format!(
                        "more than {MAX_NAMED} sounds cued are not there; the rest are not named"
                    ));
                }
                let what = if cue.action == Action::Cue {
                    "cue"
                } else {
                    "sound"
                };
                return Some(format!("{what} `{name}`: {why}"));
            }
        };
        match &mut self.out {
            Out::None => {}
            Out::Device(output) => {
                if let Some(feeder) = feeder {
                    feeder.spawn();
                }
                output.send(command);
            }
            Out::File(file) => file.apply(command, feeder),
        }
        None
    }

    /// The mixer command for `cue`, with a stream's feeder; or the sound's
    /// name and why it cannot play.
    fn command(
        &mut self,
        cue: &Cue,
        assets: &mut Store,
    ) -> Result<(Command, Option<stream::Feeder>), (String, String)> {
        let id = voice(&cue.name);
        let command = match cue.action {
            Action::Cue => {
                let (source, feeder, _) =
                    self.source(&cue.name, false, false, cue.frame, assets)?;
                let command = Command::Start(Start {
                    voice: 0,
                    source,
                    params: params(cue),
                    looped: false,
                    bus: Bus::Effects,
                    fade: 0.0,
                });
                return Ok((command, feeder));
            }
            Action::Play => {
                let sound = cue.sound.as_deref().unwrap_or(&cue.name);
                let music = cue.bus == Bus::Music;
                let (source, feeder, streamed) =
                    self.source(sound, music, cue.looped, cue.frame, assets)?;
                let command = Command::Start(Start {
                    voice: id,
                    source,
                    params: params(cue),
                    looped: cue.looped && !streamed,
                    bus: cue.bus,
                    fade: cue.fade as f32,
                });
                return Ok((command, feeder));
            }
            Action::Stop => Command::Stop {
                voice: id,
                fade: cue.fade as f32,
            },
            Action::Pause => Command::Pause { voice: id },
            Action::Resume => Command::Resume { voice: id },
            Action::Set => Command::Set {
                voice: id,
                params: params(cue),
                fade: cue.fade as f32,
            },
            Action::Bus => Command::Bus {
                bus: cue.bus,
                volume: cue.volume as f32,
                fade: cue.fade as f32,
            },
        };
        Ok((command, None))
    }

    /// The mixer's source for sound `name` first played on `frame`: the
    /// clip decoded whole, or a stream of its file when `stream` asks
    /// (music) or the file is longer than [`MAX_CLIP_SECONDS`]. Says
    /// whether it streams.
    fn source(
        &mut self,
        name: &str,
        stream: bool,
        looped: bool,
        frame: u64,
        assets: &mut Store,
    ) -> Result<(Source, Option<stream::Feeder>, bool), (String, String)> {
        let failed = |why: String| (name.to_string(), why);
        let file = match self.bank.has(name) {
            true => None,
            false => self.bank.file_of(name, assets),
        };
        let Some(file) = file else {
            return Ok((Source::Clip(self.clip(name, assets)?), None, false));
        };
        // The file's header says how long it is before a sample is decoded.
        let decoder = open_decoder(assets.root(), &file).map_err(|r| failed(r.into()))?;
        let seconds = decoder
            .frames
            .map_or(f64::INFINITY, |f| f as f64 / f64::from(decoder.rate.max(1)));
        if stream || seconds > MAX_CLIP_SECONDS {
            self.may_stream(frame).map_err(failed)?;
            let (s, f) = stream::open(decoder, looped);
            self.streams.push((file, f.watch()));
            return Ok((Source::Stream(s), Some(f), true));
        }
        drop(decoder);
        if self.decoded.0 != frame {
            self.decoded = (frame, 0.0);
        }
        if self.decoded.1 + seconds > MAX_FRAME_DECODE_SECONDS {
            return Err(failed(format!(
                "a frame decodes at most {MAX_FRAME_DECODE_SECONDS} s of new sounds (H10); \
                 this one would pass it: play sounds first over several frames (at the \
                 start, say), or on the music bus, which streams"
            )));
        }
        self.decoded.1 += seconds;
        Ok((Source::Clip(self.clip(name, assets)?), None, false))
    }

    /// Checks that one more stream may start on `frame` (H10).
    fn may_stream(&mut self, frame: u64) -> Result<(), String> {
        // Those that ended are let go in `faults`, once what went wrong
        // with them is said.
        let alive = self.streams.iter().filter(|(_, w)| w.alive()).count();
        if alive >= MAX_STREAMS {
            return Err(format!(
                "at most {MAX_STREAMS} streamed sounds play at once (H10); stop one first"
            ));
        }
        if self.starts.0 != frame {
            self.starts = (frame, 0);
        }
        if self.starts.1 >= MAX_STREAM_STARTS {
            return Err(format!(
                "a frame starts at most {MAX_STREAM_STARTS} streamed sounds (H10)"
            ));
        }
        self.starts.1 += 1;
        Ok(())
    }

    fn clip(
        &mut self,
        name: &str,
        assets: &mut Store,
    ) -> Result<std::sync::Arc<super::Clip>, (String, String)> {
        self.bank
            .get(name, assets)
            .cloned()
            .map_err(|why| (name.to_string(), why.to_string()))
    }

    /// Renders the mix up to `seconds` of simulated time, when the player
    /// writes a file.
    ///
    /// # Errors
    /// The disk refused the file (once; the file stays valid).
    pub fn render_to(&mut self, seconds: f64) -> Result<(), WriteError> {
        match &mut self.out {
            Out::File(file) => file.render_to(seconds),
            _ => Ok(()),
        }
    }

    /// Finishes the file being rendered, if any: its path and length in
    /// seconds.
    ///
    /// # Errors
    /// The disk refused the file: it holds the sound up to where it did.
    pub fn finish(&mut self) -> Result<Option<(PathBuf, f64)>, WriteError> {
        match std::mem::replace(&mut self.out, Out::None) {
            Out::File(file) => file.finish().map(Some),
            _ => Ok(None),
        }
    }

    /// Forgets loaded sounds and reported names after a reload.
    pub fn forget(&mut self, aliases: Vec<(String, String)>) {
        self.bank.forget(aliases);
        self.reported.clear();
    }
}

/// Opens sound file `name` in the game folder `root` to decode packet by
/// packet, its headers checked first (H10).
fn open_decoder(
    root: Option<&Path>,
    name: &str,
) -> Result<decode::Decoder, moonloop_core::Refusal> {
    let path = moonloop_assets::find(root, name, "sound")?;
    let shown = moonloop_door::escape(name);
    let fail = |e: std::io::Error| refuse!("cannot read `{shown}` ({e})");
    let mut file =
        moonloop_door::open_regular(&path).map_err(|e| refuse!("cannot read `{shown}` ({e})"))?;
    let mut prefix = Vec::new();
    (&mut file)
        .take(HEADER_PREFIX)
        .read_to_end(&mut prefix)
        .map_err(fail)?;
    let ext = Path::new(name)
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .unwrap_or_default();
    let named = |why: moonloop_core::Refusal| refuse!("`{shown}`: {why}");
    let whole = (prefix.len() as u64) < HEADER_PREFIX;
    decode::check_headers(&prefix, &ext, whole).map_err(named)?;
    file.rewind().map_err(fail)?;
    decode::Decoder::open(Box::new(file), &ext).map_err(named)
}
