//! `require` by string (rule G1): `./x` and `../x` beside the requiring
//! file and never outside the game folder, `@moonloop/name` for the host's
//! Luau library embedded from `runtime/`.
//!
//! We resolve paths ourselves rather than through mlua's `Require` trait:
//! the confinement, the `@moonloop` alias, cycle detection and the module
//! graph that hot reload walks are all simpler to hold in one table here.

use crate::Refusal;
use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};

use mlua::{Lua, RegistryKey, Value};

use crate::assets::MAX_SOURCE;

/// How many modules may be loading at once: a chain of modules each
/// requiring the next while it loads. Luau's own limit on nested calls
/// (about 200) would otherwise end it as "error in error handling".
pub const MAX_LOADING: usize = 100;

/// The host's Luau library, as `(name, source)`.
pub const RUNTIME: &[(&str, &str)] = &[
    ("animation", include_str!("../../runtime/animation.luau")),
    ("collide", include_str!("../../runtime/collide.luau")),
    ("fixed_step", include_str!("../../runtime/fixed_step.luau")),
    (
        "interpolate",
        include_str!("../../runtime/interpolate.luau"),
    ),
    ("physics", include_str!("../../runtime/physics.luau")),
    ("random", include_str!("../../runtime/random.luau")),
    ("smooth", include_str!("../../runtime/smooth.luau")),
    ("test", include_str!("../../runtime/test.luau")),
    ("tiled", include_str!("../../runtime/tiled.luau")),
    ("timer", include_str!("../../runtime/timer.luau")),
];

/// Where a module lives.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ModuleId {
    /// A file of the game, by its path relative to the game folder.
    Game(PathBuf),
    /// A module of the host's library, by name.
    Runtime(String),
}

/// The modules of one VM: where the game lives, what is loaded, and who
/// requires whom.
#[derive(Debug)]
pub struct Modules {
    root: PathBuf,
    display: String,
    loaded: HashMap<ModuleId, RegistryKey>,
    by_chunk: HashMap<String, ModuleId>,
    loading: Vec<ModuleId>,
    /// `(requirer, required)` pairs, for hot reload.
    pub edges: Vec<(ModuleId, ModuleId)>,
    /// Game files whose text was replaced in memory (a test's edits).
    pub sources: HashMap<PathBuf, Vec<u8>>,
}

impl Modules {
    /// Creates the module table for a game in `root`, whose paths are shown
    /// as `display` (the folder as the user named it).
    pub fn new(root: PathBuf, display: String) -> Self {
        Modules {
            root,
            display,
            loaded: HashMap::new(),
            by_chunk: HashMap::new(),
            loading: Vec::new(),
            edges: Vec::new(),
            sources: HashMap::new(),
        }
    }

    /// The game folder.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Replaces the text of game file `rel` in memory (a test's edit); the
    /// next load of it reads this instead of the disk. Returns the edit it
    /// replaced.
    pub fn edit(&mut self, rel: &Path, text: Vec<u8>) -> Option<Vec<u8>> {
        self.sources.insert(rel.to_path_buf(), text)
    }

    /// Puts back what [`Modules::edit`] replaced: the edit before, or the
    /// disk's text when there was none.
    pub fn unedit(&mut self, rel: &Path, before: Option<Vec<u8>>) {
        match before {
            Some(text) => self.sources.insert(rel.to_path_buf(), text),
            None => self.sources.remove(rel),
        };
    }

    /// Returns how many bytes of text the edits hold.
    pub fn edited_bytes(&self) -> usize {
        self.sources.values().map(Vec::len).sum()
    }

    /// Returns the current text of game file `rel`: an edit, or the disk's
    /// (through the asset door, H10).
    ///
    /// # Errors
    /// The door refuses the file, or it cannot be read.
    pub fn text(&self, rel: &Path) -> Result<Vec<u8>, crate::Refusal> {
        match self.sources.get(rel) {
            Some(text) => Ok(text.clone()),
            None => read_source(&self.root, rel),
        }
    }

    /// Notes that the module loading now read the game file `rel` (a
    /// map): a change to it reloads that module. Read outside a module's
    /// loading (from `init`), nothing is noted.
    pub fn note_read(&mut self, rel: &Path) {
        if let Some(from) = self.loading.last().cloned() {
            let to = ModuleId::Game(rel.to_path_buf());
            if !self.edges.contains(&(from.clone(), to.clone())) {
                self.edges.push((from, to));
            }
        }
    }

    /// Returns the game files loaded so far.
    pub fn loaded_game_files(&self) -> Vec<PathBuf> {
        let mut files: Vec<PathBuf> = self
            .loaded
            .keys()
            .filter_map(|id| match id {
                ModuleId::Game(rel) => Some(rel.clone()),
                ModuleId::Runtime(_) => None,
            })
            .collect();
        files.sort();
        files
    }

