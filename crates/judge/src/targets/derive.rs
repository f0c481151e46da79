//! The rule that turns a reference run into a target table, and the checks
//! that the run can be one (docs/targets.md):
//!
//! - `target`: the mean throughput of the bench over the run's results
//!   (every config pooled, as the score does);
//! - `perf_target`: [`PERF_TARGET`] unless `--perf` says otherwise;
//! - `sd_target`: the observed spread `sd / mean` times [`SD_FACTOR`], at
//!   least [`SD_FLOOR`] (a bench that varied little still gets room).
//!
//! Figures are written with 6 significant digits; a bench's name is one
//! CSV cell ([`cell`]: quoted when it holds a comma, a quote or a line
//! break), so that no name adds a row, and the comments hold no line break.

use crate::report::{Report, Target};
use mlb_record::untrusted::csv::cell;
use mlb_record::untrusted::visible;
use std::collections::BTreeSet;

/// `perf_target` of a derived table unless `--perf` is given.
pub const PERF_TARGET: f64 = 0.9;
/// How much more spread than observed a derived table allows.
pub const SD_FACTOR: f64 = 1.5;
/// The least `sd_target` of a derived table.
pub const SD_FLOOR: f64 = 0.05;
/// Results a bench needs (a spread needs two).
pub const MIN_RESULTS: usize = 2;

/// Why the run cannot be a reference: one reason per problem, empty when
/// it can. `models` are the entries' `gpu` fields, `system_model` the
/// accelerator of the folder's `system.json`, `name` the `--gpu-model`.
pub fn unfit(report: &Report, models: &BTreeSet<String>, system_model: Option<&str>, name: &str) -> Vec<String> {
    let mut reasons = Vec::new();
    if let Some(first) = report.failures.first() {
        reasons.push(format!(
            "{} failed entries (the first: {}: {})",
            report.failures.len(),
            first.file.display(),
            first.cause
        ));
    }
    for row in report.benches.iter().filter(|r| r.sample.count < MIN_RESULTS) {
        reasons.push(format!(
            "bench `{}` has {} usable result(s), and a target needs at least {MIN_RESULTS}",
            row.bench, row.sample.count
        ));
    }
    if models.len() > 1 {
        let list: Vec<&str> = models.iter().map(String::as_str).collect();
        reasons.push(format!("the entries ran on several GPU models ({})", list.join(", ")));
    }
    if let Some(model) = system_model.filter(|m| *m != "none" && !m.to_lowercase().contains(&name.to_lowercase())) {
        reasons.push(format!("its system.json names the accelerator `{model}`, which is not `{name}`"));
    }
    reasons
}

/// The targets of every bench of `report` with a positive mean, by the
/// rule above; benches without one are left out.
pub fn derive(report: &Report, perf_target: f64) -> Vec<(String, Target)> {
    report
        .benches
        .iter()
        .filter_map(|row| {
            let mean = row.sample.mean.filter(|m| m.is_finite() && *m > 0.0)?;
            let share = row.sample.sd.filter(|sd| sd.is_finite()).map_or(0.0, |sd| sd / mean);
            let target = Target {
                target: significant(mean),
                perf_target,
                sd_target: significant((share * SD_FACTOR).max(SD_FLOOR)),
            };
            Some((row.bench.clone(), target))
        })
        .collect()
}

/// `v` rounded to 6 significant digits.
fn significant(v: f64) -> f64 {
    format!("{v:.5e}").parse().expect("a formatted float parses")
}

/// The table as CSV (`bench,target,perf_target,sd_target`) after comment
/// lines that say where it comes from, by which rule, and what `--force`
/// let through (`forced`, the reasons of [`unfit`]).
pub fn to_csv(
    name: &str,
    reports: &std::path::Path,
    benches: &[(String, Target)],
    perf_target: f64,
    forced: &[String],
) -> String {
    let forced: String = forced.iter().map(|r| format!("# derived with --force although: {}\n", visible(r))).collect();
    let mut out = format!(
        "# {}: derived by mlb {} from {}\n\
         # target = mean throughput of the run (items/s); perf_target = {perf_target}; \
         sd_target = max({SD_FACTOR} x sd/mean, {SD_FLOOR})\n\
         {forced}bench,target,perf_target,sd_target\n",
        visible(name),
        env!("CARGO_PKG_VERSION"),
        visible(&reports.display().to_string())
    );
    for (bench, t) in benches {
        out.push_str(&format!("{},{},{},{}\n", cell(bench), t.target, t.perf_target, t.sd_target));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn six_significant_digits() {
        assert_eq!(significant(210.00000000000003), 210.0);
        assert_eq!(significant(0.0123456789), 0.0123457);
        assert_eq!(significant(1234567.0), 1234570.0);
    }

    #[test]
    fn the_csv_reads_back_as_a_table() {
        let benches = vec![("vae".to_string(), Target { target: 7400.0, perf_target: 0.9, sd_target: 0.081081 })];
        let text = to_csv("H100", std::path::Path::new("out"), &benches, 0.9, &["1 failed entries".into()]);
        let table = crate::report::Targets::parse("t.csv", &text).unwrap();
        assert_eq!(table.get("vae"), Some(&benches[0].1));
        assert!(text.starts_with("# H100: derived by mlb "), "{text}");
        assert!(text.contains("\n# derived with --force although: 1 failed entries\nbench,"), "{text}");
    }

    #[test]
    fn names_and_reasons_add_no_row() {
        let t = Target { target: 7400.0, perf_target: 0.9, sd_target: 0.081081 };
        let benches: Vec<(String, Target)> = ["convnet,0.000001,0.000001,100\nzzz", "# c", "=1+1", "a \"q\""]
            .into_iter()
            .map(|n| (n.to_string(), t))
            .collect();
        let reason = "bench `x\nconvnet,1,1,1` has 1 usable result(s)".to_string();
        let text = to_csv("H1\n00", std::path::Path::new("o\nut"), &benches, 0.9, &[reason]);
        let table = crate::report::Targets::parse("t.csv", &text).unwrap();
        let derived: std::collections::BTreeMap<String, Target> = benches.into_iter().collect();
        assert_eq!(table.benches, derived, "{text}");
    }
}
