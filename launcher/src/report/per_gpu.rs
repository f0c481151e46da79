//! Per-GPU tables (compat §6 step 5): for single-GPU entries, the mean, min
//! and max `train_item.avg` per (bench, device), each row divided by its best
//! device; and a flag on any device below 90% of the best mean.

use super::entry::Entry;
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

/// One (bench, device) cell.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Cell {
    /// Statistics of the device's runs.
    pub sample: Sample,
    /// Mean divided by the best device's mean.
    pub rel_mean: f64,
    /// Min divided by the best device's min.
    pub rel_min: f64,
    /// Max divided by the best device's max.
    pub rel_max: f64,
}

/// One bench: a cell per device (`None` where the device has no run).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Row {
    /// Bench name.
    pub bench: String,
    /// Cells, in the order of [`GpuTables::devices`].
    pub cells: Vec<Option<Cell>>,
}

/// A device below [`FLAG_BELOW`] of the best for a bench.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Flag {
    /// Bench name.
    pub bench: String,
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
    /// One row per bench, sorted by name.
    pub rows: Vec<Row>,
    /// Devices below 90% of the best, per bench.
    pub flags: Vec<Flag>,
}

/// Builds the per-GPU tables from successful single-GPU entries.
pub fn per_gpu(entries: &[&Entry]) -> GpuTables {
    let mut values: BTreeMap<&str, BTreeMap<&str, Vec<f64>>> = BTreeMap::new();
    let mut names: BTreeMap<&str, Option<&str>> = BTreeMap::new();
    for entry in entries {
        let (Some(device), Some(v)) = (entry.single_device(), entry.throughput()) else { continue };
        values.entry(&entry.name).or_default().entry(device).or_default().push(v);
        let name = names.entry(device).or_default();
        *name = name.or(entry.gpu.as_deref());
    }
    let mut devices: Vec<Device> =
        names.into_iter().map(|(id, gpu)| Device { id: id.to_string(), gpu: gpu.map(str::to_string) }).collect();
    devices.sort_by_key(|d| (d.id.parse::<u64>().unwrap_or(u64::MAX), d.id.clone()));
    let mut tables = GpuTables { devices, ..GpuTables::default() };
    for (bench, by_device) in values {
        let samples: Vec<Option<Sample>> =
            tables.devices.iter().map(|d| by_device.get(d.id.as_str()).and_then(|v| Sample::of(v))).collect();
        let best = |f: fn(&Sample) -> f64| samples.iter().flatten().map(f).fold(f64::NEG_INFINITY, f64::max);
        let (mean, min, max) = (best(|s| s.mean), best(|s| s.min), best(|s| s.max));
        let cells: Vec<Option<Cell>> = samples
            .iter()
            .map(|s| s.map(|s| Cell { sample: s, rel_mean: s.mean / mean, rel_min: s.min / min, rel_max: s.max / max }))
            .collect();
        for (device, cell) in tables.devices.iter().zip(&cells) {
            if let Some(c) = cell.filter(|c| c.rel_mean < FLAG_BELOW) {
                tables.flags.push(Flag { bench: bench.to_string(), device: device.id.clone(), rel_mean: c.rel_mean });
            }
        }
        tables.rows.push(Row { bench: bench.to_string(), cells });
    }
    tables
}

#[cfg(test)]
mod tests {
    use super::super::entry::Outcome;
    use super::*;
    use std::path::Path;
    use std::sync::Arc;

    fn run(name: &str, vcd: &str, v: f64) -> Entry {
        Entry {
            file: Arc::from(Path::new("r.json")),
            name: name.into(),
            suite: None,
            vcd: Some(vcd.into()),
            gpu: Some(format!("GPU-{vcd}")),
            outcome: Outcome::Ok(v),
        }
    }

    #[test]
    fn hand_computed_relative_tables() {
        let data = [
            run("a", "0", 100.0),
            run("a", "0", 80.0),  // device 0: mean 90, min 80, max 100
            run("a", "10", 60.0), // device 10: mean 60 (0.667 of 90), flagged
            run("a", "2", 85.0),
            run("a", "2", 87.0),    // device 2: mean 86 (0.956), min 85, max 87
            run("a", "0,1", 500.0), // multi-device: left out
            Entry { outcome: Outcome::Failed { cause: "x".into(), message: "y".into() }, ..run("a", "3", 1.0) },
            run("b", "2", 10.0),
        ];
        let entries: Vec<&Entry> = data.iter().collect();
        let t = per_gpu(&entries);
        let ids: Vec<&str> = t.devices.iter().map(|d| d.id.as_str()).collect();
        assert_eq!(ids, ["0", "2", "10"], "numeric order, failed-only device 3 absent");
        assert_eq!(t.devices[1].gpu.as_deref(), Some("GPU-2"));
        let a = &t.rows[0];
        let c0 = a.cells[0].unwrap();
        assert_eq!((c0.sample.mean, c0.rel_mean, c0.rel_min, c0.rel_max), (90.0, 1.0, 80.0 / 85.0, 1.0));
        let c2 = a.cells[1].unwrap();
        assert_eq!((c2.rel_mean, c2.rel_min, c2.rel_max), (86.0 / 90.0, 1.0, 87.0 / 100.0));
        assert_eq!(a.cells[2].unwrap().rel_mean, 60.0 / 90.0);
        assert_eq!(t.rows[1].cells, vec![None, Some(t.rows[1].cells[1].unwrap()), None]);
        assert_eq!(t.rows[1].cells[1].unwrap().rel_mean, 1.0);
        assert_eq!(t.flags, vec![Flag { bench: "a".into(), device: "10".into(), rel_mean: 60.0 / 90.0 }]);
    }
}
