//! The effective configuration of a workload's instance and its timing
//! plan: checked by the launcher before a run, followed by the worker.

use mlb_record::contract::record::arg_key;
use mlb_record::fix::Fix;
use serde_json::{Map, Value};

/// Warm-up observations excluded when the config does not set `skip`.
pub const DEFAULT_SKIP: u64 = 10;

/// How many observations to run and which are timed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    /// Observations in all.
    pub repeat: u64,
    /// Steps per observation.
    pub number: u64,
    /// Leading observations excluded as warm-up.
    pub skip: u64,
}

/// A configuration the worker refuses.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum PlanError {
    /// An argument is missing or not a positive integer.
    #[error("argument `{key}` must be a positive integer, got {got}")]
    BadCount {
        /// The argument.
        key: &'static str,
        /// What it was.
        got: String,
    },
    /// Fewer observations than warm-up with the default skip.
    #[error(
        "repeat ({repeat}) must be greater than the default skip ({DEFAULT_SKIP}) so that some observations are timed"
    )]
    RepeatNotAboveDefaultSkip {
        /// Observations asked for.
        repeat: u64,
    },
    /// The explicit skip leaves nothing timed.
    #[error("skip ({skip}) leaves no timed observation out of repeat ({repeat})")]
    NothingTimed {
        /// Observations asked for.
        repeat: u64,
        /// Warm-up asked for.
        skip: u64,
    },
}

/// The plugin's defaults overlaid with the instance's arguments, keys
/// normalised (`--batch-size` -> `batch_size`).
pub fn effective_config(defaults: &Value, args: &Map<String, Value>) -> Map<String, Value> {
    let mut out: Map<String, Value> = match defaults {
        Value::Object(d) => d.iter().map(|(k, v)| (arg_key(k), v.clone())).collect(),
        _ => Map::new(),
    };
    out.extend(args.iter().map(|(k, v)| (arg_key(k), v.clone())));
    out
}

impl Plan {
    /// Reads `repeat`, `number` and `skip` from an effective config.
    ///
    /// `repeat <= skip` is refused: with the default skip it would time
    /// nothing (the original suite then reported from a single warm-up
    /// observation); with an explicit skip it would time nothing either.
    pub fn from_config(config: &Map<String, Value>) -> Result<Self, PlanError> {
        let Counts { repeat, number, skip, explicit_skip } = Counts::read(config)?;
        if repeat <= skip {
            return Err(if explicit_skip {
                PlanError::NothingTimed { repeat, skip }
            } else {
                PlanError::RepeatNotAboveDefaultSkip { repeat }
            });
        }
        Ok(Plan { repeat, number, skip })
    }

    /// The plan of a run: [`Plan::on_the_clock`] for a run to quality
    /// (`to_quality`), else [`Plan::from_config`].
    pub fn of_run(config: &Map<String, Value>, to_quality: bool) -> Result<Self, PlanError> {
        if to_quality {
            Plan::on_the_clock(config)
        } else {
            Plan::from_config(config)
        }
    }

    /// The plan of a run to quality (docs/quality.md): the clock times every
    /// block of training, so nothing is skipped, and `repeat` need not
    /// exceed any skip (a workload whose default `repeat` is at most the
    /// default skip runs to quality as it is). The counts are still read
    /// and checked as [`Plan::from_config`] reads them.
    pub fn on_the_clock(config: &Map<String, Value>) -> Result<Self, PlanError> {
        let Counts { repeat, number, .. } = Counts::read(config)?;
        Ok(Plan { repeat, number, skip: 0 })
    }
}

/// The counts of a config as written, before any rule between them.
struct Counts {
    repeat: u64,
    number: u64,
    skip: u64,
    explicit_skip: bool,
}

