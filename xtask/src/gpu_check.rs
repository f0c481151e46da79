//! The GPU check in CPU mode, for the torch tier, so that it cannot rot
//! unseen between the GPU hosts' rare visits: `cargo xtask gpu-pack` into
//! a temporary folder, the pack's `gpu-check.sh --mode cpu` within
//! [`BUDGET_S`], and its outputs held to what CPU mode promises (`gpu-check.json`
//! and `gpu-check.md` written, every step of [`STEPS`] recorded, those that
//! run on a CPU `ok`, those that need a GPU `skipped: no GPU`); then the
//! check's own tests (bench/gpu-check/test_check.py: among them, that a run
//! whose budget is spent records its later steps `not run: time`).

use crate::cmd::{self, Env, Error};
use crate::gpu_pack;
use serde_json::Value;
use std::path::Path;

/// The check's steps in order, and whether each needs a GPU
/// (bench/gpu-check/check.py's `STEPS`).
const STEPS: [(&str, bool); 8] = [
    ("workloads", false),
    ("parity", false),
    ("mfu", false),
    ("burn", false),
    ("nccl", true),
    ("telemetry", true),
    ("doctor", false),
    ("slots", false),
];

/// The run's budget in seconds: it takes about a minute on two idle cores.
const BUDGET_S: &str = "300";

/// Packs, runs the check in CPU mode in `env` (the PyTorch one) and judges
/// its outputs, then runs the check's tests.
pub fn cpu_mode(root: &Path, env: &Env) -> Result<(), Error> {
    let dir = tempfile::tempdir().map_err(|source| Error::Io { path: std::env::temp_dir(), source })?;
    let (pack, out) = (dir.path().join("pack"), dir.path().join("out"));
    gpu_pack::pack(root, &pack)?;
    let mut check = env.command("sh");
    check.arg(pack.join("gpu-check.sh")).args(["--mode", "cpu", "--budget", BUDGET_S]).env("OUT", &out);
    check.arg("--work").arg(dir.path().join("work"));
    let ran = cmd::run(&mut check);
    let read = |name: &str| {
        let path = out.join(name);
        std::fs::read_to_string(&path).map_err(|source| Error::Io { path, source })
    };
    let markdown = read("gpu-check.md")?;
    let judged = serde_json::from_str(&read("gpu-check.json")?)
        .map_err(|e| e.to_string())
        .and_then(|json| judge(&json))
        .and_then(|()| ran.map_err(|e| e.to_string()));
    if let Err(why) = judged {
        eprintln!("{markdown}");
        return Err(Error::GpuCheck(why));
    }
    cmd::run(env.command("python3").args(["-m", "unittest", "discover", "-v", "-s"]).arg(pack.join("bench/gpu-check")))
}

/// Whether `check` (gpu-check.json of a CPU-mode run) holds every step of
/// [`STEPS`] in order, each with its seconds and figures, `ok` where a CPU
/// runs it and `skipped: no GPU` where it needs a GPU.
fn judge(check: &Value) -> Result<(), String> {
    if check["mode"] != "cpu" {
        return Err(format!("mode {}, not cpu", check["mode"]));
    }
    let steps = check["steps"].as_array().ok_or("no steps")?;
    let names: Vec<&str> = steps.iter().map(|s| s["name"].as_str().unwrap_or("?")).collect();
    let expected: Vec<&str> = STEPS.iter().map(|(name, _)| *name).collect();
    if names != expected {
        return Err(format!("steps {names:?}, expected {expected:?}"));
    }
    let mut wrong = Vec::new();
    for (step, (name, gpu_only)) in steps.iter().zip(STEPS) {
        let want = if gpu_only { "skipped: no GPU" } else { "ok" };
        if step["status"] != want {
            wrong.push(format!("{name}: {} ({}), expected {want}", step["status"], step["error"]));
        }
        if !step["seconds"].is_number() || !step["figures"].is_object() {
            wrong.push(format!("{name}: no seconds or figures"));
        }
    }
    if wrong.is_empty() {
        Ok(())
    } else {
        Err(wrong.join("; "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn run(statuses: &[&str]) -> Value {
        let steps: Vec<Value> = STEPS
            .iter()
            .zip(statuses)
            .map(|((name, _), status)| json!({"name": name, "status": status, "seconds": 1.5, "figures": {}}))
            .collect();
        json!({"mode": "cpu", "steps": steps})
    }

    const PASSING: [&str; 8] = ["ok", "ok", "ok", "ok", "skipped: no GPU", "skipped: no GPU", "ok", "ok"];

    #[test]
    fn a_cpu_run_passes_with_its_steps_ok_and_the_gpu_ones_skipped() {
        assert_eq!(judge(&run(&PASSING)), Ok(()));
    }

    #[test]
    fn a_failed_or_untimely_step_fails_it_by_name() {
        let mut statuses = PASSING;
        statuses[1] = "failed";
        statuses[7] = "not run: time";
        let why = judge(&run(&statuses)).unwrap_err();
        assert!(why.contains("parity: \"failed\"") && why.contains("slots: \"not run: time\""), "{why}");
    }

    #[test]
    fn a_missing_step_or_a_gpu_run_fails_it() {
        let mut short = run(&PASSING);
        short["steps"].as_array_mut().unwrap().pop();
        assert!(judge(&short).unwrap_err().contains("expected"));
        let mut gpu = run(&PASSING);
        gpu["mode"] = json!("gpu");
        assert!(judge(&gpu).unwrap_err().contains("mode"));
    }
}
