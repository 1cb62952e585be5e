//! Saves: a small per-game store of plain data (rule H12).
//!
//! A game saves from `update` (`input:save(value)`, an effect of the frame
//! like a cue) and reads what was saved when it starts (`init(saved)`).
//! The store is the host's, never a path the game names: on disk it is
//! `<root>/<config.id>/save.json`, where the root is the user's data
//! folder (`$XDG_DATA_HOME/moonloop`, else `~/.local/share/moonloop`) in a
//! window, or `--save-dir DIR`; headless runs and tests keep it in memory
//! unless given a folder, and a replay brings the save it started from.
//!
//! The file is the save's canonical JSON (S7), at most [`MAX_SAVE`]
//! bytes. It is written atomically: a temporary file beside it is
//! written, flushed to disk, and renamed over it, so a crash or a full
//! disk leaves the last good save. A file that cannot be read back is set
//! aside as `save.json.corrupt` with one line saying so, and the game
//! starts as if nothing had been saved.

use std::io::Write as _;
use std::path::{Path, PathBuf};

/// The largest save, in bytes of its JSON.
pub const MAX_SAVE: usize = 1 << 20;

/// Refuses a save whose canonical JSON is past [`MAX_SAVE`], naming both
/// sizes: `whose` names it ("the save's", "its").
///
/// # Errors
/// One line for the caller to place.
pub fn check_size(json: &str, whose: &str) -> Result<(), String> {
    if json.len() > MAX_SAVE {
        return Err(format!(
            "{whose} JSON is {}; a save is at most {} (H12)",
            crate::assets::bytes(json.len() as u64),
            crate::assets::bytes(MAX_SAVE as u64)
        ));
    }
    Ok(())
}

/// The longest game id (`config.id`), in bytes.
pub const MAX_ID: usize = 64;

/// The save's file name in the game's folder of the store.
const FILE: &str = "save.json";

/// Says whether `id` may name a game's save folder: 1 to [`MAX_ID`]
/// letters, digits, `-`, `_` and `.`, not starting with a dot.
///
/// # Errors
/// The reason, for the config's error line.
pub fn check_id(id: &str) -> Result<(), String> {
    if id.is_empty() || id.len() > MAX_ID {
        return Err(format!("is 1 to {MAX_ID} characters"));
    }
    if id.starts_with('.') {
        return Err("may not start with a dot".into());
    }
    if !id
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b))
    {
        return Err(
            "is made of ASCII letters, digits, -, _ and . (it names the save's folder)".into(),
        );
    }
    Ok(())
}

/// Where saves live.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Place {
    /// In memory only, gone when the run ends.
    Memory,
    /// In `<root>/<id>/save.json`.
    Disk(PathBuf),
}

/// A game's save store: what was saved, and where it goes.
#[derive(Debug, Clone)]
pub struct Saves {
    place: Place,
    /// The game's folder in a disk store, once opened with its id.
    folder: Option<PathBuf>,
    /// The JSON last loaded or written.
    current: Option<String>,
    /// A line about the save the author should read (one set aside).
    notice: Option<String>,
}

impl Saves {
    /// A store in memory, starting from `seed` (a save's JSON), for
    /// headless runs, tests and replays.
    pub fn memory(seed: Option<String>) -> Saves {
        Saves {
            place: Place::Memory,
            folder: None,
            current: seed,
            notice: None,
        }
    }

    /// A store on disk under `root`: each game's save is in
    /// `<root>/<config.id>/save.json`.
    pub fn disk(root: PathBuf) -> Saves {
        Saves {
            place: Place::Disk(root),
            folder: None,
            current: None,
            notice: None,
        }
    }

    /// The user's data folder for saves: `$XDG_DATA_HOME/moonloop`, else
    /// `$HOME/.local/share/moonloop`; none without either.
    pub fn user_root() -> Option<PathBuf> {
        let absolute = |v: std::ffi::OsString| Some(PathBuf::from(v)).filter(|p| p.is_absolute());
        std::env::var_os("XDG_DATA_HOME")
            .and_then(absolute)
            .or_else(|| {
                std::env::var_os("HOME")
                    .and_then(absolute)
                    .map(|h| h.join(".local/share"))
            })
            .map(|data| data.join("moonloop"))
    }

    /// Says whether the store keeps saves in memory only.
    pub fn is_memory(&self) -> bool {
        self.place == Place::Memory
    }

    /// Opens the store for the game `id` and returns the saved JSON, if
    /// any. A file that cannot be read is set aside (see
    /// [`Saves::set_aside`]) and reads as nothing.
    pub fn open(&mut self, id: &str) -> Option<String> {
        let Place::Disk(root) = &self.place else {
            return self.current.clone();
        };
        let folder = root.join(id);
        let file = folder.join(FILE);
        self.folder = Some(folder);
        let read = std::fs::File::open(&file).and_then(|f| {
            use std::io::Read as _;
            let mut bytes = Vec::new();
            f.take(MAX_SAVE as u64 + 1).read_to_end(&mut bytes)?;
            Ok(bytes)
        });
        match read {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => {
                self.notice = Some(format!(
                    "the save {} cannot be read ({e}); the game starts without it",
                    file.display()
                ));
                None
            }
            Ok(bytes) if bytes.len() > MAX_SAVE => {
                self.set_aside(&format!(
                    "it is larger than {}",
                    crate::assets::bytes(MAX_SAVE as u64)
                ));
                None
            }
            Ok(bytes) => match String::from_utf8(bytes) {
                Ok(mut text) => {
                    text.truncate(text.trim_end().len());
                    self.current = Some(text.clone());
                    Some(text)
                }
                Err(_) => {
                    self.set_aside("it is not text");
                    None
                }
            },
        }
    }

