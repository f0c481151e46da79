//! SVG charts (plotters' SVG backend): throughput per GPU for each bench,
//! and the spread of the runs of every bench.

use super::super::Report;
use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint, Ranged};
use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;
use std::collections::BTreeMap;

/// Width of the spread chart's legend, in pixels.
const LEGEND_WIDTH: u32 = 110;

/// Size of one per-bench chart, in pixels.
pub const BENCH_CHART: (u32, u32) = (380, 260);

pub(super) type Drawn = Result<(), Box<dyn std::error::Error>>;

/// Draws into an SVG string; a drawing error becomes a short note instead.
pub(super) fn svg(size: (u32, u32), draw: impl FnOnce(&DrawingArea<SVGBackend, Shift>) -> Drawn) -> String {
    let mut out = String::new();
    let result = {
        let root = SVGBackend::with_string(&mut out, size).into_drawing_area();
        draw(&root).and_then(|()| root.present().map_err(Into::into))
    };
    match result {
        Ok(()) => out,
        Err(e) => format!("<p>chart not drawn: {e}</p>"),
    }
}

/// Short numbers for axis labels: 1.2k, 3.4M.
pub(super) fn short(v: f64) -> String {
    let a = v.abs();
    if a >= 1e6 {
        format!("{:.1}M", v / 1e6)
    } else if a >= 1e3 {
        format!("{:.1}k", v / 1e3)
    } else if a >= 10.0 || a == 0.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.2}")
    }
}

/// An x axis of `n` unit-wide slots (`0.0..n`), labelled at each slot's
/// centre (0.5, 1.5, ...): one slot per bar or per bench.
struct Slots {
    inner: RangedCoordf64,
    n: usize,
}

impl Slots {
    fn new(n: usize) -> Self {
        Slots { inner: (0.0..n.max(1) as f64).into(), n }
    }
}

impl Ranged for Slots {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        self.inner.map(value, limit)
    }

    fn key_points<H: KeyPointHint>(&self, hint: H) -> Vec<f64> {
        if hint.weight().allow_light_points() {
            return Vec::new();
        }
        (0..self.n).map(|i| i as f64 + 0.5).collect()
    }

    fn range(&self) -> std::ops::Range<f64> {
        self.inner.range()
    }
}

/// One chart per row (config or bench): the mean throughput of each GPU
/// (bar) with the range of its runs (whisker), from the single-GPU reports.
pub fn throughput_per_gpu(report: &Report) -> Vec<(String, String)> {
    let labels: Vec<String> = report.per_gpu.devices.iter().map(|d| d.label()).collect();
    report
        .per_gpu
        .rows
        .iter()
        .map(|row| {
            let bars: Vec<(&str, Bar)> = labels
                .iter()
                .zip(&row.cells)
                .filter_map(|(label, c)| {
                    let s = c.as_ref()?.sample;
                    Some((label.as_str(), Bar { mean: s.mean?, min: s.min?, max: s.max? }))
                })
                .collect();
            (row.label.clone(), svg(BENCH_CHART, |root| gpu_bars(root, &row.label, &bars)))
        })
        .collect()
}

/// One GPU's bar: its mean and the range of its runs.
struct Bar {
    mean: f64,
    min: f64,
    max: f64,
}

fn gpu_bars(root: &DrawingArea<SVGBackend, Shift>, bench: &str, bars: &[(&str, Bar)]) -> Drawn {
    root.fill(&WHITE)?;
    let top = bars.iter().map(|(_, s)| s.max).fold(0.0, f64::max).max(f64::MIN_POSITIVE) * 1.1;
    let n = bars.len();
    let mut chart = ChartBuilder::on(root)
        .caption(bench, ("sans-serif", 18))
        .margin(8)
        .x_label_area_size(30)
        .y_label_area_size(55)
        .build_cartesian_2d(Slots::new(n), 0.0..top)?;
    let label = |x: &f64| bars.get(x.floor() as usize).map_or(String::new(), |(id, _)| format!("GPU {id}"));
    chart
        .configure_mesh()
        .disable_x_mesh()
        .max_light_lines(1)
        .x_label_formatter(&label)
        .y_label_formatter(&|v| short(*v))
        .y_desc("items/s")
        .draw()?;
    let best = bars.iter().map(|(_, s)| s.mean).fold(0.0, f64::max);
    chart.draw_series(bars.iter().enumerate().map(|(i, (_, s))| {
        let color =
            if s.mean < best * super::super::FLAG_BELOW { RGBColor(214, 96, 77) } else { RGBColor(67, 147, 195) };
        let x = i as f64;
        Rectangle::new([(x + 0.2, 0.0), (x + 0.8, s.mean)], color.filled())
    }))?;
    for (i, (_, s)) in bars.iter().enumerate() {
        let x = i as f64 + 0.5;
        let style = BLACK.stroke_width(1);
        chart.draw_series(std::iter::once(PathElement::new(vec![(x, s.min), (x, s.max)], style)))?;
        for y in [s.min, s.max] {
            chart.draw_series(std::iter::once(PathElement::new(vec![(x - 0.1, y), (x + 0.1, y)], style)))?;
        }
    }
    Ok(())
}

