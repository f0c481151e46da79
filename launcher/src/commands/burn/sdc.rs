//! The verdicts of the sdc check (docs/burn.md, "Silent data corruption"):
//! every slot trained the same gpt deterministically from the same seed,
//! and the judge's vote over their fingerprints (`mlb report`'s
//! *Reproducibility*: slots grouped by device and stack, compared step by
//! step) says which slots computed other bits.
//!
//! | the vote of the slot's group | the slot's `sdc` verdict |
//! |---|---|
//! | bit-identical | pass, with the vote's statement |
//! | outliers | an outlier fails (`sdc computed other bits than 3 of 4 slots from step 20`); the others pass |
//! | not reproducible on this stack | not measured, for every slot of the group: no majority names a culprit (two slots never do); a finding about the stack, not a failed slot |
//! | one instance, no common step | not measured: nothing to vote |

use super::jobs::SDC;
use super::reading::{Measured, Slot};
use super::verdict::{Check, Verdict};
use mlb_judge::accept::Outcome;
use mlb_judge::report::reproducibility::{vote as vote_of, Group, Verdict as Vote};

/// The vote over the fingerprints of the slots whose sdc run completed.
pub fn vote(measured: &[Measured]) -> Vec<Group> {
    let completed = measured.iter().filter(|m| m.bench == SDC && m.failure.is_none());
    vote_of(completed.filter_map(|m| m.instance.clone()).collect())
}

/// The `sdc` verdict of `slot`, whose sdc run `m` completed, in `votes`.
pub fn judge(slot: &Slot, m: &Measured, votes: &[Group]) -> Verdict {
    let verdict = |outcome, value, reason| Verdict {
        slot: slot.clone(),
        check: Check::Sdc,
        outcome,
        value,
        bound: None,
        reason: Some(reason),
    };
    let voted = m.instance.as_ref().and_then(|i| Some((votes.iter().find(|g| g.instances.contains(&i.name))?, i)));
    let Some((group, instance)) = voted else {
        return verdict(Outcome::Fail, None, format!("{SDC} recorded no fingerprints"));
    };
    match &group.verdict {
        Vote::BitIdentical => verdict(Outcome::Pass, None, group.statement()),
        Vote::Outliers { majority, outliers } => match outliers.iter().find(|o| o.instance == instance.name) {
            Some(o) => verdict(
                Outcome::Fail,
                Some(o.step as f64),
                format!(
                    "{SDC} computed other bits than {majority} of {} slots from step {}",
                    group.instances.len(),
                    o.step
                ),
            ),
            None => verdict(Outcome::Pass, None, group.statement()),
        },
        Vote::NotReproducible { .. } => {
            verdict(Outcome::NotMeasured, None, format!("{}: {}", group.verdict.label(), group.statement()))
        }
        Vote::OneInstance | Vote::NoCommonStep => verdict(Outcome::NotMeasured, None, group.statement()),
    }
}

#[cfg(test)]
mod tests {
    use super::super::reading::measured;
    use super::super::verdict::{self, Bounds};
    use super::*;
    use serde_json::{json, Value};
    use std::path::Path;

    /// The sdc run of slot `vcd` as a worker reports it: `prints`, a
    /// parameter hash letter per fingerprint from step 10 every 10 steps.
    fn run(vcd: &str, prints: &str) -> Measured {
        let fingerprints: Vec<Value> = prints
            .chars()
            .enumerate()
            .map(|(i, c)| json!({"step": 10 * (i + 1), "loss": "3fb999999999999a", "params": c.to_string().repeat(32)}))
            .collect();
        let block = json!({"every": 10, "device": "Xeon", "stack": {"threads": "2"}, "fingerprints": fingerprints});
        let report = json!({"suite": "burn", "name": SDC, "run_id": 0, "jr_id": "0", "vcd": vcd, "completed": true,
            "hostname": "h1", "determinism": block});
        let file = format!("burn.sdc.R0.D{vcd}.json");
        measured(&mlb_record::contract::read::from_text(&report.to_string()).unwrap(), Path::new(&file))
    }

