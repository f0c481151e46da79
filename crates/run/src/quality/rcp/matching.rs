//! Which reference points a config is compared with: the same problem.
//!
//! MLPerf compares a submission with the points of its benchmark at its
//! batch size. In mlb a config's arguments change what is trained (gpt's
//! `size`, convnet's `arch`, `image_size`, `classes`, `precision`, the data
//! set, the target), so a config is compared only with points of the same
//! benchmark whose `Hyperparams` equal its own on every key but those that
//! do not change the problem ([`NOT_THE_PROBLEM`]).
//!
//! The optimizer's tunables are among those: the check exists to flag a run
//! that converges suspiciously faster than the reference *for the same
//! problem*, and a changed learning rate is exactly what it must catch. The
//! batch size is the point's own axis (`BS`), the seed differs between runs,
//! the clock's bounds, the worker's counts, threads and process group
//! settings change how a run is timed or spread, not what it learns. The
//! evaluation interval (`eval_every`) is kept: the items to converge are
//! counted in whole intervals, so runs evaluated at other intervals are not
//! comparable (MLPerf fixes each benchmark's evaluation frequency for the
//! same reason). The data set is compared by its folder's name (`MNIST`, or
//! `synthetic`): where it lies does not matter (nor does `data_missing`, the
//! path of a data folder asked for that was not there: `data` says
//! `synthetic` then).

use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;

/// Arguments left out of the comparison (and out of a point's
/// `Hyperparams`); any key starting with `opt_` too ([`OPTIMIZER_PREFIX`]).
pub const NOT_THE_PROBLEM: &[&str] = &[
    "batch_size",
    "bucket_mb",
    "data_missing",
    "local_rank",
    "lr",
    "master",
    "max_init_seconds",
    "max_items",
    "max_seconds",
    "momentum",
    "number",
    "optimizer",
    "overlap",
    "rank",
    "repeat",
    "seed",
    "skip",
    "source",
    "threads",
    "timeout_s",
    "warmup",
    "weight_decay",
    "workers",
    "world_size",
];

/// The prefix of the optimizer's own arguments (`opt_momentum`, ...).
pub const OPTIMIZER_PREFIX: &str = "opt_";

/// The key naming the data set; compared by its last path component.
pub const DATA: &str = "data";

/// The key of the quality target, always part of the problem.
pub const TARGET: &str = "target";

/// A benchmark and the hyper-parameters that define its problem.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// The workload (plugin) name: the point's `Benchmark`.
    pub benchmark: String,
    /// The kept arguments, each as canonical text (numbers compared as
    /// numbers: `16` equals `16.0`).
    key: BTreeMap<String, String>,
}

/// Whether `key` is kept in a problem.
fn kept(key: &str) -> bool {
    !NOT_THE_PROBLEM.contains(&key) && !key.starts_with(OPTIMIZER_PREFIX)
}

/// The value kept for `key`: the data set's folder name for [`DATA`],
/// else the value itself; `None` for a null (an argument not set).
fn reduced(key: &str, value: &Value) -> Option<Value> {
    match (key, value) {
        (_, Value::Null) => None,
        (DATA, Value::String(path)) => {
            let name = Path::new(path.trim_end_matches('/')).file_name().map(|n| n.to_string_lossy().into_owned());
            Some(Value::String(name.unwrap_or_else(|| path.clone())))
        }
        _ => Some(value.clone()),
    }
}

/// The `Hyperparams` of a point made from a config's `args` (its report's
/// workload keys) run to `target`: the kept arguments, reduced, and the
/// target.
pub fn hyperparams<'a>(args: impl IntoIterator<Item = (&'a String, &'a Value)>, target: f64) -> Map<String, Value> {
    let mut out: Map<String, Value> =
        args.into_iter().filter(|(k, _)| kept(k)).filter_map(|(k, v)| Some((k.clone(), reduced(k, v)?))).collect();
    out.insert(TARGET.into(), Value::from(target));
    out
}

