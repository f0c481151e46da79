//! One verdict of `mlb accept` and the evaluation that holds them all: the
//! data an acceptance rests on, serialised with stable field names (the
//! JSON view and the acceptance record use them as they are).

use serde::{Deserialize, Serialize};
use std::fmt;
use std::path::PathBuf;

/// What a rule says about one subject.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// The measured value is outside the bound (or a required bench is
    /// missing, or entries failed). Sorted first.
    Fail,
    /// The rule needs a figure the reports do not hold (telemetry of the
    /// original suite's reports, a node name, a target for the bench): never
    /// counted as a pass.
    NotMeasured,
    /// The measured value is within the bound.
    Pass,
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Outcome::Fail => "FAIL",
            Outcome::NotMeasured => "not measured",
            Outcome::Pass => "pass",
        })
    }
}

/// The kinds of rule a rules file may hold (docs/accept.md describes each).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// Throughput at least a ratio of the target table's throughput.
    Throughput,
    /// Throughput at least an absolute figure (items/s).
    MinThroughput,
    /// Spread (sd% of the runs) at most a bound.
    Spread,
    /// Failed entries at most a count (default 0).
    Failures,
    /// The bench is present in the reports.
    Required,
    /// Every GPU at least a ratio of the best GPU of the same config.
    PerGpu,
    /// Every node at least a ratio of the best node.
    PerNode,
    /// Throughput at least a ratio of a baseline run's, confidence intervals
    /// taken into account.
    Baseline,
    /// Fraction of the window spent throttled at most a bound.
    Throttled,
    /// No XID error during the run.
    Xid,
    /// No PCIe link below its maximum generation or width.
    PcieLink,
    /// Energy per item at most a bound (J/item).
    Energy,
    /// Every instance of a deterministic config computed the same bits
    /// (the vote of `mlb report`'s *Reproducibility*).
    Identical,
    /// No workload loses more than a share of its rate beside another
    /// (`mlb interfere`'s matrix, `interference.json`).
    Interference,
}

impl Kind {
    /// Every kind, in the order of docs/accept.md.
    pub const ALL: [Kind; 14] = [
        Kind::Throughput,
        Kind::MinThroughput,
        Kind::Spread,
        Kind::Failures,
        Kind::Required,
        Kind::PerGpu,
        Kind::PerNode,
        Kind::Baseline,
        Kind::Throttled,
        Kind::Xid,
        Kind::PcieLink,
        Kind::Energy,
        Kind::Identical,
        Kind::Interference,
    ];

    /// The name a rules file gives the kind (`per_gpu`).
    pub fn name(self) -> &'static str {
        match self {
            Kind::Throughput => "throughput",
            Kind::MinThroughput => "min_throughput",
            Kind::Spread => "spread",
            Kind::Failures => "failures",
            Kind::Required => "required",
            Kind::PerGpu => "per_gpu",
            Kind::PerNode => "per_node",
            Kind::Baseline => "baseline",
            Kind::Throttled => "throttled",
            Kind::Xid => "xid",
            Kind::PcieLink => "pcie_link",
            Kind::Energy => "energy",
            Kind::Identical => "identical",
            Kind::Interference => "interference",
        }
    }

    /// Whether a pass of this kind states something worth a line of its
    /// own in the views (`identical`: how many instances on how many nodes
    /// were bit-identical over how many steps).
    pub fn states(self) -> bool {
        self == Kind::Identical
    }

    /// The kind a rules file names, if any.
    pub fn named(name: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.name() == name)
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Where a rule was written: a place in a rules file, or mlb's default
/// rules (the original score's pass criteria).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(tag = "from", rename_all = "snake_case")]
pub enum Origin {
    /// The default rules: no rules file was given.
    Default,
    /// A rule of a rules file, at `line:column` (both from 1).
    File {
        /// The rules file as given on the command line.
        path: PathBuf,
        /// Line of the rule's entry.
        line: usize,
        /// Column of the rule's entry.
        column: usize,
    },
}

impl fmt::Display for Origin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Origin::Default => f.write_str("default rules"),
            Origin::File { path, line, column } => write!(f, "{}:{line}:{column}", path.display()),
        }
    }
}

/// What a verdict is about: a bench, and within it a GPU or a node; each
/// absent where the rule is not about it (`failures` of the whole run has
/// no bench, `per_gpu` names a device).
#[derive(Clone, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Subject {
    /// The bench, or the config (`convnet[arch=resnet18]`) for per-config rules.
    pub bench: Option<String>,
    /// The GPU: its visible device id(s) as the reports give them.
    pub gpu: Option<String>,
    /// The node (host name of the reports).
    pub node: Option<String>,
}

impl fmt::Display for Subject {
    /// `bench gpu 3 node n1`, or `(all)` when nothing is named.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts: Vec<String> = [
            self.bench.clone(),
            self.gpu.as_ref().map(|g| format!("gpu {g}")),
            self.node.as_ref().map(|n| format!("node {n}")),
        ]
        .into_iter()
        .flatten()
        .collect();
        if parts.is_empty() {
            f.write_str("(all)")
        } else {
            f.write_str(&parts.join(" "))
        }
    }
}

