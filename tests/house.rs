//! How the host's code is kept, checked so a change that breaks a rule
//! says so: no public function or field hands back `Result<_, String>` (a
//! refusal is a `Refusal`, an error an `Error`: types, not strings, cross
//! a module's edge), no error variant is a bare string (its place, its
//! path or what was waited for are fields a caller can read), and no
//! lifetime is erased with `transmute`.
//!
//! There is no cap on a file's length: a module holds one idea, whatever
//! its length (a 600-line cap once here cut files in two by count, and one
//! `impl` ended up spread over six files; issue #48 dropped it).

use std::path::{Path, PathBuf};

fn sources(dir: &Path, into: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, into);
        } else if path.extension().is_some_and(|e| e == "rs") {
            into.push(path);
        }
    }
}

/// Every Rust source of the host: the binary's and every layer's crate.
fn all_sources() -> Vec<PathBuf> {
    let mut files = Vec::new();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    sources(&root.join("src"), &mut files);
    sources(&root.join("crates"), &mut files);
    assert!(files.len() > 100, "src/ was not found");
    files
}

// Unsafe where it earns its place (STYLE.md): borrowed jobs and lent
// handles carry their borrows as raw pointers with a SAFETY comment, never
// a lifetime forged by `transmute`.
#[test]
fn no_lifetime_is_transmuted() {
    let found: Vec<String> = all_sources()
        .into_iter()
        .filter(|path| {
            std::fs::read_to_string(path)
                .unwrap()
                .contains(concat!("trans", "mute"))
        })
        .map(|path| path.display().to_string())
        .collect();
    assert!(found.is_empty(), "{found:#?}");
}

/// The public signatures and fields of `text` that end in a
/// `Result<_, String>`: from each `pub` item to its body or its end.
fn string_results(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for (at, _) in text.match_indices("pub") {
        let rest = &text[at..];
        let starts_item = rest.starts_with("pub fn")
            || rest.starts_with("pub(crate) fn")
            || rest.starts_with("pub(super) fn")
            || rest[3..].starts_with(' ')
                && rest[4..]
                    .split_whitespace()
                    .next()
                    .is_some_and(|w| w.ends_with(':'));
        if !starts_item || text[..at].ends_with("//") {
            continue;
        }
        let end = rest.find(['{', ';', '\n']).unwrap_or(rest.len());
        // A signature may go on over lines up to its body.
        let end = if rest.contains(" fn ") || rest.starts_with("pub fn") {
            rest.find(['{', ';']).unwrap_or(end)
        } else {
            end
        };
        let item = rest[..end].split_whitespace().collect::<Vec<_>>().join(" ");
        if item.contains(", String>") && item.contains("Result<") {
            found.push(item);
        }
    }
    found
}

#[test]
fn the_house_rules_find_what_they_look_for() {
    let bad = "pub fn parse(\n    text: &str,\n) -> Result<u8, String> {\n}\npub outcome: Result<String, String>,\nfn private() -> Result<(), String> {}\n";
    assert_eq!(string_results(bad).len(), 2, "{:?}", string_results(bad));
    assert!(string_results("pub fn parse(text: &str) -> Result<u8, Refusal> {").is_empty());
}

#[test]
fn no_public_function_or_field_hands_back_a_string_error() {
    let mut found = Vec::new();
    for path in all_sources() {
        let text = std::fs::read_to_string(&path).unwrap();
        for item in string_results(&text) {
            found.push(format!("{}: {item}", path.display()));
        }
    }
    assert!(found.is_empty(), "{found:#?}");
}

/// The variants of the error enums in `text` (those deriving `Error`)
/// that carry nothing but a string: `Name(String)`.
fn bare_string_variants(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for (at, _) in text.match_indices("#[derive(") {
        let derive = &text[at..];
        let Some(close) = derive.find(")]") else {
            continue;
        };
        if !derive[..close].contains("Error") {
            continue;
        }
        let after = &derive[close..];
        // The item the derive is on: an enum, after its attributes.
        let Some(open) = after.find('{') else {
            continue;
        };
        let head = &after[..open];
        let Some(name) = head.split("enum ").nth(1) else {
            continue;
        };
        let mut depth = 0;
        let mut end = open;
        for (i, c) in after[open..].char_indices() {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                _ => {}
            }
            if depth == 0 {
                end = open + i;
                break;
            }
        }
        for line in after[open..end].lines() {
            let line = line.trim();
            for bare in ["(String)", "(&'static str)", "(Box<str>)"] {
                if line.ends_with(&format!("{bare},")) && !line.starts_with("//") {
                    found.push(format!("{}::{line}", name.trim()));
                }
            }
        }
    }
    found
}

#[test]
fn the_bare_string_rule_finds_what_it_looks_for() {
    let bad = "#[derive(Debug, thiserror::Error)]\npub enum Oops {\n    /// Doc.\n    #[error(\"{0}\")]\n    Script(String),\n    Path { path: String },\n    Typed(Failure),\n}\n#[derive(Debug)]\nenum Plain {\n    Name(String),\n}\n";
    assert_eq!(bare_string_variants(bad), vec!["Oops::Script(String),"]);
}

// Typed errors per crate (#48): an error says where and what as fields
// (`Failure { at, what }`, `Misuse { argument, what }`), so a caller can
// match on them and the one line is made at the edge.
#[test]
fn no_error_variant_is_a_bare_string() {
    let mut found = Vec::new();
    for path in all_sources() {
        let text = std::fs::read_to_string(&path).unwrap();
        for variant in bare_string_variants(&text) {
            found.push(format!("{}: {variant}", path.display()));
        }
    }
    assert!(found.is_empty(), "{found:#?}");
}
