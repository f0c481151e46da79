//! The pages of `mlb serve` in a real headless Chromium (the DevTools
//! harness of `common::chromium`), on a known store imported from report
//! files: every page loads with no console error and no failed request,
//! asks nothing of any other address, and shows the store's figures; a
//! filter sent changes the URL and the list; a table's CSV download holds
//! the API's figures; chart labels never overlap; an empty store says so.
//!
//! `MLB_KEEP_SERVE_PAGES=DIR` keeps a 1400-pixel-wide screenshot of each
//! page in DIR (`scripts/serve-screenshots.sh`).

use super::pages_store::{self, ALPHA_DAYS, BENCHES, BETA_DAYS, BETA_SPEED};
use super::server::Server;
use crate::common::chromium::{overlap, Browser};
use serde_json::{json, Value};
use std::path::PathBuf;

/// Width of the browser window and of the screenshots, in pixels.
const WIDTH: u32 = 1400;
/// What a page is ready at: loaded, and its charts drawn.
const READY: &str = "document.documentElement.dataset.charts !== undefined";

/// A store file in a temporary folder, filled with the known runs.
fn known_store() -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite:{}", dir.path().join("results.db").display());
    pages_store::fill(&url);
    (dir, url)
}

/// Opens `path` of the server, waits until it is ready, checks that it
/// made no request elsewhere and that nothing failed, and keeps a
/// screenshot as `name` when `MLB_KEEP_SERVE_PAGES` is set.
fn visit(browser: &mut Browser, server: &Server, path: &str, name: &str) {
    let first = browser.requests.len();
    let base = format!("http://{}", server.addr);
    browser.goto(&format!("{base}{path}"), READY);
    let elsewhere: Vec<&String> =
        browser.requests[first..].iter().filter(|u| !u.starts_with(&base) && !u.starts_with("data:")).collect();
    assert!(elsewhere.is_empty(), "{path} asked other addresses: {elsewhere:?}");
    let problems = browser.problems();
    assert!(problems.is_empty(), "{path}: {problems:?}");
    if let Some(keep) = std::env::var_os("MLB_KEEP_SERVE_PAGES").map(PathBuf::from) {
        std::fs::create_dir_all(&keep).unwrap();
        let shot = browser.screenshot(WIDTH);
        std::fs::write(keep.join(format!("{name}.png")), shot).unwrap();
        // The next page is laid out in the window's size again.
        let metrics = json!({"width": WIDTH, "height": 1000, "deviceScaleFactor": 1, "mobile": false});
        browser.call("Emulation.setDeviceMetricsOverride", metrics);
    }
}

/// The cells of the table `id` of the page, row by row, as text.
fn cells(browser: &mut Browser, id: &str) -> Vec<Vec<String>> {
    let rows = browser.eval(&format!(
        "[...document.querySelectorAll('table#{id} tr')].slice(1).map(r => [...r.cells].map(c => c.innerText))"
    ));
    serde_json::from_value(rows).unwrap()
}

