//! A config's runs to quality, and the reference point made from them
//! (`mlb report --write-rcp`): one point per config, its convergence counted
//! in items (`"samples to converge"`).

use super::matching::Problem;
use super::set::{RcpSet, Reference};
use mlb_figures::olympic::MIN_RUNS;
use mlb_record::fix::Fix;
use serde_json::{Map, Value};

/// One run of a config to quality.
#[derive(Clone, Debug, PartialEq)]
pub struct Run {
    /// Which run: `run R, instance J (GPU V)`.
    pub label: String,
    /// Items trained until the target was reached (the whole group's for a
    /// group of ranks); `None` for a run that did not converge.
    pub items: Option<f64>,
}

/// Every run of one config to quality.
#[derive(Clone, Debug, PartialEq)]
pub struct ConfigRuns {
    /// The config's label (the job's name, and its id when the job has several).
    pub config: String,
    /// The job's name.
    pub job: String,
    /// The workload and the hyper-parameters that define its problem.
    pub problem: Problem,
    /// The hyper-parameters a point made from these runs holds.
    pub hyperparams: Map<String, Value>,
    /// The metric and target: `quality >= 0.9`.
    pub goal: String,
    /// The global batch size: the config's `batch_size` times its ranks;
    /// `None` when the config has no `batch_size`.
    pub batch_size: Option<f64>,
    /// Its runs, in order.
    pub runs: Vec<Run>,
}

/// Why a config's runs cannot be a reference.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ReferenceError {
    /// A run did not reach the target within its bound.
    #[error("config `{config}` cannot be a reference: {} of its {total} runs did not converge ({})", runs.len(), runs.join("; "))]
    NotConverged {
        /// The config.
        config: String,
        /// The runs that did not converge.
        runs: Vec<String>,
        /// Its runs in all.
        total: usize,
    },
    /// Too few runs for an olympic mean.
    #[error("config `{config}` cannot be a reference: {runs} converged run(s), and the olympic mean of a reference point needs at least {MIN_RUNS}")]
    TooFew {
        /// The config.
        config: String,
        /// Its runs.
        runs: usize,
    },
    /// The config has no batch size.
    #[error("config `{config}` cannot be a reference: it has no `batch_size`, and a reference point is per global batch size")]
    NoBatchSize {
        /// The config.
        config: String,
    },
}

impl Fix for ReferenceError {
    fn fix(&self) -> Option<String> {
        Some(match self {
            ReferenceError::NotConverged { .. } => {
                "raise the bound (`max_items`, `max_seconds`) or choose a target the runs reach, and run the config again".into()
            }
            ReferenceError::TooFew { .. } => format!("run the config with --runs {MIN_RUNS} or more"),
            ReferenceError::NoBatchSize { .. } => "give the config a `batch_size` argument".into(),
        })
    }
}

impl ConfigRuns {
    /// The name of the point made from these runs: `<job>_bs<BS>`.
    pub fn point_name(&self) -> String {
        let bs = self.batch_size.map(|b| format!("{b}")).unwrap_or_default();
        format!("{}_bs{bs}", self.job)
    }

    /// The reference point these runs make, named `name`: every run must
    /// have converged, and there must be at least [`MIN_RUNS`].
    pub fn reference(&self, name: String) -> Result<Reference, ReferenceError> {
        let config = self.config.clone();
        let not: Vec<String> = self.runs.iter().filter(|r| r.items.is_none()).map(|r| r.label.clone()).collect();
        if !not.is_empty() {
            return Err(ReferenceError::NotConverged { config, runs: not, total: self.runs.len() });
        }
        if self.runs.len() < MIN_RUNS {
            return Err(ReferenceError::TooFew { config, runs: self.runs.len() });
        }
        let batch_size = self.batch_size.ok_or(ReferenceError::NoBatchSize { config })?;
        let mut extra = Map::new();
        extra.insert("Quality".into(), Value::String(self.goal.clone()));
        Ok(Reference {
            name,
            benchmark: self.problem.benchmark.clone(),
            batch_size,
            hyperparams: Value::Object(self.hyperparams.clone()),
            converged_at: self.runs.iter().filter_map(|r| r.items).collect(),
            samples: true,
            extra,
        })
    }
}

