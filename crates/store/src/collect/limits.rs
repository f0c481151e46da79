//! What one push may hold (`mlb serve --push-max-*`) and how often a key
//! may push (its `per_minute`): a push past any of them is refused before
//! anything of it is stored.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The bounds on one push.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// The request body, compressed, in bytes.
    pub body_bytes: u64,
    /// The files (and folders) it unpacks to.
    pub files: u64,
    /// What it unpacks to, in all, in bytes: a small body that inflates
    /// past this (a decompression bomb) is refused as it inflates.
    pub unpacked_bytes: u64,
    /// One file unpacked, in bytes (a report file is read whole; mlb's
    /// reader takes at most 256 MiB).
    pub file_bytes: u64,
}

impl Default for Limits {
    /// A run folder of a few thousand reports with their logs: 256 MiB
    /// sent, 20,000 files, 2 GiB unpacked, 256 MiB a file.
    fn default() -> Limits {
        Limits {
            body_bytes: 256 << 20,
            files: 20_000,
            unpacked_bytes: 2 << 30,
            file_bytes: mlb_record::contract::read::MAX_REPORT_BYTES as u64,
        }
    }
}

/// The window a key's rate is counted over.
pub const WINDOW: Duration = Duration::from_secs(60);

/// The pushes each key made in the last minute.
#[derive(Debug, Default)]
pub struct Rates {
    seen: Mutex<HashMap<i64, VecDeque<Instant>>>,
}

impl Rates {
    /// Counts a push of the key `key` now, unless it made `per_minute`
    /// in the last minute: then how long until it may push again.
    pub fn admit(&self, key: i64, per_minute: u32, now: Instant) -> Result<(), Duration> {
        let mut seen = self.seen.lock().unwrap_or_else(|e| e.into_inner());
        let times = seen.entry(key).or_default();
        while times.front().is_some_and(|t| now.duration_since(*t) >= WINDOW) {
            times.pop_front();
        }
        if times.len() >= per_minute as usize {
            let oldest = times.front().copied().unwrap_or(now);
            return Err(WINDOW.saturating_sub(now.duration_since(oldest)).max(Duration::from_secs(1)));
        }
        times.push_back(now);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_pushes_its_rate_a_minute_and_no_more() {
        let rates = Rates::default();
        let start = Instant::now();
        for _ in 0..3 {
            rates.admit(1, 3, start).unwrap();
        }
        let wait = rates.admit(1, 3, start + Duration::from_secs(10)).unwrap_err();
        assert_eq!(wait, Duration::from_secs(50));
        rates.admit(2, 3, start).expect("another key counts apart");
        rates.admit(1, 3, start + WINDOW).expect("a minute later the first pushes are out of the window");
        assert!(rates.admit(1, 0, start).is_err(), "a rate of 0 admits nothing");
    }
}
