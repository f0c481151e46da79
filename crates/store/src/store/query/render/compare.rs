//! `mlb db compare` printed: the matrix (rows benches, columns systems, as
//! Lambda publishes its tables) and one summary per system.

use super::super::matrix::{Cell, Matrix, Metric};
use super::{csv_number, csv_text, json, short, Format};
use mlb_present::{Body, Document};

/// The summary rows of the CSV, after the benches: their first cell.
pub const CSV_SUMMARY: [&str; 3] = ["(score)", "(items/s per dollar)", "(items/s per watt)"];

/// `matrix` in `format`.
pub fn render(matrix: &Matrix, format: Format) -> String {
    match format {
        Format::Json => json(matrix),
        Format::Csv => csv(matrix),
    }
}

/// Rows benches, columns systems, each cell the metric's value at full
/// precision (empty where a system has none); then the per-system score,
/// items/s per dollar and per watt, relative to the reference.
fn csv(m: &Matrix) -> String {
    let mut out = std::iter::once("bench".to_string()).chain(m.systems.iter().map(|s| csv_text(s))).collect::<Vec<_>>();
    let mut text = out.join(",") + "\n";
    for row in &m.rows {
        out = std::iter::once(csv_text(&row.bench))
            .chain(row.cells.iter().map(|c| csv_number(c.as_ref().and_then(|c| c.value))))
            .collect();
        text.push_str(&(out.join(",") + "\n"));
    }
    let summaries: [fn(&super::super::matrix::SystemSummary) -> Option<f64>; 3] =
        [|s| s.score, |s| s.per_dollar, |s| s.per_watt];
    for (label, get) in CSV_SUMMARY.iter().zip(summaries) {
        out = std::iter::once(label.to_string()).chain(m.summaries.iter().map(|s| csv_number(get(s)))).collect();
        text.push_str(&(out.join(",") + "\n"));
    }
    text
}

/// A cell for a person: the value and, unless it is the normalised figure
/// itself, the normalised one in brackets.
fn cell(metric: Metric, c: &Option<Cell>) -> String {
    let Some(c) = c else { return "-".into() };
    match metric {
        Metric::Score => short(c.value),
        _ => format!("{} ({}x)", short(c.value), short(c.normalised)),
    }
}

/// The matrix and the summary per system as a document.
pub fn document(m: &Matrix) -> Document {
    let reference = &m.reference;
    let mut document = Document::new("mlb db compare");
    let headers = std::iter::once("bench".to_string()).chain(m.systems.iter().cloned());
    let rows = m
        .rows
        .iter()
        .map(|r| {
            std::iter::once(r.bench.clone().into()).chain(r.cells.iter().map(|c| cell(m.metric, c).into())).collect()
        })
        .collect();
    document
        .push(format!("{} per bench, normalised to {reference} (x {reference})", m.unit), Body::table(headers, rows));
    let headers = [
        "system".to_string(),
        "price ($)".into(),
        format!("score (x {reference})"),
        format!("items/s per $ (x {reference})"),
        format!("items/s per W (x {reference})"),
        "benches".into(),
    ];
    let rows = m
        .summaries
        .iter()
        .map(|s| {
            [
                s.system.clone(),
                short(s.price),
                short(s.score),
                short(s.per_dollar),
                short(s.per_watt),
                s.benches.to_string(),
            ]
            .map(Into::into)
            .into()
        })
        .collect();
    document.push("Per system", Body::table(headers, rows));
    document
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::query::matrix::{matrix, Figure};
    use std::collections::BTreeMap;

    fn sample() -> Matrix {
        let f = |bench: &str, system: &str, v: f64| Figure {
            bench: bench.into(),
            system: system.into(),
            n: 4,
            items_per_s: Some(v),
            joules_per_item: None,
        };
        let figures = [f("vae", "A", 100.0), f("vae", "B, \"new\"", 150.0), f("wlm|x", "A", 10.0)];
        let systems = vec!["A".to_string(), "B, \"new\"".to_string()];
        matrix(&figures, &systems, "A", Metric::ItemsPerSecond, &BTreeMap::from([("A".into(), 1000.0)]))
    }

    #[test]
    fn csv_has_a_row_per_bench_and_a_column_per_system() {
        let csv = render(&sample(), Format::Csv);
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines[0], "bench,A,\"B, \"\"new\"\"\"");
        assert_eq!(lines[1], "vae,100,150");
        assert_eq!(lines[2], "wlm|x,10,");
        assert_eq!(lines[3], "(score),1,1.5");
        assert_eq!(lines[4], "(items/s per dollar),1,");
        assert_eq!(lines.len(), 6);
    }

    #[test]
    fn tables_show_values_with_their_ratio() {
        let md = mlb_present::markdown::render(&document(&sample()));
        assert!(md.contains("| vae | 100.0 (1.000x) | 150.0 (1.500x) |"), "{md}");
        assert!(md.contains("| wlm\\|x | 10.000 (1.000x) | - |"), "{md}");
        assert!(md.contains("| A | 1000.0 | 1.000 | 1.000 | - | 2 |"), "{md}");
        let text = mlb_present::text::render(&document(&sample()), mlb_present::Width::of(160));
        assert!(text.contains("150.0 (1.500x)"), "{text}");
        let json: serde_json::Value = serde_json::from_str(&render(&sample(), Format::Json)).unwrap();
        assert_eq!(json["rows"][0]["cells"][1]["normalised"], 1.5);
        assert_eq!(json["metric"], "items/s");
    }
}
