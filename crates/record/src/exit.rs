//! How a process of mlb ends: the exit statuses of `mlb` (the launcher) and
//! of `mlb worker`, and whether an error refused the work or failed it
//! ([`Kind`]).
//!
//! This module imports nothing of the crate: every error says its [`Kind`]
//! through [`Classify`] without knowing the edge that prints it.
//!
//! | status of `mlb` | meaning |
//! |---|---|
//! | 0 ([`EXIT_OK`]) | done; for a launch: every instance passed |
//! | 1 ([`EXIT_FAILED`]) | failed; for a launch: an instance failed, or the output folder filled up, or the Docker daemon went away; for `mlb burn`: a check of a slot failed; for `mlb doctor`: a check failed; for `mlb accept`: a verdict failed or was not measured, or (`--verify`) the record is not verified: a field changed, its signature is bad or missing, it is unsigned, or its signer was not checked against `--allowed-signers` (0 only for a record signed by an allowed signer, as computed again) |
//! | 2 ([`EXIT_REFUSED`]) | refused before anything started (bad arguments, jobs file, rules file, missing plugin, image or daemon, another run holding the host) |
//! | 130 ([`EXIT_INTERRUPTED`]) | interrupted (Ctrl-C, `Ctrl-\` (SIGQUIT), SIGTERM, SIGHUP, SIGUSR1, SIGUSR2) |
//!
//! The worker's statuses are in [`worker`].

/// Exit status when everything asked for was done (for a launch: every
/// instance passed).
pub const EXIT_OK: i32 = 0;
/// Exit status when something failed (an instance, or mlb while working).
pub const EXIT_FAILED: i32 = 1;
/// Exit status when mlb refused before it started anything (as clap's own
/// usage errors).
pub const EXIT_REFUSED: i32 = 2;
/// Exit status after Ctrl-C, SIGQUIT, SIGTERM, SIGHUP or a user signal (128 + SIGINT,
/// as a shell reports Ctrl-C).
pub const EXIT_INTERRUPTED: i32 = 130;

/// What an error did to the work asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Nothing was started: the request was refused (bad arguments or
    /// files, a plugin, image or daemon missing). Exit status 2.
    Refused,
    /// Something was started and failed. Exit status 1.
    Failed,
    /// Stopped by Ctrl-C or SIGTERM before it was done. Exit status 130.
    Interrupted,
}

impl Kind {
    /// The exit status of this kind of error.
    pub fn exit_code(self) -> i32 {
        match self {
            Kind::Refused => EXIT_REFUSED,
            Kind::Failed => EXIT_FAILED,
            Kind::Interrupted => EXIT_INTERRUPTED,
        }
    }
}

/// An error that knows whether it stopped mlb before it started anything.
pub trait Classify {
    /// Refused before anything started, or failed while working.
    fn kind(&self) -> Kind;
}

/// Exit statuses of `mlb worker`. Which failure cause each recorded status
/// stands for is said by the contract between launcher and worker (its
/// `exit` module), which builds on these.
pub mod worker {
    /// The instance completed and its report was written.
    pub const OK: i32 = 0;
    /// The worker's command line was refused before anything ran: clap's own
    /// code for a usage error. No record is written; the launcher writes one.
    pub const USAGE: i32 = 2;
    /// The workload returned an error.
    pub const ERROR: i32 = 3;
    /// The workload panicked.
    pub const PANIC: i32 = 4;
    /// A step reported a NaN (or infinite) loss.
    pub const NAN: i32 = 5;
    /// The plugin could not be loaded.
    pub const LOAD: i32 = 6;
    /// The report could not be written (nor, then, a failure record).
    pub const REPORT: i32 = 7;
    /// The configuration was refused (bad JSON, `repeat <= skip`, bad counts).
    /// Not 2: that is clap's code for a command line it refused, after which
    /// nothing is recorded.
    pub const CONFIG: i32 = 8;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals_exit_2_failures_1() {
        assert_eq!(Kind::Refused.exit_code(), 2);
        assert_eq!(Kind::Failed.exit_code(), 1);
    }
}
