//! `mlb db history` printed: one line per bench and run, oldest first, the
//! runs that regressed marked.

use super::super::history::{History, Point, Series};
use super::{csv_number, csv_text, json, short, Format};
use mlb_present::{Body, Cell, Document, Mark};

/// `history` in `format`.
pub fn render(history: &History, format: Format) -> String {
    match format {
        Format::Json => json(history),
        Format::Csv => csv(history),
    }
}

/// Whether the point `p` of `s` regressed.
fn regressed(h: &History, s: &Series, p: &Point) -> bool {
    h.regressions.iter().any(|r| r.label == s.label && r.run == p.run)
}

fn csv(h: &History) -> String {
    let mut out = String::from("bench,started,run,run_ids,n,value,regression\n");
    for s in &h.series {
        for p in &s.points {
            let cells = [
                csv_text(&s.label),
                csv_text(&p.started),
                p.run.to_string(),
                csv_text(&p.run_ids),
                p.n.to_string(),
                csv_number(Some(p.value)),
                regressed(h, s, p).to_string(),
            ];
            out.push_str(&(cells.join(",") + "\n"));
        }
    }
    out
}

/// The history as a document: a row per bench and run, a regression marked.
pub fn document(h: &History) -> Document {
    let headers = ["bench", "started", "run", "run ids", "n"]
        .iter()
        .map(|s| s.to_string())
        .chain([h.unit.to_string(), "regression".to_string()]);
    let rows = h
        .series
        .iter()
        .flat_map(|s| {
            s.points.iter().map(|p| {
                let regression =
                    if regressed(h, s, p) { Cell::marked("REGRESSION", Mark::Fail) } else { Cell::from("") };
                let cells =
                    [&s.label, &p.started, &p.run.to_string(), &p.run_ids, &p.n.to_string(), &short(Some(p.value))];
                cells.into_iter().map(|c| Cell::from(c.as_str())).chain([regression]).collect()
            })
        })
        .collect();
    let mut document = Document::new("mlb db history");
    document.push(format!("{} over time", h.system), Body::table(headers, rows));
    document
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::query::history::{history, Point};
    use crate::store::query::Metric;

    #[test]
    fn one_line_per_run_and_bench_oldest_first() {
        let p = |run: i64, at: i64, value: f64| Point {
            run,
            run_ids: format!("{run}"),
            started: format!("2026-01-0{run}T00:00:00Z"),
            at,
            n: 2,
            value,
            values: vec![value - 0.01, value + 0.01],
        };
        let points = vec![("vae".into(), p(2, 20, 2.5)), ("vae".into(), p(1, 10, 2.4)), ("vae".into(), p(3, 30, 1.5))];
        let h = history("A", Metric::ItemsPerSecond, points);
        let csv = render(&h, Format::Csv);
        assert_eq!(
            csv,
            "bench,started,run,run_ids,n,value,regression\nvae,2026-01-01T00:00:00Z,1,1,2,2.4,false\n\
             vae,2026-01-02T00:00:00Z,2,2,2,2.5,false\nvae,2026-01-03T00:00:00Z,3,3,2,1.5,true\n"
        );
        let md = mlb_present::markdown::render(&document(&h));
        assert!(md.contains("| bench | started | run | run ids | n | items/s | regression |"), "{md}");
        assert!(md.find("2026-01-01").unwrap() < md.find("2026-01-02").unwrap());
        assert_eq!(md.matches("REGRESSION").count(), 1, "{md}");
    }
}
