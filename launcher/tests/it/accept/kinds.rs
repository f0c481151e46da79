//! Each rule kind, passing and failing, on generated runs.

use super::{evaluation, rules, slots, targets, telemetry, verdicts, Instance};
use serde_json::Value;

fn s(p: &std::path::Path) -> &str {
    p.to_str().unwrap()
}

/// (outcome, bench, gpu, node) with `&str`s, for comparing.
fn v(outcome: &str, bench: &str, gpu: &str, node: &str) -> (String, String, String, String) {
    (outcome.into(), bench.into(), gpu.into(), node.into())
}

#[test]
fn per_gpu_names_the_slow_slot_and_per_node_the_slow_node() {
    let (run, etc) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    slots(run.path(), "convnet", "n1", &[100.0, 100.0, 70.0, 100.0]);
    slots(run.path(), "convnet", "n2", &[80.0, 80.0, 80.0, 80.0]);
    let r = rules(etc.path(), "rules:\n  - kind: per_gpu\n    min: 0.9\n  - kind: per_node\n    min: 0.9\n");
    let (e, code) = evaluation(&["--reports", s(run.path()), "--rules", s(&r)]);
    assert_eq!(code, 1);
    // The devices of one host pool across hosts (no Slurm node): slot 2 is
    // (70 + 80) / 2 = 75 of 90.
    let gpus = verdicts(&e, "per_gpu");
    assert_eq!(gpus[0], v("fail", "convnet", "2", ""), "{e:#}");
    assert_eq!(gpus.iter().filter(|g| g.0 == "pass").count(), 3, "{gpus:?}");
    assert_eq!(verdicts(&e, "per_node"), [v("fail", "convnet", "", "n2"), v("pass", "convnet", "", "n1")]);
    // Failed lines first.
    assert_eq!(e["verdicts"][0]["outcome"], "fail");
    let last = e["verdicts"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(last["outcome"], "pass");
    let fail = &e["verdicts"][0];
    assert!(fail["margin"].as_f64().unwrap() < 0.0 && fail["bound"] == 0.9, "{fail}");
    assert_eq!(fail["origin"]["line"], 2, "{fail}");

    let clean = tempfile::tempdir().unwrap();
    slots(clean.path(), "convnet", "n1", &[100.0, 101.0, 99.0, 100.0]);
    let (e, code) = evaluation(&["--reports", s(clean.path()), "--rules", s(&r)]);
    assert_eq!(code, 0, "{e:#}");
    assert_eq!(verdicts(&e, "per_node"), [v("pass", "convnet", "", "n1")], "one node is the best");
}

#[test]
fn throughput_against_targets_and_an_absolute_minimum() {
    let (run, etc) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    slots(run.path(), "convnet", "n1", &[100.0, 100.0]);
    slots(run.path(), "vae", "n1", &[50.0, 50.0]);
    let t = targets(etc.path(), "bench,target,perf_target,sd_target\nconvnet,110,0.9,0.05\nvae,100,0.9,0.05\n");
    let r = rules(
        etc.path(),
        "rules:\n  - kind: throughput\n  - kind: throughput\n    bench: vae\n    min: 0.4\n  \
         - kind: min_throughput\n    bench: \"conv*\"\n    min: 120\n",
    );
    let (e, code) = evaluation(&["--reports", s(run.path()), "--rules", s(&r), "--targets", s(&t)]);
    assert_eq!(code, 1);
    assert_eq!(e["targets"].as_str(), Some(s(&t)));
    assert!(e["inputs"].as_array().unwrap().iter().any(|i| i["role"] == "targets" && i["path"] == s(&t)), "{e:#}");
    let through: Vec<_> = verdicts(&e, "throughput");
    // convnet 100/110 = 0.909 >= 0.9; vae 0.5 < 0.9 (the table's), >= 0.4 (the rule's).
    assert!(through.contains(&v("pass", "convnet", "", "")), "{through:?}");
    assert!(through.contains(&v("fail", "vae", "", "")) && through.contains(&v("pass", "vae", "", "")), "{through:?}");
    assert_eq!(verdicts(&e, "min_throughput"), [v("fail", "convnet", "", "")]);
    // Without a table the throughput is not measured, and so not a pass.
    let (e, code) = evaluation(&["--reports", s(run.path()), "--rules", s(&r)]);
    assert_eq!(code, 1);
    assert!(verdicts(&e, "throughput").iter().all(|t| t.0 == "not_measured"), "{e:#}");
}

#[test]
fn spread_failures_and_required_benches() {
    let (run, etc) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    slots(run.path(), "convnet", "n1", &[100.0, 100.0]); // sd% about 0.9
    slots(run.path(), "vae", "n1", &[50.0, 80.0]); // sd% about 25
                                                   // One failed instance of vae: its report rewritten as not completed.
    let one = Instance { bench: "vae", run: 90, vcd: "0", host: "n1", items_per_sec: 1.0, telemetry: None };
    let file = one.write(run.path());
    let mut record: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    record["completed"] = false.into();
    std::fs::write(&file, record.to_string()).unwrap();
    let r = rules(
        etc.path(),
        "rules:\n  - kind: spread\n    max: 5\n  - kind: failures\n  - kind: failures\n    bench: vae\n    max: 1\n  \
         - kind: required\n    bench: convnet\n  - kind: required\n    bench: dcgan\n",
    );
    let (e, code) = evaluation(&["--reports", s(run.path()), "--rules", s(&r)]);
    assert_eq!(code, 1);
    assert_eq!(verdicts(&e, "spread"), [v("fail", "vae", "", ""), v("pass", "convnet", "", "")]);
    let failures = verdicts(&e, "failures");
    assert!(failures.contains(&v("fail", "vae", "", "")), "max 0: {failures:?}");
    assert!(failures.contains(&v("pass", "vae", "", "")), "max 1: {failures:?}");
    assert!(failures.contains(&v("pass", "convnet", "", "")), "{failures:?}");
    assert_eq!(verdicts(&e, "required"), [v("fail", "dcgan", "", ""), v("pass", "convnet", "", "")]);
}

#[test]
fn against_a_baseline_the_means_decide_and_the_intervals_say_how_sure() {
    let (base, run, etc) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    slots(base.path(), "convnet", "n1", &[100.0, 100.0]);
    slots(base.path(), "vae", "n1", &[100.0, 100.0]);
    slots(base.path(), "cart", "n1", &[100.0, 100.0]);
    slots(run.path(), "convnet", "n1", &[80.0, 80.0]); // clearly below 0.9
    slots(run.path(), "vae", "n1", &[95.0, 95.0]); // above 0.9
    slots(run.path(), "cart", "n1", &[60.0, 110.0]); // mean 0.85, but its interval reaches above 0.9
    let r = rules(etc.path(), "rules:\n  - kind: baseline\n    min: 0.9\n");
    let (e, code) = evaluation(&["--reports", s(run.path()), "--rules", s(&r), "--baseline", s(base.path())]);
    assert_eq!(code, 1);
    assert_eq!(
        verdicts(&e, "baseline"),
        [v("fail", "cart", "", ""), v("fail", "convnet", "", ""), v("pass", "vae", "", "")],
        "{e:#}"
    );
    let note = |e: &Value, bench: &str| {
        let all = e["verdicts"].as_array().unwrap();
        all.iter().find(|x| x["subject"]["bench"] == bench).unwrap()["note"].as_str().unwrap().to_string()
    };
    assert!(note(&e, "cart").contains("within the noise"), "{e:#}");
    assert!(note(&e, "convnet").contains("beyond the noise"), "{e:#}");
    // With the benefit of the doubt, cart's interval reaches 0.9: it passes.
    let lenient = rules(etc.path(), "rules:\n  - kind: baseline\n    min: 0.9\n    compare: intervals\n");
    let (e, _) = evaluation(&["--reports", s(run.path()), "--rules", s(&lenient), "--baseline", s(base.path())]);
    assert_eq!(
        verdicts(&e, "baseline"),
        [v("fail", "convnet", "", ""), v("pass", "cart", "", ""), v("pass", "vae", "", "")],
        "{e:#}"
    );
    // Without --baseline: not measured.
    let (e, code) = evaluation(&["--reports", s(run.path()), "--rules", s(&r)]);
    assert_eq!(code, 1);
    assert!(verdicts(&e, "baseline").iter().all(|b| b.0 == "not_measured"));
    // The record of inputs names both folders' files.
    let (e, _) = evaluation(&["--reports", s(run.path()), "--rules", s(&r), "--baseline", s(base.path())]);
    let roles: Vec<&str> = e["inputs"].as_array().unwrap().iter().map(|i| i["role"].as_str().unwrap()).collect();
    assert_eq!(roles.iter().filter(|r| **r == "report").count(), 18);
    assert_eq!(roles.iter().filter(|r| **r == "baseline_report").count(), 18);
    assert_eq!(roles.iter().filter(|r| **r == "rules").count(), 1);
}

#[test]
fn telemetry_rules_pass_fail_and_are_not_measured_without_telemetry() {
    let (run, etc) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let at = |run: u64, vcd: &'static str, t| Instance {
        bench: "convnet",
        run,
        vcd,
        host: "n1",
        items_per_sec: 100.0,
        telemetry: Some(t),
    };
    at(1, "0", telemetry(2.0, 0.0, false, 0.0)).write(run.path());
    at(2, "1", telemetry(2.0, 0.2, true, 3.0)).write(run.path());
    at(3, "2", telemetry(6.0, 0.0, false, 0.0)).write(run.path());
    let r = rules(
        etc.path(),
        "rules:\n  - kind: throttled\n    max: 0.01\n  - kind: xid\n  - kind: pcie_link\n  - kind: energy\n    max: 3\n",
    );
    let (e, code) = evaluation(&["--reports", s(run.path()), "--rules", s(&r)]);
    assert_eq!(code, 1);
    for kind in ["throttled", "xid", "pcie_link"] {
        let found = verdicts(&e, kind);
        assert_eq!(found[0], v("fail", "convnet", "1", "n1"), "{kind}: {found:?}");
        assert_eq!(found.iter().filter(|f| f.0 == "pass").count(), 2, "{kind}: {found:?}");
    }
    // (2 + 2 + 6) / 3 = 3.33 J/item.
    assert_eq!(verdicts(&e, "energy"), [v("fail", "convnet", "", "")]);

    let plain = tempfile::tempdir().unwrap();
    slots(plain.path(), "convnet", "n1", &[100.0]);
    let (e, code) = evaluation(&["--reports", s(plain.path()), "--rules", s(&r)]);
    assert_eq!(code, 1, "not measured is no pass");
    let outcomes: Vec<&str> =
        e["verdicts"].as_array().unwrap().iter().map(|v| v["outcome"].as_str().unwrap()).collect();
    assert!(outcomes.iter().all(|o| *o == "not_measured"), "{e:#}");
}

