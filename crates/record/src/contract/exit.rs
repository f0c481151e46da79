//! The failure cause each exit code of `mlb worker` stands for (the codes
//! themselves are [`crate::exit::worker`]'s).
//!
//! A worker that catches a failure writes its own `.FAIL.` record and exits
//! with the code of its cause ([`RECORDED`]); the launcher reads the code
//! back with [`cause_of`] and writes no record of its own. Every other
//! ending (a signal, [`USAGE`], [`REPORT`], any other code) leaves the record
//! to the launcher.

use crate::contract::record::Cause;

pub use crate::exit::worker::{CONFIG, ERROR, LOAD, NAN, OK, PANIC, REPORT, USAGE};

/// The causes a worker records itself, each with the code it then exits with.
pub const RECORDED: [(Cause, i32); 5] =
    [(Cause::Config, CONFIG), (Cause::Error, ERROR), (Cause::Panic, PANIC), (Cause::Nan, NAN), (Cause::Load, LOAD)];

/// The code a worker exits with after recording a failure of `cause`;
/// `None` for a cause only the launcher records (crash, OOM, timeout...).
pub fn code_of(cause: Cause) -> Option<i32> {
    RECORDED.iter().find(|(c, _)| *c == cause).map(|&(_, code)| code)
}

/// The cause a worker recorded before exiting with `code`; `None` when a
/// worker exiting with `code` has recorded nothing.
pub fn cause_of(code: i32) -> Option<Cause> {
    RECORDED.iter().find(|(_, c)| *c == code).map(|&(cause, _)| cause)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_cause_with_a_code_maps_back() {
        let mut codes = Vec::new();
        for cause in Cause::ALL {
            if let Some(code) = code_of(cause) {
                assert_eq!(cause_of(code), Some(cause), "{cause:?} -> {code} -> back");
                codes.push(code);
            }
        }
        assert_eq!(codes.len(), RECORDED.len(), "every recorded cause is a Cause");
        for code in [OK, USAGE, REPORT] {
            assert_eq!(cause_of(code), None, "exit {code} records nothing");
            assert!(!codes.contains(&code));
        }
        codes.sort();
        codes.dedup();
        assert_eq!(codes.len(), RECORDED.len(), "one code per cause");
        // Only the worker's own failures have a code.
        for cause in [Cause::Crash, Cause::Oom, Cause::Timeout, Cause::Exit, Cause::Launch] {
            assert_eq!(code_of(cause), None, "{cause:?}");
        }
    }
}
