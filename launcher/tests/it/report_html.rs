//! `mlb report --format html`: the page is self-contained, and in a real headless
//! Chromium (Debian's `chromium`; install it with `scripts/setup-chromium.sh`)
//! its charts draw with no console error, show the expected series, answer
//! a hover with the value, keep their axis labels apart, and a host without
//! GPU telemetry shows no GPU chart and names what was not measured.
//!
//! `MLB_KEEP_HTML_REPORT=DIR` keeps each browser test's page and a
//! screenshot of it, 1400 pixels wide (`scripts/report-screenshots.sh`).

use crate::common;

use common::chromium::{overlap, Browser};
use common::records::{file_name, record, write_report, Run};
use mlb_record::contract::record::write_atomic;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Width of the browser window and of the screenshots, in pixels.
const WIDTH: u32 = 1400;
/// Colours of the per-GPU bars (plain, and below 90% of the best).
const BAR: [u8; 3] = [67, 147, 195];
const SLOW_BAR: [u8; 3] = [214, 96, 77];

/// Four benches on four GPUs, three runs each; GPU 3 is 20% slower, and
/// its first convnet run has telemetry: it throttled from 20 s to 30 s.
fn fixture(dir: &Path) {
    let benches = [("convnet", 210.0), ("vae", 7400.0), ("wlm", 1500.0), ("ssd", 65.0)];
    for (bench, base) in benches {
        for vcd in ["0", "1", "2", "3"] {
            for run in 0..3u64 {
                let slow = if vcd == "3" { 0.8 } else { 1.0 };
                let v = base * slow * (1.0 + 0.02 * run as f64 - 0.01 * vcd.parse::<f64>().unwrap());
                let r = Run { suite: "fast", bench, run, vcd, items_per_sec: v, gpu: Some("Tesla V100") };
                if (bench, vcd, run) == ("convnet", "3", 0) {
                    let mut report = record(&r);
                    report["telemetry"] = gpu_telemetry();
                    write_atomic(dir, &file_name(&r), &report).unwrap();
                } else {
                    write_report(dir, &r);
                }
            }
        }
    }
}

/// The telemetry of an instance on one GPU (its `gpu0`) and a CPU package
/// with powercap, 60 half-second slices; the GPU throttled from 20 s to 30 s.
fn gpu_telemetry() -> Value {
    let t: Vec<f64> = (0..60).map(|i| i as f64 * 0.5 + 0.25).collect();
    let hot = |i: usize| (40..60).contains(&i);
    let power: Vec<f64> = (0..60).map(|i| if hot(i) { 250.0 } else { 295.0 + (i % 4) as f64 }).collect();
    let clock: Vec<f64> = (0..60).map(|i| if hot(i) { 1200.0 } else { 1530.0 }).collect();
    let temperature: Vec<f64> = (0..60).map(|i| 60.0 + i as f64 * 0.4).collect();
    let throttled: Vec<f64> = (0..60).map(|i| if hot(i) { 1.0 } else { 0.0 }).collect();
    let package: Vec<f64> = (0..60).map(|i| 80.0 + (i % 3) as f64).collect();
    json!({"sample_hz": 10.0, "samples": 300, "window_seconds": 30.0, "items": 3000,
        "energy": {"joules": 9000.0, "joules_per_item": 3.0, "source": "gpu"},
        "gpus": [{"device": "3", "throttled_fraction": 0.33, "degraded_link": false}],
        "slot": {"cpu_throttled_fraction": null}, "throttled": true, "degraded_link": false,
        "timeline": {"t": t, "gpu0.power_w": power, "gpu0.sm_clock_mhz": clock, "gpu0.temperature_c": temperature,
            "gpu0.throttled": throttled, "package_w": package}})
}

/// The names of 25 configs, long enough not to fit side by side.
fn configs() -> Vec<String> {
    (0..25).map(|i| format!("resnet50-bs{}-fp16-{i:02}", 64 << (i % 3))).collect()
}