    /// Returns the chunk name errors will show for `id`.
    pub fn chunk_name(&self, id: &ModuleId) -> String {
        match id {
            ModuleId::Game(rel) => {
                let rel = rel.to_string_lossy().replace('\\', "/");
                if self.display.is_empty() || self.display == "." {
                    rel
                } else {
                    format!("{}/{rel}", self.display.trim_end_matches('/'))
                }
            }
            ModuleId::Runtime(name) => format!("@moonloop/{name}.luau"),
        }
    }
}

/// Installs `require` in `lua`, which must hold a [`Modules`] as app data.
pub fn install(lua: &Lua) -> mlua::Result<()> {
    let require = lua.create_function(|lua, path: Value| {
        let Value::String(path) = path else {
            return Err(mlua::Error::RuntimeError(format!(
                "{}require takes a path string such as \"./ball\" or \"@moonloop/timer\", not a {} (G1)",
                super::location(lua, 1),
                crate::state::type_of(&path)
            )));
        };
        if path.as_bytes().len() > crate::assets::MAX_NAME {
            return Err(mlua::Error::RuntimeError(format!(
                "{}require: a path of {} bytes is too long (at most {})",
                super::location(lua, 1),
                path.as_bytes().len(),
                crate::assets::MAX_NAME
            )));
        }
        let path = path.to_string_lossy();
        let caller = lua
            .inspect_stack(1, |debug| debug.source().source.map(|s| s.into_owned()))
            .flatten()
            .unwrap_or_default();
        let from = {
            let modules = lua.app_data_ref::<Modules>().expect("modules installed");
            modules
                .by_chunk
                .get(caller.trim_start_matches(['@', '=']))
                .cloned()
        };
        let id = resolve(lua, from.as_ref(), &path).map_err(|reason| {
            mlua::Error::RuntimeError(format!(
                "{}require(\"{path}\"): {reason}",
                super::location(lua, 1)
            ))
        })?;
        if let Some(from) = from {
            let mut modules = lua.app_data_mut::<Modules>().expect("modules installed");
            if !modules.edges.contains(&(from.clone(), id.clone())) {
                modules.edges.push((from, id.clone()));
            }
        }
        load(lua, &id)
    })?;
    lua.globals().raw_set("require", require)
}

/// Finds what `path` names when required from module `from`.
fn resolve(lua: &Lua, from: Option<&ModuleId>, path: &str) -> Result<ModuleId, String> {
    let modules = lua.app_data_ref::<Modules>().expect("modules installed");
    if let Some(name) = path.strip_prefix("@moonloop/") {
        return runtime_module(name);
    }
    if path.starts_with('@') {
        return Err("unknown alias; the host's library is `@moonloop/NAME`".to_string());
    }
    if !(path.starts_with("./") || path.starts_with("../")) {
        return Err(
            "a path starts with ./ or ../ (beside this file) or @moonloop/ (G1)".to_string(),
        );
    }
    let base = match from {
        Some(ModuleId::Runtime(name)) => {
            // Inside the library, `./x` names another library module.
            let dir = Path::new(name).parent().unwrap_or(Path::new(""));
            let rel = join(dir, path).ok_or("the path leaves the host's library")?;
            return runtime_module(&rel.to_string_lossy());
        }
        Some(ModuleId::Game(rel)) => rel.parent().unwrap_or(Path::new("")).to_path_buf(),
        None => PathBuf::new(),
    };
    // The folder is not named: the game can catch this message, and what
    // it sees must not depend on where it was run from (H11).
    let leaves = || {
        "the path leaves the game folder; a game can only require its own files (G1)".to_string()
    };
    let rel = join(&base, path).ok_or_else(leaves)?;
    // `./fire.scenario` is `fire.scenario.luau`: the extension is added,
    // not swapped for what follows the last dot.
    let with = |ext: &str| {
        let mut name = rel.clone().into_os_string();
        name.push(ext);
        PathBuf::from(name)
    };
    let candidates = [
        with(".luau"),
        with(".lua"),
        rel.join("init.luau"),
        rel.join("init.lua"),
    ];
    let root = modules.root.canonicalize().map_err(|e| e.to_string())?;
    for candidate in candidates {
        let full = modules.root.join(&candidate);
        if full.is_file() {
            // A link inside the folder must not lead outside it either.
            let real = full.canonicalize().map_err(|e| e.to_string())?;
            if !real.starts_with(&root) {
                return Err(leaves());
            }
            return Ok(ModuleId::Game(candidate));
        }
    }
    let name = rel
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    Err(format!("no file {name}.luau or {name}.lua there"))
}

