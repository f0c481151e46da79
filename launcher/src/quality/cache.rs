//! Dropping the page cache before a run, where mlb may: as root, `sync`
//! then `3` written to `/proc/sys/vm/drop_caches` (page cache, dentries and
//! inodes), so that no run reads its data from memory another left warm.
//! Elsewhere the cache stays, and every report of the run says why.
//!
//! The launcher drops it before each config's instances start and tells
//! them the outcome in the instance environment
//! ([`PAGE_CACHE`](crate::contract::env::PAGE_CACHE)), which the worker
//! records ([`PageCache::from_env`]).

use serde::{Deserialize, Serialize};
use std::path::Path;

/// The file that drops the caches, under the host's `/proc`.
pub const DROP_CACHES: &str = "sys/vm/drop_caches";

/// Whether the page cache was dropped before the run, and why not.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PageCache {
    /// It was dropped.
    pub dropped: bool,
    /// Why it was not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub why_not: Option<String>,
}

impl PageCache {
    /// Dropped.
    pub fn dropped() -> Self {
        PageCache { dropped: true, why_not: None }
    }

    /// Kept, for `why`.
    pub fn kept(why: impl Into<String>) -> Self {
        PageCache { dropped: false, why_not: Some(why.into()) }
    }

    /// As the environment variable carries it: `dropped`, or `kept: WHY`.
    pub fn to_env(&self) -> String {
        match &self.why_not {
            None if self.dropped => "dropped".into(),
            why => format!("kept: {}", why.as_deref().unwrap_or("unknown")),
        }
    }

    /// Reads what [`to_env`](Self::to_env) writes; a worker started without
    /// it (by hand) was not told of any drop.
    pub fn from_env(text: Option<&str>) -> Self {
        match text.map(str::trim) {
            Some("dropped") => PageCache::dropped(),
            Some(other) => PageCache::kept(other.strip_prefix("kept:").unwrap_or(other).trim()),
            None => PageCache::kept("the worker was not started by the launcher"),
        }
    }
}

/// Drops the page cache through `proc` (the host's `/proc`) when `root`;
/// says what happened.
pub fn drop_page_cache(proc: &Path, root: bool) -> PageCache {
    if !root {
        return PageCache::kept(
            "mlb does not run as root; fix: run mlb as root to drop the page cache before each run",
        );
    }
    nix::unistd::sync();
    let file = proc.join(DROP_CACHES);
    match std::fs::write(&file, "3\n") {
        Ok(()) => PageCache::dropped(),
        Err(e) => PageCache::kept(format!("cannot write {}: {e}", file.display())),
    }
}

/// Drops the host's page cache when this process may.
pub fn drop_host_page_cache() -> PageCache {
    drop_page_cache(Path::new("/proc"), nix::unistd::geteuid().is_root())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn root_writes_3_and_others_say_why_not() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("sys/vm")).unwrap();
        assert_eq!(drop_page_cache(dir.path(), true), PageCache::dropped());
        assert_eq!(std::fs::read_to_string(dir.path().join(DROP_CACHES)).unwrap(), "3\n");

        let not_root = drop_page_cache(dir.path(), false);
        assert!(!not_root.dropped && not_root.why_not.as_deref().unwrap().contains("not run as root"));
        let missing = drop_page_cache(&dir.path().join("none"), true);
        assert!(missing.why_not.as_deref().unwrap().starts_with("cannot write"), "{missing:?}");
    }

    #[test]
    fn the_environment_carries_it_both_ways() {
        for cache in [PageCache::dropped(), PageCache::kept("not root")] {
            assert_eq!(PageCache::from_env(Some(&cache.to_env())), cache);
        }
        assert_eq!(PageCache::kept("x").to_env(), "kept: x");
        assert!(!PageCache::from_env(None).dropped);
    }
}
