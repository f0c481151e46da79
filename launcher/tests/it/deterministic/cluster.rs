//! spin on the two nodes of the Slurm test cluster, two slots a node,
//! deterministic: a bit flipped in one slot of node n2 is named with its
//! node, slot and step (slurm tier).

use super::{accept, first_difference, identical_rules, report};
use crate::common;
use common::slurm::{self, cluster, in_allocation};
use serde_json::Value;

#[test]
fn the_nodes_compute_the_same_bits_and_a_flipped_bit_on_one_node_is_named() {
    let _cluster = cluster();
    let dir = tempfile::tempdir().unwrap();
    let spin = common::spin_dir();
    let jobs = common::write(
        dir.path(),
        "det.json",
        r#"[{"name": "det", "plugin": "spin", "cgroup": "student",
             "args": {"size": 48, "repeat": 4, "number": 10, "skip": 1, "deterministic": true}}]"#,
    );
    let out = dir.path().join("out");
    let (spin, jobs_path, out_path) = (spin.path().to_str().unwrap(), jobs.to_str().unwrap(), out.to_str().unwrap());
    let mlb = ["--plugin-dir", spin, "--slurm", "--jobs", jobs_path, "--outdir", out_path, "--devices", "2"];
    let mut command = in_allocation(&["-N2", "--ntasks-per-node=2"], &mlb);
    command.env("MLB_INJECT", "flip_bit@15,node=n2,slot=1");
    let (done, text) = slurm::run(command);
    assert_eq!(done.status.code(), Some(0), "{text}");
    let mut reports: Vec<(String, Value)> = Vec::new();
    for node in ["n1", "n2"] {
        let of_node = common::reports(&out.join(node)).into_iter();
        reports.extend(of_node.map(|(_, r)| (format!("{node}/{}", r["vcd"].as_str().unwrap()), r)));
    }
    reports.sort_by(|a, b| a.0.cmp(&b.0));
    let names: Vec<&str> = reports.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["n1/0", "n1/1", "n2/0", "n2/1"], "{text}");
    let clean = &reports[0].1;
    for (name, r) in &reports[1..3] {
        assert_eq!(first_difference(clean, r), None, "{name} computed as n1/0");
        assert_eq!(r["seed"], clean["seed"], "one seed on every node");
    }
    assert_eq!(first_difference(clean, &reports[3].1), Some(20), "n2/1 from the first fingerprint after 15");

    let (said, code) = report(&out);
    assert_eq!(code, 0, "{said}");
    assert!(said.contains("n2") && said.contains("step 20"), "{said}");
    let (said, code) = accept(&out, &identical_rules(dir.path()));
    assert_eq!(code, 1, "{said}");
    assert!(said.contains("node n2 vcd 1") && said.contains("step 20"), "{said}");
    assert!(slurm::wait_idle(std::time::Duration::from_secs(20)), "the allocation ended: {:?}", slurm::steps());
}
