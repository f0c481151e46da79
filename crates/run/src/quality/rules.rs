//! The clock's rules for one instance, read from its config: the target, how
//! often it is evaluated, the bound past which a run is "not converged" and
//! the cap on its initialisation (docs/quality.md, "The clock"). Like
//! `repeat` and `number`, these keys are the worker's own.

use mlb_plugin::{read_arg, Config, ConfigError, QualitySpec};
use mlb_record::contract::quality::Bound;
use mlb_record::fix::Fix;
use serde_json::{Map, Value};

/// The target quality (default: the workload's, from its manifest).
pub const TARGET: &str = "target";
/// Items trained between two evaluations.
pub const EVAL_EVERY: &str = "eval_every";
/// Items after which a run that has not reached the target stops.
pub const MAX_ITEMS: &str = "max_items";
/// Seconds on the clock after which a run that has not reached the target stops.
pub const MAX_SECONDS: &str = "max_seconds";
/// Seconds the initialisation (create and setup) may take.
pub const MAX_INIT_SECONDS: &str = "max_init_seconds";

/// [`EVAL_EVERY`] when the config does not set it.
pub const DEFAULT_EVAL_EVERY: u64 = 10_000;
/// [`MAX_SECONDS`] when the config does not set it: an hour.
pub const DEFAULT_MAX_SECONDS: f64 = 3600.0;
/// [`MAX_INIT_SECONDS`] when the config does not set it: 20 minutes, the
/// cap MLPerf Training's compliance checker puts on a closed run's initialisation.
pub const DEFAULT_MAX_INIT_SECONDS: f64 = 1200.0;

/// The rules of one instance's run to quality.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rules {
    /// The target.
    pub target: f64,
    /// Items between two evaluations.
    pub eval_every: u64,
    /// Items bound (`None`: only the seconds bound).
    pub max_items: Option<u64>,
    /// Seconds bound on the clock.
    pub max_seconds: f64,
    /// Cap on the initialisation, seconds.
    pub max_init_seconds: f64,
}

/// A config the clock cannot run.
#[derive(Debug, PartialEq, thiserror::Error)]
pub enum RulesError {
    /// The workload has no evaluation.
    #[error("workload `{workload}` has no evaluation, so it cannot run to quality")]
    NoQuality {
        /// The workload.
        workload: String,
    },
    /// A key of the wrong kind.
    #[error("{0}")]
    Config(#[from] ConfigError),
    /// A key out of its range.
    #[error("argument `{key}` = {got}: it takes {takes}")]
    Range {
        /// The key.
        key: &'static str,
        /// Its value.
        got: String,
        /// What it takes.
        takes: &'static str,
    },
}

impl Fix for RulesError {
    fn fix(&self) -> Option<String> {
        match self {
            RulesError::NoQuality { .. } => Some(
                "run it without --to-quality, or choose a workload whose `mlb plugins show` lists a quality".into(),
            ),
            RulesError::Config(_) => None,
            RulesError::Range { key, takes, .. } => {
                Some(format!("give `{key}` {takes}, or leave it out for its default"))
            }
        }
    }
}

impl Rules {
    /// Reads the rules from an effective config; `default_target` is the
    /// workload's.
    pub fn from_config(config: &Map<String, Value>, default_target: f64) -> Result<Rules, RulesError> {
        let config = Config::from_map(config.clone());
        let positive = |key: &'static str, default: f64| -> Result<f64, RulesError> {
            let v = read_arg::<Option<f64>>(&config, key, None)?.unwrap_or(default);
            if v.is_finite() && v > 0.0 {
                Ok(v)
            } else {
                Err(RulesError::Range { key, got: v.to_string(), takes: "a positive number" })
            }
        };
        let count = |key: &'static str| -> Result<Option<u64>, RulesError> {
            match read_arg::<Option<u64>>(&config, key, None)? {
                Some(0) => Err(RulesError::Range { key, got: "0".into(), takes: "a positive integer" }),
                n => Ok(n),
            }
        };
        let target = read_arg::<Option<f64>>(&config, TARGET, None)?.unwrap_or(default_target);
        if !target.is_finite() {
            return Err(RulesError::Range { key: TARGET, got: target.to_string(), takes: "a finite number" });
        }
        Ok(Rules {
            target,
            eval_every: count(EVAL_EVERY)?.unwrap_or(DEFAULT_EVAL_EVERY),
            max_items: count(MAX_ITEMS)?,
            max_seconds: positive(MAX_SECONDS, DEFAULT_MAX_SECONDS)?,
            max_init_seconds: positive(MAX_INIT_SECONDS, DEFAULT_MAX_INIT_SECONDS)?,
        })
    }

    /// The goal of a run under these rules: `spec` with the run's target.
    pub fn goal(&self, spec: &QualitySpec) -> QualitySpec {
        QualitySpec { target: self.target, ..spec.clone() }
    }

    /// The bound past which a run under these rules is not converged.
    pub fn bound(&self) -> Bound {
        Bound { items: self.max_items, seconds: self.max_seconds }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn rules(v: Value) -> Result<Rules, RulesError> {
        Rules::from_config(v.as_object().unwrap(), 0.9)
    }

    #[test]
    fn defaults_and_the_configs_keys() {
        let r = rules(json!({})).unwrap();
        assert_eq!(r.target, 0.9);
        assert_eq!((r.eval_every, r.max_items), (DEFAULT_EVAL_EVERY, None));
        assert_eq!((r.max_seconds, r.max_init_seconds), (DEFAULT_MAX_SECONDS, DEFAULT_MAX_INIT_SECONDS));
        let r = rules(json!({"target": "0.5", "eval_every": 64, "max_items": "6400", "max_seconds": 2})).unwrap();
        assert_eq!((r.target, r.eval_every, r.max_items, r.max_seconds), (0.5, 64, Some(6400), 2.0));
    }

    #[test]
    fn out_of_range_keys_are_refused_by_name() {
        for (v, key) in [
            (json!({"eval_every": 0}), "eval_every"),
            (json!({"max_items": 0}), "max_items"),
            (json!({"max_seconds": -1}), "max_seconds"),
            (json!({"max_init_seconds": 0}), "max_init_seconds"),
            (json!({"eval_every": "often"}), "eval_every"),
        ] {
            let err = rules(v).unwrap_err().to_string();
            assert!(err.contains(&format!("`{key}`")), "{err}");
        }
    }
}
