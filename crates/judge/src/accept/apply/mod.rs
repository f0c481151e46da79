//! Applying one rule to the figures of a run: one verdict per subject the
//! rule reaches. The figures are those `mlb report` computes (per-bench and
//! per-config rows, per-GPU and per-node tables, the baseline comparison,
//! energy, the vote over deterministic runs' fingerprints), plus each
//! instance's telemetry conditions and the folder's interference matrix.

mod baseline;
mod counts;
mod identical;
mod interference;
mod relative;
mod table;
mod telemetry;

use super::rules::{Check, Rule};
use super::verdict::{Outcome, Subject, Verdict};
use crate::interfere::Interference;
use crate::report::{Report, Row};
use mlb_record::contract::read::Conditions;

/// One instance of the reports, as the telemetry rules see it.
#[derive(Clone, Debug)]
pub struct Instance {
    /// Its bench.
    pub bench: String,
    /// Its visible device(s).
    pub gpu: Option<String>,
    /// Its node (Slurm node, else host name).
    pub node: Option<String>,
    /// Its telemetry, when its report has some.
    pub conditions: Option<Conditions>,
}

/// What the rules are applied to.
pub struct Figures<'a> {
    /// The report, with per-config rows.
    pub report: &'a Report,
    /// Every named instance (failed ones too: an XID error of a failed instance counts).
    pub instances: &'a [Instance],
    /// The folder's interference matrix (`interference.json`), when a rule
    /// asks for it: read, or why it could not be.
    pub interference: Option<&'a Result<Interference, String>>,
}

impl Figures<'_> {
    /// The per-config rows `rule` reaches.
    fn configs<'s>(&'s self, rule: &'s Rule) -> impl Iterator<Item = &'s Row> + 's {
        self.report.rows.iter().filter(|row| rule.benches.matches(&row.bench))
    }

    /// The per-bench rows (every config pooled) `rule` reaches.
    fn benches<'s>(&'s self, rule: &'s Rule) -> impl Iterator<Item = &'s Row> + 's {
        self.report.benches.iter().filter(|row| rule.benches.matches(&row.bench))
    }

    /// The bench of a row label (`convnet[arch=resnet18]` is of `convnet`).
    fn bench_of<'s>(&'s self, label: &'s str) -> Option<&'s str> {
        self.report.rows.iter().find(|r| r.label == label).map(|r| r.bench.as_str())
    }
}

/// The verdicts of `rule` on `figures`, in the order of their subjects.
pub fn apply(rule: &Rule, figures: &Figures) -> Vec<Verdict> {
    let found = match rule.check {
        Check::Throughput { min } => table::throughput(rule, figures, min),
        Check::MinThroughput { min } => table::min_throughput(rule, figures, min),
        Check::Spread { max } => table::spread(rule, figures, max),
        Check::Failures { max } => counts::failures(rule, figures, max),
        Check::FailureShare { max_percent } => vec![counts::failure_share(rule, figures, max_percent)],
        Check::Required => vec![counts::required(rule, figures)],
        Check::PerGpu { min } => relative::per_gpu(rule, figures, min),
        Check::PerNode { min } => relative::per_node(rule, figures, min),
        Check::Baseline { min, by } => baseline::baseline(rule, figures, min, by),
        Check::Throttled { max } => telemetry::throttled(rule, figures, max),
        Check::Xid => telemetry::xid(rule, figures),
        Check::PcieLink => telemetry::pcie_link(rule, figures),
        Check::Energy { max } => telemetry::energy(rule, figures, max),
        Check::Identical => identical::identical(rule, figures),
        Check::Interference { max, by } => interference::interference(rule, figures, max, by),
    };
    if found.is_empty() {
        let note = format!("no bench of the reports matches `{}`", rule.benches);
        return vec![Measure::missing(rule, Subject::default(), "", note)];
    }
    found
}

/// The subject of a verdict on the benches of `rule` together: none named
/// when it applies to every bench, else its name or glob.
fn benches_of(rule: &Rule) -> Subject {
    if rule.benches.is_all() {
        Subject::default()
    } else {
        Subject { bench: Some(rule.benches.to_string()), ..Subject::default() }
    }
}

/// A subject of `bench` (and a GPU or node).
fn subject(bench: &str, gpu: Option<&str>, node: Option<&str>) -> Subject {
    Subject { bench: Some(bench.into()), gpu: gpu.map(Into::into), node: node.map(Into::into) }
}

/// A figure held to a bound, before it becomes a verdict.
#[derive(Clone, Copy)]
struct Measure<'u> {
    measured: f64,
    bound: f64,
    unit: &'u str,
}

impl Measure<'_> {
    /// Passes when the figure is at least the bound; the margin is `measured - bound`.
    fn at_least(self, rule: &Rule, subject: Subject, note: String) -> Verdict {
        let pass = self.measured >= self.bound;
        self.verdict(rule, subject, pass, self.measured - self.bound, note)
    }

    /// Passes when the figure is at most the bound; the margin is `bound - measured`.
    fn at_most(self, rule: &Rule, subject: Subject, note: String) -> Verdict {
        let pass = self.measured <= self.bound;
        self.verdict(rule, subject, pass, self.bound - self.measured, note)
    }

    /// The verdict with the outcome `pass` decided (and `margin` computed) by the caller.
    fn verdict(self, rule: &Rule, subject: Subject, pass: bool, margin: f64, note: String) -> Verdict {
        Verdict {
            rule: rule.id.clone(),
            kind: rule.check.kind(),
            origin: rule.origin.clone(),
            subject,
            measured: Some(self.measured),
            bound: Some(self.bound),
            margin: Some(margin),
            unit: self.unit.to_string(),
            outcome: if pass { Outcome::Pass } else { Outcome::Fail },
            note,
        }
    }

    /// A verdict on a figure the reports do not hold: not measured, never a pass.
    fn missing(rule: &Rule, subject: Subject, unit: &str, note: String) -> Verdict {
        Verdict {
            rule: rule.id.clone(),
            kind: rule.check.kind(),
            origin: rule.origin.clone(),
            subject,
            measured: None,
            bound: None,
            margin: None,
            unit: unit.to_string(),
            outcome: Outcome::NotMeasured,
            note,
        }
    }

    /// A failure without a figure (every run of the bench failed).
    fn failed(rule: &Rule, subject: Subject, unit: &str, note: String) -> Verdict {
        Verdict { outcome: Outcome::Fail, ..Measure::missing(rule, subject, unit, note) }
    }
}
