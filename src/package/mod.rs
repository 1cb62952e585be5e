//! Packaged games (rule H12): a zipped game folder, and the executable
//! `moonloop build` writes, which is this host with such a zip appended.
//!
//! A package is unpacked into a private temporary folder (mode 0700,
//! removed when the run ends), and the game runs from there, behind the
//! same walls as any folder: the asset door confines it to that folder.
//! Unpacking is where a hostile archive would strike, so it is bounded and
//! strict: at most [`MAX_ENTRIES`] entries and [`MAX_UNPACKED`] bytes, the
//! bytes counted as they are inflated (never trusting the sizes the
//! archive claims), every name a plain relative path (no `..`, no absolute
//! path, no link), no name twice.
//!
//! A built executable ends with what it carries: a few lines about the
//! game ([`About`]: its title and version, for its own `--help` and
//! `--version` without unpacking it), the game's zip, and a trailer: the
//! length of both (8 bytes, little-endian) and [`MAGIC`]. The host looks
//! for it when it starts.

pub mod archive;
pub mod ignore;
pub mod unpack;

pub use archive::{MAX_ARCHIVE, MAX_ENTRIES, MAX_UNPACKED};
pub use unpack::{Refused, Unpacked, open_zip, unpack};

use crate::Refusal;
use std::io::{Read as _, Seek as _, Write as _};
use std::path::{Path, PathBuf};

/// The last bytes of a built executable.
pub const MAGIC: &[u8; 8] = b"MLGAME02";

/// A game folder zipped: the archive, and the files it holds.
#[derive(Debug)]
pub struct Zipped {
    /// The zip's bytes.
    pub bytes: Vec<u8>,
    /// The files packed, relative to the game folder, in order.
    pub files: Vec<PathBuf>,
}

/// Zips the game folder `game` under a top-level folder of its name:
/// every file but hidden ones (a `.git`, an editor's swap file), links,
/// and what the folder's `.moonloopignore` leaves out ([`ignore`]).
///
/// # Errors
/// A file cannot be read, the ignore file is malformed, or the game is
/// larger than a package may be.
pub fn zip_folder(game: &Path) -> Result<Vec<u8>, Refusal> {
    zip_game(game).map(|z| z.bytes)
}

/// Zips the game folder `game` as [`zip_folder`] does, saying which files
/// it packed.
///
/// # Errors
/// As [`zip_folder`].
pub fn zip_game(game: &Path) -> Result<Zipped, Refusal> {
    let ignore = match moonloop_door::read(&game.join(ignore::FILE), 1 << 20) {
        Ok(bytes) => ignore::Ignore::parse(&String::from_utf8_lossy(&bytes))?,
        Err(moonloop_door::Refusal::Missing) => ignore::Ignore::default(),
        Err(why) => return Err(refuse!("{}: {why}", ignore::FILE)),
    };
    let name = game
        .canonicalize()
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "game".into());
    let mut writer = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .unix_permissions(0o644);
    let mut files = Vec::new();
    collect(game, Path::new(""), &ignore, &mut files)?;
    if files.len() > MAX_ENTRIES {
        return Err(refuse!(
            "{} has more than {MAX_ENTRIES} files",
            game.display()
        ));
    }
    let mut total = 0u64;
    for rel in &files {
        // Read at most one byte past what the package may still hold: a
        // file that is (or grows to) more is refused before it fills the
        // host.
        let path = game.join(rel);
        let said = std::fs::metadata(&path).map_or(0, |m| m.len());
        let mut bytes = Vec::new();
        if total + said <= MAX_UNPACKED {
            moonloop_door::open_regular(&path)
                .map_err(|e| e.to_string())
                .and_then(|f| {
                    f.take(MAX_UNPACKED - total + 1)
                        .read_to_end(&mut bytes)
                        .map_err(|e| e.to_string())
                })
                .map_err(|e| format!("{}: {e}", rel.display()))?;
        }
        total += (bytes.len() as u64).max(said);
        if total > MAX_UNPACKED {
            return Err(refuse!(
                "{} is larger than {}, the most a package holds",
                game.display(),
                crate::assets::bytes(MAX_UNPACKED)
            ));
        }
        let entry = format!("{name}/{}", rel.to_string_lossy());
        writer
            .start_file(entry, options)
            .and_then(|()| writer.write_all(&bytes).map_err(Into::into))
            .map_err(|e| format!("zipping {}: {e}", rel.display()))?;
    }
    let cursor = writer.finish().map_err(|e| format!("zipping: {e}"))?;
    Ok(Zipped {
        bytes: cursor.into_inner(),
        files,
    })
}

