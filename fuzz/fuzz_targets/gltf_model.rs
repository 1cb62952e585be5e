//! Any bytes as a game's `.gltf` or `.glb` model load through the asset
//! door or are refused with a line (rule H10); the buffers they name are
//! resolved by the door, never by the glTF crate, and nothing outside the
//! folder is read (the secret beside it never shows up in a model).
#![no_main]

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use moonloop::assets::gltf;

fn folder() -> &'static tempfile::TempDir {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| {
        // The glTF crate still panics on some documents (its validator
        // indexed a missing accessor; found here). The host contains those
        // panics and refuses the model; only a panic it does not contain
        // is a finding, so libFuzzer's hook sees only those.
        moonloop::error::forward_uncontained_panics();
        let dir = tempfile::tempdir().unwrap();
        let game = dir.path().join("game");
        std::fs::create_dir_all(&game).unwrap();
        // A buffer a fuzzed model may name: three corners of a triangle.
        let corners: Vec<u8> = [0f32, 0., 0., 1., 0., 0., 0., 1., 0.]
            .iter()
            .flat_map(|f| f.to_le_bytes())
            .collect();
        std::fs::write(game.join("b.bin"), corners).unwrap();
        std::fs::write(dir.path().join("secret.bin"), [0x5a; 64]).unwrap();
        dir
    })
}

fuzz_target!(|bytes: &[u8]| {
    let game = folder().path().join("game");
    for name in ["m.gltf", "m.glb"] {
        std::fs::write(game.join(name), bytes).unwrap();
        match gltf::load(Some(&game), name) {
            Ok(model) => {
                assert!(!model.positions.is_empty());
                assert_eq!(model.positions.len(), model.normals.len());
                assert_eq!(model.positions.len(), model.uvs.len());
                assert!(model.indices.iter().all(|&i| (i as usize) < model.positions.len()));
                assert!(model.positions.len() <= gltf::MAX_VERTICES);
            }
            Err(why) => assert!(why.contains(name), "{why}"),
        }
    }
});
