//! convnet and gpt of the libtorch plugin in deterministic mode, at small
//! sizes, in two real cgroup slots over two runs and on the two nodes of the
//! Slurm test cluster: every instance computes the same bits (loss, gradient norm,
//! parameters) at every fingerprint; a bit flipped in one parameter of one
//! node's instance is found from the first fingerprint after it (torch
//! tier: the release build of the libtorch plugin).

use super::{accept, fingerprints, first_difference, identical_rules};
use crate::common;
use common::launcher::{root_or_skip, Launches};
use common::slurm::{self, cluster, in_allocation};
use serde_json::Value;
use std::path::Path;

/// convnet (resnet18 at 32 px) and gpt (tiny), synthetic data, fp32,
/// fingerprinted every 5 steps over 15.
const JOBS: &str = r#"[
  {"name": "convnet_det", "plugin": "convnet", "cgroup": "student",
   "args": {"repeat": 3, "number": 5, "skip": 1, "batch_size": 4, "image_size": 32, "classes": 10,
            "arch": "resnet18", "workers": 0, "deterministic": true, "fingerprint_every": 5}},
  {"name": "gpt_det", "plugin": "gpt", "cgroup": "student",
   "args": {"repeat": 3, "number": 5, "skip": 1, "size": "tiny", "seq_len": 32, "vocab": 256, "batch_size": 2,
            "precision": "fp32", "warmup": 2, "deterministic": true, "fingerprint_every": 5}}
]"#;

fn plugins() -> tempfile::TempDir {
    common::torch_plugin_dir("the deterministic runs train the libtorch plugin's convnet and gpt")
}

/// Every report under `dir` and its node folders, by bench, then node and slot.
fn by_bench(dir: &Path) -> Vec<(String, String, Value)> {
    let mut all: Vec<(String, String, Value)> = Vec::new();
    for folder in [dir.to_path_buf(), dir.join("n1"), dir.join("n2")] {
        for (_, r) in common::reports(&folder) {
            let node = r["provenance"]["slurm"]["node"].as_str().unwrap_or("-").to_string();
            let place = format!("{node}/{}", r["vcd"].as_str().unwrap());
            all.push((r["name"].as_str().unwrap().to_string(), place, r));
        }
    }
    all.sort_by(|a, b| (&a.0, &a.1).cmp(&(&b.0, &b.1)));
    all
}

/// Checks that every instance of each bench computed the same bits as the
/// first (but `flipped`, which must differ from step `from`).
fn agree(reports: &[(String, String, Value)], flipped: Option<(&str, u64)>, text: &str) {
    for bench in ["convnet_det", "gpt_det"] {
        let of: Vec<&(String, String, Value)> = reports.iter().filter(|(b, _, _)| b == bench).collect();
        assert!(of.len() >= 2, "{bench}: {of:?}\n{text}");
        let first = &of[0].2;
        let prints = fingerprints(first);
        assert_eq!(prints.iter().map(|p| p.0).collect::<Vec<_>>(), [5, 10, 15], "{bench}");
        assert!(prints.iter().all(|p| p.2 != "-"), "{bench} has gradients: {prints:?}");
        for (_, place, r) in &of[1..] {
            let want = flipped.filter(|(p, _)| p == place).map(|(_, step)| step);
            assert_eq!(first_difference(first, r), want, "{bench} at {place}\n{text}");
        }
    }
}

#[test]
fn convnet_and_gpt_compute_the_same_bits_in_two_slots_and_two_runs() {
    if !root_or_skip("deterministic libtorch runs in real cgroup slots") {
        return;
    }
    let l = Launches::with_plugins("torchdet", plugins());
    let done = l.command(&l.jobs(JOBS), &l.out(), &["--devices", "2", "--runs", "2"]).output().unwrap();
    let (stdout, stderr) = common::text(&done);
    assert!(done.status.success(), "{stdout}\n{stderr}");
    let reports = by_bench(&l.out());
    assert_eq!(reports.len(), 8, "2 benches, 2 slots, 2 runs: {stdout}");
    agree(&reports, None, &stdout);
    let (said, code) = accept(&l.out(), &identical_rules(l.dir()));
    assert_eq!(code, 0, "{said}");
    assert!(said.contains("4 instances on 1 node, bit-identical over 15 steps"), "{said}");
}

#[test]
fn convnet_and_gpt_compute_the_same_bits_on_two_nodes_and_a_flip_on_one_is_found() {
    let _cluster = cluster();
    let plugins = plugins();
    let dir = tempfile::tempdir().unwrap();
    let jobs = common::write(dir.path(), "det.json", JOBS);
    let out = dir.path().join("out");
    let (p, j, o) = (plugins.path().to_str().unwrap(), jobs.to_str().unwrap(), out.to_str().unwrap());
    let mlb = ["--plugin-dir", p, "--slurm", "--jobs", j, "--outdir", o, "--devices", "2"];
    let mut command = in_allocation(&["-N2", "--ntasks-per-node=2"], &mlb);
    command.env("MLB_INJECT", "flip_bit@7,node=n2,slot=1");
    let (done, text) = slurm::run(command);
    assert_eq!(done.status.code(), Some(0), "{text}");
    agree(&by_bench(&out), Some(("n2/1", 10)), &text);
    let (said, code) = accept(&out, &identical_rules(dir.path()));
    assert_eq!(code, 1, "{said}");
    assert!(said.contains("node n2 vcd 1") && said.contains("step 10"), "{said}");
    assert!(slurm::wait_idle(std::time::Duration::from_secs(20)), "the allocation ended: {:?}", slurm::steps());
}
