//! The clocks that follow real time: wall (K1) and paced (K2). Only these
//! read an `Instant`, and they read it from the caller, never themselves.
use std::time::{Duration, Instant};

use super::{Clock, PACED_MAX_BEHIND_SLOTS};

/// The real elapsed time between ticks, clamped (K1).
#[derive(Debug, Clone)]
pub struct WallClock {
    max_secs: f64,
    last: Option<Instant>,
}

impl WallClock {
    /// Creates a wall clock whose frames are worth at most `max_secs`.
    pub fn new(max_secs: f64) -> Self {
        WallClock {
            max_secs,
            last: None,
        }
    }
}

impl Clock for WallClock {
    fn tick(&mut self, now: Instant) -> Option<f64> {
        let dt = match self.last {
            // The first tick has no baseline: charging the game for time
            // before the loop began would advance it by time it never ran.
            None => 0.0,
            Some(last) => now
                .checked_duration_since(last)
                .map_or(0.0, |d| d.as_secs_f64().min(self.max_secs)),
        };
        // A timestamp behind the last one gives 0 and keeps the later
        // baseline, so no stretch of time is counted twice.
        self.last = Some(self.last.map_or(now, |last| last.max(now)));
        Some(dt)
    }

    fn resume(&mut self) {
        self.last = None;
    }

    fn is_real_time(&self) -> bool {
        true
    }
}

/// A fixed rate held on an ideal grid (K2).
///
/// Frame n is due n intervals after the first. Each delivered frame is worth
/// exactly one interval, whatever the tick's real arrival time, so the delta
/// the game integrates equals the delta the pacing targets.
///
/// To choose *which* tick takes a slot, the clock keeps a running estimate
/// of the tick period and delivers on the tick nearest the ideal instant:
/// one that comes less than half a tick period early takes the slot, since
/// the next tick would be further from it. That is what keeps float noise
/// and a few milliseconds of tick jitter from turning a 60 Hz target on a
/// 60 Hz display into an alternating 0/2 frame judder.
#[derive(Debug, Clone)]
pub struct PacedClock {
    interval: f64,
    grid: Option<Grid>,
    last_tick: Option<Instant>,
    tick_period: f64,
}

#[derive(Debug, Clone, Copy)]
struct Grid {
    start: Instant,
    /// The slot the next delivered frame fills; due `slot` intervals after `start`.
    slot: u64,
}

impl PacedClock {
    /// Creates a clock pacing at `hz` frames per second.
    ///
    /// # Panics
    /// If `hz` is not a positive finite number; [`ClockSpec`] checks this for
    /// user input.
    pub fn from_hz(hz: f64) -> Self {
        assert!(
            hz > 0.0 && hz.is_finite(),
            "paced clock needs a positive rate"
        );
        PacedClock {
            interval: 1.0 / hz,
            grid: None,
            last_tick: None,
            tick_period: 0.0,
        }
    }

    /// Returns the seconds every delivered frame is worth.
    pub fn interval(&self) -> f64 {
        self.interval
    }

    fn observe_tick(&mut self, now: Instant) {
        if let Some(last) = self.last_tick {
            let gap = now.saturating_duration_since(last).as_secs_f64();
            // A stall says nothing about the display's rate: leave it out.
            if gap > 0.0 && gap <= PACED_MAX_BEHIND_SLOTS * self.interval {
                self.tick_period = if self.tick_period == 0.0 {
                    gap
                } else {
                    self.tick_period + (gap - self.tick_period) * 0.125
                };
            }
        }
        self.last_tick = Some(now);
    }
}

impl Clock for PacedClock {
    fn step_delta(&self) -> Option<f64> {
        Some(self.interval)
    }

    fn tick(&mut self, now: Instant) -> Option<f64> {
        self.observe_tick(now);
        let Some(grid) = &mut self.grid else {
            self.grid = Some(Grid {
                start: now,
                slot: 1,
            });
            return Some(self.interval);
        };
        let elapsed = now.saturating_duration_since(grid.start).as_secs_f64();
        let early = grid.slot as f64 * self.interval - elapsed;
        let tolerance = 0.5 * self.tick_period.min(self.interval);
        if early > tolerance {
            return None;
        }
        if -early > PACED_MAX_BEHIND_SLOTS * self.interval {
            // Far behind: abandon the missed slots rather than burst through them.
            *grid = Grid {
                start: now,
                slot: 1,
            };
        } else {
            grid.slot += 1;
        }
        Some(self.interval)
    }

