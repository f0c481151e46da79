//! The matrix laid out for a person: the slowdowns victim by aggressor, the
//! rates alone, where each slot sits, and how to read them.

use super::matrix::{Cell as Measured, Interference};
use mlb_present::{Body, Cell, Document, Mark};
use mlb_run::host::Position;

/// The title of the document and of the heat map's page.
pub fn title(matrix: &Interference) -> String {
    format!("mlb interfere: {}", matrix.suite)
}

/// A share as a signed percentage with one decimal: `+12.3%`.
pub fn percent(share: f64) -> String {
    format!("{:+.1}%", share * 100.0)
}

/// A cell's interval: `[+5.1%, +19.0%]`, or `no interval`.
pub fn interval(cell: &Measured) -> String {
    match cell.slowdown_ci {
        Some((low, high)) => format!("[{}, {}]", percent(low), percent(high)),
        None => "no interval".into(),
    }
}

/// A cell as the table shows it: the slowdown and its interval, marked
/// when beyond the noise (a loss `warn`, a gain `pass`); `-` when not measured.
fn shown(cell: Option<&Measured>) -> Cell {
    let Some(c) = cell else { return "-".into() };
    let Some(slowdown) = c.slowdown else { return "no rate".into() };
    let text = format!("{} {}", percent(slowdown), interval(c));
    match (c.significant, slowdown > 0.0) {
        (true, true) => Cell::marked(text, Mark::Warn),
        (true, false) => Cell::marked(text, Mark::Pass),
        (false, _) => text.into(),
    }
}

/// The table of slowdowns: a row per victim, a column per aggressor.
pub fn slowdowns(matrix: &Interference) -> Body {
    let aggressors = matrix.aggressors();
    let headers = std::iter::once("victim \\ aggressor".to_string()).chain(aggressors.iter().map(|a| a.to_string()));
    let rows = matrix
        .victims()
        .into_iter()
        .map(|v| std::iter::once(Cell::from(v)).chain(aggressors.iter().map(|a| shown(matrix.cell(v, a)))).collect())
        .collect();
    Body::table(headers, rows)
}

/// A figure with three significant decimals, or `-`.
fn figure(v: Option<f64>) -> String {
    v.map_or_else(|| "-".into(), |v| format!("{v:.3}"))
}

/// The rates alone: a row per workload.
fn alone(matrix: &Interference) -> Body {
    let rows = matrix
        .alone
        .iter()
        .map(|a| {
            let ci = a.rates.ci95.map_or_else(|| "-".into(), |(l, h)| format!("{l:.3} .. {h:.3}"));
            vec![
                a.workload.as_str().into(),
                a.rates.count.to_string().into(),
                figure(a.rates.mean).into(),
                figure(a.rates.sd).into(),
                ci.into(),
            ]
        })
        .collect();
    Body::table(["workload", "n", "items/s", "sd", "95% CI"], rows)
}

/// Where each slot the matrix used sits.
fn slots(matrix: &Interference) -> Body {
    let mut seen: Vec<&Position> = Vec::new();
    for c in &matrix.cells {
        for p in std::iter::once(&c.placement.victim).chain(&c.placement.aggressors) {
            if !seen.iter().any(|s| s.slot == p.slot) {
                seen.push(p);
            }
        }
    }
    seen.sort_by_key(|p| p.slot);
    let none = |v: &Option<String>| v.clone().unwrap_or_else(|| "-".into());
    let rows = seen
        .into_iter()
        .map(|p| {
            let numa: Vec<String> = p.numa_nodes.iter().map(usize::to_string).collect();
            vec![
                p.slot.to_string().into(),
                p.cpus.as_str().into(),
                numa.join(",").into(),
                p.gpu.to_string().into(),
                none(&p.pci_address).into(),
                none(&p.pcie_switch).into(),
            ]
        })
        .collect();
    Body::table(["slot", "CPUs", "NUMA", "GPU", "PCI address", "PCIe switch"], rows)
}

/// How to read the matrix, and the cells whose aggressors did not cover
/// their victim's whole run.
fn notes(matrix: &Interference) -> Body {
    let mut notes = vec![
        format!(
            "Each cell is 1 - paired rate / alone rate of the row's workload (slot 0) beside the column's (slot 1), \
             over {} runs a side; [low, high] is its {:.0}% interval (Fieller's theorem). A marked cell is beyond the \
             noise: its interval excludes 0.",
            matrix.repeats,
            matrix.level * 100.0
        ),
        "The mix column runs every workload at once, one a slot.".to_string(),
    ];
    for c in &matrix.cells {
        if let Some(share) = c.overlap.filter(|s| *s < 0.95) {
            notes.push(format!(
                "{} beside {}: the aggressors ran during {:.0}% of a run of the victim only; the slowdown is understated",
                c.victim,
                c.aggressor,
                share * 100.0
            ));
        }
    }
    Body::Notes(notes)
}

/// The whole document.
pub fn document(matrix: &Interference) -> Document {
    let mut doc = Document::new(title(matrix));
    doc.push("Slowdown beside a neighbour (victim \\ aggressor)", slowdowns(matrix));
    doc.push("Rates alone", alone(matrix));
    doc.push("Slots", slots(matrix));
    doc.push("Notes", notes(matrix));
    doc
}

#[cfg(test)]
mod tests {
    use super::super::matrix::tests::{cell, matrix};
    use super::super::matrix::MIX;
    use super::*;

    #[test]
    fn the_table_has_a_row_per_victim_and_a_column_per_aggressor_then_the_mix() {
        let cells = vec![
            cell("a", "b", &[100.0, 101.0, 99.0], &[80.0, 81.0, 79.0]),
            cell("b", "a", &[10.0, 12.0, 8.0], &[10.0, 11.0, 9.0]),
            cell("a", MIX, &[100.0, 101.0, 99.0], &[70.0, 71.0, 69.0]),
        ];
        let matrix = matrix("s", &["a", "b"], cells);
        let Body::Table(table) = slowdowns(&matrix) else { panic!() };
        assert_eq!(table.headers, ["victim \\ aggressor", "a", "b", MIX]);
        assert_eq!(table.rows[0][0].text, "a");
        assert_eq!(table.rows[0][1].text, "-", "a is not its own aggressor");
        assert!(table.rows[0][2].text.starts_with("+20.0% [+"), "{:?}", table.rows[0][2]);
        assert_eq!(table.rows[0][2].mark, Some(Mark::Warn));
        assert_eq!((table.rows[1][1].text.as_str(), table.rows[1][1].mark), ("+0.0% [-63.6%, +31.5%]", None));
        assert_eq!(table.rows[1][3].text, "-");
        let text = mlb_present::render(&document(&matrix), mlb_present::Format::Text, mlb_present::Width::of(100));
        assert!(text.contains("Rates alone") && text.contains("Fieller"), "{text}");
    }
}
