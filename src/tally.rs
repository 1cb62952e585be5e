//! The errors of a run, each printed once and counted (rules H9, H10).
//!
//! A frame that fails the same way every frame prints one line, and the
//! run ends with how often it happened. A game can also fail a different
//! way every frame (a message naming the frame number), so what is kept
//! is bounded: [`MAX_KINDS`] distinct messages, found by hash, never by a
//! scan that would grow with the run. Past that, errors are counted and
//! not printed, and one line says so.

use std::collections::HashMap;

use crate::terminal::tell;

/// The most distinct messages a run prints and keeps.
pub const MAX_KINDS: usize = 1000;

/// Each distinct error of a run, counted.
#[derive(Debug, Default)]
pub struct ErrorTally {
    /// `(message, times it happened, first frame)`, in the order first seen.
    pub entries: Vec<(String, u64, u64)>,
    /// Where each message is in `entries`.
    index: HashMap<String, usize>,
    /// Errors past [`MAX_KINDS`] distinct ones: counted, not printed.
    pub unkept: u64,
}

impl ErrorTally {
    /// Counts `message` on `frame`; says whether it is new and kept.
    pub fn count(&mut self, frame: u64, message: String) -> bool {
        if let Some(&at) = self.index.get(&message) {
            self.entries[at].1 += 1;
            return false;
        }
        if self.entries.len() >= MAX_KINDS {
            if self.unkept == 0 {
                tell!(
                    "moonloop: more than {MAX_KINDS} different errors; from frame {frame} on, new ones are counted, not printed"
                );
            }
            self.unkept += 1;
            return false;
        }
        self.index.insert(message.clone(), self.entries.len());
        self.entries.push((message, 1, frame));
        true
    }

    /// Counts `err` on `frame`, printing it to stderr the first time (game
    /// text escaped, H10); returns the line as printed.
    pub fn report(&mut self, frame: u64, err: &crate::Error) -> String {
        let line = crate::terminal::line(&err.chain());
        if self.count(frame, line.clone()) {
            tell!("frame {frame}: {line}");
        }
        line
    }

    /// Prints, for each error that happened more than once, how often and
    /// since when; and how many were counted without being printed.
    pub fn summarize(&self) {
        for (message, count, first) in &self.entries {
            if *count > 1 {
                tell!("{message} (on {count} frames from frame {first})");
            }
        }
        if self.unkept > 0 {
            tell!(
                "moonloop: {} more errors past the first {MAX_KINDS} different ones were not printed",
                self.unkept
            );
        }
    }

    /// Says whether no frame failed.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty() && self.unkept == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // rule: H10
    #[test]
    fn a_run_keeps_a_bounded_number_of_different_errors() {
        let mut tally = ErrorTally::default();
        assert!(tally.is_empty());
        assert!(tally.count(1, "same".into()));
        assert!(!tally.count(2, "same".into()));
        assert_eq!(tally.entries, [("same".to_string(), 2, 1)]);
        for frame in 0..3 * MAX_KINDS as u64 {
            tally.count(frame, format!("error {frame}"));
        }
        assert_eq!(tally.entries.len(), MAX_KINDS);
        assert_eq!(tally.unkept, 2 * MAX_KINDS as u64 + 1);
        // A kept message is still counted past the bound.
        assert!(!tally.count(9, "same".into()));
        assert_eq!(tally.entries[0].1, 3);
        assert!(!tally.is_empty());
    }
}
