//! The layout of a report, independent of the output format: the
//! presentation layer's sections ([`mlb_present`]), each with the charts
//! that follow it in the HTML page.

use super::super::history::Regressions;
use super::super::relative::{Cell as RelCell, Flag, Row as RelRow, FLAG_BELOW};
use super::super::{FailureRow, Grouping, Report, Row, Rule, Verdict};
use super::measured;

pub use mlb_present::{Body, Cell, Mark, Table};

/// Which chart belongs after a section (HTML only).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Anchor {
    /// The results table.
    Results,
    /// The per-GPU mean table.
    PerGpu,
    /// The telemetry of sampled instances.
    Timelines,
    /// The time to quality table: the quality curves.
    Quality,
}

/// A titled part of the report, and the charts that follow it in the
/// HTML page.
pub type Section = mlb_present::Section<Anchor>;

pub(super) fn section(title: impl Into<String>, body: Body) -> Section {
    Section::new(title, body)
}

pub(super) fn num(v: Option<f64>) -> Cell {
    v.map_or("-".into(), |v| format!("{v:.2}").into())
}

pub(super) fn pct(v: Option<f64>) -> Cell {
    v.map_or("-".into(), |v| format!("{:.1}%", v * 100.0).into())
}

fn pass(v: Option<bool>) -> Cell {
    match v {
        None => "-".into(),
        Some(true) => Cell { text: "PASS".into(), mark: Some(Mark::Pass) },
        Some(false) => Cell { text: "FAIL".into(), mark: Some(Mark::Fail) },
    }
}

fn marked(cell: Cell, ok: Option<bool>) -> Cell {
    Cell { mark: ok.map(|ok| if ok { Mark::Pass } else { Mark::Fail }), ..cell }
}

fn interval(ci: Option<(f64, f64)>) -> Cell {
    ci.map_or("-".into(), |(lo, hi)| format!("[{lo:.2}, {hi:.2}]").into())
}

pub(super) fn table(headers: &[&str], rows: Vec<Vec<Cell>>) -> Body {
    Body::table(headers.iter().copied(), rows)
}

/// One row per config and group size: the ranks' mean, the group's total,
/// one rank's mean and the efficiency.
fn groups(report: &Report) -> Body {
    let rows = report.groups.iter().map(|g| {
        let mark = g.efficiency.filter(|&e| e < FLAG_BELOW).map(|_| Mark::Warn);
        vec![
            g.label.as_str().into(),
            g.world.to_string().into(),
            g.per_rank.n.to_string().into(),
            num(g.per_rank.mean),
            num(g.total),
            num(g.one_rank),
            Cell { mark, ..pct(g.efficiency) },
        ]
    });
    let unit = report.unit;
    let headers = [
        "config",
        "ranks",
        "results",
        &format!("rank mean ({unit})"),
        &format!("total ({unit})"),
        &format!("one rank ({unit})"),
        "efficiency",
    ];
    table(&headers, rows.collect())
}

/// The first column's name: what a row is.
pub(super) fn row_kind(report: &Report) -> &'static str {
    match report.grouping {
        Grouping::Config => "config",
        Grouping::Bench => "bench",
    }
}

/// A throughput column's header, with the unit.
fn unit(report: &Report, name: &str) -> String {
    format!("{name} ({})", report.unit)
}