/// The points of `configs` merged into `set`: each config's point replaces
/// the point of its name, or is added after the others. Nothing changes
/// unless every config makes a point. Two configs of one name are told
/// apart by their labels.
pub fn merge(set: &mut RcpSet, configs: &[ConfigRuns]) -> Result<Vec<String>, ReferenceError> {
    let plain: Vec<String> = configs.iter().map(ConfigRuns::point_name).collect();
    let names: Vec<String> = plain
        .iter()
        .zip(configs)
        .map(|(name, c)| {
            if plain.iter().filter(|n| *n == name).count() == 1 {
                return name.clone();
            }
            let id = c.config.rsplit_once(" (").map_or(c.config.as_str(), |(_, id)| id.trim_end_matches(')'));
            format!("{name}_{}", id.chars().take(8).collect::<String>())
        })
        .collect();
    let points = configs.iter().zip(&names).map(|(c, n)| c.reference(n.clone())).collect::<Result<Vec<_>, _>>()?;
    for point in points {
        match set.points.iter_mut().find(|p| p.name == point.name) {
            Some(old) => *old = point,
            None => set.points.push(point),
        }
    }
    Ok(names)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use serde_json::json;

    /// A config `job` of batch size `bs` whose runs converged in `items`
    /// (`None`: did not).
    pub(crate) fn config(job: &str, bs: Option<f64>, items: &[Option<f64>]) -> ConfigRuns {
        let hyperparams = json!({"size": 16, "target": 0.9});
        ConfigRuns {
            config: job.into(),
            job: job.into(),
            problem: Problem::new("spin", &hyperparams),
            hyperparams: hyperparams.as_object().unwrap().clone(),
            goal: "quality >= 0.9".into(),
            batch_size: bs,
            runs: items.iter().enumerate().map(|(i, &items)| Run { label: format!("run {i}"), items }).collect(),
        }
    }

    #[test]
    fn converged_runs_make_a_point_of_their_items() {
        let c = config("ref", Some(16.0), &[Some(2304.0), Some(2112.0), Some(2400.0)]);
        assert_eq!(c.point_name(), "ref_bs16");
        let p = c.reference(c.point_name()).unwrap();
        assert_eq!((p.benchmark.as_str(), p.batch_size), ("spin", 16.0));
        assert_eq!(p.converged_at, [2304.0, 2112.0, 2400.0]);
        assert_eq!(p.hyperparams, json!({"size": 16, "target": 0.9}));
        assert_eq!(p.extra["Quality"], "quality >= 0.9");
        let file = RcpSet { points: vec![p] }.to_json();
        assert!(file.contains("\"samples to converge\":[2304,2112,2400]"), "{file}");
    }

    #[test]
    fn a_config_with_a_run_that_did_not_converge_or_too_few_runs_is_refused() {
        let err =
            config("ref", Some(16.0), &[Some(1.0), None, Some(2.0), Some(3.0)]).reference("p".into()).unwrap_err();
        let text = mlb_record::fix::one_line(&err);
        assert!(text.contains("`ref`") && text.contains("1 of its 4 runs") && text.contains("run 1"), "{text}");
        assert!(text.contains("fix: raise the bound"), "{text}");
        let err = config("ref", Some(16.0), &[Some(1.0), Some(2.0)]).reference("p".into()).unwrap_err();
        assert!(
            mlb_record::fix::one_line(&err).contains("needs at least 3; fix: run the config with --runs 3"),
            "{err}"
        );
        let err = config("ref", None, &[Some(1.0); 3]).reference("p".into()).unwrap_err();
        assert_eq!(err, ReferenceError::NoBatchSize { config: "ref".into() });
    }

    #[test]
    fn merging_replaces_points_of_the_same_name_in_place_and_keeps_the_others() {
        let mut set = RcpSet::parse(
            r#"{"ref_bs16": {"Benchmark": "spin", "BS": 16, "Creator": "someone", "Epochs to converge": [1, 2, 3]},
                "other": {"Benchmark": "x", "BS": 8, "Epochs to converge": [4, 5, 6]}}"#,
            "t",
        )
        .unwrap();
        let names = merge(
            &mut set,
            &[config("ref", Some(16.0), &[Some(10.0); 3]), config("ref", Some(32.0), &[Some(20.0); 3])],
        )
        .unwrap();
        assert_eq!(names, ["ref_bs16", "ref_bs32"]);
        let order: Vec<&str> = set.points.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(order, ["ref_bs16", "other", "ref_bs32"]);
        assert_eq!(set.points[0].converged_at, [10.0; 3]);
        assert_eq!(set.points[1].converged_at, [4.0, 5.0, 6.0]);

        let before = set.clone();
        let refused = merge(&mut set, &[config("a", Some(8.0), &[Some(1.0); 3]), config("b", Some(8.0), &[None; 3])]);
        assert!(refused.is_err());
        assert_eq!(set, before, "nothing is merged when one config is refused");
    }

    #[test]
    fn two_configs_of_one_name_are_told_apart_by_their_ids() {
        let mut a = config("ref", Some(16.0), &[Some(1.0); 3]);
        a.config = "ref (0123456789abcdef)".into();
        let mut b = a.clone();
        b.config = "ref (fedcba9876543210)".into();
        let names = merge(&mut RcpSet::default(), &[a, b]).unwrap();
        assert_eq!(names, ["ref_bs16_01234567", "ref_bs16_fedcba98"]);
    }
}
