//! Clock: how many seconds each frame is worth (rules K1-K3).
//!
//! A clock answers one question per tick: how many seconds is this frame
//! worth, or none (the tick is declined). The engine asks it once per tick
//! and owns nothing else about time, so swapping a wall clock for a scripted
//! one steps exactly the same engine a player sees.
//!
//! Deltas are `f64` seconds rather than `Duration`: Luau numbers are `f64`,
//! and a scripted `constant:1/60` must reach the game bit for bit, which a
//! nanosecond `Duration` would round. The real-time clocks keep `Instant`s
//! inside and convert at the edge.

use std::fmt;
use std::str::FromStr;
use std::time::{Duration, Instant};

use crate::error::{Error, Result};

/// The default cap on one wall-clock frame, in seconds (K1).
///
/// A quarter second keeps a long hitch from becoming a step the simulation
/// cannot take gracefully, while a game that merely dropped a few frames
/// still sees the time it lost.
pub const DEFAULT_WALL_MAX_SECS: f64 = 0.25;

/// How many whole slots a paced clock may fall behind before it abandons the
/// missed slots and restarts its grid at the current tick (K2).
///
/// Four slots absorb the hiccups a busy machine has every few seconds
/// (the overrun is won back by shorter waits) but not a stall, which would
/// otherwise replay as a burst of frames the player never saw.
pub const PACED_MAX_BEHIND_SLOTS: f64 = 4.0;

/// The slowest paced rate, in frames per second: below it a spec is
/// almost surely seconds written where a rate belongs.
pub const MIN_PACED_HZ: f64 = 1.0;

/// The fastest paced rate, in frames per second.
pub const MAX_PACED_HZ: f64 = 1000.0;

/// The longest delta a scripted clock gives, in seconds.
pub const MAX_DELTA: f64 = 1.0;

/// The most deltas a `list:` clock holds.
pub const MAX_LIST: usize = 10_000;

/// A source of frame deltas, asked once per tick.
pub trait Clock {
    /// Answers the tick arriving at host time `now`: the seconds this frame
    /// is worth, or `None` to decline it.
    ///
    /// Scripted clocks ignore `now`, so an explicit advance and a watched
    /// run see the same deltas.
    fn tick(&mut self, now: Instant) -> Option<f64>;

    /// Forgets the last tick, so the next one starts afresh: a wall clock
    /// gives 0 and a paced clock restarts its grid.
    ///
    /// The host calls this when the simulation resumes after a pause.
    fn resume(&mut self) {}

    /// Returns the earliest instant a tick could be delivered, for a loop
    /// that sleeps instead of spinning; `None` when any tick may be.
    fn next_due(&self) -> Option<Instant> {
        None
    }

    /// Says whether the clock follows real time (wall and paced do).
    fn is_real_time(&self) -> bool {
        false
    }

    /// Returns the seconds one frame is worth when a paused game is
    /// stepped by hand (the developer keys' F6): a paced clock's
    /// interval. Default: none, and the host steps by 1/60 s.
    fn step_delta(&self) -> Option<f64> {
        None
    }
}

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

/// A clock as written on the command line or in a test: `wall`,
/// `wall:max=0.1`, `paced:60`, `constant:1/60`, `list:1/30,1/60`,
/// `jitter:seed=7,min=0.008,max=0.033`.
///
/// Numbers are decimals or fractions (`1/60`).
#[derive(Debug, Clone, PartialEq)]
pub enum ClockSpec {
    /// Real elapsed time, at most `max_secs` a frame.
    Wall {
        /// Default: 0.25.
        max_secs: f64,
    },
    /// A fixed rate on an ideal grid.
    Paced {
        /// Frames per second.
        hz: f64,
    },
    /// The same delta every frame.
    Constant {
        /// Seconds per frame.
        dt: f64,
    },
    /// A repeating list of deltas.
    List {
        /// Seconds per frame, in order.
        deltas: Vec<f64>,
    },
    /// Seeded random deltas.
    Jitter {
        /// Default: 1.
        seed: u64,
        /// Default: 1/240.
        min: f64,
        /// Default: 1/30.
        max: f64,
    },
}

