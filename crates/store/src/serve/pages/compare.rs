//! The compare page: pickers for the systems, benches, metric and
//! reference; the matrix of `mlb db compare` (benches x systems, each cell
//! its value and, normalised to the reference, how many times better); the
//! summary per system; and a bar chart of the normalised figures, a bar
//! per system for each bench, the reference's level dashed.

use super::form::{form, Field, Input};
use super::layout::{empty, Shown, EMPTY_STORE};
use super::table::{heading, table, Cell};
use crate::store::query::matrix::{Matrix, Metric};
use crate::store::query::render::short;
use mlb_judge::charts::{embed, Chart, Kind, Point, Series, XAxis};
use mlb_present::html::escape;

/// Height of the bar chart's plot, in pixels.
const CHART_HEIGHT: u32 = 360;

/// The metrics a reader can pick, as the query names them.
const METRICS: [(&str, &str); 3] =
    [("items/s", "items/s"), ("energy/item", "energy per item"), ("score", "score (x reference)")];

/// What the page was asked, as its URL holds it (the form shows it back).
pub struct Asked<'a> {
    /// `systems`: names, comma-separated.
    pub systems: &'a str,
    /// `benches`: a bench name or glob.
    pub benches: &'a str,
    /// `metric`.
    pub metric: &'a str,
    /// `reference`.
    pub reference: &'a str,
}

/// The pickers: the systems known to the store are named under them.
fn pickers(asked: &Asked, known: &[String]) -> String {
    let mut references: Vec<(&str, &str)> = vec![("", "the first system")];
    references.extend(asked.systems.split(',').map(str::trim).filter(|s| !s.is_empty()).map(|s| (s, s)));
    let fields = [
        Field { label: "Systems (A,B,...)", name: "systems", value: asked.systems, input: Input::Text("A,B") },
        Field { label: "Benches", name: "benches", value: asked.benches, input: Input::Text("all, or a glob") },
        Field { label: "Metric", name: "metric", value: asked.metric, input: Input::Choice(&METRICS) },
        Field { label: "Reference", name: "reference", value: asked.reference, input: Input::Choice(&references) },
    ];
    let mut out = form("/compare", &fields);
    if !known.is_empty() {
        let names: Vec<String> = known.iter().map(|s| escape(s)).collect();
        out.push_str(&format!("<p class=\"lead\">Systems in the store: {}.</p>\n", names.join(", ")));
    }
    out
}

/// A cell of the matrix: the value and, unless it is the score itself,
/// the normalised figure (`1.25x`).
fn cell(metric: Metric, c: Option<&crate::store::query::matrix::Cell>) -> Cell {
    match c {
        None => Cell::figure(None),
        Some(c) if metric == Metric::Score => Cell::figure(c.value),
        Some(c) => match c.normalised {
            Some(times) => Cell::text(&format!("{} ({}x)", short(c.value), short(Some(times)))),
            None => Cell::figure(c.value),
        },
    }
}

/// The bar chart: per bench, each system's normalised figure.
fn chart(m: &Matrix) -> Chart {
    let benches: Vec<String> = m.rows.iter().map(|r| r.bench.clone()).collect();
    let mut chart =
        Chart::new(format!("{} normalised to {}", m.unit, m.reference), XAxis::Categories(benches), CHART_HEIGHT);
    chart.y_name = format!("x {}", m.reference);
    chart.unit = "x".into();
    chart.reference = Some(1.0);
    for (col, system) in m.systems.iter().enumerate() {
        let points = m
            .rows
            .iter()
            .enumerate()
            .filter_map(|(i, r)| Some(Point::at(i as f64, r.cells[col].as_ref()?.normalised?)))
            .collect();
        chart.series.push(Series { name: system.clone(), kind: Kind::Bars, points });
    }
    chart
}

/// The page's content: the pickers, then the matrix (or why there is none).
pub fn content(asked: &Asked, known: &[String], shown: Shown<Matrix>, query: &str) -> String {
    let mut out = pickers(asked, known);
    let m = match shown {
        _ if known.is_empty() => return out + &empty(EMPTY_STORE),
        Shown::Nothing => return out + &empty("Pick the systems to compare: their names, separated by commas."),
        Shown::Refused(why) => return out + &empty(why),
        Shown::Data(m) => m,
    };
    if m.rows.is_empty() {
        out.push_str(&empty("None of these systems has a run of the benches asked."));
        return out;
    }
    out.push_str(&heading(&format!("{} per bench, normalised to {}", m.unit, m.reference), "/compare", query));
    let headers: Vec<&str> = std::iter::once("bench").chain(m.systems.iter().map(String::as_str)).collect();
    let rows = m.rows.iter().map(|r| {
        std::iter::once(Cell::text(&r.bench)).chain(r.cells.iter().map(|c| cell(m.metric, c.as_ref()))).collect()
    });
    out.push_str(&table("matrix", &headers, rows));
    out.push_str(&embed::mount(&chart(m)));
    out.push_str(&format!("<h2>Per system, over the benches shared with {}</h2>\n", escape(&m.reference)));
    let summary = m.summaries.iter().map(|s| {
        vec![
            Cell::text(&s.system),
            Cell::figure(s.score),
            Cell::figure(s.per_dollar),
            Cell::figure(s.per_watt),
            Cell::count(s.benches),
        ]
    });
    let headers = ["system", "score", "items/s per $", "items/s per W", "benches"];
    out.push_str(&table("summary", &headers, summary));
    out
}
