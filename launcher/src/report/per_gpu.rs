//! Per-GPU tables (compat §6 step 5): for single-GPU entries that count, the
//! mean, min and max `train_item.avg` per (row, device), each row divided by
//! its best device; and a flag on any device below 90% of the best mean.
//! NaN throughputs are skipped, as pandas skipped them.

use super::judge::Rule;
use super::rows::{Judged, Layout};
use super::stats::Sample;
use serde::Serialize;
use std::collections::BTreeMap;

/// A device below this share of the best device's mean is flagged.
pub const FLAG_BELOW: f64 = 0.9;

/// One device: its `vcd` id and, when reports hold it, its name.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Device {
    /// The `vcd` value (a single device).
    pub id: String,
    /// The `gpu` name reported for it, when any.
    pub gpu: Option<String>,
}

/// One (row, device) cell.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Cell {
    /// Statistics of the device's runs.
    pub sample: Sample,
    /// Mean divided by the best device's mean.
    pub rel_mean: Option<f64>,
    /// Min divided by the best device's min.
    pub rel_min: Option<f64>,
    /// Max divided by the best device's max.
    pub rel_max: Option<f64>,
}

/// One row (a config or a bench): a cell per device (`None` where the
/// device has no run).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Row {
    /// Row label.
    pub label: String,
    /// Cells, in the order of [`GpuTables::devices`].
    pub cells: Vec<Option<Cell>>,
}

/// A device below [`FLAG_BELOW`] of the best for a row.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Flag {
    /// Row label.
    pub label: String,
    /// Device id.
    pub device: String,
    /// Its mean as a share of the best device's mean.
    pub rel_mean: f64,
}

/// The per-GPU tables.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct GpuTables {
    /// Devices, sorted by id (numerically when ids are numbers).
    pub devices: Vec<Device>,
    /// One row per row label, sorted as the report's rows.
    pub rows: Vec<Row>,
    /// Devices below 90% of the best, per row.
    pub flags: Vec<Flag>,
}

fn ratio(v: Option<f64>, best: f64) -> Option<f64> {
    v.map(|v| v / best).filter(|r| !r.is_nan())
}

/// Builds the per-GPU tables from the single-GPU entries that count under
/// `rule`, one row per row of `layout` with such an entry.
pub fn per_gpu(entries: &[Judged], layout: &Layout, rule: Rule) -> GpuTables {
    let mut values: Vec<BTreeMap<&str, Vec<f64>>> = vec![BTreeMap::new(); layout.rows.len()];
    let mut names: BTreeMap<&str, Option<&str>> = BTreeMap::new();
    for (j, row) in entries.iter().zip(&layout.of_entry) {
        let (Some(row), Some(device), Some(v)) = (row, j.entry.single_device(), j.value(rule)) else {
            continue;
        };
        values[*row].entry(device).or_default().push(v);
        let name = names.entry(device).or_default();
        *name = name.or(j.entry.gpu.as_deref());
    }
    let mut devices: Vec<Device> =
        names.into_iter().map(|(id, gpu)| Device { id: id.to_string(), gpu: gpu.map(str::to_string) }).collect();
    devices.sort_by_key(|d| (d.id.parse::<u64>().unwrap_or(u64::MAX), d.id.clone()));
    let mut tables = GpuTables { devices, ..GpuTables::default() };
    for (key, by_device) in layout.rows.iter().zip(&values) {
        if by_device.is_empty() {
            continue;
        }
        let label = &key.label;
        let samples: Vec<Option<Sample>> =
            tables.devices.iter().map(|d| by_device.get(d.id.as_str()).map(|v| Sample::of(v))).collect();
        let best = |f: fn(&Sample) -> Option<f64>| samples.iter().flatten().filter_map(f).reduce(f64::max);
        let (mean, min, max) = (best(|s| s.mean), best(|s| s.min), best(|s| s.max));
        let cells: Vec<Option<Cell>> = samples
            .iter()
            .map(|s| {
                s.map(|s| Cell {
                    sample: s,
                    rel_mean: mean.and_then(|b| ratio(s.mean, b)),
                    rel_min: min.and_then(|b| ratio(s.min, b)),
                    rel_max: max.and_then(|b| ratio(s.max, b)),
                })
            })
            .collect();
        for (device, cell) in tables.devices.iter().zip(&cells) {
            if let Some(rel) = cell.and_then(|c| c.rel_mean).filter(|r| *r < FLAG_BELOW) {
                tables.flags.push(Flag { label: label.clone(), device: device.id.clone(), rel_mean: rel });
            }
        }
        tables.rows.push(Row { label: label.clone(), cells });
    }
    tables
}

#[cfg(test)]
mod tests {
    use super::super::entry::{Entry, Losses};
    use super::super::judge::Check;
    use super::super::rows::{layout, Grouping};
    use super::*;
    use std::path::Path;
    use std::sync::Arc;

    fn run(name: &str, vcd: &str, v: f64) -> Entry {
        Entry {
            file: Arc::from(Path::new("r.json")),
            name: Some(name.into()),
            suite: None,
            vcd: Some(vcd.into()),
            gpu: Some(format!("GPU-{vcd}")),
            completed: Some(true),
            failure: None,
            avg: Some(v),
            losses: Losses::default(),
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
        assert_eq!(t.flags, vec![Flag { label: "a".into(), device: "10".into(), rel_mean: 60.0 / 90.0 }]);
        // --strict leaves the NaN entry out of n.
        let strict = per_gpu(&entries, &rows, Rule::Strict);
        assert_eq!(strict.rows[0].cells[1].unwrap().sample.n, 2);
    }
}
