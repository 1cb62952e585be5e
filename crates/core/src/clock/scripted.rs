//! The scripted clocks (K3): constant, list and seeded jitter. They ignore
//! the timestamp, so an explicit advance and a watched run see the same
//! deltas.
use std::time::Instant;

use super::Clock;

/// The same delta every tick (K3).
#[derive(Debug, Clone)]
pub struct ConstantClock {
    dt: f64,
}

impl ConstantClock {
    /// Creates a clock whose every tick is worth `dt` seconds.
    pub fn new(dt: f64) -> Self {
        ConstantClock { dt }
    }
}

impl Clock for ConstantClock {
    fn tick(&mut self, _now: Instant) -> Option<f64> {
        Some(self.dt)
    }
}

/// A list of deltas, repeating or played once (K3; replays play once).
#[derive(Debug, Clone)]
pub struct ListClock {
    deltas: Vec<f64>,
    next: usize,
    repeat: bool,
}

impl ListClock {
    /// Creates a clock that cycles through `deltas` forever.
    pub fn repeating(deltas: Vec<f64>) -> Self {
        ListClock {
            deltas,
            next: 0,
            repeat: true,
        }
    }

    /// Creates a clock that gives `deltas` once, then declines every tick.
    pub fn once(deltas: Vec<f64>) -> Self {
        ListClock {
            deltas,
            next: 0,
            repeat: false,
        }
    }
}

impl Clock for ListClock {
    fn tick(&mut self, _now: Instant) -> Option<f64> {
        if self.next == self.deltas.len() {
            if !self.repeat || self.deltas.is_empty() {
                return None;
            }
            self.next = 0;
        }
        let dt = self.deltas[self.next];
        self.next += 1;
        Some(dt)
    }
}

/// Seeded random deltas in `[min, max)` (K3).
///
/// The generator is SplitMix64 (Steele, Lea and Flood, 2014): the state
/// starts at `seed` and advances by `0x9E3779B97F4A7C15` per draw; the output
/// is mixed by two xor-shift-multiply rounds. The top 53 bits of a draw
/// make a uniform `u` in `[0, 1)` and the delta is `min + (max - min) * u`.
/// Only integer arithmetic and one multiply-add in `f64` are involved, so
/// the same seed gives the same deltas on every machine.
#[derive(Debug, Clone)]
pub struct JitterClock {
    rng: SplitMix64,
    min: f64,
    max: f64,
}

impl JitterClock {
    /// Creates a clock drawing deltas in `[min, max)` from `seed`.
    pub fn new(seed: u64, min: f64, max: f64) -> Self {
        JitterClock {
            rng: SplitMix64(seed),
            min,
            max,
        }
    }
}

impl Clock for JitterClock {
    fn tick(&mut self, _now: Instant) -> Option<f64> {
        Some(self.min + (self.max - self.min) * self.rng.next_unit())
    }
}

/// The SplitMix64 generator, documented on [`JitterClock`].
#[derive(Debug, Clone)]
pub struct SplitMix64(pub u64);

impl SplitMix64 {
    /// Returns the next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Returns a uniform number in `[0, 1)` from the top 53 bits of a draw.
    pub fn next_unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn at(base: Instant, secs: f64) -> Instant {
        base + Duration::from_secs_f64(secs)
    }

    // rule: K3
    #[test]
    fn scripted_clocks_ignore_the_timestamp() {
        let base = Instant::now();
        let mut constant = ConstantClock::new(1.0 / 60.0);
        let mut list = ListClock::repeating(vec![1.0 / 30.0, 1.0 / 90.0, 1.0 / 240.0]);
        let mut deltas = Vec::new();
        for k in 0..7 {
            let now = at(base, (k * k) as f64); // wildly uneven
            assert_eq!(constant.tick(now), Some(1.0 / 60.0));
            deltas.push(list.tick(now).unwrap());
        }
        let (a, b, c) = (1.0 / 30.0, 1.0 / 90.0, 1.0 / 240.0);
        assert_eq!(deltas, vec![a, b, c, a, b, c, a], "the list repeats");
    }

    // rule: K3
    #[test]
    fn list_played_once_then_declines() {
        let mut clock = ListClock::once(vec![0.5, 0.25]);
        let now = Instant::now();
        assert_eq!(
            (clock.tick(now), clock.tick(now), clock.tick(now)),
            (Some(0.5), Some(0.25), None)
        );
    }

    // rule: K3
    #[test]
    fn jitter_same_seed_gives_the_same_deltas_everywhere() {
        // These exact values are the contract: a change to the generator
        // changes every recorded jitter run, so it must fail here first.
        let now = Instant::now();
        let mut clock = JitterClock::new(7, 0.008, 0.033);
        let deltas: Vec<f64> = (0..4).map(|_| clock.tick(now).unwrap()).collect();
        assert_eq!(
            deltas,
            vec![
                0.01774574370978179,
                0.008419707363203903,
                0.030519017015172088,
                0.02257325732570195
            ]
        );
        assert_eq!(
            SplitMix64(0).next_u64(),
            0xE220_A839_7B1D_CDAF,
            "SplitMix64 reference value"
        );
        let mut again = JitterClock::new(7, 0.008, 0.033);
        assert_eq!(again.tick(now), Some(deltas[0]));
    }

    // rule: K3
    #[test]
    fn jitter_stays_in_range() {
        let now = Instant::now();
        let mut clock = JitterClock::new(99, 0.008, 0.033);
        for _ in 0..10_000 {
            let dt = clock.tick(now).unwrap();
            assert!((0.008..0.033).contains(&dt), "{dt}");
        }
    }
}
