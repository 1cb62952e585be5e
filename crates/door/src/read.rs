//! Finding and reading a file: inside the folder, a regular file, capped.

use std::fmt;
use std::fs::File;
use std::io::Read as _;
use std::path::{Path, PathBuf};

/// The largest Luau source file, in bytes. Compiling takes about 90 bytes
/// of host memory per byte of source (measured: 4.3 GB for 50 MB),
/// outside the VM's cap, so the cap on source is what bounds it; the
/// checker holds to the same.
pub const MAX_SOURCE: u64 = 1 << 20;

/// Why a file was not read.
#[derive(Debug)]
#[non_exhaustive]
pub enum Refusal {
    /// There is no such file (or the folder it is looked for in is gone).
    Missing,
    /// The path, its links resolved, lands outside the folder.
    Outside,
    /// It is not a regular file: "a folder", "a pipe", "a device", "a
    /// socket" or "a link" (a link where none may be).
    NotRegular(&'static str),
    /// It holds more bytes than the cap: `size` when it is known (a
    /// stream's is not).
    TooBig {
        /// Its size, when known.
        size: Option<u64>,
        /// The cap.
        limit: u64,
    },
    /// Reading failed.
    Io(std::io::Error),
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::Missing => write!(f, "there is no such file"),
            Refusal::Outside => write!(f, "it leads outside the game folder"),
            Refusal::NotRegular(kind) => write!(f, "it is {kind}, not a file"),
            Refusal::TooBig {
                size: Some(size),
                limit,
            } => {
                let (size, limit) = sizes(*size, *limit);
                write!(f, "it is {size}; the most read is {limit}")
            }
            Refusal::TooBig { size: None, limit } => {
                write!(f, "it is more than {}, the most read", bytes(*limit))
            }
            Refusal::Io(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for Refusal {}

/// Finds `rel` inside `root`, its links resolved: the real path, which
/// lies inside the real `root`.
///
/// # Errors
/// [`Refusal::Missing`] when either is not there, [`Refusal::Outside`]
/// when the path leaves the folder.
pub fn inside(root: &Path, rel: &Path) -> Result<PathBuf, Refusal> {
    let (Ok(real), Ok(root)) = (root.join(rel).canonicalize(), root.canonicalize()) else {
        return Err(Refusal::Missing);
    };
    if real.starts_with(&root) {
        Ok(real)
    } else {
        Err(Refusal::Outside)
    }
}

/// What kind of thing a file type is, in words.
fn kind(t: std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    use std::os::unix::fs::FileTypeExt as _;
    if t.is_dir() {
        "a folder"
    } else if t.is_symlink() {
        "a link"
    } else {
        #[cfg(unix)]
        if t.is_fifo() {
            return "a pipe";
        } else if t.is_socket() {
            return "a socket";
        }
        "a device"
    }
}

/// Opens `path` to read, only if it is a regular file: without blocking
/// (a pipe with no writer would hang the host), and not through a link
/// (resolve links first, with [`inside`] or `canonicalize`, so a link
/// swapped in after that is refused).
///
/// # Errors
/// [`Refusal::NotRegular`] for anything but a regular file,
/// [`Refusal::Missing`], or [`Refusal::Io`].
pub fn open_regular(path: &Path) -> Result<File, Refusal> {
    let file = platform::open_no_link(path)?;
    let meta = file.metadata().map_err(Refusal::Io)?;
    if !meta.is_file() {
        return Err(Refusal::NotRegular(kind(meta.file_type())));
    }
    platform::blocking(&file);
    Ok(file)
}

#[cfg(unix)]
mod platform {
    use std::fs::File;
    use std::os::unix::fs::OpenOptionsExt as _;
    use std::path::Path;

    use super::Refusal;

    /// Opens `path` to read without following a link at its end, and
    /// without blocking on a pipe or a device.
    pub fn open_no_link(path: &Path) -> Result<File, Refusal> {
        std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW | libc::O_CLOEXEC)
            .open(path)
            .map_err(|e| match e.raw_os_error() {
                Some(libc::ELOOP) => Refusal::NotRegular("a link"),
                _ if e.kind() == std::io::ErrorKind::NotFound => Refusal::Missing,
                _ => Refusal::Io(e),
            })
    }

    /// A regular file never blocks; reads go on as usual.
    pub fn blocking(file: &File) {
        use std::os::fd::AsRawFd as _;
        // SAFETY: the descriptor is open and owned by `file` for this call.
        unsafe {
            let flags = libc::fcntl(file.as_raw_fd(), libc::F_GETFL);
            if flags >= 0 {
                libc::fcntl(file.as_raw_fd(), libc::F_SETFL, flags & !libc::O_NONBLOCK);
            }
        }
    }
}

#[cfg(windows)]
mod platform {
    use std::fs::File;
    use std::os::windows::fs::OpenOptionsExt as _;
    use std::path::Path;

    use super::Refusal;

    /// Opens the link itself rather than what it points at (a symbolic
    /// link or a junction is a reparse point), so that the file's type
    /// says it is one.
    const FILE_FLAG_OPEN_REPARSE_POINT: u32 = 0x0020_0000;

    /// Opens `path` to read without following a link at its end. A
    /// folder cannot be opened without backup semantics: said as one.
    pub fn open_no_link(path: &Path) -> Result<File, Refusal> {
        std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(FILE_FLAG_OPEN_REPARSE_POINT)
            .open(path)
            .map_err(|e| {
                if e.kind() == std::io::ErrorKind::NotFound {
                    Refusal::Missing
                } else if std::fs::symlink_metadata(path).is_ok_and(|m| m.is_dir()) {
                    Refusal::NotRegular("a folder")
                } else {
                    Refusal::Io(e)
                }
            })
    }

    /// Reads of a file opened this way block already.
    pub fn blocking(_: &File) {}
}

/// Reads the regular file at `path` (see [`open_regular`]), refusing it
/// when it holds more than `limit` bytes, before it is read and, if it
/// grows meanwhile, as it is read.
///
/// # Errors
/// As [`open_regular`], or [`Refusal::TooBig`].
pub fn read(path: &Path, limit: u64) -> Result<Vec<u8>, Refusal> {
    let file = open_regular(path)?;
    let size = file.metadata().map_err(Refusal::Io)?.len();
    if size > limit {
        return Err(Refusal::TooBig {
            size: Some(size),
            limit,
        });
    }
    let mut bytes = Vec::with_capacity(size as usize);
    file.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(Refusal::Io)?;
    if bytes.len() as u64 > limit {
        return Err(Refusal::TooBig { size: None, limit });
    }
    Ok(bytes)
}

/// Writes a byte count the way a person reads it: `12 KiB`, `3.5 MiB`.
pub fn bytes(n: u64) -> String {
    const UNITS: [&str; 4] = ["bytes", "KiB", "MiB", "GiB"];
    let mut value = n as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{n} bytes")
    } else if value.fract() == 0.0 {
        format!("{value} {}", UNITS[unit])
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

/// Writes a size and the limit it broke so that they read as different:
/// as [`bytes`] writes them, or in exact bytes where rounding would make
/// them look equal ("1.0 MiB; at most 1 MiB").
pub fn sizes(size: u64, limit: u64) -> (String, String) {
    let (a, b) = (bytes(size), bytes(limit));
    let rounded = |s: &str| s.replace(".0 ", " ");
    if size != limit && rounded(&a) == rounded(&b) {
        (format!("{size} bytes"), format!("{limit} bytes"))
    } else {
        (a, b)
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    // rule: H10
    #[test]
    fn only_regular_files_open_and_none_blocks() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("save.json");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        // A pipe with no writer: a plain open would wait forever.
        let err = read(&fifo, 100).unwrap_err();
        assert_eq!(err.to_string(), "it is a pipe, not a file");
        assert_eq!(
            read(dir.path(), 100).unwrap_err().to_string(),
            "it is a folder, not a file"
        );
        assert_eq!(
            read(Path::new("/dev/zero"), 100).unwrap_err().to_string(),
            "it is a device, not a file"
        );
        let file = dir.path().join("a.txt");
        std::fs::write(&file, "hello").unwrap();
        assert_eq!(read(&file, 5).unwrap(), b"hello");
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&file, &link).unwrap();
        assert_eq!(
            read(&link, 5).unwrap_err().to_string(),
            "it is a link, not a file"
        );
        assert!(matches!(
            read(&dir.path().join("none"), 5),
            Err(Refusal::Missing)
        ));
    }

    // rule: H10
    #[test]
    fn a_file_past_its_cap_is_refused_before_it_is_read() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("big");
        std::fs::write(&file, vec![0u8; (1 << 20) + 1]).unwrap();
        let err = read(&file, 1 << 20).unwrap_err().to_string();
        assert_eq!(err, "it is 1048577 bytes; the most read is 1048576 bytes");
    }

    #[test]
    fn links_resolve_inside_the_folder_or_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let game = dir.path().join("g");
        std::fs::create_dir(&game).unwrap();
        std::fs::write(dir.path().join("secret"), "x").unwrap();
        std::fs::write(game.join("a.luau"), "x").unwrap();
        std::os::unix::fs::symlink("../secret", game.join("out")).unwrap();
        std::os::unix::fs::symlink("a.luau", game.join("in")).unwrap();
        assert!(matches!(
            inside(&game, Path::new("out")),
            Err(Refusal::Outside)
        ));
        assert_eq!(
            inside(&game, Path::new("in")).unwrap(),
            game.join("a.luau").canonicalize().unwrap()
        );
    }

    #[test]
    fn sizes_that_round_alike_are_shown_exactly() {
        assert_eq!(
            sizes((1 << 20) + 1, 1 << 20),
            ("1048577 bytes".into(), "1048576 bytes".into())
        );
        assert_eq!(sizes(3 << 20, 1 << 20), ("3 MiB".into(), "1 MiB".into()));
        assert_eq!(sizes(1536, 1024), ("1.5 KiB".into(), "1 KiB".into()));
    }
}
