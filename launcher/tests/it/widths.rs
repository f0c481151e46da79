//! Text that fits (issue 40): the text output of every command that
//! prints results, at 80, 100 and 160 columns and piped (100), on a report
//! set of the smoke suite and on one of eight GPUs on each of two nodes.
//! No line is wider than the width (but a single word longer than the
//! whole width, alone on its line), and every name (bench, node, system)
//! appears whole. Snapshots pin the layouts at 80 columns.

use crate::accept::Instance;
use crate::store::backend::{import, Kind, TestStore};
use std::path::Path;
use std::process::Command;

/// `COLUMNS` of each run: three terminals, and none (a pipe: 100).
const WIDTHS: [Option<usize>; 4] = [Some(80), Some(100), Some(160), None];

/// A report set and the names its text must show whole.
struct Set {
    dir: tempfile::TempDir,
    benches: Vec<String>,
    nodes: Vec<String>,
}

/// The smoke suite's benches (configs/smoke.json), two GPUs, two runs each.
fn smoke() -> Set {
    let jobs = Path::new(env!("CARGO_MANIFEST_DIR")).join("../configs/smoke.json");
    let jobs: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(jobs).unwrap()).unwrap();
    let benches: Vec<String> =
        jobs.as_array().unwrap().iter().map(|j| j["name"].as_str().unwrap().to_string()).collect();
    let dir = tempfile::tempdir().unwrap();
    let node = "smoke-node";
    for (b, bench) in benches.iter().enumerate() {
        for (vcd, run) in [("0", 0), ("1", 1), ("0", 2), ("1", 3)] {
            let items_per_sec = 100.0 * (b + 1) as f64 * if vcd == "1" { 0.97 } else { 1.0 };
            Instance { bench, run, vcd, host: node, items_per_sec, telemetry: None }.write(dir.path());
        }
    }
    // One node: no per-node table names it.
    Set { dir, benches, nodes: Vec::new() }
}

/// Three benches on eight GPUs of each of two nodes whose names differ only
/// at their end; the last GPU of the second node slower.
fn eight_gpus_two_nodes() -> Set {
    let benches: Vec<String> = ["convnet_distributed_fp16", "toy_lstm", "vae"].map(String::from).to_vec();
    let nodes: Vec<String> = ["gpu-node-rack12-slot01", "gpu-node-rack12-slot02"].map(String::from).to_vec();
    let dir = tempfile::tempdir().unwrap();
    for bench in &benches {
        for (n, host) in nodes.iter().enumerate() {
            for d in 0..8u64 {
                let vcd = d.to_string();
                let slow = if n == 1 && d == 7 { 0.8 } else { 1.0 - 0.01 * d as f64 };
                let run = n as u64 * 8 + d;
                Instance { bench, run, vcd: &vcd, host, items_per_sec: 1000.0 * slow, telemetry: None }
                    .write(dir.path());
            }
        }
    }
    Set { dir, benches, nodes }
}

/// The stdout of `mlb ARGS` with `COLUMNS` at `columns` (unset: piped).
fn text(args: &[&str], columns: Option<usize>) -> String {
    let home = tempfile::tempdir().unwrap();
    let mut command = Command::new(crate::common::mlb());
    command.args(args).env("HOME", home.path()).env("XDG_CONFIG_HOME", home.path()).env_remove("COLUMNS");
    if let Some(c) = columns {
        command.env("COLUMNS", c.to_string());
    }
    let out = command.output().unwrap();
    let (stdout, stderr) = crate::common::text(&out);
    assert!(matches!(out.status.code(), Some(0 | 1)), "mlb {args:?}: {stderr}");
    stdout
}

/// Whether `name` appears in `text` whole: not inside a longer word.
fn whole(text: &str, name: &str) -> bool {
    let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '-');
    text.match_indices(name)
        .any(|(at, _)| !word(text[..at].chars().next_back()) && !word(text[at + name.len()..].chars().next()))
}

