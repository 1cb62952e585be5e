//! Folders the host keeps for a user: the data folder saves go under
//! (rule H12), and the private folder a packaged game unpacks into.
//!
//! | | Unix | Windows |
//! | --- | --- | --- |
//! | data | `$XDG_DATA_HOME/moonloop`, or `~/.local/share/moonloop` | `%APPDATA%\moonloop` |
//! | unpacking | the temporary folder, mode 0700 | `%LOCALAPPDATA%\moonloop\games` (the user's own by its access list) |

use std::path::PathBuf;

/// The folder every game's saves go under, when the environment names
/// one (an absolute path).
pub fn data_root() -> Option<PathBuf> {
    let absolute = |v: std::ffi::OsString| Some(PathBuf::from(v)).filter(|p| p.is_absolute());
    #[cfg(windows)]
    let data = std::env::var_os("APPDATA").and_then(absolute);
    #[cfg(not(windows))]
    let data = std::env::var_os("XDG_DATA_HOME")
        .and_then(absolute)
        .or_else(|| {
            std::env::var_os("HOME")
                .and_then(absolute)
                .map(|h| h.join(".local/share"))
        });
    data.map(|data| data.join("moonloop"))
}

/// What [`data_root`] reads, for the line that says none was set.
#[cfg(windows)]
pub const DATA_ROOT_FROM: &str = "APPDATA is";
/// What [`data_root`] reads, for the line that says none was set.
#[cfg(not(windows))]
pub const DATA_ROOT_FROM: &str = "neither XDG_DATA_HOME nor HOME is";

/// The folder packaged games unpack into, each in a folder of its own,
/// made when it is not there.
///
/// # Errors
/// It cannot be made.
pub fn unpack_root() -> std::io::Result<PathBuf> {
    #[cfg(windows)]
    {
        let local = std::env::var_os("LOCALAPPDATA")
            .map(PathBuf::from)
            .filter(|p| p.is_absolute())
            .unwrap_or_else(std::env::temp_dir);
        let root = local.join("moonloop").join("games");
        std::fs::create_dir_all(&root)?;
        Ok(root)
    }
    #[cfg(not(windows))]
    Ok(std::env::temp_dir())
}

/// The permissions of a folder only its user may enter: 0700 on Unix;
/// on Windows a new folder under the user's local app data is theirs by
/// the access list it inherits.
pub fn private() -> std::fs::Permissions {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::Permissions::from_mode(0o700)
    }
    #[cfg(not(unix))]
    {
        let dir = std::env::temp_dir();
        std::fs::metadata(&dir)
            .map(|m| m.permissions())
            .unwrap_or_else(|_| {
                std::fs::metadata(".")
                    .expect("the current folder")
                    .permissions()
            })
    }
}

/// Says whether the folder `meta` describes belongs to this user (on
/// Windows: it is under the user's own folder, so it does).
pub fn is_mine(meta: &std::fs::Metadata) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt as _;
        // SAFETY: `getuid` has no preconditions and cannot fail.
        meta.uid() == unsafe { libc::getuid() }
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        true
    }
}

/// Says whether the process `pid` has ended (or never was).
pub fn process_gone(pid: u32) -> bool {
    #[cfg(unix)]
    {
        let Ok(pid) = libc::pid_t::try_from(pid) else {
            return true;
        };
        // SAFETY: signal 0 only asks whether the process exists.
        let asked = unsafe { libc::kill(pid, 0) };
        asked != 0 && std::io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH)
    }
    #[cfg(windows)]
    {
        use windows_sys::Win32::Foundation::{CloseHandle, STILL_ACTIVE};
        use windows_sys::Win32::System::Threading::{
            GetExitCodeProcess, OpenProcess, PROCESS_QUERY_LIMITED_INFORMATION,
        };
        // SAFETY: a handle that opens is closed once, below; the exit
        // code is written into a local.
        unsafe {
            let handle = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, 0, pid);
            if handle.is_null() {
                // Gone, or another user's (which is not ours to sweep).
                return std::io::Error::last_os_error().raw_os_error() == Some(87);
            }
            let mut code = 0u32;
            let asked = GetExitCodeProcess(handle, &mut code);
            CloseHandle(handle);
            asked != 0 && code != STILL_ACTIVE as u32
        }
    }
}
