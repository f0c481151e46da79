//! The verdicts of the all-reduce check (docs/burn.md, "Collectives"): a
//! slot's bus bandwidth against the nominal rate of the interface it
//! crossed (`link`), and across nodes against the best node's (`fabric`).
//!
//! | check | fails when | not judged when |
//! |---|---|---|
//! | `link` | busbw below `min_link` of the interface's nominal rate | loopback, a rate sysfs does not give, a group of one rank |
//! | `fabric` | (across nodes) busbw below `tolerance` of the best node's, or the interface's nominal rate below `tolerance` of the best node's (a slower interface bound by mistake) | one node |

use super::reading::{Measured, Slot};
use super::verdict::{Bounds, Check, Verdict};
use mlb_judge::accept::Outcome;

/// The `link` and `fabric` verdicts of `slot`'s all-reduce `m`; `all` are
/// every slot's all-reduces (the best node's figures).
pub fn judge(slot: &Slot, m: &Measured, all: &[&Measured], bounds: Bounds) -> Vec<Verdict> {
    let verdict =
        |check, outcome, value, bound, reason| Verdict { slot: slot.clone(), check, outcome, value, bound, reason };
    let link = m.link.clone().unwrap_or_default();
    let interface = link.interface.as_deref().unwrap_or("an unknown interface");
    let mut out = Vec::new();
    let Some(busbw) = m.figure else {
        let (outcome, reason) = match link.ranks {
            Some(ranks) if ranks < 2 => (Outcome::NotMeasured, "not judged: one rank, no link crossed".to_string()),
            _ => (Outcome::Fail, "allreduce reported no bus bandwidth".to_string()),
        };
        out.push(verdict(Check::Link, outcome, None, Some(bounds.min_link), Some(reason)));
        return out;
    };
    out.push(match link.nominal_gbs {
        None => {
            let note = link.note.as_deref().unwrap_or("no nominal rate");
            let reason = format!("not judged: {interface}: {note}");
            verdict(Check::Link, Outcome::NotMeasured, None, Some(bounds.min_link), Some(reason))
        }
        Some(nominal) => {
            let share = busbw / nominal;
            let failed = (share < bounds.min_link).then(|| {
                format!(
                    "allreduce {busbw:.2} GB/s bus bandwidth over {interface}, {:.0}% of its nominal {nominal:.2} GB/s \
                     (at least {:.0}%)",
                    100.0 * share,
                    100.0 * bounds.min_link
                )
            });
            let outcome = if failed.is_some() { Outcome::Fail } else { Outcome::Pass };
            verdict(Check::Link, outcome, Some(share), Some(bounds.min_link), failed)
        }
    });
    if slot.node.is_some() {
        let best = |figure: fn(&Measured) -> Option<f64>| {
            all.iter().filter(|o| o.failure.is_none()).filter_map(|o| figure(o).map(|f| (f, *o))).reduce(|a, b| {
                if b.0 > a.0 {
                    b
                } else {
                    a
                }
            })
        };
        let mut reasons = Vec::new();
        let top = best(|o| o.figure);
        if let Some((top, of)) = top.filter(|(top, _)| busbw < bounds.tolerance * top) {
            reasons.push(format!(
                "allreduce {busbw:.2} GB/s, {:.0}% of the best node's {top:.2} ({}; at least {:.0}%)",
                100.0 * busbw / top,
                of.slot.label(),
                100.0 * bounds.tolerance
            ));
        }
        let nominal = |o: &Measured| o.link.as_ref().and_then(|l| l.nominal_gbs);
        if let (Some(own), Some((fastest, of))) = (link.nominal_gbs, best(nominal)) {
            if own < bounds.tolerance * fastest {
                let theirs = of.link.as_ref().and_then(|l| l.interface.as_deref()).unwrap_or("?");
                reasons.push(format!(
                    "interface {interface} of nominal {own:.2} GB/s, {:.0}% of {}'s {theirs} ({fastest:.2} GB/s)",
                    100.0 * own / fastest,
                    of.slot.label()
                ));
            }
        }
        let outcome = if reasons.is_empty() { Outcome::Pass } else { Outcome::Fail };
        let bound = top.map(|(t, _)| t * bounds.tolerance);
        out.push(verdict(
            Check::Fabric,
            outcome,
            Some(busbw),
            bound,
            (!reasons.is_empty()).then(|| reasons.join("; ")),
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::commands::burn::reading::Link;

    const BOUNDS: Bounds = Bounds { tolerance: 0.9, max_throttled: 0.05, min_peak: 0.5, min_link: 0.25 };

    fn reduce(
        node: Option<&str>,
        busbw: Option<f64>,
        interface: &str,
        nominal: Option<f64>,
        note: Option<&str>,
    ) -> Measured {
        let note = note.map(str::to_string);
        let ranks = Some(if busbw.is_none() && nominal.is_none() { 1 } else { 2 });
        Measured {
            slot: Slot { node: node.map(str::to_string), id: "0".into(), gpu: None },
            bench: "allreduce".into(),
            failure: None,
            figure: busbw,
            precision: None,
            throttled: None,
            xid: 0.0,
            ecc_uncorrected: 0.0,
            link: Some(Link { interface: Some(interface.into()), nominal_gbs: nominal, note, ranks }),
            instance: None,
        }
    }

    fn outcomes(m: &Measured, all: &[&Measured]) -> Vec<(Check, Outcome, Option<String>)> {
        judge(&m.slot, m, all, BOUNDS).into_iter().map(|v| (v.check, v.outcome, v.reason)).collect()
    }

    #[test]
    fn a_link_far_below_its_nominal_rate_fails_and_loopback_is_not_judged() {
        let slow = reduce(None, Some(1.0), "eth0", Some(12.5), None);
        let got = outcomes(&slow, &[&slow]);
        assert_eq!(got.len(), 1, "no fabric verdict on one node: {got:?}");
        assert_eq!(got[0].1, Outcome::Fail);
        let reason = got[0].2.as_deref().unwrap();
        assert_eq!(reason, "allreduce 1.00 GB/s bus bandwidth over eth0, 8% of its nominal 12.50 GB/s (at least 25%)");
        let fine = reduce(None, Some(5.0), "eth0", Some(12.5), None);
        assert_eq!(outcomes(&fine, &[&fine])[0].1, Outcome::Pass);
        let lo = reduce(None, Some(3.0), "lo", None, Some("loopback: no nominal rate"));
        let got = outcomes(&lo, &[&lo]);
        assert_eq!(
            (got[0].1, got[0].2.as_deref()),
            (Outcome::NotMeasured, Some("not judged: lo: loopback: no nominal rate"))
        );
        let alone = reduce(None, None, "lo", None, Some("loopback: no nominal rate"));
        assert_eq!(outcomes(&alone, &[&alone])[0].1, Outcome::NotMeasured);
        let silent = reduce(None, None, "eth0", Some(12.5), None);
        assert_eq!(outcomes(&silent, &[&silent])[0].1, Outcome::Fail);
    }

    #[test]
    fn across_nodes_a_slow_node_and_a_slower_interface_fail_against_the_best() {
        let n1 = reduce(Some("n1"), Some(4.0), "ib0", Some(12.5), None);
        let n2 = reduce(Some("n2"), Some(2.0), "ib0", Some(12.5), None);
        let n3 = reduce(Some("n3"), Some(3.9), "eth1", Some(1.25), None);
        let all = [&n1, &n2, &n3];
        let fabric = |m: &Measured| outcomes(m, &all).into_iter().find(|o| o.0 == Check::Fabric).unwrap();
        assert_eq!(fabric(&n1).1, Outcome::Pass);
        let (_, outcome, reason) = fabric(&n2);
        assert_eq!(
            (outcome, reason.as_deref()),
            (Outcome::Fail, Some("allreduce 2.00 GB/s, 50% of the best node's 4.00 (n1/0; at least 90%)"))
        );
        let (_, outcome, reason) = fabric(&n3);
        assert_eq!(outcome, Outcome::Fail);
        assert_eq!(reason.as_deref(), Some("interface eth1 of nominal 1.25 GB/s, 10% of n1/0's ib0 (12.50 GB/s)"));
    }
}
