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
//! disk leaves the last good save. The temporary file's name cannot be
//! guessed and it is made new, readable by the user only, so a link
//! planted beside the save leads nowhere. A file that cannot be read back
//! is set aside as `save.json.corrupt` (then `.corrupt.2`, ...: each is
//! kept) with one line saying so, and the game starts as if nothing had
//! been saved. A save that is a pipe, a device or a link is never opened.

use crate::Refusal;
use std::path::{Path, PathBuf};

/// The largest save, in bytes of its JSON.
pub const MAX_SAVE: usize = 1 << 20;

/// Refuses a save whose canonical JSON is past [`MAX_SAVE`], naming both
/// sizes: `whose` names it ("the save's", "its").
///
/// # Errors
/// One line for the caller to place.
pub fn check_size(json: &str, whose: &str) -> Result<(), Refusal> {
    if json.len() > MAX_SAVE {
        return Err(refuse!(
            "{whose} JSON is {}; a save is at most {} (H12)",
            moonloop_door::sizes(json.len() as u64, MAX_SAVE as u64).0,
            moonloop_door::sizes(json.len() as u64, MAX_SAVE as u64).1
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
pub fn check_id(id: &str) -> Result<(), Refusal> {
    if id.is_empty() || id.len() > MAX_ID {
        return Err(refuse!("is 1 to {MAX_ID} characters"));
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
    /// Whether writes are refused: the file on disk could not be read
    /// nor set aside, and a write would replace the only copy.
    read_only: bool,
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
            read_only: false,
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
            read_only: false,
        }
    }

    /// The user's data folder for saves: `$XDG_DATA_HOME/moonloop`, else
    /// `$HOME/.local/share/moonloop`; `%APPDATA%\moonloop` on Windows;
    /// none without them (platform/folders.rs).
    pub fn user_root() -> Option<PathBuf> {
        crate::platform::folders::data_root()
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
        // Through the door: a pipe, a device or a link planted as the
        // save is refused, never waited on or followed.
        match moonloop_door::read(&file, MAX_SAVE as u64) {
            Err(moonloop_door::Refusal::Missing) => None,
            Err(moonloop_door::Refusal::TooBig { .. }) => {
                self.set_aside(format!(
                    "it is larger than {}",
                    crate::assets::bytes(MAX_SAVE as u64)
                ));
                None
            }
            Err(e) => {
                self.notice = Some(format!(
                    "the save {} cannot be read ({e}); the game starts without it and does \
                     not save this run",
                    crate::terminal::escape(&file.to_string_lossy())
                ));
                self.read_only = true;
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
    /// `save.json.corrupt` beside it (`save.json.corrupt.2`, `.3`, ...
    /// when that is taken: each is kept), and keeps one line saying `why`.
    pub fn set_aside(&mut self, why: impl std::fmt::Display) {
        self.current = None;
        let Some(folder) = &self.folder else {
            self.notice = Some(format!("the save was set aside: {why}"));
            return;
        };
        let file = folder.join(FILE);
        let shown = |p: &Path| crate::terminal::escape(&p.to_string_lossy()).into_owned();
        self.notice = Some(match set_aside(folder) {
            Ok(aside) => format!(
                "the save {} could not be read ({why}); it was moved to {} and the game \
                 starts without a save",
                shown(&file),
                shown(&aside)
            ),
            Err(e) => {
                // Writing now would replace the only copy.
                self.read_only = true;
                format!(
                    "the save {} could not be read ({why}) nor moved aside ({e}); the game \
                     starts without a save and does not save this run",
                    shown(&file)
                )
            }
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
    pub fn write(&mut self, json: String) -> crate::Result {
        if self.current.as_deref() == Some(json.as_str()) {
            return Ok(());
        }
        if self.read_only {
            // Said once, when the store was opened: the file on disk
            // could not be read nor set aside, and a write would lose it.
            self.current = Some(json);
            return Ok(());
        }
        if let Some(folder) = &self.folder {
            write_atomically(folder, &json).map_err(|source| crate::Error::Save {
                path: folder.join(FILE),
                source,
            })?;
        }
        self.current = Some(json);
        Ok(())
    }
}

/// The most saves set aside in one game's folder.
const MAX_ASIDE: u32 = 100;

/// Moves `folder/save.json` to the first free `save.json.corrupt` name,
/// never over another, and returns where it went.
fn set_aside(folder: &Path) -> std::io::Result<PathBuf> {
    let file = folder.join(FILE);
    for n in 1..=MAX_ASIDE {
        let aside = match n {
            1 => folder.join(format!("{FILE}.corrupt")),
            n => folder.join(format!("{FILE}.corrupt.{n}")),
        };
        // A hard link is made only where no file is: the move cannot
        // replace an older copy, whatever else runs meanwhile.
        match std::fs::hard_link(&file, &aside) {
            Ok(()) => {
                std::fs::remove_file(&file)?;
                return Ok(aside);
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    Err(std::io::Error::other(format!(
        "{MAX_ASIDE} saves are set aside already; remove some"
    )))
}

/// Writes `json` as `folder/save.json`: a temporary file of a name no
/// one can guess, made new (never through a link, never over another
/// file) and readable by the user only, flushed to disk, then renamed
/// over the old save.
fn write_atomically(folder: &Path, json: &str) -> std::io::Result<()> {
    std::fs::create_dir_all(folder)?;
    let text = format!("{json}\n");
    moonloop_door::write_whole(
        &folder.join(FILE),
        text.as_bytes(),
        moonloop_door::Readers::Owner,
    )
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
        // The run was told it does not save; the folder stays as it was.
        saves.write("{\"best\": 2}".into()).unwrap();
        assert!(blocked.join(FILE).is_dir());
        // The write itself failing leaves no temporary file either.
        saves.read_only = false;
        let err = saves.write("{\"best\": 3}".into()).unwrap_err().chain();
        assert!(err.contains("could not be written"), "{err}");
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

    // rule: H12
    #[test]
    fn every_save_set_aside_is_kept() {
        let root = tempfile::tempdir().unwrap();
        let folder = root.path().join("g");
        std::fs::create_dir_all(&folder).unwrap();
        for (i, bytes) in [[0xffu8], [0xfe], [0xfd]].iter().enumerate() {
            std::fs::write(folder.join(FILE), bytes).unwrap();
            let mut saves = Saves::disk(root.path().to_path_buf());
            assert_eq!(saves.open("g"), None);
            let aside = match i {
                0 => folder.join("save.json.corrupt"),
                n => folder.join(format!("save.json.corrupt.{}", n + 1)),
            };
            assert_eq!(std::fs::read(&aside).unwrap(), bytes, "{}", aside.display());
        }
        assert_eq!(
            std::fs::read(folder.join("save.json.corrupt")).unwrap(),
            [0xff]
        );
    }

    // rule: H12
    #[test]
    fn a_save_that_is_a_pipe_or_a_link_is_never_opened_nor_replaced() {
        use std::os::unix::fs::{FileTypeExt as _, PermissionsExt as _};
        let root = tempfile::tempdir().unwrap();
        let folder = root.path().join("g");
        std::fs::create_dir_all(&folder).unwrap();
        let fifo = std::ffi::CString::new(folder.join(FILE).to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
        let mut saves = Saves::disk(root.path().to_path_buf());
        // A plain open of a pipe with no writer waits forever.
        assert_eq!(saves.open("g"), None);
        let notice = saves.take_notice().unwrap();
        assert!(notice.contains("it is a pipe, not a file"), "{notice}");
        saves.write("{}".into()).unwrap();
        assert!(
            std::fs::symlink_metadata(folder.join(FILE))
                .unwrap()
                .file_type()
                .is_fifo()
        );
        std::fs::remove_file(folder.join(FILE)).unwrap();

        // A link planted where the save goes is refused when read; the
        // write replaces the link, never what it points at.
        let target = root.path().join("victim");
        std::fs::write(&target, "precious").unwrap();
        std::os::unix::fs::symlink(&target, folder.join(FILE)).unwrap();
        let mut saves = Saves::disk(root.path().to_path_buf());
        assert_eq!(saves.open("g"), None);
        assert!(saves.take_notice().unwrap().contains("a link"));
        std::fs::remove_file(folder.join(FILE)).unwrap();
        let mut saves = Saves::disk(root.path().to_path_buf());
        saves.open("g");
        saves.write("{\"n\": 1}".into()).unwrap();
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "precious");
        let mode = std::fs::metadata(folder.join(FILE))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600, "a save is the user's only");
        let names: Vec<_> = std::fs::read_dir(&folder)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, [FILE], "no temporary file is left");
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