impl Counts {
    fn read(config: &Map<String, Value>) -> Result<Counts, PlanError> {
        let count = |key: &'static str, default: Option<u64>| -> Result<u64, PlanError> {
            let bad = |got: String| PlanError::BadCount { key, got };
            match config.get(key) {
                None | Some(Value::Null) => default.ok_or_else(|| bad("nothing".into())),
                Some(Value::Number(n)) => n.as_u64().ok_or_else(|| bad(n.to_string())),
                Some(Value::String(s)) => s.trim().parse().map_err(|_| bad(format!("{s:?}"))),
                Some(other) => Err(bad(other.to_string())),
            }
        };
        let repeat = count("repeat", None)?;
        let number = count("number", None)?;
        for (key, v) in [("repeat", repeat), ("number", number)] {
            if v == 0 {
                return Err(PlanError::BadCount { key, got: "0".into() });
            }
        }
        let explicit_skip = config.get("skip").is_some_and(|v| !v.is_null());
        let skip = count("skip", Some(DEFAULT_SKIP))?;
        Ok(Counts { repeat, number, skip, explicit_skip })
    }
}

impl Fix for PlanError {
    fn fix(&self) -> Option<String> {
        Some(
            match self {
                PlanError::BadCount { .. } => "give a whole number of at least 1",
                PlanError::RepeatNotAboveDefaultSkip { .. } => "raise `repeat` or set `skip` explicitly",
                PlanError::NothingTimed { .. } => "lower `skip` or raise `repeat`",
            }
            .into(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn plan(v: Value) -> Result<Plan, PlanError> {
        Plan::from_config(v.as_object().unwrap())
    }

    #[test]
    fn default_skip_and_explicit_skip() {
        assert_eq!(plan(json!({"repeat": 20, "number": 100})).unwrap(), Plan { repeat: 20, number: 100, skip: 10 });
        assert_eq!(
            plan(json!({"repeat": 3, "number": "5", "skip": 1})).unwrap(),
            Plan { repeat: 3, number: 5, skip: 1 }
        );
    }

    #[test]
    fn repeat_not_above_skip_is_refused() {
        let e = plan(json!({"repeat": 10, "number": 5})).unwrap_err();
        assert_eq!(e, PlanError::RepeatNotAboveDefaultSkip { repeat: 10 });
        assert!(e.fix().is_some_and(|f| f.contains("set `skip` explicitly")), "{e}");
        assert_eq!(
            plan(json!({"repeat": 2, "number": 5, "skip": 2})).unwrap_err(),
            PlanError::NothingTimed { repeat: 2, skip: 2 }
        );
        assert!(matches!(plan(json!({"repeat": 0, "number": 5})), Err(PlanError::BadCount { key: "repeat", .. })));
        assert!(matches!(plan(json!({"repeat": 20, "number": -1})), Err(PlanError::BadCount { key: "number", .. })));
        assert!(matches!(plan(json!({"number": 1})), Err(PlanError::BadCount { key: "repeat", .. })));
    }

    #[test]
    fn defaults_are_overlaid_and_keys_normalised() {
        let c = effective_config(
            &json!({"repeat": 20, "size": 64}),
            json!({"--repeat": 3, "--batch-size": 8}).as_object().unwrap(),
        );
        assert_eq!(Value::Object(c), json!({"repeat": 3, "size": 64, "batch_size": 8}));
    }

    #[test]
    fn on_the_clock_every_block_is_timed_so_no_skip_is_needed() {
        let clock = |v: Value| Plan::on_the_clock(v.as_object().unwrap());
        // A workload's default repeat at or below the default skip (gpt's 10)
        // times nothing in a throughput run, but every block on the clock.
        assert_eq!(clock(json!({"repeat": 10, "number": 1})).unwrap(), Plan { repeat: 10, number: 1, skip: 0 });
        assert_eq!(
            clock(json!({"repeat": 2, "number": 5, "skip": 4})).unwrap(),
            Plan { repeat: 2, number: 5, skip: 0 }
        );
        // The counts are still the worker's: a bad one is refused.
        assert!(matches!(clock(json!({"repeat": 0, "number": 5})), Err(PlanError::BadCount { key: "repeat", .. })));
        assert!(matches!(
            clock(json!({"repeat": 3, "number": 1, "skip": -1})),
            Err(PlanError::BadCount { key: "skip", .. })
        ));
    }
}
