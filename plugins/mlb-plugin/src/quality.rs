//! The quality a workload's evaluation measures, and its default target.

/// What [`Workload::eval`](crate::Workload::eval) returns: the metric's name
/// and unit, its direction, and the default target of a time-to-quality run.
///
/// Declared as the workload's [`QUALITY`](crate::Workload::QUALITY); the
/// plugin table and the manifest carry it, so mlb knows it without loading
/// the library.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Quality {
    /// The metric: `"top1"`, `"perplexity"`, `"hit_rate@10"`,
    /// `"token_accuracy"`, `"loss"`... Never empty.
    pub metric: &'static str,
    /// Its unit: `"fraction"`, `"nats"`, `""` for a plain number...
    pub unit: &'static str,
    /// Whether a higher value is better (accuracy) or a lower one (loss,
    /// perplexity).
    pub higher_is_better: bool,
    /// The default target: a run has reached quality once an evaluation
    /// returns a value at least this good.
    pub target: f64,
}

/// A declared [`Quality`] as a host reads it back (from a manifest or a
/// plugin table): owned, and serialised with the same field names.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct QualitySpec {
    /// The metric's name.
    pub metric: String,
    /// Its unit (may be empty).
    pub unit: String,
    /// Whether a higher value is better.
    pub higher_is_better: bool,
    /// The default target.
    pub target: f64,
}

impl QualitySpec {
    /// Whether `value` is at least as good as `target` in the metric's
    /// direction (NaN never is).
    pub fn reached(&self, value: f64, target: f64) -> bool {
        if self.higher_is_better {
            value >= target
        } else {
            value <= target
        }
    }

    /// The metric, its direction and the default target in a few words:
    /// `top1 >= 0.9`, `perplexity <= 40`.
    pub fn summary(&self) -> String {
        let direction = if self.higher_is_better { ">=" } else { "<=" };
        format!("{} {direction} {}", self.metric, self.target)
    }
}

impl From<Quality> for QualitySpec {
    fn from(q: Quality) -> Self {
        QualitySpec {
            metric: q.metric.into(),
            unit: q.unit.into(),
            higher_is_better: q.higher_is_better,
            target: q.target,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_target_is_reached_in_the_metrics_direction() {
        let top1 = QualitySpec::from(Quality { metric: "top1", unit: "fraction", higher_is_better: true, target: 0.9 });
        assert!(top1.reached(0.9, 0.9) && top1.reached(0.95, 0.9) && !top1.reached(0.89, 0.9));
        assert_eq!(top1.summary(), "top1 >= 0.9");
        let ppl =
            QualitySpec { metric: "perplexity".into(), unit: String::new(), higher_is_better: false, target: 40.0 };
        assert!(ppl.reached(40.0, 40.0) && ppl.reached(3.0, 40.0) && !ppl.reached(40.5, 40.0));
        assert_eq!(ppl.summary(), "perplexity <= 40");
        assert!(!top1.reached(f64::NAN, 0.9) && !ppl.reached(f64::NAN, 40.0), "NaN never reaches a target");
    }
}
