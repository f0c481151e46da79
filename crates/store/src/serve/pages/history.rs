//! The history page: a metric of one system over time, a line per config
//! (or bench) with a dot per run, each relative to its own median unless
//! the page asks for the absolute values, the runs judged regressions
//! marked in red (and named in the legend), zoomable on time; and a row
//! per config: its runs, its last run linked, and its regressions.

use super::form::{form, Field, Input};
use super::layout::{empty, Shown, EMPTY_STORE};
use super::table::{heading, table, Cell};
use crate::serve::data::history::HistoryPage;
use crate::store::query::chart::{chart, regression};
use mlb_judge::charts::embed;

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
    if h.series.iter().all(|s| s.points.is_empty()) {
        out.push_str(&empty("No run of this system matches the filter."));
        return out;
    }
    if let Some(k) = page.summarised {
        out.push_str(&format!(
            "<p class=\"lead\">The newest {k} runs of each config: ask Last runs for more (every run: CSV).</p>\n"
        ));
    }
    out.push_str(&embed::mount(&chart(h, page.scale)));
    // A row per series (the points themselves are the CSV's: a table of
    // thousands of rows would take the browser seconds to lay out).
    out.push_str(&heading(&format!("{} of {}, per config (every run: CSV)", h.unit, h.system), "/history", query));
    let mut rows = Vec::new();
    for (s, series) in h.series.iter().enumerate() {
        let (Some(first), Some(last)) = (series.points.first(), series.points.last()) else { continue };
        let flagged: Vec<String> = (0..series.points.len())
            .filter_map(|i| regression(h, s, i).map(|why| format!("run {}: {why}", series.points[i].run)))
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
