//! At least a share of a baseline run, per config. By default the 95%
//! confidence intervals are taken into account: a config fails when even
//! the upper end of its interval is below `min` times the lower end of the
//! baseline's, that is, when it is slower than `min` of the baseline beyond
//! the noise of either run. With fewer than two runs on a side (no
//! interval), or `compare: means`, the means are compared, and the note
//! says so.

use super::{subject, Figures, Measure};
use crate::accept::rules::{Comparison, Rule};
use crate::accept::verdict::Verdict;

/// Each config at least `min` of the baseline's.
pub fn baseline(rule: &Rule, figures: &Figures, min: f64, by: Comparison) -> Vec<Verdict> {
    let report = figures.report;
    figures
        .configs(rule)
        .map(|row| {
            let who = subject(&row.label, None, None);
            if row.sample.mean.is_none() {
                return Measure::failed(rule, who, "ratio", "no run of the config counts".into());
            }
            let Some(base) = &report.baseline else {
                return Measure::missing(rule, who, "ratio", "no baseline: pass --baseline DIR".into());
            };
            let Some(cmp) = base.comparisons.iter().find(|c| c.label == row.label) else {
                let note = format!("not in the baseline {}", base.reports.display());
                return Measure::missing(rule, who, "ratio", note);
            };
            let means = cmp.ratio;
            let intervals = (cmp.current.ci95, cmp.baseline.ci95);
            let (measured, note) = match intervals {
                _ if by == Comparison::Means => (means, "means".to_string()),
                (Some((_, hi)), Some((base_lo, _))) => (
                    hi / base_lo,
                    format!(
                        "interval top / baseline interval bottom; means {}",
                        crate::accept::render::number(Some(means), false)
                    ),
                ),
                _ => (means, "means (fewer than 2 runs on a side: no interval)".to_string()),
            };
            Measure { measured, bound: min, unit: "ratio" }.at_least(rule, who, note)
        })
        .collect()
}