/// Lists the files under `dir/rel`, sorted, skipping hidden names, links
/// and what `ignore` leaves out.
fn collect(
    dir: &Path,
    rel: &Path,
    ignore: &ignore::Ignore,
    out: &mut Vec<PathBuf>,
) -> Result<(), Refusal> {
    let here = dir.join(rel);
    let mut entries: Vec<_> = std::fs::read_dir(&here)
        .map_err(|e| format!("{}: {e}", here.display()))?
        .filter_map(|e| e.ok())
        .collect();
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let name = entry.file_name();
        if name.to_string_lossy().starts_with('.') {
            continue;
        }
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        let child = rel.join(&name);
        let shown = child.to_string_lossy().replace('\\', "/");
        if ignore.leaves_out(&shown, kind.is_dir()) {
            continue;
        }
        if kind.is_dir() {
            collect(dir, &child, ignore, out)?;
        } else if kind.is_file() {
            out.push(child);
        }
    }
    Ok(())
}

/// The platform a built game runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Target {
    /// The machine this moonloop runs on: it carries itself.
    Here,
    /// Windows on x86_64: carries the runtime `tools/cross.sh windows`
    /// built.
    Windows,
    /// A web page (a folder): the runtime `tools/cross.sh web` built,
    /// beside the game.
    Web,
}

impl Target {
    /// The bytes an executable for this target starts with.
    fn magic(self) -> &'static [u8] {
        match self {
            Target::Here if cfg!(windows) => b"MZ",
            Target::Here => b"\x7fELF",
            Target::Windows => b"MZ",
            Target::Web => b"\0asm",
        }
    }

    /// What `tools/cross.sh` builds for this target, under the target
    /// folder, and what it is called when it is not there.
    fn built(self) -> (&'static str, &'static str, &'static str) {
        match self {
            Target::Here => ("", "", ""),
            Target::Windows => ("cross/windows/moonloop.exe", "Windows", "windows"),
            Target::Web => ("cross/web/moonloop.wasm", "web", "web"),
        }
    }

    /// The runtime a game for this target is built on: `runtime` when
    /// given, this executable for [`Target::Here`], or what
    /// `tools/cross.sh` built beside this executable's folder
    /// (`target/cross/windows/moonloop.exe` for `target/release/moonloop`).
    ///
    /// # Errors
    /// There is none: one line saying how to make it.
    pub fn runtime(self, runtime: Option<&Path>) -> crate::Result<PathBuf> {
        use crate::Error;
        if let Some(path) = runtime {
            return Ok(path.to_path_buf());
        }
        let this = std::env::current_exe().map_err(|e| Error::io("the moonloop executable", e))?;
        if self == Target::Here {
            return Ok(this);
        }
        let (file, name, script) = self.built();
        let built = this
            .parent()
            .and_then(Path::parent)
            .map(|target| target.join(file));
        match built {
            Some(path) if path.is_file() => Ok(path),
            _ => Err(Error::usage(format!(
                "there is no {name} runtime to build on: `tools/cross.sh {script}` makes one \
                 ({}), or name one with --runtime FILE",
                built.map_or_else(|| format!("target/{file}"), |p| p.display().to_string())
            ))),
        }
    }
}

