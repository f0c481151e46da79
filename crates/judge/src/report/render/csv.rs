//! The results table as CSV, at full precision (empty cells where a figure
//! does not exist): one line per config, its varying arguments as columns
//! (or one line per bench with `--rows bench`). When some entry states its
//! FLOPs per item, each line also holds its MFU figures; when some report
//! has a `determinism` block, the verdicts of its row's vote groups
//! (docs/report.md, "Reproducibility"). Text cells are
//! [`mlb_record::untrusted::csv::text`]: no line break, no escape sequence, no
//! formula.

use super::super::{Grouping, Report};
use mlb_record::untrusted::csv::{number as field, text};
use serde_json::Value;
use std::collections::BTreeSet;

fn flag(v: Option<bool>) -> String {
    v.map(|v| v.to_string()).unwrap_or_default()
}

/// An argument's cell: a number as it is, anything else as text.
fn arg(v: Option<&Value>) -> String {
    match v {
        None | Some(Value::Null) => String::new(),
        Some(Value::Number(n)) => n.to_string(),
        Some(Value::String(s)) => text(s),
        Some(other) => text(&other.to_string()),
    }
}

/// One line per row; with a baseline, its mean, ratio and verdict too.
pub fn render(report: &Report) -> String {
    let args: BTreeSet<&str> = report.rows.iter().flat_map(|r| r.args.keys().map(String::as_str)).collect();
    let mut header: Vec<String> = match report.grouping {
        Grouping::Config => vec!["config".into(), "bench".into()],
        Grouping::Bench => vec!["bench".into()],
    };
    header.extend(args.iter().map(|a| text(a)));
    header.push(
        "n,failures,stricter,mean,sd,sd_share,ci95_low,ci95_high,min,max,target,perf_target,sd_target,perf,perf_pass,sd_pass"
            .into(),
    );
    let mfu = !report.mfu.is_empty();
    if mfu {
        header.push("precision,flops_per_item,achieved_tflops,peak_tflops,peak_of,mfu".into());
    }
    let votes = !report.reproducibility.is_empty();
    if votes {
        header.push("reproducibility,reproducibility_detail".into());
    }
    if report.baseline.is_some() {
        header.push("baseline_mean,ratio,verdict".into());
    }
    let mut out = header.join(",");
    out.push('\n');
    for r in &report.rows {
        let (s, t) = (&r.sample, r.target);
        let ci = s.ci95;
        let mut cells = match report.grouping {
            Grouping::Config => vec![text(&r.label), text(&r.bench)],
            Grouping::Bench => vec![text(&r.bench)],
        };
        cells.extend(args.iter().map(|a| arg(r.args.get(*a))));
        cells.extend([
            s.n.to_string(),
            r.failures.to_string(),
            r.stricter.to_string(),
            field(s.mean),
            field(s.sd),
            field(r.sd_share),
            field(ci.map(|c| c.0)),
            field(ci.map(|c| c.1)),
            field(s.min),
            field(s.max),
            field(t.map(|t| t.target)),
            field(t.map(|t| t.perf_target)),
            field(t.map(|t| t.sd_target)),
            field(r.perf),
            flag(r.perf_pass),
            flag(r.sd_pass),
        ]);
        if mfu {
            match report.mfu.rows.iter().find(|m| m.label == r.label) {
                Some(m) => cells.extend([
                    text(&m.precision),
                    m.flops_per_item.to_string(),
                    field(m.achieved_tflops.mean),
                    field(m.peak_tflops),
                    text(&m.peak_of),
                    field(m.mfu.mean),
                ]),
                None => cells.extend(std::iter::repeat_n(String::new(), 6)),
            }
        }
        if votes {
            // A row's groups: its config's (with --rows bench, its bench's), one per device and stack.
            let groups: Vec<_> = report
                .reproducibility
                .iter()
                .filter(|g| match report.grouping {
                    Grouping::Config => g.config == r.label,
                    Grouping::Bench => g.bench == r.bench,
                })
                .collect();
            let verdicts: Vec<&str> = groups.iter().map(|g| g.verdict.label()).collect();
            let details: Vec<String> = groups.iter().map(|g| format!("{}: {}", g.device, g.statement())).collect();
            cells.extend([text(&verdicts.join(" | ")), text(&details.join(" | "))]);
        }
        if let Some(base) = &report.baseline {
            match base.comparisons.iter().find(|c| c.label == r.label) {
                Some(c) => cells.extend([field(c.baseline.mean), c.ratio.to_string(), text(c.verdict.label())]),
                None => cells.extend([String::new(), String::new(), String::new()]),
            }
        }
        out.push_str(&cells.join(","));
        out.push('\n');
    }
    out
}
