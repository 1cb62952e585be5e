//! Which code ran which frames (rule R1): history's stretches of frames,
//! each with the generation of code that ran it (0 at load, one more at
//! each reload) and whether the state was migrated by that code's
//! `reload(state)` before its first frame.
//!
//! A frame of the past is run again with the code that ran it, so the
//! past history shows is the past that happened, whatever was reloaded
//! since.

use std::collections::VecDeque;

/// A stretch of frames run by one generation of code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Span {
    /// The first frame it ran.
    pub first: u64,
    /// The generation of code that ran it.
    pub generation: u32,
    /// Whether that code's `reload(state)` migrated the state before its
    /// first frame.
    pub migrated: bool,
}

/// The stretches of history's frames, oldest first; they cover every
/// frame from the first's on.
#[derive(Debug, Clone)]
pub struct Spans(VecDeque<Span>);

impl Spans {
    /// Spans whose frames from `first` on ran `generation`.
    pub fn new(first: u64, generation: u32) -> Spans {
        Spans(VecDeque::from([Span {
            first,
            generation,
            migrated: false,
        }]))
    }

    /// Says that frame `frame` (the next to be recorded) runs
    /// `generation`, migrated first when `migrated`.
    #[inline]
    pub fn enter(&mut self, frame: u64, generation: u32, migrated: bool) {
        let last = self.0.back().copied();
        if last.is_some_and(|s| s.generation == generation && !migrated) {
            return;
        }
        if last.is_some_and(|s| s.first >= frame) {
            self.0.pop_back();
        }
        self.0.push_back(Span {
            first: frame,
            generation,
            migrated,
        });
    }

    /// The span frame `frame` is in.
    #[inline]
    pub fn of(&self, frame: u64) -> Span {
        self.0
            .iter()
            .rev()
            .find(|s| s.first <= frame)
            .or(self.0.front())
            .copied()
            .expect("spans are never empty")
    }

    /// The first frame `generation` or a later one ran, if any did.
    pub fn first_of(&self, generation: u32) -> Option<u64> {
        self.0
            .iter()
            .find(|s| s.generation >= generation)
            .map(|s| s.first)
    }

    /// Forgets the spans of frames after `frame` (a fork, a rewrite).
    pub fn truncate_after(&mut self, frame: u64) {
        while self.0.len() > 1 && self.0.back().is_some_and(|s| s.first > frame) {
            self.0.pop_back();
        }
    }

    /// Forgets the spans wholly before `frame` (the oldest frames dropped).
    pub fn drop_before(&mut self, frame: u64) {
        while self.0.len() > 1 && self.0[1].first <= frame {
            self.0.pop_front();
        }
    }

    /// Takes the spans of frames after `frame` out, for
    /// [`Spans::put_back`]: the last span before them stays.
    pub fn split_off_after(&mut self, frame: u64) -> Vec<Span> {
        let keep = self.0.iter().filter(|s| s.first <= frame).count().max(1);
        self.0.split_off(keep).into()
    }

    /// Puts spans taken by [`Spans::split_off_after`] back, after the
    /// spans of frames up to theirs were truncated to what they were.
    pub fn put_back(&mut self, after: u64, spans: Vec<Span>) {
        self.truncate_after(after);
        self.0.extend(spans);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // rule: R1
    #[test]
    fn each_frame_knows_the_code_that_ran_it() {
        let mut spans = Spans::new(1, 0);
        spans.enter(1, 0, false);
        spans.enter(2, 0, false);
        spans.enter(50, 1, true);
        spans.enter(51, 1, false);
        spans.enter(80, 2, false);
        assert_eq!(spans.of(1).generation, 0);
        assert_eq!(spans.of(49).generation, 0);
        assert_eq!(
            spans.of(50),
            Span {
                first: 50,
                generation: 1,
                migrated: true
            }
        );
        assert_eq!(spans.of(79).generation, 1);
        assert_eq!(spans.of(1000).generation, 2);
        assert_eq!(spans.first_of(1), Some(50));
        // A fork at 60 drops what came after it; live play goes on under 2.
        spans.truncate_after(59);
        spans.enter(60, 2, false);
        assert_eq!(spans.of(60).generation, 2);
        assert_eq!(spans.of(55).generation, 1);
        // Splitting and putting back leaves them as they were.
        let before = spans.clone();
        let tail = spans.split_off_after(55);
        spans.enter(56, 3, true);
        spans.put_back(55, tail);
        assert_eq!(format!("{:?}", spans.0), format!("{:?}", before.0));
        spans.drop_before(59);
        assert_eq!(spans.of(59).generation, 1, "the span frame 59 is in stays");
        spans.drop_before(60);
        assert_eq!(spans.0.len(), 1);
    }

    #[test]
    fn entering_the_same_frame_twice_keeps_the_last_word() {
        let mut spans = Spans::new(1, 0);
        spans.enter(10, 1, true);
        spans.enter(10, 2, true);
        assert_eq!(spans.of(10).generation, 2);
        assert_eq!(spans.of(9).generation, 0);
    }
}
