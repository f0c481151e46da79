//! Work built once for every request that asks for it while it is being
//! built, and kept a while for the next ones: the costly part of a run's
//! page (its report texts inflated, read and aggregated; kept while the
//! run's stored texts are the same), at most [`LARGE_AT_ONCE`] builds of
//! large runs at once (sixteen requests of one 77 MB report each held their
//! own copies of its text and entries, 3.3 GB in all); and every answer,
//! for [`ANSWERS_KEPT_FOR`] (fifty requests at once each ran the same
//! queries and drew the same page, a second each on two loaded cores).

use std::collections::{HashMap, VecDeque};
use std::hash::Hash;
use std::sync::{Arc, Condvar, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// Builds of large runs (more than [`LARGE_TEXT`] of stored text) under way at once.
pub const LARGE_AT_ONCE: usize = 2;

/// A run whose stored (deflated) report texts are larger than this is
/// large: its build holds several times as much.
pub const LARGE_TEXT: u64 = 4 * 1024 * 1024;

/// Run builds kept for the next requests.
pub const RUNS_KEPT: usize = 8;

/// How long a run's build is kept (while its texts are the same).
pub const RUNS_KEPT_FOR: Duration = Duration::from_secs(60);

/// Answers kept for the next requests.
pub const ANSWERS_KEPT: usize = 256;

/// How long an answer is kept: what an import adds shows after this.
pub const ANSWERS_KEPT_FOR: Duration = Duration::from_secs(2);

/// The builds under way, by id, and the last ones made.
pub struct Shared<I, T> {
    under_way: Mutex<HashMap<I, Arc<OnceLock<Option<T>>>>>,
    /// The last builds: id, what it was built from (`key`), when, the build.
    kept: Mutex<VecDeque<(I, String, Instant, T)>>,
    most: usize,
    kept_for: Duration,
    large: Gate,
}

impl<I, T> Shared<I, T> {
    /// At most `most` builds kept, each for `kept_for`.
    pub fn new(most: usize, kept_for: Duration) -> Self {
        Shared { under_way: Mutex::default(), kept: Mutex::default(), most, kept_for, large: Gate::new(LARGE_AT_ONCE) }
    }
}

impl<I: Hash + Eq + Clone, T: Clone> Shared<I, T> {
    /// What `build` gives for `id` made of `key` (a run's stored texts):
    /// kept from a build of the same `key` not older than its keeping, built by
    /// this request, or by the one already building it (a copy of its
    /// result); a build that failed is run again by each request that waited
    /// for it, for its own error. `large`: the run's texts take
    /// [`LARGE_TEXT`] or more.
    pub fn get<E>(&self, id: &I, key: &str, large: bool, build: impl Fn() -> Result<T, E>) -> Result<T, E> {
        {
            let mut kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
            kept.retain(|(_, _, at, _)| at.elapsed() < self.kept_for);
            if let Some((_, _, _, value)) = kept.iter().find(|(i, k, _, _)| i == id && k == key) {
                return Ok(value.clone());
            }
        }
        let cell = Arc::clone(self.lock().entry(id.clone()).or_default());
        let mut failed = None;
        let built = cell.get_or_init(|| {
            let _turn = large.then(|| self.large.enter());
            build().map_err(|e| failed = Some(e)).ok()
        });
        {
            let mut under_way = self.lock();
            if under_way.get(id).is_some_and(|c| Arc::ptr_eq(c, &cell)) {
                under_way.remove(id);
            }
        }
        match (built, failed) {
            (Some(value), _) => {
                let mut kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
                if !kept.iter().any(|(i, k, _, _)| i == id && k == key) {
                    kept.retain(|(i, _, _, _)| i != id);
                    if kept.len() >= self.most {
                        kept.pop_front();
                    }
                    kept.push_back((id.clone(), key.to_string(), Instant::now(), value.clone()));
                }
                Ok(value.clone())
            }
            (None, Some(e)) => Err(e),
            (None, None) => build(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<I, Arc<OnceLock<Option<T>>>>> {
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
        let shared: Shared<i64, String> = Shared::new(RUNS_KEPT, RUNS_KEPT_FOR);
        let builds = AtomicUsize::new(0);
        let answers: Vec<Result<String, ()>> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..16)
                .map(|_| {
                    s.spawn(|| {
                        shared.get(&7, "a", true, || {
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
        // Kept for the next request while the texts are the same; built anew when an import changed them.
        assert_eq!(shared.get(&7, "a", false, || Ok::<_, ()>("new".to_string())), Ok("page".to_string()));
        assert_eq!(shared.get(&7, "b", false, || Ok::<_, ()>("new".to_string())), Ok("new".to_string()));
        assert_eq!(shared.get(&8, "a", false, || Err::<String, _>("failed")), Err("failed"));
    }

    #[test]
    fn large_builds_take_turns() {
        let shared: Shared<i64, usize> = Shared::new(RUNS_KEPT, RUNS_KEPT_FOR);
        let (now, most) = (AtomicUsize::new(0), AtomicUsize::new(0));
        std::thread::scope(|s| {
            for id in 0..6 {
                let (shared, now, most) = (&shared, &now, &most);
                s.spawn(move || {
                    shared.get(&id, "a", true, || {
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
