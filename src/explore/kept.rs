//! What a guided search keeps of what it found (rule H10): each lane's
//! features seen and the input that first reached each one, bounded in
//! count and in bytes. A game's `features` is game code, and one that
//! returns something new every frame (a frame counter, a position) would
//! otherwise have the search keep every state it saw (0.5 GB a second was
//! measured): past the bound, new features are no longer kept and the
//! search goes on from what it has, saying so once.

use std::collections::HashSet;
use std::sync::Arc;

use super::plan::Step;

/// The most features a search keeps, all lanes together.
pub const MAX_FEATURES: usize = 1_000_000;

/// The most bytes a search keeps (features, and the inputs that reached
/// them): the game's own default memory cap.
pub const MAX_BYTES: usize = crate::lua::DEFAULT_MEMORY_CAP;

/// What one kept feature costs, at most: its hash in a lane's set (with
/// the set's spare room) and its corpus entry.
const FEATURE_BYTES: usize = 64;

/// Each lane's features and the input that first reached each.
#[derive(Debug)]
pub struct Kept {
    /// A lane's features seen.
    pub seen: Vec<HashSet<u64>>,
    /// A lane's inputs that first reached a feature new to it, and the
    /// frame after the one that reached it; the features one run reached
    /// share its input.
    pub corpus: Vec<Vec<(Arc<[Step]>, u64)>>,
    features: usize,
    bytes: usize,
    limits: (usize, usize),
    /// Whether a bound was reached (said once).
    full: bool,
}

impl Kept {
    /// Keeps nothing yet, for `lanes` lanes, within [`MAX_FEATURES`] and
    /// [`MAX_BYTES`].
    pub fn new(lanes: usize) -> Kept {
        Kept::within(lanes, MAX_FEATURES, MAX_BYTES)
    }

    /// Keeps nothing yet, for `lanes` lanes, within `features` and `bytes`.
    pub fn within(lanes: usize, features: usize, bytes: usize) -> Kept {
        Kept {
            seen: vec![HashSet::new(); lanes],
            corpus: vec![Vec::new(); lanes],
            features: 0,
            bytes: 0,
            limits: (features, bytes),
            full: false,
        }
    }

    /// Takes what a run of `lane` on `steps` found: each `(frame,
    /// feature)` new to the lane is kept, while the bounds allow. Returns
    /// the line to say when this run reached a bound.
    pub fn take(&mut self, lane: usize, steps: &[Step], new: &[(u64, u64)]) -> Option<String> {
        let mut shared: Option<Arc<[Step]>> = None;
        for &(frame, feature) in new {
            if self.full {
                break;
            }
            if self.seen[lane].contains(&feature) {
                continue;
            }
            let input = shared.get_or_insert_with(|| {
                self.bytes += std::mem::size_of_val(steps);
                Arc::from(steps)
            });
            self.seen[lane].insert(feature);
            self.corpus[lane].push((Arc::clone(input), frame + 1));
            self.features += 1;
            self.bytes += FEATURE_BYTES;
            if self.features >= self.limits.0 || self.bytes >= self.limits.1 {
                self.full = true;
                return Some(format!(
                    "explore: the search keeps at most {} states and {} of what reached them, \
                     and has them; new states are no longer kept, and the search goes on from \
                     these (H10)",
                    self.limits.0,
                    moonloop_door::bytes(self.limits.1 as u64)
                ));
            }
        }
        None
    }

    /// How many features the lanes have seen between them.
    pub fn distinct(&self) -> usize {
        match self.seen.as_slice() {
            [one] => one.len(),
            lanes => lanes.iter().flatten().collect::<HashSet<_>>().len(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::{InputEvent, Key};

    fn steps(n: u64) -> Vec<Step> {
        (1..=n)
            .map(|frame| Step {
                frame,
                event: InputEvent::Press(Key::from_name("space").unwrap()),
            })
            .collect()
    }

    // rule: H10
    #[test]
    fn a_feature_new_every_frame_is_kept_up_to_the_bound_and_said_once() {
        let mut kept = Kept::within(2, 1000, usize::MAX);
        let run = steps(100);
        let mut said = Vec::new();
        for r in 0..50u64 {
            // Each run reaches 100 features no run reached before.
            let new: Vec<(u64, u64)> = (0..100).map(|f| (f, r * 100 + f)).collect();
            said.extend(kept.take((r % 2) as usize, &run, &new));
        }
        assert_eq!(kept.features, 1000, "kept up to the bound");
        assert_eq!(kept.distinct(), 1000);
        assert_eq!(said.len(), 1, "said once: {said:?}");
        assert!(said[0].contains("keeps at most 1000 states"), "{}", said[0]);
    }

    // rule: H10
    #[test]
    fn the_features_of_one_run_share_its_input_and_bytes_are_bounded() {
        let run = steps(1000);
        let new: Vec<(u64, u64)> = (0..500).map(|f| (f, f)).collect();
        let mut kept = Kept::within(1, usize::MAX, usize::MAX);
        assert_eq!(kept.take(0, &run, &new), None);
        // One copy of the run's input for its 500 features.
        let first = &kept.corpus[0][0].0;
        assert!(kept.corpus[0].iter().all(|(s, _)| Arc::ptr_eq(s, first)));
        assert!(kept.bytes < std::mem::size_of_val(run.as_slice()) + 500 * 64 + 1);
        // A byte budget is a bound too.
        let mut kept = Kept::within(1, usize::MAX, 100_000);
        let said = (0..100u64)
            .filter_map(|r| {
                let new: Vec<(u64, u64)> = (0..500).map(|f| (f, r * 500 + f)).collect();
                kept.take(0, &run, &new)
            })
            .count();
        assert_eq!(said, 1);
        assert!(kept.bytes <= 100_000 + std::mem::size_of_val(run.as_slice()) + 64);
    }
}
