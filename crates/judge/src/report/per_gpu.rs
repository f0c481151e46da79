//! Per-GPU tables (docs/report.md, "Algorithm", step 5): for single-GPU entries that count, the
//! mean, min and max `train_item.avg` per (row, device), each row divided by
//! its best device; and a flag on any device below 90% of the best mean.
//! NaN throughputs are skipped, as pandas skipped them. When the reports come
//! from several Slurm nodes (`mlb --slurm`), a device is a node's device:
//! `n1/0` and `n2/0` are two columns. Reports of several hosts without Slurm
//! (the original's among them) pool a device id across hosts, as the original
//! did; the per-node tables tell the hosts apart.

use super::judge::Rule;
use super::relative::{table, Flag, Row};
use super::rows::{Judged, Layout, RowKey};
use mlb_record::contract::read::Entry;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// One device: its Slurm node (when the reports come from several), its
/// `vcd` id and, when reports hold it, its name.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Device {
    /// The Slurm node, when the reports name more than one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node: Option<String>,
    /// The `vcd` value (a single device).
    pub id: String,
    /// The `gpu` name reported for it, when any.
    pub gpu: Option<String>,
}

impl Device {
    /// `id`, or `node/id` for a device of one of several nodes.
    pub fn label(&self) -> String {
        match &self.node {
            Some(node) => format!("{node}/{}", self.id),
            None => self.id.clone(),
        }
    }
}

/// The per-GPU tables.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct GpuTables {
    /// Devices, sorted by node, then by id (numerically when ids are numbers).
    pub devices: Vec<Device>,
    /// One row per row label, sorted as the report's rows.
    pub rows: Vec<Row>,
    /// Devices below 90% of the best, per row.
    pub flags: Vec<Flag>,
}

/// Whether the entries name more than one node, as `node` finds it.
pub fn several_nodes(entries: &[Judged], node: fn(&Entry) -> Option<&str>) -> bool {
    entries.iter().filter_map(|j| node(j.entry)).collect::<BTreeSet<_>>().len() > 1
}

/// The order of device ids: numerically when they are numbers (`2` before
/// `10`), the others after them by text.
pub fn device_order(id: &str) -> (u64, &str) {
    (id.parse::<u64>().unwrap_or(u64::MAX), id)
}

/// Builds the per-GPU tables from the single-GPU entries that count under
/// `rule`, one row per row of `layout` with such an entry.
pub fn per_gpu(entries: &[Judged], layout: &Layout, rule: Rule) -> GpuTables {
    let by_node = several_nodes(entries, |e| e.slurm_node.as_deref());
    // (node, device order): nodes apart, then ids in numeric order.
    type Key<'a> = (Option<&'a str>, (u64, &'a str));
    let mut values: Vec<BTreeMap<Key, Vec<f64>>> = vec![BTreeMap::new(); layout.rows.len()];
    // Entries with a null name: the original's row `None`.
    let mut null_name: BTreeMap<Key, Vec<f64>> = BTreeMap::new();
    let mut names: BTreeMap<Key, Option<&str>> = BTreeMap::new();
    for (j, row) in entries.iter().zip(&layout.of_entry) {
        let (Some(device), Some(v)) = (j.entry.single_device(), j.value(rule)) else {
            continue;
        };
        let slot = match row {
            Some(row) => &mut values[*row],
            None if j.entry.name.is_none() => &mut null_name,
            None => continue,
        };
        let node = j.entry.slurm_node.as_deref().filter(|_| by_node);
        let key = (node, device_order(device));
        slot.entry(key).or_default().push(v);
        let name = names.entry(key).or_default();
        *name = name.or(j.entry.gpu.as_deref());
    }
    let keys = with_null_name_row(layout, &mut values, null_name);
    let devices: Vec<Device> = names
        .iter()
        .map(|((node, (_, id)), gpu)| Device {
            node: node.map(str::to_string),
            id: id.to_string(),
            gpu: gpu.map(str::to_string),
        })
        .collect();
    let columns: Vec<(Key, String)> = names.keys().copied().zip(devices.iter().map(Device::label)).collect();
    let (rows, flags) = table(&keys, &values, &columns);
    GpuTables { devices, rows, flags }
}

/// The label of the row of entries with a null name, as the original's
/// per-GPU tables showed it (pandas printed the `None` key as `None`).
pub const NULL_NAME_ROW: &str = "None";

/// `layout` with the row [`NULL_NAME_ROW`] (and its values) where the
/// original sorted it: its key was `name or "_"`, so after the benches
/// that sort at or before `_` and before the others. Unchanged when no
/// entry with a null name counts.
fn with_null_name_row<'a, K>(
    layout: &Layout<'a>,
    values: &mut Vec<BTreeMap<K, Vec<f64>>>,
    null_name: BTreeMap<K, Vec<f64>>,
) -> Vec<RowKey<'a>> {
    let mut rows = layout.rows.clone();
    if !null_name.is_empty() {
        let at = rows.iter().take_while(|r| r.bench.is_empty() || r.bench <= "_").count();
        rows.insert(at, RowKey { label: NULL_NAME_ROW.into(), bench: "", args: Vec::new() });
        values.insert(at, null_name);
    }
    rows
}

