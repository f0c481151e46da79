//! Model FLOPs utilisation (docs/report.md, "MFU"): for the entries that
//! count and state their training FLOPs per item (`flops_per_item`), the
//! achieved TFLOPS (items/s x FLOPs per item) and the MFU (achieved / peak),
//! per row and per (row, device). The peak is the peak table's for the
//! entry's GPU model (`gpu`) and precision (`precision`), else the one the
//! workload measured (`peak_tflops`, the CPU probe), else none, and the
//! table says why. Entries without `flops_per_item` (the original suite's,
//! older mlb's) make no row: the tables are then empty and not shown.

use super::judge::Rule;
use super::per_gpu::device_order;
use super::rows::{Judged, Layout};
use mlb_figures::moments::mean;
use mlb_figures::Sample;
use mlb_record::contract::precision::Precision;
use mlb_record::contract::read::Entry;
use mlb_run::gpu::peak::peak;
use serde::Serialize;
use std::collections::{BTreeMap, BTreeSet};

/// One row's (or one device's) FLOPs figures.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MfuRow {
    /// Row label.
    pub label: String,
    /// The device (`vcd`), in the per-device table.
    pub device: Option<String>,
    /// The precision(s) its entries trained in, as the peak table names them.
    pub precision: String,
    /// Training FLOPs per item (the mean over its entries: one figure for
    /// one config).
    pub flops_per_item: f64,
    /// Achieved TFLOPS of each entry.
    pub achieved_tflops: Sample,
    /// The mean peak (TFLOPS) of the entries that have one.
    pub peak_tflops: Option<f64>,
    /// Where the peak comes from: `<model> (peak table)`, `probe`, or why
    /// there is none.
    pub peak_of: String,
    /// MFU (achieved / peak) of each entry that has a peak.
    pub mfu: Sample,
}

/// A peak table model the tables use, with the source of its figures.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PeakSource {
    /// The table's model.
    pub model: String,
    /// The vendor document.
    pub source: String,
}

/// The MFU tables; empty when no entry states its FLOPs per item.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct MfuTables {
    /// One row per report row with FLOPs.
    pub rows: Vec<MfuRow>,
    /// One row per (report row, single device).
    pub per_gpu: Vec<MfuRow>,
    /// The peak table's models used, with their sources.
    pub sources: Vec<PeakSource>,
}

impl MfuTables {
    /// Whether no entry stated its FLOPs (the report then shows nothing of MFU).
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }
}

/// The peak of one entry, or why it has none.
enum EntryPeak {
    /// From the peak table.
    Table(mlb_run::gpu::peak::Peak),
    /// Measured by the workload (the CPU probe).
    Probe(f64),
    /// None: why.
    None(String),
}

/// The precision an entry names under `precision`, if it names one.
fn precision(entry: &Entry) -> Result<Precision, String> {
    match entry.args.iter().find(|(k, _)| &**k == "precision").map(|(_, v)| v) {
        Some(serde_json::Value::String(text)) => {
            text.parse().map_err(|e: mlb_record::contract::precision::UnknownPrecision| e.to_string())
        }
        _ => Err("precision not recorded".into()),
    }
}

/// The peak of `entry` trained in `precision`.
fn entry_peak(entry: &Entry, precision: Result<Precision, String>) -> EntryPeak {
    let from_table = match (&precision, entry.gpu.as_deref()) {
        (Ok(p), Some(gpu)) => peak(gpu, *p),
        _ => None,
    };
    match (from_table, entry.probe_peak, precision) {
        (Some(p), _, _) => EntryPeak::Table(p),
        (None, Some(probe), _) => EntryPeak::Probe(probe),
        (None, None, Err(why)) => EntryPeak::None(format!("none: {why}")),
        (None, None, Ok(p)) => match entry.gpu.as_deref() {
            Some(gpu) => EntryPeak::None(format!("none: no {p} figure for {gpu:?} in the peak table")),
            None => EntryPeak::None("none: no GPU model recorded and no probe".into()),
        },
    }
}

/// The figures of one group of entries.
#[derive(Default)]
struct Figures {
    precisions: BTreeSet<String>,
    flops: Vec<f64>,
    achieved: Vec<f64>,
    peaks: Vec<f64>,
    peak_of: BTreeSet<String>,
    mfu: Vec<f64>,
}

impl Figures {
    fn add(&mut self, precision: &str, flops: f64, achieved: f64, peak: &EntryPeak) {
        self.precisions.insert(precision.to_string());
        self.flops.push(flops);
        self.achieved.push(achieved);
        let tflops = match peak {
            EntryPeak::Table(p) => {
                self.peak_of.insert(format!("{} (peak table)", p.model));
                Some(p.tflops)
            }
            EntryPeak::Probe(t) => {
                self.peak_of.insert("probe".into());
                Some(*t)
            }
            EntryPeak::None(why) => {
                self.peak_of.insert(why.clone());
                None
            }
        };
        if let Some(t) = tflops {
            self.peaks.push(t);
            self.mfu.push(achieved / t);
        }
    }

    fn row(&self, label: &str, device: Option<&str>) -> MfuRow {
        let join = |set: &BTreeSet<String>| set.iter().cloned().collect::<Vec<_>>().join("; ");
        MfuRow {
            label: label.to_string(),
            device: device.map(str::to_string),
            precision: join(&self.precisions),
            flops_per_item: mean(&self.flops),
            achieved_tflops: Sample::of(&self.achieved),
            peak_tflops: Sample::of(&self.peaks).mean,
            peak_of: join(&self.peak_of),
            mfu: Sample::of(&self.mfu),
        }
    }
}

