//! Relative tables: one row per report row, one column per device or node,
//! each cell the column's statistics divided by the best column's; and a
//! flag on every column whose mean is below 90% of the best. The per-GPU
//! tables (docs/report.md, "Algorithm", step 5) and the per-node tables are both made here.

use super::rows::RowKey;
use mlb_figures::Sample;
use serde::Serialize;
use std::collections::BTreeMap;

/// A column below this share of the best column's mean is flagged.
pub const FLAG_BELOW: f64 = 0.9;

/// One (row, column) cell.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Cell {
    /// Statistics of the column's runs.
    pub sample: Sample,
    /// Mean divided by the best column's mean.
    pub rel_mean: Option<f64>,
    /// Min divided by the best column's min.
    pub rel_min: Option<f64>,
    /// Max divided by the best column's max.
    pub rel_max: Option<f64>,
}

/// One row (a config or a bench): a cell per column (`None` where the
/// column has no run).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Row {
    /// Row label.
    pub label: String,
    /// Cells, in the order of the table's columns.
    pub cells: Vec<Option<Cell>>,
}

/// A column below [`FLAG_BELOW`] of the best for a row.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Flag {
    /// Row label.
    pub label: String,
    /// The column: a device (`0`, or `n1/0` when reports come from several
    /// nodes) or a node.
    pub column: String,
    /// Its mean as a share of the best column's mean.
    pub rel_mean: f64,
}

fn ratio(v: Option<f64>, best: f64) -> Option<f64> {
    v.map(|v| v / best).filter(|r| !r.is_nan())
}

/// The rows and flags of a table over `columns` (each a key and the name a
/// flag gives it), from the values of each row of a layout by column key
/// (`values[row][key]`). Rows without a value are left out.
pub fn table<K: Ord>(
    layout: &[RowKey],
    values: &[BTreeMap<K, Vec<f64>>],
    columns: &[(K, String)],
) -> (Vec<Row>, Vec<Flag>) {
    let (mut rows, mut flags) = (Vec::new(), Vec::new());
    for (key, by_column) in layout.iter().zip(values) {
        if by_column.is_empty() {
            continue;
        }
        let label = &key.label;
        let samples: Vec<Option<Sample>> =
            columns.iter().map(|(c, _)| by_column.get(c).map(|v| Sample::of(v))).collect();
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
        for ((_, name), cell) in columns.iter().zip(&cells) {
            if let Some(rel) = cell.and_then(|c| c.rel_mean).filter(|r| *r < FLAG_BELOW) {
                flags.push(Flag { label: label.clone(), column: name.clone(), rel_mean: rel });
            }
        }
        rows.push(Row { label: label.clone(), cells });
    }
    (rows, flags)
}