    /// Each slot's sdc verdict: its slot, outcome and reason.
    fn verdicts(measured: &[Measured]) -> Vec<(String, Outcome, String)> {
        let votes = vote(measured);
        let judged = measured.iter().map(|m| judge(&m.slot, m, &votes));
        judged.map(|v| (v.slot.label(), v.outcome, v.reason.unwrap_or_default())).collect()
    }

    #[test]
    fn an_outlier_among_four_slots_fails_from_the_step_it_left_the_others() {
        let found = verdicts(&[run("0", "abc"), run("1", "abc"), run("2", "axy"), run("3", "abc")]);
        let others = "run 0 node h1 vcd 2 differs from step 20; the other 3 of 4 agree over 30 steps";
        let want = [
            ("0", Outcome::Pass, others),
            ("1", Outcome::Pass, others),
            ("2", Outcome::Fail, "sdc computed other bits than 3 of 4 slots from step 20"),
            ("3", Outcome::Pass, others),
        ];
        assert_eq!(found, want.map(|(s, o, r)| (s.to_string(), o, r.to_string())));
        let votes = vote(&[run("0", "abc"), run("2", "axy"), run("1", "abc")]);
        assert_eq!(judge(&run("2", "axy").slot, &run("2", "axy"), &votes).value, Some(20.0), "the step");
    }

    #[test]
    fn two_slots_that_differ_fail_neither_the_stack_is_not_reproducible() {
        let found = verdicts(&[run("0", "abc"), run("1", "abx")]);
        for (slot, outcome, reason) in &found {
            assert_eq!(*outcome, Outcome::NotMeasured, "slot {slot}: {reason}");
            assert!(
                reason.starts_with("not reproducible on this stack: 2 instances first differ at step 30"),
                "{reason}"
            );
            assert!(reason.ends_with("nobody can say which one is wrong"), "{reason}");
        }
        assert_eq!(found.len(), 2);
    }

    #[test]
    fn identical_slots_pass_with_the_statement() {
        let found = verdicts(&[run("0", "abc"), run("1", "abc"), run("2", "abc")]);
        let want = "3 instances on 1 node, bit-identical over 30 steps";
        assert!(found.iter().all(|(_, o, r)| *o == Outcome::Pass && r == want), "{found:?}");
        let alone = verdicts(&[run("0", "abc")]);
        assert_eq!(alone[0].1, Outcome::NotMeasured, "one slot: nothing to vote");
    }

    #[test]
    fn a_failed_sdc_run_fails_completed_and_is_left_out_of_the_vote() {
        let mut crashed = run("1", "");
        crashed.failure = Some("crash: killed by signal 11".into());
        let mut silent = run("3", "abc");
        silent.instance = None;
        let measured = [run("0", "abc"), crashed, run("2", "abc"), silent, run("4", "abc")];
        let bounds = Bounds { tolerance: 0.9, max_throttled: 0.05, min_peak: 0.5, min_link: 0.25 };
        let votes = vote(&measured);
        let all = verdict::judge(&measured, bounds, &[SDC], &votes);
        let failed: Vec<(String, Vec<&str>)> =
            verdict::failed(&all).into_iter().map(|(slot, reasons)| (slot.label(), reasons)).collect();
        let want = [
            ("1".to_string(), vec!["sdc failed (crash: killed by signal 11)"]),
            ("3".to_string(), vec!["sdc recorded no fingerprints"]),
        ];
        assert_eq!(failed, want);
        assert_eq!(votes.len(), 1);
        assert_eq!(votes[0].statement(), "3 instances on 1 node, bit-identical over 30 steps");
        assert!(all.iter().all(|v| v.slot.id != "1" || v.check != Check::Sdc), "no sdc verdict for a failed run");
    }
}