/// The MFU tables of the entries that count under `rule`.
pub fn mfu(entries: &[Judged], layout: &Layout, rule: Rule) -> MfuTables {
    let mut rows: Vec<Option<Figures>> = layout.rows.iter().map(|_| None).collect();
    let mut devices: BTreeMap<(usize, (u64, &str)), Figures> = BTreeMap::new();
    let mut sources: BTreeMap<String, String> = BTreeMap::new();
    for (j, row) in entries.iter().zip(&layout.of_entry) {
        let (Some(row), Some(items), Some(flops)) = (*row, j.value(rule), j.entry.flops_per_item) else {
            continue;
        };
        if !items.is_finite() {
            continue;
        }
        let precision = precision(j.entry);
        let named = precision.as_ref().map_or_else(|_| "?".to_string(), |p| p.name().to_string());
        let peak = entry_peak(j.entry, precision);
        if let EntryPeak::Table(p) = &peak {
            sources.insert(p.model.to_string(), p.source.to_string());
        }
        let achieved = items * flops / 1e12;
        rows[row].get_or_insert_with(Figures::default).add(&named, flops, achieved, &peak);
        if let Some(d) = j.entry.single_device() {
            devices.entry((row, device_order(d))).or_default().add(&named, flops, achieved, &peak);
        }
    }
    let label = |row: usize| layout.rows[row].label.as_str();
    MfuTables {
        rows: rows.iter().enumerate().filter_map(|(i, f)| Some(f.as_ref()?.row(label(i), None))).collect(),
        per_gpu: devices.iter().map(|((row, (_, d)), f)| f.row(label(*row), Some(d))).collect(),
        sources: sources.into_iter().map(|(model, source)| PeakSource { model, source }).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::per_gpu::tests::run;
    use crate::report::rows::{layout, Grouping};
    use serde_json::json;

    fn with(
        vcd: &str,
        v: f64,
        gpu: Option<&str>,
        precision: Option<&str>,
        flops: Option<f64>,
        probe: Option<f64>,
    ) -> Entry {
        let mut e = run("gpt", vcd, v);
        e.gpu = gpu.map(Into::into);
        e.flops_per_item = flops;
        e.probe_peak = probe;
        e.args = precision.map(|p| vec![("precision".into(), json!(p))]).unwrap_or_default();
        e
    }

    fn tables(entries: &[Entry]) -> MfuTables {
        let j: Vec<Judged> = entries.iter().map(|entry| Judged { entry, check: None }).collect();
        mfu(&j, &layout(&j, Grouping::Config), Rule::Original)
    }

    #[test]
    fn achieved_and_mfu_against_the_table_peak_per_row_and_gpu() {
        let h100 = Some("NVIDIA H100 80GB HBM3");
        // 1000 tokens/s x 1e12 FLOPs per token: 1000 TFLOPS... of a 989.5 peak.
        let data = [
            with("0", 100.0, h100, Some("bf16"), Some(1e12), None),
            with("1", 300.0, h100, Some("bf16"), Some(1e12), None),
        ];
        let t = tables(&data);
        assert_eq!(t.rows.len(), 1);
        let r = &t.rows[0];
        assert_eq!((r.precision.as_str(), r.flops_per_item, r.peak_tflops), ("bf16", 1e12, Some(989.5)));
        assert_eq!(r.achieved_tflops.mean, Some(200.0));
        assert!((r.mfu.mean.unwrap() - 200.0 / 989.5).abs() < 1e-12);
        assert_eq!(r.peak_of, "H100 SXM (peak table)");
        assert_eq!(t.per_gpu.iter().map(|r| r.device.as_deref()).collect::<Vec<_>>(), [Some("0"), Some("1")]);
        assert_eq!(t.per_gpu[1].achieved_tflops.mean, Some(300.0));
        assert_eq!(t.sources.len(), 1);
        assert!(t.sources[0].source.contains("H100"));
    }

    #[test]
    fn the_probe_stands_in_on_a_cpu_and_no_peak_is_said() {
        let probe = tables(&[with("0", 10.0, None, Some("float32"), Some(2e9), Some(0.5))]);
        let r = &probe.rows[0];
        assert_eq!((r.peak_of.as_str(), r.peak_tflops, r.achieved_tflops.mean), ("probe", Some(0.5), Some(0.02)));
        assert!((r.mfu.mean.unwrap() - 0.04).abs() < 1e-12);
        let unknown = tables(&[with("0", 10.0, Some("NVIDIA GeForce RTX 2080 Ti"), Some("fp16"), Some(2e9), None)]);
        let r = &unknown.rows[0];
        assert_eq!((r.peak_tflops, r.mfu.mean), (None, None));
        assert!(r.peak_of.contains("no fp16 figure") && r.peak_of.contains("RTX 2080 Ti"), "{}", r.peak_of);
        assert!(tables(&[with("0", 1.0, None, None, Some(1.0), None)]).rows[0]
            .peak_of
            .contains("precision not recorded"));
    }

    #[test]
    fn entries_without_flops_make_no_table() {
        let t = tables(&[with("0", 10.0, Some("NVIDIA H100 80GB HBM3"), Some("bf16"), None, None)]);
        assert!(t.is_empty() && t.per_gpu.is_empty() && t.sources.is_empty());
    }
}
