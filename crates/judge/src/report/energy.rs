//! Energy tables, from the instances' telemetry: per row, and per (row,
//! device), the energy per item (joules) and the items per watt (items/s
//! per W, which is items per joule), over the entries that count and have
//! an energy figure. And the instances whose conditions are flagged: those
//! that throttled for more than 1% of their timed window, ran on a degraded
//! PCIe link, or whose GPUs reported XID errors in it.

use super::downsample::{downsample, BUCKETS};
use super::judge::Rule;
use super::per_gpu::device_order;
use super::rows::{Judged, Layout};
use super::source::Source;
use mlb_figures::Sample;
use mlb_record::contract::read::Conditions;
use mlb_record::contract::telemetry::Timeline;
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::PathBuf;

/// One row's (or one device's) energy figures.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EnergyRow {
    /// Row label.
    pub label: String,
    /// The device (`vcd`), in the per-device table.
    pub device: Option<String>,
    /// Joules per item of each instance.
    pub joules_per_item: Sample,
    /// Items/s per watt of each instance.
    pub items_per_watt: Sample,
    /// Whether every figure is of the GPUs' own energy counters; `false`
    /// when some are of the host's packages (shared by every process).
    pub gpu_energy: bool,
}

/// The energy tables; empty when no entry has an energy figure.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct EnergyTables {
    /// One row per report row.
    pub rows: Vec<EnergyRow>,
    /// One row per (report row, single device).
    pub per_gpu: Vec<EnergyRow>,
}

/// An instance whose conditions make its figure doubtful.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ConditionFlag {
    /// Its report file.
    pub file: PathBuf,
    /// Its row.
    pub label: String,
    /// Its device(s).
    pub device: Option<String>,
    /// The largest share of its window spent throttled, when above 1%.
    pub throttled_share: Option<f64>,
    /// Whether some GPU's link ran degraded.
    pub degraded_link: bool,
    /// XID events of its GPUs in its window.
    pub xid_events: f64,
}

/// An instance with telemetry whose timeline the HTML report draws.
#[derive(Clone, Debug, PartialEq)]
pub struct Sampled {
    /// Its row.
    pub label: String,
    /// Its device(s).
    pub device: Option<String>,
    /// Its report file.
    pub file: PathBuf,
    /// Its telemetry timeline, read from the file through the report model
    /// when the instance is chosen, so that rendering reads no file.
    pub timeline: Option<Timeline>,
}

pub use mlb_record::contract::physical::MAX_JOULES_PER_ITEM;

/// Whether `joules` per item can be a measure: above it (1e308), at or
/// below the floor (-1, a counter that did not move, 5e-324) or not finite,
/// a figure is non-physical: a broken counter or a damaged report, left out
/// of the energy tables ([`non_physical`]; [`mlb_record::contract::physical`]).
fn physical(joules: f64) -> bool {
    mlb_record::contract::physical::joules_per_item(joules).is_some()
}

/// The most instances whose timelines the HTML report draws.
pub const TIMELINES: usize = 12;

/// Energy figures of one group of entries: joules per item, and whether all
/// are the GPUs'.
#[derive(Default)]
struct Figures {
    joules: Vec<f64>,
    gpu_energy: bool,
}

impl Figures {
    fn row(&self, label: &str, device: Option<&str>) -> EnergyRow {
        let per_watt: Vec<f64> = self.joules.iter().map(|j| if *j > 0.0 { 1.0 / j } else { f64::NAN }).collect();
        EnergyRow {
            label: label.to_string(),
            device: device.map(str::to_string),
            joules_per_item: Sample::of(&self.joules),
            items_per_watt: Sample::of(&per_watt),
            gpu_energy: self.gpu_energy,
        }
    }
}

/// The entries that count under `rule`, have a row and a telemetry block:
/// each with its row and its conditions.
fn measured<'e, 'a>(
    entries: &'e [Judged<'a>],
    layout: &'e Layout,
    rule: Rule,
) -> impl Iterator<Item = (usize, &'e Judged<'a>, Conditions)> + 'e {
    entries.iter().zip(&layout.of_entry).filter_map(move |(j, row)| {
        j.value(rule)?;
        Some(((*row)?, j, j.entry.conditions?))
    })
}

/// The energy tables of the entries that count under `rule`.
pub fn energy(entries: &[Judged], layout: &Layout, rule: Rule) -> EnergyTables {
    let mut rows: Vec<Figures> =
        layout.rows.iter().map(|_| Figures { gpu_energy: true, ..Figures::default() }).collect();
    let mut devices: BTreeMap<(usize, (u64, &str)), Figures> = BTreeMap::new();
    for (row, j, c) in measured(entries, layout, rule) {
        let Some(joules) = c.joules_per_item.filter(|j| physical(*j)) else { continue };
        for figures in std::iter::once(&mut rows[row]).chain(j.entry.single_device().map(|d| {
            let key = (row, device_order(d));
            devices.entry(key).or_insert_with(|| Figures { gpu_energy: true, ..Figures::default() })
        })) {
            figures.joules.push(joules);
            figures.gpu_energy &= c.gpu_energy;
        }
    }
    let label = |row: usize| layout.rows[row].label.as_str();
    EnergyTables {
        rows: rows
            .iter()
            .enumerate()
            .filter(|(_, f)| !f.joules.is_empty())
            .map(|(i, f)| f.row(label(i), None))
            .collect(),
        per_gpu: devices.iter().map(|((row, (_, d)), f)| f.row(label(*row), Some(d))).collect(),
    }
}

