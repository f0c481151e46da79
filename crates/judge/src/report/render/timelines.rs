//! Telemetry timelines of the HTML report: for each sampled instance (the
//! flagged ones first), a chart per quantity that was measured (power,
//! clock, temperature, busy CPUs) over the timed window, each with a line
//! per source (each GPU, the CPU package, the host's CPUs), the spans where
//! a GPU throttled shaded, zoomable and zoomed together; and the sources
//! that were not measured, named. The timelines come with the sampled
//! instances ([`Sampled::timeline`]): rendering reads no file.

use super::super::Sampled;
use crate::charts::{Chart, Kind, Point, Series, XAxis};
use mlb_record::contract::telemetry::Timeline;

/// Size of one timeline chart, in pixels.
const TIMELINE_CHART: (u32, u32) = (440, 300);

/// A source of telemetry: how its series are named in a timeline and what
/// a reader calls it.
struct Source {
    /// What it is, in the legend (a GPU's index follows `GPU`).
    name: &'static str,
    /// What the page says when it was not measured.
    absent: &'static str,
}

const GPUS: Source = Source { name: "GPU", absent: "GPU telemetry (power, clock, temperature)" };
const PACKAGE: Source = Source { name: "CPU package", absent: "CPU package power (powercap)" };
const CPUS: Source = Source { name: "host CPUs", absent: "host CPU clock and busy CPUs" };

/// A quantity drawn as a chart: its name, its unit and, per source, the
/// series name (`gpu*.` stands for every GPU's).
struct Panel {
    quantity: &'static str,
    unit: &'static str,
    sources: &'static [(&'static Source, &'static str)],
}

const PANELS: [Panel; 4] = [
    Panel { quantity: "power", unit: "W", sources: &[(&GPUS, "gpu*.power_w"), (&PACKAGE, "package_w")] },
    Panel { quantity: "clock", unit: "MHz", sources: &[(&GPUS, "gpu*.sm_clock_mhz"), (&CPUS, "cpu_mhz")] },
    Panel { quantity: "temperature", unit: "°C", sources: &[(&GPUS, "gpu*.temperature_c")] },
    Panel { quantity: "busy CPUs", unit: "CPUs", sources: &[(&CPUS, "cpu_busy_cores")] },
];

/// One instance's timelines.
pub struct Timelines {
    /// What they are of: the row and where it ran.
    pub title: String,
    /// One chart per quantity measured.
    pub charts: Vec<Chart>,
    /// The sources not measured, in words.
    pub absent: Vec<&'static str>,
}

/// The spans `[t0, t1]` of the slices in which some GPU throttled, those
/// of neighbouring slices joined.
fn throttled_spans(timeline: &Timeline) -> Vec<(f64, f64)> {
    let t = &timeline.t;
    let step = if t.len() > 1 { (t[t.len() - 1] - t[0]) / (t.len() - 1) as f64 } else { 0.0 };
    let throttled = |i: usize| {
        timeline
            .series
            .iter()
            .filter(|(name, _)| name.ends_with(".throttled"))
            .any(|(_, v)| v.get(i).copied().flatten().is_some_and(|share| share > 0.0))
    };
    let mut spans: Vec<(f64, f64)> = Vec::new();
    for i in (0..t.len()).filter(|&i| throttled(i)) {
        let (start, end) = (t[i] - step / 2.0, t[i] + step / 2.0);
        match spans.last_mut() {
            Some(last) if start <= last.1 + step * 1e-6 => last.1 = end,
            _ => spans.push((start, end)),
        }
    }
    spans
}

/// The measured points of series `name`, none when it has no value.
fn points(timeline: &Timeline, name: &str) -> Vec<Point> {
    let Some(values) = timeline.series.get(name) else { return Vec::new() };
    timeline.t.iter().zip(values).filter_map(|(t, v)| Some(Point::at(*t, (*v)?))).collect()
}

/// The measured series of `pattern` (`gpu*.x`: each GPU's, by index), with
/// their legend names: a GPU's is its device of `devices` (the instance's
/// visible devices, whose `gpu<i>` is the i-th), else its index.
fn series_of(timeline: &Timeline, source: &Source, pattern: &str, devices: &[&str]) -> Vec<Series> {
    let named = |name: String, series: &str| {
        let points = points(timeline, series);
        (!points.is_empty()).then_some(Series { name, kind: Kind::Line, points })
    };
    match pattern.strip_prefix("gpu*.") {
        None => named(source.name.to_string(), pattern).into_iter().collect(),
        Some(quantity) => {
            let mut gpus: Vec<(usize, &str)> = timeline
                .series
                .keys()
                .filter_map(|k| {
                    let (gpu, rest) = k.strip_prefix("gpu")?.split_once('.')?;
                    (rest == quantity).then_some((gpu.parse().ok()?, k.as_str()))
                })
                .collect();
            gpus.sort_unstable();
            gpus.into_iter()
                .filter_map(|(i, k)| {
                    let device = devices.get(i).map_or_else(|| i.to_string(), |d| d.to_string());
                    named(format!("{} {device}", source.name), k)
                })
                .collect()
        }
    }
}

