//! Assets: the one door to a game's files (rule H10).
//!
//! Every path that game content names (a module, an image, a model and the
//! URIs inside it, a sound, a test's input file or recording) comes in
//! here. A name is a plain relative path (`sprites/ship.png`); links are
//! resolved and anything that lands outside the game folder is refused;
//! reads are capped before a byte is allocated. Third-party loaders are
//! handed bytes that came through this door, never a path.

#![warn(missing_docs)]

/// `Err(refuse!("..."))`: a [`Refusal`] made with `format!`.
macro_rules! refuse {
    ($($arg:tt)*) => {
        moonloop_core::Refusal::from(format!($($arg)*))
    };
}

pub mod faces;
pub mod gltf;
pub mod kinds;
pub mod png;
pub mod rig;
pub mod sound;
mod store;

pub use store::{FontId, ImageId, ModelId, Store};

use moonloop_core::Refusal;
use std::path::{Component, Path, PathBuf};

/// The longest name a game may give a file, in bytes.
pub const MAX_NAME: usize = 1024;

pub use moonloop_door::MAX_SOURCE;

/// Checks that `name` is a plain relative path: not empty, no `..`, no
/// `.`, not absolute, no longer than [`MAX_NAME`].
///
/// # Errors
/// Says what is wrong, in the author's terms.
pub fn check_name(name: &str) -> Result<&Path, Refusal> {
    if name.len() > MAX_NAME {
        return Err(refuse!(
            "a file name of {} bytes is too long (at most {MAX_NAME})",
            name.len()
        ));
    }
    let rel = Path::new(name);
    if name.is_empty()
        || name.contains('\0')
        || rel.components().any(|c| !matches!(c, Component::Normal(_)))
    {
        return Err(refuse!(
            "`{}` is not a path inside the game folder (write it like \"sprites/ship.png\")",
            moonloop_door::escape(name)
        ));
    }
    Ok(rel)
}

/// Finds the `kind` file (`"image"`, `"model"`) called `name` in `root`,
/// and returns its real path (links resolved).
///
/// # Errors
/// There is no game folder, the name is not a plain relative path, it
/// leads outside the folder (through a link too), or no such file exists.
pub fn find(root: Option<&Path>, name: &str, kind: &str) -> Result<PathBuf, Refusal> {
    let root = root.ok_or_else(|| format!("{kind}s need a game folder"))?;
    let rel = check_name(name)?;
    find_rel(root, rel, kind)
}

/// Like [`find`], for a relative path the host built itself (a module
/// `require` resolved, a test file): it must still land inside `root`.
///
/// # Errors
/// As [`find`].
pub fn find_rel(root: &Path, rel: &Path, kind: &str) -> Result<PathBuf, Refusal> {
    let shown = || moonloop_door::escape(&rel.to_string_lossy()).into_owned();
    let real = match moonloop_door::inside(root, rel) {
        Ok(real) => real,
        Err(moonloop_door::Refusal::Outside) => {
            return Err(refuse!("`{}` leads outside the game folder", shown()));
        }
        Err(_) => return Err(refuse!("no {kind} `{}` in the game folder", shown())),
    };
    // A folder, a pipe or a device is not a file to read (a pipe would
    // block the host forever); the read checks again on what it opened.
    if !real.is_file() {
        return Err(refuse!("no {kind} `{}` in the game folder", shown()));
    }
    Ok(real)
}

/// Finds the folder `name` inside `root` (another game a test builds).
///
/// # Errors
/// The name is not a plain relative path, or it is not a folder inside
/// `root` (links resolved).
pub fn find_folder(root: &Path, name: &str) -> Result<PathBuf, Refusal> {
    let rel = check_name(name)?;
    let shown = moonloop_door::escape(name);
    match (root.join(rel).canonicalize(), root.canonicalize()) {
        (Ok(real), Ok(root)) if !real.starts_with(&root) => {
            Err(refuse!("`{shown}` leads outside the game folder"))
        }
        (Ok(_), Ok(_)) if root.join(rel).is_dir() => Ok(root.join(rel)),
        _ => Err(refuse!("no folder `{shown}` in the game folder")),
    }
}