impl ClockSpec {
    /// Returns the mean seconds a frame of this scripted clock is worth,
    /// or `None` for a clock that follows real time.
    pub fn mean_delta(&self) -> Option<f64> {
        match self {
            ClockSpec::Wall { .. } | ClockSpec::Paced { .. } => None,
            ClockSpec::Constant { dt } => Some(*dt),
            ClockSpec::List { deltas } => {
                Some(deltas.iter().sum::<f64>() / deltas.len().max(1) as f64)
            }
            ClockSpec::Jitter { min, max, .. } => Some((min + max) / 2.0),
        }
    }

    /// Builds a fresh clock from this spec.
    pub fn build(&self) -> Box<dyn Clock> {
        match self {
            ClockSpec::Wall { max_secs } => Box::new(WallClock::new(*max_secs)),
            ClockSpec::Paced { hz } => Box::new(PacedClock::from_hz(*hz)),
            ClockSpec::Constant { dt } => Box::new(ConstantClock::new(*dt)),
            ClockSpec::List { deltas } => Box::new(ListClock::repeating(deltas.clone())),
            ClockSpec::Jitter { seed, min, max } => Box::new(JitterClock::new(*seed, *min, *max)),
        }
    }
}

impl FromStr for ClockSpec {
    type Err = Error;

    fn from_str(spec: &str) -> Result<Self> {
        let bad = |reason: &str| Error::ClockSpec {
            spec: spec.to_string(),
            reason: reason.to_string(),
        };
        let (kind, args) = spec.split_once(':').unwrap_or((spec, ""));
        let args = args.trim();
        match kind.trim() {
            "wall" => {
                let mut max_secs = DEFAULT_WALL_MAX_SECS;
                for (key, value) in named_args(args).map_err(|r| bad(&r))? {
                    match key {
                        "max" => {
                            max_secs = positive(value).map_err(|r| bad(&r))?;
                            if max_secs > MAX_DELTA {
                                return Err(bad(&format!("max is at most {MAX_DELTA} s a frame")));
                            }
                        }
                        _ => return Err(bad(&format!("wall takes `max=SECONDS`, not `{key}`"))),
                    }
                }
                Ok(ClockSpec::Wall { max_secs })
            }
            "paced" => {
                if args.is_empty() {
                    return Err(bad("give a rate in frames per second, as in `paced:60`"));
                }
                let hz = positive(args).map_err(|r| bad(&r))?;
                if hz < MIN_PACED_HZ {
                    // `paced:1/60` is one frame a minute: the author meant Hz.
                    let meant = (1.0 / hz).round();
                    let hint = if meant <= MAX_PACED_HZ {
                        format!(
                            ", so this is one frame every {meant} s; for {meant} frames a second write `paced:{meant}`"
                        )
                    } else {
                        String::new()
                    };
                    return Err(bad(&format!(
                        "paced takes frames per second, from {MIN_PACED_HZ} to {MAX_PACED_HZ}{hint}"
                    )));
                }
                if hz > MAX_PACED_HZ {
                    return Err(bad(&format!(
                        "the rate must be at most {MAX_PACED_HZ} frames per second"
                    )));
                }
                Ok(ClockSpec::Paced { hz })
            }
            "constant" => {
                if args.is_empty() {
                    return Err(bad("give seconds per frame, as in `constant:1/60`"));
                }
                let dt = delta(args).map_err(|r| bad(&r))?;
                Ok(ClockSpec::Constant { dt })
            }
            "list" => {
                if args.is_empty() {
                    return Err(bad("give one or more deltas, as in `list:1/30,1/60`"));
                }
                let deltas = args
                    .split(',')
                    .map(|d| delta(d.trim()))
                    .collect::<std::result::Result<Vec<_>, _>>()
                    .map_err(|r| bad(&r))?;
                if deltas.len() > MAX_LIST {
                    return Err(bad(&format!("a list holds at most {MAX_LIST} deltas")));
                }
                Ok(ClockSpec::List { deltas })
            }
            "jitter" => {
                let (mut seed, mut min, mut max) = (1u64, 1.0 / 240.0, 1.0 / 30.0);
                for (key, value) in named_args(args).map_err(|r| bad(&r))? {
                    match key {
                        "seed" => {
                            seed = value.parse().map_err(|_| {
                                bad(&format!(
                                    "seed `{value}` is not a whole number from 0 to 2^64-1"
                                ))
                            })?
                        }
                        "min" => min = delta(value).map_err(|r| bad(&r))?,
                        "max" => max = delta(value).map_err(|r| bad(&r))?,
                        _ => {
                            return Err(bad(&format!(
                                "jitter takes `seed=`, `min=` and `max=`, not `{key}`"
                            )));
                        }
                    }
                }
                if min > max {
                    return Err(bad(&format!("min ({min}) is above max ({max})")));
                }
                Ok(ClockSpec::Jitter { seed, min, max })
            }
            other => Err(bad(&format!(
                "unknown clock `{other}`; use wall, paced, constant, list or jitter"
            ))),
        }
    }
}