fn runtime_module(name: &str) -> Result<ModuleId, String> {
    if RUNTIME.iter().any(|(n, _)| *n == name) {
        Ok(ModuleId::Runtime(name.to_string()))
    } else {
        let names: Vec<&str> = RUNTIME.iter().map(|(n, _)| *n).collect();
        Err(format!(
            "no module `{name}` in the host's library (it has {})",
            names.join(", ")
        ))
    }
}

/// Joins `path` (`./a/b`, `../c`) onto `base` lexically; `None` if it climbs
/// above the root.
fn join(base: &Path, path: &str) -> Option<PathBuf> {
    let mut out: Vec<Component<'_>> = base.components().collect();
    for part in Path::new(path).components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop()?;
            }
            Component::Normal(_) => out.push(part),
            Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    Some(out.iter().collect())
}

/// Loads module `id` (once: later calls return the cached value).
///
/// # Errors
/// The file cannot be read, does not compile, fails while running, returns
/// nothing, or requires itself through a cycle.
pub fn load(lua: &Lua, id: &ModuleId) -> mlua::Result<Value> {
    load_as(lua, id, true)
}

/// Runs file `id` as a script (a test file): like a module, but it need
/// not return anything.
///
/// # Errors
/// As [`load`], but for returning nothing.
pub fn run(lua: &Lua, id: &ModuleId) -> mlua::Result<Value> {
    load_as(lua, id, false)
}

fn load_as(lua: &Lua, id: &ModuleId, module: bool) -> mlua::Result<Value> {
    let (source, chunk) = {
        let mut modules = lua.app_data_mut::<Modules>().expect("modules installed");
        if let Some(key) = modules.loaded.get(id) {
            return lua.registry_value(key);
        }
        let chunk = modules.chunk_name(id);
        if let Some(start) = modules.loading.iter().position(|m| m == id) {
            let mut names: Vec<String> = modules.loading[start..]
                .iter()
                .map(|m| modules.chunk_name(m))
                .collect();
            names.push(chunk);
            return Err(mlua::Error::RuntimeError(format!(
                "require cycle: {} (G1: move what both need into a third module)",
                names.join(" requires ")
            )));
        }
        if modules.loading.len() >= MAX_LOADING {
            return Err(mlua::Error::RuntimeError(format!(
                "require: loading {chunk} would nest modules more than {MAX_LOADING} deep \
                 (each requires the next as it loads; G1)"
            )));
        }
        let source = match id {
            ModuleId::Game(rel) => match modules.sources.get(rel) {
                Some(text) => text.clone(),
                None => read_source(&modules.root, rel)
                    .map_err(|e| mlua::Error::RuntimeError(format!("{chunk}: {e}")))?,
            },
            ModuleId::Runtime(name) => {
                let (_, text) = RUNTIME.iter().find(|(n, _)| n == name).expect("resolved");
                text.as_bytes().to_vec()
            }
        };
        modules.by_chunk.insert(chunk.clone(), id.clone());
        modules.loading.push(id.clone());
        (source, chunk)
    };
    let result = check_source(&source)
        .map_err(|why| mlua::Error::RuntimeError(format!("{chunk}: {why}")))
        .and_then(|()| {
            let code = lua
                .load(source)
                .set_name(format!("@{chunk}"))
                .set_mode(mlua::prelude::LuaChunkMode::Text)
                .into_function()?;
            super::native::queue(lua, &code);
            code.call::<mlua::MultiValue>(native_half(lua, id)?)
        });
    let mut modules = lua.app_data_mut::<Modules>().expect("modules installed");
    modules.loading.retain(|m| m != id);
    let value = result?.into_iter().next().unwrap_or(Value::Nil);
    if value.is_nil() && module {
        return Err(mlua::Error::RuntimeError(format!(
            "{chunk}: the module returned nothing; a module returns one value (G1)"
        )));
    }
    let key = lua.create_registry_value(value.clone())?;
    modules.loaded.insert(id.clone(), key);
    Ok(value)
}

/// What a library module written half in Rust gets as its chunk's
/// argument: `@moonloop/physics` its stepper, `@moonloop/tiled` its
/// reader. Games never see it but
/// through the module.
fn native_half(lua: &Lua, id: &ModuleId) -> mlua::Result<Value> {
    match id {
        ModuleId::Runtime(name) if name == "physics" => {
            Ok(Value::Table(crate::physics::native(lua)?))
        }
        ModuleId::Runtime(name) if name == "tiled" => Ok(Value::Table(super::tiled::native(lua)?)),
        _ => Ok(Value::Nil),
    }
}

