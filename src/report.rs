//! The bug report: one folder that carries a session to another machine
//! (rules R1, H11).
//!
//! Shift+F2 in a window writes `moonloop-report-T-N/`:
//!
//! - `replay.txt`: the session from its first frame, as `--record-input`
//!   would have written it, with every frame's state hash, built from
//!   history;
//! - `files.txt`: the BLAKE3 hash of every file of the game, by path;
//! - `around-N.gif`: about ten seconds of history around frame N, the
//!   one shown when the report was asked for (five seconds each side
//!   where history has them), rendered again;
//! - `README.txt`: how to open it.
//!
//! `moonloop run GAME --replay REPORT/replay.txt --until N` opens it at
//! frame N; when the game's files are not the ones `files.txt` lists, the
//! run says which, in one line, and plays on (the hashes then name the
//! first frame that went another way).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::compositor::Compositor;
use crate::engine::{Engine, Game};
use crate::error::{Error, Result};
use crate::record::Recorder;

/// The most files `files.txt` lists.
const MAX_FILES: usize = 4096;

/// The largest file hashed; a larger one is listed as `too-large`.
const MAX_FILE: u64 = 256 << 20;

/// How many seconds of history the GIF shows, around the frame shown.
const GIF_SECONDS: f64 = 10.0;

/// The most frames the GIF takes (ten seconds of very short frames
/// would be many more).
const GIF_FRAMES: u64 = 1200;

/// The widest the GIF is, in pixels (a larger game is scaled down).
const GIF_WIDTH: u32 = 640;

/// What a run started from, which history does not hold.
#[derive(Debug, Clone, Default)]
pub struct Origin {
    /// The seed `math.random` started from.
    pub seed: u64,
    /// The save the game started from, as JSON.
    pub saved: Option<String>,
}

/// What a written report holds.
#[derive(Debug)]
pub struct Written {
    /// The folder.
    pub dir: PathBuf,
    /// The frames of the replay.
    pub frames: u64,
    /// The frames of the GIF.
    pub gif_frames: u64,
}

/// Writes the report of `engine`'s session into `dir`, which must not
/// exist yet; `compositor` renders the GIF. The engine is left where it
/// stood.
///
/// # Errors
/// The folder exists or cannot be written, or history no longer reaches
/// the session's first frame.
pub fn write<G: Game>(
    engine: &mut Engine<G>,
    compositor: &mut Compositor,
    dir: &Path,
    origin: &Origin,
) -> Result<Written> {
    let folder = engine
        .folder()
        .ok_or_else(|| Error::usage("a report needs a game folder"))?;
    let name = crate::replay::game_name(engine.config()).to_string();
    // A frame's lines take about 64 bytes; a log past what --replay reads
    // would be of no use.
    let frames = engine.history().map_or(0, |h| h.last());
    if frames.saturating_mul(64) > crate::replay::MAX_LOG {
        return Err(Error::usage(format!(
            "a session of {frames} frames is too long for a replay log (at most {} MiB)",
            crate::replay::MAX_LOG >> 20
        )));
    }
    let replay = engine.history_replay(origin.seed, &name, origin.saved.as_deref())?;
    std::fs::create_dir(dir).map_err(|e| Error::io(dir, e))?;
    let write = |file: &str, text: &str| {
        crate::files::write(&dir.join(file), text, crate::files::Readers::Owner)
    };
    write("replay.txt", &replay.to_text())?;
    write("files.txt", &files_text(&hash_files(&folder)))?;
    let shown = engine.frame();
    let gif_frames = gif(engine, compositor, &dir.join(format!("around-{shown}.gif")))?;
    let frames = replay.deltas.len() as u64;
    write(
        "README.txt",
        &format!(
            "A moonloop bug report of {name}, {frames} frames.\n\n\
             Open it at any frame N (the last is {frames}):\n\n    \
             moonloop run GAME --replay {0}/replay.txt --until N\n\n\
             files.txt lists the game's files as they were; the run says which differ.\n",
            dir.display()
        ),
    )?;
    Ok(Written {
        dir: dir.to_path_buf(),
        frames,
        gif_frames,
    })
}

/// Renders about ten seconds of history around the frame shown into a
/// GIF, then shows that frame again; returns the frames written.
fn gif<G: Game>(engine: &mut Engine<G>, compositor: &mut Compositor, path: &Path) -> Result<u64> {
    let Some(history) = engine.history() else {
        return Ok(0);
    };
    let shown = engine.frame();
    let (first, last) = around(shown, (*history.frames().start(), history.last()), |f| {
        history.entry(f).map_or(0.0, |e| e.dt)
    });
    let deltas: Vec<f64> = (first..=last)
        .map(|f| history.entry(f).map_or(0.0, |e| e.dt))
        .collect();
    let (w, h) = engine.config().logical();
    let size = if w > GIF_WIDTH {
        (
            GIF_WIDTH,
            (h as u64 * GIF_WIDTH as u64 / w.max(1) as u64).max(1) as u32,
        )
    } else {
        (w, h)
    };
    let mut recorder = Recorder::start(path, true)?;
    for (frame, dt) in (first..=last).zip(deltas) {
        engine.show(frame)?;
        engine.render_again();
        let (picture, _) = compositor.picture(engine, Some(size));
        recorder.push(picture, dt);
    }
    engine.show(shown)?;
    engine.render_again();
    let summary = recorder.finish()?;
    Ok(summary.frames)
}

