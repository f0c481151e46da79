//! Per-node tables of a run across several nodes (`mlb --slurm`): for the
//! entries that count, the mean, min and max `train_item.avg` per (row, node),
//! each row divided by its best node; and a straggler flag on any node whose
//! mean is below 90% of the best node's. A node is the Slurm node a report
//! names, else its `hostname`. Reports from one node give no table.

use super::judge::Rule;
use super::per_gpu::several_nodes;
use super::relative::{table, Flag, Row};
use super::rows::{Judged, Layout};
use mlb_record::contract::read::Entry;
use serde::Serialize;
use std::collections::BTreeMap;

/// The per-node tables; empty when the reports name fewer than two nodes.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct NodeTables {
    /// Nodes, sorted by name.
    pub nodes: Vec<String>,
    /// One row per row label with a run on some node, sorted as the
    /// report's rows.
    pub rows: Vec<Row>,
    /// Stragglers: nodes below 90% of the best node, per row.
    pub stragglers: Vec<Flag>,
}

/// Builds the per-node tables from the entries that count under `rule`
/// (single- and multi-GPU alike: a node's instances are pooled).
pub fn per_node(entries: &[Judged], layout: &Layout, rule: Rule) -> NodeTables {
    if !several_nodes(entries, Entry::node) {
        return NodeTables::default();
    }
    let mut values: Vec<BTreeMap<&str, Vec<f64>>> = vec![BTreeMap::new(); layout.rows.len()];
    for (j, row) in entries.iter().zip(&layout.of_entry) {
        let (Some(row), Some(node), Some(v)) = (row, j.entry.node(), j.value(rule)) else {
            continue;
        };
        values[*row].entry(node).or_default().push(v);
    }
    let mut nodes: Vec<&str> = values.iter().flat_map(|by_node| by_node.keys().copied()).collect();
    nodes.sort_unstable();
    nodes.dedup();
    let columns: Vec<(&str, String)> = nodes.iter().map(|n| (*n, n.to_string())).collect();
    let (rows, stragglers) = table(&layout.rows, &values, &columns);
    NodeTables { nodes: nodes.into_iter().map(str::to_string).collect(), rows, stragglers }
}

#[cfg(test)]
mod tests {
    use super::super::judge::Check;
    use super::super::per_gpu::per_gpu;
    use super::super::per_gpu::tests::run as gpu_run;
    use super::super::rows::{layout, Grouping};
    use super::*;

    /// A run on Slurm node `node` (else on the host `login`).
    fn run(name: &str, node: Option<&str>, vcd: &str, v: f64) -> Entry {
        Entry { slurm_node: node.map(Into::into), hostname: Some("login".into()), ..gpu_run(name, vcd, v) }
    }

    #[test]
    fn a_node_below_90_percent_of_the_best_is_a_straggler() {
        let data = [
            run("a", Some("n1"), "0", 100.0),
            run("a", Some("n1"), "1", 80.0), // n1: mean 90
            run("a", Some("n2"), "0", 70.0),
            run("a", Some("n2"), "1", 74.0),   // n2: mean 72 = 0.8 of n1
            run("a", Some("n3"), "0,1", 85.0), // n3 (cgroup: all): 0.944, not flagged
            run("a", Some("n3"), "0", 1.0),    // failed: left out
            run("a", None, "0", 1000.0),       // no Slurm node: its host `login`
            run("b", Some("n2"), "0", 10.0),   // b only on n2: its best
        ];
        let checks = [None, None, None, None, None, Some(Check::Incomplete), None, None];
        let entries: Vec<Judged> = data.iter().zip(checks).map(|(entry, check)| Judged { entry, check }).collect();
        let rows = layout(&entries, Grouping::Bench);
        let t = per_node(&entries, &rows, Rule::Original);
        assert_eq!(t.nodes, ["login", "n1", "n2", "n3"]);
        let a = &t.rows[0];
        assert_eq!(a.cells[1].unwrap().sample.mean, Some(90.0));
        assert_eq!(a.cells[1].unwrap().rel_mean, Some(0.09));
        assert_eq!(a.cells[2].unwrap().rel_mean, Some(72.0 / 1000.0));
        let b = &t.rows[1];
        assert_eq!((b.cells[0], b.cells[2].unwrap().rel_mean), (None, Some(1.0)));
        let flagged: Vec<&str> = t.stragglers.iter().map(|f| f.column.as_str()).collect();
        assert_eq!(flagged, ["n1", "n2", "n3"], "each below 90% of the host `login`'s 1000");
        let rows = layout(&entries[..6], Grouping::Bench);
        let t = per_node(&entries[..6], &rows, Rule::Original);
        assert_eq!(t.nodes, ["n1", "n2", "n3"]);
        assert_eq!(t.rows[0].cells[1].unwrap().rel_mean, Some(72.0 / 90.0));
        assert_eq!(t.rows[0].cells[2].unwrap().rel_mean, Some(85.0 / 90.0));
        assert_eq!(t.stragglers, vec![Flag { label: "a".into(), column: "n2".into(), rel_mean: 0.8 }]);
        // The same device id on two nodes is two devices.
        let gpus = per_gpu(&entries[..6], &rows, Rule::Original);
        let labels: Vec<String> = gpus.devices.iter().map(|d| d.label()).collect();
        assert_eq!(labels, ["n1/0", "n1/1", "n2/0", "n2/1"]);
    }

    #[test]
    fn one_node_gives_no_table_and_hosts_pool_device_ids_as_the_original() {
        let host =
            |h: &str, vcd: &str, v: f64| Entry { slurm_node: None, hostname: Some(h.into()), ..run("a", None, vcd, v) };
        let data = [host("h1", "0", 100.0), host("h1", "1", 50.0)];
        let entries: Vec<Judged> = data.iter().map(|entry| Judged { entry, check: None }).collect();
        let rows = layout(&entries, Grouping::Bench);
        assert_eq!(per_node(&entries, &rows, Rule::Original), NodeTables::default());
        let data = [host("h1", "0", 100.0), host("h2", "0", 50.0)];
        let entries: Vec<Judged> = data.iter().map(|entry| Judged { entry, check: None }).collect();
        let rows = layout(&entries, Grouping::Bench);
        assert_eq!(per_node(&entries, &rows, Rule::Original).nodes, ["h1", "h2"]);
        let gpus = per_gpu(&entries, &rows, Rule::Original);
        let labels: Vec<String> = gpus.devices.iter().map(|d| d.label()).collect();
        assert_eq!(labels, ["0"], "two hosts without Slurm: device 0 pooled, as the original");
        assert_eq!(gpus.rows[0].cells[0].unwrap().sample.mean, Some(75.0));
    }
}