/// One chart for all rows: each run's throughput divided by its row's mean
/// (so rows of any scale share an axis), one dot per run, coloured by device.
pub fn spread(report: &Report) -> String {
    let means: BTreeMap<&str, f64> = report
        .rows
        .iter()
        .filter_map(|r| r.sample.mean.filter(|m| m.is_finite()).map(|m| (r.label.as_str(), m)))
        .collect();
    let benches: Vec<&str> = report.rows.iter().map(|r| r.label.as_str()).filter(|l| means.contains_key(l)).collect();
    let mut devices: Vec<&str> = report.runs.iter().map(|r| r.vcd.as_deref().unwrap_or("?")).collect();
    devices.sort_unstable();
    devices.dedup();
    let points: Vec<(f64, f64, usize)> = report
        .runs
        .iter()
        .enumerate()
        .filter_map(|(k, r)| {
            let slot = benches.iter().position(|b| *b == r.label)?;
            let mean = means.get(r.label.as_str()).filter(|m| **m > 0.0)?;
            let jitter = ((k as f64 * 0.618_034).fract() - 0.5) * 0.6;
            let device = devices.iter().position(|d| *d == r.vcd.as_deref().unwrap_or("?")).unwrap_or(0);
            Some((slot as f64 + 0.5 + jitter, r.value / mean, device))
        })
        .collect();
    let n = benches.len();
    let width = (LEGEND_WIDTH + 80 + 90 * n as u32).clamp(600, 1800);
    svg((width, 400), |root| {
        root.fill(&WHITE)?;
        let (plot, legend) = root.split_horizontally(width - LEGEND_WIDTH);
        let lo = points.iter().map(|p| p.1).fold(1.0, f64::min);
        let hi = points.iter().map(|p| p.1).fold(1.0, f64::max);
        let pad = ((hi - lo) * 0.1).max(0.02);
        let mut chart = ChartBuilder::on(&plot)
            .caption("Spread across runs (throughput / bench mean)", ("sans-serif", 18))
            .margin(10)
            .x_label_area_size(30)
            .y_label_area_size(55)
            .build_cartesian_2d(Slots::new(n), (lo - pad)..(hi + pad))?;
        let label = |x: &f64| benches.get(x.floor() as usize).map_or(String::new(), |b| b.to_string());
        chart
            .configure_mesh()
            .disable_x_mesh()
            .max_light_lines(1)
            .x_label_formatter(&label)
            .x_label_style(("sans-serif", 13))
            .y_label_formatter(&|v| format!("{:.0}%", v * 100.0))
            .draw()?;
        chart.draw_series(std::iter::once(PathElement::new(vec![(0.0, 1.0), (n as f64, 1.0)], BLACK.mix(0.5))))?;
        for (d, device) in devices.iter().enumerate() {
            let colour = Palette99::pick(d).mix(0.85);
            let dots = points.iter().filter(|p| p.2 == d).map(|&(x, y, _)| Circle::new((x, y), 3, colour.filled()));
            chart.draw_series(dots)?;
            let y = 50 + 20 * d as i32;
            legend.draw(&Circle::new((12, y), 4, colour.filled()))?;
            legend.draw(&Text::new(format!("GPU {device}"), (22, y - 7), ("sans-serif", 13)))?;
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn short_labels() {
        assert_eq!(super::short(1_234_567.0), "1.2M");
        assert_eq!(super::short(2500.0), "2.5k");
        assert_eq!(super::short(150.0), "150");
        assert_eq!(super::short(0.48), "0.48");
        assert_eq!(super::short(0.0), "0");
    }
}
