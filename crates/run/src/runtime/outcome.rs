//! How an instance ended, and the failure the launcher records when the
//! instance could not (see [`contract::exit`](mlb_record::contract::exit)).

use mlb_record::contract::exit;
use mlb_record::contract::record::{Cause, Failure};
use serde::{Deserialize, Serialize};

/// How an instance ended. A Slurm task sends it to the launcher as it is.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "kebab-case")]
pub enum Outcome {
    /// Completed.
    Ok,
    /// Exited non-zero (or could not start).
    Failed {
        /// The cause recorded.
        cause: Cause,
        /// Exit code, when it exited.
        code: Option<i32>,
        /// What happened.
        message: String,
        /// The instance wrote its own failure record.
        recorded: bool,
    },
    /// Died by a signal.
    Crashed {
        /// The signal.
        signal: i32,
    },
    /// Killed by the kernel's OOM killer for exceeding its slot's memory.
    OomKilled {
        /// The slot's memory limit.
        limit_bytes: Option<u64>,
    },
    /// Killed after `--timeout`.
    TimedOut {
        /// The limit, seconds.
        after: f64,
    },
    /// A step's loss was NaN.
    Nan,
    /// Stopped by Ctrl-C or SIGTERM.
    Interrupted,
}

/// What the launcher knows when an instance's process has ended.
#[derive(Clone, Debug)]
pub struct Ending {
    /// `Some(code)` when it exited.
    pub code: Option<i32>,
    /// `Some(signal)` when a signal killed it.
    pub signal: Option<i32>,
    /// The launcher killed it for running past `--timeout` (seconds).
    pub timed_out: Option<f64>,
    /// The launcher killed it on Ctrl-C/SIGTERM.
    pub interrupted: bool,
    /// Its group's OOM kill counter went up while it ran.
    pub oom_killed: bool,
    /// The slot's memory limit.
    pub limit_bytes: Option<u64>,
    /// It is an `mlb worker` (whose exit codes are known).
    pub worker: bool,
    /// It announced its report (`report: PATH`) on stdout.
    pub reported: bool,
    /// The last lines it wrote on stderr.
    pub stderr_tail: String,
}

/// What is said of a worker that exited 0 and announced no report: it ended
/// (a plugin's `_exit(0)`, say) before it wrote one, so it failed.
pub const SILENT_EXIT: &str = "the worker exited 0 without writing its report";

/// Classifies an ended instance.
pub fn classify(e: &Ending) -> Outcome {
    if e.interrupted {
        return Outcome::Interrupted;
    }
    if let Some(after) = e.timed_out {
        return Outcome::TimedOut { after };
    }
    if e.oom_killed && e.code != Some(exit::OK) {
        return Outcome::OomKilled { limit_bytes: e.limit_bytes };
    }
    let tail = e.stderr_tail.trim();
    let with_tail = |what: String| if tail.is_empty() { what } else { format!("{what}: {tail}") };
    match (e.code, e.signal) {
        (Some(exit::OK), _) if e.worker && !e.reported => Outcome::Failed {
            cause: Cause::Exit,
            code: Some(exit::OK),
            message: with_tail(SILENT_EXIT.into()),
            recorded: false,
        },
        (Some(exit::OK), _) => Outcome::Ok,
        (Some(exit::NAN), _) if e.worker => Outcome::Nan,
        (Some(code), _) => {
            let (cause, recorded) = match exit::cause_of(code) {
                Some(cause) if e.worker => (cause, true),
                // The worker refused its command line before anything ran.
                None if e.worker && code == exit::USAGE => (Cause::Config, false),
                _ => (Cause::Exit, false),
            };
            Outcome::Failed { cause, code: Some(code), message: with_tail(format!("exit code {code}")), recorded }
        }
        (None, Some(signal)) => Outcome::Crashed { signal },
        (None, None) => Outcome::Failed {
            cause: Cause::Exit,
            code: None,
            message: "ended without an exit status".into(),
            recorded: false,
        },
    }
}

impl Outcome {
    /// An instance that could not be started, or whose runtime failed it: `message` says why.
    pub fn not_started(message: String) -> Self {
        Outcome::Failed { cause: Cause::Launch, code: None, message, recorded: false }
    }

    /// An instance whose supervisor where it ran was killed after it
    /// started it (`message` says which and how): recorded as a crash,
    /// since something killed it, not as a failure to start.
    pub fn lost(message: String) -> Self {
        Outcome::Failed { cause: Cause::Crash, code: None, message, recorded: false }
    }

    /// True for a completed instance.
    pub fn passed(&self) -> bool {
        matches!(self, Outcome::Ok)
    }

    /// `ok`, `failed`, `crashed`, `oom-killed`, `timed-out`, `nan`, `interrupted`.
    pub fn word(&self) -> &'static str {
        match self {
            Outcome::Ok => "ok",
            Outcome::Failed { .. } => "failed",
            Outcome::Crashed { .. } => "crashed",
            Outcome::OomKilled { .. } => "oom-killed",
            Outcome::TimedOut { .. } => "timed-out",
            Outcome::Nan => "nan",
            Outcome::Interrupted => "interrupted",
        }
    }

    /// The failure to record, unless the instance passed or recorded it itself.
    pub fn failure_to_record(&self) -> Option<Failure> {
        let failure = match self {
            Outcome::Ok | Outcome::Nan | Outcome::Interrupted | Outcome::Failed { recorded: true, .. } => return None,
            Outcome::Failed { cause, message, .. } => Failure::new(*cause, message.clone()),
            Outcome::Crashed { signal } => {
                Failure::new(Cause::Crash, format!("killed by signal {signal} ({})", signal_name(*signal)))
            }
            Outcome::OomKilled { limit_bytes } => {
                let limit = limit_bytes.map_or_else(String::new, |l| format!(" of {} MiB", l >> 20));
                Failure::new(
                    Cause::Oom,
                    format!("killed by the kernel's OOM killer: the instance exceeded its slot's memory limit{limit}"),
                )
            }
            Outcome::TimedOut { after } => {
                Failure::new(Cause::Timeout, format!("killed after running past --timeout {after} s"))
            }
        };
        Some(failure)
    }

    /// One line for a person.
    pub fn describe(&self) -> String {
        match self.failure_to_record() {
            Some(f) => format!("{}: {}", self.word(), f.message),
            None => match self {
                Outcome::Failed { message, .. } => format!("failed: {message}"),
                Outcome::Nan => "nan: a step's loss was NaN".into(),
                Outcome::Interrupted => "interrupted: stopped by Ctrl-C/SIGTERM before it finished".into(),
                _ => self.word().into(),
            },
        }
    }
}

