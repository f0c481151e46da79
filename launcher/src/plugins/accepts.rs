//! What a workload accepts for its arguments, checked by the launcher before
//! any instance starts (the worker checks again when it runs).
//!
//! A workload declares no argument types, but its manifest (or, for a file
//! without one, the library itself) gives its default arguments, and the
//! worker reads each argument as the kind of its default: an argument whose
//! default is a non-negative integer takes a non-negative integer (a JSON
//! integer, or a string of one), a negative integer default an integer, a
//! fractional default a finite number; any other default (string, flag)
//! takes any value. `repeat`, `number` and `skip` are the worker's own
//! counts ([`Plan`]): the defaults overlaid with the config's arguments must
//! make a plan the worker runs.

use super::plan::{effective_config, Plan, PlanError};
use crate::record::arg_key;
use serde_json::{Map, Value};

/// The kind of value an argument takes, from its default.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValueKind {
    /// A non-negative integer that fits a `u64`.
    Count,
    /// An integer that fits an `i64`.
    Integer,
    /// A finite number.
    Number,
    /// Anything (the default is a string or a flag).
    Any,
}

impl ValueKind {
    /// The kind of `default`.
    pub fn of(default: &Value) -> ValueKind {
        match default {
            Value::Number(n) if n.is_u64() => ValueKind::Count,
            Value::Number(n) if n.is_i64() => ValueKind::Integer,
            Value::Number(_) => ValueKind::Number,
            _ => ValueKind::Any,
        }
    }

    /// Whether the worker reads `v` as this kind. `null` is an absent argument
    /// (the default applies); numbers may be written as strings.
    pub fn accepts(self, v: &Value) -> bool {
        let text = |v: &Value| v.as_str().map(str::trim).map(str::to_owned);
        match (self, v) {
            (ValueKind::Any, _) | (_, Value::Null) => true,
            (ValueKind::Count, Value::Number(n)) => n.is_u64(),
            (ValueKind::Integer, Value::Number(n)) => n.is_i64() || n.is_u64() && n.as_u64() <= Some(i64::MAX as u64),
            (ValueKind::Number, Value::Number(_)) => true,
            (ValueKind::Count, Value::String(_)) => text(v).is_some_and(|t| t.parse::<u64>().is_ok()),
            (ValueKind::Integer, Value::String(_)) => text(v).is_some_and(|t| t.parse::<i64>().is_ok()),
            (ValueKind::Number, Value::String(_)) => {
                text(v).is_some_and(|t| t.parse::<f64>().is_ok_and(f64::is_finite))
            }
            _ => false,
        }
    }

    /// What this kind accepts, for messages.
    pub fn describe(self) -> &'static str {
        match self {
            ValueKind::Count => "a non-negative integer",
            ValueKind::Integer => "an integer",
            ValueKind::Number => "a finite number",
            ValueKind::Any => "any value",
        }
    }
}

/// An argument value (or a set of them) the workload would refuse.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    /// A value not of its default's kind.
    #[error("argument `{key}` = {value}: it takes {} (as its default {default}); fix: give {} (a JSON number or a string of one)", kind.describe(), kind.describe())]
    Kind {
        /// The argument as written in the jobs file.
        key: String,
        /// The value, as JSON.
        value: String,
        /// What it takes.
        kind: ValueKind,
        /// The workload's default, as JSON.
        default: String,
    },
    /// Counts the worker would refuse (`repeat`, `number`, `skip`).
    #[error("{0}")]
    Plan(#[from] PlanError),
}

/// Checks the arguments of one config of a plugin job (keys as written in the
/// jobs file, per-instance variables filled in) against the workload's
/// `defaults`: the worker's counts first, then each argument's kind.
pub fn check(defaults: &Value, args: &[(String, Value)]) -> Result<(), Refusal> {
    let given: Map<String, Value> = args.iter().cloned().collect();
    Plan::from_config(&effective_config(defaults, &given))?;
    let declared = defaults.as_object();
    for (key, v) in args {
        let Some(default) = declared.and_then(|d| d.get(&arg_key(key))) else { continue };
        let kind = ValueKind::of(default);
        if !kind.accepts(v) {
            return Err(Refusal::Kind { key: key.clone(), value: v.to_string(), kind, default: default.to_string() });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn args(v: Value) -> Vec<(String, Value)> {
        v.as_object().unwrap().iter().map(|(k, v)| (k.clone(), v.clone())).collect()
    }

    #[test]
    fn kinds_follow_the_defaults() {
        let defaults =
            json!({"repeat": 20, "number": 10, "size": 64, "lr": 0.01, "offset": -3, "arch": "resnet", "cuda": ""});
        check(
            &defaults,
            &args(json!({"size": "128", "--lr": 1, "offset": "-7", "arch": 5, "cuda": true, "other": -1})),
        )
        .unwrap();
        check(&defaults, &args(json!({"lr": "1e-3", "size": null, "offset": 9}))).unwrap();
        let refused = |a: Value| check(&defaults, &args(a)).unwrap_err().to_string();
        assert_eq!(
            refused(json!({"size": -1})),
            "argument `size` = -1: it takes a non-negative integer (as its default 64); fix: give a non-negative integer (a JSON number or a string of one)"
        );
        assert!(
            refused(json!({"--size": 1e30})).starts_with("argument `--size` = 1e+30: it takes a non-negative integer")
        );
        assert!(refused(json!({"size": 2.5})).contains("= 2.5"));
        assert!(refused(json!({"size": "many"})).contains("= \"many\""));
        assert!(refused(json!({"size": true})).contains("= true"));
        assert!(refused(json!({"offset": 1.5})).contains("it takes an integer (as its default -3)"));
        assert!(refused(json!({"lr": "NaN"})).contains("it takes a finite number"));
        assert!(refused(json!({"lr": "inf"})).contains("it takes a finite number"));
    }

    #[test]
    fn the_worker_counts_are_checked_as_the_worker_checks_them() {
        let defaults = json!({"repeat": 20, "number": 10});
        let refused = |a: Value| check(&defaults, &args(a)).unwrap_err();
        assert_eq!(
            refused(json!({"repeat": -5})),
            Refusal::Plan(PlanError::BadCount { key: "repeat", got: "-5".into() })
        );
        assert_eq!(
            refused(json!({"number": 0})),
            Refusal::Plan(PlanError::BadCount { key: "number", got: "0".into() })
        );
        assert_eq!(refused(json!({"repeat": 10})), Refusal::Plan(PlanError::RepeatNotAboveDefaultSkip { repeat: 10 }));
        check(&defaults, &args(json!({"repeat": 3, "skip": 1}))).unwrap();
        // No default for `repeat`: the worker would refuse the config.
        assert!(matches!(check(&json!({}), &[]), Err(Refusal::Plan(PlanError::BadCount { key: "repeat", .. }))));
    }
}
