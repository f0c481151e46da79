//! The costly part of a run's page (its report texts inflated, read and
//! aggregated) built once for every request that asks for the run while it
//! is being built, and at most [`LARGE_AT_ONCE`] builds of large runs at
//! once: sixteen requests of one 77 MB report each held their own copies
//! of its text and entries, 3.3 GB in all.

use std::collections::HashMap;
use std::sync::{Arc, Condvar, Mutex, OnceLock};

/// Builds of large runs (more than [`LARGE_TEXT`] of stored text) under way at once.
pub const LARGE_AT_ONCE: usize = 2;

/// A run whose stored (deflated) report texts are larger than this is
/// large: its build holds several times as much.
pub const LARGE_TEXT: u64 = 4 * 1024 * 1024;

/// The builds under way, by run id.
pub struct Shared<T> {
    under_way: Mutex<HashMap<i64, Arc<OnceLock<Option<T>>>>>,
    large: Gate,
}

impl<T> Default for Shared<T> {
    fn default() -> Self {
        Shared { under_way: Mutex::default(), large: Gate::new(LARGE_AT_ONCE) }
    }
}

impl<T: Clone> Shared<T> {
    /// What `build` gives for the run `id`: built by this request, or by
    /// the one already building it (a copy of its result); a build that
    /// failed is run again by each request that waited for it, for its own
    /// error. `large`: the run's texts take [`LARGE_TEXT`] or more.
    pub fn get<E>(&self, id: i64, large: bool, build: impl Fn() -> Result<T, E>) -> Result<T, E> {
        let cell = Arc::clone(self.lock().entry(id).or_default());
        let mut failed = None;
        let built = cell.get_or_init(|| {
            let _turn = large.then(|| self.large.enter());
            build().map_err(|e| failed = Some(e)).ok()
        });
        {
            let mut under_way = self.lock();
            if under_way.get(&id).is_some_and(|c| Arc::ptr_eq(c, &cell)) {
                under_way.remove(&id);
            }
        }
        match (built, failed) {
            (Some(value), _) => Ok(value.clone()),
            (None, Some(e)) => Err(e),
            (None, None) => build(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<i64, Arc<OnceLock<Option<T>>>>> {
        self.under_way.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// At most a number of holders at once; more wait.
struct Gate {
    free: Mutex<usize>,
    freed: Condvar,
}

/// A place taken in a [`Gate`], given back when dropped.
struct Turn<'a>(&'a Gate);

impl Gate {
    fn new(places: usize) -> Gate {
        Gate { free: Mutex::new(places), freed: Condvar::new() }
    }

    fn enter(&self) -> Turn<'_> {
        let mut free = self.free.lock().unwrap_or_else(|e| e.into_inner());
        while *free == 0 {
            free = self.freed.wait(free).unwrap_or_else(|e| e.into_inner());
        }
        *free -= 1;
        Turn(self)
    }
}

impl Drop for Turn<'_> {
    fn drop(&mut self) {
        *self.0.free.lock().unwrap_or_else(|e| e.into_inner()) += 1;
        self.0.freed.notify_one();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    #[test]
    fn requests_at_once_share_one_build() {
        let shared: Shared<String> = Shared::default();
        let builds = AtomicUsize::new(0);
        let answers: Vec<Result<String, ()>> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..16)
                .map(|_| {
                    s.spawn(|| {
                        shared.get(7, true, || {
                            builds.fetch_add(1, Ordering::SeqCst);
                            std::thread::sleep(Duration::from_millis(200));
                            Ok("page".to_string())
                        })
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        assert!(answers.iter().all(|a| a.as_deref() == Ok("page")));
        assert_eq!(builds.load(Ordering::SeqCst), 1, "one build for the sixteen");
        // Once done, the next request builds anew (an import may have added reports).
        assert_eq!(shared.get(7, false, || Ok::<_, ()>("new".to_string())), Ok("new".to_string()));
        assert_eq!(shared.get(8, false, || Err::<String, _>("failed")), Err("failed"));
    }

    #[test]
    fn large_builds_take_turns() {
        let shared: Shared<usize> = Shared::default();
        let (now, most) = (AtomicUsize::new(0), AtomicUsize::new(0));
        std::thread::scope(|s| {
            for id in 0..6 {
                let (shared, now, most) = (&shared, &now, &most);
                s.spawn(move || {
                    shared.get(id, true, || {
                        let n = now.fetch_add(1, Ordering::SeqCst) + 1;
                        most.fetch_max(n, Ordering::SeqCst);
                        std::thread::sleep(Duration::from_millis(50));
                        now.fetch_sub(1, Ordering::SeqCst);
                        Ok::<_, ()>(1)
                    })
                });
            }
        });
        assert_eq!(most.load(Ordering::SeqCst), LARGE_AT_ONCE);
    }
}
