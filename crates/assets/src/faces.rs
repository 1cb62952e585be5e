//! Faces: how many fonts a font file holds, checked before any is read
//! (rule H10). A collection's header can claim millions of faces, and each
//! is set up when it is loaded, so the claim is held to a bound first.

use cosmic_text::fontdb::Database;
use moonloop_core::Refusal;

/// The most faces one font file may hold (a collection, `.ttc`): a
/// header can claim millions, and each is set up when it is loaded.
pub const MAX_FACES: u32 = 16;

/// Refuses a font collection whose header claims more than [`MAX_FACES`]
/// faces, or more offsets than its bytes hold, before any face is read.
///
/// # Errors
/// One line saying how many it claims.
pub fn check_faces(bytes: &[u8]) -> Result<(), Refusal> {
    if bytes.get(..4) != Some(b"ttcf") {
        return Ok(());
    }
    let count = bytes
        .get(8..12)
        .map_or(0, |b| u32::from_be_bytes(b.try_into().expect("4 bytes")));
    if count > MAX_FACES {
        return Err(refuse!(
            "the font collection claims {count} faces; a font file holds at most {MAX_FACES} (H10)"
        ));
    }
    if 12 + 4 * count as usize > bytes.len() {
        return Err("the font collection is cut short".into());
    }
    Ok(())
}

/// Counts the font faces in `bytes` (0: not a font file).
pub fn count_faces(bytes: &[u8]) -> usize {
    if check_faces(bytes).is_err() {
        return 0;
    }
    moonloop_core::contain::contain_panic(|| {
        let mut db = Database::new();
        db.load_font_data(bytes.to_vec());
        db.len()
    })
    .unwrap_or(0)
}
