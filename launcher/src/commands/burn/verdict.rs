//! The verdicts of a burn (docs/burn.md): per slot and check, pass or fail
//! with the figure, its bound and, for a failure, the reason in words.
//!
//! | check | fails when |
//! |---|---|
//! | `completed` | an instance of the slot failed or left no report |
//! | `tflops` | gemm's TFLOPS below `tolerance` of the best slot of the same model |
//! | `peak` | gemm's TFLOPS below `min_peak` of the dense peak of the GPU's model in its precision (the peak table, [`mlb_run::gpu::peak`]); not measured for a model or precision the table lacks, and no verdict on a CPU slot |
//! | `bandwidth` | membw's bandwidth below `tolerance` of the best slot of the same model |
//! | `sdc` | (`--sdc`) the slot's deterministic gpt computed other bits than the majority of the slots ([`super::sdc`]) |
//! | `throttled` | a GPU or the slot's CPU quota throttled more than `max_throttled` of a window |
//! | `xid` | a GPU reported an XID error inside a window |
//! | `ecc` | a GPU counted an uncorrected ECC error inside a window |
//! | `link`, `fabric` | the all-reduce's bus bandwidth against its interface's nominal rate and the best node's ([`super::fabric`]) |
//!
//! The best slot is that of the node, or of the allocation under `--slurm`
//! (a node whose every slot is slow then fails too).

use super::jobs::{ALLREDUCE, GEMM, MEMBW, SDC};
use super::reading::{Measured, Slot};
use mlb_judge::accept::Outcome;
use mlb_judge::report::reproducibility::Group;
use mlb_record::contract::precision::Precision;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// What a verdict checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Check {
    /// Every workload completed.
    Completed,
    /// gemm's TFLOPS against the best slot.
    Tflops,
    /// gemm's TFLOPS against the peak of the GPU's model.
    Peak,
    /// membw's bandwidth against the best slot.
    Bandwidth,
    /// The deterministic gpt's bits against the majority of the slots'.
    Sdc,
    /// Throttling within the bound.
    Throttled,
    /// No XID error.
    Xid,
    /// No uncorrected ECC error.
    Ecc,
    /// The all-reduce's bus bandwidth against its interface's nominal rate.
    Link,
    /// The all-reduce's bus bandwidth and nominal rate against the best node's.
    Fabric,
}

/// One verdict.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Verdict {
    /// The slot judged.
    pub slot: Slot,
    /// What was checked.
    pub check: Check,
    /// Pass or fail.
    pub outcome: Outcome,
    /// The figure measured (TFLOPS, GB/s, a share, a count).
    pub value: Option<f64>,
    /// The bound it was held to (for `tflops` and `bandwidth`: the best
    /// slot's figure times the tolerance).
    pub bound: Option<f64>,
    /// For a failure (or a check not measured): why, in words; for `sdc`,
    /// what the vote found.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// The bounds a burn holds slots to.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bounds {
    /// The least share of the best slot's figures.
    pub tolerance: f64,
    /// The largest share of a window spent throttled.
    pub max_throttled: f64,
    /// The least share of the model's peak TFLOPS.
    pub min_peak: f64,
    /// The least share of a link's nominal rate the all-reduce reaches.
    pub min_link: f64,
}

