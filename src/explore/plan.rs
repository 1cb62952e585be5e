//! Input plans (rule X2 in docs/exploring.md): the input a run of
//! exploration gives the game, made from a seed and the game's declared
//! actions, as events on frames: presses held for varied lengths, pointer
//! moves inside the screen, the first pad's sticks and triggers, typed
//! text.

use crate::input::{Axis, InputEvent, Key, PAD_AXES, Script, TextPiece, When};

/// SplitMix64: small, fast, and the same numbers on every machine.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// The generator for run `run` of a search from `seed`: each run's
    /// input depends on the seed and its index alone, so a run can be
    /// made again wherever it falls.
    pub fn for_run(seed: u64, run: u64) -> Rng {
        let mut mixed = Rng(seed ^ run.wrapping_mul(0x9e37_79b9_7f4a_7c15));
        mixed.bits();
        mixed
    }

    /// The next 64 random bits.
    pub fn bits(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A whole number below `n` (n > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.bits() % n.max(1)
    }

    /// A number in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.bits() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// One event of a plan, on its frame (from 1).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Step {
    /// The frame it is queued on.
    pub frame: u64,
    /// The event.
    pub event: InputEvent,
}

/// What a search may press and where it may point.
#[derive(Debug, Clone)]
pub struct Inputs {
    /// The keys the game's actions bind (or a few common ones when it
    /// declares none).
    pub keys: Vec<Key>,
    /// The logical screen, for pointer moves.
    pub size: (u32, u32),
}

impl Inputs {
    /// What a game with `actions` on a `size` screen may be given.
    pub fn of<'a>(
        actions: impl IntoIterator<Item = &'a crate::input::Action>,
        size: (u32, u32),
    ) -> Inputs {
        let mut keys: Vec<Key> = actions.into_iter().flat_map(|a| a.keys()).collect();
        keys.sort_by_key(|k| k.name());
        keys.dedup();
        if keys.is_empty() {
            keys = ["left", "right", "up", "down", "space", "return", "z", "x"]
                .into_iter()
                .filter_map(Key::from_name)
                .collect();
        }
        Inputs { keys, size }
    }
}

/// Makes a plan of `frames` frames from `rng`, continuing `prefix` (its
/// steps kept, from frame `from` on new ones): each frame may press a
/// key not held, held 1 to 90 frames (most short, a few long), or move
/// the pointer, a stick or trigger of the first pad (a third of the
/// time back to rest), or type a few characters.
pub fn make(inputs: &Inputs, rng: &mut Rng, frames: u64, prefix: &[Step], from: u64) -> Vec<Step> {
    let mut steps: Vec<Step> = prefix.iter().copied().filter(|s| s.frame < from).collect();
    // Keys the prefix left held, and when they come up.
    let mut held: Vec<(Key, u64)> = Vec::new();
    for step in &steps {
        match step.event {
            InputEvent::Press(k) => held.push((k, u64::MAX)),
            InputEvent::Release(k) => held.retain(|(h, _)| *h != k),
            _ => {}
        }
    }
    for (key, _) in std::mem::take(&mut held) {
        // A key the prefix still holds stays down a while longer: what
        // it was doing may be what reaches further.
        let up = from + 1 + rng.below(90);
        held.push((key, up));
    }
    // Presses come every few frames, at a rate of its own for each run.
    let rate = 0.03 + 0.2 * rng.unit();
    for frame in from.max(1)..=frames {
        held.retain(|&(key, up)| {
            if up == frame {
                steps.push(Step {
                    frame,
                    event: InputEvent::Release(key),
                });
                false
            } else {
                true
            }
        });
        if rng.unit() < rate && !inputs.keys.is_empty() {
            let key = inputs.keys[rng.below(inputs.keys.len() as u64) as usize];
            if !held.iter().any(|(k, _)| *k == key) {
                let hold = match rng.below(10) {
                    0 => 30 + rng.below(60),
                    1..=3 => 6 + rng.below(24),
                    _ => 1 + rng.below(6),
                };
                steps.push(Step {
                    frame,
                    event: InputEvent::Press(key),
                });
                held.push((key, frame + hold));
            }
        }
        if rng.unit() < 0.01 {
            let (w, h) = inputs.size;
            let x = (rng.unit() * w as f64).floor();
            let y = (rng.unit() * h as f64).floor();
            steps.push(Step {
                frame,
                event: InputEvent::Move(x, y),
            });
        }
        if rng.unit() < 0.005 {
            let axis = rng.below(PAD_AXES.len() as u64) as usize;
            let trigger = PAD_AXES[axis].ends_with("trigger");
            let value = match rng.below(3) {
                0 => 0.0,
                _ if trigger => (rng.unit() * 100.0).round() / 100.0,
                _ => (rng.unit() * 200.0).round() / 100.0 - 1.0,
            };
            let pad = Axis { pad: Some(1), axis };
            steps.push(Step {
                frame,
                event: InputEvent::Axis(pad, value),
            });
        }
        if rng.unit() < 0.003 {
            let typed: String = (0..1 + rng.below(3))
                .map(|_| TYPED[rng.below(TYPED.len() as u64) as usize])
                .collect();
            for piece in TextPiece::split(&typed) {
                steps.push(Step {
                    frame,
                    event: InputEvent::Text(piece),
                });
            }
        }
    }
    steps
}

/// What a run types: letters, digits, a space, punctuation, and a few
/// characters past ASCII (a game's text handling meets those first).
const TYPED: &[char] = &[
    'a', 'e', 'k', 'z', 'A', 'Q', '0', '7', ' ', '.', '-', '?', 'é', 'ß', 'ж', '中', '🙂',
];

/// The plan as a script the engine feeds.
pub fn script(steps: &[Step]) -> Script {
    Script::new(
        steps
            .iter()
            .map(|s| (When::Frame(s.frame), s.event))
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan_of(inputs: &Inputs, run: u64, frames: u64) -> Vec<Step> {
        make(inputs, &mut Rng::for_run(42, run), frames, &[], 1)
    }

    #[test]
    fn a_seed_and_an_index_make_the_same_plan_anywhere() {
        let inputs = Inputs::of(&[], (320, 180));
        let plan = |run| make(&inputs, &mut Rng::for_run(42, run), 600, &[], 1);
        assert_eq!(plan(3), plan(3));
        assert_ne!(plan(3), plan(4));
        let p = plan(3);
        assert!(
            p.windows(2).all(|w| w[0].frame <= w[1].frame),
            "in frame order"
        );
        assert!(p.iter().any(|s| matches!(s.event, InputEvent::Press(_))));
        let long = plan_of(&inputs, 7, 6000);
        assert!(long.iter().any(|s| matches!(s.event, InputEvent::Axis(..))));
        assert!(long.iter().any(|s| matches!(s.event, InputEvent::Text(_))));
        assert!(long.iter().all(|s| match s.event {
            InputEvent::Axis(a, v) if PAD_AXES[a.axis].ends_with("trigger") =>
                (0.0..=1.0).contains(&v),
            InputEvent::Axis(_, v) => (-1.0..=1.0).contains(&v),
            _ => true,
        }));
        // Every press is let go within 90 frames, or by the plan's end.
        for (i, s) in p.iter().enumerate() {
            if let InputEvent::Press(k) = s.event {
                let up = p[i..].iter().find(|t| t.event == InputEvent::Release(k));
                assert!(up.is_none_or(|t| t.frame - s.frame <= 90), "{s:?}");
            }
        }
    }
}
