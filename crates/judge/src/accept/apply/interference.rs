//! The `interference` rule: no workload loses more than `max` of its rate
//! beside a neighbour, one verdict per cell of the folder's
//! `interference.json` (`mlb interfere`) whose victim the rule's `bench`
//! matches, in the unit `share` (of the rate alone).
//!
//! As the `baseline` rule, `compare: means` (the default) holds the
//! slowdown of the means to `max` (the figure as a contract writes it: "no
//! workload loses more than 10%"), and the note says whether its interval
//! lies wholly on one side of `max` (beyond the noise) or reaches it;
//! `compare: intervals` gives the benefit of the doubt: a cell fails only
//! when even the bottom of its interval is above `max`. On a noisy host
//! with three runs a side the interval is wide, so the default does not
//! let noise pass a loss: more runs narrow it. A cell without an interval
//! (fewer than two rates on a side) is held by its mean, the note says so;
//! one without a rate fails (a run of it failed).

use super::{benches_of, subject, Figures, Measure};
use crate::accept::rules::{Comparison, Rule};
use crate::accept::verdict::Verdict;
use crate::interfere::document::{interval, percent};
use crate::interfere::FILE;

/// The unit of the rule's figure.
const UNIT: &str = "share";

/// One verdict per cell of the rule's victims.
pub fn interference(rule: &Rule, figures: &Figures, max: f64, by: Comparison) -> Vec<Verdict> {
    let matrix = match figures.interference {
        Some(Ok(matrix)) => matrix,
        Some(Err(why)) => return vec![Measure::failed(rule, benches_of(rule), UNIT, why.clone())],
        None => {
            let note = format!("no {FILE} in the folder: run `mlb interfere --outdir` into it");
            return vec![Measure::missing(rule, benches_of(rule), UNIT, note)];
        }
    };
    matrix
        .cells
        .iter()
        .filter(|c| rule.benches.matches(&c.victim))
        .map(|c| {
            let who = subject(&format!("{} beside {}", c.victim, c.aggressor), None, None);
            let Some(slowdown) = c.slowdown else {
                return Measure::failed(rule, who, UNIT, "no rate on a side: a run failed".into());
            };
            let bound = |measured: f64, note: String| {
                Measure { measured, bound: max, unit: UNIT }.at_most(rule, who.clone(), note)
            };
            let Some((low, high)) = c.slowdown_ci else {
                return bound(slowdown, format!("slowdown of the means {}: no interval", percent(slowdown)));
            };
            let noise = if low > max || high <= max { "beyond the noise" } else { "within the noise" };
            match by {
                Comparison::Means => {
                    bound(slowdown, format!("slowdown of the means; its interval {}: {noise}", interval(c)))
                }
                Comparison::Intervals => {
                    bound(low, format!("bottom of the interval {} (mean {})", interval(c), percent(slowdown)))
                }
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::super::rules::parse;
    use super::super::super::verdict::Outcome;
    use super::*;
    use crate::interfere::matrix::tests::{cell, matrix as of};
    use crate::interfere::Interference;
    use crate::report::render::fixtures::{entry, report};
    use std::path::Path;

    fn verdicts(rules: &str, matrix: Option<Result<Interference, String>>) -> Vec<Verdict> {
        let report = report(vec![entry("a", "0", true, 1.0)]);
        let figures = Figures { report: &report, instances: &[], interference: matrix.as_ref() };
        let rules = parse(Path::new("r.yaml"), rules).unwrap();
        rules.iter().flat_map(|r| super::super::apply(r, &figures)).collect()
    }

    fn matrix() -> Interference {
        let cells = vec![
            // 20% slower, interval about 13%..27%: beyond 10% either way.
            cell("a", "b", &[100.0, 101.0, 99.0], &[80.0, 81.0, 79.0]),
            // 12% slower within a wide interval reaching below 10%.
            cell("b", "a", &[100.0, 110.0, 90.0], &[88.0, 98.0, 78.0]),
        ];
        of("s", &["a", "b"], cells)
    }

    #[test]
    fn the_mean_fails_a_loss_past_the_bound_and_the_interval_only_one_beyond_the_noise() {
        let means = verdicts("rules:\n  - kind: interference\n    max: 0.1\n", Some(Ok(matrix())));
        assert_eq!(means.len(), 2);
        assert_eq!((means[0].outcome, means[0].subject.bench.as_deref()), (Outcome::Fail, Some("a beside b")));
        assert!(means[0].note.ends_with("beyond the noise"), "{}", means[0].note);
        assert_eq!(means[1].outcome, Outcome::Fail);
        assert!(means[1].note.ends_with("within the noise"), "{}", means[1].note);
        let intervals =
            verdicts("rules:\n  - kind: interference\n    max: 0.1\n    compare: intervals\n", Some(Ok(matrix())));
        assert_eq!((intervals[0].outcome, intervals[1].outcome), (Outcome::Fail, Outcome::Pass));
        assert!(intervals[1].measured.unwrap() < 0.1 && intervals[1].note.starts_with("bottom of the interval"));
        let only_b = verdicts("rules:\n  - kind: interference\n    bench: b\n    max: 0.5\n", Some(Ok(matrix())));
        assert_eq!((only_b.len(), only_b[0].outcome), (1, Outcome::Pass));
    }

    #[test]
    fn without_a_matrix_the_rule_is_not_measured_and_a_bad_one_fails() {
        let none = verdicts("rules:\n  - kind: interference\n    max: 0.1\n", None);
        assert_eq!(none[0].outcome, Outcome::NotMeasured);
        assert!(none[0].note.contains("interference.json"), "{}", none[0].note);
        let bad = verdicts("rules:\n  - kind: interference\n    max: 0.1\n", Some(Err("x is not a matrix".into())));
        assert_eq!((bad[0].outcome, bad[0].note.as_str()), (Outcome::Fail, "x is not a matrix"));
    }

    #[test]
    fn the_rule_needs_a_share_and_takes_a_comparison() {
        let refused = |text: &str| parse(Path::new("r.yaml"), text).unwrap_err().to_string();
        assert!(refused("rules:\n  - kind: interference\n").contains("needs `max`"));
        assert!(refused("rules:\n  - kind: interference\n    max: 1.5\n").contains("out of range"));
        assert!(refused("rules:\n  - kind: interference\n    min: 0.1\n").contains("takes no `min`"));
    }
}
