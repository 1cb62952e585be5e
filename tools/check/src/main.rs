//! moonloop-check: type-checks games' Luau against the host's API (rule
//! T1 in docs/checking.md).
//!
//! Every `.luau` file of each game is checked in strict mode against
//! `runtime/moonloop.d.luau`, and its `require("./x")` and
//! `require("@moonloop/x")` resolved as the host resolves them: one that
//! names no module is an error at its line, and what a module returns
//! crosses into the file requiring it (see `typed_requires`: the analyzer
//! crate's shim loses `require`'s own typing). Prints `file:line:col: message` lines and "N files checked, N
//! errors"; exits 1 on errors, 2 on bad arguments. `moonloop check` runs
//! this binary from beside itself.

use std::collections::{HashMap, HashSet};
use std::path::{Component, Path, PathBuf};
use std::process::ExitCode;

use luau_analyzer_sys::NativeAnalyzer;

mod game_table;
mod typed_requires;

include!(concat!(env!("OUT_DIR"), "/runtime.rs"));

/// What the checker's built-in definitions lack of Luau as the host runs
/// it: the analyzer loads Luau's own definitions a second time after
/// registering the globals, which drops `table.freeze`, `table.clone` and the `vector`
/// type's arithmetic; these put them back.
const PRELUDE: &str = r#"
declare table: typeof(table) & { freeze: <T>(t: T) -> T, clone: <T>(t: T) -> T }

declare extern type vector with
    x: number
    y: number
    z: number
    function __add(self, other: vector): vector
    function __sub(self, other: vector): vector
    function __unm(self): vector
    function __mul(self, other: vector): vector
    function __mul(self, other: number): vector
    function __div(self, other: vector): vector
    function __div(self, other: number): vector
    function __idiv(self, other: vector): vector
    function __idiv(self, other: number): vector
end

declare vector: {
    create: (x: number, y: number, z: number?) -> vector,
    magnitude: (vec: vector) -> number,
    normalize: (vec: vector) -> vector,
    cross: (vec1: vector, vec2: vector) -> vector,
    dot: (vec1: vector, vec2: vector) -> number,
    angle: (vec1: vector, vec2: vector, axis: vector?) -> number,
    floor: (vec: vector) -> vector,
    ceil: (vec: vector) -> vector,
    abs: (vec: vector) -> vector,
    sign: (vec: vector) -> vector,
    clamp: (vec: vector, min: vector, max: vector) -> vector,
    max: (vector, ...vector) -> vector,
    min: (vector, ...vector) -> vector,
    lerp: (vec1: vector, vec2: vector, t: number) -> vector,
    zero: vector,
    one: vector,
}
"#;

/// The prefix of the runtime library's module names.
const RUNTIME_PREFIX: &str = "@moonloop/";

/// The most files one run checks (H10: a folder is not a loop without end).
const MAX_FILES: usize = 10_000;

/// The largest file checked, in bytes: the host's cap on a source file.
const MAX_FILE: u64 = moonloop_door::MAX_SOURCE;

/// Reads the game file `path` through the host's door: links resolved
/// and kept inside `root`, a regular file only (a pipe or a device is
/// never opened to wait on), at most [`MAX_FILE`] bytes, UTF-8.
///
/// # Errors
/// Why it was not read, for a `file:1:1: error:` line.
fn read_source(root: &Path, path: &Path) -> Result<String, String> {
    let rel = path.strip_prefix(root).unwrap_or(path);
    let real = moonloop_door::inside(root, rel).map_err(|e| format!("{e} (H10)"))?;
    let bytes = moonloop_door::read(&real, MAX_FILE).map_err(|e| format!("{e} (H10)"))?;
    String::from_utf8(bytes).map_err(|_| "it is not UTF-8 text".to_string())
}

/// Prints one line of the checker's output, its game text escaped.
fn print_line(line: &str) {
    use std::io::Write as _;
    let _ = writeln!(std::io::stdout(), "{}", moonloop_door::line(line));
}

/// A module the checker can read: its source as checked, how many lines
/// were put in front (a `--!strict` line) to take off again, whether it
/// exports its value's type, and the lines whose require was typed.
struct Module {
    source: String,
    added_lines: u32,
    exports: bool,
    typed_lines: HashSet<u32>,
}

