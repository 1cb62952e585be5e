//! The kinds of file a game is made of (rules G1, H8, H10): each
//! extension, what loads it, and what a change to it means. The asset
//! store, the reload watcher, the sound bank and the checker read this
//! one table, so a kind cannot be loadable and not reloaded (a `.flac`,
//! `.ttf` or `.otf` edit was never seen, when the watcher kept a list of
//! its own).

use std::path::Path;

/// What a kind of file is to the host.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Luau source: a change reloads the code (H8).
    Code,
    /// A PNG: the screen's images and the scene's textures load it again.
    Image,
    /// A glTF model, or a buffer beside it: the models using it load again.
    Model,
    /// A sound: the sound bank forgets it and loads it at its next play.
    Sound,
    /// A font: text laid out with it is laid out again.
    Font,
    /// A Tiled map or tileset (`@moonloop/tiled`): the modules that read
    /// it as they loaded load again, as if their code had changed.
    Map,
}

/// Every extension a game's files may have that the host loads, and its
/// kind. (Lower case; names are matched without regard to case.)
pub const KINDS: &[(&str, Kind)] = &[
    ("luau", Kind::Code),
    ("lua", Kind::Code),
    ("png", Kind::Image),
    ("gltf", Kind::Model),
    ("glb", Kind::Model),
    ("bin", Kind::Model),
    ("wav", Kind::Sound),
    ("ogg", Kind::Sound),
    ("flac", Kind::Sound),
    ("ttf", Kind::Font),
    ("otf", Kind::Font),
    ("ttc", Kind::Font),
    ("tmj", Kind::Map),
    ("tsj", Kind::Map),
];

/// The kind of the file at `path`, by its extension; none for a file the
/// host never loads (a note, a replay log).
pub fn kind_of(path: &Path) -> Option<Kind> {
    let ext = path.extension()?.to_str()?;
    KINDS
        .iter()
        .find(|(x, _)| x.eq_ignore_ascii_case(ext))
        .map(|(_, kind)| *kind)
}

/// The extensions of `kind`, in the table's order.
pub fn extensions(kind: Kind) -> impl Iterator<Item = &'static str> {
    KINDS
        .iter()
        .filter(move |(_, k)| *k == kind)
        .map(|(x, _)| *x)
}

#[cfg(test)]
mod tests {
    use super::*;

    // rule: H8
    #[test]
    fn every_kind_the_host_loads_is_in_the_table() {
        for (name, kind) in [
            ("main.luau", Kind::Code),
            ("old.LUA", Kind::Code),
            ("ship.png", Kind::Image),
            ("ship.gltf", Kind::Model),
            ("song.flac", Kind::Sound),
            ("font.ttf", Kind::Font),
            ("font.otf", Kind::Font),
            ("maps/one.tmj", Kind::Map),
            ("maps/tiles.tsj", Kind::Map),
        ] {
            assert_eq!(kind_of(Path::new(name)), Some(kind), "{name}");
        }
        assert_eq!(kind_of(Path::new("run.replay")), None);
        // The sound decoder's formats are the table's sounds.
        let sounds: Vec<_> = extensions(Kind::Sound).collect();
        assert_eq!(sounds, crate::sound::decode::EXTENSIONS);
    }
}