/// A value as canonical text: numbers by their `f64` value.
fn canonical(value: &Value) -> String {
    match value.as_f64() {
        Some(x) if value.is_number() => format!("{x}"),
        _ => value.to_string(),
    }
}

impl Problem {
    /// The problem of `benchmark` with `hyperparams` (a point's, or a
    /// config's from [`hyperparams`]): the kept keys, reduced.
    pub fn new(benchmark: &str, hyperparams: &Value) -> Problem {
        let key = match hyperparams {
            Value::Object(map) => map
                .iter()
                .filter(|(k, _)| kept(k))
                .filter_map(|(k, v)| Some((k.clone(), canonical(&reduced(k, v)?))))
                .collect(),
            _ => BTreeMap::new(),
        };
        Problem { benchmark: benchmark.to_string(), key }
    }
}

impl fmt::Display for Problem {
    /// `spin with size=16 target=0.9`: what a point must hold to match.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let args: Vec<String> = self.key.iter().map(|(k, v)| format!("{k}={v}")).collect();
        if args.is_empty() {
            write!(f, "{} with no hyper-parameters", self.benchmark)
        } else {
            write!(f, "{} with {}", self.benchmark, args.join(" "))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn config(args: Value, target: f64) -> Value {
        Value::Object(hyperparams(args.as_object().unwrap(), target))
    }

    #[test]
    fn the_optimizer_the_batch_size_and_the_clock_do_not_change_the_problem() {
        let reference = config(
            json!({"arch": "resnet18", "batch_size": 32, "lr": 0.1, "seed": 100, "opt_momentum": 0.9,
                   "eval_every": 1000, "data": "/data/ImageNet", "workers": 4, "threads": 8}),
            0.5,
        );
        assert_eq!(reference, json!({"arch": "resnet18", "data": "ImageNet", "eval_every": 1000, "target": 0.5}));
        let faster = config(
            json!({"arch": "resnet18", "batch_size": 64, "lr": 0.4, "seed": 7, "optimizer": "adam", "eval_every": 1000,
                   "max_items": 5000, "data": "/elsewhere/ImageNet/", "world_size": 2, "rank": 1}),
            0.5,
        );
        assert_eq!(Problem::new("convnet", &reference), Problem::new("convnet", &faster));
    }

    #[test]
    fn the_model_the_data_set_the_target_the_evaluation_interval_and_the_benchmark_do() {
        let base = Problem::new("gpt", &config(json!({"size": "tiny", "data": "/d/wikitext-2"}), 20.0));
        for other in [
            Problem::new("gpt", &config(json!({"size": "small", "data": "/d/wikitext-2"}), 20.0)),
            Problem::new("gpt", &config(json!({"size": "tiny"}), 20.0)),
            Problem::new("gpt", &config(json!({"size": "tiny", "data": "/d/wikitext-2"}), 15.0)),
            Problem::new("wlm", &config(json!({"size": "tiny", "data": "/d/wikitext-2"}), 20.0)),
            Problem::new("gpt", &config(json!({"size": "tiny", "data": "/d/wikitext-2", "precision": "bf16"}), 20.0)),
            // Items to converge are counted in whole evaluation intervals.
            Problem::new("gpt", &config(json!({"size": "tiny", "data": "/d/wikitext-2", "eval_every": 160}), 20.0)),
        ] {
            assert_ne!(base, other, "{other}");
        }
    }

    #[test]
    fn a_points_hyperparams_are_reduced_the_same_way_and_numbers_compare_as_numbers() {
        let written = json!({"size": 16, "target": 0.9, "lr": 2, "data": "synthetic"});
        let config = config(json!({"size": 16.0, "lr": 1, "data": "synthetic", "seed": 3}), 0.9);
        assert_eq!(Problem::new("spin", &written), Problem::new("spin", &config));
        assert_eq!(Problem::new("spin", &written).to_string(), "spin with data=\"synthetic\" size=16 target=0.9");
        assert_eq!(Problem::new("b", &json!(null)).to_string(), "b with no hyper-parameters");
    }
}