/// Checks `text` of `what` at `width`: every line within it, and every
/// one of `names` whole.
fn check(what: &str, text: &str, width: usize, names: &[String]) {
    assert!(!text.trim().is_empty(), "{what}: nothing printed");
    for line in text.lines() {
        let one_word = !line.trim().contains(' ');
        assert!(
            line.chars().count() <= width || one_word,
            "{what} at {width}: {} wide:\n{line}\n\n{text}",
            line.chars().count()
        );
    }
    for name in names {
        assert!(whole(text, name), "{what} at {width}: `{name}` not whole:\n{text}");
    }
}

/// Every command's text on `set`, at every width; the text at 80 columns
/// of each, for the snapshots.
fn every_command(set: &Set, label: &str) -> Vec<(String, String)> {
    let dir = set.dir.path().to_str().unwrap();
    let store = TestStore::new(Kind::Sqlite);
    let (code, stdout, stderr) = import(&store, &[dir, "--system", label]);
    assert_eq!(code, Some(0), "{stdout}\n{stderr}");
    let db = store.url.as_str();
    let bench = set.benches[0].as_str();
    let both: Vec<String> = set.benches.iter().chain(&set.nodes).cloned().collect();
    let system = vec![label.to_string()];
    let etc = tempfile::tempdir().unwrap();
    let rules = etc.path().join("rules.yaml");
    std::fs::write(&rules, "rules:\n  - kind: per_node\n    min: 0.9\n  - kind: per_gpu\n    min: 0.9\n").unwrap();
    let rules = rules.to_str().unwrap();
    let doctor = etc.path().join("doctor");
    let doctor = doctor.to_str().unwrap();
    let commands: Vec<(&str, Vec<&str>, &[String])> = vec![
        ("report", vec!["report", "--reports", dir], &both),
        ("report-benches", vec!["report", "--reports", dir, "--rows", "bench"], &set.benches),
        ("accept", vec!["accept", "--reports", dir, "--rules", rules], &set.nodes),
        ("targets-list", vec!["targets", "list"], &[]),
        ("detect", vec!["detect"], &[]),
        ("plugins-list", vec!["plugins", "list"], &[]),
        ("doctor", vec!["doctor", "--outdir", doctor], &[]),
        ("db-systems", vec!["db", "systems", "--db", db], &system),
        ("db-runs", vec!["db", "runs", "--db", db], &system),
        ("db-history", vec!["db", "history", "--db", db, "--system", label, "--bench", bench], &system),
    ];
    let mut at_80 = Vec::new();
    for (what, args, names) in commands {
        for columns in WIDTHS {
            let text = text(&args, columns);
            check(&format!("{label} {what}"), &text, columns.unwrap_or(100), names);
            // The host's own and the folders' paths differ between machines,
            // and so does the order the import walks run folders in (the
            // store's run ids): one run folder, one order.
            let machine = ["detect", "doctor", "plugins-list", "targets-list", "db-runs"].contains(&what);
            let ordered = label == "smoke" || !what.starts_with("db-");
            if columns == Some(80) && !machine && ordered {
                at_80
                    .push((what.to_string(), text.replace(dir, "[DIR]").replace(db, "[DB]").replace(rules, "[RULES]")));
            }
        }
    }
    at_80
}

#[test]
fn every_command_fits_80_100_160_columns_and_a_pipe_on_the_smoke_suite() {
    let set = smoke();
    for (what, text) in every_command(&set, "smoke") {
        insta::assert_snapshot!(format!("widths_smoke_{what}"), text);
    }
}

#[test]
fn every_command_fits_on_eight_gpus_of_two_nodes() {
    let set = eight_gpus_two_nodes();
    for (what, text) in every_command(&set, "two-nodes") {
        insta::assert_snapshot!(format!("widths_two_nodes_{what}"), text);
    }
}
