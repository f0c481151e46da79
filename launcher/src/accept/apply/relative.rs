//! Every GPU, and every node, at least a share of the best one: read from
//! the report's per-GPU and per-node tables (one row per config, each cell
//! a column's mean divided by the best column's).

use super::{subject, Figures, Measure};
use crate::accept::rules::Rule;
use crate::accept::verdict::Verdict;
use std::collections::BTreeSet;

/// Each GPU's mean at least `min` of the best GPU's of the same config.
pub fn per_gpu(rule: &Rule, figures: &Figures, min: f64) -> Vec<Verdict> {
    let tables = &figures.report.per_gpu;
    let mut out = Vec::new();
    for row in &tables.rows {
        let Some(bench) = figures.bench_of(&row.label) else { continue };
        if !rule.benches.matches(bench) {
            continue;
        }
        for (device, cell) in tables.devices.iter().zip(&row.cells) {
            let Some(rel) = cell.and_then(|c| c.rel_mean) else { continue };
            let who = subject(&row.label, Some(&device.id), device.node.as_deref());
            let note = format!("mean of the best GPU's, {} runs", cell.map_or(0, |c| c.sample.count));
            out.push(Measure { measured: rel, bound: min, unit: "ratio" }.at_least(rule, who, note));
        }
    }
    if out.is_empty() {
        out.extend(missing(rule, figures, "no single-GPU run with a device id"));
    }
    out
}

/// Each node's mean at least `min` of the best node's, per config. Reports
/// of one node pass (it is the best); reports naming no node are not measured.
pub fn per_node(rule: &Rule, figures: &Figures, min: f64) -> Vec<Verdict> {
    let tables = &figures.report.per_node;
    let mut out = Vec::new();
    for row in &tables.rows {
        let Some(bench) = figures.bench_of(&row.label) else { continue };
        if !rule.benches.matches(bench) {
            continue;
        }
        for (node, cell) in tables.nodes.iter().zip(&row.cells) {
            let Some(rel) = cell.and_then(|c| c.rel_mean) else { continue };
            let who = subject(&row.label, None, Some(node));
            let note = format!("mean of the best node's, {} runs", cell.map_or(0, |c| c.sample.count));
            out.push(Measure { measured: rel, bound: min, unit: "ratio" }.at_least(rule, who, note));
        }
    }
    if !out.is_empty() {
        return out;
    }
    let nodes: BTreeSet<&str> =
        figures.instances.iter().filter(|i| rule.benches.matches(&i.bench)).filter_map(|i| i.node.as_deref()).collect();
    match nodes.iter().next() {
        Some(node) if nodes.len() == 1 => figures
            .report
            .rows
            .iter()
            .filter(|row| rule.benches.matches(&row.bench) && row.sample.mean.is_some())
            .map(|row| {
                let who = subject(&row.label, None, Some(node));
                let note = "the only node: it is the best".to_string();
                Measure { measured: 1.0, bound: min, unit: "ratio" }.at_least(rule, who, note)
            })
            .collect(),
        _ => missing(rule, figures, "the reports name no node"),
    }
}

/// A verdict not measured for each config `rule` reaches, saying `why`.
fn missing(rule: &Rule, figures: &Figures, why: &str) -> Vec<Verdict> {
    figures
        .report
        .rows
        .iter()
        .filter(|row| rule.benches.matches(&row.bench))
        .map(|row| Measure::missing(rule, subject(&row.label, None, None), "ratio", why.to_string()))
        .collect()
}