/// Every module of one run, by name: game files by path, runtime modules
/// as `@moonloop/NAME`.
struct Modules {
    root: PathBuf,
    known: HashMap<String, Module>,
    /// Modules being read, so a cycle of requires ends.
    loading: HashSet<String>,
}

impl Modules {
    fn new(root: PathBuf) -> Modules {
        Modules {
            root,
            known: HashMap::new(),
            loading: HashSet::new(),
        }
    }

    /// Reads `name` (a path, or a runtime module), in strict mode, its
    /// value's type exported and its requires typed.
    fn load(&mut self, name: &str) -> Option<&Module> {
        if !self.known.contains_key(name) {
            if !self.loading.insert(name.to_string()) {
                return None;
            }
            let text = match name.strip_prefix(RUNTIME_PREFIX) {
                Some(module) => RUNTIME
                    .iter()
                    .find(|(n, _)| *n == module)
                    .map(|(_, s)| s.to_string()),
                None => read_source(&self.root, Path::new(name)).ok(),
            };
            let Some(text) = text else {
                self.loading.remove(name);
                return None;
            };
            // A game's main file: its returned table is a Game.
            let is_main = Path::new(name)
                .strip_prefix(&self.root)
                .is_ok_and(|rel| rel == Path::new("main.luau"));
            let text = if is_main {
                game_table::annotate(&text)
            } else {
                text
            };
            let (text, exports) = typed_requires::export(&text);
            let mut typed = Vec::new();
            for (line, local, required) in typed_requires::simple_requires(&text) {
                let Some(target) = resolve(&self.root, name, &required) else {
                    continue;
                };
                if self.load(&target).is_some_and(|m| m.exports) {
                    typed.push((line, local));
                }
            }
            let (text, typed_lines) = typed_requires::type_requires(&text, &typed);
            let (source, added_lines) = strict(text);
            self.loading.remove(name);
            self.known.insert(
                name.to_string(),
                Module {
                    source,
                    added_lines,
                    exports,
                    typed_lines,
                },
            );
        }
        self.known.get(name)
    }
}

/// Makes a source strict: a file whose leading comments name no mode
/// (`--!strict`, `--!nonstrict`, `--!nocheck`) gets `--!strict` put in
/// front of it.
fn strict(text: String) -> (String, u32) {
    let named = text
        .lines()
        .map(str::trim)
        .take_while(|l| l.starts_with("--") || l.is_empty())
        .any(|l| {
            ["--!strict", "--!nonstrict", "--!nocheck"]
                .iter()
                .any(|m| l.starts_with(m))
        });
    if named {
        (text, 0)
    } else {
        (format!("--!strict\n{text}"), 1)
    }
}

/// Resolves `required` from module `from` as the host does: `@moonloop/x`
/// is the runtime's, `./x` and `../x` are relative to the requiring file
/// (a `.luau` added, or `x/init.luau`) and stay inside `root`.
fn resolve(root: &Path, from: &str, required: &str) -> Option<String> {
    if let Some(module) = required.strip_prefix(RUNTIME_PREFIX) {
        return RUNTIME
            .iter()
            .any(|(n, _)| *n == module)
            .then(|| required.to_string());
    }
    if !(required.starts_with("./") || required.starts_with("../")) {
        return None;
    }
    if let Some(module) = from.strip_prefix(RUNTIME_PREFIX) {
        // The runtime's own modules require their siblings.
        let _ = module;
        let sibling = required.strip_prefix("./")?.trim_end_matches(".luau");
        return resolve(root, from, &format!("{RUNTIME_PREFIX}{sibling}"));
    }
    let base = Path::new(from).parent()?.join(required);
    let base = normalize(&base)?;
    if !base.starts_with(root) {
        return None;
    }
    let candidates = [
        base.with_extension("luau"),
        PathBuf::from(format!("{}.luau", base.display())),
        base.join("init.luau"),
    ];
    // A link that leads outside is no module, as the host refuses it.
    candidates
        .into_iter()
        .find(|c| {
            c.is_file() && moonloop_door::inside(root, c.strip_prefix(root).unwrap_or(c)).is_ok()
        })
        .map(|c| c.display().to_string())
}

