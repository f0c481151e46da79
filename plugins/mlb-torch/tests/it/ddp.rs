//! Data parallelism through c10d, Gloo on the CPU: the process group's
//! collectives (ranks on threads of this process), and convnet_ddp, gpt and vit through
//! the real `mlb` binary (ranks in their cgroup slots under `"group":
//! "ddp"`, a rank killed, the Slurm test cluster).
//!
//! Build first in the same profile (`scripts/test-torch.sh` does):
//! `cargo build --release -p mlb -p convnet_ddp` before
//! `cargo test --release -p mlb-torch --test it ddp::`.

use crate::common::binary::{artifact, plugin_dir, root_or_skip};
use mlb_torch::dist::{Backend, DataParallel, ProcessGroup, Rendezvous, Source};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};
use tch::{Device, Kind, Tensor};

/// A small ResNet-18 config: 3 steps (one untimed), batch norm frozen so that
/// a step's gradients do not depend on how the batch is split.
fn config(batch: u64, repeat: u64, extra: &str) -> String {
    format!(
        r#"{{"repeat": {repeat}, "number": 1, "skip": 1, "batch_size": {batch}, "arch": "resnet18", "image_size": 32,
            "classes": 10, "lr": 0.001, "workers": 1, "frozen_bn": true, "timeout": 60.0{extra}}}"#
    )
}

/// Runs `mlb --jobs` on one `"group": "ddp"` job of `plugin` with `args`
/// over `devices` slots into `out`; returns the reports, by rank.
fn launch(dir: &Path, plugin: &str, devices: usize, args: &str, out: &Path) -> Vec<Value> {
    let jobs = dir.join(format!("ddp{devices}.json"));
    let text = format!(r#"[{{"name": "eq", "plugin": "{plugin}", "group": "ddp", "args": {args}}}]"#);
    std::fs::write(&jobs, text).unwrap();
    let plugins = plugin_dir();
    let output = Command::new(artifact("mlb"))
        .arg("--plugin-dir")
        .arg(plugins.path())
        .arg("--jobs")
        .arg(&jobs)
        .arg("--outdir")
        .arg(out)
        .args(["--devices", &devices.to_string(), "--uid", "0"])
        .env("MLB_LOCK", dir.join("mlb.lock"))
        .env("NO_COLOR", "1")
        .env_remove("LD_LIBRARY_PATH")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&output.stdout).into_owned() + &String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "mlb --jobs with {devices} slots failed:\n{text}");
    let mut reports: Vec<Value> = std::fs::read_dir(out)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json") && p.to_string_lossy().contains(".eq."))
        .map(|p| serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap())
        .collect();
    reports.sort_by_key(|r| r["ddp"]["rank"].as_u64());
    assert_eq!(reports.len(), devices, "one report per rank in {}:\n{text}", out.display());
    reports
}

/// The variables of a safetensors file, sorted by name.
fn weights(path: &Path) -> Vec<(String, Tensor)> {
    let mut named = Tensor::read_safetensors(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    named.sort_by(|a, b| a.0.cmp(&b.0));
    named
}

fn max_diff(a: &[(String, Tensor)], b: &[(String, Tensor)]) -> f64 {
    assert_eq!(a.iter().map(|v| &v.0).collect::<Vec<_>>(), b.iter().map(|v| &v.0).collect::<Vec<_>>());
    a.iter().zip(b).map(|((_, x), (_, y))| (x - y).abs().max().double_value(&[])).fold(0.0, f64::max)
}

#[test]
fn two_ranks_of_batch_b_end_where_one_rank_of_batch_2b_ends() {
    if root_or_skip("the DDP equivalence test") {
        equivalence("gloo");
    }
}

#[test]
fn vit_trains_as_a_group_of_two_ranks() {
    if !root_or_skip("the vit group test") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let args = r#"{"repeat": 3, "number": 1, "skip": 1, "size": "tiny", "layers": 2, "image_size": 32, "patch": 8,
                   "classes": 10, "batch_size": 4, "workers": 1, "timeout": 60.0}"#;
    let ranks = launch(dir.path(), "vit", 2, args, &dir.path().join("out"));
    for (rank, report) in ranks.iter().enumerate() {
        assert_eq!(report["completed"], true, "{report}");
        assert_eq!((&report["ddp"]["rank"], &report["ddp"]["world_size"]), (&Value::from(rank), &Value::from(2)));
        assert_eq!(report["ddp"]["source"], "torchrun", "the launcher set torchrun's variables");
        assert!(report["flops_per_item"].as_f64().is_some_and(|f| f > 0.0), "{report}");
    }
}

