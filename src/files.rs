//! Files the host writes (rule H12): every one whole or not at all,
//! through the door the tools share ([`moonloop_door::write_whole`]). A
//! full disk, a file-size limit or a crash part-way leaves the old file or
//! none, never a cut one.

use std::path::Path;

use crate::error::{Error, Result};

pub use moonloop_door::Readers;

/// Writes `bytes` as `path`, whole or not at all, readable by `readers`:
/// [`Readers::Owner`] for what a run knows of the person's game (saves,
/// replays, reports), [`Readers::All`] for what is made to be shown
/// (pictures, recordings, a new game's files).
///
/// # Errors
/// [`Error::Write`]: `path` is a folder, a device or a pipe, its folder
/// is not there, or the disk refused it.
pub fn write(path: &Path, bytes: impl AsRef<[u8]>, readers: Readers) -> Result<()> {
    moonloop_door::write_whole(path, bytes.as_ref(), readers).map_err(|source| Error::Write {
        path: path.to_path_buf(),
        source,
    })
}