/// Every `require` of a string literal in `source`: the string and its
/// line and column (from 1).
fn requires(source: &str) -> Vec<(String, usize, usize)> {
    let mut found = Vec::new();
    for (i, line) in source.lines().enumerate() {
        let code = line.split("--").next().unwrap_or_default();
        let mut rest = code;
        let mut offset = 0;
        while let Some(at) = rest.find("require") {
            let after = rest[at + "require".len()..].trim_start();
            let after = after.strip_prefix('(').unwrap_or(after).trim_start();
            let quote = after
                .chars()
                .next()
                .filter(|c| matches!(c, '"' | '\'' | '`'));
            if let Some(end) = quote.and_then(|q| after[1..].find(q)) {
                found.push((after[1..1 + end].to_string(), i + 1, offset + at + 1));
            }
            offset += at + "require".len();
            rest = &rest[at + "require".len()..];
        }
    }
    found
}

/// How one game's files are named: read at their real path under `real`,
/// shown under `shown`, the folder as the person named it.
struct Names {
    real: PathBuf,
    shown: PathBuf,
}

impl Names {
    /// Names `path` (under the real folder) as the person would.
    fn shown(&self, path: &Path) -> String {
        match path.strip_prefix(&self.real) {
            Ok(rel) => self.shown.join(rel).display().to_string(),
            Err(_) => path.display().to_string(),
        }
    }

    /// Puts the person's name of the folder for its real path in `text`
    /// (the analyzer's messages name other modules by their paths).
    fn shown_in(&self, text: &str) -> String {
        let real = format!("{}{}", self.real.display(), std::path::MAIN_SEPARATOR);
        let shown = if self.shown.as_os_str().is_empty() {
            String::new()
        } else {
            format!("{}{}", self.shown.display(), std::path::MAIN_SEPARATOR)
        };
        text.replace(&real, &shown)
    }
}

