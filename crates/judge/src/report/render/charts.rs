//! The report's result charts, described from its figures for the charts
//! module ([`crate::charts`]): the spread of the runs of every row, and
//! the throughput of each GPU for each row.

use super::super::relative::FLAG_BELOW;
use super::super::Report;
use crate::charts::{Chart, Kind, Point, Series, XAxis};
use std::collections::BTreeMap;

/// Size of one per-row chart of the GPUs, in pixels.
const GPU_CHART: (u32, u32) = (380, 260);
/// Height of the spread chart (full width), in pixels.
const SPREAD_HEIGHT: u32 = 440;

/// One chart per row (config or bench): the mean throughput of each GPU
/// (bar, flagged below 90% of the best) with the range of its runs
/// (whisker), from the single-GPU reports. `(row, chart)`.
pub fn throughput_per_gpu(report: &Report) -> Vec<(String, Chart)> {
    let devices = &report.per_gpu.devices;
    report
        .per_gpu
        .rows
        .iter()
        .map(|row| {
            let bars: Vec<(String, f64, f64, f64)> = devices
                .iter()
                .zip(&row.cells)
                .filter_map(|(device, c)| {
                    let s = c.as_ref()?.sample;
                    Some((format!("GPU {}", device.label()), s.mean?, s.min?, s.max?))
                })
                .collect();
            let best = bars.iter().map(|b| b.1).fold(0.0, f64::max);
            let points = bars
                .iter()
                .enumerate()
                .map(|(i, (gpu, mean, min, max))| Point {
                    range: Some((*min, *max)),
                    flagged: *mean < best * FLAG_BELOW,
                    tip: Some(format!(
                        "{gpu}: mean {mean:.2} {unit}\nruns from {min:.2} to {max:.2}",
                        unit = report.unit
                    )),
                    ..Point::at(i as f64, *mean)
                })
                .collect();
            let mut chart =
                Chart::new(row.label.as_str(), XAxis::Categories(bars.into_iter().map(|b| b.0).collect()), GPU_CHART.1);
            chart.width = Some(GPU_CHART.0);
            chart.y_name = report.unit.to_string();
            chart.unit = report.unit.to_string();
            chart.series.push(Series { name: "mean".into(), kind: Kind::Bars, points });
            (row.label.clone(), chart)
        })
        .collect()
}

/// One chart for all rows: each run's throughput as a share of its row's
/// mean (so rows of any scale share an axis), a dot per run, a series per
/// device.
pub fn spread(report: &Report) -> Chart {
    let means: BTreeMap<&str, f64> = report
        .rows
        .iter()
        .filter_map(|r| r.sample.mean.filter(|m| m.is_finite() && *m > 0.0).map(|m| (r.label.as_str(), m)))
        .collect();
    let rows: Vec<&str> = report.rows.iter().map(|r| r.label.as_str()).filter(|l| means.contains_key(l)).collect();
    let mut by_device: BTreeMap<&str, Vec<Point>> = BTreeMap::new();
    for run in &report.runs {
        let (Some(slot), Some(mean)) = (rows.iter().position(|r| *r == run.label), means.get(run.label.as_str()))
        else {
            continue;
        };
        let device = run.vcd.as_deref().unwrap_or("?");
        let share = run.value / mean * 100.0;
        let tip = format!(
            "{}\nGPU {device}: {:.2} {}, {share:.1}% of the {} mean",
            run.label,
            run.value,
            report.unit,
            super::sections::row_kind(report)
        );
        by_device.entry(device).or_default().push(Point { tip: Some(tip), ..Point::at(slot as f64, share) });
    }
    let kind = super::sections::row_kind(report);
    let mut chart = Chart::new(
        format!("Spread across runs (throughput / {kind} mean)"),
        XAxis::Categories(rows.iter().map(|r| r.to_string()).collect()),
        SPREAD_HEIGHT,
    );
    chart.y_name = format!("% of the {kind} mean");
    chart.unit = "%".into();
    chart.y_from_zero = false;
    chart.reference = Some(100.0);
    chart.series = by_device
        .into_iter()
        .map(|(device, points)| Series { name: format!("GPU {device}"), kind: Kind::Dots, points })
        .collect();
    chart
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::{self, report};
    use crate::charts::XAxis;
    use mlb_record::contract::read::Entry;

    fn entry(name: &str, vcd: &str, avg: f64) -> Entry {
        fixtures::entry(name, vcd, true, avg)
    }

    #[test]
    fn spread_has_a_series_per_device_and_each_run_as_a_share_of_its_mean() {
        let r = report(vec![entry("vae", "0", 90.0), entry("vae", "1", 110.0), entry("wlm", "0", 5.0)]);
        let chart = super::spread(&r);
        assert_eq!(chart.x, XAxis::Categories(vec!["vae".into(), "wlm".into()]));
        let names: Vec<&str> = chart.series.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["GPU 0", "GPU 1"]);
        let gpu0: Vec<(f64, f64)> = chart.series[0].points.iter().map(|p| (p.x, p.y)).collect();
        assert_eq!(gpu0, [(0.0, 90.0), (1.0, 100.0)]);
        assert_eq!(
            chart.series[1].points[0].tip.as_deref(),
            Some("vae\nGPU 1: 110.00 items/s, 110.0% of the config mean")
        );
        assert_eq!((chart.reference, chart.unit.as_str()), (Some(100.0), "%"));
    }

    #[test]
    fn per_gpu_bars_flag_the_slow_gpu_and_carry_the_range_of_its_runs() {
        let r = report(vec![
            entry("vae", "0", 100.0),
            entry("vae", "0", 102.0),
            entry("vae", "1", 80.0),
            entry("vae", "1", 84.0),
        ]);
        let charts = super::throughput_per_gpu(&r);
        assert_eq!(charts.len(), 1);
        let (row, chart) = &charts[0];
        assert_eq!(row, "vae");
        assert_eq!(chart.x, XAxis::Categories(vec!["GPU 0".into(), "GPU 1".into()]));
        let bars = &chart.series[0].points;
        assert_eq!((bars[0].y, bars[0].range, bars[0].flagged), (101.0, Some((100.0, 102.0)), false));
        assert_eq!((bars[1].y, bars[1].range, bars[1].flagged), (82.0, Some((80.0, 84.0)), true));
        assert_eq!(bars[1].tip.as_deref(), Some("GPU 1: mean 82.00 items/s\nruns from 80.00 to 84.00"));
    }
}
