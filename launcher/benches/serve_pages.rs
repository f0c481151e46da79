//! How fast the pages of `mlb serve` are ready in a browser: each page
//! loaded in headless Chromium (the browser tests' DevTools harness) from
//! the real server over the store of 1,000 runs of the `db_queries` bench
//! (`runs_store`), ready when its load event has ended, which
//! comes after its charts are drawn (the drawing script runs before it).
//! Each page is timed from the navigation's start to the end of its load
//! event (the browser's own navigation timing), median of [`RUNS`] loads;
//! the bench fails when a page's median is over [`LIMIT_MS`].
//!
//! Run with `cargo bench -p mlb --bench serve_pages` (needs Chromium:
//! scripts/setup-chromium.sh). With `SERVE_PAGES_STORE=FILE` the store is
//! kept in `FILE`, and a store already there is timed as it is.

#[path = "../tests/it/common/chromium.rs"]
#[allow(dead_code)]
mod chromium;
mod runs_store;
mod served;

use runs_store::{fill, median, RUNS_PER_SYSTEM};
use served::Served;

/// Loads of each page.
const RUNS: usize = 7;
/// Most a page may take to be ready (its median), in milliseconds.
const LIMIT_MS: f64 = 1000.0;
/// Width of the browser window, in pixels.
const WIDTH: u32 = 1400;

fn main() {
    let mlb = env!("CARGO_BIN_EXE_mlb");
    let dir = tempfile::tempdir().unwrap();
    let (url, seconds) = fill(mlb, dir.path(), std::env::var_os("SERVE_PAGES_STORE").map(Into::into));
    println!("store of 1,000 runs ready in {seconds:.1} s");
    let served = Served::start(mlb, &url, &[]);
    let base = format!("http://{}", served.addr);
    // A run of 100 instances in the middle of the store.
    let pages = [
        "/systems".to_string(),
        "/runs".into(),
        "/runs?system=sysC&page=2".into(),
        format!("/runs/{}", RUNS_PER_SYSTEM * 2 + 100),
        "/compare?systems=sysA,sysB,sysC,sysD,sysE".into(),
        "/history?system=sysC".into(),
        "/history?system=sysC&bench=bench07".into(),
    ];
    let mut browser = chromium::Browser::start(WIDTH, 1000);
    let mut ok = true;
    println!(
        "page ready (navigation start to the end of the load event; the answer: to its last byte; \
         drawing: the charts, on DOMContentLoaded), medians of {RUNS} loads:"
    );
    for page in &pages {
        let url = format!("{base}{page}");
        let loads: Vec<[f64; 3]> = (0..RUNS)
            .map(|_| {
                browser.goto(&url, "document.documentElement.dataset.charts !== undefined");
                browser.wait(page, "performance.getEntriesByType('navigation')[0].loadEventEnd > 0");
                let at = browser.eval(
                    "(() => { const n = performance.getEntriesByType('navigation')[0]; \
                     return [n.loadEventEnd - n.startTime, n.responseEnd - n.startTime, \
                       n.domContentLoadedEventEnd - n.domContentLoadedEventStart]; })()",
                );
                [0, 1, 2].map(|i| at[i].as_f64().unwrap())
            })
            .collect();
        let [ms, served, drawn] = [0, 1, 2].map(|i| median(loads.iter().map(|l| l[i]).collect()));
        let charts = browser.eval("document.documentElement.dataset.charts");
        let charts = charts.as_str().unwrap_or("?");
        let problems = browser.problems();
        assert!(problems.is_empty(), "{page}: {problems:?}");
        let fine = ms <= LIMIT_MS;
        ok &= fine;
        let verdict = if fine { "ok" } else { "TOO SLOW" };
        println!(
            "{page:<42} {ms:>7.1} ms; the answer {served:>6.1} ms, drawing {charts} charts {drawn:>6.1} ms: {verdict}"
        );
    }
    drop(served);
    assert!(ok, "a page took more than {LIMIT_MS} ms to be ready");
}