/// One rule applied to one subject.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Verdict {
    /// The rule's id: its `id` in the rules file, else `KIND` with its
    /// position (`per_gpu#2`).
    pub rule: String,
    /// The rule's kind.
    pub kind: Kind,
    /// Where the rule was written.
    pub origin: Origin,
    /// What the verdict is about.
    pub subject: Subject,
    /// The figure measured; none when not measured.
    pub measured: Option<f64>,
    /// The bound the figure is held to, in the same unit.
    pub bound: Option<f64>,
    /// Room to spare: positive when the figure is within the bound, negative
    /// by how much it misses; in the unit of `measured`, none when not measured.
    pub margin: Option<f64>,
    /// The unit of `measured`, `bound` and `margin` (`items/s`, `ratio`, `%`, `J/item`, `count`).
    pub unit: String,
    /// Pass, fail or not measured.
    pub outcome: Outcome,
    /// A short explanation (what was compared, why not measured).
    pub note: String,
}

/// The role of an input file in an evaluation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// A report file of the reports folder.
    Report,
    /// The run's `system.json`.
    System,
    /// The run's `doctor.json`.
    Doctor,
    /// The rules file.
    Rules,
    /// The target table (a file; a built-in table is named in [`Evaluation::targets`]).
    Targets,
    /// A report file of the baseline folder.
    BaselineReport,
    /// The baseline folder's `system.json`.
    BaselineSystem,
    /// The folder's `interference.json` (`mlb interfere`'s matrix).
    Interference,
}

/// A file an evaluation read.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Input {
    /// What it was read as.
    pub role: Role,
    /// The file, as reached from the paths of the request.
    pub path: PathBuf,
}

/// Every verdict of one `mlb accept`, with the files they were computed from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Evaluation {
    /// The verdicts: failed first, then not measured, then passed; within
    /// each, in the order of the rules and subjects.
    pub verdicts: Vec<Verdict>,
    /// Every file read, sorted by role and path.
    pub inputs: Vec<Input>,
    /// The target table used: `built-in V100`, or the file's path; none without one.
    pub targets: Option<String>,
    /// The rules: the file's path, or `default rules`.
    pub rules: String,
}

impl Evaluation {
    /// Whether every verdict passed: a verdict not measured is no pass, so
    /// a rule that needs telemetry the reports lack cannot accept a run.
    pub fn passed(&self) -> bool {
        self.verdicts.iter().all(|v| v.outcome == Outcome::Pass)
    }

    /// The exit status of `mlb accept`: 0 when every verdict passed, 1 otherwise.
    pub fn exit_code(&self) -> i32 {
        if self.passed() {
            mlb_record::exit::EXIT_OK
        } else {
            mlb_record::exit::EXIT_FAILED
        }
    }

    /// How many verdicts have `outcome`.
    pub fn count(&self, outcome: Outcome) -> usize {
        self.verdicts.iter().filter(|v| v.outcome == outcome).count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn verdict(outcome: Outcome) -> Verdict {
        Verdict {
            rule: "per_gpu#1".into(),
            kind: Kind::PerGpu,
            origin: Origin::File { path: "rules.yaml".into(), line: 3, column: 5 },
            subject: Subject { bench: Some("convnet".into()), gpu: Some("2".into()), node: None },
            measured: Some(0.8),
            bound: Some(0.9),
            margin: Some(-0.1),
            unit: "ratio".into(),
            outcome,
            note: "of the best GPU".into(),
        }
    }

    #[test]
    fn field_names_are_stable() {
        let value = serde_json::to_value(verdict(Outcome::NotMeasured)).unwrap();
        assert_eq!(
            value,
            json!({
                "rule": "per_gpu#1", "kind": "per_gpu",
                "origin": {"from": "file", "path": "rules.yaml", "line": 3, "column": 5},
                "subject": {"bench": "convnet", "gpu": "2", "node": null},
                "measured": 0.8, "bound": 0.9, "margin": -0.1, "unit": "ratio",
                "outcome": "not_measured", "note": "of the best GPU"
            })
        );
        assert_eq!(serde_json::to_value(Origin::Default).unwrap(), json!({"from": "default"}));
        let back: Verdict = serde_json::from_value(value).unwrap();
        assert_eq!(back, verdict(Outcome::NotMeasured));
    }

    #[test]
    fn only_passes_accept_and_not_measured_is_no_pass() {
        let of = |outcomes: &[Outcome]| Evaluation {
            verdicts: outcomes.iter().map(|o| verdict(*o)).collect(),
            inputs: Vec::new(),
            targets: None,
            rules: "default rules".into(),
        };
        assert_eq!(of(&[Outcome::Pass, Outcome::Pass]).exit_code(), 0);
        assert_eq!(of(&[Outcome::Pass, Outcome::Fail]).exit_code(), 1);
        assert_eq!(of(&[Outcome::Pass, Outcome::NotMeasured]).exit_code(), 1);
    }

    #[test]
    fn kinds_are_named_as_serialised() {
        for kind in Kind::ALL {
            assert_eq!(serde_json::to_value(kind).unwrap(), json!(kind.name()));
            assert_eq!(Kind::named(kind.name()), Some(kind));
        }
        assert_eq!(Kind::named("speed"), None);
    }
}