/// The report laid out in sections.
pub fn sections(report: &Report) -> Vec<Section> {
    let mut out = vec![section("Report", Body::Pairs(header(report)))];
    out.extend(measured::system(report));
    if !report.warnings.is_empty() {
        out.push(section("Warnings", Body::Notes(report.warnings.iter().map(|w| format!("warning: {w}")).collect())));
    }
    let results = match report.grouping {
        Grouping::Config => section("Results (one row per config)", config_table(report, &report.rows)),
        Grouping::Bench => {
            section("Results (one row per bench, its configs pooled)", bench_table(report, &report.rows))
        }
    };
    out.push(Section { anchor: Some(Anchor::Results), ..results });
    if report.grouping == Grouping::Config && report.targets.is_some() {
        let title = "Score table (one row per bench, its configs pooled, as the original)";
        out.push(section(title, bench_table(report, &report.benches)));
    }
    match &report.profile_score {
        Some(p) => out.push(section(format!("Score (profile {}, docs/targets.md)", p.profile), measured::profile(p))),
        None => out.push(section("Score", score(report))),
    }
    let gpu = &report.per_gpu;
    if gpu.devices.len() > 1 {
        // One GPU model: named once in the title, not in each column (eight
        // columns of `0 (NVIDIA H100 80GB HBM3)` were 240 characters wide).
        let mut models: Vec<&str> = gpu.devices.iter().filter_map(|d| d.gpu.as_deref()).collect();
        models.dedup();
        let one_model = (models.len() == 1 && gpu.devices.iter().all(|d| d.gpu.is_some())).then(|| models[0]);
        let headers: Vec<String> = gpu
            .devices
            .iter()
            .map(|d| match (&d.gpu, one_model) {
                (Some(name), None) => format!("{} ({name})", d.label()),
                _ => d.label(),
            })
            .collect();
        let of = one_model.map(|m| format!(" of {} x {m}", gpu.devices.len())).unwrap_or_default();
        for (i, measure) in ["mean", "min", "max"].into_iter().enumerate() {
            let title = format!("Relative GPU performance ({measure}){of}");
            let mut s = section(title, relative(report, &headers, &gpu.rows, i));
            s.anchor = (i == 0).then_some(Anchor::PerGpu);
            out.push(s);
        }
    }
    if !gpu.flags.is_empty() {
        let title = format!("GPUs below {:.0}% of the best", FLAG_BELOW * 100.0);
        out.push(section(title, flags(report, "device", &gpu.flags)));
    }
    let node = &report.per_node;
    if !node.nodes.is_empty() {
        let title = "Relative node performance (mean of each node's instances)";
        out.push(section(title, relative(report, &node.nodes, &node.rows, 0)));
    }
    if !node.stragglers.is_empty() {
        let title = format!("Stragglers: nodes below {:.0}% of the best node", FLAG_BELOW * 100.0);
        out.push(section(title, flags(report, "node", &node.stragglers)));
    }
    out.extend(measured::mfu(report));
    out.extend(measured::energy_and_conditions(report));
    if !report.groups.is_empty() {
        out.push(section("Data parallel groups (total throughput, scaling against one rank)", groups(report)));
    }
    out.extend(super::reproducibility::sections(&report.reproducibility));
    if let Some(base) = &report.baseline {
        let rows = base.comparisons.iter().map(|c| {
            let mark = match c.verdict {
                Verdict::Faster => Some(Mark::Pass),
                Verdict::Slower => Some(Mark::Fail),
                Verdict::NoDifference | Verdict::TooFewRuns => None,
            };
            vec![
                c.label.as_str().into(),
                num(c.current.mean),
                interval(c.current.ci95),
                num(c.baseline.mean),
                interval(c.baseline.ci95),
                num(Some(c.ratio)),
                Cell { text: c.verdict.label().into(), mark },
            ]
        });
        let headers = [
            row_kind(report).to_string(),
            unit(report, "mean"),
            "95% CI".into(),
            unit(report, "baseline mean"),
            "baseline 95% CI".into(),
            "ratio".into(),
            "verdict".into(),
        ];
        let body = Body::table(headers, rows.collect());
        out.push(section(format!("Baseline: {}", base.reports.display()), body));
    }
    if let Some(regressions) = &report.regressions {
        out.push(history(report, regressions));
    }
    if !report.failures.is_empty() {
        out.push(section("Failures", entries(&report.failures, "cause", true)));
    }
    if !report.stricter.is_empty() {
        let title = match report.rule {
            Rule::Original => "Stricter check (counted here, as the original counts them; failures with --strict)",
            Rule::Strict => "Stricter check (failures here; the original counts them)",
        };
        out.push(section(title, entries(&report.stricter, "check", report.rule == Rule::Strict)));
    }
    let unreadable: Vec<_> = report
        .unreadable
        .iter()
        .chain(report.baseline.iter().flat_map(|b| &b.unreadable))
        .map(|u| vec![u.path.display().to_string().into(), u.reason.as_str().into()])
        .collect();
    if !unreadable.is_empty() {
        out.push(section("Unreadable files", table(&["file", "reason"], unreadable)));
    }
    if let Some(quality) = &report.quality {
        out.extend(super::quality::sections(quality));
    }
    if !report.notes.is_empty() {
        out.push(section("Notes", Body::Notes(report.notes.clone())));
    }
    out
}

