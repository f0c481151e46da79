//! The history's chart, drawn by the vendored charting library
//! ([`mlb_judge::charts`]): the metric over time, a line per config (or
//! bench) with a dot per run, each relative to its own median unless the
//! scale is absolute ([`Scale`]: a drop of a slow bench shows beside a fast
//! one), the runs judged regressions as red dots named in the legend,
//! zoomable on time. The history page of `mlb serve` shows it; `mlb db
//! history` writes it as a self-contained page ([`page`]).

use super::history::History;
use super::render::{short, when};
use super::scale::Scale;
use mlb_judge::charts::{embed, Chart, Kind, Point, Series, XAxis};
use mlb_present::html::Page;

/// Height of the chart's plot, in pixels.
const HEIGHT: u32 = 380;

/// Why point `i` of series `s` of `h` is a regression (its change from the
/// runs before), when the history marks its run in its series.
pub fn regression(h: &History, s: usize, i: usize) -> Option<String> {
    let (label, run) = (&h.series[s].label, h.series[s].points[i].run);
    h.regressions
        .iter()
        .find(|r| r.label == *label && r.run == run)
        .map(|r| format!("{:+.1}% from the runs before", r.change_percent))
}

/// The chart of `h`: a line per series (each value over its series'
/// divisor of `scale`), then the regressions as red dots.
pub fn chart(h: &History, scale: Scale) -> Chart {
    let title = match scale {
        Scale::Relative => format!("{} of {} over time, each relative to its median", h.unit, h.system),
        Scale::Absolute => format!("{} of {} over time", h.unit, h.system),
    };
    let mut chart = Chart::new(title, XAxis::Dates, HEIGHT);
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
            if let Some(why) = regression(h, s, i) {
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

/// The chart of `h` as one self-contained HTML page in the one page frame,
/// carrying the library under the policy that forbids every request (as
/// the HTML report does): it works air-gapped and loads nothing.
pub fn page(h: &History, scale: Scale) -> String {
    let title = format!("mlb db history: {}", h.system);
    let (head, body, after) = (embed::csp_meta(), embed::mount(&chart(h, scale)), embed::scripts());
    mlb_present::html::page(Page { title: &title, head: &head, body: &body, after: &after, ..Page::default() })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::query::history::{history, Point as HistoryPoint};
    use crate::store::query::Metric;

    fn point(run: i64, value: f64) -> HistoryPoint {
        HistoryPoint {
            run,
            run_ids: String::new(),
            started: String::new(),
            at: 1_700_000_000 + run * 86_400,
            n: 1,
            value,
            values: vec![value],
        }
    }

    /// A fast bench and a slow one that drops 15% at its last run.
    fn fast_and_slow() -> History {
        let mut points = Vec::new();
        for run in 0..6 {
            points.push(("fast".to_string(), point(run, 300_000.0)));
            points.push(("slow".to_string(), point(run, if run == 5 { 1.7 } else { 2.0 })));
        }
        history("node <7>", Metric::ItemsPerSecond, points)
    }

    fn heights(chart: &Chart, series: usize) -> Vec<f64> {
        chart.to_json()["option"]["series"][series]["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["value"][1].as_f64().unwrap())
            .collect()
    }

    #[test]
    fn by_default_a_drop_of_a_slow_bench_shows_beside_a_fast_one() {
        let h = fast_and_slow();
        let relative = chart(&h, Scale::Relative);
        assert_eq!(heights(&relative, 0), [1.0; 6]);
        let slow = heights(&relative, 1);
        assert!((slow[5] - 0.85).abs() < 1e-9 && slow[..5].iter().all(|v| *v == 1.0), "{slow:?}");
        assert_eq!(heights(&chart(&h, Scale::Absolute), 1)[5], 1.7, "absolute values, as asked");
    }

    #[test]
    fn the_page_is_self_contained_in_the_one_frame() {
        let html = page(&fast_and_slow(), Scale::Relative);
        assert!(html.starts_with(mlb_present::html::START) && html.contains("<title>mlb db history: node &lt;7&gt;"));
        assert!(html.find(&embed::csp_meta()).unwrap() < html.find("<title>").unwrap(), "the policy comes first");
        let markup = html.split(&embed::scripts()).next().unwrap();
        assert_eq!(markup.matches("<div class=\"chart\">").count(), 1, "one chart");
        assert!(html.contains(&embed::scripts()) && !html.contains("<script src"), "it carries the library");
    }
}