/// The 25 configs on two GPUs, two runs each.
fn twenty_five(dir: &Path) {
    for (i, bench) in configs().iter().enumerate() {
        for vcd in ["0", "1"] {
            for run in 0..2u64 {
                let v = 100.0 + i as f64 + 3.0 * run as f64;
                write_report(dir, &Run { suite: "fast", bench, run, vcd, items_per_sec: v, gpu: Some("H100") });
            }
        }
    }
}

/// One instance on a host without GPU telemetry: only the host's CPU clock
/// and busy CPUs were sampled (the report still names device 0).
fn cpu_only(dir: &Path) {
    let r = Run { suite: "fast", bench: "convnet", run: 0, vcd: "0", items_per_sec: 100.0, gpu: None };
    let mut report = record(&r);
    let t: Vec<f64> = (0..60).map(|i| i as f64 * 0.5 + 0.25).collect();
    let mhz: Vec<f64> = (0..60).map(|i| 2900.0 + (i % 5) as f64 * 20.0).collect();
    let busy: Vec<f64> = (0..60).map(|i| 3.5 + (i % 2) as f64 * 0.4).collect();
    report["telemetry"] = json!({"sample_hz": 10.0, "samples": 300, "window_seconds": 30.0, "items": 3000,
        "gpus": [], "slot": {"cpu_throttled_fraction": null}, "throttled": false, "degraded_link": false,
        "timeline": {"t": t, "cpu_mhz": mhz, "cpu_busy_cores": busy}});
    write_atomic(dir, &file_name(&r), &report).unwrap();
}

/// Writes the reports with `fill`, and the page `mlb report --format html --output FILE` makes.
fn render_page(dir: &Path, fill: fn(&Path), args: &[&str]) -> PathBuf {
    fill(&dir.join("reports"));
    let html = dir.join("report.html");
    let out = Command::new(env!("CARGO_BIN_EXE_mlb"))
        .arg("report")
        .args(args)
        .arg("--reports")
        .arg(dir.join("reports"))
        .args(["--format", "html", "--output"])
        .arg(&html)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    html
}

/// The page's own markup: what precedes the inlined library.
fn markup(page: &str) -> &str {
    &page[..page.find("<script>/*!").expect("the library is inlined")]
}

#[test]
fn page_is_self_contained_with_one_chart_per_bench() {
    let dir = tempfile::tempdir().unwrap();
    let html = render_page(dir.path(), fixture, &["--gpu-model", "V100", "--title", "Fixture <V100>"]);
    let page = std::fs::read_to_string(html).unwrap();
    assert!(page.starts_with("<!DOCTYPE html>") && page.trim_end().ends_with("</html>"));
    assert!(page.contains("<title>Fixture &lt;V100&gt;</title>"), "title escaped");
    assert!(page.contains("content=\"default-src 'none'; script-src 'sha256-"), "a policy that forbids requests");
    let own = markup(&page);
    // The spread chart, four per-bench charts and three timelines, inline.
    assert_eq!(own.matches("<div class=\"chart\">").count(), 8);
    assert_eq!(own.matches("<figure data-bench=").count(), 4);
    for outside in ["<script src", "<link", "<img", "<iframe", "url(", "://"] {
        assert!(!own.contains(outside), "the page must not load anything: found {outside}");
    }
    assert!(page.contains("/*! echarts 6.1.0\n==> LICENSE <==") && page.contains("Apache License"), "the licence");
    assert!(page.contains("class=\"warn\">78%"), "GPU 3 (0.8 * 0.97 of GPU 0) flagged in the relative table");
}

/// Opens `html` 1400 px wide and waits until its charts are drawn; keeps a
/// screenshot and the page as `name` in `$MLB_KEEP_HTML_REPORT` when set.
fn open(html: &Path, name: &str) -> (Browser, Vec<u8>) {
    let mut browser = Browser::start(WIDTH, 1000);
    browser.open(html, "document.documentElement.dataset.charts !== undefined");
    let shot = browser.screenshot(WIDTH);
    if let Some(keep) = std::env::var_os("MLB_KEEP_HTML_REPORT").map(PathBuf::from) {
        std::fs::create_dir_all(&keep).unwrap();
        std::fs::write(keep.join(format!("{name}.png")), &shot).unwrap();
        std::fs::copy(html, keep.join(format!("{name}.html"))).unwrap();
    }
    (browser, shot)
}

