//! Shrinking (rule X3): a failing plan made as small as it goes while it
//! still breaks the same way. In passes, until a pass changes nothing:
//! the frames after the failure go; chunks of steps are dropped, halving
//! down to single steps (delta debugging); holds are shortened; steps
//! move earlier. What is left is minimal by these rules: no one step can
//! be dropped and the plan still fail.

use std::collections::HashSet;
use std::time::{Duration, Instant};

use super::plan::Step;
use super::play::{Broke, DtCheck, Failure, play};
use crate::error::Result;
use crate::input::InputEvent;
use crate::lua::properties::Properties;
use crate::terminal::tell;

/// A plan shrunk, and what it took.
#[derive(Debug)]
pub struct Shrunk {
    /// The smallest plan found.
    pub steps: Vec<Step>,
    /// Where it breaks.
    pub failure: Failure,
    /// How many runs shrinking took.
    pub runs: u64,
    /// Whether the search's time ran out before shrinking was done (the
    /// plan is the shortest found by then).
    pub cut_short: bool,
}

struct Shrinker<'a> {
    dir: &'a std::path::Path,
    properties: &'a Properties,
    dt: Option<&'a DtCheck>,
    broke: Broke,
    runs: u64,
    max_runs: u64,
    jobs: usize,
    /// When the search's `--time` runs out: shrinking stops there.
    deadline: Option<Instant>,
    /// When progress was last said.
    said: Instant,
}

impl Shrinker<'_> {
    /// Whether shrinking must stop: out of runs or out of time.
    fn spent(&self) -> bool {
        self.runs >= self.max_runs || self.out_of_time()
    }

    fn out_of_time(&self) -> bool {
        self.deadline.is_some_and(|d| Instant::now() >= d)
    }

    /// Says how far shrinking has come, every two seconds.
    fn progress(&mut self, steps: usize, frame: u64) {
        if self.said.elapsed() >= Duration::from_secs(2) {
            self.said = Instant::now();
            tell!(
                "explore: shrinking: {steps} steps, breaking at frame {frame}, after {} runs",
                self.runs
            );
        }
    }

    /// Whether `steps` still break the same way within `frames`; where.
    fn fails(&mut self, steps: &[Step], frames: u64) -> Result<Option<Failure>> {
        if self.spent() {
            return Ok(None);
        }
        self.runs += 1;
        let played = play(
            self.dir,
            steps,
            frames,
            self.properties,
            &HashSet::new(),
            self.dt,
            self.deadline,
        )?;
        Ok(played.failure.filter(|f| f.broke.same_as(&self.broke)))
    }

    /// The first of `candidates`, in their order, that still breaks the
    /// same way within `frames`: tried `jobs` at a time on threads of
    /// their own, so the answer is the one trying them in turn would give.
    fn first_failing(
        &mut self,
        candidates: &[Vec<Step>],
        frames: u64,
    ) -> Result<Option<(usize, Failure)>> {
        if self.jobs <= 1 {
            for (i, c) in candidates.iter().enumerate() {
                if let Some(f) = self.fails(c, frames)? {
                    return Ok(Some((i, f)));
                }
            }
            return Ok(None);
        }
        for (batch, chunk) in candidates.chunks(self.jobs).enumerate() {
            if self.out_of_time() {
                return Ok(None);
            }
            let left = self.max_runs.saturating_sub(self.runs) as usize;
            let chunk = &chunk[..chunk.len().min(left)];
            if chunk.is_empty() {
                return Ok(None);
            }
            self.runs += chunk.len() as u64;
            let (dir, broke, dt, deadline) = (self.dir, &self.broke, self.dt, self.deadline);
            let results: Vec<Result<Option<Failure>>> = std::thread::scope(|scope| {
                let handles: Vec<_> = chunk
                    .iter()
                    .map(|c| {
                        scope.spawn(move || -> Result<Option<Failure>> {
                            let properties = Properties::load(dir)?;
                            let played =
                                play(dir, c, frames, &properties, &HashSet::new(), dt, deadline)?;
                            Ok(played.failure.filter(|f| f.broke.same_as(broke)))
                        })
                    })
                    .collect();
                handles
                    .into_iter()
                    .map(|h| {
                        h.join().unwrap_or_else(|_| {
                            Err(crate::Error::script("a shrinking run stopped"))
                        })
                    })
                    .collect()
            });
            for (i, result) in results.into_iter().enumerate() {
                if let Some(f) = result? {
                    return Ok(Some((batch * self.jobs + i, f)));
                }
            }
        }
        Ok(None)
    }
}