impl fmt::Display for ClockSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClockSpec::Wall { max_secs } => write!(f, "wall:max={max_secs}"),
            ClockSpec::Paced { hz } => write!(f, "paced:{hz}"),
            ClockSpec::Constant { dt } => write!(f, "constant:{}", seconds(*dt)),
            ClockSpec::List { deltas } => {
                write!(f, "list:")?;
                for (i, dt) in deltas.iter().enumerate() {
                    let sep = if i == 0 { "" } else { "," };
                    write!(f, "{sep}{}", seconds(*dt))?;
                }
                Ok(())
            }
            ClockSpec::Jitter { seed, min, max } => {
                write!(
                    f,
                    "jitter:seed={seed},min={},max={}",
                    seconds(*min),
                    seconds(*max)
                )
            }
        }
    }
}

/// Writes a delta as `1/N` when it is the reciprocal of a whole number and
/// that is shorter than the decimal.
fn seconds(dt: f64) -> String {
    let decimal = format!("{dt}");
    let n = (1.0 / dt).round();
    let fraction = format!("1/{n}");
    if dt > 0.0 && n <= 100_000.0 && 1.0 / n == dt && fraction.len() < decimal.len() {
        fraction
    } else {
        decimal
    }
}

fn named_args(args: &str) -> std::result::Result<Vec<(&str, &str)>, String> {
    if args.is_empty() {
        return Ok(Vec::new());
    }
    args.split(',')
        .map(|pair| {
            pair.split_once('=')
                .map(|(k, v)| (k.trim(), v.trim()))
                .ok_or_else(|| format!("`{}` should be NAME=VALUE", pair.trim()))
        })
        .collect()
}

/// Reads a decimal (`0.5`) or a fraction (`1/60`).
pub fn parse_number(text: &str) -> std::result::Result<f64, String> {
    let not_a_number = || format!("`{text}` is not a number (write 0.016 or 1/60)");
    let value = match text.split_once('/') {
        Some((a, b)) => {
            let a: f64 = a.trim().parse().map_err(|_| not_a_number())?;
            let b: f64 = b.trim().parse().map_err(|_| not_a_number())?;
            if b == 0.0 {
                return Err(format!("`{text}` divides by zero"));
            }
            a / b
        }
        None => text.parse().map_err(|_| not_a_number())?,
    };
    if value.is_finite() {
        Ok(value)
    } else {
        Err(format!("`{text}` is not a finite number"))
    }
}

fn non_negative(text: &str) -> std::result::Result<f64, String> {
    let value = parse_number(text)?;
    if value < 0.0 {
        return Err(format!(
            "`{text}` is negative; a delta is 0 or more seconds"
        ));
    }
    Ok(value)
}

/// Reads one frame's delta: 0 to [`MAX_DELTA`] seconds. A whole number
/// above that is almost surely a rate (`constant:60` for 60 Hz), and the
/// message says what to write instead.
fn delta(text: &str) -> std::result::Result<f64, String> {
    let dt = non_negative(text)?;
    if dt > MAX_DELTA {
        let hint = if dt.fract() == 0.0 {
            format!("; for {dt} frames a second write 1/{dt}")
        } else {
            String::new()
        };
        return Err(format!(
            "`{text}` is seconds a frame, and a frame is at most {MAX_DELTA} s{hint}"
        ));
    }
    Ok(dt)
}

