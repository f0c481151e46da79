//! Batches prepared ahead by worker threads (the `workers` of a data loader).
//!
//! As PyTorch's DataLoader, the batches come out in a fixed order whatever
//! the threads' timing: batch `k` is worker `k % workers`'s next, each
//! worker drawing from its own seed. The data order thus depends on the seed
//! and `workers` alone (a deterministic run's need).

use super::DataError;
use rand::rngs::StdRng;
use rand::SeedableRng;
use std::sync::mpsc::{sync_channel, Receiver};
use std::sync::Arc;
use std::thread::JoinHandle;

/// Batches each worker keeps ready.
pub const DEPTH_PER_WORKER: usize = 2;

type Make<B> = dyn Fn(&mut StdRng) -> Result<B, DataError> + Send + Sync;

/// Produces batches with `make`, on `workers` threads that each build whole
/// batches ahead of use, taken from them in turn, or in the caller's thread
/// when `workers` is 0.
pub struct Prefetcher<B: Send + 'static> {
    inline: Option<(Arc<Make<B>>, Box<StdRng>)>,
    /// One channel a worker, in the workers' order.
    rx: Vec<Receiver<Result<B, DataError>>>,
    /// The worker whose batch comes next.
    turn: usize,
    threads: Vec<JoinHandle<()>>,
}

impl<B: Send + 'static> Prefetcher<B> {
    /// Starts the workers; worker `i` draws its randomness from `seed + i`.
    pub fn spawn(
        workers: usize,
        seed: u64,
        make: impl Fn(&mut StdRng) -> Result<B, DataError> + Send + Sync + 'static,
    ) -> Self {
        let make: Arc<Make<B>> = Arc::new(make);
        if workers == 0 {
            return Prefetcher {
                inline: Some((make, Box::new(StdRng::seed_from_u64(seed)))),
                rx: Vec::new(),
                turn: 0,
                threads: Vec::new(),
            };
        }
        let (rx, threads) = (0..workers)
            .map(|i| {
                let (tx, rx) = sync_channel(DEPTH_PER_WORKER);
                let make = make.clone();
                let thread = std::thread::Builder::new()
                    .name(format!("mlb-data-{i}"))
                    .spawn(move || {
                        let mut rng = StdRng::seed_from_u64(seed.wrapping_add(i as u64));
                        // Ends when the receiver is gone.
                        while tx.send(make(&mut rng)).is_ok() {}
                    })
                    .expect("spawning a data worker thread");
                (rx, thread)
            })
            .unzip();
        Prefetcher { inline: None, rx, turn: 0, threads }
    }

    /// The next batch.
    pub fn next_batch(&mut self) -> Result<B, DataError> {
        if let Some((make, rng)) = &mut self.inline {
            return make(rng);
        }
        let next = self.rx.get(self.turn).map(Receiver::recv);
        self.turn = (self.turn + 1) % self.rx.len().max(1);
        match next {
            Some(Ok(batch)) => batch,
            _ => Err(DataError::Missing { path: "<data workers>".into(), expected: "a running data worker".into() }),
        }
    }
}

impl<B: Send + 'static> Drop for Prefetcher<B> {
    fn drop(&mut self) {
        // Dropping the receivers makes every blocked `send` fail: the workers end.
        self.rx.clear();
        for t in self.threads.drain(..) {
            let _ = t.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::Rng;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn workers_and_inline_both_deliver_and_stop_on_drop() {
        for workers in [0, 3] {
            let made = Arc::new(AtomicUsize::new(0));
            let counter = made.clone();
            let mut p = Prefetcher::spawn(workers, 7, move |rng| {
                counter.fetch_add(1, Ordering::SeqCst);
                Ok(rng.random_range(0..10u32))
            });
            for _ in 0..10 {
                assert!(p.next_batch().unwrap() < 10);
            }
            drop(p);
            let after = made.load(Ordering::SeqCst);
            assert!(after >= 10 && after <= 10 + workers * (DEPTH_PER_WORKER + 1));
        }
    }

    #[test]
    fn the_order_depends_on_the_seed_alone_not_on_the_timing() {
        let run = |slow: usize| {
            let mut p = Prefetcher::spawn(3, 11, move |rng| {
                // Worker `slow`'s batches take longer than the others'.
                if std::thread::current().name() == Some(&format!("mlb-data-{slow}")) {
                    std::thread::sleep(std::time::Duration::from_millis(5));
                }
                Ok(rng.random_range(0..1_000_000u32))
            });
            (0..12).map(|_| p.next_batch().unwrap()).collect::<Vec<_>>()
        };
        let first = run(0);
        assert_eq!(first, run(1));
        assert_eq!(first, run(2));
        let mut worker = StdRng::seed_from_u64(12);
        assert_eq!(first[1], worker.random_range(0..1_000_000u32), "batch 1 is worker 1's first");
    }

    #[test]
    fn a_failing_batch_reaches_the_consumer() {
        let mut p: Prefetcher<()> =
            Prefetcher::spawn(2, 0, |_| Err(DataError::format(std::path::Path::new("bad.jpg"), "broken")));
        assert!(p.next_batch().unwrap_err().to_string().contains("bad.jpg"));
    }
}
