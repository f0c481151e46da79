//! `mlb report --html`: the page is self-contained and its charts really
//! render in a headless Chromium (Debian's `chromium`; install it with
//! `scripts/setup-chromium.sh`).

use crate::common;

use common::records::{write_report, Run};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// Colours of the per-GPU bars (plain, and below 90% of the best).
const BAR: [u8; 3] = [67, 147, 195];
const SLOW_BAR: [u8; 3] = [214, 96, 77];
/// Colours of the spread chart's dots for GPUs 0-3: plotters' Palette99
/// (230,25,75), (60,180,75), (255,225,25), (0,130,200) at 85% over white.
const DOTS: [[u8; 3]; 4] = [[234, 60, 102], [89, 191, 102], [255, 230, 60], [38, 149, 208]];

fn chromium() -> PathBuf {
    let path = std::env::var_os("MLB_CHROMIUM").map(PathBuf::from).unwrap_or_else(|| "/usr/bin/chromium".into());
    assert!(
        path.exists(),
        "{} not found: this test loads the HTML report in a real headless Chromium; \
         run scripts/setup-chromium.sh (or set MLB_CHROMIUM to a Chromium binary)",
        path.display()
    );
    path
}

/// Four benches on four GPUs, three runs each; GPU 3 is 20% slower.
fn fixture(dir: &Path) {
    let benches = [("convnet", 210.0), ("vae", 7400.0), ("wlm", 1500.0), ("ssd", 65.0)];
    for (bench, base) in benches {
        for vcd in ["0", "1", "2", "3"] {
            for run in 0..3u64 {
                let slow = if vcd == "3" { 0.8 } else { 1.0 };
                let v = base * slow * (1.0 + 0.02 * run as f64 - 0.01 * vcd.parse::<f64>().unwrap());
                write_report(dir, &Run { suite: "fast", bench, run, vcd, items_per_sec: v, gpu: Some("Tesla V100") });
            }
        }
    }
}

fn render_page(dir: &Path) -> PathBuf {
    fixture(&dir.join("reports"));
    let html = dir.join("report.html");
    let out = Command::new(env!("CARGO_BIN_EXE_mlb"))
        .args(["report", "--gpu-model", "V100", "--title", "Fixture <V100>", "--reports"])
        .arg(dir.join("reports"))
        .arg("--html")
        .arg(&html)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    html
}

#[test]
fn page_is_self_contained_with_one_chart_per_bench() {
    let dir = tempfile::tempdir().unwrap();
    let page = std::fs::read_to_string(render_page(dir.path())).unwrap();
    assert!(page.starts_with("<!DOCTYPE html>") && page.trim_end().ends_with("</html>"));
    assert!(page.contains("<title>Fixture &lt;V100&gt;</title>"), "title escaped");
    // Four per-bench charts and the spread chart, all inline.
    assert_eq!(page.matches("<svg").count(), 5);
    assert_eq!(page.matches("<figure data-bench=").count(), 4);
    for outside in ["<script", "src=", "href=", "url("] {
        assert!(!page.contains(outside), "the page must not load anything: found {outside}");
    }
    let links: Vec<&str> = page.match_indices("http").map(|(i, _)| &page[i..i + 26]).collect();
    assert!(links.iter().all(|l| l.starts_with("http://www.w3.org/2000/svg")), "{links:?}");
    assert!(page.contains("class=\"warn\">78%"), "GPU 3 (0.8 * 0.97 of GPU 0) flagged in the relative table");
}

/// Pixels of `png` (RGB rows) and its width.
fn decode(png_file: &Path) -> (Vec<[u8; 3]>, usize) {
    let decoder = png::Decoder::new(std::fs::File::open(png_file).unwrap());
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    let step = info.color_type.samples();
    assert!(step >= 3 && info.bit_depth == png::BitDepth::Eight, "{:?} {:?}", info.color_type, info.bit_depth);
    let pixels = buf[..info.buffer_size()].chunks(step).map(|p| [p[0], p[1], p[2]]).collect();
    (pixels, info.width as usize)
}

fn near(p: [u8; 3], c: [u8; 3]) -> bool {
    p.iter().zip(c).all(|(a, b)| a.abs_diff(b) <= 12)
}

#[test]
fn charts_render_in_headless_chromium() {
    let chromium = chromium();
    let dir = tempfile::tempdir().unwrap();
    let html = render_page(dir.path());
    let shot = dir.path().join("shot.png");
    let profile = dir.path().join("profile");
    let mut child = Command::new(chromium)
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run"])
        .args(["--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars"])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(format!("--screenshot={}", shot.display()))
        .arg("--window-size=1200,3200")
        .arg(format!("file://{}", html.display()))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(120);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("chromium did not finish its screenshot within 120 s");
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    assert!(status.success() && shot.exists(), "chromium failed ({status}) to write {}", shot.display());
    let (pixels, width) = decode(&shot);
    let bar = pixels.iter().filter(|p| near(**p, BAR)).count();
    let slow = pixels.iter().filter(|p| near(**p, SLOW_BAR)).count();
    // 12 plain bars and 4 flagged ones, each tens of pixels wide and tall.
    assert!(bar > 12 * 400, "plain bars not drawn: {bar} pixels");
    assert!(slow > 4 * 400, "flagged bars not drawn: {slow} pixels");
    // The chart region (rows holding bar pixels) is not blank: many colours.
    let rows: Vec<usize> = pixels.iter().enumerate().filter(|(_, p)| near(**p, BAR)).map(|(i, _)| i / width).collect();
    let (top, bottom) = (*rows.iter().min().unwrap(), *rows.iter().max().unwrap());
    let mut colours: Vec<[u8; 3]> = pixels[top * width..(bottom + 1) * width].to_vec();
    colours.sort_unstable();
    colours.dedup();
    assert!(colours.len() > 50, "chart region {top}..{bottom} has only {} colours", colours.len());
    // The spread chart's dots, one colour per GPU, above the per-GPU charts;
    // each GPU has 12 dots (and a legend dot) of about 28 pixels.
    for (gpu, colour) in DOTS.iter().enumerate() {
        let dots = pixels[..top * width].iter().filter(|p| near(**p, *colour)).count();
        assert!(dots > 12 * 15, "spread chart dots of GPU {gpu} not drawn: {dots} pixels");
    }
    // To look at the page: MLB_KEEP_HTML_REPORT=DIR keeps the page and its screenshot.
    if let Some(keep) = std::env::var_os("MLB_KEEP_HTML_REPORT").map(PathBuf::from) {
        std::fs::copy(&shot, keep.join("report.png")).unwrap();
        std::fs::copy(&html, keep.join("report.html")).unwrap();
    }
}