/// The series of each chart under `selector`: `[[name, points], ...]` per chart.
fn series(browser: &mut Browser, selector: &str) -> Value {
    browser.eval(&format!(
        "[...document.querySelectorAll({selector:?})].map(d => echarts.getInstanceByDom(d).getOption().series\
         .filter(s => s.type !== 'custom').map(s => [s.name, s.data.length]))"
    ))
}

/// Pixels of `png` (RGB rows).
fn decode(png: &[u8]) -> Vec<[u8; 3]> {
    let mut reader = png::Decoder::new(std::io::Cursor::new(png)).read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    let step = info.color_type.samples();
    assert!(step >= 3 && info.bit_depth == png::BitDepth::Eight, "{:?} {:?}", info.color_type, info.bit_depth);
    buf[..info.buffer_size()].chunks(step).map(|p| [p[0], p[1], p[2]]).collect()
}

fn near(p: [u8; 3], c: [u8; 3]) -> bool {
    p.iter().zip(c).all(|(a, b)| a.abs_diff(b) <= 12)
}

#[test]
fn charts_render_in_headless_chromium() {
    let dir = tempfile::tempdir().unwrap();
    let html = render_page(dir.path(), fixture, &["--gpu-model", "V100", "--title", "Fixture <V100>"]);
    let (mut browser, shot) = open(&html, "report");
    assert_eq!(browser.eval("document.documentElement.dataset.charts"), "8");
    // The spread chart: a dot series per GPU, 12 runs each, in a legend.
    let spread = series(&mut browser, "#spread div.chart");
    assert_eq!(spread, json!([[["GPU 0", 12], ["GPU 1", 12], ["GPU 2", 12], ["GPU 3", 12]]]));
    let legend = browser
        .eval("echarts.getInstanceByDom(document.querySelector('#spread div.chart')).getOption().legend[0].data");
    assert_eq!(legend, json!(["GPU 0", "GPU 1", "GPU 2", "GPU 3"]));
    // A bar chart per bench, four bars each; GPU 3's is flagged.
    let bars = series(&mut browser, "#per-gpu div.chart");
    assert_eq!(bars, json!([[["mean", 4]], [["mean", 4]], [["mean", 4]], [["mean", 4]]]));
    // Hovering GPU 3's bar of the vae chart shows its mean and range.
    let vae = "#per-gpu figure[data-bench=vae] div.chart";
    let tip = browser.chart_hover(vae, 3.0, 2000.0);
    assert!(tip.starts_with("GPU 3: mean 5860.80 items/s"), "hover: {tip:?}");
    assert!(tip.contains("items/s") && tip.contains("runs from"), "hover: {tip:?}");
    // The throttled instance's timelines: a chart per quantity, the GPU and
    // the CPU package in one power chart, the throttled span shaded.
    let figures = browser.eval("[...document.querySelectorAll('#timelines figure')].map(f => f.dataset.timeline)");
    let quantities = ["power (W)", "clock (MHz)", "temperature (°C)"];
    assert_eq!(figures, json!(quantities.map(|q| format!("convnet on GPU 3: {q}"))));
    let lines = series(&mut browser, "#timelines div.chart");
    assert_eq!(lines, json!([[["GPU 3", 60], ["CPU package", 60]], [["GPU 3", 60]], [["GPU 3", 60]]]));
    let shaded = browser.eval(
        "[...document.querySelectorAll('#timelines div.chart')].map(d => echarts.getInstanceByDom(d).getOption()
           .series[0].markArea.data.map(span => [span[0].xAxis, span[1].xAxis]))",
    );
    assert_eq!(shaded, json!([[[20, 30]], [[20, 30]], [[20, 30]]]), "the slices merge into one span");
    let absent = browser.eval("document.querySelector('#timelines .absent').innerText");
    assert_eq!(absent, "Not measured: host CPU clock and busy CPUs.");
    let tip = browser.chart_hover("#timelines div.chart", 10.25, 297.0);
    assert!(tip.contains("GPU 3") && tip.contains("CPU package") && tip.contains(" W"), "hover: {tip:?}");
    let problems = browser.problems();
    assert!(problems.is_empty(), "console: {problems:?}");
    // The bars are painted: 12 plain and 4 flagged, each hundreds of pixels.
    let pixels = decode(&shot);
    let bar = pixels.iter().filter(|p| near(**p, BAR)).count();
    let slow = pixels.iter().filter(|p| near(**p, SLOW_BAR)).count();
    assert!(bar > 12 * 400, "plain bars not drawn: {bar} pixels");
    assert!(slow > 4 * 400, "flagged bars not drawn: {slow} pixels");
}