fn positive(text: &str) -> std::result::Result<f64, String> {
    let value = parse_number(text)?;
    if value <= 0.0 {
        return Err(format!("`{text}` must be above 0"));
    }
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn clock_specs_parse() {
        let cases = [
            ("wall", ClockSpec::Wall { max_secs: 0.25 }),
            ("wall:max=0.1", ClockSpec::Wall { max_secs: 0.1 }),
            ("paced:60", ClockSpec::Paced { hz: 60.0 }),
            ("constant:1/60", ClockSpec::Constant { dt: 1.0 / 60.0 }),
            ("constant:0.02", ClockSpec::Constant { dt: 0.02 }),
            (
                "list:1/30,1/60",
                ClockSpec::List {
                    deltas: vec![1.0 / 30.0, 1.0 / 60.0],
                },
            ),
            (
                "jitter:seed=7,min=0.008,max=0.033",
                ClockSpec::Jitter {
                    seed: 7,
                    min: 0.008,
                    max: 0.033,
                },
            ),
        ];
        for (text, spec) in cases {
            assert_eq!(text.parse::<ClockSpec>().unwrap(), spec, "{text}");
        }
    }

    #[test]
    fn bad_clock_specs_name_the_problem() {
        let cases = [
            ("paced:0", "bad clock `paced:0`: `0` must be above 0"),
            (
                "constant:-1",
                "bad clock `constant:-1`: `-1` is negative; a delta is 0 or more seconds",
            ),
            (
                "list:",
                "bad clock `list:`: give one or more deltas, as in `list:1/30,1/60`",
            ),
            (
                "jitter:min=0.2,max=0.1",
                "bad clock `jitter:min=0.2,max=0.1`: min (0.2) is above max (0.1)",
            ),
            // rule: H10 (a clock that can never deliver in a lifetime is refused)
            (
                "paced:1e-9",
                "bad clock `paced:1e-9`: paced takes frames per second, from 1 to 1000",
            ),
            (
                "paced:1/60",
                "bad clock `paced:1/60`: paced takes frames per second, from 1 to 1000, so this is one frame every 60 s; for 60 frames a second write `paced:60`",
            ),
            (
                "paced:1e-20",
                "bad clock `paced:1e-20`: paced takes frames per second, from 1 to 1000",
            ),
            (
                "paced:5000",
                "bad clock `paced:5000`: the rate must be at most 1000 frames per second",
            ),
            (
                "constant:60",
                "bad clock `constant:60`: `60` is seconds a frame, and a frame is at most 1 s; for 60 frames a second write 1/60",
            ),
            (
                "list:1/60,2.5",
                "bad clock `list:1/60,2.5`: `2.5` is seconds a frame, and a frame is at most 1 s",
            ),
            (
                "wall:max=1e300",
                "bad clock `wall:max=1e300`: max is at most 1 s a frame",
            ),
            (
                "paced:abc",
                "bad clock `paced:abc`: `abc` is not a number (write 0.016 or 1/60)",
            ),
            (
                "constant:1/0",
                "bad clock `constant:1/0`: `1/0` divides by zero",
            ),
            (
                "sundial",
                "bad clock `sundial`: unknown clock `sundial`; use wall, paced, constant, list or jitter",
            ),
            (
                "wall:min=1",
                "bad clock `wall:min=1`: wall takes `max=SECONDS`, not `min`",
            ),
            (
                "constant:nan",
                "bad clock `constant:nan`: `nan` is not a finite number",
            ),
        ];
        for (text, message) in cases {
            let err = text.parse::<ClockSpec>().unwrap_err();
            assert_eq!(err.to_string(), message);
        }
    }

    #[test]
    fn clock_specs_print_as_they_parse() {
        for text in [
            "paced:60",
            "constant:1/60",
            "list:1/30,1/90,1/240",
            "jitter:seed=7,min=0.008,max=0.033",
        ] {
            let spec: ClockSpec = text.parse().unwrap();
            assert_eq!(spec.to_string(), text);
        }
    }
}