/// Writes to `out` an executable that runs `game`: the host at `runtime`
/// (this one, or another platform's, for `target`), without any game it
/// already carries, then the game's zip and the trailer. Written beside
/// `out` and renamed over it, so a failed build leaves nothing
/// half-written.
///
/// # Errors
/// `out` is no place for it, the game cannot be zipped, or `runtime` is
/// not an executable for `target` (usage errors), or the runtime cannot
/// be read or `out` written (I/O errors).
pub fn build(
    game: &Path,
    out: &Path,
    about: &About,
    (target, runtime): (Target, &Path),
) -> crate::Result<(u64, Vec<PathBuf>)> {
    use crate::Error;
    // Into the game folder it would replace the author's file of that
    // name (`-o g/main.luau`), or ship inside the next build.
    let folder = |p: &Path| match p.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.canonicalize().ok(),
        _ => std::env::current_dir().ok(),
    };
    if let (Some(into), Ok(game_dir)) = (folder(out), game.canonicalize())
        && into.starts_with(&game_dir)
    {
        return Err(Error::usage(format!(
            "cannot write {} inside the game folder {}: write the executable elsewhere",
            out.display(),
            game.display()
        )));
    }
    // The new file is renamed over `out`: over a device or a pipe that
    // would replace the node itself (`-o /dev/null` deleting it, as root).
    if let Ok(meta) = std::fs::metadata(out)
        && !meta.is_file()
    {
        return Err(Error::usage(format!(
            "cannot write {}: it is {}, not a file",
            out.display(),
            if meta.is_dir() {
                "a folder"
            } else {
                "a device or a pipe"
            }
        )));
    }
    let zipped = zip_game(game).map_err(|r| Error::usage(String::from(r)))?;
    let zip = zipped.bytes;
    // What the built game cannot unpack is refused now, not when a player
    // runs it: a path too deep or too long inside the folder.
    archive::Archive::new(&zip).map_err(|why| {
        Error::usage(format!(
            "cannot build {}: {why}; the built game could not unpack it",
            crate::terminal::escape(&game.to_string_lossy())
        ))
    })?;
    let mut host = std::fs::read(runtime).map_err(|e| Error::io(runtime, e))?;
    if !host.starts_with(target.magic()) {
        return Err(Error::usage(format!(
            "{} is not a moonloop runtime for {target:?}",
            runtime.display()
        )));
    }
    if let Some(zip_len) = trailer(&host) {
        host.truncate(host.len() - 16 - zip_len as usize);
    }
    let write = || -> std::io::Result<u64> {
        let parent = match out.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        let mut temporary = tempfile::NamedTempFile::new_in(parent)?;
        let about = about.to_bytes();
        temporary.write_all(&host)?;
        temporary.write_all(&about)?;
        temporary.write_all(&zip)?;
        temporary.write_all(&((about.len() + zip.len()) as u64).to_le_bytes())?;
        temporary.write_all(MAGIC)?;
        temporary.as_file().sync_all()?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            temporary
                .as_file()
                .set_permissions(std::fs::Permissions::from_mode(0o755))?;
        }
        let size = temporary.as_file().metadata()?.len();
        temporary.persist(out).map_err(|e| e.error)?;
        Ok(size)
    };
    let size = write().map_err(|source| Error::Write {
        path: out.to_path_buf(),
        source,
    })?;
    Ok((size, zipped.files))
}

/// The files of a web page's runtime, beside `moonloop.wasm`: what
/// `tools/cross.sh web` leaves there.
const WEB_FILES: [&str; 4] = ["moonloop.wasm", "moonloop.js", "index.html", "page.js"];

/// Writes into the folder `out` (made if missing; only these files are
/// written) a web page that runs `game`: the runtime at `runtime` (its
/// `moonloop.wasm`, with `moonloop.js`, `index.html` and `page.js` beside
/// it), and the game zipped as `game.zip`. The page's title is the
/// game's.
///
/// # Errors
/// `out` is a file or inside the game, the game cannot be zipped, or a
/// runtime file is missing (usage errors), or a file cannot be written.
pub fn build_web(
    game: &Path,
    out: &Path,
    about: &About,
    runtime: &Path,
) -> crate::Result<(u64, Vec<PathBuf>)> {
    use crate::Error;
    if out.exists() && !out.is_dir() {
        return Err(Error::usage(format!(
            "cannot write the page into {}: it is a file; --target web writes a folder",
            out.display()
        )));
    }
    if let (Ok(into), Ok(game_dir)) = (
        out.canonicalize()
            .or_else(|_| std::env::current_dir().map(|d| d.join(out))),
        game.canonicalize(),
    ) && into.starts_with(&game_dir)
    {
        return Err(Error::usage(format!(
            "cannot write {} inside the game folder {}: write the page elsewhere",
            out.display(),
            game.display()
        )));
    }
    let wasm = std::fs::read(runtime).map_err(|e| Error::io(runtime, e))?;
    if !wasm.starts_with(Target::Web.magic()) {
        return Err(Error::usage(format!(
            "{} is not a moonloop runtime for the web",
            runtime.display()
        )));
    }
    let folder = runtime.parent().unwrap_or(Path::new("."));
    let zipped = zip_game(game).map_err(|r| Error::usage(String::from(r)))?;
    archive::Archive::new(&zipped.bytes).map_err(|why| {
        Error::usage(format!(
            "cannot build {}: {why}; the page could not unpack it",
            crate::terminal::escape(&game.to_string_lossy())
        ))
    })?;
    std::fs::create_dir_all(out).map_err(|e| Error::io(out, e))?;
    let mut size = 0;
    for name in WEB_FILES {
        let from = folder.join(name);
        let mut bytes = std::fs::read(&from).map_err(|e| Error::io(&from, e))?;
        if name == "index.html" {
            let page = String::from_utf8_lossy(&bytes).replace(
                "<title>moonloop</title>",
                &format!("<title>{}</title>", html_text(&about.title)),
            );
            bytes = page.into_bytes();
        }
        size += bytes.len() as u64;
        crate::files::write(&out.join(name), bytes, crate::files::Readers::All)?;
    }
    size += zipped.bytes.len() as u64;
    crate::files::write(
        &out.join("game.zip"),
        zipped.bytes,
        crate::files::Readers::All,
    )?;
    Ok((size, zipped.files))
}

