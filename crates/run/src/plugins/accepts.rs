//! What a workload accepts for its arguments, checked by the launcher before
//! any instance starts (the worker checks again when it runs).
//!
//! A workload declares the kind of each of its arguments
//! (`mlb_plugin::workload_args!`), and its manifest lists them
//! ([`PluginMeta::arg_kinds`](super::PluginMeta)): a count takes a
//! non-negative integer that fits a `u64` (a JSON integer, or a string of
//! one), a number a finite number (or a string of one), text and flags any
//! value; `null` and `""` are absent arguments (the default applies). An
//! argument the workload does not declare, and every argument of a plugin
//! whose manifest lists no kinds (built before manifests listed them, or
//! written in C), is the worker's to check. `repeat`, `number` and `skip` are
//! the worker's own counts ([`Plan`]): the defaults overlaid with the
//! config's arguments must make a plan the worker runs. A config that asks
//! for a deterministic run (`deterministic: true`) needs a workload that
//! can run deterministically, and a throughput run.

use super::plan::{effective_config, Plan, PlanError};
use mlb_plugin::ArgKind;
use mlb_record::contract::determinism::{DeterministicRun, EveryError, DEFAULT_EVERY, EVERY};
use mlb_record::contract::record::arg_key;
use mlb_record::fix::Fix;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// Whether the worker reads `v` as an argument of `kind`.
fn accepts(kind: ArgKind, v: &Value) -> bool {
    let text = v.as_str().map(str::trim);
    match (kind, v) {
        (ArgKind::Text | ArgKind::Flag, _) | (_, Value::Null) => true,
        (_, Value::String(s)) if s.is_empty() => true,
        (ArgKind::Count, Value::Number(n)) => n.is_u64(),
        (ArgKind::Number, Value::Number(_)) => true,
        (ArgKind::Count, Value::String(_)) => text.is_some_and(|t| t.parse::<u64>().is_ok()),
        (ArgKind::Number, Value::String(_)) => text.is_some_and(|t| t.parse::<f64>().is_ok_and(f64::is_finite)),
        _ => false,
    }
}

/// What an argument of `kind` takes, for messages.
fn describe(kind: ArgKind) -> &'static str {
    match kind {
        ArgKind::Count => "a non-negative integer",
        ArgKind::Number => "a finite number",
        ArgKind::Text => "a string",
        ArgKind::Flag => "a flag",
    }
}

/// ` (as its default D)`, or nothing for an argument without a default.
fn as_default(default: &Option<String>) -> String {
    default.as_ref().map(|d| format!(" (as its default {d})")).unwrap_or_default()
}

