//! Reload: watches a game folder and reports which files changed (rule
//! H8). The only module that touches notify, and only with the `watch`
//! feature: a build without it refuses to watch, in one line.
//!
//! Editors save in different ways: in place (an open, two modifies and a
//! close-write) or by writing a temporary file and renaming it over the
//! original (three renames), all within a millisecond. Events are gathered
//! until the folder has been quiet for [`QUIET`], then reported once as a
//! set of paths, so either way of saving reloads exactly once.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use crate::error::{Error, Result};

/// How long the folder must be quiet before changes are reported.
pub const QUIET: Duration = Duration::from_millis(8);

/// Watches one game folder.
pub struct Watcher {
    root: PathBuf,
    /// The paths each change of the folder touched, as the door saw them.
    events: Receiver<Vec<PathBuf>>,
    pending: BTreeSet<PathBuf>,
    last_event: Option<Instant>,
    /// The system's watcher, kept alive while this one is.
    _door: Box<dyn std::any::Any>,
}

impl std::fmt::Debug for Watcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Watcher").field("root", &self.root).finish()
    }
}

impl Watcher {
    /// Starts watching `root` and everything under it.
    ///
    /// # Errors
    /// The system's file watcher cannot be started or refuses the folder.
    pub fn new(root: &Path) -> Result<Watcher> {
        let root = root.canonicalize().map_err(|e| Error::io(root, e))?;
        let (send, events) = channel();
        let door = door::watch(&root, send)?;
        Ok(Watcher {
            root,
            events,
            pending: BTreeSet::new(),
            last_event: None,
            _door: door,
        })
    }

    fn take(&mut self, paths: Vec<PathBuf>) {
        for path in paths {
            // Every kind of file the host loads, from the one table.
            let watched = crate::assets::kinds::kind_of(&path).is_some();
            if let (true, Ok(rel)) = (watched, path.strip_prefix(&self.root)) {
                self.pending.insert(rel.to_path_buf());
                self.last_event = Some(Instant::now());
            }
        }
    }

    fn ready(&mut self) -> Option<Vec<PathBuf>> {
        let quiet = self.last_event.is_some_and(|t| t.elapsed() >= QUIET);
        if quiet && !self.pending.is_empty() {
            self.last_event = None;
            return Some(std::mem::take(&mut self.pending).into_iter().collect());
        }
        None
    }

    /// Returns the files changed since the last call, relative to the game
    /// folder, once the folder has been quiet for [`QUIET`]; never blocks.
    pub fn poll(&mut self) -> Option<Vec<PathBuf>> {
        while let Ok(event) = self.events.try_recv() {
            self.take(event);
        }
        self.ready()
    }

    /// Waits up to `timeout` for a set of changes.
    pub fn wait(&mut self, timeout: Duration) -> Option<Vec<PathBuf>> {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(changes) = self.poll() {
                return Some(changes);
            }
            let now = Instant::now();
            if now >= deadline {
                return None;
            }
            // Wake for the next event, or when the quiet period would end.
            let until_quiet = self.last_event.map_or(deadline - now, |t| {
                (t + QUIET).saturating_duration_since(now)
            });
            match self.events.recv_timeout(
                until_quiet
                    .min(deadline - now)
                    .max(Duration::from_millis(1)),
            ) {
                Ok(event) => self.take(event),
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => return None,
            }
        }
    }
}

/// The system's file watcher: notify, sending the paths each change
/// touched (reads and notify's unknowns left out).
#[cfg(feature = "watch")]
mod door {
    use std::path::{Path, PathBuf};
    use std::sync::mpsc::Sender;

    use notify::{EventKind, RecursiveMode, Watcher as _};

    use crate::error::{Error, Result};

    pub fn watch(root: &Path, send: Sender<Vec<PathBuf>>) -> Result<Box<dyn std::any::Any>> {
        let failed = |source| Error::Watch {
            path: root.to_path_buf(),
            source,
        };
        let mut watcher =
            notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
                let Ok(event) = event else { return };
                if !matches!(event.kind, EventKind::Access(_) | EventKind::Other) {
                    let _ = send.send(event.paths);
                }
            })
            .map_err(failed)?;
        watcher
            .watch(root, RecursiveMode::Recursive)
            .map_err(failed)?;
        Ok(Box::new(watcher))
    }
}

/// A build without the `watch` feature has no watcher to start.
#[cfg(not(feature = "watch"))]
mod door {
    use std::path::{Path, PathBuf};
    use std::sync::mpsc::Sender;

    use crate::error::{Error, Result};

    pub fn watch(_: &Path, _: Sender<Vec<PathBuf>>) -> Result<Box<dyn std::any::Any>> {
        Err(Error::Unbuilt {
            what: "file watcher",
            feature: "watch",
            advice: "; leave out --watch",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_in_place_save_and_a_rename_save_report_once_each() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("main.luau"), "return {}").unwrap();
        let mut watcher = Watcher::new(dir.path()).unwrap();
        // In place: several writes to the same file.
        std::fs::write(dir.path().join("main.luau"), "return { }").unwrap();
        std::fs::write(dir.path().join("main.luau"), "return {  }").unwrap();
        let changes = watcher
            .wait(Duration::from_secs(5))
            .expect("a change is seen");
        assert_eq!(changes, [PathBuf::from("main.luau")]);
        assert_eq!(
            watcher.wait(Duration::from_millis(50)),
            None,
            "and only once"
        );
        // Rename over: a temporary file (not watched) renamed onto the original.
        std::fs::write(dir.path().join("main.luau.tmp"), "return {   }").unwrap();
        std::fs::rename(
            dir.path().join("main.luau.tmp"),
            dir.path().join("main.luau"),
        )
        .unwrap();
        let changes = watcher
            .wait(Duration::from_secs(5))
            .expect("a rename is seen");
        assert_eq!(changes, [PathBuf::from("main.luau")]);
        assert_eq!(
            watcher.wait(Duration::from_millis(50)),
            None,
            "and only once"
        );
    }

    #[test]
    fn other_files_are_ignored_and_subfolders_watched() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("sprites")).unwrap();
        let mut watcher = Watcher::new(dir.path()).unwrap();
        std::fs::write(dir.path().join("notes.txt"), "x").unwrap();
        std::fs::write(dir.path().join("sprites/ship.png"), "x").unwrap();
        let changes = watcher
            .wait(Duration::from_secs(5))
            .expect("a change is seen");
        assert_eq!(changes, [PathBuf::from("sprites/ship.png")]);
    }
}