fn signal_name(signal: i32) -> String {
    nix::sys::signal::Signal::try_from(signal).map_or_else(|_| "unknown".into(), |s| s.as_str().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ending() -> Ending {
        Ending {
            code: None,
            signal: None,
            timed_out: None,
            interrupted: false,
            oom_killed: false,
            limit_bytes: Some(64 << 20),
            worker: true,
            reported: true,
            stderr_tail: String::new(),
        }
    }

    #[test]
    fn every_outcome() {
        assert_eq!(classify(&Ending { code: Some(0), ..ending() }), Outcome::Ok);
        assert_eq!(classify(&Ending { code: Some(5), ..ending() }), Outcome::Nan);
        assert_eq!(classify(&Ending { signal: Some(11), ..ending() }), Outcome::Crashed { signal: 11 });
        let oom = classify(&Ending { signal: Some(9), oom_killed: true, ..ending() });
        assert_eq!(oom, Outcome::OomKilled { limit_bytes: Some(64 << 20) });
        assert!(oom.failure_to_record().unwrap().message.contains("of 64 MiB"));
        let t = classify(&Ending { signal: Some(9), timed_out: Some(2.0), ..ending() });
        assert_eq!(t.failure_to_record().unwrap().cause, Cause::Timeout);
        let f = classify(&Ending { code: Some(3), stderr_tail: "boom\n".into(), ..ending() });
        assert!(
            matches!(&f, Outcome::Failed { cause: Cause::Error, recorded: true, message, .. } if message == "exit code 3: boom")
        );
        assert!(f.failure_to_record().is_none(), "the worker wrote it");
        let cmd = classify(&Ending { code: Some(3), worker: false, ..ending() });
        assert_eq!(cmd.failure_to_record().unwrap().cause, Cause::Exit);
        let config = classify(&Ending { code: Some(exit::CONFIG), ..ending() });
        assert!(matches!(config, Outcome::Failed { cause: Cause::Config, recorded: true, .. }));
        assert!(config.failure_to_record().is_none(), "the worker wrote it");
        let unwritable = classify(&Ending { code: Some(exit::REPORT), ..ending() });
        assert_eq!(unwritable.failure_to_record().unwrap().cause, Cause::Exit);
        assert!(classify(&Ending { signal: Some(6), ..ending() }).describe().contains("SIGABRT"));
    }

    #[test]
    fn a_worker_that_exits_0_without_its_report_failed_and_a_command_did_not() {
        let silent = classify(&Ending { code: Some(0), reported: false, stderr_tail: "bye".into(), ..ending() });
        let failure = silent.failure_to_record().expect("the launcher writes the record");
        assert_eq!(failure.cause, Cause::Exit);
        assert_eq!(failure.message, format!("{SILENT_EXIT}: bye"));
        assert!(!silent.passed());
        // A task killed where it ran, after it started: a crash, not a launch failure.
        let lost = Outcome::lost("the Slurm task was killed".into()).failure_to_record().unwrap();
        assert_eq!((lost.cause, lost.message.as_str()), (Cause::Crash, "the Slurm task was killed"));
        // A `cmd` job announces no report: its exit status says it all.
        assert_eq!(classify(&Ending { code: Some(0), reported: false, worker: false, ..ending() }), Outcome::Ok);
    }

    #[test]
    fn an_outcome_reads_back_as_a_task_wrote_it() {
        for outcome in [
            Outcome::Ok,
            Outcome::TimedOut { after: 2.5 },
            Outcome::OomKilled { limit_bytes: Some(1 << 20) },
            Outcome::Failed { cause: Cause::Config, code: Some(4), message: "bad".into(), recorded: true },
        ] {
            let text = serde_json::to_string(&outcome).unwrap();
            assert_eq!(serde_json::from_str::<Outcome>(&text).unwrap(), outcome, "{text}");
        }
    }

    #[test]
    fn a_worker_whose_command_line_was_refused_is_recorded_by_the_launcher() {
        let tail = "error: unexpected argument '-x' found";
        let refused = classify(&Ending { code: Some(exit::USAGE), stderr_tail: tail.into(), ..ending() });
        assert!(matches!(refused, Outcome::Failed { recorded: false, .. }), "{refused:?}");
        let failure = refused.failure_to_record().expect("the launcher writes the record");
        assert_eq!(failure.cause, Cause::Config);
        assert_eq!(failure.message, format!("exit code 2: {tail}"));
        // Every code of a recorded cause is taken as recorded, and no other.
        for code in 0..=255 {
            let o = classify(&Ending { code: Some(code), ..ending() });
            let recorded = o.passed() || o == Outcome::Nan || matches!(o, Outcome::Failed { recorded: true, .. });
            assert_eq!(recorded, code == exit::OK || exit::cause_of(code).is_some(), "exit {code}: {o:?}");
        }
    }
}