/// Reads the `kind` file `name` from `root`, refusing it when it holds
/// more than `limit` bytes.
///
/// # Errors
/// As [`find`], or the file is too big or cannot be read.
pub fn read(
    root: Option<&Path>,
    name: &str,
    kind: &str,
    limit: u64,
) -> Result<Vec<u8>, moonloop_core::Refusal> {
    let path = find(root, name, kind)?;
    Ok(read_path(&path, name, limit)?)
}

/// Why a file could not be read: its one line, and what kind of failure
/// it is, so a command's exit code can tell a path the person named wrong
/// (not there, not a file, too big: 2) from a disk that failed (3).
#[derive(Debug)]
pub struct Unreadable {
    /// The kind of failure, as an I/O error's.
    pub kind: std::io::ErrorKind,
    line: String,
}

impl std::fmt::Display for Unreadable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.line)
    }
}

impl std::error::Error for Unreadable {}

impl From<Unreadable> for String {
    fn from(why: Unreadable) -> String {
        why.line
    }
}

impl From<Unreadable> for moonloop_core::Refusal {
    fn from(why: Unreadable) -> moonloop_core::Refusal {
        why.line.into()
    }
}

impl From<Unreadable> for std::io::Error {
    fn from(why: Unreadable) -> std::io::Error {
        std::io::Error::new(why.kind, why.line)
    }
}

/// Reads `path`, found by [`find`] or [`find_rel`] as `name`, refusing it
/// when it holds more than `limit` bytes.
///
/// # Errors
/// The file is too big or cannot be read.
pub fn read_path(path: &Path, name: &str, limit: u64) -> Result<Vec<u8>, Unreadable> {
    let shown = moonloop_door::escape(name);
    // Links were resolved where the path was found (inside the folder,
    // for a game's file) or are the person's own (a command line's);
    // the real path is opened, and a link swapped in since is refused.
    let real = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
    use std::io::ErrorKind;
    moonloop_door::read(&real, limit).map_err(|refusal| {
        let kind = match &refusal {
            moonloop_door::Refusal::Missing => ErrorKind::NotFound,
            moonloop_door::Refusal::Io(e) => e.kind(),
            _ => ErrorKind::InvalidInput,
        };
        let line = match refusal {
            moonloop_door::Refusal::TooBig {
                size: Some(size),
                limit,
            } => {
                let (size, limit) = moonloop_door::sizes(size, limit);
                format!("`{shown}` is {size}; the most the host reads is {limit} (H10)")
            }
            // A stream or a growing file: how long it is, nobody knows.
            moonloop_door::Refusal::TooBig { size: None, limit } => format!(
                "`{shown}` is more than {}, the most the host reads (H10)",
                bytes(limit)
            ),
            other => format!("cannot read `{shown}` ({other})"),
        };
        Unreadable { kind, line }
    })
}

pub use moonloop_door::bytes;

/// Returns where game content may write `name` (a test's recording): a
/// path inside `root` whose parent folders are created inside it, and
/// which is not a link.
///
/// # Errors
/// The name is not a plain relative path, a folder on the way leads
/// outside the game folder, or the target is a link.
pub fn output(root: &Path, name: &str) -> Result<PathBuf, Refusal> {
    let rel = check_name(name)?;
    let shown = moonloop_door::escape(name);
    let real_root = root
        .canonicalize()
        .map_err(|e| format!("the game folder cannot be opened ({e})"))?;
    // Walk down one folder at a time so that a link on the way is seen
    // before anything is created through it.
    let mut at = real_root.clone();
    let parts: Vec<_> = rel.components().collect();
    for (i, part) in parts.iter().enumerate() {
        at.push(part);
        let last = i + 1 == parts.len();
        match std::fs::symlink_metadata(&at) {
            Ok(meta) if meta.file_type().is_symlink() => {
                return Err(refuse!(
                    "`{shown}` goes through a link; recordings are written inside the game folder only (H10)"
                ));
            }
            Ok(meta) if !last && !meta.is_dir() => {
                return Err(refuse!(
                    "`{shown}`: a part of the path is a file, not a folder"
                ));
            }
            Ok(_) => {}
            Err(_) if last => {}
            Err(_) => std::fs::create_dir(&at)
                .map_err(|e| format!("cannot make a folder for `{shown}` ({e})"))?,
        }
    }
    if !at.starts_with(&real_root) {
        return Err(refuse!("`{shown}` leads outside the game folder"));
    }
    Ok(at)
}