/// Panics unless `count` CUDA devices are visible. The NCCL tests are
/// ignored (`cargo test` counts them as skipped, with the reason "skipped:
/// no CUDA device"); `-- --ignored` runs them on a GPU host, and there,
/// without the devices, they fail instead of passing.
fn require_cuda(count: i64) {
    let visible = tch::Cuda::device_count();
    assert!(visible >= count, "this NCCL test needs {count} CUDA devices, {visible} visible");
}

#[test]
#[ignore = "skipped: no CUDA device (NCCL); run with `-- --ignored` on a host with 2 GPUs"]
fn over_nccl_two_ranks_of_batch_b_end_where_one_rank_of_batch_2b_ends() {
    require_cuda(2);
    if root_or_skip("the DDP equivalence test over NCCL") {
        equivalence("nccl");
    }
}

/// 2 ranks of batch 4 over `backend` (the all-reduce overlapped with the
/// backward pass, the default) against 1 rank of batch 8 whose averaging
/// follows the backward pass (`overlap` off): the same weights after 3 steps.
fn equivalence(backend: &str) {
    let dir = tempfile::tempdir().unwrap();
    let save = format!(r#", "save_weights": "$OUTPUT_DIRECTORY/w$JOB_ID.safetensors", "backend": "{backend}""#);
    let (two, one) = (dir.path().join("two"), dir.path().join("one"));
    let ranks = launch(dir.path(), "convnet_ddp", 2, &config(4, 3, &save), &two);
    let after = format!(r#"{save}, "overlap": false"#);
    let single = launch(dir.path(), "convnet_ddp", 1, &config(8, 3, &after), &one);

    for (rank, report) in ranks.iter().enumerate() {
        assert_eq!(report["completed"], true, "{report}");
        assert_eq!((&report["ddp"]["backend"], &report["ddp"]["overlap"]), (&Value::from(backend), &Value::from(true)));
        assert_eq!(report["ddp"]["rank"], rank as u64);
        assert_eq!(report["ddp"]["world_size"], 2);
        assert_eq!(report["ddp"]["source"], "torchrun", "the launcher set torchrun's variables");
        assert_eq!(report["world_size"], 2);
        let cgroup = report["provenance"]["cgroup"].as_str().unwrap_or_default();
        assert!(cgroup.ends_with(&format!("/slot{rank}")), "rank {rank} ran in its slot: {cgroup:?}");
    }
    let cpus = |r: &Value| r["provenance"]["cpus"].to_string();
    assert_ne!(cpus(&ranks[0]), cpus(&ranks[1]), "each rank had its slot's CPUs");
    assert_eq!(single[0]["ddp"]["world_size"], 1);
    assert_eq!(single[0]["ddp"]["overlap"], false);

    let w0 = weights(&two.join("w0.safetensors"));
    let (w1, w) = (weights(&two.join("w1.safetensors")), weights(&one.join("w0.safetensors")));
    assert_eq!(max_diff(&w0, &w1), 0.0, "the ranks hold the same parameters");
    let diff = max_diff(&w0, &w);
    assert!(diff < 1e-5, "2 ranks of batch 4 and 1 rank of batch 8 differ by {diff} after 3 steps");
    // The comparison can fail: one rank of batch 4 (half the data) ends
    // far from both.
    let half = dir.path().join("half");
    launch(dir.path(), "convnet_ddp", 1, &config(4, 3, &save), &half);
    let apart = max_diff(&weights(&half.join("w0.safetensors")), &w);
    assert!(apart > 1e-3, "half the data gives other parameters ({apart})");
}

#[test]
fn half_precision_ranks_keep_the_same_weights() {
    if !root_or_skip("the DDP half precision test") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let save = r#", "save_weights": "$OUTPUT_DIRECTORY/w$JOB_ID.safetensors", "lr": 0.1"#;
    let out = dir.path().join("half");
    let ranks = launch(dir.path(), "convnet_ddp_fp16", 2, &config(4, 3, save).replace(r#""lr": 0.001, "#, ""), &out);
    for report in &ranks {
        assert_eq!((&report["completed"], &report["precision"]), (&Value::from(true), &Value::from("float16")));
    }
    let (w0, w1) = (weights(&out.join("w0.safetensors")), weights(&out.join("w1.safetensors")));
    assert_eq!(max_diff(&w0, &w1), 0.0, "averaged half gradients keep the ranks' weights equal");
}

/// `mlb worker` of convnet_ddp as `rank` of a group of 2 meeting at `port`,
/// on the CPU, or with `nccl` on CUDA device `rank` over NCCL.
fn rank(rank: usize, port: u16, config: &str, nccl: bool, outdir: &Path) -> Child {
    std::fs::create_dir_all(outdir).unwrap();
    let (device, config) =
        if nccl { ("cuda", config.replacen('{', r#"{"backend": "nccl", "#, 1)) } else { ("cpu", config.to_string()) };
    Command::new(artifact("mlb"))
        .args(["worker", "--plugin"])
        .arg(artifact("libmlb_torch.so"))
        .args(["--workload", "convnet_ddp", "--config", &config, "--threads", "1", "--device", device, "--outdir"])
        .arg(outdir)
        .env("CUDA_VISIBLE_DEVICES", rank.to_string())
        .envs([
            ("MASTER_ADDR", "127.0.0.1".to_string()),
            ("MASTER_PORT", port.to_string()),
            ("RANK", rank.to_string()),
            ("WORLD_SIZE", "2".to_string()),
            ("LOCAL_RANK", rank.to_string()),
        ])
        .env_remove("LD_LIBRARY_PATH")
        // Not read: a full pipe would stall the rank.
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

/// CPU time (user and system) process `pid` has used, from `/proc`.
fn cpu_seconds(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let fields: Vec<&str> = stat.rsplit_once(") ").map_or(vec![], |(_, rest)| rest.split(' ').collect());
    // Fields 14 and 15 (utime, stime) are the 12th and 13th after the name.
    let ticks: u64 = fields.get(11..13).map_or(0, |f| f.iter().filter_map(|t| t.parse::<u64>().ok()).sum());
    ticks as f64 / 100.0
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// Starts two ranks of convnet_ddp with `timeout` (over NCCL with `nccl`),
/// sends rank 1 `signal` (`KILL` or `STOP`) once it trains, and waits for
/// rank 0 to end (at most `2 * timeout`); returns how long that took and
/// rank 0's failure message.
fn survivor_of(signal: &str, timeout: f64, nccl: bool) -> (Duration, String) {
    let dir = tempfile::tempdir().unwrap();
    let config = config(2, 100_000, &format!(r#", "timeout": {timeout}"#)).replace(r#", "timeout": 60.0"#, "");
    let port = free_port();
    let mut survivor = rank(0, port, &config, nccl, &dir.path().join("r0"));
    let mut victim = rank(1, port, &config, nccl, &dir.path().join("r1"));
    // Mid-run: the victim has spent more CPU time than loading libtorch
    // and building the model take, so it is in its training loop.
    let start = Instant::now();
    while cpu_seconds(victim.id()) < 5.0 {
        assert!(start.elapsed() < Duration::from_secs(120), "rank 1 did not start training within 120 s");
        assert!(victim.try_wait().unwrap().is_none() && survivor.try_wait().unwrap().is_none(), "both ranks train");
        std::thread::sleep(Duration::from_millis(100));
    }
    let sent = Command::new("kill").arg(format!("-{signal}")).arg(victim.id().to_string()).status().unwrap();
    assert!(sent.success(), "kill -{signal}");
    let signalled = Instant::now();
    let status = loop {
        if let Some(status) = survivor.try_wait().unwrap() {
            break status;
        }
        if signalled.elapsed() > Duration::from_secs_f64(2.0 * timeout) {
            let _ = survivor.kill();
            let _ = victim.kill();
            panic!("rank 0 still ran {} s after rank 1 got SIG{signal}", 2.0 * timeout);
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let waited = signalled.elapsed();
    let _ = victim.kill();
    let _ = victim.wait();
    assert!(!status.success(), "rank 0 must fail");
    let report = std::fs::read_dir(dir.path().join("r0")).unwrap().next().expect("rank 0 wrote its report").unwrap();
    let report: Value = serde_json::from_str(&std::fs::read_to_string(report.path()).unwrap()).unwrap();
    assert_eq!(report["completed"], false);
    let message = report["failure"]["message"].as_str().unwrap_or_default().to_string();
    for part in ["rank 0 of 2", "all-reduce", "127.0.0.1", &format!("timeout {timeout}s")] {
        assert!(
            message.contains(part),
            "the message names the rank, the collective, the store and the timeout: {message}"
        );
    }
    assert!(!message.contains("frame #"), "c10's C++ backtrace is left out: {message}");
    (waited, message)
}

#[test]
fn a_killed_rank_fails_the_other_with_a_clear_error_before_the_timeout() {
    killed_rank(false);
}

#[test]
#[ignore = "skipped: no CUDA device (NCCL); run with `-- --ignored` on a host with 2 GPUs"]
fn over_nccl_a_killed_rank_fails_the_other_with_a_clear_error_before_the_timeout() {
    require_cuda(2);
    killed_rank(true);
}

fn killed_rank(nccl: bool) {
    let timeout = 120.0;
    let (waited, message) = survivor_of("KILL", timeout, nccl);
    assert!(waited < Duration::from_secs_f64(timeout / 4.0), "rank 0 failed {waited:?} after the kill: {message}");
}

#[test]
fn a_hung_rank_fails_the_other_when_the_timeout_expires() {
    hung_rank(false);
}

#[test]
#[ignore = "skipped: no CUDA device (NCCL); run with `-- --ignored` on a host with 2 GPUs"]
fn over_nccl_a_hung_rank_fails_the_other_when_the_timeout_expires() {
    require_cuda(2);
    hung_rank(true);
}

fn hung_rank(nccl: bool) {
    let timeout = 6.0;
    let (waited, message) = survivor_of("STOP", timeout, nccl);
    assert!(
        waited < Duration::from_secs_f64(timeout + 10.0),
        "rank 0 failed {waited:?} after rank 1 stopped: {message}"
    );
}

#[test]
fn nccl_without_its_gpu_fails_at_once_naming_the_fix() {
    // One past the last visible device (0 on a host without a GPU), as rank
    // 1 of a group whose store nobody hosts: the device is checked before
    // the rendezvous, which would wait for the timeout.
    let device = tch::Cuda::device_count() as usize;
    let rv = unhosted();
    let start = Instant::now();
    let e = ProcessGroup::join(&rv, Duration::from_secs(60), Backend::Nccl { device }).unwrap_err();
    assert!(start.elapsed() < Duration::from_secs(10), "failed after {:?}", start.elapsed());
    let message = e.to_string();
    let why = if !mlb_torch::dist::backend::nccl_built() {
        "has no NCCL"
    } else if device == 0 {
        "this host has none visible"
    } else {
        "was asked for CUDA device"
    };
    for part in ["rank 1 of 2", "joining the process group", why, "fix:"] {
        assert!(message.contains(part), "{part:?} in: {message}");
    }
}

/// Runs `mlb worker` of convnet_ddp alone (a group of one) with `config`
/// on `device`; returns its exit status, its output and its report.
fn alone(config: &str, device: &str) -> (std::process::ExitStatus, String, Value) {
    let dir = tempfile::tempdir().unwrap();
    let mut worker = Command::new(artifact("mlb"));
    worker.args(["worker", "--plugin"]).arg(artifact("libmlb_torch.so"));
    worker.args(["--workload", "convnet_ddp", "--config", config, "--threads", "1", "--device", device, "--outdir"]);
    worker.arg(dir.path()).env_remove("LD_LIBRARY_PATH");
    for var in rendezvous_vars() {
        worker.env_remove(var);
    }
    let run = worker.output().unwrap();
    let text = String::from_utf8_lossy(&run.stdout).into_owned() + &String::from_utf8_lossy(&run.stderr);
    let report = std::fs::read_dir(dir.path()).unwrap().next().unwrap_or_else(|| panic!("a report: {text}")).unwrap();
    let report: Value = serde_json::from_str(&std::fs::read_to_string(report.path()).unwrap()).unwrap();
    (run.status, text, report)
}

#[test]
fn convnet_ddp_told_to_use_nccl_on_the_cpu_fails_naming_the_fix() {
    let (status, text, report) = alone(&config(2, 3, r#", "backend": "nccl""#), "cpu");
    assert!(status.code().is_some_and(|c| c != 0), "a failure, not a crash or a success: {text}");
    assert_eq!(report["completed"], false);
    let message = report["failure"]["message"].as_str().unwrap_or_default();
    for part in ["backend", "nccl", "needs the model on a GPU", "fix:"] {
        assert!(message.contains(part), "{part:?} in: {message}");
    }
}

#[test]
#[ignore = "skipped: no CUDA device (NCCL); run with `-- --ignored` on a GPU host"]
fn over_nccl_a_group_of_one_trains_on_its_gpu() {
    require_cuda(1);
    let (status, text, report) = alone(&config(2, 3, ""), "cuda");
    assert!(status.success(), "{text}");
    assert_eq!((&report["completed"], &report["ddp"]["backend"]), (&Value::from(true), &Value::from("nccl")));
}

/// A Slurm client command (`salloc`) of the two-node test cluster of
/// `scripts/setup-slurm.sh`; fails naming the script when it is not running.
fn slurm(program: &str) -> Command {
    let dir = PathBuf::from(std::env::var("MLB_SLURM_DIR").unwrap_or_else(|_| "/run/mlb-slurm".into()));
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/setup-slurm.sh");
    let up = Command::new(&script).arg("status").status().is_ok_and(|s| s.success());
    assert!(up, "this test needs the two-node Slurm test cluster: run `scripts/setup-slurm.sh` as root first");
    let mut c = Command::new(program);
    c.env("SLURM_CONF", dir.join("slurm.conf")).env_remove("LD_LIBRARY_PATH");
    c
}

fn completed_ranks(reports: &[Value]) -> Vec<(u64, u64, String)> {
    let mut ranks: Vec<(u64, u64, String)> = reports
        .iter()
        .map(|r| {
            assert_eq!(r["completed"], true, "{r}");
            let ddp = &r["ddp"];
            (ddp["rank"].as_u64().unwrap(), ddp["world_size"].as_u64().unwrap(), ddp["source"].as_str().unwrap().into())
        })
        .collect();
    ranks.sort();
    ranks
}

fn reports_under(dir: &Path) -> Vec<Value> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(reports_under(&path));
        } else if path.extension().is_some_and(|e| e == "json") {
            let value: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
            // Reports, not the launcher's step plans.
            if value.get("completed").is_some() {
                out.push(value);
            }
        }
    }
    out
}

#[test]
fn convnet_ddp_spans_the_two_nodes_of_the_slurm_test_cluster() {
    let dir = tempfile::tempdir().unwrap();
    let plugins = plugin_dir();
    let config = config(2, 3, "");

    // mlb --slurm: one rank per node, told torchrun's variables by the launcher.
    let jobs = dir.path().join("cluster.json");
    let text = format!(r#"[{{"name": "ddp", "plugin": "convnet_ddp", "group": "ddp", "args": {config}}}]"#);
    std::fs::write(&jobs, text).unwrap();
    let out = dir.path().join("out");
    let mut salloc = slurm("salloc");
    salloc.args(["-Q", "-N", "2"]).arg(artifact("mlb")).arg("--plugin-dir").arg(plugins.path());
    salloc.arg("--slurm").arg("--jobs").arg(&jobs).arg("--outdir").arg(&out);
    let run = salloc.output().unwrap();
    let text = String::from_utf8_lossy(&run.stdout).into_owned() + &String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "mlb --slurm failed:\n{text}");
    for node in ["n1", "n2"] {
        assert_eq!(reports_under(&out.join(node)).len(), 1, "one rank's report on {node}:\n{text}");
    }
    let want = |source: &str| vec![(0, 2, source.to_string()), (1, 2, source.to_string())];
    assert_eq!(completed_ranks(&reports_under(&out)), want("torchrun"));

    // srun alone: the ranks read Slurm's own variables, rank 0 on the step's
    // first node (whose name is not a host name here: Slurm's NodeAddr is used).
    let out = dir.path().join("srun");
    let mut salloc = slurm("salloc");
    salloc.args(["-Q", "-N", "2", "srun", "-N", "2", "-n", "2"]).arg(artifact("mlb"));
    salloc.args(["worker", "--plugin"]).arg(artifact("libmlb_torch.so")).args(["--workload", "convnet_ddp"]);
    salloc.args(["--config", &config, "--threads", "1", "--device", "cpu", "--outdir"]).arg(&out);
    for var in rendezvous_vars() {
        salloc.env_remove(var);
    }
    let run = salloc.output().unwrap();
    let text = String::from_utf8_lossy(&run.stdout).into_owned() + &String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "srun mlb worker failed:\n{text}");
    assert_eq!(completed_ranks(&reports_under(&out)), want("slurm"));
}

/// torchrun's variables, which would win over Slurm's.
fn rendezvous_vars() -> [&'static str; 5] {
    mlb_torch::dist::rendezvous::TORCHRUN_VARS
}

/// Ranks `0..world` of one group, each joined on its own thread (Gloo
/// allows several ranks in one process); runs `f` on each and returns the results by rank.
fn in_threads<T: Send>(world: usize, f: impl Fn(ProcessGroup) -> T + Sync) -> Vec<T> {
    let port = free_port();
    std::thread::scope(|s| {
        let f = &f;
        let handles: Vec<_> = (0..world)
            .map(|rank| {
                s.spawn(move || {
                    let rv = Rendezvous {
                        master_addr: "127.0.0.1".into(),
                        master_port: port,
                        rank,
                        world,
                        local_rank: rank,
                        source: Source::Torchrun,
                    };
                    f(ProcessGroup::join(&rv, Duration::from_secs(30), Backend::Gloo { interface: None }).unwrap())
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    })
}

#[test]
fn gradients_are_averaged_over_the_ranks_bucket_by_bucket() {
    // Three float parameters and a half one, in buckets of 64 bytes: the
    // first two floats (2 x 24 bytes), the third, the half one; the third
    // float has no gradient on any rank.
    let shapes: [&[i64]; 4] = [&[2, 3], &[6], &[20], &[4]];
    let results = in_threads(2, |group| {
        let rank = group.rank() as f64;
        let params: Vec<Tensor> = shapes
            .iter()
            .enumerate()
            .map(|(i, shape)| {
                let kind = if i == 3 { Kind::Half } else { Kind::Float };
                Tensor::zeros(*shape, (kind, Device::Cpu)).set_requires_grad(true)
            })
            .collect();
        // Gradients rank + 1 (and 10 x that for the second parameter).
        let loss = (&params[0] * (rank + 1.0)).sum(Kind::Float)
            + (&params[1] * (10.0 * (rank + 1.0))).sum(Kind::Float)
            + (&params[3] * (rank + 1.0)).sum(Kind::Float);
        loss.backward();
        let dp = DataParallel::new(group, 64);
        assert_eq!(dp.buckets(&params).len(), 3, "two floats, one float, one half");
        dp.average_grads(&params).unwrap();
        let mean = |i: usize| params[i].grad().to_kind(Kind::Double).mean(Kind::Double).double_value(&[]);
        let root = dp.root_seed(7 + dp.group().rank() as u64).unwrap();
        dp.group().barrier().unwrap();
        (mean(0), mean(1), params[2].grad().defined(), mean(3), root)
    });
    for (rank, r) in results.iter().enumerate() {
        assert_eq!(*r, (1.5, 15.0, false, 1.5, 7), "rank {rank}: the mean of ranks 1 and 2, rank 0's seed");
    }
}

#[test]
fn overlapped_averaging_starts_each_bucket_during_the_backward_pass() {
    // Three weights of 256, 256 and 32 bytes, bucketed from the last: the
    // third and the second (288 bytes), then the first.
    let results = in_threads(2, |group| {
        let rank = group.rank() as f64;
        let weight = |n: i64, k: i64, scale: f64| {
            (Tensor::arange(n * k, (Kind::Float, Device::Cpu)).view([n, k]) * scale / (n * k) as f64)
                .set_requires_grad(true)
        };
        let params = [weight(8, 8, 1.0), weight(8, 8, -0.5), weight(1, 8, 2.0)];
        let x = Tensor::arange(16, (Kind::Float, Device::Cpu)).view([2, 8]) * (rank + 1.0) / 16.0;
        let loss = |p: &[Tensor]| x.mm(&p[0].tr()).tanh().mm(&p[1].tr()).tanh().mm(&p[2].tr()).sum(Kind::Float);
        let mut dp = DataParallel::new(group, 300);
        dp.overlap(&params).unwrap();
        let hooks = |dp: &DataParallel| (dp.hooks().unwrap().buckets(), dp.hooks().unwrap().started());

        // The rank's own gradients, from copies the hooks are not on, and
        // their mean through the group.
        let copies: Vec<Tensor> = params.iter().map(|p| p.detach().copy().set_requires_grad(true)).collect();
        loss(&copies).backward();
        assert_eq!(hooks(&dp), (2, 0), "no hook fires for other tensors");
        let mean: Vec<Tensor> = copies
            .iter()
            .map(|c| {
                let mut g = c.grad().copy();
                dp.group().all_reduce_sum(&mut g).unwrap();
                g / 2.0
            })
            .collect();

        loss(&params).backward();
        assert_eq!(hooks(&dp), (2, 2), "both buckets started before the wait");
        dp.average_grads(&params).unwrap();
        let diff = params.iter().zip(&mean).map(|(p, m)| (p.grad() - m).abs().max().double_value(&[]));
        let diff = diff.fold(0.0, f64::max);

        // A step that does not reach the last weight: its bucket, the first,
        // waits, and so does the next; both start in the wait.
        for p in &params {
            let _ = p.grad().zero_();
        }
        ((&params[0] * (rank + 1.0)).sum(Kind::Float) + (&params[1] * (rank + 1.0)).sum(Kind::Float)).backward();
        let before = hooks(&dp).1;
        dp.average_grads(&params).unwrap();
        let means: Vec<f64> = params.iter().map(|p| p.grad().mean(Kind::Double).double_value(&[])).collect();
        (diff, before, means, hooks(&dp).1)
    });
    for (rank, (diff, before, means, after)) in results.into_iter().enumerate() {
        assert!(diff < 1e-6, "rank {rank}: overlapped means differ by {diff} from the group's");
        assert_eq!(before, 0, "rank {rank}: a bucket not ready holds back those after it");
        assert_eq!(means, [1.5, 1.5, 0.0], "rank {rank}: the mean of ranks 1 and 2; zeros for the unused weight");
        assert_eq!(after, 0, "rank {rank}: ready for the next step");
    }
}

#[test]
fn rank_zeros_parameters_reach_every_rank() {
    let results = in_threads(3, |group| {
        let t = Tensor::full([5], group.rank() as f64 + 1.0, (Kind::Float, Device::Cpu));
        let dp = DataParallel::new(group, 1 << 20);
        dp.broadcast(&[t.shallow_clone()]).unwrap();
        t.sum(Kind::Double).double_value(&[])
    });
    assert_eq!(results, [5.0, 5.0, 5.0]);
}

/// Rank 1 of a group of 2 whose store (a free port) nobody hosts.
fn unhosted() -> Rendezvous {
    Rendezvous {
        master_addr: "127.0.0.1".into(),
        master_port: free_port(),
        rank: 1,
        world: 2,
        local_rank: 1,
        source: Source::Torchrun,
    }
}

#[test]
fn a_store_nobody_hosts_fails_within_the_timeout() {
    let rv = unhosted();
    let start = Instant::now();
    let e = ProcessGroup::join(&rv, Duration::from_secs(3), Backend::Gloo { interface: None }).unwrap_err();
    let waited = start.elapsed();
    assert!(waited < Duration::from_secs(20), "failed after {waited:?}");
    let message = e.to_string();
    assert!(message.starts_with("rank 1 of 2 (store 127.0.0.1:"), "{message}");
    assert!(message.contains("joining the process group"), "{message}");
}

#[test]
fn a_cmd_job_runs_a_pytorch_ddp_script_as_torchrun_would() {
    if !root_or_skip("the PyTorch DDP script test") {
        return;
    }
    let Some(venv) = std::env::var_os("VIRTUAL_ENV") else {
        panic!("VIRTUAL_ENV is not set: run in the PyTorch environment (eval \"$(scripts/torch-env.sh)\")");
    };
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("ddp.py");
    std::fs::write(
        &script,
        "import os, sys, torch, torch.distributed as dist\n\
         dist.init_process_group('gloo')\n\
         t = torch.tensor([dist.get_rank() + 1.0])\n\
         dist.all_reduce(t)\n\
         out = os.path.join(os.environ['OUTPUT_DIRECTORY'], f'r{dist.get_rank()}-of-{dist.get_world_size()}')\n\
         open(out, 'w').write(f\"{t.item()} {os.environ['LOCAL_RANK']}\")\n\
         dist.barrier()\n\
         dist.destroy_process_group()\n",
    )
    .unwrap();
    let python = Path::new(&venv).join("bin/python");
    let jobs = dir.path().join("cmd.json");
    let cmd = format!("{} {}", python.display(), script.display());
    std::fs::write(&jobs, format!(r#"[{{"name": "py", "cmd": "{cmd}", "group": "ddp"}}]"#)).unwrap();
    let out = dir.path().join("out");
    let run = Command::new(artifact("mlb"))
        .arg("--jobs")
        .arg(&jobs)
        .arg("--outdir")
        .arg(&out)
        .args(["--devices", "2"])
        .env("MLB_LOCK", dir.path().join("mlb.lock"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&run.stdout).into_owned() + &String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{text}");
    for rank in 0..2 {
        let got = std::fs::read_to_string(out.join(format!("r{rank}-of-2")))
            .unwrap_or_else(|e| panic!("rank {rank}: {e}\n{text}"));
        assert_eq!(got, format!("3.0 {rank}"), "the sum of ranks 1 and 2, and the local rank");
    }
}

/// A tiny gpt config of `batch` sequences per rank: 4 steps (one untimed),
/// fp32, synthetic tokens.
fn gpt_config(batch: u64) -> String {
    gpt_config_checkpointed(batch, false)
}

/// [`gpt_config`] with each block checkpointed or not.
fn gpt_config_checkpointed(batch: u64, checkpoint: bool) -> String {
    format!(
        r#"{{"repeat": 4, "number": 1, "skip": 1, "size": "tiny", "seq_len": 32, "vocab": 64, "batch_size": {batch},
            "precision": "fp32", "lr": 3e-3, "warmup": 2, "timeout": 60.0, "checkpoint": {checkpoint}}}"#
    )
}

fn batch_losses(report: &Value) -> Vec<f64> {
    let losses = report["batch_loss"].as_array().unwrap_or_else(|| panic!("batch_loss in {report}"));
    losses.iter().map(|l| l.as_f64().unwrap()).collect()
}

#[test]
fn gpt_two_ranks_of_batch_b_train_as_one_rank_of_batch_2b() {
    if !root_or_skip("the gpt DDP test") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (two, one, half) = (dir.path().join("two"), dir.path().join("one"), dir.path().join("half"));
    let ranks = launch(dir.path(), "gpt", 2, &gpt_config(2), &two);
    let single = launch(dir.path(), "gpt", 1, &gpt_config(4), &one);
    for (rank, report) in ranks.iter().enumerate() {
        assert_eq!(report["completed"], true, "{report}");
        assert_eq!((&report["ddp"]["rank"], &report["ddp"]["world_size"]), (&Value::from(rank), &Value::from(2)));
        assert_eq!(report["ddp"]["backend"], "gloo");
        assert_eq!(report["world_size"], 2);
    }
    assert_eq!(single[0]["ddp"]["world_size"], 1);
    // Each rank's loss is the mean over its half of the sequences: their mean
    // is the loss one rank of the whole batch sees, step after step, as long
    // as the weights stay the same.
    let (r0, r1, whole) = (batch_losses(&ranks[0]), batch_losses(&ranks[1]), batch_losses(&single[0]));
    assert_eq!((r0.len(), whole.len()), (4, 4));
    for (step, ((a, b), w)) in r0.iter().zip(&r1).zip(&whole).enumerate() {
        let mean = (a + b) / 2.0;
        assert!((mean - w).abs() < 1e-4, "step {step}: ranks' mean {mean}, one rank {w}");
        assert!((a - b).abs() > 1e-6, "step {step}: the ranks trained on different sequences");
    }
    // The comparison can fail: one rank of half the batch ends elsewhere.
    let alone = batch_losses(&launch(dir.path(), "gpt", 1, &gpt_config(2), &half)[0]);
    assert!((alone[3] - whole[3]).abs() > 1e-3, "half the data gives other losses: {alone:?} {whole:?}");
}

#[test]
fn gpt_checkpointed_blocks_average_the_same_gradients_across_ranks() {
    if !root_or_skip("the gpt DDP checkpointing test") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (plain, checkpointed) = (dir.path().join("plain"), dir.path().join("checkpointed"));
    let without = launch(dir.path(), "gpt", 2, &gpt_config_checkpointed(2, false), &plain);
    let with = launch(dir.path(), "gpt", 2, &gpt_config_checkpointed(2, true), &checkpointed);
    for (a, b) in without.iter().zip(&with) {
        assert_eq!(b["activation_checkpointing"], true, "{b}");
        assert_eq!(b["ddp"]["overlap"], true, "the gradient hooks fire from the checkpointed blocks: {b}");
        assert_eq!(batch_losses(a), batch_losses(b), "rank {}", b["ddp"]["rank"]);
    }
}
