//! Sound: the cues `update` plays, heard through the audio device when
//! there is one (rule H7).
//!
//! A cue's name finds its sound in this order: the game's `config.sounds`
//! (a name mapped to a file or a built-in), `sounds/NAME.wav` or
//! `sounds/NAME.ogg` in the game folder, then a built-in sound of that name.
//! Only a window plays sound; headless runs and tests read the cue log. No
//! device is not an error: the cues are still logged.
//!
//! The layer holds the mixer, the player that turns a frame's cues into
//! its commands, the WAV a run renders its mix into, and the doors to
//! the machine's sound: ALSA (loaded at run time) on Linux, WASAPI on
//! Windows, behind [`device::Device`] (the web page's door implements it
//! too). It stands on core and assets (ARCHITECTURE.md).

use moonloop_core::refuse;

#[cfg(all(feature = "audio", target_os = "linux"))]
mod alsa;
pub mod device;
// The mixer a pulling device fills its buffers from (Windows'); tested
// on every machine.
#[cfg(any(test, all(feature = "audio", windows)))]
mod feed;
mod mixer;
mod output;
mod player;
mod render;
pub mod stream;
mod synth;
#[cfg(all(feature = "audio", windows))]
mod wasapi;

pub use player::Player;
pub use render::WavOut;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use moonloop_core::Refusal;

pub use mixer::{Bus, Command, MAX_VOICES, Mixer, Params, RATE, Source, Start};
pub use moonloop_assets::sound::{Clip, MAX_FILE, decode, wav};
pub use synth::{BUILT_IN, built_in};

use moonloop_assets::Store;

/// Where each cue name's sound comes from, found on first play: files
/// come from the game's asset store, which decodes each once and bounds
/// what all of them hold.
pub struct Bank {
    aliases: Vec<(String, String)>,
    clips: HashMap<String, Result<Arc<Clip>, Refusal>>,
}

impl Bank {
    /// A bank for a game with `config.sounds` `aliases`.
    pub fn new(aliases: Vec<(String, String)>) -> Bank {
        Bank {
            aliases,
            clips: HashMap::new(),
        }
    }

    /// Returns the sound for cue `name`, finding it the first time (files
    /// through `assets`).
    ///
    /// # Errors
    /// No sound has that name, or its file is missing or broken; the same
    /// error comes back each time until [`Bank::forget`]. (A cue name is
    /// one of at most [`moonloop_core::cues::MAX_NAMES`], so the bank is bounded.)
    pub fn get(&mut self, name: &str, assets: &mut Store) -> Result<&Arc<Clip>, &str> {
        if !self.clips.contains_key(name) {
            let found = self.find(name, assets);
            self.clips.insert(name.to_string(), found);
        }
        self.clips[name].as_ref().map_err(Refusal::line)
    }

    /// Says whether cue `name`'s sound is loaded (or refused) already.
    pub fn has(&self, name: &str) -> bool {
        self.clips.contains_key(name)
    }

    /// Returns the game file cue `name`'s sound is in, if it is in one
    /// (not a built-in), found as [`Bank::get`] finds it, without loading.
    pub fn file_of(&self, name: &str, assets: &Store) -> Option<String> {
        if let Some((_, to)) = self.aliases.iter().find(|(from, _)| from == name) {
            return is_sound_file(to).then(|| to.clone());
        }
        if is_sound_file(name) {
            return Some(name.to_string());
        }
        decode::EXTENSIONS
            .iter()
            .map(|ext| format!("sounds/{name}.{ext}"))
            .find(|file| assets.has_file(file))
    }

    /// Forgets what each name found, so files changed on disk are found
    /// again, and takes the game's `config.sounds` anew.
    pub fn forget(&mut self, aliases: Vec<(String, String)>) {
        self.clips.clear();
        self.aliases = aliases;
    }

    fn find(&self, name: &str, assets: &mut Store) -> Result<Arc<Clip>, Refusal> {
        if let Some((_, to)) = self.aliases.iter().find(|(from, _)| from == name) {
            return if is_sound_file(to) {
                assets.sound(to)
            } else {
                built_in(to)
                    .map(Arc::new)
                    .ok_or_else(|| refuse!("config.sounds.{name}: {}", not_built_in(to)))
            };
        }
        if is_sound_file(name) {
            return assets.sound(name);
        }
        for ext in decode::EXTENSIONS {
            let file = format!("sounds/{name}.{ext}");
            if assets.has_file(&file) {
                return assets.sound(&file);
            }
        }
        built_in(name).map(Arc::new).ok_or_else(|| {
            refuse!(
                "no sounds/{name}.wav or sounds/{name}.ogg in the game folder, and {}",
                not_built_in(name)
            )
        })
    }
}

/// A sound file a run renders its mix into could not be written; what
/// reached it is a valid WAV.
#[derive(Debug, thiserror::Error)]
#[error("cannot write {path}")]
pub struct WriteError {
    /// The file.
    pub path: PathBuf,
    /// The cause.
    pub source: std::io::Error,
}