#[test]
fn the_spread_chart_of_25_configs_shows_every_label_and_none_overlaps() {
    // Once the labels of 25 configs ran into one unreadable band. The check
    // fails if a label is drawn over another (their boxes on the page share a
    // pixel) and if labels are hidden to avoid it (fewer than 25 shown).
    let dir = tempfile::tempdir().unwrap();
    let html = render_page(dir.path(), twenty_five, &[]);
    let (mut browser, _) = open(&html, "spread-25-configs");
    let names = serde_json::to_string(&configs()).unwrap();
    let boxes = browser.eval(&format!(
        "(() => {{ const names = {names};
           const shown = n => names.some(c => n === c || (n.endsWith('…') && c.startsWith(n.slice(0, -1))));
           return [...document.querySelectorAll('#spread svg text')].filter(t => shown(t.textContent))
             .map(t => {{ const r = t.getBoundingClientRect();
               return {{text: t.textContent, left: r.left, right: r.right, top: r.top, bottom: r.bottom}}; }})
             .filter(b => b.right > b.left && b.bottom > b.top); }})()"
    ));
    let boxes = boxes.as_array().unwrap();
    assert_eq!(boxes.len(), 25, "every config's label is shown: {boxes:?}");
    for (i, a) in boxes.iter().enumerate() {
        for b in &boxes[i + 1..] {
            assert!(!overlap(a, b), "labels overlap: {a} and {b}");
        }
    }
    let problems = browser.problems();
    assert!(problems.is_empty(), "console: {problems:?}");
}

#[test]
fn a_host_without_gpu_telemetry_shows_only_what_was_measured_and_names_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let html = render_page(dir.path(), cpu_only, &[]);
    let (mut browser, _) = open(&html, "timelines-cpu-host");
    let figures = browser.eval("[...document.querySelectorAll('#timelines figure')].map(f => f.dataset.timeline)");
    assert_eq!(figures, json!(["convnet on the host CPUs: clock (MHz)", "convnet on the host CPUs: busy CPUs (CPUs)"]));
    let absent = browser.eval("document.querySelector('#timelines .absent').innerText");
    assert_eq!(absent, "Not measured: GPU telemetry (power, clock, temperature); CPU package power (powercap).");
    // No GPU frame anywhere, and each chart has its measured line.
    let text = browser.eval("document.querySelector('#timelines').innerText");
    assert!(!text.as_str().unwrap().contains("GPU 0"), "{text}");
    let lines = series(&mut browser, "#timelines div.chart");
    assert_eq!(lines, json!([[["host CPUs", 60]], [["host CPUs", 60]]]));
    // Hover: the clock at a time; zoom: the slider, and both charts follow.
    let tip = browser.chart_hover("#timelines figure div.chart", 15.25, 2960.0);
    assert!(tip.contains("host CPUs") && tip.contains("MHz"), "hover: {tip:?}");
    let zoomed = browser.eval(
        "(() => { const [a, b] = [...document.querySelectorAll('#timelines div.chart')].map(echarts.getInstanceByDom);
           a.dispatchAction({type: 'dataZoom', start: 50, end: 100});
           return [a, b].map(c => c.getOption().dataZoom[0].start); })()",
    );
    assert_eq!(zoomed, json!([50, 50]), "the charts of one instance zoom together");
    let problems = browser.problems();
    assert!(problems.is_empty(), "console: {problems:?}");
}
