//! Rules on the instances' telemetry: throttling, XID errors and degraded
//! PCIe links per (bench, GPU, node), and energy per item per config. The
//! original suite's reports hold no telemetry: their verdicts are not
//! measured.

use super::{subject, Figures, Instance, Measure};
use crate::accept::rules::Rule;
use crate::accept::verdict::Verdict;
use crate::report::device_order;
use mlb_record::contract::read::Conditions;
use std::collections::BTreeMap;

/// The instances `rule` reaches, by (bench, GPU, node), GPUs in numeric order.
fn groups<'f>(rule: &Rule, figures: &'f Figures) -> BTreeMap<GroupKey<'f>, Vec<&'f Instance>> {
    let mut out: BTreeMap<GroupKey, Vec<&Instance>> = BTreeMap::new();
    for i in figures.instances.iter().filter(|i| rule.benches.matches(&i.bench)) {
        let gpu = i.gpu.as_deref().map(|g| (device_order(g), g));
        out.entry((i.bench.as_str(), i.node.as_deref(), gpu)).or_default().push(i);
    }
    out
}

/// (bench, node, (device order, device)).
type GroupKey<'f> = (&'f str, Option<&'f str>, Option<((u64, &'f str), &'f str)>);

/// One verdict per group: `figure` of the group's telemetry (none: not
/// measured) held at most to `bound`.
fn per_group(
    rule: &Rule,
    figures: &Figures,
    bound: f64,
    unit: &str,
    figure: impl Fn(&[Conditions]) -> Option<(f64, String)>,
) -> Vec<Verdict> {
    groups(rule, figures)
        .into_iter()
        .map(|((bench, node, gpu), instances)| {
            let who = subject(bench, gpu.map(|(_, g)| g), node);
            let measured: Vec<Conditions> = instances.iter().filter_map(|i| i.conditions).collect();
            let missing = || "no telemetry in the reports (the original suite's have none)".to_string();
            if measured.is_empty() {
                return Measure::missing(rule, who, unit, missing());
            }
            match figure(&measured) {
                Some((value, note)) => Measure { measured: value, bound, unit }.at_most(rule, who, note),
                None => Measure::missing(rule, who, unit, missing()),
            }
        })
        .collect()
}

/// The largest throttled share of the window at most `max`.
pub fn throttled(rule: &Rule, figures: &Figures, max: f64) -> Vec<Verdict> {
    per_group(rule, figures, max, "share", |all| {
        let shares: Vec<f64> = all.iter().filter_map(|c| c.throttled_share).collect();
        let worst = shares.iter().copied().reduce(f64::max)?;
        Some((worst, format!("the most of {} instances", shares.len())))
    })
}

/// No XID error in the instances' windows.
pub fn xid(rule: &Rule, figures: &Figures) -> Vec<Verdict> {
    per_group(rule, figures, 0.0, "events", |all| {
        Some((all.iter().map(|c| c.xid_events).sum(), format!("XID events of {} instances", all.len())))
    })
}

/// No instance on a degraded PCIe link.
pub fn pcie_link(rule: &Rule, figures: &Figures) -> Vec<Verdict> {
    per_group(rule, figures, 0.0, "instances", |all| {
        let degraded = all.iter().filter(|c| c.degraded_link).count();
        Some((degraded as f64, format!("{degraded} of {} instances on a degraded link", all.len())))
    })
}

/// Mean energy per item of each config at most `max` joules.
pub fn energy(rule: &Rule, figures: &Figures, max: f64) -> Vec<Verdict> {
    let report = figures.report;
    figures
        .configs(rule)
        .map(|row| {
            let who = subject(&row.label, None, None);
            let found = report.energy.rows.iter().find(|e| e.label == row.label);
            match found.and_then(|e| e.joules_per_item.mean.map(|m| (m, e))) {
                Some((mean, e)) => {
                    let source = if e.gpu_energy { "GPU counters" } else { "host packages" };
                    let note = format!("mean of {} instances, {source}", e.joules_per_item.count);
                    Measure { measured: mean, bound: max, unit: "J/item" }.at_most(rule, who, note)
                }
                None => Measure::missing(rule, who, "J/item", "no energy figure in the reports".into()),
            }
        })
        .collect()
}
