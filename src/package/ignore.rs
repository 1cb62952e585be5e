//! What `moonloop build` leaves out of a game: the patterns of the game
//! folder's `.moonloopignore`, one a line, in the usual glob syntax of an
//! ignore file (rule H12):
//!
//! - `*` matches any run of characters but `/`, `?` one character but
//!   `/`, and `**` any run of folders (`art/**/*.psd`);
//! - a pattern with no `/` but a trailing one matches a name at any depth
//!   (`*.psd`, `notes.txt`); one with a `/` elsewhere is from the game
//!   folder (`tests/`, `/draft.luau`);
//! - a trailing `/` matches folders only; a line starting `#` is a
//!   comment; a line starting `!` takes a file back in.
//!
//! Hidden files (a `.git`, the ignore file itself) are never packed.

use crate::Refusal;

/// The ignore file's name, in the game folder.
pub const FILE: &str = ".moonloopignore";

/// The most patterns one ignore file holds.
const MAX_PATTERNS: usize = 1000;

#[derive(Debug, Clone)]
struct Pattern {
    /// The pattern's parts between `/`, anchored or not.
    parts: Vec<String>,
    anchored: bool,
    folders_only: bool,
    keep: bool,
}

/// The patterns of one ignore file.
#[derive(Debug, Clone, Default)]
pub struct Ignore(Vec<Pattern>);

impl Ignore {
    /// Reads the patterns of `text` (an ignore file).
    ///
    /// # Errors
    /// More than [`MAX_PATTERNS`] patterns.
    pub fn parse(text: &str) -> Result<Ignore, Refusal> {
        let mut patterns = Vec::new();
        for line in text.lines() {
            let line = line.trim_end();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            if patterns.len() == MAX_PATTERNS {
                return Err(refuse!("{FILE} holds more than {MAX_PATTERNS} patterns"));
            }
            let (keep, line) = match line.strip_prefix('!') {
                Some(rest) => (true, rest),
                None => (false, line),
            };
            let folders_only = line.ends_with('/');
            let body = line.trim_end_matches('/');
            let anchored = body.contains('/');
            let parts = body
                .trim_start_matches('/')
                .split('/')
                .filter(|p| !p.is_empty())
                .map(str::to_string)
                .collect::<Vec<_>>();
            if parts.is_empty() {
                continue;
            }
            patterns.push(Pattern {
                parts,
                anchored,
                folders_only,
                keep,
            });
        }
        Ok(Ignore(patterns))
    }

    /// Says whether `rel` (a path inside the game folder, parts joined by
    /// `/`) is left out; `is_dir` when it names a folder. The last pattern
    /// that matches decides.
    pub fn leaves_out(&self, rel: &str, is_dir: bool) -> bool {
        let parts: Vec<&str> = rel.split('/').collect();
        let mut out = false;
        for pattern in &self.0 {
            if pattern.folders_only && !is_dir {
                continue;
            }
            let matched = if pattern.anchored {
                matches_parts(&pattern.parts, &parts)
            } else {
                // A bare name matches the last part, at any depth.
                parts
                    .last()
                    .is_some_and(|last| glob(pattern.parts[0].as_bytes(), last.as_bytes()))
            };
            if matched {
                out = !pattern.keep;
            }
        }
        out
    }
}

/// Whether the pattern's parts match the path's parts (`**` any run).
fn matches_parts(pattern: &[String], path: &[&str]) -> bool {
    match pattern.split_first() {
        None => path.is_empty(),
        Some((first, rest)) if first == "**" => {
            (0..=path.len()).any(|skip| matches_parts(rest, &path[skip..]))
        }
        Some((first, rest)) => path.split_first().is_some_and(|(part, others)| {
            glob(first.as_bytes(), part.as_bytes()) && matches_parts(rest, others)
        }),
    }
}

/// Whether one part of a pattern (`*`, `?`, literal bytes) matches `name`.
fn glob(pattern: &[u8], name: &[u8]) -> bool {
    // The classic two-pointer match, with one star to go back to: linear
    // enough for names of at most 1024 bytes.
    let (mut p, mut n) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while n < name.len() {
        match pattern.get(p) {
            Some(b'*') => {
                star = Some((p, n));
                p += 1;
            }
            Some(&c) if c == b'?' || c == name[n] => {
                p += 1;
                n += 1;
            }
            _ => match star {
                Some((sp, sn)) => {
                    p = sp + 1;
                    n = sn + 1;
                    star = Some((sp, sn + 1));
                }
                None => return false,
            },
        }
    }
    pattern[p..].iter().all(|&c| c == b'*')
}

#[cfg(test)]
mod tests {
    use super::*;

    // rule: H12
    #[test]
    fn patterns_leave_out_what_an_ignore_file_says() {
        let ignore = Ignore::parse(
            "# source art and notes stay home\n*.psd\nnotes.txt\ntests/\n/draft.luau\nart/**/*.kra\n!keep.psd\n",
        )
        .unwrap();
        for (path, dir, out) in [
            ("art/ship.psd", false, true),
            ("ship.psd", false, true),
            ("keep.psd", false, false),
            ("notes.txt", false, true),
            ("docs/notes.txt", false, true),
            ("tests", true, true),
            ("tests", false, false),
            ("sub/tests", true, true),
            ("draft.luau", false, true),
            ("sub/draft.luau", false, false),
            ("art/a/b/c.kra", false, true),
            ("art/c.kra", false, true),
            ("main.luau", false, false),
            ("sprites/ship.png", false, false),
        ] {
            assert_eq!(ignore.leaves_out(path, dir), out, "{path}");
        }
    }

    #[test]
    fn globs_match_within_a_name() {
        assert!(glob(b"*.png", b"ship.png"));
        assert!(glob(b"s?ip*", b"ship.png"));
        assert!(!glob(b"*.png", b"ship.pngx"));
        assert!(glob(b"a*b*c", b"aXXbYYc"));
        assert!(!glob(b"a*b*c", b"aXXbYY"));
        assert!(glob(b"*", b""));
    }
}
