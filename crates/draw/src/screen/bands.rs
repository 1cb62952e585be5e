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
//! allocates nothing. Bands are claimed, not assigned: the frame's thread
//! draws every band no worker has taken, so a worker the system is slow to
//! wake never makes the frame wait for it.

use std::ops::Range;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;

/// The most bands a picture is split into.
pub const MAX_BANDS: usize = 8;

/// A job as the workers hold it: the address of the caller's closure and
/// the function that calls a closure of its type. Only [`Bands::run`]
/// makes one, and it does not return before every band claimed is drawn;
/// a band is claimed before the job is touched, so no thread touches the
/// closure after `run` returns. (The same shape as rayon's `JobRef`: a
/// thin pointer and a monomorphic call, where a `&dyn Fn` would need its
/// lifetime erased.)
#[derive(Clone, Copy)]
struct Job {
    closure: *const (),
    call: unsafe fn(*const (), usize, Range<usize>),
}

impl Job {
    /// Makes the job for `closure`.
    fn new<F: Fn(usize, Range<usize>) + Sync>(closure: &F) -> Job {
        /// Calls the closure of type `F` at `closure`.
        ///
        /// # Safety
        /// `closure` came from a `&F` that is still borrowed.
        unsafe fn call<F: Fn(usize, Range<usize>)>(closure: *const (), i: usize, r: Range<usize>) {
            // SAFETY: the caller's promise.
            let f = unsafe { &*closure.cast::<F>() };
            f(i, r);
        }
        Job {
            closure: std::ptr::from_ref(closure).cast(),
            call: call::<F>,
        }
    }

    /// Draws band `index`, rows `rows`.
    ///
    /// # Safety
    /// The closure the job was made from is still borrowed (see [`Job`]).
    unsafe fn run(self, index: usize, rows: Range<usize>) {
        // SAFETY: the caller's promise.
        unsafe { (self.call)(self.closure, index, rows) }
    }
}

// SAFETY: the closure is `Sync` (`Job::new` asks it), so calling it from
// another thread is sound; and it outlives every use (see `Job`).
unsafe impl Send for Job {}

#[derive(Default)]
struct State {
    /// Counts jobs handed out, so a worker sees each one once.
    generation: u32,
    job: Option<Job>,
    rows: usize,
    /// How many bands the job is split into.
    count: usize,
    quit: bool,
}

#[derive(Default)]
struct Shared {
    state: Mutex<State>,
    start: Condvar,
    finished: Condvar,
    /// The job's generation (high half) and its next unclaimed band (low
    /// half): a band is claimed by moving this on, so a worker that wakes
    /// late finds nothing left, or a newer job, and never an old one.
    next: AtomicU64,
    /// Bands of the current job drawn so far.
    done: AtomicUsize,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        // Jobs run under catch_unwind, so the lock is never poisoned by
        // one; take it whatever happened.
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Claims the next band of job `generation`; `None` when all are
    /// claimed or a newer job has begun.
    fn claim(&self, generation: u32, count: usize) -> Option<usize> {
        let mut seen = self.next.load(Ordering::Acquire);
        loop {
            let band = (seen & u64::from(u32::MAX)) as usize;
            if (seen >> 32) as u32 != generation || band >= count {
                return None;
            }
            match self.next.compare_exchange_weak(
                seen,
                seen + 1,
                Ordering::AcqRel,
                Ordering::Acquire,
            ) {
                Ok(_) => return Some(band),
                Err(now) => seen = now,
            }
        }
    }

    /// Draws bands of the job while any are left to claim.
    ///
    /// # Safety
    /// `job` is the current job of `generation`, whose closure [`Bands::run`]
    /// still borrows: it waits for every band claimed here.
    unsafe fn draw(&self, job: Job, generation: u32, rows: usize, count: usize) {
        while let Some(b) = self.claim(generation, count) {
            // A band that panics loses its pixels, not the frame.
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                // SAFETY: the band was claimed under the job's generation,
                // and `run` waits for it (the caller's promise).
                unsafe { job.run(b, band(rows, b, count)) };
            }));
            if self.done.fetch_add(1, Ordering::AcqRel) + 1 == count {
                // Taking the lock orders this with the wait below.
                drop(self.lock());
                self.finished.notify_all();
            }
        }
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
                .spawn(move || work(&shared));
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

    /// Runs `job(index, rows)` for every band of `rows`, on this thread and
    /// the workers, each band once, and returns when all are drawn. This
    /// thread draws whatever bands no worker has claimed, so a worker slow
    /// to wake costs nothing but its share of the work.
    pub fn run<F: Fn(usize, Range<usize>) + Sync>(&self, rows: usize, job: &F) {
        let count = self.count;
        if count == 1 {
            job(0, 0..rows);
            return;
        }
        let job = Job::new(job);
        let generation = {
            let mut state = self.shared.lock();
            state.generation = state.generation.wrapping_add(1);
            state.job = Some(job);
            state.rows = rows;
            state.count = count;
            self.shared.done.store(0, Ordering::Release);
            self.shared
                .next
                .store(u64::from(state.generation) << 32, Ordering::Release);
            state.generation
        };
        self.shared.start.notify_all();
        // SAFETY: the closure is borrowed until this function returns, and
        // it returns only once every band is drawn (below).
        unsafe { self.shared.draw(job, generation, rows, count) };
        let mut state = self.shared.lock();
        while self.shared.done.load(Ordering::Acquire) < count {
            state = self
                .shared
                .finished
                .wait(state)
                .unwrap_or_else(|p| p.into_inner());
        }
        state.job = None;
    }
}

/// A worker's loop: wait for a job, draw bands of it while any are left.
fn work(shared: &Shared) {
    let mut seen = 0;
    loop {
        let (job, generation, rows, count) = {
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
            (job, state.generation, state.rows, state.count)
        };
        // SAFETY: see `Job`: the job is only touched for a band claimed
        // under its own generation, and `run` waits for that band.
        unsafe { shared.draw(job, generation, rows, count) };
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