/// The report files of the instances that count under `rule` whose energy
/// per item is non-physical, left out of the energy tables.
pub fn non_physical(entries: &[Judged], layout: &Layout, rule: Rule) -> Vec<PathBuf> {
    measured(entries, layout, rule)
        .filter(|(_, _, c)| c.joules_per_item.is_some_and(|j| !physical(j)))
        .map(|(_, j, _)| j.entry.file.to_path_buf())
        .collect()
}

/// The instances that count under `rule` whose conditions are flagged
/// ([`Conditions::flagged`](mlb_record::contract::read::Conditions::flagged)), sorted by file.
pub fn flagged(entries: &[Judged], layout: &Layout, rule: Rule) -> Vec<ConditionFlag> {
    let mut out: Vec<ConditionFlag> = measured(entries, layout, rule)
        .filter(|(_, _, c)| c.flagged())
        .map(|(row, j, c)| ConditionFlag {
            file: j.entry.file.to_path_buf(),
            label: layout.rows[row].label.clone(),
            device: j.entry.vcd.as_deref().map(str::to_string),
            throttled_share: c.throttled_share.filter(|_| c.throttled()),
            degraded_link: c.degraded_link,
            xid_events: c.xid_events,
        })
        .collect();
    out.sort_by(|a, b| a.file.cmp(&b.file));
    out
}

/// The instances that count under `rule` and have telemetry, the flagged
/// ones first, then by file; at most [`TIMELINES`], each with its timeline.
pub fn sampled(entries: &[Judged], layout: &Layout, rule: Rule, source: &dyn Source) -> Vec<Sampled> {
    let mut out: Vec<(bool, Sampled)> = measured(entries, layout, rule)
        .map(|(row, j, c)| {
            let sampled = Sampled {
                label: layout.rows[row].label.clone(),
                device: j.entry.vcd.as_deref().map(str::to_string),
                file: j.entry.file.to_path_buf(),
                timeline: None,
            };
            (!c.flagged(), sampled)
        })
        .collect();
    out.sort_by(|a, b| (a.0, &a.1.file).cmp(&(b.0, &b.1.file)));
    out.into_iter()
        .take(TIMELINES)
        .map(|(_, s)| {
            // Cut down as it is read: one whole timeline is held at a time.
            let timeline = source.report(&s.file).and_then(|r| r.telemetry).map(|t| downsample(t.timeline, BUCKETS));
            Sampled { timeline, ..s }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::judge::Check;
    use super::super::per_gpu::tests::run;
    use super::super::rows::{layout, Grouping};
    use super::*;
    use mlb_record::contract::read::Entry;

    fn with(vcd: &str, joules_per_item: Option<f64>, throttled_share: Option<f64>, degraded_link: bool) -> Entry {
        let conditions =
            Conditions { joules_per_item, gpu_energy: true, throttled_share, degraded_link, xid_events: 0.0 };
        Entry { conditions: Some(conditions), ..run("a", vcd, 100.0) }
    }

    #[test]
    fn energy_per_item_and_items_per_watt_per_row_and_device() {
        let data = [
            with("0", Some(0.5), None, false),
            with("0", Some(0.25), Some(0.005), false), // device 0: 0.375 J/item; 2 and 4 items/s/W
            with("1", Some(1.0), Some(0.2), false),    // throttled 20%
            with("2", None, None, true),               // no energy figure; degraded link
            with("3", Some(9.0), Some(0.5), true),     // failed: left out
            run("a", "4", 1.0),                        // no telemetry
        ];
        let checks = [None, None, None, None, Some(Check::Incomplete), None];
        let entries: Vec<Judged> = data.iter().zip(checks).map(|(entry, check)| Judged { entry, check }).collect();
        let rows = layout(&entries, Grouping::Bench);
        let t = energy(&entries, &rows, Rule::Original);
        assert_eq!(t.rows.len(), 1);
        assert_eq!((t.rows[0].joules_per_item.n, t.rows[0].joules_per_item.mean), (3, Some(1.75 / 3.0)));
        assert_eq!(t.rows[0].items_per_watt.mean, Some(7.0 / 3.0));
        let devices: Vec<(&str, Option<f64>)> =
            t.per_gpu.iter().map(|r| (r.device.as_deref().unwrap(), r.joules_per_item.mean)).collect();
        assert_eq!(devices, [("0", Some(0.375)), ("1", Some(1.0))]);
        let flags = flagged(&entries, &rows, Rule::Original);
        let got: Vec<(Option<&str>, Option<f64>, bool)> =
            flags.iter().map(|f| (f.device.as_deref(), f.throttled_share, f.degraded_link)).collect();
        assert_eq!(
            got,
            [(Some("1"), Some(0.2), false), (Some("2"), None, true)],
            "0.5% is not flagged; failed left out"
        );
    }

    #[test]
    fn no_telemetry_gives_empty_tables() {
        let data = [run("a", "0", 1.0)];
        let entries: Vec<Judged> = data.iter().map(|entry| Judged { entry, check: None }).collect();
        let rows = layout(&entries, Grouping::Bench);
        assert_eq!(energy(&entries, &rows, Rule::Original), EnergyTables::default());
        assert!(flagged(&entries, &rows, Rule::Original).is_empty());
        assert!(sampled(&entries, &rows, Rule::Original, &super::super::source::Disk).is_empty());
    }
}