/// Says whether `path` is named like Luau source (`.luau`, `.lua`): what
/// the host never writes over.
pub fn is_luau_source(path: &Path) -> bool {
    kinds::kind_of(path) == Some(kinds::Kind::Code)
}

/// Says whether a change to `path` reloads code: Luau source, or a map
/// that modules read as they loaded.
pub fn reloads_code(path: &Path) -> bool {
    matches!(
        kinds::kind_of(path),
        Some(kinds::Kind::Code | kinds::Kind::Map)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    // rule: H10
    #[test]
    fn names_stay_inside_the_folder() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.png"), "x").unwrap();
        let root = Some(dir.path());
        assert!(find(root, "a.png", "image").is_ok());
        assert_eq!(
            find(root, "b.png", "image").unwrap_err(),
            "no image `b.png` in the game folder"
        );
        for bad in ["../a.png", "/etc/passwd", "", "./a.png", "a\0.png"] {
            assert!(
                find(root, bad, "image")
                    .unwrap_err()
                    .contains("is not a path inside"),
                "{bad}"
            );
        }
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("s.png"), "x").unwrap();
        std::os::unix::fs::symlink(outside.path().join("s.png"), dir.path().join("link.png"))
            .unwrap();
        assert_eq!(
            find(root, "link.png", "image").unwrap_err(),
            "`link.png` leads outside the game folder"
        );
        std::os::unix::fs::symlink("/dev/zero", dir.path().join("zero.png")).unwrap();
        assert_eq!(
            find(root, "zero.png", "image").unwrap_err(),
            "`zero.png` leads outside the game folder"
        );
        assert_eq!(
            find(None, "a.png", "model").unwrap_err(),
            "models need a game folder"
        );
    }

    // rule: H10
    #[test]
    fn reads_are_capped_before_they_allocate() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("big.bin"), vec![7u8; 5000]).unwrap();
        let root = Some(dir.path());
        assert_eq!(read(root, "big.bin", "file", 5000).unwrap().len(), 5000);
        assert_eq!(
            read(root, "big.bin", "file", 4096).unwrap_err(),
            "`big.bin` is 4.9 KiB; the most the host reads is 4 KiB (H10)"
        );
    }

    // rule: H10
    #[test]
    fn outputs_are_made_inside_the_folder_and_never_through_a_link() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(outside.path(), dir.path().join("link")).unwrap();
        let made = output(dir.path(), "out/a/b.gif").unwrap();
        assert!(dir.path().join("out/a").is_dir(), "parents are made");
        assert_eq!(made.file_name().unwrap(), "b.gif");
        assert!(
            output(dir.path(), "link/x.png")
                .unwrap_err()
                .contains("goes through a link"),
        );
        std::os::unix::fs::symlink("/tmp/elsewhere.png", dir.path().join("l.png")).unwrap();
        assert!(
            output(dir.path(), "l.png")
                .unwrap_err()
                .contains("goes through a link")
        );
        assert!(
            output(dir.path(), "../x.png")
                .unwrap_err()
                .contains("is not a path inside")
        );
        assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 0);
    }

    #[test]
    fn byte_counts_read_like_a_person_writes_them() {
        assert_eq!(bytes(12), "12 bytes");
        assert_eq!(bytes(1 << 20), "1 MiB");
        assert_eq!(bytes(3 << 29), "1.5 GiB");
    }
}
