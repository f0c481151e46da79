//! Rules on the per-bench and per-config rows: throughput against the
//! target table and an absolute minimum, and the spread. Throughput against
//! the target and the spread are judged per bench, every config pooled, as
//! the original score judged them; the minimum per config.

use super::{subject, Figures, Measure};
use crate::accept::render::number;
use crate::accept::rules::Rule;
use crate::accept::verdict::Verdict;
use crate::report::{Report, UNIT};

/// Why a bench has no target: no table, or none in it for the bench.
fn no_target(report: &Report, bench: &str) -> String {
    match &report.targets {
        None => "no target table: pass --targets FILE or --gpu-model NAME".into(),
        Some(table) => format!("no target for `{bench}` in {table} (the original score counts it as failing)"),
    }
}

/// Mean throughput / target at least `min`, else the table's `perf_target`.
pub fn throughput(rule: &Rule, figures: &Figures, min: Option<f64>) -> Vec<Verdict> {
    figures
        .benches(rule)
        .map(|row| {
            let who = subject(&row.bench, None, None);
            let Some(target) = row.target else {
                return Measure::missing(rule, who, "ratio", no_target(figures.report, &row.bench));
            };
            let bound = min.unwrap_or(target.perf_target);
            let Some(perf) = row.perf else {
                return Measure::failed(rule, who, "ratio", "no run of the bench counts".into());
            };
            let note = format!("mean {} of target {} {UNIT}", number(row.sample.mean, false), target.target);
            Measure { measured: perf, bound, unit: "ratio" }.at_least(rule, who, note)
        })
        .collect()
}

/// Mean throughput of each config at least `min` items/s.
pub fn min_throughput(rule: &Rule, figures: &Figures, min: f64) -> Vec<Verdict> {
    figures
        .configs(rule)
        .map(|row| {
            let who = subject(&row.label, None, None);
            match row.sample.mean {
                Some(mean) => {
                    let note = format!("mean of {} runs", row.sample.count);
                    Measure { measured: mean, bound: min, unit: UNIT }.at_least(rule, who, note)
                }
                None => Measure::failed(rule, who, UNIT, "no run of the config counts".into()),
            }
        })
        .collect()
}

/// sd% at most `max` (percent), else the table's `sd_target`.
pub fn spread(rule: &Rule, figures: &Figures, max: Option<f64>) -> Vec<Verdict> {
    figures
        .benches(rule)
        .map(|row| {
            let who = subject(&row.bench, None, None);
            // The bound as a share of the mean, as the table holds it.
            let bound = match (max, row.target) {
                (Some(percent), _) => percent / 100.0,
                (None, Some(target)) => target.sd_target,
                (None, None) => return Measure::missing(rule, who, "%", no_target(figures.report, &row.bench)),
            };
            let Some(share) = row.sd_share else {
                let note = format!("{} counted runs: no spread (it takes 2)", row.sample.count);
                return Measure::missing(rule, who, "%", note);
            };
            // Judged on the shares, as the score judges them; shown in percent.
            let (measured, limit) = (100.0 * share, 100.0 * bound);
            let note = format!("sd of {} runs", row.sample.count);
            Measure { measured, bound: limit, unit: "%" }.verdict(rule, who, share <= bound, limit - measured, note)
        })
        .collect()
}
