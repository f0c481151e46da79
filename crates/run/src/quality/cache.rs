//! Dropping the page cache before a run, where mlb may: as root, `sync`
//! then `3` written to `/proc/sys/vm/drop_caches` (page cache, dentries and
//! inodes), so that no run reads its data from memory another left warm.
//! Elsewhere the cache stays, and every report of the run says why.
//!
//! The launcher drops it before each config's instances start and tells
//! them the outcome in the instance environment
//! ([`PAGE_CACHE`](mlb_record::contract::env::PAGE_CACHE)), which the worker
//! records ([`PageCache::from_env`]).

use mlb_record::contract::quality::PageCache;
use std::path::Path;

/// The file that drops the caches, under the host's `/proc`.
pub const DROP_CACHES: &str = "sys/vm/drop_caches";

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
}