/// Every slot's verdicts, slots in order, checks in [`Check`]'s order; a
/// slot without a report of one of `benches` fails `completed`; `votes`
/// is the vote over the sdc runs' fingerprints ([`super::sdc::vote`]).
pub fn judge(measured: &[Measured], bounds: Bounds, benches: &[&str], votes: &[Group]) -> Vec<Verdict> {
    let slots: BTreeSet<&Slot> = measured.iter().map(|m| &m.slot).collect();
    let of = |slot: &Slot, bench: &str| measured.iter().find(|m| &m.slot == slot && m.bench == bench);
    // The best figure of each bench per model.
    let mut best: BTreeMap<(&str, &str), f64> = BTreeMap::new();
    for m in measured.iter().filter(|m| m.failure.is_none()) {
        if let Some(figure) = m.figure {
            let slot = best.entry((m.bench.as_str(), m.slot.model())).or_insert(figure);
            *slot = slot.max(figure);
        }
    }
    let reduces: Vec<&Measured> = measured.iter().filter(|m| m.bench == ALLREDUCE).collect();
    let mut verdicts = Vec::new();
    for slot in slots {
        let runs: Vec<&Measured> = [GEMM, MEMBW, SDC].iter().filter_map(|b| of(slot, b)).collect();
        let verdict = |check, value, bound, failed: Option<String>| Verdict {
            slot: slot.clone(),
            check,
            outcome: if failed.is_some() { Outcome::Fail } else { Outcome::Pass },
            value,
            bound,
            reason: failed,
        };
        let missing: Vec<String> = benches
            .iter()
            .filter_map(|bench| match of(slot, bench) {
                None => Some(format!("{bench} left no report")),
                Some(m) => m.failure.as_ref().map(|f| format!("{bench} failed ({f})")),
            })
            .collect();
        verdicts.push(verdict(Check::Completed, None, None, (!missing.is_empty()).then(|| missing.join("; "))));
        for (check, bench, unit) in [(Check::Tflops, GEMM, "TFLOPS"), (Check::Bandwidth, MEMBW, "GB/s")] {
            let Some(m) = of(slot, bench).filter(|m| m.failure.is_none()) else { continue };
            let top = best.get(&(bench, slot.model())).copied();
            let bound = top.map(|t| t * bounds.tolerance);
            let failed = match (m.figure, top, bound) {
                (Some(v), Some(top), Some(b)) if v < b => Some(format!(
                    "{bench} {v:.3} {unit}, {:.0}% of the best slot's {top:.3} (at least {:.0}%)",
                    100.0 * v / top,
                    100.0 * bounds.tolerance
                )),
                (None, ..) => Some(format!("{bench} reported no {unit}")),
                _ => None,
            };
            verdicts.push(verdict(check, m.figure, bound, failed));
        }
        if let Some(v) = of(slot, GEMM).filter(|m| m.failure.is_none()).and_then(|m| peak(m, bounds)) {
            verdicts.push(verdict(Check::Peak, v.value, v.bound, v.reason).with_outcome(v.outcome));
        }
        if let Some(m) = of(slot, SDC).filter(|m| m.failure.is_none()) {
            verdicts.push(super::sdc::judge(slot, m, votes));
        }
        let throttled = runs.iter().filter_map(|m| m.throttled).reduce(f64::max);
        let failed = throttled
            .filter(|t| *t > bounds.max_throttled)
            .map(|t| format!("throttled {:.0}% of a window (at most {:.0}%)", 100.0 * t, 100.0 * bounds.max_throttled));
        verdicts.push(verdict(Check::Throttled, throttled, Some(bounds.max_throttled), failed));
        let xid: f64 = runs.iter().map(|m| m.xid).sum();
        let failed = (xid > 0.0).then(|| format!("{xid:.0} XID error(s) during the burn"));
        verdicts.push(verdict(Check::Xid, Some(xid), Some(0.0), failed));
        let ecc: f64 = runs.iter().map(|m| m.ecc_uncorrected).sum();
        let failed = (ecc > 0.0).then(|| format!("{ecc:.0} uncorrected ECC error(s) during the burn"));
        verdicts.push(verdict(Check::Ecc, Some(ecc), Some(0.0), failed));
        if let Some(m) = of(slot, ALLREDUCE).filter(|m| m.failure.is_none()) {
            verdicts.extend(super::fabric::judge(slot, m, &reduces, bounds));
        }
    }
    verdicts
}

/// What the peak check found: its outcome, the share of the peak, the bound
/// and the reason.
struct PeakShare {
    outcome: Outcome,
    value: Option<f64>,
    bound: Option<f64>,
    reason: Option<String>,
}

/// gemm's TFLOPS as a share of the peak of its GPU's model in its
/// precision; `None` on a CPU slot.
fn peak(m: &Measured, bounds: Bounds) -> Option<PeakShare> {
    let gpu = m.slot.gpu.as_deref()?;
    let precision = m.precision.as_deref().and_then(|p| p.parse::<Precision>().ok());
    let Some(peak) = precision.and_then(|p| mlb_run::gpu::peak::peak(gpu, p)) else {
        let precision = m.precision.as_deref().unwrap_or("an unknown precision");
        let reason = format!("the peak table has no figure for {gpu} in {precision}");
        return Some(PeakShare {
            outcome: Outcome::NotMeasured,
            value: None,
            bound: Some(bounds.min_peak),
            reason: Some(reason),
        });
    };
    let share = m.figure.map(|t| t / peak.tflops);
    let reason = share.filter(|s| *s < bounds.min_peak).map(|s| {
        format!(
            "gemm {:.1} TFLOPS, {:.0}% of the {} peak of {:.1} (at least {:.0}%)",
            m.figure.unwrap_or_default(),
            100.0 * s,
            peak.model,
            peak.tflops,
            100.0 * bounds.min_peak
        )
    });
    let outcome = if reason.is_some() { Outcome::Fail } else { Outcome::Pass };
    Some(PeakShare { outcome, value: share, bound: Some(bounds.min_peak), reason })
}

impl Verdict {
    fn with_outcome(self, outcome: Outcome) -> Verdict {
        Verdict { outcome, ..self }
    }
}

