//! The `identical` rule: every vote group of deterministic runs (config,
//! device, stack; `mlb report`'s *Reproducibility*) of the rule's benches
//! must be bit-identical. One verdict per group, in the unit `instances`:
//! the instances outside the majority, held to 0. Outliers fail (each
//! named with its first differing step), and so does a group without a
//! majority (the stack is not reproducible: no figure says which instance
//! is wrong); a group of one instance passes (nothing to vote), one whose
//! instances share no step is not measured. Reports without fingerprints
//! fail: the rule cannot hold on nothing.

use super::{benches_of, subject, Figures, Measure};
use crate::accept::rules::Rule;
use crate::accept::verdict::Verdict;
use crate::report::reproducibility::Verdict as Vote;

/// The unit of the rule's figure.
const UNIT: &str = "instances";

/// What to do when no report of the rule's benches has fingerprints.
pub const NO_DETERMINISTIC_REPORT: &str = "no deterministic report: run the config with `deterministic: true`";

/// One verdict per vote group of the benches of `rule`.
pub fn identical(rule: &Rule, figures: &Figures) -> Vec<Verdict> {
    let groups: Vec<_> = figures.report.reproducibility.iter().filter(|g| rule.benches.matches(&g.bench)).collect();
    if groups.iter().all(|g| g.most == 0) {
        return vec![Measure::failed(rule, benches_of(rule), UNIT, NO_DETERMINISTIC_REPORT.into())];
    }
    groups
        .into_iter()
        .map(|g| {
            let who = subject(&g.config, None, None);
            // A stack that is not reproducible says so: its statement names steps, not a verdict.
            let note = match g.verdict {
                Vote::NotReproducible { .. } => format!("{}: {}: {}", g.device, g.verdict.label(), g.statement()),
                _ => format!("{}: {}", g.device, g.statement()),
            };
            let left = |n: usize| {
                Measure { measured: n as f64, bound: 0.0, unit: UNIT }.at_most(rule, who.clone(), note.clone())
            };
            match &g.verdict {
                Vote::BitIdentical | Vote::OneInstance => left(0),
                Vote::Outliers { outliers, .. } => left(outliers.len()),
                Vote::NotReproducible { .. } => Measure::failed(rule, who, UNIT, note),
                Vote::NoCommonStep => Measure::missing(rule, who, UNIT, note),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::super::rules::parse;
    use super::super::super::verdict::Outcome;
    use super::*;
    use crate::report::render::fixtures::report;
    use crate::report::reproducibility::{vote, Instance, Name};
    use mlb_record::contract::determinism::{Determinism, Fingerprint};
    use std::path::{Path, PathBuf};

    /// An instance of `bench` on slot `vcd` of `node` whose parameters hash
    /// to `prints`, a letter per step.
    fn instance(bench: &str, node: &str, vcd: &str, prints: &str) -> Instance {
        let fingerprints = prints
            .chars()
            .enumerate()
            .map(|(i, c)| Fingerprint {
                step: 10 * (i as u64 + 1),
                params: c.to_string().repeat(32),
                ..Fingerprint::default()
            })
            .collect();
        let file = PathBuf::from(format!("{node}/{vcd}.json"));
        Instance {
            row: usize::from(bench != "spin"),
            config: bench.into(),
            bench: bench.into(),
            name: Name { run_id: 0, jr_id: 0, node: Some(node.into()), vcd: Some(vcd.into()), file, origin: None },
            determinism: Determinism { every: 10, device: "H100".into(), fingerprints, ..Determinism::default() },
        }
    }

    /// The verdicts of `rules` on the vote of `instances`.
    fn verdicts(rules: &str, instances: Vec<Instance>) -> Vec<Verdict> {
        let mut report = report(vec![crate::report::render::fixtures::entry("spin", "0", true, 1.0)]);
        report.reproducibility = vote(instances);
        let figures = Figures { report: &report, instances: &[], interference: None };
        let rules = parse(Path::new("r.yaml"), rules).unwrap();
        rules.iter().flat_map(|r| super::super::apply(r, &figures)).collect()
    }

    #[test]
    fn the_rule_reads_without_a_bound_and_refuses_one() {
        let rules = parse(Path::new("r.yaml"), "rules:\n  - kind: identical\n").unwrap();
        assert_eq!((rules[0].id.as_str(), rules[0].check), ("identical#1", super::super::Check::Identical));
        let err = parse(Path::new("r.yaml"), "rules:\n  - kind: identical\n    min: 1\n").unwrap_err().to_string();
        assert!(err.contains("r.yaml:3:10") && err.contains("a `identical` rule takes no `min`"), "{err}");
    }

    #[test]
    fn identical_groups_pass_with_their_statement() {
        let all = "rules:\n  - kind: identical\n";
        let found = verdicts(all, vec![instance("spin", "n1", "0", "aa"), instance("spin", "n2", "0", "aa")]);
        assert_eq!(found.len(), 1);
        assert_eq!((found[0].outcome, found[0].measured, found[0].unit.as_str()), (Outcome::Pass, Some(0.0), UNIT));
        assert_eq!(found[0].note, "H100: 2 instances on 2 nodes, bit-identical over 20 steps");
        assert_eq!(found[0].subject.bench.as_deref(), Some("spin"));
    }

    #[test]
    fn an_outlier_or_no_majority_fails_naming_the_instance_and_step() {
        let all = "rules:\n  - kind: identical\n";
        let three = vec![
            instance("spin", "n1", "0", "aa"),
            instance("spin", "n1", "1", "ab"),
            instance("spin", "n2", "0", "aa"),
        ];
        let found = verdicts(all, three);
        assert_eq!((found[0].outcome, found[0].measured, found[0].margin), (Outcome::Fail, Some(1.0), Some(-1.0)));
        assert!(found[0].note.contains("H100: run 0 node n1 vcd 1 differs from step 20"), "{}", found[0].note);
        let two = verdicts(all, vec![instance("spin", "n1", "0", "ab"), instance("spin", "n1", "1", "ac")]);
        assert_eq!((two[0].outcome, two[0].measured), (Outcome::Fail, None));
        assert!(two[0].note.starts_with("H100: not reproducible on this stack: 2 instances first differ at step 20"));
    }

    #[test]
    fn without_fingerprints_the_rule_fails_and_says_how_to_get_them() {
        for instances in [vec![], vec![instance("spin", "n1", "0", "")]] {
            let found = verdicts("rules:\n  - kind: identical\n", instances);
            assert_eq!(found.len(), 1);
            assert_eq!((found[0].outcome, found[0].note.as_str()), (Outcome::Fail, NO_DETERMINISTIC_REPORT));
        }
        // Only the rule's benches count.
        let other = verdicts("rules:\n  - kind: identical\n    bench: spin\n", vec![instance("vae", "n1", "0", "aa")]);
        assert_eq!((other[0].outcome, other[0].subject.bench.as_deref()), (Outcome::Fail, Some("spin")));
    }
}