#[cfg(test)]
pub(super) mod tests {
    use super::super::judge::Check;
    use super::super::rows::{layout, Grouping};
    use super::*;
    use mlb_record::contract::read::{Entry, Losses};
    use std::path::Path;
    use std::sync::Arc;

    /// A completed single-GPU run of `name` on device `vcd`.
    pub fn run(name: &str, vcd: &str, v: f64) -> Entry {
        Entry {
            file: Arc::from(Path::new("r.json")),
            name: Some(name.into()),
            suite: None,
            vcd: Some(vcd.into()),
            gpu: Some(format!("GPU-{vcd}").into()),
            slurm_node: None,
            hostname: None,
            completed: Some(true),
            failure: None,
            avg: Some(v),
            losses: Losses::default(),
            conditions: None,
            flops_per_item: None,
            probe_peak: None,
            args: vec![],
        }
    }

    #[test]
    fn hand_computed_relative_tables() {
        let data = [
            run("a", "0", 100.0),
            run("a", "0", 80.0),  // device 0: mean 90, min 80, max 100
            run("a", "10", 60.0), // device 10: mean 60 (0.667 of 90), flagged
            run("a", "2", 85.0),
            run("a", "2", 87.0),     // device 2: mean 86 (0.956), min 85, max 87
            run("a", "2", f64::NAN), // skipped, as pandas skipped it
            run("a", "0,1", 500.0),  // multi-device: left out
            run("a", "3", 1.0),      // failed: left out
            run("b", "2", 10.0),
        ];
        let checks = [None, None, None, None, None, Some(Check::NoThroughput), None, Some(Check::Incomplete), None];
        let entries: Vec<Judged> = data.iter().zip(checks).map(|(entry, check)| Judged { entry, check }).collect();
        let rows = layout(&entries, Grouping::Bench);
        let t = per_gpu(&entries, &rows, Rule::Original);
        let ids: Vec<&str> = t.devices.iter().map(|d| d.id.as_str()).collect();
        assert_eq!(ids, ["0", "2", "10"], "numeric order, failed-only device 3 absent");
        assert_eq!(t.devices[1].gpu.as_deref(), Some("GPU-2"));
        let a = &t.rows[0];
        let c0 = a.cells[0].unwrap();
        assert_eq!(
            (c0.sample.mean, c0.rel_mean, c0.rel_min, c0.rel_max),
            (Some(90.0), Some(1.0), Some(80.0 / 85.0), Some(1.0))
        );
        let c2 = a.cells[1].unwrap();
        assert_eq!(
            (c2.sample.n, c2.rel_mean, c2.rel_min, c2.rel_max),
            (3, Some(86.0 / 90.0), Some(1.0), Some(87.0 / 100.0))
        );
        assert_eq!(a.cells[2].unwrap().rel_mean, Some(60.0 / 90.0));
        assert_eq!(t.rows[1].cells, vec![None, Some(t.rows[1].cells[1].unwrap()), None]);
        assert_eq!(t.rows[1].cells[1].unwrap().rel_mean, Some(1.0));
        assert_eq!(t.flags, vec![Flag { label: "a".into(), column: "10".into(), rel_mean: 60.0 / 90.0 }]);
        // --strict leaves the NaN entry out of n.
        let strict = per_gpu(&entries, &rows, Rule::Strict);
        assert_eq!(strict.rows[0].cells[1].unwrap().sample.n, 2);
    }
}
