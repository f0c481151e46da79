//! Why an instance failed.

use serde::{Deserialize, Serialize};

/// The cause of a failed instance, as recorded in `failure.cause`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Cause {
    /// The configuration was refused before anything ran.
    Config,
    /// The plugin could not be loaded.
    Load,
    /// The workload returned an error.
    Error,
    /// The workload panicked (caught).
    Panic,
    /// A step reported a NaN or infinite loss.
    Nan,
    /// The process died by a signal.
    Crash,
    /// The process was killed for exceeding its memory limit.
    Oom,
    /// The process ran past its time limit and was killed.
    Timeout,
    /// The process exited non-zero without writing a record.
    Exit,
    /// The instance could not be started.
    Launch,
}

impl Cause {
    /// Every cause, in declaration order.
    pub const ALL: [Cause; 10] = [
        Cause::Config,
        Cause::Load,
        Cause::Error,
        Cause::Panic,
        Cause::Nan,
        Cause::Crash,
        Cause::Oom,
        Cause::Timeout,
        Cause::Exit,
        Cause::Launch,
    ];
}

/// A cause shows as its name in `failure.cause` (`oom`).
impl std::fmt::Display for Cause {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Cause::Config => "config",
            Cause::Load => "load",
            Cause::Error => "error",
            Cause::Panic => "panic",
            Cause::Nan => "nan",
            Cause::Crash => "crash",
            Cause::Oom => "oom",
            Cause::Timeout => "timeout",
            Cause::Exit => "exit",
            Cause::Launch => "launch",
        })
    }
}

/// A failure: cause, human message and, when known, the step it happened at.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Failure {
    /// What kind of failure.
    pub cause: Cause,
    /// What happened, for a person.
    pub message: String,
    /// The 1-based step number, when the failure happened in a step.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub step: Option<u64>,
}

impl Failure {
    /// A failure not tied to a step.
    pub fn new(cause: Cause, message: impl Into<String>) -> Self {
        Failure { cause, message: message.into(), step: None }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn all_lists_every_cause_once() {
        for (i, cause) in Cause::ALL.into_iter().enumerate() {
            // A new variant fails to compile here until it is given a place in `ALL`.
            let at = match cause {
                Cause::Config => 0,
                Cause::Load => 1,
                Cause::Error => 2,
                Cause::Panic => 3,
                Cause::Nan => 4,
                Cause::Crash => 5,
                Cause::Oom => 6,
                Cause::Timeout => 7,
                Cause::Exit => 8,
                Cause::Launch => 9,
            };
            assert_eq!(at, i, "{cause:?}");
        }
    }

    #[test]
    fn a_cause_shows_as_its_recorded_name() {
        for cause in Cause::ALL {
            assert_eq!(serde_json::to_value(cause).unwrap(), cause.to_string(), "{cause:?}");
        }
    }
}