#[test]
fn every_page_loads_cleanly_and_shows_the_stores_figures() {
    let (_dir, url) = known_store();
    let server = Server::start(&url, &[]);
    let mut browser = Browser::start(WIDTH, 1000);

    visit(&mut browser, &server, "/", "home");
    assert_eq!(browser.eval("location.pathname"), "/systems", "/ leads to the systems");
    visit(&mut browser, &server, "/systems", "systems");
    let systems = cells(&mut browser, "systems");
    let names: Vec<&str> = systems.iter().map(|r| r[0].as_str()).collect();
    assert_eq!(names, ["alpha", "beta", "wide"]);
    assert_eq!(browser.eval("document.querySelector('nav a.current').innerText"), "Systems");
    let footer = browser.eval("document.querySelector('footer').innerText");
    assert!(footer.as_str().unwrap().contains("mlb "), "{footer}");

    visit(&mut browser, &server, "/runs", "runs");
    let runs = cells(&mut browser, "runs");
    assert_eq!(runs.len(), ALPHA_DAYS.len() + BETA_DAYS.len() + 1, "{runs:?}");

    // The first run of alpha: its report with the telemetry of one instance.
    let id = runs.iter().filter(|r| r[1] == "alpha").map(|r| r[0].parse::<i64>().unwrap()).min().unwrap();
    visit(&mut browser, &server, &format!("/runs/{id}"), "run");
    let charts = browser.eval("document.documentElement.dataset.charts").as_str().unwrap().parse::<u32>().unwrap();
    assert!(charts >= 3, "the spread chart, the per-GPU charts and the timelines: {charts}");
    let timelines = browser.eval("[...document.querySelectorAll('#timelines figure')].map(f => f.dataset.timeline)");
    assert_eq!(timelines, json!(["convnet on GPU 0: power (W)", "convnet on GPU 0: clock (MHz)"]));
    let verdicts = cells(&mut browser, "acceptance");
    let outcomes: Vec<(&str, &str)> = verdicts.iter().map(|r| (r[0].as_str(), r[5].as_str())).collect();
    assert_eq!(outcomes, [("throughput", "pass"), ("completed", "fail")]);
    let log = browser.eval("document.querySelector('pre.log').innerText");
    assert!(log.as_str().unwrap().trim_end().ends_with(pages_store::FAILED_LOG_END), "{log}");

    visit(&mut browser, &server, "/compare?systems=alpha,beta", "compare");
    let matrix = cells(&mut browser, "matrix");
    assert_eq!(matrix.len(), BENCHES.len());
    for row in &matrix {
        let normalised: f64 = row[2].split('(').nth(1).unwrap().trim_end_matches("x)").parse().unwrap();
        assert!((normalised - BETA_SPEED).abs() < 0.06, "beta is 1.5 times as fast: {row:?}");
    }
    let tip = browser.chart_hover("div.chart", 1.0, 1.5);
    assert!(tip.contains("beta") && tip.contains("x"), "the bars' hover names the systems and figures: {tip:?}");
    let bars = browser.eval(
        "echarts.getInstanceByDom(document.querySelector('div.chart')).getOption().series.map(s => [s.name, s.data.length])",
    );
    assert_eq!(bars, json!([["alpha", 2], ["beta", 2]]));

    visit(&mut browser, &server, "/history?system=alpha", "history");
    let series = cells(&mut browser, "series");
    assert_eq!(series.len(), BENCHES.len());
    let last_run = series[0][3].clone();
    for row in &series {
        assert_eq!(row[1], ALPHA_DAYS.len().to_string(), "{row:?}");
        let flagged = format!("run {last_run}: -20.");
        assert!(row[6].starts_with(&flagged), "the last, slower run is a regression: {row:?}");
    }
    // Hovering a run's dot tells its bench, day, figure (and its share of
    // the bench's median, which the axis shows: both benches lie near 1) and run.
    let at = browser
        .eval("echarts.getInstanceByDom(document.querySelector('div.chart')).getOption().series[0].data[2].value");
    let tip = browser.chart_hover("div.chart", at[0].as_f64().unwrap(), at[1].as_f64().unwrap());
    let day = ["convnet", "vae"].iter().any(|b| tip.starts_with(&format!("{b}\n2026-01-03 10:00 UTC: ")));
    assert!(day && tip.contains("items/s (") && tip.contains("x its median)\nrun "), "hover: {tip:?}");
    let legend =
        browser.eval("echarts.getInstanceByDom(document.querySelector('div.chart')).getOption().legend[0].data");
    assert_eq!(legend, json!(["convnet", "vae", "regression"]));
}

#[test]
fn a_filter_sent_changes_the_url_and_the_list() {
    let (_dir, url) = known_store();
    let server = Server::start(&url, &[]);
    let mut browser = Browser::start(WIDTH, 1000);
    visit(&mut browser, &server, "/runs", "runs");
    browser.eval(
        "(() => { const f = document.querySelector('form.filters'); f.elements.system.value = 'beta';
           f.querySelector('button').click(); })()",
    );
    browser.wait("the filtered runs", "location.search.includes('system=beta')");
    assert_eq!(
        browser.eval("location.pathname + location.search").as_str().unwrap().split('&').next(),
        Some("/runs?system=beta")
    );
    let runs = cells(&mut browser, "runs");
    assert_eq!(runs.len(), BETA_DAYS.len());
    assert!(runs.iter().all(|r| r[1] == "beta"), "{runs:?}");
    assert_eq!(
        browser.eval("document.querySelector('form.filters').elements.system.value"),
        "beta",
        "the form shows its filter"
    );
    // The permalink: the same URL opened anew shows the same list.
    let permalink = browser.eval("location.pathname + location.search").as_str().unwrap().to_string();
    visit(&mut browser, &server, &permalink, "runs-beta");
    assert_eq!(cells(&mut browser, "runs"), runs);
    // A filter no run passes says so.
    visit(&mut browser, &server, "/runs?tag=site%3Dnowhere", "runs-none");
    assert_eq!(browser.eval("document.querySelector('p.empty').innerText"), "No run matches the filter.");
}