/// `text` as HTML text: `&`, `<`, `>` and quotes escaped.
fn html_text(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// What a built executable says of its game before it unpacks it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct About {
    /// The game's `config.title`.
    pub title: String,
    /// Its `config.version`, if it has one.
    pub version: Option<String>,
}

/// The first line of a built game's [`About`].
const ABOUT: &[u8] = b"moonloop-build 1\n";

impl About {
    fn to_bytes(&self) -> Vec<u8> {
        let mut out = ABOUT.to_vec();
        // Neither holds a control character (the config refuses them).
        out.extend_from_slice(format!("title {}\n", self.title).as_bytes());
        if let Some(version) = &self.version {
            out.extend_from_slice(format!("version {version}\n").as_bytes());
        }
        out.push(b'\n');
        out
    }

    /// Reads what `carried` (a built executable's payload) says of its
    /// game; none for a bare zip.
    pub fn of(carried: &[u8]) -> Option<About> {
        let rest = carried.strip_prefix(ABOUT)?;
        let end = rest.windows(2).position(|w| w == b"\n\n")?.min(4096);
        let text = std::str::from_utf8(&rest[..end]).ok()?;
        let mut about = About::default();
        for line in text.lines() {
            match line.split_once(' ') {
                Some(("title", title)) => about.title = title.to_string(),
                Some(("version", version)) => about.version = Some(version.to_string()),
                _ => {}
            }
        }
        Some(about)
    }
}

/// Returns the length of the payload (about and zip) a built
/// executable's `bytes` end with.
fn trailer(bytes: &[u8]) -> Option<u64> {
    let end = bytes.len().checked_sub(16)?;
    let (len, magic) = bytes[end..].split_at(8);
    if magic != MAGIC {
        return None;
    }
    let len = u64::from_le_bytes(len.try_into().ok()?);
    (len <= end as u64).then_some(len)
}

