//! The instance's heap: memory a step frees stays for the next step.
//!
//! By default glibc gives the top of its heap back to the kernel as soon as
//! 128 KiB of it is free, and serves large blocks from fresh mappings. A
//! training step frees and allocates the same large activations every step,
//! so each step then page-faults and zeroes them again: about 15,000 faults
//! per step of resnet18 at batch 8 on the CPU, 5 to 9% of its time. Before
//! the plugin is loaded, the worker therefore sets glibc's trim threshold to
//! its maximum (the top of the heap is never given back) and its mmap
//! threshold to glibc's ceiling, 32 MiB (larger blocks are still mapped and
//! unmapped). The process keeps at most what a step's peak needed, which its
//! memory limit already allowed.
//!
//! The user's own choice wins: with `MLB_HEAP=libc`, or when the environment
//! sets glibc's malloc variables (`MALLOC_TRIM_THRESHOLD_`,
//! `MALLOC_MMAP_THRESHOLD_`, ... or `glibc.malloc.*` in `GLIBC_TUNABLES`),
//! the worker leaves the heap alone. Reports record which policy held
//! (`provenance.heap`).

use mlb_record::contract::env::{GLIBC_MALLOC_VARS, GLIBC_TUNABLES, HEAP};

/// glibc's mmap threshold ceiling on 64-bit targets (`HEAP_MAX_SIZE / 2`).
const MMAP_THRESHOLD: i32 = 32 << 20;

/// The heap policy an instance ran under.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeapPolicy {
    /// mlb set the thresholds: freed memory is kept for reuse.
    KeepFreed,
    /// The environment's glibc malloc settings are in force.
    Environment,
    /// glibc's defaults: asked for with `MLB_HEAP=libc`, or a C library
    /// without glibc's `mallopt`.
    Libc,
}

impl HeapPolicy {
    /// The name reports record.
    pub fn as_str(self) -> &'static str {
        match self {
            HeapPolicy::KeepFreed => "keep-freed",
            HeapPolicy::Environment => "environment",
            HeapPolicy::Libc => "libc",
        }
    }

    /// The policy an environment asks for (`var` reads one variable).
    pub fn requested(var: impl Fn(&str) -> Option<String>) -> HeapPolicy {
        if var(HEAP).is_some_and(|v| v == "libc") {
            return HeapPolicy::Libc;
        }
        let tunables = var(GLIBC_TUNABLES).is_some_and(|t| t.contains("glibc.malloc."));
        if tunables || GLIBC_MALLOC_VARS.iter().any(|name| var(name).is_some()) {
            return HeapPolicy::Environment;
        }
        HeapPolicy::KeepFreed
    }
}

/// Applies the policy this process's environment asks for and returns the
/// one that holds. Call it before the plugin is loaded.
pub fn apply() -> HeapPolicy {
    match HeapPolicy::requested(|name| std::env::var(name).ok()) {
        HeapPolicy::KeepFreed if keep_freed() => HeapPolicy::KeepFreed,
        HeapPolicy::KeepFreed => HeapPolicy::Libc,
        other => other,
    }
}

/// Sets glibc's thresholds; false when the C library refused or lacks them.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn keep_freed() -> bool {
    use nix::libc::{mallopt, M_MMAP_THRESHOLD, M_TRIM_THRESHOLD};
    // SAFETY: mallopt only sets allocator parameters, under the allocator's
    // own lock; it returns 0 for a rejected value.
    unsafe { mallopt(M_TRIM_THRESHOLD, i32::MAX) == 1 && mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD) == 1 }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn keep_freed() -> bool {
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn requested(pairs: &[(&str, &str)]) -> HeapPolicy {
        let env: HashMap<String, String> = pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        HeapPolicy::requested(|name| env.get(name).cloned())
    }

    #[test]
    fn the_users_choice_wins() {
        assert_eq!(requested(&[]), HeapPolicy::KeepFreed);
        assert_eq!(requested(&[("MLB_HEAP", "libc")]), HeapPolicy::Libc);
        assert_eq!(requested(&[("MLB_HEAP", "keep-freed")]), HeapPolicy::KeepFreed);
        assert_eq!(requested(&[("MALLOC_TRIM_THRESHOLD_", "131072")]), HeapPolicy::Environment);
        assert_eq!(requested(&[("MALLOC_ARENA_MAX", "2")]), HeapPolicy::Environment);
        assert_eq!(requested(&[("GLIBC_TUNABLES", "glibc.malloc.mmap_threshold=65536")]), HeapPolicy::Environment);
        assert_eq!(requested(&[("GLIBC_TUNABLES", "glibc.rtld.nns=2")]), HeapPolicy::KeepFreed);
        assert_eq!(requested(&[("MLB_HEAP", "libc"), ("MALLOC_TOP_PAD_", "0")]), HeapPolicy::Libc);
    }

    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    #[test]
    fn freed_blocks_stay_in_the_heap() {
        use nix::libc::{free, mallinfo2, malloc, memset};
        assert!(keep_freed());
        const SIZE: usize = 16 << 20;
        // SAFETY: a block is allocated, written and freed once; its chunk
        // header (the word before it) is read while it is allocated;
        // mallinfo2 only reads statistics.
        unsafe {
            let block = malloc(SIZE);
            assert!(!block.is_null());
            memset(block, 1, SIZE);
            // glibc marks a block served by a mapping of its own with bit 1
            // of its chunk's size word; under its defaults a first 16 MiB
            // block is one, unmapped again when freed.
            let size_word = *(block as *const usize).sub(1);
            assert_eq!(size_word & 2, 0, "the block was a mapping of its own");
            free(block);
            let free_bytes = mallinfo2().fordblks;
            assert!(free_bytes >= SIZE, "the freed block was given back: {free_bytes} bytes free");
        }
    }
}
