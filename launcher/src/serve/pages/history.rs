//! The history page: a metric of one system over time, a line per config
//! (or bench) with a dot per run, the runs judged regressions marked in
//! red (and named in the legend), zoomable on time; and the points as a
//! table, each run linked to its page.

use super::form::{form, Field, Input};
use super::layout::{empty, EMPTY_STORE};
use super::table::{heading, table, when, Cell};
use crate::charts::{embed, Chart, Kind, Point, Series, XAxis};
use crate::serve::data::history::HistoryPage;
use crate::store::query::history::History;
use crate::store::query::render::short;

/// Height of the chart's plot, in pixels.
const CHART_HEIGHT: u32 = 380;

const METRICS: [(&str, &str); 3] =
    [("items/s", "items/s"), ("energy/item", "energy per item"), ("score", "score (x first run)")];

/// What the page was asked, as its URL holds it.
pub struct Asked<'a> {
    /// `system`.
    pub system: &'a str,
    /// `bench`.
    pub bench: &'a str,
    /// `config`.
    pub config: &'a str,
    /// `metric`.
    pub metric: &'a str,
    /// `last`: how many runs, newest.
    pub last: &'a str,
}

fn pickers(asked: &Asked, known: &[String]) -> String {
    let mut systems: Vec<(&str, &str)> = vec![("", "(pick one)")];
    systems.extend(known.iter().map(|s| (s.as_str(), s.as_str())));
    let fields = [
        Field { label: "System", name: "system", value: asked.system, input: Input::Choice(&systems) },
        Field { label: "Bench", name: "bench", value: asked.bench, input: Input::Text("every bench") },
        Field { label: "Config", name: "config", value: asked.config, input: Input::Text("{\"batch_size\":64}") },
        Field { label: "Metric", name: "metric", value: asked.metric, input: Input::Choice(&METRICS) },
        Field { label: "Last runs", name: "last", value: asked.last, input: Input::Text("all") },
    ];
    form("/history", &fields)
}

/// The chart: a line per series, then the regressions as red dots.
fn chart(h: &History, regression: &dyn Fn(usize, usize) -> Option<String>) -> Chart {
    let mut chart = Chart::new(format!("{} of {} over time", h.unit, h.system), XAxis::Dates, CHART_HEIGHT);
    chart.y_name = h.unit.to_string();
    chart.unit = h.unit.to_string();
    chart.y_from_zero = false;
    let mut flagged = Vec::new();
    for (s, series) in h.series.iter().enumerate() {
        let mut points = Vec::new();
        for (i, p) in series.points.iter().enumerate() {
            let x = p.at as f64 * 1000.0;
            let tip = format!(
                "{}\n{}: {} {}\nrun {} ({} instances)",
                series.label,
                when(&p.started),
                short(Some(p.value)),
                h.unit,
                p.run,
                p.n
            );
            if let Some(why) = regression(s, i) {
                flagged.push(Point { tip: Some(format!("{tip}\nregression: {why}")), ..Point::at(x, p.value) });
            }
            points.push(Point { tip: Some(tip), ..Point::at(x, p.value) });
        }
        chart.series.push(Series { name: series.label.clone(), kind: Kind::Line, points });
    }
    if !flagged.is_empty() {
        chart.series.push(Series { name: "regression".into(), kind: Kind::Flags, points: flagged });
    }
    chart
}

/// What the page shows under its pickers.
pub enum Shown<'a> {
    /// No system was asked yet.
    Nothing,
    /// The history asked for.
    History(&'a HistoryPage),
    /// Why the query has no history.
    Refused(&'a str),
}

/// The page's content: the pickers, the chart and the points.
pub fn content(asked: &Asked, known: &[String], shown: Shown, query: &str) -> String {
    let mut out = pickers(asked, known);
    let page = match shown {
        _ if known.is_empty() => return out + &empty(EMPTY_STORE),
        Shown::Nothing => return out + &empty("Pick a system to see its history."),
        Shown::Refused(why) => return out + &empty(why),
        Shown::History(page) => page,
    };
    let h = &page.history;
    // A point is a regression when the data marks its run in its series.
    let regression = |s: usize, i: usize| {
        let (label, run) = (&h.series[s].label, h.series[s].points[i].run);
        page.regressions
            .iter()
            .find(|r| r.label == *label && r.run == run)
            .map(|r| format!("{:+.1}% from the runs before", r.change_percent))
    };
    let regression: &dyn Fn(usize, usize) -> Option<String> = &regression;
    if h.series.iter().all(|s| s.points.is_empty()) {
        out.push_str(&empty("No run of this system matches the filter."));
        return out;
    }
    out.push_str(&embed::mount(&chart(h, regression)));
    out.push_str(&heading(&format!("{} of {}, per run", h.unit, h.system), "/history", query));
    let mut rows = Vec::new();
    for (s, series) in h.series.iter().enumerate() {
        for (i, p) in series.points.iter().enumerate() {
            let verdict = match regression(s, i) {
                Some(why) => Cell::text(&format!("regression: {why}")).marked("regression"),
                None => Cell::text(""),
            };
            rows.push(vec![
                Cell::text(&series.label),
                Cell::link(&format!("/runs/{}", p.run), &p.run.to_string()),
                Cell::time(Some(&p.started)),
                Cell::count(p.n),
                Cell::figure(Some(p.value)),
                verdict,
            ]);
        }
    }
    let headers = ["config", "run", "started", "n", h.unit, "verdict"];
    out.push_str(&table("points", &headers, rows));
    out
}