/// How much shrinking may do.
#[derive(Debug, Clone, Copy)]
pub struct Effort {
    /// The most candidates tried.
    pub runs: u64,
    /// How many are tried at a time (the result is the same for any
    /// number).
    pub jobs: usize,
    /// When the search's `--time` runs out: the shortest plan found by
    /// then is the answer.
    pub deadline: Option<Instant>,
}

/// Shrinks `steps`, which break as `failure` says, in the game in `dir`,
/// within `effort`.
///
/// # Errors
/// The game does not load.
pub fn shrink(
    dir: &std::path::Path,
    properties: &Properties,
    dt: Option<&DtCheck>,
    steps: Vec<Step>,
    failure: Failure,
    effort: Effort,
) -> Result<Shrunk> {
    let mut s = Shrinker {
        dir,
        properties,
        dt,
        broke: failure.broke.clone(),
        runs: 0,
        max_runs: effort.runs,
        jobs: effort.jobs,
        deadline: effort.deadline,
        said: Instant::now(),
    };
    let mut best = failure;
    let mut steps: Vec<Step> = steps
        .into_iter()
        .filter(|x| x.frame <= best.frame)
        .collect();
    // Said as it starts, then every two seconds it goes on.
    tell!(
        "explore: shrinking: {} steps, breaking at frame {}",
        steps.len(),
        best.frame
    );
    loop {
        let before = (steps.clone(), best.frame);
        // Drop chunks, from halves down to single steps.
        let mut size = steps.len().div_ceil(2).max(1);
        while size >= 1 && !steps.is_empty() {
            let mut at = 0;
            let mut dropped = false;
            while at < steps.len() {
                // Every chunk from `at` on, dropped in turn: the first whose
                // plan still fails is taken, and the pass goes on there.
                let starts: Vec<usize> = (at..steps.len()).step_by(size).collect();
                let candidates: Vec<Vec<Step>> = starts
                    .iter()
                    .map(|&from| {
                        let mut c = steps.clone();
                        c.drain(from..(from + size).min(steps.len()));
                        c
                    })
                    .collect();
                match s.first_failing(&candidates, best.frame)? {
                    Some((i, f)) => {
                        at = starts[i];
                        steps = candidates.into_iter().nth(i).expect("a candidate");
                        best = f;
                        dropped = true;
                        s.progress(steps.len(), best.frame);
                    }
                    None => break,
                }
            }
            if !dropped {
                if size == 1 || s.spent() {
                    break;
                }
                size = size.div_ceil(2);
            }
        }
        // Shorten holds and move steps earlier, halving the distance.
        for i in 0..steps.len() {
            let frame = steps[i].frame;
            let candidates: Vec<Vec<Step>> = [
                frame / 2,
                frame.saturating_sub(frame / 4),
                frame.saturating_sub(1),
            ]
            .into_iter()
            .filter(|&earlier| earlier != 0 && earlier < frame)
            .filter_map(|earlier| {
                let mut candidate = steps.clone();
                candidate[i].frame = earlier;
                // A release never comes before its press.
                if let InputEvent::Release(k) = candidate[i].event
                    && candidate[..i]
                        .iter()
                        .rev()
                        .find(|p| p.event == InputEvent::Press(k))
                        .is_some_and(|p| p.frame > earlier)
                {
                    return None;
                }
                candidate.sort_by_key(|x| x.frame);
                Some(candidate)
            })
            .collect();
            if let Some((at, f)) = s.first_failing(&candidates, best.frame)? {
                steps = candidates.into_iter().nth(at).expect("a candidate");
                best = f;
                s.progress(steps.len(), best.frame);
            }
        }
        steps.retain(|x| x.frame <= best.frame);
        if (steps.clone(), best.frame) == before || s.spent() {
            break;
        }
    }
    Ok(Shrunk {
        steps,
        failure: best,
        runs: s.runs,
        cut_short: s.out_of_time(),
    })
}