    fn resume(&mut self) {
        self.grid = None;
        self.last_tick = None;
    }

    fn next_due(&self) -> Option<Instant> {
        self.grid
            .map(|grid| grid.start + Duration::from_secs_f64(grid.slot as f64 * self.interval))
    }

    fn is_real_time(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::SplitMix64;

    fn at(base: Instant, secs: f64) -> Instant {
        base + Duration::from_secs_f64(secs)
    }

    fn at_ms(base: Instant, ms: u64) -> Instant {
        base + Duration::from_millis(ms)
    }

    // rule: K1
    #[test]
    fn wall_clock_first_tick_gives_zero() {
        let base = Instant::now();
        let mut clock = WallClock::new(0.25);
        assert_eq!(
            clock.tick(at_ms(base, 5000)),
            Some(0.0),
            "no baseline before the first tick"
        );
        assert_eq!(clock.tick(at_ms(base, 5010)), Some(0.01));
    }

    // rule: K1
    #[test]
    fn wall_clock_clamps_long_frames() {
        let base = Instant::now();
        let mut clock = WallClock::new(0.1);
        clock.tick(base);
        assert_eq!(
            clock.tick(at(base, 3.0)),
            Some(0.1),
            "a 3 s gap is worth the maximum"
        );
    }

    // rule: K1
    #[test]
    fn wall_clock_floors_backwards_timestamps_at_zero() {
        let base = Instant::now();
        let mut clock = WallClock::new(0.25);
        clock.tick(at(base, 1.0));
        assert_eq!(
            clock.tick(at(base, 0.5)),
            Some(0.0),
            "a timestamp behind gives 0"
        );
        assert_eq!(
            clock.tick(at(base, 1.25)),
            Some(0.25),
            "the later baseline is kept, so no time is counted twice"
        );
    }

    // rule: K1
    #[test]
    fn wall_clock_gives_zero_after_resume() {
        let base = Instant::now();
        let mut clock = WallClock::new(0.25);
        clock.tick(base);
        clock.tick(at(base, 0.016));
        clock.resume();
        assert_eq!(
            clock.tick(at_ms(base, 10_000)),
            Some(0.0),
            "first tick after resume"
        );
        assert_eq!(clock.tick(at_ms(base, 10_020)), Some(0.02));
    }

    fn count_delivered(clock: &mut PacedClock, ticks: impl Iterator<Item = Instant>) -> Vec<bool> {
        ticks.map(|t| clock.tick(t).is_some()).collect()
    }

    // rule: K2
    #[test]
    fn paced_30_on_60_hz_ticks_delivers_every_other_tick() {
        let base = Instant::now();
        let mut clock = PacedClock::from_hz(30.0);
        let delivered = count_delivered(&mut clock, (0..10_000).map(|k| at(base, k as f64 / 60.0)));
        for (k, &d) in delivered.iter().enumerate() {
            assert_eq!(d, k % 2 == 0, "tick {k} of 10,000");
        }
    }

    // rule: K2
    #[test]
    fn paced_delivers_exactly_one_interval_per_frame() {
        let base = Instant::now();
        let mut clock = PacedClock::from_hz(30.0);
        for k in 0..100 {
            if let Some(dt) = clock.tick(at(base, k as f64 / 60.0 + 0.0013)) {
                assert_eq!(dt, 1.0 / 30.0, "tick {k}");
            }
        }
    }

    // rule: K2
    #[test]
    fn paced_60_on_jittered_60_hz_ticks_delivers_every_tick() {
        let base = Instant::now();
        let mut clock = PacedClock::from_hz(60.0);
        let mut jitter = SplitMix64(42);
        let ticks = (0..10_000).map(|k| {
            let offset = (jitter.next_unit() * 2.0 - 1.0) * 0.002; // ±2 ms
            at(base, 1.0 + k as f64 / 60.0 + offset)
        });
        let delivered = count_delivered(&mut clock, ticks);
        let declined: Vec<usize> = delivered
            .iter()
            .enumerate()
            .filter(|(_, d)| !**d)
            .map(|(k, _)| k)
            .collect();
        assert!(declined.is_empty(), "declined ticks: {declined:?}");
    }

    // rule: K2
    #[test]
    fn paced_declines_early_ticks() {
        let base = Instant::now();
        let mut clock = PacedClock::from_hz(10.0);
        assert_eq!(
            clock.tick(base),
            Some(0.1),
            "the first tick starts the grid"
        );
        assert_eq!(clock.tick(at(base, 0.01)), None, "90 ms early");
        assert_eq!(clock.tick(at(base, 0.05)), None, "50 ms early");
        assert_eq!(clock.tick(at(base, 0.1)), Some(0.1), "on time");
    }

    // rule: K2
    #[test]
    fn paced_clock_holds_rate_when_frames_overrun() {
        // Ticks every millisecond, but every fifth frame the loop stalls for
        // 25 ms after delivering. The grid makes the next waits shorter, so
        // 10 s still holds 600 frames.
        let base = Instant::now();
        let mut clock = PacedClock::from_hz(60.0);
        let (mut t, mut frames) = (0.0, 0);
        while t < 10.0 {
            if clock.tick(at(base, t)).is_some() {
                frames += 1;
                if frames % 5 == 0 {
                    t += 0.025;
                }
            }
            t += 0.001;
        }
        assert!(
            (599..=601).contains(&frames),
            "{frames} frames in 10 s at 60 Hz"
        );
    }

    // rule: K2
    #[test]
    fn paced_clock_abandons_grid_after_a_stall() {
        // 240 Hz ticks drive a 60 Hz clock; after 1 s of play the loop
        // stalls for 2 s. The second after the stall holds 60 frames, not
        // the 120 missed ones burst through at the tick rate.
        let base = Instant::now();
        let mut clock = PacedClock::from_hz(60.0);
        let mut delivered_in = |from: f64, to: f64| {
            let ticks =
                ((from * 240.0) as u64..(to * 240.0) as u64).map(|k| at(base, k as f64 / 240.0));
            count_delivered(&mut clock, ticks)
                .iter()
                .filter(|d| **d)
                .count()
        };
        assert_eq!(delivered_in(0.0, 1.0), 60, "before the stall");
        let after = delivered_in(3.0, 4.0);
        assert!(
            (60..=61).contains(&after),
            "{after} frames in the second after a 2 s stall"
        );
    }

    // rule: K2
    #[test]
    fn paced_slow_ticks_give_one_frame_per_tick() {
        let base = Instant::now();
        let mut clock = PacedClock::from_hz(60.0);
        for k in 0..1000 {
            assert_eq!(
                clock.tick(at(base, k as f64 / 30.0)),
                Some(1.0 / 60.0),
                "tick {k}"
            );
        }
    }

    // rule: K2
    #[test]
    fn paced_undivided_rate_takes_the_nearest_tick() {
        // 40 Hz on 120 Hz ticks: every third tick, exactly.
        let base = Instant::now();
        let mut clock = PacedClock::from_hz(40.0);
        let delivered = count_delivered(&mut clock, (0..1200).map(|k| at(base, k as f64 / 120.0)));
        for (k, &d) in delivered.iter().enumerate() {
            assert_eq!(d, k % 3 == 0, "tick {k}");
        }
        // 50 Hz on 60 Hz ticks: 50 frames a second, from the nearest ticks.
        let mut clock = PacedClock::from_hz(50.0);
        let delivered = count_delivered(&mut clock, (0..600).map(|k| at(base, k as f64 / 60.0)));
        assert_eq!(
            delivered.iter().filter(|d| **d).count(),
            500,
            "10 s of 50 Hz"
        );
    }

    // rule: K2
    #[test]
    fn paced_next_due_is_on_the_grid() {
        let base = Instant::now();
        let mut clock = PacedClock::from_hz(50.0);
        assert_eq!(clock.next_due(), None);
        clock.tick(base);
        assert_eq!(clock.next_due(), Some(base + Duration::from_millis(20)));
    }
}
