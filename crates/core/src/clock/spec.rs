//! Clock SPECs: the clocks as written on the command line and in tests
//! (`paced:60`, `constant:1/60`, ...), read and printed back.
use crate::Refusal;
use std::fmt;
use std::str::FromStr;

use super::{
    Clock, ConstantClock, DEFAULT_WALL_MAX_SECS, JitterClock, ListClock, MAX_DELTA, MAX_LIST,
    MAX_PACED_HZ, MIN_PACED_HZ, PacedClock, WallClock,
};

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

/// A clock SPEC that does not read: the SPEC as given, and what is wrong
/// with it and what would be right.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("bad clock `{spec}`: {reason}")]
pub struct BadSpec {
    /// The SPEC as given.
    pub spec: String,
    /// What is wrong with it and what would be right.
    pub reason: String,
}

impl FromStr for ClockSpec {
    type Err = BadSpec;

    fn from_str(spec: &str) -> Result<Self, BadSpec> {
        let bad = |reason: &str| BadSpec {
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
pub fn parse_number(text: &str) -> Result<f64, Refusal> {
    let not_a_number = || format!("`{text}` is not a number (write 0.016 or 1/60)");
    let value = match text.split_once('/') {
        Some((a, b)) => {
            let a: f64 = a.trim().parse().map_err(|_| not_a_number())?;
            let b: f64 = b.trim().parse().map_err(|_| not_a_number())?;
            if b == 0.0 {
                return Err(refuse!("`{text}` divides by zero"));
            }
            a / b
        }
        None => text.parse().map_err(|_| not_a_number())?,
    };
    if value.is_finite() {
        Ok(value)
    } else {
        Err(refuse!("`{text}` is not a finite number"))
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
        // (Only for a rate a display has: `1e308` gets no such hint.)
        let hint = if dt.fract() == 0.0 && dt <= 1000.0 {
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
