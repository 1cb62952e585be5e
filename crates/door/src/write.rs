//! The one way the host and its tools write a file (rule H12): whole or
//! not at all. The bytes go into a new file beside the target, of a name
//! no one can guess (made new: never through a link, never over another
//! file), are flushed to the disk, and the file is renamed onto the
//! target, whose folder's entry is flushed too. A crash, a full disk or a
//! file-size limit part-way leaves the old file (or none), never a cut one.

use std::io::Write as _;
use std::path::Path;

/// Who may read a file once it is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Readers {
    /// The user who ran the host only: saves, a game's private data.
    Owner,
    /// Anyone, as a file made by `File::create` is: pictures, reports and
    /// replays, which are for sharing.
    All,
}

/// Writes `bytes` as the file `path`, whole or not at all, readable by
/// `readers`.
///
/// # Errors
/// `path` is there and is not a regular file (renaming onto a folder, a
/// device or a pipe would replace it: `InvalidInput`), its folder is not
/// there, or the disk refused the write. The temporary file is gone.
pub fn write_whole(path: &Path, bytes: &[u8], readers: Readers) -> std::io::Result<()> {
    refuse_other_than_a_file(path)?;
    let folder = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let mode = mode(readers);
    let name = path
        .file_name()
        .map_or_else(|| "file".into(), |n| n.to_string_lossy().into_owned());
    let (mut file, temporary) = make_temporary(folder, &name, mode)?;
    let written = file
        .write_all(bytes)
        .and_then(|()| file.sync_all())
        .and_then(|()| std::fs::rename(&temporary, path));
    if let Err(e) = written {
        let _ = std::fs::remove_file(&temporary);
        return Err(e);
    }
    // The rename itself reaches the disk with the folder's entry.
    if let Ok(dir) = std::fs::File::open(folder) {
        let _ = dir.sync_all();
    }
    Ok(())
}

/// Makes a new file `.NAME.RANDOM.tmp` in `folder`, of a name no one can
/// guess and made only where nothing is (never through a link, never
/// over another file); returns it and its path. Its errors read the same
/// every time (no random name in them).
fn make_temporary(
    folder: &Path,
    name: &str,
    mode: u32,
) -> std::io::Result<(std::fs::File, std::path::PathBuf)> {
    use std::hash::{BuildHasher as _, Hasher as _};
    let mut last = None;
    for attempt in 0..16u64 {
        // Seeded from the system's randomness, once per process, and
        // stirred by the time and the attempt.
        let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
        hasher.write_u64(attempt);
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        hasher.write_u128(now);
        let path = folder.join(format!(".{name}.{:016x}.tmp", hasher.finish()));
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create_new(true);
        match open_private(&mut options, mode).open(&path) {
            Ok(file) => {
                // The mode asked for, whatever the umask took away.
                set_mode(&file, mode)?;
                return Ok((file, path));
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => last = Some(e),
            Err(e) => return Err(e),
        }
    }
    Err(last.unwrap_or_else(|| std::io::Error::from(std::io::ErrorKind::AlreadyExists)))
}

/// Makes `path` afresh (emptied if it was there) for a file written as it
/// goes (a recording, a rendered sound, a replay log), readable by
/// `readers`: such a file is kept valid by its writer at every step, since
/// a run may end at any of them.
///
/// # Errors
/// `path` is a folder, a device or a pipe (`InvalidInput`: writing would
/// empty a disk or block on a reader), its folder is not there, or the
/// disk refused.
pub fn create(path: &Path, readers: Readers) -> std::io::Result<std::fs::File> {
    refuse_other_than_a_file(path)?;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    let file = open_private(&mut options, mode(readers)).open(path)?;
    // A file that was there keeps its old mode through open: set it.
    set_mode(&file, mode(readers))?;
    Ok(file)
}

/// `options`, making a new file with permission bits `mode` (on Unix;
/// on Windows a file takes its folder's access list, and the user's own
/// folders are the user's).
fn open_private(options: &mut std::fs::OpenOptions, mode: u32) -> &mut std::fs::OpenOptions {
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(options, mode);
    #[cfg(not(unix))]
    let _ = mode;
    options
}

/// Gives `file` permission bits `mode` (on Unix; see [`open_private`]).
fn set_mode(file: &std::fs::File, mode: u32) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        file.set_permissions(std::fs::Permissions::from_mode(mode))
    }
    #[cfg(not(unix))]
    {
        let _ = (file, mode);
        Ok(())
    }
}

/// The permission bits a file for `readers` has.
fn mode(readers: Readers) -> u32 {
    match readers {
        Readers::Owner => 0o600,
        Readers::All => 0o644,
    }
}

/// Refuses a `path` that is there and is not a regular file.
fn refuse_other_than_a_file(path: &Path) -> std::io::Result<()> {
    match std::fs::metadata(path) {
        Ok(meta) if !meta.is_file() => {
            let what = if meta.is_dir() {
                "a folder"
            } else {
                "a device or a pipe"
            };
            Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!("it is {what}, not a file"),
            ))
        }
        _ => Ok(()),
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt as _;

    #[test]
    fn a_file_is_written_whole_with_its_readers_and_nothing_beside_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.txt");
        std::fs::write(&path, "old").unwrap();
        write_whole(&path, b"new", Readers::Owner).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"new");
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        write_whole(&path, b"shared", Readers::All).unwrap();
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o644);
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1, "no temporary file is left");
    }

    #[test]
    fn a_folder_a_device_or_a_missing_folder_is_refused_and_nothing_is_left() {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("sub");
        std::fs::create_dir(&folder).unwrap();
        let err = write_whole(&folder, b"x", Readers::All).unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::InvalidInput);
        assert_eq!(err.to_string(), "it is a folder, not a file");
        let err = write_whole(Path::new("/dev/null"), b"x", Readers::All).unwrap_err();
        assert_eq!(err.to_string(), "it is a device or a pipe, not a file");
        let err = write_whole(&dir.path().join("none/out.txt"), b"x", Readers::All).unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::NotFound);
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1, "only the folder");
    }

    #[test]
    fn a_file_written_as_it_goes_is_made_afresh_and_never_a_device_or_a_folder() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.wav");
        std::fs::write(&path, "an older, longer file").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o666)).unwrap();
        let mut file = create(&path, Readers::Owner).unwrap();
        file.write_all(b"new").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"new");
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600);
        for refused in [Path::new("/dev/null"), dir.path()] {
            let err = create(refused, Readers::All).unwrap_err();
            assert_eq!(err.kind(), std::io::ErrorKind::InvalidInput, "{refused:?}");
        }
        let err = create(&dir.path().join("none/out.wav"), Readers::All).unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::NotFound);
    }

    #[test]
    fn a_write_the_disk_refuses_says_the_same_words_every_time() {
        let dir = tempfile::tempdir().unwrap();
        // A temporary file cannot be made in a folder that is not there.
        let err = write_whole(&dir.path().join("none/a.txt"), b"x", Readers::All).unwrap_err();
        assert_eq!(err.to_string(), "No such file or directory (os error 2)");
    }
}