/// Returns the first and last frame of the stretch a report's GIF shows
/// around frame `shown`, within `frames` (history's oldest and last),
/// where `dt` gives each frame's delta: up to half of [`GIF_SECONDS`]
/// after it and the rest before it (after it, near history's start), at
/// most [`GIF_FRAMES`] in all.
fn around(shown: u64, (oldest, newest): (u64, u64), dt: impl Fn(u64) -> f64) -> (u64, u64) {
    let (mut first, mut last) = (shown, shown);
    let mut seconds = 0.0;
    while last < newest && seconds < GIF_SECONDS / 2.0 && last - first < GIF_FRAMES / 2 {
        last += 1;
        seconds += dt(last);
    }
    while first > oldest && seconds < GIF_SECONDS && last - first < GIF_FRAMES {
        seconds += dt(first);
        first -= 1;
    }
    // Near the start of history, the seconds it lacks before come after.
    while last < newest && seconds < GIF_SECONDS && last - first < GIF_FRAMES {
        last += 1;
        seconds += dt(last);
    }
    (first, last)
}

/// Each file's hash under `root`, by its path there ('/'-separated);
/// links are not followed, at most [`MAX_FILES`] are listed, and what
/// the window writes (`moonloop-report-N/`, screenshots and recordings,
/// all named `moonloop-...`) is left out at the top.
pub fn hash_files(root: &Path) -> BTreeMap<String, String> {
    let mut files = BTreeMap::new();
    let mut folders = vec![PathBuf::new()];
    while let Some(rel) = folders.pop() {
        let Ok(entries) = std::fs::read_dir(root.join(&rel)) else {
            continue;
        };
        for entry in entries.flatten() {
            if files.len() >= MAX_FILES {
                return files;
            }
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if rel.as_os_str().is_empty()
                && entry.file_name().to_string_lossy().starts_with("moonloop-")
            {
                continue;
            }
            let path = rel.join(entry.file_name());
            if kind.is_dir() {
                folders.push(path);
            } else if kind.is_file() {
                let shown = path.to_string_lossy().replace('\\', "/");
                let hash = match crate::assets::read_path(&root.join(&path), &shown, MAX_FILE) {
                    Ok(bytes) => blake3::hash(&bytes).to_hex().to_string(),
                    Err(_) => "unreadable".to_string(),
                };
                files.insert(shown, hash);
            }
        }
    }
    files
}

fn files_text(files: &BTreeMap<String, String>) -> String {
    let mut out = String::new();
    for (path, hash) in files {
        let _ = writeln!(out, "{hash} {path}");
    }
    out
}

/// Reads a `files.txt` back.
fn read_files(text: &str) -> BTreeMap<String, String> {
    text.lines()
        .filter_map(|line| line.split_once(' '))
        .map(|(hash, path)| (path.to_string(), hash.to_string()))
        .collect()
}

/// Compares the game in `root` with the `files.txt` beside the replay at
/// `replay`; returns the line to say when they differ, naming the files
/// (at most five), or `None` when they match or there is no list.
pub fn check_files(root: &Path, replay: &Path) -> Option<String> {
    let list = replay.parent()?.join("files.txt");
    // A bug report may come from anyone: its list is read bounded.
    let bytes = crate::assets::read_path(&list, "files.txt", 16 << 20).ok()?;
    let text = String::from_utf8(bytes).ok()?;
    let then = read_files(&text);
    let now = hash_files(root);
    let mut differ: Vec<String> = Vec::new();
    for (path, hash) in &then {
        match now.get(path) {
            None => differ.push(format!("{path} is gone")),
            Some(h) if h != hash => differ.push(format!("{path} changed")),
            Some(_) => {}
        }
    }
    for path in now.keys().filter(|p| !then.contains_key(*p)) {
        differ.push(format!("{path} is new"));
    }
    if differ.is_empty() {
        return None;
    }
    let more = differ.len().saturating_sub(5);
    differ.truncate(5);
    Some(format!(
        "the game's files are not the ones {} lists: {}{}",
        list.display(),
        differ.join(", "),
        if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        }
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_gif_shows_five_seconds_each_side_of_the_frame_shown_where_history_has_them() {
        // Deltas of half a second (exact in binary): five seconds is ten frames.
        let half = |_| 0.5;
        assert_eq!(around(100, (0, 200), half), (90, 110), "5 s each side");
        assert_eq!(
            around(195, (0, 200), half),
            (180, 200),
            "near the end, more before"
        );
        assert_eq!(
            around(3, (0, 200), half),
            (0, 20),
            "near the start, more after"
        );
        assert_eq!(around(7, (5, 9), half), (5, 9), "a short history, whole");
        let (first, last) = around(5000, (0, 10_000), |_| 0.001);
        assert_eq!(last - first, GIF_FRAMES, "at most {GIF_FRAMES} frames");
    }
}
