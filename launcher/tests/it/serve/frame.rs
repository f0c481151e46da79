//! One page frame: the HTML report (`mlb report --html`), the acceptance
//! page (`mlb accept --format html`) and every page `mlb serve` answers,
//! an error page included, start alike, carry the one style sheet once and
//! the viewport, and hold their content in `<main>` under its heading.

use super::pages_store;
use super::server::Server;
use crate::accept::{accept, rules, slots};
use mlb_present::html::{START, STYLE};
use std::process::Command;

/// Checks that `page` (named `what`) is in the frame.
fn framed(what: &str, page: &str) {
    assert!(page.starts_with(START), "{what} starts as every page: {}", &page[..200.min(page.len())]);
    let head = &page[..page.find("</head>").unwrap_or_else(|| panic!("{what} has a head"))];
    assert!(head.contains("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"), "{what}");
    assert_eq!(page.matches("<style>").count(), 1, "{what}: one style sheet");
    assert!(head.ends_with(&format!("<style>{STYLE}</style>")), "{what}: the style sheet is the one");
    assert_eq!(page.matches("<main>\n<h1>").count(), 1, "{what}: its content in <main> under its heading");
}

#[test]
fn the_report_the_acceptance_and_every_served_page_share_the_one_frame() {
    let (run, etc) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    slots(run.path(), "convnet", "n1", &[100.0, 90.0]);
    let html = etc.path().join("report.html");
    let out = Command::new(env!("CARGO_BIN_EXE_mlb"))
        .args(["report", "--reports"])
        .arg(run.path())
        .arg("--html")
        .arg(&html)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    framed("the report", &std::fs::read_to_string(&html).unwrap());
    let r = rules(etc.path(), "rules:\n  - kind: per_gpu\n    min: 0.9\n");
    let out = accept(&["--reports", run.path().to_str().unwrap(), "--rules", r.to_str().unwrap(), "--format", "html"]);
    framed("the acceptance", &String::from_utf8(out.stdout).unwrap());

    let store = tempfile::tempdir().unwrap();
    let url = format!("sqlite:{}", store.path().join("results.db").display());
    pages_store::fill(&url);
    let server = Server::start(&url, &[]);
    let runs = server.json("/api/runs");
    let id = runs["runs"][0]["id"].as_i64().unwrap_or_else(|| panic!("a run: {runs}"));
    let paths = [
        "/systems".to_string(),
        "/runs".into(),
        format!("/runs/{id}"),
        "/compare".into(),
        "/compare?systems=alpha,beta".into(),
        "/history".into(),
        "/history?system=alpha".into(),
        "/runs/999999".into(),
    ];
    for path in &paths {
        let answer = server.get(path, &[]);
        assert!(answer.status == 200 || path == "/runs/999999", "{path}: {}", answer.status);
        framed(path, &answer.body);
    }
}
