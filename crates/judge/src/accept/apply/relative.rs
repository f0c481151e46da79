//! Every GPU, and every node, at least a share of the best one: read from
//! the report's per-GPU and per-node tables (one row per config, each cell
//! a column's mean divided by the best column's).

use super::{subject, Figures, Measure};
use crate::accept::rules::Rule;
use crate::accept::verdict::Verdict;
use crate::report::RelativeRow;
use std::collections::BTreeSet;

/// Each GPU's mean at least `min` of the best GPU's of the same config.
pub fn per_gpu(rule: &Rule, figures: &Figures, min: f64) -> Vec<Verdict> {
    let tables = &figures.report.per_gpu;
    let columns: Vec<(Option<&str>, Option<&str>)> =
        tables.devices.iter().map(|d| (Some(d.id.as_str()), d.node.as_deref())).collect();
    let out = against_best(rule, figures, &tables.rows, &columns, min, "GPU");
    if out.is_empty() {
        return missing(rule, figures, "no single-GPU run with a device id");
    }
    out
}

/// Each node's mean at least `min` of the best node's, per config. Reports
/// of one node pass (it is the best); reports naming no node are not measured.
pub fn per_node(rule: &Rule, figures: &Figures, min: f64) -> Vec<Verdict> {
    let tables = &figures.report.per_node;
    let columns: Vec<(Option<&str>, Option<&str>)> = tables.nodes.iter().map(|n| (None, Some(n.as_str()))).collect();
    let out = against_best(rule, figures, &tables.rows, &columns, min, "node");
    if !out.is_empty() {
        return out;
    }
    let nodes: BTreeSet<&str> =
        figures.instances.iter().filter(|i| rule.benches.matches(&i.bench)).filter_map(|i| i.node.as_deref()).collect();
    match nodes.iter().next() {
        Some(node) if nodes.len() == 1 => figures
            .configs(rule)
            .filter(|row| row.sample.mean.is_some())
            .map(|row| {
                let who = subject(&row.label, None, Some(node));
                let note = "the only node: it is the best".to_string();
                Measure { measured: 1.0, bound: min, unit: "ratio" }.at_least(rule, who, note)
            })
            .collect(),
        _ => missing(rule, figures, "the reports name no node"),
    }
}

/// A verdict per cell of the relative table `rows` (columns: each a GPU
/// and a node) of the configs `rule` reaches: its mean as a share of the
/// best column's, at least `min`.
fn against_best(
    rule: &Rule,
    figures: &Figures,
    rows: &[RelativeRow],
    columns: &[(Option<&str>, Option<&str>)],
    min: f64,
    what: &str,
) -> Vec<Verdict> {
    let mut out = Vec::new();
    for row in rows {
        if !figures.bench_of(&row.label).is_some_and(|bench| rule.benches.matches(bench)) {
            continue;
        }
        for ((gpu, node), cell) in columns.iter().zip(&row.cells) {
            let Some((rel, cell)) = cell.and_then(|c| Some((c.rel_mean?, c))) else { continue };
            let note = format!("mean of the best {what}'s, {} runs", cell.sample.count);
            let who = subject(&row.label, *gpu, *node);
            out.push(Measure { measured: rel, bound: min, unit: "ratio" }.at_least(rule, who, note));
        }
    }
    out
}

/// A verdict not measured for each config `rule` reaches, saying `why`.
fn missing(rule: &Rule, figures: &Figures, why: &str) -> Vec<Verdict> {
    figures
        .configs(rule)
        .map(|row| Measure::missing(rule, subject(&row.label, None, None), "ratio", why.to_string()))
        .collect()
}