    /// Moves a save that cannot be read out of the way, to
    /// `save.json.corrupt` beside it, and keeps one line saying `why`.
    pub fn set_aside(&mut self, why: &str) {
        self.current = None;
        let Some(folder) = &self.folder else {
            self.notice = Some(format!("the save was set aside: {why}"));
            return;
        };
        let file = folder.join(FILE);
        let aside = folder.join(format!("{FILE}.corrupt"));
        self.notice = Some(match std::fs::rename(&file, &aside) {
            Ok(()) => format!(
                "the save {} could not be read ({why}); it was moved to {} and the game \
                 starts without a save",
                file.display(),
                aside.display()
            ),
            Err(e) => format!(
                "the save {} could not be read ({why}) nor moved aside ({e}); the game starts \
                 without a save",
                file.display()
            ),
        });
    }

    /// Takes the line about the save the author should read, if any.
    pub fn take_notice(&mut self) -> Option<String> {
        self.notice.take()
    }

    /// Returns the JSON last loaded or written.
    pub fn current(&self) -> Option<&str> {
        self.current.as_deref()
    }

    /// Stores `json` as the save. The same save as the last is not
    /// written again.
    ///
    /// # Errors
    /// The file cannot be written: the last good save stays as it was.
    pub fn write(&mut self, json: String) -> Result<(), String> {
        if self.current.as_deref() == Some(json.as_str()) {
            return Ok(());
        }
        if let Some(folder) = &self.folder {
            write_atomically(folder, &json).map_err(|e| {
                format!(
                    "the save could not be written to {} ({e}); the last save is kept",
                    folder.join(FILE).display()
                )
            })?;
        }
        self.current = Some(json);
        Ok(())
    }
}

/// Writes `json` as `folder/save.json`: a temporary file, flushed to
/// disk, then renamed over the old save.
fn write_atomically(folder: &Path, json: &str) -> std::io::Result<()> {
    std::fs::create_dir_all(folder)?;
    let temporary = folder.join(format!("{FILE}.{}.tmp", std::process::id()));
    let written = (|| {
        let mut file = std::fs::File::create(&temporary)?;
        file.write_all(json.as_bytes())?;
        file.write_all(b"\n")?;
        file.sync_all()
    })();
    if let Err(e) = written.and_then(|()| std::fs::rename(&temporary, folder.join(FILE))) {
        let _ = std::fs::remove_file(&temporary);
        return Err(e);
    }
    // The rename itself reaches the disk with the folder's entry.
    if let Ok(dir) = std::fs::File::open(folder) {
        let _ = dir.sync_all();
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    // rule: H12
    #[test]
    fn a_save_survives_a_restart_and_a_failed_write_keeps_the_last() {
        let root = tempfile::tempdir().unwrap();
        let mut saves = Saves::disk(root.path().to_path_buf());
        assert_eq!(saves.open("game"), None);
        saves.write("{\"best\": 1}".into()).unwrap();
        let mut again = Saves::disk(root.path().to_path_buf());
        assert_eq!(again.open("game").as_deref(), Some("{\"best\": 1}"));
        // A folder where the file should go makes the write fail, and no
        // temporary file is left beside it.
        let blocked = root.path().join("blocked");
        std::fs::create_dir_all(blocked.join(FILE)).unwrap();
        let mut saves = Saves::disk(root.path().to_path_buf());
        saves.open("blocked");
        assert!(
            saves
                .write("{\"best\": 2}".into())
                .unwrap_err()
                .contains("could not be written")
        );
        assert_eq!(std::fs::read_dir(&blocked).unwrap().count(), 1);
    }

    #[test]
    fn a_save_that_cannot_be_read_is_set_aside() {
        let root = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(root.path().join("g")).unwrap();
        std::fs::write(root.path().join("g").join(FILE), [0xff, 0xfe]).unwrap();
        let mut saves = Saves::disk(root.path().to_path_buf());
        assert_eq!(saves.open("g"), None);
        let notice = saves.take_notice().unwrap();
        assert!(
            notice.contains("it is not text") && notice.contains("save.json.corrupt"),
            "{notice}"
        );
        assert!(root.path().join("g/save.json.corrupt").is_file());
        assert!(!root.path().join("g").join(FILE).exists());
    }

    #[test]
    fn ids_name_a_folder_and_nothing_else() {
        for good in ["asteroids", "my-game_2", "com.example.game"] {
            assert_eq!(check_id(good), Ok(()), "{good}");
        }
        for bad in ["", ".", "..", "../x", "a/b", "a\\b", "é", &"x".repeat(65)] {
            assert!(check_id(bad).is_err(), "{bad}");
        }
    }
}
