//! The history as an SVG chart (plotters): the metric over time, a line per
//! bench, a dot per run; each bench relative to its own median by default
//! ([`Scale`]), so that a drop of a slow bench shows beside a fast one.

use super::history::History;
use super::scale::Scale;
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

/// Draws `history` on the y axis `scale` as a self-contained SVG document.
pub fn chart(history: &History, scale: Scale) -> Result<String, ChartError> {
    let mut out = String::new();
    draw(history, scale, &mut out).map_err(|e| ChartError(e.to_string()))?;
    Ok(out)
}

fn draw(history: &History, scale: Scale, out: &mut String) -> Result<(), Box<dyn std::error::Error>> {
    // Each series' points as drawn: (time, value over the series' divisor).
    let drawn: Vec<Vec<(f64, f64)>> = history
        .series
        .iter()
        .map(|s| {
            let divisor = scale.divisor(s);
            s.points.iter().filter(|p| p.value.is_finite()).map(|p| (p.at as f64, p.value / divisor)).collect()
        })
        .collect();
    let points = || drawn.iter().flatten();
    let (t0, t1) = points().fold((f64::MAX, f64::MIN), |(lo, hi), p| (lo.min(p.0), hi.max(p.0)));
    let (t0, t1) = if t0 > t1 { (0.0, 1.0) } else { (t0 - 3600.0, t1 + 3600.0) };
    let top = points().map(|p| p.1).fold(0.0, f64::max).max(f64::MIN_POSITIVE) * 1.1;
    let width = 900 + LEGEND;
    let root = SVGBackend::with_string(out, (width, 420)).into_drawing_area();
    root.fill(&WHITE)?;
    let (plot, legend) = root.split_horizontally(width - LEGEND);
    let caption = match scale {
        Scale::Relative => format!("{}: {} over time, each bench relative to its median", history.system, history.unit),
        Scale::Absolute => format!("{}: {} over time", history.system, history.unit),
    };
    let mut c = ChartBuilder::on(&plot)
        .caption(caption, ("sans-serif", 18))
        .margin(10)
        .x_label_area_size(30)
        .y_label_area_size(60)
        .build_cartesian_2d(t0..t1, 0.0..top)?;
    c.configure_mesh().x_labels(6).x_label_formatter(&|x| date(*x)).y_desc(scale.axis(history.unit)).draw()?;
    for (k, (s, xy)) in history.series.iter().zip(&drawn).enumerate() {
        let colour = Palette99::pick(k);
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
            values: vec![value],
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
        let svg = chart(&h, Scale::Absolute).unwrap();
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"), "{svg}");
        assert_eq!(
            svg.lines().filter(|l| l.starts_with("<polyline") && l.contains("stroke-width=\"2\"")).count(),
            2,
            "{svg}"
        );
        assert!(svg.contains("2023-11-1"), "dates on the x axis");
        assert!(svg.contains("node &lt;7&gt; &amp; co"), "text escaped");
        assert!(chart(&history("empty", Metric::ItemsPerSecond, vec![]), Scale::Relative).unwrap().starts_with("<svg"));
    }

    #[test]
    fn by_default_a_drop_of_a_slow_bench_shows_beside_a_fast_one() {
        let point = |run: i64, value: f64| Point {
            run,
            run_ids: String::new(),
            started: String::new(),
            at: 1_700_000_000 + run * 86_400,
            n: 1,
            value,
            values: vec![value],
        };
        let mut points = Vec::new();
        for run in 0..6 {
            points.push(("fast".to_string(), point(run, 300_000.0)));
            // The slow bench drops 15% at its last run.
            points.push(("slow".to_string(), point(run, if run == 5 { 1.7 } else { 2.0 })));
        }
        let h = history("s", Metric::ItemsPerSecond, points);
        // The slow line's heights on the page (y grows downwards).
        let heights = |svg: &str| -> Vec<f64> {
            let line = svg.lines().filter(|l| l.starts_with("<polyline") && l.contains("stroke-width=\"2\"")).nth(1);
            let points = line.and_then(|l| l.split("points=\"").nth(1)).and_then(|p| p.split('"').next()).unwrap();
            points.split(' ').filter_map(|xy| xy.split(',').nth(1)?.parse().ok()).collect()
        };
        let relative = chart(&h, Scale::Relative).unwrap();
        assert!(relative.contains("relative to the bench&apos;s median"), "the axis says what it shows");
        let slow = heights(&relative);
        let drop = slow[5] - slow[4];
        assert!(drop > 20.0, "the 15% drop is {drop} pixels: {slow:?}");
        let absolute = heights(&chart(&h, Scale::Absolute).unwrap());
        assert!(absolute[5] - absolute[4] < 1.0, "on one linear axis it is invisible: {absolute:?}");
    }
}
