//! The history as an SVG chart (plotters): the metric over time, a line per
//! bench, a dot per run.

use super::history::History;
use plotters::prelude::*;

/// Width of the legend, in pixels.
const LEGEND: u32 = 180;

/// Why the chart could not be drawn.
#[derive(Debug, thiserror::Error)]
#[error("cannot draw the history chart: {0}")]
pub struct ChartError(String);

/// The date of `secs` since the epoch, for the x axis.
fn date(secs: f64) -> String {
    chrono::DateTime::from_timestamp(secs as i64, 0).map_or_else(String::new, |d| d.format("%Y-%m-%d").to_string())
}

/// Draws `history` as a self-contained SVG document.
pub fn chart(history: &History) -> Result<String, ChartError> {
    let mut out = String::new();
    draw(history, &mut out).map_err(|e| ChartError(e.to_string()))?;
    Ok(out)
}

fn draw(history: &History, out: &mut String) -> Result<(), Box<dyn std::error::Error>> {
    let points = || history.series.iter().flat_map(|s| &s.points);
    let (t0, t1) = points().fold((f64::MAX, f64::MIN), |(lo, hi), p| (lo.min(p.at as f64), hi.max(p.at as f64)));
    let (t0, t1) = if t0 > t1 { (0.0, 1.0) } else { (t0 - 3600.0, t1 + 3600.0) };
    let top = points().map(|p| p.value).filter(|v| v.is_finite()).fold(0.0, f64::max).max(f64::MIN_POSITIVE) * 1.1;
    let width = 900 + LEGEND;
    let root = SVGBackend::with_string(out, (width, 420)).into_drawing_area();
    root.fill(&WHITE)?;
    let (plot, legend) = root.split_horizontally(width - LEGEND);
    let caption = format!("{}: {} over time", history.system, history.unit);
    let mut c = ChartBuilder::on(&plot)
        .caption(caption, ("sans-serif", 18))
        .margin(10)
        .x_label_area_size(30)
        .y_label_area_size(60)
        .build_cartesian_2d(t0..t1, 0.0..top)?;
    c.configure_mesh().x_labels(6).x_label_formatter(&|x| date(*x)).y_desc(history.unit).draw()?;
    for (k, s) in history.series.iter().enumerate() {
        let colour = Palette99::pick(k);
        let xy: Vec<(f64, f64)> =
            s.points.iter().filter(|p| p.value.is_finite()).map(|p| (p.at as f64, p.value)).collect();
        c.draw_series(LineSeries::new(xy.iter().copied(), colour.stroke_width(2)))?;
        c.draw_series(xy.iter().map(|&p| Circle::new(p, 3, colour.filled())))?;
        let y = 40 + 18 * k as i32;
        legend.draw(&Circle::new((12, y), 4, colour.filled()))?;
        legend.draw(&Text::new(s.label.clone(), (22, y - 7), ("sans-serif", 13)))?;
    }
    root.present()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::query::history::{history, Point};
    use crate::store::query::Metric;

    #[test]
    fn a_chart_is_one_svg_document_with_a_line_per_bench() {
        let point = |run: i64, at: i64, value: f64| Point {
            run,
            run_ids: String::new(),
            started: String::new(),
            at,
            n: 1,
            value,
        };
        let h = history(
            "node <7> & co",
            Metric::ItemsPerSecond,
            vec![
                ("vae".into(), point(1, 1_700_000_000, 10.0)),
                ("vae".into(), point(2, 1_700_086_400, 12.0)),
                ("wlm \"x\"".into(), point(1, 1_700_000_000, 3.0)),
            ],
        );
        let svg = chart(&h).unwrap();
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"), "{svg}");
        assert_eq!(
            svg.lines().filter(|l| l.starts_with("<polyline") && l.contains("stroke-width=\"2\"")).count(),
            2,
            "{svg}"
        );
        assert!(svg.contains("2023-11-1"), "dates on the x axis");
        assert!(svg.contains("node &lt;7&gt; &amp; co"), "text escaped");
        assert!(chart(&history("empty", Metric::ItemsPerSecond, vec![])).unwrap().starts_with("<svg"));
    }
}
