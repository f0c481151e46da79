//! Batches prepared ahead by worker threads (the `workers` of a data loader).

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
/// batches ahead of use, or in the caller's thread when `workers` is 0.
pub struct Prefetcher<B: Send + 'static> {
    inline: Option<(Arc<Make<B>>, Box<StdRng>)>,
    rx: Option<Receiver<Result<B, DataError>>>,
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
                rx: None,
                threads: Vec::new(),
            };
        }
        let (tx, rx) = sync_channel(workers * DEPTH_PER_WORKER);
        let threads = (0..workers)
            .map(|i| {
                let (tx, make) = (tx.clone(), make.clone());
                std::thread::Builder::new()
                    .name(format!("mlb-data-{i}"))
                    .spawn(move || {
                        let mut rng = StdRng::seed_from_u64(seed.wrapping_add(i as u64));
                        // Ends when the receiver is gone.
                        while tx.send(make(&mut rng)).is_ok() {}
                    })
                    .expect("spawning a data worker thread")
            })
            .collect();
        Prefetcher { inline: None, rx: Some(rx), threads }
    }

    /// The next batch.
    pub fn next_batch(&mut self) -> Result<B, DataError> {
        if let Some((make, rng)) = &mut self.inline {
            return make(rng);
        }
        match self.rx.as_ref().map(Receiver::recv) {
            Some(Ok(batch)) => batch,
            _ => Err(DataError::Missing { path: "<data workers>".into(), expected: "a running data worker".into() }),
        }
    }
}

impl<B: Send + 'static> Drop for Prefetcher<B> {
    fn drop(&mut self) {
        // Dropping the receiver makes every blocked `send` fail: the workers end.
        drop(self.rx.take());
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
    fn a_failing_batch_reaches_the_consumer() {
        let mut p: Prefetcher<()> =
            Prefetcher::spawn(2, 0, |_| Err(DataError::format(std::path::Path::new("bad.jpg"), "broken")));
        assert!(p.next_batch().unwrap_err().to_string().contains("bad.jpg"));
    }
}