/// Reads game file `rel` through the asset door: inside the folder, links
/// resolved, at most [`MAX_SOURCE`] bytes.
///
/// # Errors
/// The door refuses it, or it cannot be read.
pub fn read_source(root: &Path, rel: &Path) -> Result<Vec<u8>, crate::Refusal> {
    let path = crate::assets::find_rel(root, rel, "file")?;
    Ok(crate::assets::read_path(
        &path,
        &rel.to_string_lossy(),
        MAX_SOURCE,
    )?)
}

/// Refuses what is not Luau source text (H10): Luau does not verify
/// bytecode, and a forged chunk runs native code in the host, so code
/// enters only as text, and at most [`MAX_SOURCE`] bytes of it.
///
/// # Errors
/// Says what the bytes are instead.
pub fn check_source(source: &[u8]) -> Result<(), Refusal> {
    if source.len() as u64 > MAX_SOURCE {
        return Err(refuse!(
            "the file is {}; a Luau file is at most {} (H10)",
            moonloop_door::sizes(source.len() as u64, MAX_SOURCE).0,
            moonloop_door::sizes(source.len() as u64, MAX_SOURCE).1
        ));
    }
    // Luau takes a chunk whose first byte is below a tab for bytecode.
    match source.first() {
        Some(&b) if b < b'\t' => Err(refuse!(
            "this is not Luau source text (it starts with the byte 0x{b:02x}); \
             code is loaded only as source, never as bytecode (H10)"
        )),
        _ => Ok(()),
    }
}

/// Modules taken out of the cache by [`invalidate`], with what they had
/// loaded as, for [`restore`] to put back.
pub type Taken = Vec<(ModuleId, RegistryKey)>;

/// Takes `changed` modules, every loaded module that requires them
/// (directly or not), and `main` out of the cache, so the next `load` of
/// main runs them again. Returns what was taken, for [`restore`]; empty
/// when none of `changed` was loaded.
pub fn invalidate(lua: &Lua, changed: &[ModuleId], main: &ModuleId) -> Taken {
    let mut modules = lua.app_data_mut::<Modules>().expect("modules installed");
    // A changed module, or a file (a map) that modules read as they
    // loaded: the edges name who read it.
    let mut affected: Vec<ModuleId> = changed
        .iter()
        .filter(|id| {
            modules.loaded.contains_key(id) || modules.edges.iter().any(|(_, to)| to == *id)
        })
        .cloned()
        .collect();
    if affected.is_empty() {
        return Vec::new();
    }
    // Walk the requires backwards until nothing new is reached.
    let mut i = 0;
    while i < affected.len() {
        let target = affected[i].clone();
        for (from, to) in &modules.edges {
            if *to == target && !affected.contains(from) {
                affected.push(from.clone());
            }
        }
        i += 1;
    }
    if !affected.contains(main) {
        affected.push(main.clone());
    }
    affected
        .into_iter()
        .filter_map(|id| modules.loaded.remove(&id).map(|key| (id, key)))
        .collect()
}

/// Puts back what [`invalidate`] took, undoing a failed reload.
pub fn restore(lua: &Lua, saved: Taken) {
    let mut modules = lua.app_data_mut::<Modules>().expect("modules installed");
    for (id, key) in saved {
        modules.loaded.insert(id, key);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // rule: G1
    #[test]
    fn the_runtime_list_is_the_runtime_folder() {
        // The checker reads the folder (tools/check/build.rs); the host
        // embeds this list: a module added to one is in the other.
        let folder = Path::new(env!("CARGO_MANIFEST_DIR")).join("runtime");
        let mut files: Vec<String> = std::fs::read_dir(&folder)
            .unwrap()
            .filter_map(|e| {
                let name = e.ok()?.file_name().into_string().ok()?;
                let module = name.strip_suffix(".luau")?;
                (!module.contains('.')).then(|| module.to_string())
            })
            .collect();
        files.sort();
        let listed: Vec<&str> = RUNTIME.iter().map(|(name, _)| *name).collect();
        assert_eq!(listed, files);
        for (name, source) in RUNTIME {
            let on_disk = std::fs::read_to_string(folder.join(format!("{name}.luau"))).unwrap();
            assert_eq!(*source, on_disk, "{name}");
        }
    }

    #[test]
    fn join_stays_inside_the_root() {
        assert_eq!(join(Path::new("a"), "./b"), Some(PathBuf::from("a/b")));
        assert_eq!(join(Path::new("a"), "../b"), Some(PathBuf::from("b")));
        assert_eq!(join(Path::new("a"), "../../b"), None);
        assert_eq!(join(Path::new(""), "../x"), None);
    }
}
