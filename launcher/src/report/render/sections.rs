//! The layout of a report, independent of the output format: titled
//! sections holding a table, label/value pairs or lines, with cells marked
//! pass, fail or warn.

use super::super::per_gpu::{Cell as GpuCell, FLAG_BELOW};
use super::super::{Report, Verdict};

/// How a cell should stand out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mark {
    /// A check passed.
    Pass,
    /// A check failed.
    Fail,
    /// Worth a look (a GPU below 90% of the best).
    Warn,
}

/// One cell: text and an optional mark.
#[derive(Clone, Debug, PartialEq)]
pub struct Cell {
    /// What is shown.
    pub text: String,
    /// How it stands out.
    pub mark: Option<Mark>,
}

impl From<String> for Cell {
    fn from(text: String) -> Self {
        Cell { text, mark: None }
    }
}

impl From<&str> for Cell {
    fn from(text: &str) -> Self {
        Cell { text: text.into(), mark: None }
    }
}

/// What a section holds.
#[derive(Clone, Debug, PartialEq)]
pub enum Body {
    /// A table: header and rows.
    Table {
        /// Column names.
        headers: Vec<String>,
        /// Rows of cells.
        rows: Vec<Vec<Cell>>,
    },
    /// Label and value pairs.
    Pairs(Vec<(String, Cell)>),
    /// Lines of text.
    Lines(Vec<String>),
}

/// Which chart belongs after a section (HTML only).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Anchor {
    /// The per-bench results.
    Results,
    /// The per-GPU mean table.
    PerGpu,
}

/// A titled part of the report.
#[derive(Clone, Debug, PartialEq)]
pub struct Section {
    /// Title.
    pub title: String,
    /// Content.
    pub body: Body,
    /// Charts that follow it in the HTML page.
    pub anchor: Option<Anchor>,
}

fn section(title: impl Into<String>, body: Body) -> Section {
    Section { title: title.into(), body, anchor: None }
}

fn num(v: Option<f64>) -> Cell {
    v.map_or("-".into(), |v| format!("{v:.2}").into())
}