/// Returns the game this executable carries, if it is a built one: its
/// [`About`] and the zip's bytes after it (which [`unpack`] reads as they
/// are: what comes before a zip is skipped).
///
/// # Errors
/// It carries one that cannot be read.
pub fn embedded() -> Result<Option<Vec<u8>>, Refusal> {
    let Ok(path) = std::env::current_exe() else {
        return Ok(None);
    };
    let Ok(mut file) = std::fs::File::open(&path) else {
        return Ok(None);
    };
    let mut tail = [0u8; 16];
    let size = file.metadata().map(|m| m.len()).unwrap_or(0);
    if size < 16
        || file.seek(std::io::SeekFrom::End(-16)).is_err()
        || file.read_exact(&mut tail).is_err()
        || &tail[8..] != MAGIC
    {
        return Ok(None);
    }
    let len = u64::from_le_bytes(tail[..8].try_into().expect("8 bytes"));
    if len > MAX_ARCHIVE || len > size - 16 {
        return Err("the game this executable carries is damaged (its length is wrong)".into());
    }
    let mut zip = vec![0u8; len as usize];
    file.seek(std::io::SeekFrom::End(-16 - len as i64))
        .and_then(|_| file.read_exact(&mut zip))
        .map_err(|e| format!("cannot read the game this executable carries ({e})"))?;
    Ok(Some(zip))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn zip_of(entries: &[(&str, &[u8])]) -> Vec<u8> {
        let mut writer = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        let options = zip::write::SimpleFileOptions::default();
        for (name, bytes) in entries {
            if name.ends_with('/') {
                writer.add_directory(*name, options).unwrap();
            } else {
                writer.start_file(*name, options).unwrap();
                writer.write_all(bytes).unwrap();
            }
        }
        writer.finish().unwrap().into_inner()
    }

    // rule: H12
    #[test]
    fn a_zipped_folder_unpacks_to_the_same_files() {
        let dir = tempfile::tempdir().unwrap();
        let game = dir.path().join("tiny");
        std::fs::create_dir_all(game.join("sprites")).unwrap();
        std::fs::create_dir_all(game.join(".git")).unwrap();
        std::fs::write(game.join("main.luau"), "return {}").unwrap();
        std::fs::write(game.join("sprites/a.png"), [1, 2, 3]).unwrap();
        std::fs::write(game.join(".git/HEAD"), "secret").unwrap();
        let unpacked = unpack(&zip_folder(&game).unwrap(), "tiny.zip").unwrap();
        assert_eq!(
            unpacked.game().file_name().unwrap(),
            "tiny",
            "the game keeps its name"
        );
        assert_eq!(
            std::fs::read(unpacked.game().join("sprites/a.png")).unwrap(),
            [1, 2, 3]
        );
        assert!(
            !unpacked.game().join(".git").exists(),
            "hidden files stay behind"
        );
        let folder = unpacked.game().to_path_buf();
        use std::os::unix::fs::PermissionsExt as _;
        let top = folder.parent().unwrap();
        let mode = std::fs::metadata(top).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o700, "the unpack folder is private");
        drop(unpacked);
        assert!(!folder.exists(), "the folder goes with the run");
    }

    // rule: H10, H12
    #[test]
    fn hostile_archives_are_refused_by_name() {
        let main: (&str, &[u8]) = ("main.luau", b"return {}");
        let cases: Vec<(Vec<u8>, &str)> = vec![
            (b"PK\x03\x04 not really".to_vec(), "not a zip archive"),
            (
                zip_of(&[main, ("../escape.luau", b"x")]),
                "`../escape.luau` is not a path inside the game",
            ),
            (
                zip_of(&[main, ("/etc/passwd", b"x")]),
                "`/etc/passwd` is not a path inside the game",
            ),
            (
                zip_of(&[main, ("a/../../b", b"x")]),
                "is not a path inside the game",
            ),
            (zip_of(&[("readme.txt", b"no game")]), "has no main.luau"),
            (
                zip_of(&[("a/main.luau", b""), ("b/main.luau", b"")]),
                "has no main.luau",
            ),
        ];
        for (bytes, says) in cases {
            let err = unpack(&bytes, "bad.zip").unwrap_err().to_string();
            assert!(
                err.starts_with("bad.zip: ") && err.contains(says),
                "{err}\n  wanted: {says}"
            );
        }
    }

    // rule: H10
    #[test]
    fn a_zip_bomb_stops_at_the_cap_not_at_the_disk() {
        // 1.1 GiB of zeros deflates to about a megabyte.
        let mut writer = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
        let options = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated)
            .large_file(true);
        writer.start_file("main.luau", options).unwrap();
        let zeros = vec![0u8; 1 << 20];
        for _ in 0..(MAX_UNPACKED >> 20) + 64 {
            writer.write_all(&zeros).unwrap();
        }
        let bytes = writer.finish().unwrap().into_inner();
        assert!(bytes.len() < 8 << 20, "{}", bytes.len());
        let err = unpack(&bytes, "bomb.zip").unwrap_err().to_string();
        assert!(err.contains("unpacks to more than 1 GiB"), "{err}");
    }

    #[test]
    fn a_trailer_is_found_only_where_it_is_whole() {
        let mut bytes = b"host bytes".to_vec();
        bytes.extend_from_slice(b"zip!");
        bytes.extend_from_slice(&4u64.to_le_bytes());
        bytes.extend_from_slice(MAGIC);
        assert_eq!(trailer(&bytes), Some(4));
        assert_eq!(trailer(b"host bytes only"), None);
        let mut lying = b"x".to_vec();
        lying.extend_from_slice(&99u64.to_le_bytes());
        lying.extend_from_slice(MAGIC);
        assert_eq!(trailer(&lying), None);
    }
}