/// Each row against the last runs of its system and config in the store:
/// means, change, Welch's p-value and the regression flag.
fn history(report: &Report, h: &Regressions) -> Section {
    let rows = h
        .rows
        .iter()
        .map(|j| {
            let flag =
                if j.regression { Cell { text: "REGRESSION".into(), mark: Some(Mark::Fail) } } else { "-".into() };
            vec![
                j.config.as_str().into(),
                num(j.current.mean),
                j.current.n.to_string().into(),
                num(j.history.mean),
                j.history.n.to_string().into(),
                j.runs.len().to_string().into(),
                j.change_percent.map_or("-".into(), |c| format!("{c:+.1}%").into()),
                j.p_value.map_or("-".into(), |p| format!("{p:.3}").into()),
                flag,
            ]
        })
        .collect();
    let headers = [
        row_kind(report).to_string(),
        unit(report, "mean"),
        "n".into(),
        unit(report, "history mean"),
        "history n".into(),
        "runs".into(),
        "change".into(),
        "p (Welch)".into(),
        "regression".into(),
    ];
    let title = format!(
        "History: {} in {}, against its last {} runs (a regression: over {:.0}% slower, p < {})",
        h.system,
        h.store,
        h.history_runs,
        h.threshold * 100.0,
        h.significance
    );
    if h.rows.is_empty() {
        let line = format!("no earlier run of {} in the store holds these configs", h.system);
        return section(title, Body::Notes(vec![line]));
    }
    section(title, Body::table(headers, rows))
}

/// Failed or disputed entries: file, bench, vcd, cause, message.
fn entries(rows: &[FailureRow], cause: &str, failed: bool) -> Body {
    let mark = Some(if failed { Mark::Fail } else { Mark::Warn });
    let rows = rows.iter().map(|f| {
        vec![
            f.file.display().to_string().into(),
            f.bench.as_deref().unwrap_or("(null)").into(),
            f.vcd.as_deref().unwrap_or("-").into(),
            Cell { text: f.cause.clone(), mark },
            f.message.as_str().into(),
        ]
    });
    table(&["file", "bench", "vcd", cause, "message"], rows.collect())
}

fn header(report: &Report) -> Vec<(String, Cell)> {
    let mut pairs = vec![("reports".to_string(), report.reports.display().to_string().into())];
    if let Some(suite) = &report.suite {
        pairs.push(("suite".into(), suite.as_str().into()));
    }
    pairs.push(("targets".into(), report.targets.as_deref().unwrap_or("none").into()));
    pairs.push(("files".into(), format!("{} ({} unreadable)", report.files, report.unreadable.len()).into()));
    pairs.push(("unit".into(), format!("{} (train_item.avg of each instance)", report.unit).into()));
    let checks = match report.rule {
        Rule::Original => "the original's (--strict: mlb's stricter check)",
        Rule::Strict => "mlb's stricter check (--strict)",
    };
    pairs.push(("failure checks".into(), checks.into()));
    pairs
}

/// Stricter-check counts, marked when not zero.
fn stricter(row: &Row) -> Cell {
    let mark = (row.stricter > 0).then_some(Mark::Warn);
    Cell { text: row.stricter.to_string(), mark }
}

/// One row per config: the statistics.
fn config_table(report: &Report, rows: &[Row]) -> Body {
    let cells = rows.iter().map(|r| {
        let s = &r.sample;
        vec![
            r.label.as_str().into(),
            s.n.to_string().into(),
            r.failures.to_string().into(),
            stricter(r),
            num(s.mean),
            num(s.sd),
            pct(r.sd_share),
            interval(s.ci95),
            num(s.min),
            num(s.max),
        ]
    });
    let headers = vec![
        row_kind(report).to_string(),
        "n".into(),
        "fail".into(),
        "stricter".into(),
        unit(report, "mean"),
        unit(report, "sd"),
        "sd%".into(),
        "95% CI".into(),
        unit(report, "min"),
        unit(report, "max"),
    ];
    Body::table(headers, cells.collect())
}