fn pct(v: Option<f64>) -> Cell {
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

fn table(headers: &[&str], rows: Vec<Vec<Cell>>) -> Body {
    Body::Table { headers: headers.iter().map(|h| h.to_string()).collect(), rows }
}

/// The report laid out in sections.
pub fn sections(report: &Report) -> Vec<Section> {
    let mut out = vec![section("Report", Body::Pairs(header(report)))];
    out.push(Section { anchor: Some(Anchor::Results), ..section("Results", results(report)) });
    out.push(section("Score", score(report)));
    for (i, measure) in ["mean", "min", "max"].into_iter().enumerate() {
        let mut s = section(format!("Relative GPU performance ({measure})"), relative(report, i));
        s.anchor = (i == 0).then_some(Anchor::PerGpu);
        out.push(s);
    }
    if !report.per_gpu.flags.is_empty() {
        let rows = report.per_gpu.flags.iter().map(|f| {
            vec![
                f.bench.as_str().into(),
                f.device.as_str().into(),
                Cell { mark: Some(Mark::Warn), ..pct(Some(f.rel_mean)) },
            ]
        });
        let title = format!("GPUs below {:.0}% of the best", FLAG_BELOW * 100.0);
        out.push(section(title, table(&["bench", "device", "mean vs best"], rows.collect())));
    }
    if let Some(base) = &report.baseline {
        let rows = base.comparisons.iter().map(|c| {
            let mark = match c.verdict {
                Verdict::Faster => Some(Mark::Pass),
                Verdict::Slower => Some(Mark::Fail),
                Verdict::NoDifference | Verdict::TooFewRuns => None,
            };
            vec![
                c.bench.as_str().into(),
                num(Some(c.current.mean)),
                interval(c.current.ci95),
                num(Some(c.baseline.mean)),
                interval(c.baseline.ci95),
                num(Some(c.ratio)),
                Cell { text: c.verdict.label().into(), mark },
            ]
        });
        let headers = ["bench", "mean", "95% CI", "baseline mean", "baseline 95% CI", "ratio", "verdict"];
        out.push(section(format!("Baseline: {}", base.reports.display()), table(&headers, rows.collect())));
    }
    if !report.failures.is_empty() {
        let rows = report.failures.iter().map(|f| {
            let vcd = f.vcd.clone().unwrap_or_else(|| "-".into());
            vec![
                f.file.display().to_string().into(),
                f.bench.as_str().into(),
                vcd.into(),
                Cell { text: f.cause.clone(), mark: Some(Mark::Fail) },
                f.message.as_str().into(),
            ]
        });
        out.push(section("Failures", table(&["file", "bench", "vcd", "cause", "message"], rows.collect())));
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
    if !report.notes.is_empty() {
        out.push(section("Notes", Body::Lines(report.notes.clone())));
    }
    out
}

fn header(report: &Report) -> Vec<(String, Cell)> {
    let mut pairs = vec![("reports".to_string(), report.reports.display().to_string().into())];
    if let Some(suite) = &report.suite {
        pairs.push(("suite".into(), suite.as_str().into()));
    }
    pairs.push(("targets".into(), report.targets.as_deref().unwrap_or("none").into()));
    pairs.push(("files".into(), format!("{} ({} unreadable)", report.files, report.unreadable.len()).into()));
    pairs
}

fn results(report: &Report) -> Body {
    let rows = report.benches.iter().map(|b| {
        let t = b.target;
        vec![
            b.bench.as_str().into(),
            b.sample.map_or(0, |s| s.n).to_string().into(),
            b.failures.to_string().into(),
            num(t.map(|t| t.target)),
            num(t.map(|t| t.perf_target)),
            pct(t.map(|t| t.sd_target)),
            num(b.sample.map(|s| s.mean)),
            num(b.sample.and_then(|s| s.sd)),
            interval(b.sample.and_then(|s| s.ci95)),
            marked(num(b.perf), b.perf_pass),
            pass(b.perf_pass),
            marked(pct(b.sd_share), b.sd_pass),
            pass(b.sd_pass),
        ]
    });
    let headers = [
        "bench",
        "n",
        "fail",
        "target",
        "perf_tgt",
        "sd%_tgt",
        "mean",
        "sd",
        "95% CI",
        "perf",
        "perf_pass",
        "sd%",
        "sd%_pass",
    ];
    table(&headers, rows.collect())
}

fn score(report: &Report) -> Body {
    let Some(s) = &report.score else {
        return Body::Lines(vec!["no score: no bench of this report has a target".into()]);
    };
    let share = if s.results == 0 { 0.0 } else { s.failures as f64 / s.results as f64 };
    let bf_ok = Some(s.bf == 1);
    let mut pairs = vec![
        ("results".to_string(), s.results.to_string().into()),
        ("failures".into(), marked(format!("{} ({:.2}%)", s.failures, share * 100.0).into(), bf_ok)),
        ("BF (failures <= 1%)".into(), marked(s.bf.to_string().into(), bf_ok)),
        (format!("PM (perf passes, of {})", s.scored_benches), format!("{:.3}", s.pm).into()),
        (format!("ST (sd% passes, of {})", s.scored_benches), format!("{:.3}", s.st).into()),
        ("PG (geometric mean of perf)".into(), s.pg.map_or("-".into(), |v| format!("{v:.3}").into())),
        ("Score = BF*(2*PM+ST+5*PG)".into(), format!("{:.3}", s.score).into()),
    ];
    if let Some(price) = s.price {
        pairs.push(("price (USD)".into(), format!("{price:.2}").into()));
        pairs.push(("RPP = price/Score".into(), s.rpp.map_or("- (score is 0)".into(), |r| format!("{r:.2}").into())));
    }
    Body::Pairs(pairs)
}

/// A relative table: `measure` 0 mean, 1 min, 2 max.
fn relative(report: &Report, measure: usize) -> Body {
    let gpu = &report.per_gpu;
    if gpu.devices.is_empty() {
        return Body::Lines(vec!["no single-GPU report".into()]);
    }
    let mut headers = vec!["bench".to_string()];
    headers.extend(gpu.devices.iter().map(|d| match &d.gpu {
        Some(name) => format!("{} ({name})", d.id),
        None => d.id.clone(),
    }));
    let value = |c: &GpuCell| [c.rel_mean, c.rel_min, c.rel_max][measure];
    let rows = gpu
        .rows
        .iter()
        .map(|row| {
            let mut cells: Vec<Cell> = vec![row.bench.as_str().into()];
            cells.extend(row.cells.iter().map(|c| match c {
                None => "-".into(),
                Some(c) => {
                    let v = value(c);
                    let mark = (measure == 0 && v < FLAG_BELOW).then_some(Mark::Warn);
                    Cell { text: format!("{:.0}%", v * 100.0), mark }
                }
            }));
            cells
        })
        .collect();
    Body::Table { headers, rows }
}
