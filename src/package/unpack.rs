//! Unpacking a package (rule H12): into a private folder of its own
//! (mode 0700; on Windows under the user's local app data) that goes when the run ends, bounded in entries and bytes
//! as they are inflated, every name a plain relative path; and telling
//! the package's fault (exit 2) from the machine's (exit 3).

use std::path::{Path, PathBuf};

use super::archive::{self, MAX_ARCHIVE, MAX_UNPACKED};
use crate::platform::folders;

/// A game unpacked from a package; its folder goes when this is dropped.
#[derive(Debug)]
pub struct Unpacked {
    /// Keeps the folder alive.
    _dir: tempfile::TempDir,
    game: PathBuf,
}

/// Why a package could not be opened: the package's fault (exit 2) or
/// the machine's (exit 3, by the I/O error's kind).
#[derive(Debug, thiserror::Error)]
pub enum Refused {
    /// The package is not one the host runs: not a zip, an entry that
    /// is a link or leaves the folder, too many entries or bytes, no
    /// main file.
    #[error("{what}: {why}")]
    Package {
        /// The package, as shown.
        what: String,
        /// What is wrong with it (the entry first, where one is to blame).
        why: String,
    },
    /// The package's file could not be read.
    #[error("{0}")]
    Unreadable(#[from] crate::assets::Unreadable),
    /// The machine could not unpack it: no folder to unpack into, a full
    /// disk.
    #[error("{what}: cannot unpack {entry}")]
    Disk {
        /// The package, as shown.
        what: String,
        /// The entry being written (or the folder made for them).
        entry: String,
        /// The cause.
        source: std::io::Error,
    },
}

impl Refused {
    /// The kind of I/O failure this is, where it is one.
    pub fn io_kind(&self) -> Option<std::io::ErrorKind> {
        match self {
            Refused::Package { .. } => None,
            Refused::Unreadable(why) => Some(why.kind),
            Refused::Disk { source, .. } => Some(source.kind()),
        }
    }
}

impl Unpacked {
    /// Returns the game folder (holding main.luau).
    pub fn game(&self) -> &Path {
        &self.game
    }
}

/// Unpacks the zip in `bytes` (called `what` in errors) into a private
/// folder. The game is the archive's top, or its one top-level folder
/// when the top has no main file.
///
/// # Errors
/// One line naming the problem: not a zip, an entry that is a link or
/// leaves the folder, too many entries or bytes, or no main.luau.
pub fn unpack(bytes: &[u8], what: &str) -> Result<Unpacked, Refused> {
    let fail = |why: String| Refused::Package {
        what: what.to_string(),
        why,
    };
    let disk = |entry: &str, source| Refused::Disk {
        what: what.to_string(),
        entry: entry.to_string(),
        source,
    };
    let archive = archive::Archive::new(bytes).map_err(|r| fail(r.into()))?;
    sweep_stale();
    let dir = folders::unpack_root()
        .and_then(|root| {
            tempfile::Builder::new()
                .prefix(&format!("{UNPACKED_PREFIX}{}-", std::process::id()))
                .permissions(folders::private())
                .tempdir_in(root)
        })
        .map_err(|e| disk("into a folder of its own", e))?;
    let mut budget = MAX_UNPACKED;
    for (i, entry) in archive.entries.iter().enumerate() {
        let shown = crate::terminal::escape(&entry.name);
        let path = dir.path().join(&entry.name);
        if entry.is_dir {
            std::fs::create_dir_all(&path).map_err(|e| disk(&shown, e))?;
            continue;
        }
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| disk(&shown, e))?;
        }
        // A file where a folder of the same name was made fails here: no
        // entry overwrites another. That is the archive's doing.
        let mut out = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
            .map_err(|e| fail(format!("{shown}: {e}")))?;
        let copied = archive.extract(i, budget, &mut out).map_err(|e| match e {
            archive::Extract::Data(why) => fail(format!("`{shown}`: {why}")),
            archive::Extract::Write(e) => disk(&shown, e),
        })?;
        if copied > budget {
            return Err(fail(format!(
                "unpacks to more than {}; a game package is at most that",
                crate::assets::bytes(MAX_UNPACKED)
            )));
        }
        budget -= copied;
    }
    let game = find_game(dir.path()).ok_or_else(|| {
        fail("has no main.luau, at its top or in its one top-level folder".to_string())
    })?;
    Ok(Unpacked { _dir: dir, game })
}

/// How the folders games unpack into begin; the process id follows.
const UNPACKED_PREFIX: &str = "moonloop-game-";

/// Removes the unpack folders of runs that ended without removing their
/// own (a SIGKILL, a second Ctrl+C, a power cut): those of this user
/// whose process is gone. Every way a run ends then leaves nothing for
/// longer than until the next packaged run.
fn sweep_stale() {
    let Ok(entries) = folders::unpack_root().and_then(std::fs::read_dir) else {
        return;
    };
    for entry in entries.flatten().take(100_000) {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .and_then(|n| n.strip_prefix(UNPACKED_PREFIX))
            .and_then(|rest| rest.split('-').next())
            .and_then(|pid| pid.parse::<u32>().ok())
            .filter(|&pid| pid > 0)
        else {
            continue;
        };
        let mine = entry
            .metadata()
            .is_ok_and(|m| m.is_dir() && folders::is_mine(&m));
        if mine && folders::process_gone(pid) {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

/// The folder in `top` holding the game: `top` itself, or its only folder.
fn find_game(top: &Path) -> Option<PathBuf> {
    let has_main = |dir: &Path| {
        ["main.luau", "main.lua"]
            .iter()
            .any(|m| dir.join(m).is_file())
    };
    if has_main(top) {
        return Some(top.to_path_buf());
    }
    let entries: Vec<_> = std::fs::read_dir(top)
        .ok()?
        .filter_map(|e| e.ok())
        .collect();
    match entries.as_slice() {
        [only] if only.path().is_dir() && has_main(&only.path()) => Some(only.path()),
        _ => None,
    }
}

/// Reads and unpacks the zipped game at `path` (`moonloop run game.zip`).
///
/// # Errors
/// The file cannot be read, or [`unpack`] refuses it.
pub fn open_zip(path: &Path) -> Result<Unpacked, Refused> {
    let shown = path.to_string_lossy();
    let bytes = crate::assets::read_path(path, &shown, MAX_ARCHIVE)?;
    unpack(&bytes, &shown)
}
