//! The text view fitted to the width (`COLUMNS`; names never cut), and
//! the JSON, CSV and HTML formats.

use super::{accept, accept_with, rules, slots, stdout};
use std::process::Output;

/// `mlb accept ARGS` on a terminal `columns` wide (as `COLUMNS` says).
fn accept_in(columns: usize, args: &[&str]) -> Output {
    accept_with(&[("COLUMNS", &columns.to_string())], args)
}

#[test]
fn the_text_view_fits_the_width_failed_lines_first_and_never_cuts_a_name() {
    let (run, etc) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let long = "a_bench_with_a_name_much_longer_than_any_column_of_the_view_would_hold";
    let node = "a-node-with-a-rather-long-host-name.example.org";
    slots(run.path(), long, node, &[100.0, 60.0]);
    slots(run.path(), "convnet", node, &[100.0, 100.0]);
    let r = rules(
        etc.path(),
        "rules:\n  - id: every-gpu-within-ten-percent-of-the-best\n    kind: per_gpu\n    min: 0.9\n",
    );
    for columns in [80, 100, 160] {
        let out = accept_in(columns, &["--reports", run.path().to_str().unwrap(), "--rules", r.to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(1));
        let text = stdout(&out);
        for line in text.lines() {
            assert!(line.chars().count() <= columns, "{} of {columns} columns: {line}", line.chars().count());
        }
        let words: Vec<&str> = text.split_whitespace().collect();
        for name in [long, "every-gpu-within-ten-percent-of-the-best"] {
            assert!(words.contains(&name), "{name} whole at {columns} columns:\n{text}");
        }
        assert!(!text.contains('…'), "{text}");
        // The failed verdict comes first: its FAIL before any pass.
        let (fail, pass) = (text.find("FAIL").unwrap(), text.find("pass").unwrap());
        assert!(fail < pass, "{text}");
        assert!(text.contains("(rule at ") && text.contains("rules.yaml:2:5)"), "{text}");
        assert!(text.contains("FAIL: 1 failed, 0 not measured (no pass), 3 passed"), "{text}");
    }
}

/// Two nodes whose names differ only at their end were once cut to the
/// same letters (`gpu-node-rack12-sl…`): each is shown whole.
#[test]
fn two_nodes_never_look_the_same() {
    let (run, etc) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    slots(run.path(), "convnet", "gpu-node-rack12-slot01", &[100.0, 100.0]);
    slots(run.path(), "convnet", "gpu-node-rack12-slot02", &[50.0, 50.0]);
    let r = rules(etc.path(), "rules:\n  - kind: per_node\n    min: 0.9\n  - kind: per_gpu\n    min: 0.9\n");
    for columns in [80, 100] {
        let out = accept_in(columns, &["--reports", run.path().to_str().unwrap(), "--rules", r.to_str().unwrap()]);
        let text = stdout(&out);
        let rows = |node: &str| text.lines().filter(|l| l.contains(&format!("node {node}"))).count();
        assert!(rows("gpu-node-rack12-slot01") >= 1 && rows("gpu-node-rack12-slot02") >= 1, "{text}");
        assert!(!text.contains('…'), "{text}");
    }
}

#[test]
fn json_csv_and_html_and_out() {
    let (run, etc) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    slots(run.path(), "convnet", "n1", &[100.0, 100.0]);
    let r = rules(etc.path(), "rules:\n  - kind: per_gpu\n    min: 0.9\n");
    let args = |format: &str| {
        let out =
            accept(&["--reports", run.path().to_str().unwrap(), "--rules", r.to_str().unwrap(), "--format", format]);
        assert_eq!(out.status.code(), Some(0));
        stdout(&out)
    };
    let csv = args("csv");
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines[0], "outcome,rule,kind,origin,bench,gpu,node,measured,bound,margin,unit,note");
    assert_eq!(lines.len(), 3, "{csv}");
    assert!(lines[1].starts_with("pass,per_gpu#1,per_gpu,") && lines[1].contains(",convnet,0,,1,0.9,"), "{csv}");
    let html = args("html");
    assert!(html.starts_with("<!DOCTYPE html>") && html.contains("PASS: all 2 verdicts passed"), "{html}");
    let json: serde_json::Value = serde_json::from_str(&args("json")).unwrap();
    assert_eq!(json["verdicts"].as_array().unwrap().len(), 2);
    assert_eq!(json["rules"], r.to_str().unwrap());
    let file = etc.path().join("verdicts.html");
    let out = accept(&[
        "--reports",
        run.path().to_str().unwrap(),
        "--rules",
        r.to_str().unwrap(),
        "--format",
        "html",
        "--output",
        file.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), html);
    assert!(stdout(&out).starts_with("PASS: all 2 verdicts passed\nwritten to "), "{}", stdout(&out));
}