/// The failed slots, each with its reasons in order.
pub fn failed(verdicts: &[Verdict]) -> Vec<(&Slot, Vec<&str>)> {
    let mut out: Vec<(&Slot, Vec<&str>)> = Vec::new();
    for v in verdicts.iter().filter(|v| v.outcome == Outcome::Fail) {
        let reason = v.reason.as_deref().unwrap_or("failed");
        match out.iter_mut().find(|(s, _)| *s == &v.slot) {
            Some((_, reasons)) => reasons.push(reason),
            None => out.push((&v.slot, vec![reason])),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const BOUNDS: Bounds = Bounds { tolerance: 0.9, max_throttled: 0.05, min_peak: 0.5, min_link: 0.25 };
    const BENCHES: &[&str] = &[GEMM, MEMBW];

    fn run(id: &str, bench: &str, figure: f64) -> Measured {
        Measured {
            slot: Slot { node: None, id: id.into(), gpu: None },
            bench: bench.into(),
            failure: None,
            figure: Some(figure),
            precision: None,
            throttled: None,
            xid: 0.0,
            ecc_uncorrected: 0.0,
            link: None,
            instance: None,
        }
    }

    fn failures(verdicts: &[Verdict]) -> Vec<(String, Check)> {
        let failed = verdicts.iter().filter(|v| v.outcome == Outcome::Fail);
        failed.map(|v| (v.slot.label(), v.check)).collect()
    }

    #[test]
    fn a_slot_below_the_tolerance_of_the_best_fails_naming_its_figures() {
        let measured = [run("0", GEMM, 1.0), run("1", GEMM, 0.85), run("0", MEMBW, 10.0), run("1", MEMBW, 9.5)];
        let verdicts = judge(&measured, BOUNDS, BENCHES, &[]);
        assert_eq!(failures(&verdicts), [("1".to_string(), Check::Tflops)]);
        let reason = verdicts.iter().find(|v| v.outcome == Outcome::Fail).unwrap().reason.clone().unwrap();
        assert_eq!(reason, "gemm 0.850 TFLOPS, 85% of the best slot's 1.000 (at least 90%)");
        assert_eq!(failed(&verdicts)[0].1, [reason.as_str()]);
    }

    #[test]
    fn throttling_errors_and_missing_reports_fail_and_gpu_models_are_apart() {
        let mut slow_model = run("2", GEMM, 0.5);
        slow_model.slot.gpu = Some("other".into());
        let mut throttled = run("0", MEMBW, 10.0);
        (throttled.throttled, throttled.xid, throttled.ecc_uncorrected) = (Some(0.2), 1.0, 3.0);
        let mut broken = run("1", MEMBW, 0.0);
        broken.failure = Some("error: out of memory".into());
        let measured = [run("0", GEMM, 1.0), run("1", GEMM, 1.0), throttled, broken, slow_model];
        let got = failures(&judge(&measured, BOUNDS, BENCHES, &[]));
        let want = [
            ("0", Check::Throttled),
            ("0", Check::Xid),
            ("0", Check::Ecc),
            ("1", Check::Completed),
            ("2", Check::Completed),
        ];
        assert_eq!(got, want.map(|(s, c)| (s.to_string(), c)));
        let verdicts = judge(&measured, BOUNDS, BENCHES, &[]);
        let completed = verdicts.iter().find(|v| v.slot.id == "1" && v.check == Check::Completed).unwrap();
        assert_eq!(completed.reason.as_deref(), Some("membw failed (error: out of memory)"));
    }

    #[test]
    fn a_gpu_is_held_to_the_peak_of_its_model_and_an_unknown_model_is_not_measured() {
        let gpu = |id: &str, name: &str, tflops: f64| {
            let mut m = run(id, GEMM, tflops);
            (m.slot.gpu, m.precision) = (Some(name.into()), Some("bf16".into()));
            m
        };
        let h100 = mlb_run::gpu::peak::peak("NVIDIA H100 80GB HBM3", Precision::Bf16).unwrap().tflops;
        let measured = [gpu("0", "NVIDIA H100 80GB HBM3", 0.4 * h100), gpu("1", "Mystery GPU", 10.0)];
        let verdicts = judge(&measured, BOUNDS, BENCHES, &[]);
        let peak: Vec<(String, Outcome)> =
            verdicts.iter().filter(|v| v.check == Check::Peak).map(|v| (v.slot.label(), v.outcome)).collect();
        assert_eq!(peak, [("0".to_string(), Outcome::Fail), ("1".to_string(), Outcome::NotMeasured)]);
        let failed = verdicts.iter().find(|v| v.check == Check::Peak && v.outcome == Outcome::Fail).unwrap();
        assert!(failed.reason.as_deref().unwrap().contains("40% of the H100 SXM peak"), "{failed:?}");
        assert!(
            judge(&[run("0", GEMM, 1.0)], BOUNDS, BENCHES, &[]).iter().all(|v| v.check != Check::Peak),
            "no peak on a CPU"
        );
    }

    #[test]
    fn across_nodes_a_slow_node_fails_against_the_best_of_the_allocation() {
        let on = |node: &str, bench, figure| {
            let mut m = run("0", bench, figure);
            m.slot.node = Some(node.into());
            m
        };
        let measured = [on("n1", GEMM, 1.0), on("n2", GEMM, 0.3), on("n1", MEMBW, 5.0), on("n2", MEMBW, 5.0)];
        assert_eq!(failures(&judge(&measured, BOUNDS, BENCHES, &[])), [("n2/0".to_string(), Check::Tflops)]);
    }
}
