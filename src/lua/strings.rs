//! Luau strings read as Rust text once: a handle that reads the same
//! strings every frame (style field names, color names, a label, a font
//! file's name) finds them by address instead of copying them again, so
//! drawing allocates nothing in steady state.
//!
//! Luau interns its strings, so one address is one content for as long as
//! the string lives; the cache holds each string it knows, so it lives.
//! The cache is bounded (H10): past its caps it starts afresh.

use std::cell::RefCell;
use std::rc::Rc;

use mlua::LuaString;
// Addresses hash fast and a game cannot choose them: no need for SipHash.
use rustc_hash::FxHashMap as HashMap;

/// The most strings kept.
const MAX_STRINGS: usize = 512;

/// The most bytes of text kept; longer strings are read every time.
const MAX_BYTES: usize = 1 << 20;

/// Strings read so far, by address.
pub struct Strings {
    known: RefCell<Known>,
}

struct Known {
    by_address: HashMap<usize, (LuaString, Rc<str>)>,
    bytes: usize,
}

impl Default for Strings {
    fn default() -> Self {
        Strings {
            known: RefCell::new(Known {
                by_address: HashMap::with_capacity_and_hasher(MAX_STRINGS, Default::default()),
                bytes: 0,
            }),
        }
    }
}

impl Strings {
    /// Returns `s` as text (invalid UTF-8 replaced), copying it only the
    /// first time it is seen.
    ///
    /// # Errors
    /// The string is longer than `max` bytes: its length comes back,
    /// checked before anything is copied.
    pub fn get(&self, s: &LuaString, max: usize) -> Result<Rc<str>, usize> {
        let address = s.to_pointer() as usize;
        let mut known = self.known.borrow_mut();
        if let Some((_, text)) = known.by_address.get(&address) {
            if text.len() > max {
                return Err(text.len());
            }
            return Ok(text.clone());
        }
        let len = s.as_bytes().len();
        if len > max {
            return Err(len);
        }
        let text: Rc<str> = s.to_string_lossy().into();
        if text.len() > MAX_BYTES / 16 {
            return Ok(text);
        }
        if known.by_address.len() >= MAX_STRINGS || known.bytes + text.len() > MAX_BYTES {
            known.by_address.clear();
            known.bytes = 0;
        }
        known.bytes += text.len();
        known.by_address.insert(address, (s.clone(), text.clone()));
        Ok(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_string_is_read_once_and_others_apart() {
        let lua = mlua::Lua::new();
        let strings = Strings::default();
        let a = lua.create_string("white").unwrap();
        let b = lua.create_string("white").unwrap();
        let c = lua.create_string("black").unwrap();
        let first = strings.get(&a, 64).unwrap();
        assert!(
            Rc::ptr_eq(&first, &strings.get(&b, 64).unwrap()),
            "interned: one entry"
        );
        assert_eq!(&*strings.get(&c, 64).unwrap(), "black");
        assert_eq!(strings.get(&c, 4), Err(5), "too long, known or not");
        for i in 0..2 * MAX_STRINGS {
            let s = lua.create_string(format!("s{i}")).unwrap();
            assert_eq!(&*strings.get(&s, 64).unwrap(), format!("s{i}"));
        }
        assert!(strings.known.borrow().by_address.len() <= MAX_STRINGS);
    }
}