/// An argument value (or a set of them) the workload would refuse.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    /// A value not of its declared kind.
    #[error("argument `{key}` = {value}: it takes {}{}", describe(*kind), as_default(default))]
    Kind {
        /// The argument as written in the jobs file.
        key: String,
        /// The value, as JSON.
        value: String,
        /// What it takes.
        kind: ArgKind,
        /// The workload's default, as JSON, when it has one.
        default: Option<String>,
    },
    /// Counts the worker would refuse (`repeat`, `number`, `skip`).
    #[error("{0}")]
    Plan(#[from] PlanError),
    /// `deterministic: true` for a workload that cannot run deterministically.
    #[error("`deterministic: true`, but the workload cannot run deterministically")]
    NotDeterministic,
    /// `deterministic: true` in a run to quality.
    #[error("`deterministic: true` in a run to quality, which is not fingerprinted")]
    DeterministicToQuality,
    /// A deterministic config's interval the worker would refuse.
    #[error(transparent)]
    Every(#[from] EveryError),
}

/// Checks the arguments of one config of a plugin job (keys as written in the
/// jobs file, per-instance variables filled in) against the workload's
/// `defaults` and declared `kinds`: the worker's counts first (as a run to
/// quality reads them when `to_quality`: [`Plan::of_run`]), then a
/// deterministic run (the workload's capability is `deterministic`), then
/// each declared argument's kind.
pub fn check(
    defaults: &Value,
    kinds: &BTreeMap<String, ArgKind>,
    deterministic: bool,
    args: &[(String, Value)],
    to_quality: bool,
) -> Result<(), Refusal> {
    let given: Map<String, Value> = args.iter().cloned().collect();
    let effective = effective_config(defaults, &given);
    Plan::of_run(&effective, to_quality)?;
    deterministic_run(&effective, deterministic, to_quality)?;
    for (key, v) in args {
        let name = arg_key(key);
        let Some(&kind) = kinds.get(&name) else { continue };
        if !accepts(kind, v) {
            let default = defaults.get(&name).map(Value::to_string);
            return Err(Refusal::Kind { key: key.clone(), value: v.to_string(), kind, default });
        }
    }
    Ok(())
}

/// The deterministic run an `effective` config (the arguments over the
/// workload's defaults) asks for, if any: refused for a workload that
/// cannot run deterministically (`deterministic` false) and for a run to
/// quality. The launcher asks it before a run, the worker again when it runs.
pub fn deterministic_run(
    effective: &Map<String, Value>,
    deterministic: bool,
    to_quality: bool,
) -> Result<Option<DeterministicRun>, Refusal> {
    let Some(run) = DeterministicRun::of(effective)? else { return Ok(None) };
    if !deterministic {
        return Err(Refusal::NotDeterministic);
    }
    if to_quality {
        return Err(Refusal::DeterministicToQuality);
    }
    Ok(Some(run))
}

impl Fix for Refusal {
    fn fix(&self) -> Option<String> {
        match self {
            Refusal::Kind { kind, .. } => Some(format!("give {} (a JSON number or a string of one)", describe(*kind))),
            Refusal::Plan(e) => e.fix(),
            Refusal::NotDeterministic => Some(
                "remove `deterministic` from the config, or run a workload that can (`mlb plugins show NAME` says)"
                    .into(),
            ),
            Refusal::DeterministicToQuality => {
                Some("run the deterministic config without --to-quality, or remove `deterministic`".into())
            }
            Refusal::Every(_) => Some(format!("give `{EVERY}` a positive integer (default {DEFAULT_EVERY})")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn args(v: Value) -> Vec<(String, Value)> {
        v.as_object().unwrap().iter().map(|(k, v)| (k.clone(), v.clone())).collect()
    }

    fn kinds(pairs: &[(&str, ArgKind)]) -> BTreeMap<String, ArgKind> {
        pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
    }

    #[test]
    fn declared_kinds_are_checked() {
        let defaults = json!({"repeat": 20, "number": 10, "size": 64, "lr": 20, "arch": "resnet", "cuda": ""});
        let kinds = kinds(&[
            ("size", ArgKind::Count),
            ("lr", ArgKind::Number),
            ("arch", ArgKind::Text),
            ("cuda", ArgKind::Flag),
            ("devices", ArgKind::Count),
        ]);
        let ok = |a: Value| check(&defaults, &kinds, false, &args(a), false);
        ok(json!({"size": "128", "--lr": 0.5, "arch": 5, "cuda": true, "other": -1, "devices": " 2 "})).unwrap();
        ok(json!({"lr": "1e-3", "size": null, "devices": ""})).unwrap();
        // The message says what is wrong, the typed fix what to do; a list of
        // refusals keeps both on one line.
        assert!(!ok(json!({"size": -1})).unwrap_err().to_string().contains("fix"));
        let refused = |a: Value| mlb_record::fix::one_line(&ok(a).unwrap_err());
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
        assert!(refused(json!({"lr": "NaN"})).contains("it takes a finite number (as its default 20)"));
        assert!(refused(json!({"lr": "inf"})).contains("it takes a finite number"));
        assert_eq!(
            refused(json!({"devices": -2})),
            "argument `devices` = -2: it takes a non-negative integer; fix: give a non-negative integer (a JSON number or a string of one)"
        );
        // Without declared kinds, only the worker's counts are checked.
        check(&defaults, &BTreeMap::new(), false, &args(json!({"size": -1})), false).unwrap();
    }

    #[test]
    fn the_worker_counts_are_checked_as_the_worker_checks_them() {
        let defaults = json!({"repeat": 20, "number": 10});
        let refused = |a: Value| check(&defaults, &BTreeMap::new(), false, &args(a), false).unwrap_err();
        assert_eq!(
            refused(json!({"repeat": -5})),
            Refusal::Plan(PlanError::BadCount { key: "repeat", got: "-5".into() })
        );
        assert_eq!(
            refused(json!({"number": 0})),
            Refusal::Plan(PlanError::BadCount { key: "number", got: "0".into() })
        );
        assert_eq!(refused(json!({"repeat": 10})), Refusal::Plan(PlanError::RepeatNotAboveDefaultSkip { repeat: 10 }));
        check(&defaults, &BTreeMap::new(), false, &args(json!({"repeat": 3, "skip": 1})), false).unwrap();
        // No default for `repeat`: the worker would refuse the config.
        assert!(matches!(
            check(&json!({}), &BTreeMap::new(), false, &[], false),
            Err(Refusal::Plan(PlanError::BadCount { key: "repeat", .. }))
        ));
    }

    #[test]
    fn on_the_clock_repeat_need_not_exceed_the_default_skip() {
        let defaults = json!({"repeat": 10, "number": 1});
        assert_eq!(
            check(&defaults, &BTreeMap::new(), false, &[], false).unwrap_err(),
            Refusal::Plan(PlanError::RepeatNotAboveDefaultSkip { repeat: 10 })
        );
        check(&defaults, &BTreeMap::new(), false, &[], true).unwrap();
        assert!(matches!(
            check(&defaults, &BTreeMap::new(), false, &args(json!({"number": 0})), true),
            Err(Refusal::Plan(PlanError::BadCount { key: "number", .. }))
        ));
    }

    #[test]
    fn a_deterministic_config_needs_a_workload_that_can_and_a_throughput_run() {
        let defaults = json!({"repeat": 20, "number": 10});
        let on = args(json!({"deterministic": true}));
        check(&defaults, &BTreeMap::new(), true, &on, false).unwrap();
        check(&defaults, &BTreeMap::new(), false, &args(json!({"deterministic": false})), false).unwrap();
        let refused = check(&defaults, &BTreeMap::new(), false, &on, false).unwrap_err();
        assert_eq!(refused, Refusal::NotDeterministic);
        assert!(refused.fix().unwrap().contains("mlb plugins show"));
        let to_quality = check(&defaults, &BTreeMap::new(), true, &on, true).unwrap_err();
        assert_eq!(to_quality, Refusal::DeterministicToQuality);
        let every = args(json!({"deterministic": true, "fingerprint_every": 0}));
        let e = check(&defaults, &BTreeMap::new(), true, &every, false).unwrap_err();
        assert!(e.to_string().contains("`fingerprint_every` must be a positive integer, got 0"), "{e}");
    }
}