/// One row per bench: the original's table, with targets and passes.
fn bench_table(report: &Report, rows: &[Row]) -> Body {
    let cells = rows.iter().map(|b| {
        let t = b.target;
        vec![
            b.bench.as_str().into(),
            b.sample.n.to_string().into(),
            b.failures.to_string().into(),
            stricter(b),
            num(t.map(|t| t.target)),
            num(t.map(|t| t.perf_target)),
            pct(t.map(|t| t.sd_target)),
            num(b.sample.mean),
            num(b.sample.sd),
            interval(b.sample.ci95),
            marked(num(b.perf), b.perf_pass),
            pass(b.perf_pass),
            marked(pct(b.sd_share), b.sd_pass),
            pass(b.sd_pass),
        ]
    });
    let headers = vec![
        "bench".to_string(),
        "n".into(),
        "fail".into(),
        "stricter".into(),
        unit(report, "target"),
        "perf_tgt".into(),
        "sd%_tgt".into(),
        unit(report, "mean"),
        unit(report, "sd"),
        "95% CI".into(),
        "perf".into(),
        "perf_pass".into(),
        "sd%".into(),
        "sd%_pass".into(),
    ];
    Body::table(headers, cells.collect())
}

fn score(report: &Report) -> Body {
    let Some(s) = &report.score else {
        return Body::Notes(vec!["no score: pass --gpu-model NAME (`mlb targets list`) or --targets FILE".into()]);
    };
    let share = s.failures as f64 / s.results as f64;
    let bf_ok = Some(s.bf == 1);
    let mut pairs = vec![
        ("results".to_string(), s.results.to_string().into()),
        ("failures".into(), marked(format!("{} ({:.2}%)", s.failures, share * 100.0).into(), bf_ok)),
        ("BF (failures <= 1%)".into(), marked(s.bf.to_string().into(), bf_ok)),
        (format!("PM (perf passes, of {})", s.benches), format!("{:.3}", s.pm).into()),
        (format!("ST (sd% passes, of {})", s.benches), format!("{:.3}", s.st).into()),
        (format!("PG (geometric mean of perf, {})", s.pg_benches), format!("{:.3}", s.pg).into()),
        ("Score = BF*(2*PM+ST+5*PG)".into(), format!("{:.3}", s.score).into()),
    ];
    if let Some(price) = s.price {
        pairs.push(("price (USD)".into(), format!("{price:.2}").into()));
        pairs.push(("RPP = price/Score".into(), s.rpp.map_or("- (score is 0)".into(), |r| format!("{r:.2}").into())));
    }
    Body::Pairs(pairs)
}

/// A relative table over columns named `columns`: `measure` 0 mean, 1 min,
/// 2 max.
fn relative(report: &Report, columns: &[String], rows: &[RelRow], measure: usize) -> Body {
    let mut headers = vec![row_kind(report).to_string()];
    headers.extend(columns.iter().cloned());
    let value = |c: &RelCell| [c.rel_mean, c.rel_min, c.rel_max][measure];
    let rows = rows
        .iter()
        .map(|row| {
            let mut cells: Vec<Cell> = vec![row.label.as_str().into()];
            cells.extend(row.cells.iter().map(|c| match c.and_then(|c| value(&c)) {
                None => "-".into(),
                Some(v) => {
                    let mark = (measure == 0 && v < FLAG_BELOW).then_some(Mark::Warn);
                    Cell { text: format!("{:.0}%", v * 100.0), mark }
                }
            }));
            cells
        })
        .collect();
    Body::table(headers, rows)
}

/// The flagged columns (a `column` each) of a relative table.
fn flags(report: &Report, column: &str, flags: &[Flag]) -> Body {
    let rows = flags.iter().map(|f| {
        vec![
            f.label.as_str().into(),
            f.column.as_str().into(),
            Cell { mark: Some(Mark::Warn), ..pct(Some(f.rel_mean)) },
        ]
    });
    table(&[row_kind(report), column, "mean vs best"], rows.collect())
}
