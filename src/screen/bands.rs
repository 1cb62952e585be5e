//! Bands: the screen layer's own drawing (sprite batches) split into
//! horizontal bands drawn at once on the machine's cores (rule H15).
//!
//! The picture is the serial one byte for byte by construction: each pixel
//! is computed from its own device coordinates and the commands in order,
//! and a band only decides which rows a core writes. tiny-skia's own
//! drawing (shapes, outlines, images) stays on the frame's thread, where
//! a translated band could round a coordinate differently.
//!
//! The workers are started once and kept; a frame hands them a job
//! through a mutex and two condition variables, so drawing in bands
//! allocates nothing.

use std::ops::Range;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;

/// The most bands a picture is split into.
pub const MAX_BANDS: usize = 8;

/// A job: draw band `index` of the picture, rows `rows`. (As kept: its
/// lifetime erased to `'static`, see [`JobPtr`].)
type Job = dyn Fn(usize, Range<usize>) + Sync;

/// A job's address with its lifetime erased. Only [`Bands::run`] makes
/// one, and it waits for every worker to be done with it before the job
/// it points to goes away.
#[derive(Clone, Copy)]
struct JobPtr(*const Job);

// SAFETY: the job is `Sync`, and it outlives every use (see `JobPtr`).
unsafe impl Send for JobPtr {}

#[derive(Default)]
struct State {
    /// Counts jobs handed out, so a worker sees each one once.
    generation: u64,
    job: Option<JobPtr>,
    rows: usize,
    /// How many bands the job is split into.
    count: usize,
    /// Workers still drawing the current job.
    pending: usize,
    quit: bool,
}

#[derive(Default)]
struct Shared {
    state: Mutex<State>,
    start: Condvar,
    finished: Condvar,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        // A worker's job is run under catch_unwind, so the lock is never
        // poisoned by one; take it whatever happened.
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// The band of `rows` that band `index` of `count` draws.
pub fn band(rows: usize, index: usize, count: usize) -> Range<usize> {
    rows * index / count..rows * (index + 1) / count
}

/// Workers that draw bands, kept for the screen's life.
pub struct Bands {
    count: usize,
    shared: Arc<Shared>,
    workers: Vec<JoinHandle<()>>,
}

impl std::fmt::Debug for Bands {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Bands").field("count", &self.count).finish()
    }
}

impl Bands {
    /// Draws in `count` bands (1: on the calling thread alone), starting
    /// `count - 1` workers. A worker that cannot be started leaves fewer
    /// bands.
    pub fn new(count: usize) -> Bands {
        let shared = Arc::new(Shared::default());
        let mut workers = Vec::new();
        for index in 1..count.clamp(1, MAX_BANDS) {
            let shared = Arc::clone(&shared);
            let started = std::thread::Builder::new()
                .name(format!("moonloop-band-{index}"))
                .spawn(move || work(&shared, index));
            match started {
                Ok(worker) => workers.push(worker),
                Err(_) => break,
            }
        }
        Bands {
            count: workers.len() + 1,
            shared,
            workers,
        }
    }

    /// Returns how many bands a picture is drawn in.
    pub fn count(&self) -> usize {
        self.count
    }

    /// Runs `job(index, rows)` for every band of `rows` at once, band 0 on
    /// this thread, and returns when all are drawn.
    pub fn run<'a>(&self, rows: usize, job: &'a (dyn Fn(usize, Range<usize>) + Sync + 'a)) {
        if self.count == 1 {
            job(0, 0..rows);
            return;
        }
        {
            let mut state = self.shared.lock();
            // SAFETY (of the erased lifetime): this function does not
            // return before `pending` is back to 0, that is before every
            // worker is done with the job.
            let erased: *const Job = unsafe {
                std::mem::transmute::<*const (dyn Fn(usize, Range<usize>) + Sync + 'a), *const Job>(
                    job,
                )
            };
            state.job = Some(JobPtr(erased));
            state.rows = rows;
            state.count = self.count;
            state.pending = self.count - 1;
            state.generation += 1;
        }
        self.shared.start.notify_all();
        let own = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            job(0, band(rows, 0, self.count));
        }));
        let mut state = self.shared.lock();
        while state.pending > 0 {
            state = self
                .shared
                .finished
                .wait(state)
                .unwrap_or_else(|p| p.into_inner());
        }
        state.job = None;
        drop(state);
        if let Err(panic) = own {
            std::panic::resume_unwind(panic);
        }
    }
}

/// A worker's loop: wait for a job, draw its band, say so.
fn work(shared: &Shared, index: usize) {
    let mut seen = 0;
    loop {
        let (job, rows, count) = {
            let mut state = shared.lock();
            while state.generation == seen && !state.quit {
                state = shared.start.wait(state).unwrap_or_else(|p| p.into_inner());
            }
            if state.quit {
                return;
            }
            seen = state.generation;
            let Some(job) = state.job else {
                continue;
            };
            (job, state.rows, state.count)
        };
        // A job that panics loses its band's pixels, not the frame: the
        // frame's thread still hears this worker is done.
        let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            // SAFETY: see `JobPtr`; the job is alive until `pending` is 0.
            let job = unsafe { &*job.0 };
            job(index, band(rows, index, count));
        }));
        let mut state = shared.lock();
        state.pending -= 1;
        if state.pending == 0 {
            shared.finished.notify_one();
        }
    }
}

impl Drop for Bands {
    fn drop(&mut self) {
        self.shared.lock().quit = true;
        self.shared.start.notify_all();
        for worker in self.workers.drain(..) {
            let _ = worker.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn bands_cover_every_row_once() {
        for rows in [0, 1, 7, 720] {
            for count in 1..=MAX_BANDS {
                let mut next = 0;
                for i in 0..count {
                    let b = band(rows, i, count);
                    assert_eq!(b.start, next);
                    next = b.end;
                }
                assert_eq!(next, rows);
            }
        }
    }

    #[test]
    fn every_band_runs_once_a_job_and_jobs_run_again() {
        let bands = Bands::new(4);
        assert_eq!(bands.count(), 4);
        for _ in 0..100 {
            let rows = AtomicUsize::new(0);
            let seen = AtomicUsize::new(0);
            bands.run(100, &|index, range| {
                rows.fetch_add(range.len(), Ordering::Relaxed);
                seen.fetch_or(1 << index, Ordering::Relaxed);
            });
            assert_eq!(rows.load(Ordering::Relaxed), 100);
            assert_eq!(seen.load(Ordering::Relaxed), 0b1111);
        }
    }
}
