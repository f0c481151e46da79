//! The per-bench table as CSV, at full precision (empty cells where a
//! figure does not exist).

use super::super::Report;

fn field(v: Option<f64>) -> String {
    v.map(|v| v.to_string()).unwrap_or_default()
}

fn flag(v: Option<bool>) -> String {
    v.map(|v| v.to_string()).unwrap_or_default()
}

/// Quotes a text field when it holds a comma, a quote or a line break.
fn text(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// One line per bench; with a baseline, its mean, ratio and verdict too.
pub fn render(report: &Report) -> String {
    let mut out = String::from(
        "bench,n,failures,target,perf_target,sd_target,mean,sd,ci95_low,ci95_high,perf,perf_pass,sd_share,sd_pass",
    );
    if report.baseline.is_some() {
        out.push_str(",baseline_mean,ratio,verdict");
    }
    out.push('\n');
    for b in &report.benches {
        let (s, t) = (b.sample, b.target);
        let ci = s.and_then(|s| s.ci95);
        let cells = [
            text(&b.bench),
            s.map_or(0, |s| s.n).to_string(),
            b.failures.to_string(),
            field(t.map(|t| t.target)),
            field(t.map(|t| t.perf_target)),
            field(t.map(|t| t.sd_target)),
            field(s.map(|s| s.mean)),
            field(s.and_then(|s| s.sd)),
            field(ci.map(|c| c.0)),
            field(ci.map(|c| c.1)),
            field(b.perf),
            flag(b.perf_pass),
            field(b.sd_share),
            flag(b.sd_pass),
        ];
        out.push_str(&cells.join(","));
        if let Some(base) = &report.baseline {
            match base.comparisons.iter().find(|c| c.bench == b.bench) {
                Some(c) => out.push_str(&format!(",{},{},{}", c.baseline.mean, c.ratio, text(c.verdict.label()))),
                None => out.push_str(",,,"),
            }
        }
        out.push('\n');
    }
    out
}