#[test]
fn a_tables_csv_download_holds_the_apis_figures() {
    let (_dir, url) = known_store();
    let server = Server::start(&url, &[]);
    let mut browser = Browser::start(WIDTH, 1000);
    visit(&mut browser, &server, "/compare?systems=alpha,beta&metric=items/s", "compare");
    let href = browser.eval("document.querySelector('h2 a.csv').getAttribute('href')").as_str().unwrap().to_string();
    let csv = server.get(&href, &[]);
    assert_eq!(csv.status, 200, "{href}: {}", csv.body);
    let csv = csv.body;
    let json = server.json("/api/compare?systems=alpha,beta&metric=items/s");
    let rows = json["rows"].as_array().or(json["matrix"]["rows"].as_array()).unwrap().clone();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines[0], "bench,alpha,beta");
    for (row, line) in rows.iter().zip(&lines[1..]) {
        let fields: Vec<&str> = line.split(',').collect();
        assert_eq!(fields[0], row["bench"]);
        for (cell, field) in row["cells"].as_array().unwrap().iter().zip(&fields[1..]) {
            assert_eq!(field.parse::<f64>().unwrap(), cell["value"].as_f64().unwrap(), "{line}");
        }
    }
    // The page shows the same figures.
    let page = cells(&mut browser, "matrix");
    for (row, shown) in rows.iter().zip(&page) {
        let value = row["cells"][0]["value"].as_f64().unwrap();
        assert_eq!(shown[1].split(' ').next().unwrap(), mlb::store::query::render::short(Some(value)));
    }
}

/// The boxes of the text drawn in the first chart of the page.
fn label_boxes(browser: &mut Browser) -> Vec<Value> {
    let boxes = browser.eval(
        "[...document.querySelector('div.chart').querySelectorAll('svg text')].map(t => {
           const r = t.getBoundingClientRect();
           return {text: t.textContent, left: r.left, right: r.right, top: r.top, bottom: r.bottom}; })
         .filter(b => b.right > b.left && b.bottom > b.top)",
    );
    boxes.as_array().unwrap().clone()
}

#[test]
fn chart_labels_never_overlap() {
    let (_dir, url) = known_store();
    let server = Server::start(&url, &[]);
    let mut browser = Browser::start(WIDTH, 1000);
    // 27 benches on the compare chart (25 of wide, 2 of alpha), and the
    // dates of the history chart.
    for (path, name) in [("/compare?systems=alpha,wide", "compare-27-benches"), ("/history?system=alpha", "history")] {
        visit(&mut browser, &server, path, name);
        let boxes = label_boxes(&mut browser);
        assert!(boxes.len() > 10, "{path}: labels drawn: {boxes:?}");
        for (i, a) in boxes.iter().enumerate() {
            for b in &boxes[i + 1..] {
                assert!(!overlap(a, b), "{path}: labels overlap: {a} and {b}");
            }
        }
    }
}

#[test]
fn an_empty_store_says_so_on_every_page() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite:{}", dir.path().join("results.db").display());
    pages_store::fill_none(&url);
    let server = Server::start(&url, &[]);
    let mut browser = Browser::start(WIDTH, 1000);
    for path in ["/systems", "/runs", "/compare", "/history"] {
        visit(&mut browser, &server, path, &format!("empty{}", path.replace('/', "-")));
        let said = browser.eval("document.querySelector('p.empty').innerText");
        assert_eq!(said, "The store holds no run yet: import runs with mlb db import.", "{path}");
        assert_eq!(browser.eval("document.querySelectorAll('table, div.chart').length"), 0, "{path}: no empty frame");
    }
}