/// The WAV file `--audio` names, if it names one rather than a device.
pub fn audio_file(audio: &str) -> Option<&Path> {
    audio
        .to_ascii_lowercase()
        .ends_with(".wav")
        .then(|| Path::new(audio))
}

/// Whether a `config.sounds` entry names a file rather than a built-in.
pub fn is_sound_file(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    decode::EXTENSIONS
        .iter()
        .any(|ext| lower.ends_with(&format!(".{ext}")))
}

fn not_built_in(name: &str) -> String {
    format!(
        "`{name}` is not a built-in sound (they are {})",
        BUILT_IN.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use moonloop_core::cues::Cue;

    fn cue(name: &str) -> Cue {
        Cue {
            frame: 1,
            action: moonloop_core::cues::Action::Cue,
            name: name.into(),
            sound: None,
            looped: false,
            bus: Bus::Effects,
            fade: 0.0,
            volume: 1.0,
            pitch: 1.0,
            pan: 0.0,
        }
    }

    fn wav(path: &std::path::Path, value: i32) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, wav::encode(1, 8000, 16, &[value])).unwrap();
    }

    // rule: H7
    #[test]
    fn a_cue_finds_its_sound_by_config_then_file_then_built_in() {
        let dir = tempfile::tempdir().unwrap();
        wav(&dir.path().join("sounds/hit.wav"), 16384);
        wav(&dir.path().join("audio/boom.wav"), -16384);
        let aliases = vec![
            ("bang".to_string(), "audio/boom.wav".to_string()),
            ("wall".to_string(), "blip".to_string()),
        ];
        let mut store = Store::new(Some(dir.path().to_path_buf()));
        let mut bank = Bank::new(aliases);
        assert_eq!(
            bank.get("hit", &mut store).unwrap().samples,
            [0.5],
            "the folder's hit"
        );
        assert_eq!(bank.get("bang", &mut store).unwrap().samples, [-0.5]);
        assert_eq!(
            **bank.get("wall", &mut store).unwrap(),
            built_in("blip").unwrap()
        );
        assert_eq!(
            **bank.get("coin", &mut store).unwrap(),
            built_in("coin").unwrap()
        );
        assert_eq!(
            bank.get("boing", &mut store).unwrap_err(),
            "no sounds/boing.wav or sounds/boing.ogg in the game folder, and `boing` is not \
             a built-in sound (they are blip, coin, hit, jump, explosion, powerup)"
        );
    }

    #[test]
    fn sounds_load_again_after_forget() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sounds/hit.wav");
        wav(&path, 16384);
        let mut store = Store::new(Some(dir.path().to_path_buf()));
        let mut bank = Bank::new(Vec::new());
        assert_eq!(bank.get("hit", &mut store).unwrap().samples, [0.5]);
        wav(&path, -16384);
        assert_eq!(
            bank.get("hit", &mut store).unwrap().samples,
            [0.5],
            "kept until forgotten"
        );
        store.refresh(&[std::path::PathBuf::from("sounds/hit.wav")]);
        bank.forget(Vec::new());
        assert_eq!(bank.get("hit", &mut store).unwrap().samples, [-0.5]);
    }

    #[test]
    fn bad_aliases_and_files_are_named() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("sounds")).unwrap();
        std::fs::write(dir.path().join("sounds/hit.wav"), "junk").unwrap();
        let aliases = vec![
            ("a".to_string(), "missing.ogg".to_string()),
            ("b".to_string(), "bleep".to_string()),
            ("c".to_string(), "../outside.wav".to_string()),
        ];
        let mut store = Store::new(Some(dir.path().to_path_buf()));
        let mut bank = Bank::new(aliases);
        assert_eq!(
            bank.get("a", &mut store).unwrap_err(),
            "no sound `missing.ogg` in the game folder"
        );
        assert!(
            bank.get("b", &mut store)
                .unwrap_err()
                .starts_with("config.sounds.b: `bleep` is not a built-in sound")
        );
        assert!(
            bank.get("c", &mut store)
                .unwrap_err()
                .contains("is not a path inside")
        );
        assert!(
            bank.get("hit", &mut store)
                .unwrap_err()
                .starts_with("`sounds/hit.wav`: not a WAV file")
        );
    }

    #[test]
    fn a_player_without_a_device_reports_each_missing_sound_once() {
        let mut player = Player::open("off", Bank::new(Vec::new()));
        let mut store = Store::new(None);
        assert_eq!(player.status(), "off");
        assert!(!player.is_playing());
        assert_eq!(player.play(&cue("blip"), &mut store), None);
        let first = player.play(&cue("boing"), &mut store).unwrap();
        assert!(
            first.starts_with("cue `boing`: no sounds/boing.wav"),
            "{first}"
        );
        assert_eq!(
            player.play(&cue("boing"), &mut store),
            None,
            "once per name"
        );
        player.forget(Vec::new());
        assert!(
            player.play(&cue("boing"), &mut store).is_some(),
            "again after a reload"
        );
    }
}
