//! The history page: a metric of one system over time, a line per config
//! (or bench) with a dot per run, each relative to its own median unless
//! the page asks for the absolute values, the runs judged regressions
//! marked in red (and named in the legend), zoomable on time; and a row
//! per config: its runs, its last run linked, and its regressions.

use super::form::{form, Field, Input};
use super::layout::{empty, Shown, EMPTY_STORE};
use super::table::{heading, table, when, Cell};
use crate::serve::data::history::HistoryPage;
use crate::store::query::history::History;
use crate::store::query::render::short;
use crate::store::query::scale::Scale;
use mlb_judge::charts::{embed, Chart, Kind, Point, Series, XAxis};

/// Height of the chart's plot, in pixels.
const CHART_HEIGHT: u32 = 380;

const METRICS: [(&str, &str); 3] =
    [("items/s", "items/s"), ("energy/item", "energy per item"), ("score", "score (x first run)")];

const SCALES: [(&str, &str); 2] = [("relative", "each bench / its median"), ("absolute", "absolute values")];

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
    /// `scale`: how the chart draws the values.
    pub scale: &'a str,
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
        Field { label: "Chart", name: "scale", value: asked.scale, input: Input::Choice(&SCALES) },
    ];
    form("/history", &fields)
}

/// The chart: a line per series (each value over its series' divisor of
/// `scale`), then the regressions as red dots.
fn chart(h: &History, scale: Scale, regression: &dyn Fn(usize, usize) -> Option<String>) -> Chart {
    let title = match scale {
        Scale::Relative => format!("{} of {} over time, each relative to its median", h.unit, h.system),
        Scale::Absolute => format!("{} of {} over time", h.unit, h.system),
    };
    let mut chart = Chart::new(title, XAxis::Dates, CHART_HEIGHT);
    chart.y_name = scale.axis(h.unit);
    chart.unit = match scale {
        Scale::Relative => "x median".into(),
        Scale::Absolute => h.unit.to_string(),
    };
    chart.y_from_zero = false;
    let mut flagged = Vec::new();
    for (s, series) in h.series.iter().enumerate() {
        let divisor = scale.divisor(series);
        let mut points = Vec::new();
        for (i, p) in series.points.iter().enumerate() {
            let x = p.at as f64 * 1000.0;
            let y = p.value / divisor;
            let relative = match scale {
                Scale::Relative => format!(" ({} x its median)", short(Some(y))),
                Scale::Absolute => String::new(),
            };
            let tip = format!(
                "{}\n{}: {} {}{relative}\nrun {} ({} instances)",
                series.label,
                when(&p.started),
                short(Some(p.value)),
                h.unit,
                p.run,
                p.n
            );
            if let Some(why) = regression(s, i) {
                flagged.push(Point { tip: Some(format!("{tip}\nregression: {why}")), ..Point::at(x, y) });
            }
            points.push(Point { tip: Some(tip), ..Point::at(x, y) });
        }
        chart.series.push(Series { name: series.label.clone(), kind: Kind::Line, points });
    }
    if !flagged.is_empty() {
        chart.series.push(Series { name: "regression".into(), kind: Kind::Flags, points: flagged });
    }
    chart
}

/// The page's content: the pickers, the chart and the points.
pub fn content(asked: &Asked, known: &[String], shown: Shown<HistoryPage>, query: &str) -> String {
    let mut out = pickers(asked, known);
    let page = match shown {
        _ if known.is_empty() => return out + &empty(EMPTY_STORE),
        Shown::Nothing => return out + &empty("Pick a system to see its history."),
        Shown::Refused(why) => return out + &empty(why),
        Shown::Data(page) => page,
    };
    let h = &page.history;
    // A point is a regression when the data marks its run in its series.
    let regression = |s: usize, i: usize| {
        let (label, run) = (&h.series[s].label, h.series[s].points[i].run);
        h.regressions
            .iter()
            .find(|r| r.label == *label && r.run == run)
            .map(|r| format!("{:+.1}% from the runs before", r.change_percent))
    };
    let regression: &dyn Fn(usize, usize) -> Option<String> = &regression;
    if h.series.iter().all(|s| s.points.is_empty()) {
        out.push_str(&empty("No run of this system matches the filter."));
        return out;
    }
    out.push_str(&embed::mount(&chart(h, page.scale, regression)));
    // A row per series (the points themselves are the CSV's: a table of
    // thousands of rows would take the browser seconds to lay out).
    out.push_str(&heading(&format!("{} of {}, per config (every run: CSV)", h.unit, h.system), "/history", query));
    let mut rows = Vec::new();
    for (s, series) in h.series.iter().enumerate() {
        let (Some(first), Some(last)) = (series.points.first(), series.points.last()) else { continue };
        let flagged: Vec<String> = (0..series.points.len())
            .filter_map(|i| regression(s, i).map(|why| format!("run {}: {why}", series.points[i].run)))
            .collect();
        let verdict = match flagged.is_empty() {
            true => Cell::text("none"),
            false => Cell::text(&flagged.join("; ")).marked("regression"),
        };
        rows.push(vec![
            Cell::text(&series.label),
            Cell::count(series.points.len()),
            Cell::time(Some(&first.started)),
            Cell::link(&format!("/runs/{}", last.run), &last.run.to_string()),
            Cell::time(Some(&last.started)),
            Cell::figure(Some(last.value)),
            verdict,
        ]);
    }
    let last = format!("last {}", h.unit);
    let headers = ["config", "runs", "first", "last run", "started", &last, "regressions"];
    out.push_str(&table("series", &headers, rows));
    out
}
