//! Rules that count: failed entries per bench, the share of failed entries
//! (the original score's BF), and required benches.

use super::{benches_of, subject, Figures, Measure};
use crate::accept::rules::Rule;
use crate::accept::verdict::{Subject, Verdict};

/// Failed entries of each bench at most `max`.
pub fn failures(rule: &Rule, figures: &Figures, max: f64) -> Vec<Verdict> {
    figures
        .benches(rule)
        .map(|row| {
            let note = format!("{} failed of {} results", row.failures, row.results);
            Measure { measured: row.failures as f64, bound: max, unit: "count" }.at_most(
                rule,
                subject(&row.bench, None, None),
                note,
            )
        })
        .collect()
}

/// Failed entries at most `max_percent` of the results, the benches the
/// rule reaches together. Over every bench, the entries without a name
/// count too, as in the original's BF.
pub fn failure_share(rule: &Rule, figures: &Figures, max_percent: f64) -> Verdict {
    let report = figures.report;
    let rows = figures.benches(rule);
    let (mut results, mut failed) = rows.fold((0, 0), |(r, f), row| (r + row.results, f + row.failures));
    if rule.benches.is_all() {
        let unnamed = report.failures.iter().filter(|f| f.bench.is_none()).count();
        results = report.score.as_ref().map_or(results + unnamed, |s| s.results);
        failed = report.failures.len();
    }
    let who = benches_of(rule);
    let share = failed as f64 / results as f64;
    let bound = max_percent / 100.0;
    let note = format!("{failed} failed of {results} results");
    let (measured, limit) = (100.0 * share, max_percent);
    Measure { measured, bound: limit, unit: "%" }.verdict(rule, who, share <= bound, limit - measured, note)
}

/// The benches of the rule are in the reports: a name must be there, a
/// glob must match one bench at least.
pub fn required(rule: &Rule, figures: &Figures) -> Verdict {
    let found: Vec<&str> =
        figures.report.benches.iter().map(|row| row.bench.as_str()).filter(|b| rule.benches.matches(b)).collect();
    let note =
        if found.is_empty() { "missing from the reports".to_string() } else { format!("found: {}", found.join(", ")) };
    let who = Subject { bench: Some(rule.benches.to_string()), ..Subject::default() };
    Measure { measured: found.len() as f64, bound: 1.0, unit: "benches" }.at_least(rule, who, note)
}
