//! Telemetry timelines of the HTML report: for each sampled instance (the
//! flagged ones first), its power, clock and temperature over the timed
//! window (on a CPU host: the slot's busy CPUs, CPU clock and package
//! power), with the spans where a GPU throttled shaded. The timelines come
//! with the sampled instances ([`Sampled::timeline`]): rendering reads no
//! file.

use super::super::Sampled;
use super::charts::{short, svg, Drawn};
use crate::contract::telemetry::Timeline;
use plotters::coord::Shift;
use plotters::prelude::*;

/// Size of one timeline chart, in pixels.
const TIMELINE_CHART: (u32, u32) = (340, 200);

/// The panels of a timeline, each the first of its series names the
/// timeline holds: a GPU's, else the slot's.
const PANELS: [(&str, &[&str]); 3] = [
    ("power (W)", &["gpu0.power_w", "package_w"]),
    ("clock (MHz)", &["gpu0.sm_clock_mhz", "cpu_mhz"]),
    ("temperature (°C) / busy CPUs", &["gpu0.temperature_c", "cpu_busy_cores"]),
];

/// The spans `[t0, t1]` of the slices in which some GPU throttled.
fn throttled_spans(timeline: &Timeline) -> Vec<(f64, f64)> {
    let t = &timeline.t;
    let half = |i: usize| {
        let step = if t.len() > 1 { (t[t.len() - 1] - t[0]) / (t.len() - 1) as f64 } else { 0.0 };
        (t[i] - step / 2.0, t[i] + step / 2.0)
    };
    let throttled: Vec<bool> = (0..t.len())
        .map(|i| {
            timeline
                .series
                .iter()
                .filter(|(name, _)| name.ends_with(".throttled"))
                .any(|(_, v)| v.get(i).copied().flatten().is_some_and(|share| share > 0.0))
        })
        .collect();
    (0..t.len()).filter(|&i| throttled[i]).map(half).collect()
}

/// One instance's charts: `(caption, svg)` of each panel it has data for.
pub fn charts(sampled: &Sampled) -> Vec<(String, String)> {
    let Some(timeline) = &sampled.timeline else { return Vec::new() };
    let spans = throttled_spans(timeline);
    let device = sampled.device.as_deref().map_or(String::new(), |d| format!(" GPU {d}"));
    PANELS
        .iter()
        .filter_map(|(title, names)| {
            let (name, values) = names.iter().find_map(|n| timeline.series.get(*n).map(|v| (*n, v)))?;
            let points: Vec<(f64, f64)> =
                timeline.t.iter().zip(values).filter_map(|(t, v)| Some((*t, (*v)?))).collect();
            if points.is_empty() {
                return None;
            }
            let caption = format!("{}{device}: {title}", sampled.label);
            let chart = svg(TIMELINE_CHART, |root| line(root, &caption, name, &points, &spans));
            Some((caption, chart))
        })
        .collect()
}

fn line(
    root: &DrawingArea<SVGBackend, Shift>,
    caption: &str,
    name: &str,
    points: &[(f64, f64)],
    spans: &[(f64, f64)],
) -> Drawn {
    root.fill(&WHITE)?;
    let (t0, t1) = (points[0].0.min(0.0), points[points.len() - 1].0.max(f64::MIN_POSITIVE));
    let top = points.iter().map(|p| p.1).fold(0.0, f64::max).max(f64::MIN_POSITIVE) * 1.1;
    let mut chart = ChartBuilder::on(root)
        .caption(caption, ("sans-serif", 13))
        .margin(6)
        .x_label_area_size(25)
        .y_label_area_size(45)
        .build_cartesian_2d(t0..t1, 0.0..top)?;
    chart.configure_mesh().max_light_lines(1).x_desc("s").y_label_formatter(&|v| short(*v)).y_desc(name).draw()?;
    let shade = RGBColor(214, 96, 77).mix(0.25).filled();
    chart.draw_series(spans.iter().map(|(a, b)| Rectangle::new([(*a, 0.0), (*b, top)], shade)))?;
    chart.draw_series(LineSeries::new(points.iter().copied(), RGBColor(67, 147, 195).stroke_width(2)))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_throttling_episode_is_shaded_and_panels_follow_the_series() {
        let timeline = json!({"t": [0.5, 1.5, 2.5, 3.5], "gpu0.power_w": [300.0, 310.0, 200.0, null],
            "gpu0.sm_clock_mhz": [1980.0, 1980.0, 1200.0, 1980.0], "gpu0.throttled": [0.0, 0.0, 1.0, 0.0],
            "cpu_busy_cores": [1.0, 1.0, 1.0, 1.0]});
        let t: Timeline = serde_json::from_value(timeline).unwrap();
        assert_eq!(throttled_spans(&t), [(2.0, 3.0)]);
        let sampled =
            Sampled { label: "convnet".into(), device: Some("0".into()), file: "gone.json".into(), timeline: Some(t) };
        let charts = charts(&sampled);
        let captions: Vec<&str> = charts.iter().map(|(c, _)| c.as_str()).collect();
        assert_eq!(
            captions,
            ["convnet GPU 0: power (W)", "convnet GPU 0: clock (MHz)", "convnet GPU 0: temperature (°C) / busy CPUs"]
        );
        assert!(charts.iter().all(|(_, svg)| svg.starts_with("<svg") && svg.contains("<rect")), "{charts:?}");
        assert!(super::charts(&Sampled { timeline: None, ..sampled }).is_empty(), "no timeline: no chart");
    }
}