/// Marks every report under `dir` as run on Slurm node `node`.
fn on_slurm_node(dir: &std::path::Path, node: &str) {
    for file in std::fs::read_dir(dir).unwrap() {
        let path = file.unwrap().path();
        let mut report: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        report["provenance"]["slurm"] = serde_json::json!({"node": node});
        std::fs::write(&path, report.to_string()).unwrap();
    }
}

#[test]
fn on_several_slurm_nodes_a_gpu_is_a_node_s_gpu() {
    let (run, etc) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    slots(run.path(), "convnet", "n1", &[100.0, 100.0]);
    slots(run.path(), "convnet", "n2", &[100.0, 60.0]);
    on_slurm_node(&run.path().join("n1"), "n1");
    on_slurm_node(&run.path().join("n2"), "n2");
    let r = rules(etc.path(), "rules:\n  - kind: per_gpu\n    min: 0.9\n  - kind: per_node\n    min: 0.9\n");
    let (e, code) = evaluation(&["--reports", s(run.path()), "--rules", s(&r)]);
    assert_eq!(code, 1);
    let gpus = verdicts(&e, "per_gpu");
    assert_eq!(gpus[0], v("fail", "convnet", "1", "n2"), "{e:#}");
    assert_eq!(gpus.len(), 4, "{gpus:?}");
    // n2's mean is 80 of n1's 100.
    assert_eq!(verdicts(&e, "per_node"), [v("fail", "convnet", "", "n2"), v("pass", "convnet", "", "n1")]);
}