/// One instance's timelines; `None` when it has no timeline. `group` ties
/// its charts together (zoom and hover).
pub fn timelines(sampled: &Sampled, group: &str) -> Option<Timelines> {
    let timeline = sampled.timeline.as_ref()?;
    let spans = throttled_spans(timeline);
    let devices: Vec<&str> = sampled.device.as_deref().map(|d| d.split(',').collect()).unwrap_or_default();
    let mut measured: Vec<&str> = Vec::new();
    let mut charts = Vec::new();
    for Panel { quantity, unit, sources } in PANELS {
        let mut series = Vec::new();
        for (source, pattern) in sources {
            let found = series_of(timeline, source, pattern, &devices);
            if !found.is_empty() {
                measured.push(source.name);
            }
            series.extend(found);
        }
        if series.is_empty() {
            continue;
        }
        let mut chart = Chart::new(format!("{quantity} ({unit})"), XAxis::Seconds, TIMELINE_CHART.1);
        chart.width = Some(TIMELINE_CHART.0);
        chart.y_name = unit.into();
        chart.unit = unit.into();
        chart.series = series;
        chart.group = Some(group.into());
        if !spans.is_empty() {
            chart.shaded = spans.clone();
            chart.note = Some("shaded: a GPU throttled".into());
        }
        charts.push(chart);
    }
    let absent =
        [&GPUS, &PACKAGE, &CPUS].into_iter().filter(|s| !measured.contains(&s.name)).map(|s| s.absent).collect();
    let place = match (measured.contains(&GPUS.name), sampled.device.as_deref()) {
        (true, Some(device)) if device.contains(',') => format!("GPUs {device}"),
        (true, Some(device)) => format!("GPU {device}"),
        (true, None) => "its GPUs".into(),
        (false, _) => "the host CPUs".into(),
    };
    Some(Timelines { title: format!("{} on {place}", sampled.label), charts, absent })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn sampled(timeline: serde_json::Value) -> Sampled {
        let t: Timeline = serde_json::from_value(timeline).unwrap();
        Sampled { label: "convnet".into(), device: Some("0".into()), file: "gone.json".into(), timeline: Some(t) }
    }

    #[test]
    fn a_gpu_instance_charts_each_quantity_with_its_sources_and_shades_throttling() {
        let spans = json!({"t": [0.5, 1.5, 2.5, 3.5, 4.5, 5.5], "gpu0.throttled": [1.0, 0.0, 0.5, 1.0, 0.0, 1.0]});
        let spans = throttled_spans(&serde_json::from_value(spans).unwrap());
        assert_eq!(spans, [(0.0, 1.0), (2.0, 4.0), (5.0, 6.0)], "neighbouring slices make one span");
        let s = sampled(json!({"t": [0.5, 1.5, 2.5, 3.5], "gpu0.power_w": [300.0, 310.0, 200.0, null],
            "gpu0.sm_clock_mhz": [1980.0, 1980.0, 1200.0, 1980.0], "gpu0.throttled": [0.0, 0.0, 1.0, 0.0],
            "gpu0.temperature_c": [60.0, 61.0, 70.0, 65.0], "package_w": [90.0, 91.0, 92.0, 93.0],
            "cpu_busy_cores": [1.0, 1.0, 1.0, 1.0]}));
        assert_eq!(throttled_spans(s.timeline.as_ref().unwrap()), [(2.0, 3.0)]);
        let t = timelines(&s, "t0").unwrap();
        assert_eq!(t.title, "convnet on GPU 0");
        let titles: Vec<&str> = t.charts.iter().map(|c| c.title.as_str()).collect();
        assert_eq!(titles, ["power (W)", "clock (MHz)", "temperature (°C)", "busy CPUs (CPUs)"]);
        let power: Vec<&str> = t.charts[0].series.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(power, ["GPU 0", "CPU package"]);
        assert_eq!(t.charts[0].series[0].points.len(), 3, "the slice without a value is left out");
        assert!(t.charts.iter().all(|c| c.shaded == [(2.0, 3.0)] && c.group.as_deref() == Some("t0")));
        assert!(t.absent.is_empty(), "{:?}", t.absent);
        assert!(timelines(&Sampled { timeline: None, ..s }, "t1").is_none(), "no timeline: no chart");
    }

    #[test]
    fn a_host_without_gpu_telemetry_gets_no_gpu_chart_and_names_what_is_absent() {
        // The instance ran with a visible device 0, but no GPU was sampled.
        let s = sampled(json!({"t": [0.5, 1.5], "cpu_mhz": [3000.0, 2900.0], "cpu_busy_cores": [3.9, 4.0],
            "gpu0.power_w": [null, null]}));
        let t = timelines(&s, "t0").unwrap();
        assert_eq!(t.title, "convnet on the host CPUs");
        let titles: Vec<&str> = t.charts.iter().map(|c| c.title.as_str()).collect();
        assert_eq!(titles, ["clock (MHz)", "busy CPUs (CPUs)"]);
        assert_eq!(t.charts[0].series[0].name, "host CPUs");
        assert!(t.charts.iter().all(|c| c.shaded.is_empty() && c.note.is_none()));
        assert_eq!(t.absent, [GPUS.absent, PACKAGE.absent]);
    }

    #[test]
    fn every_gpu_of_an_instance_is_a_line_named_by_its_device() {
        let mut s = sampled(json!({"t": [0.5], "gpu10.power_w": [1.0], "gpu2.power_w": [2.0], "gpu0.power_w": [3.0],
            "gpu1.power_w": [4.0]}));
        s.device = Some("4,5,6".into());
        let t = timelines(&s, "g").unwrap();
        let names: Vec<&str> = t.charts[0].series.iter().map(|s| s.name.as_str()).collect();
        // The instance saw devices 4, 5 and 6 as its GPUs 0, 1 and 2.
        assert_eq!(names, ["GPU 4", "GPU 5", "GPU 6", "GPU 10"]);
        assert_eq!(t.title, "convnet on GPUs 4,5,6");
    }
}