/// Takes `.` out of `path`, and `..` where it follows a name (`a/../b` is
/// `b`); a leading `..` stays, so `../game` names the game as given.
fn tidy(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir
                if matches!(out.components().next_back(), Some(Component::Normal(_))) =>
            {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// Takes `.` and `..` out of a relative or absolute path; `None` when it
/// climbs above its start.
fn normalize(path: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::ParentDir => {
                if !out.pop() {
                    return None;
                }
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    Some(out)
}

/// Every `.luau` file under `dir`, sorted, hidden folders and the
/// definitions file left out. Links are not followed: one to a file
/// inside the folder is checked as that file, one that leads outside is
/// listed in `outside`.
fn luau_files(
    root: &Path,
    dir: &Path,
    out: &mut Vec<PathBuf>,
    outside: &mut Vec<PathBuf>,
) -> Result<(), String> {
    let shown = |p: &Path| moonloop_door::escape(&p.display().to_string()).into_owned();
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", shown(dir)))?
        .filter_map(Result::ok)
        .collect();
    entries.sort_by_key(|e| e.path());
    for entry in entries {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') {
            continue;
        }
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() {
            luau_files(root, &path, out, outside)?;
            continue;
        }
        if !name.ends_with(".luau") || name.ends_with(".d.luau") {
            continue;
        }
        if kind.is_symlink() {
            let rel = path.strip_prefix(root).unwrap_or(&path);
            if matches!(
                moonloop_door::inside(root, rel),
                Err(moonloop_door::Refusal::Outside)
            ) {
                outside.push(path);
            }
            continue;
        }
        if out.len() >= MAX_FILES {
            return Err(format!(
                "more than {MAX_FILES} .luau files under {}",
                shown(dir)
            ));
        }
        // Pipes and devices are listed too, to be refused by name.
        out.push(path);
    }
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "-h" || a == "--help") {
        println!(
            "moonloop-check [GAME ...]: type-checks every .luau file of each game (a folder, \
             or one file) in strict mode against the moonloop API"
        );
        return ExitCode::SUCCESS;
    }
    let targets: Vec<String> = if args.is_empty() {
        vec![".".into()]
    } else {
        args
    };
    let mut analyzer = NativeAnalyzer::new();
    analyzer.add_definitions(PRELUDE);
    analyzer.add_definitions(DEFINITIONS);
    let (mut files, mut errors, mut warnings) = (0usize, 0usize, 0usize);
    for target in &targets {
        if target.starts_with('-') {
            eprintln!("moonloop check: no option `{target}` (see moonloop check --help)");
            return ExitCode::from(2);
        }
        let path = Path::new(target);
        // The game is read at its real path, whatever form it was named in
        // (`.`, `../game`, an absolute path, one file); lines name its
        // files as the person named the game (`main.luau` for `.`,
        // `../game/main.luau` for `../game`).
        let (folder, file) = if path.is_dir() {
            (path, None)
        } else if target.ends_with(".luau") && std::fs::symlink_metadata(path).is_ok() {
            let parent = path.parent().filter(|p| !p.as_os_str().is_empty());
            (parent.unwrap_or(Path::new(".")), path.file_name())
        } else {
            eprintln!(
                "moonloop check: `{}` is not a game folder or a .luau file",
                moonloop_door::escape(target)
            );
            return ExitCode::from(2);
        };
        let Ok(root) = folder.canonicalize() else {
            eprintln!(
                "moonloop check: `{}` cannot be opened",
                moonloop_door::escape(target)
            );
            return ExitCode::from(2);
        };
        let names = Names {
            real: root.clone(),
            shown: tidy(folder),
        };
        let mut outside = Vec::new();
        let list = match file {
            Some(file) => vec![root.join(file)],
            None => {
                let mut list = Vec::new();
                if let Err(e) = luau_files(&root, &root, &mut list, &mut outside) {
                    eprintln!("moonloop check: {}", names.shown_in(&e));
                    return ExitCode::from(2);
                }
                list
            }
        };
        for link in &outside {
            errors += 1;
            print_line(&format!(
                "{}:1:1: error: a link that leads outside the game folder; it is not read (H10)",
                names.shown(link)
            ));
        }
        let modules = std::cell::RefCell::new(Modules::new(root.clone()));
        for file in list {
            let Some(name) = normalize(&file).map(|p| p.display().to_string()) else {
                continue;
            };
            let shown = names.shown(Path::new(&name));
            files += 1;
            let source = match read_source(&root, &file) {
                Ok(source) => source,
                Err(why) => {
                    errors += 1;
                    print_line(&format!("{shown}:1:1: error: {why}"));
                    continue;
                }
            };
            let diagnostics = analyzer.check(
                &name,
                |module| modules.borrow_mut().load(module).map(|m| m.source.clone()),
                |from, required| resolve(&root, from, required),
            );
            let (added, typed_lines) = modules
                .borrow_mut()
                .load(&name)
                .map_or((0, HashSet::new()), |m| {
                    (m.added_lines, m.typed_lines.clone())
                });
            // The analyzer types a require it cannot load as `any`, saying
            // nothing; a require that names no module is an error here.
            for (required, line, col) in requires(&source) {
                if resolve(&root, &name, &required).is_none() {
                    errors += 1;
                    print_line(&format!(
                        "{shown}:{line}:{col}: error: Unknown require: no module `{required}` \
                         (a game requires \"./path\" inside its folder or \"@moonloop/NAME\")"
                    ));
                }
            }
            for d in diagnostics {
                let line = (d.line + 1).saturating_sub(added).max(1);
                // A typed require shadows its own import, by design.
                if typed_lines.contains(&line) && d.message.contains("shadows") {
                    continue;
                }
                let kind = if d.severity == 0 {
                    errors += 1;
                    "error"
                } else {
                    warnings += 1;
                    "warning"
                };
                // One line a diagnostic, so editors and scripts can read them.
                let message = d.message.split_whitespace().collect::<Vec<_>>().join(" ");
                let message = names.shown_in(&message);
                print_line(&format!("{shown}:{line}:{}: {kind}: {message}", d.col + 1));
            }
        }
    }
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    println!(
        "{} checked, {}, {}",
        plural(files, "file"),
        plural(errors, "error"),
        plural(warnings, "warning")
    );
    if errors > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
