//! `mlb --slurm` and `mlb slurm submit` against the real two-node test
//! cluster (`scripts/setup-slurm.sh`: slurmctld, two slurmd, munged on this
//! machine): reports from distinct nodes, failures recorded on their node,
//! timeouts, Ctrl-C leaving no step, `--resume`, a batch job end to end,
//! and what is refused before anything starts. Apptainer is a STAND-IN
//! (it cannot be installed here), as in the single-node tests.

use crate::common;

use common::slurm::{self, cluster, in_allocation};
use mlb::isolation::Isolation;
use serde_json::Value;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A test's folder: the spin plugin, jobs files, the output folder.
struct Bench {
    dir: tempfile::TempDir,
    spin: tempfile::TempDir,
}

impl Bench {
    fn new() -> Self {
        Bench { dir: tempfile::tempdir().unwrap(), spin: common::spin_dir() }
    }

    fn out(&self) -> PathBuf {
        self.dir.path().join("out")
    }

    fn jobs(&self, text: &str) -> PathBuf {
        common::write(self.dir.path(), "cluster.json", text)
    }

    fn script(&self, name: &str, body: &str) -> PathBuf {
        let path = common::write(self.dir.path(), name, &format!("#!/bin/sh\n{body}\n"));
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path
    }

    /// `mlb --slurm --jobs JOBS --outdir OUT EXTRA` in an allocation of `salloc`.
    fn command(&self, salloc: &[&str], jobs: &Path, extra: &[&str]) -> Command {
        let out = self.out();
        let mut mlb = vec!["--plugin-dir", self.spin.path().to_str().unwrap(), "--slurm"];
        mlb.extend(["--jobs", jobs.to_str().unwrap(), "--outdir", out.to_str().unwrap()]);
        mlb.extend(extra);
        in_allocation(salloc, &mlb)
    }
}

/// Every report under `out` (one folder per node), by node folder.
fn reports(out: &Path) -> Vec<(String, Value)> {
    let mut all = Vec::new();
    for node in ["n1", "n2"] {
        all.extend(common::reports(&out.join(node)).into_iter().map(|(_, r)| (node.to_string(), r)));
    }
    all
}

fn summary(out: &Path) -> String {
    std::fs::read_to_string(out.join("summary.txt")).unwrap_or_default()
}

const TWO_NODES: &[&str] = &["-N2", "--ntasks-per-node=1"];

#[test]
fn one_instance_per_node_each_reporting_from_its_node() {
    let _cluster = cluster();
    let b = Bench::new();
    let jobs = b.jobs(
        r#"[{"name": "spin", "plugin": "spin", "args": {"repeat": 12, "number": 2, "size": 16}, "cgroup": "student"}]"#,
    );
    let (out, text) = slurm::run(b.command(TWO_NODES, &jobs, &[]));
    assert_eq!(out.status.code(), Some(0), "{text}");
    let reps = reports(&b.out());
    assert_eq!(reps.len(), 2, "{reps:?}\n{text}");
    let mut seeds = Vec::new();
    for (rank, (node, r)) in reps.iter().enumerate() {
        let p = &r["provenance"];
        assert_eq!(r["completed"], true);
        assert_eq!(p["isolation"], Isolation::Slurm.name(), "{p}");
        assert_eq!(p["slurm"]["node"], node.as_str(), "the report lies in its node's folder: {p}");
        assert_eq!(p["slurm"]["task_id"], rank.to_string().as_str(), "{p}");
        assert_eq!(r["jr_id"], rank.to_string().as_str(), "JOB_ID is the rank");
        assert_eq!(p["cpu_count"], 1, "the task saw its one CPU: {p}");
        seeds.push(r["seed"].as_u64().unwrap());
    }
    assert_eq!(seeds, vec![100, 200], "seeds differ across nodes");
    assert!(summary(&b.out()).contains("PASSED |"), "{}", summary(&b.out()));
    assert!(slurm::wait_idle(Duration::from_secs(20)), "the allocation ended: {:?}", slurm::steps());
    // mlb report reads the per-node folders.
    let report = common::run(&["report", "--reports", b.out().to_str().unwrap()]);
    let (stdout, stderr) = common::text(&report);
    assert_eq!(report.status.code(), Some(0), "{stdout}{stderr}");
    assert!(stdout.contains("spin"), "{stdout}");
}

#[test]
fn a_crash_on_one_node_and_an_error_on_the_other_are_recorded_on_their_nodes() {
    // Rank 0 dies by SIGSEGV at once; rank 1 goes on for a second, then fails.
    let (reps, text, summary) =
        a_failing_run("faulty", "if [ \"$JOB_ID\" = 0 ]; then kill -SEGV $$; fi\nsleep 1\necho boom >&2\nexit 3");
    let causes: Vec<(String, String, String)> = reps
        .iter()
        .map(|(node, r)| {
            (
                node.clone(),
                r["failure"]["cause"].as_str().unwrap().to_string(),
                r["jr_id"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        causes,
        vec![("n1".into(), "crash".into(), "0".into()), ("n2".into(), "exit".into(), "1".into())],
        "one record per instance, on its node: {reps:?}\n{text}"
    );
    let (_, on_n2) = &reps[1];
    assert!(on_n2["failure"]["message"].as_str().unwrap().contains("boom"), "{on_n2}");
    assert_eq!(on_n2["provenance"]["slurm"]["node"], "n2", "written by the task on its node");
    assert!(summary.contains("[ 2/ 2] FAILED"), "{summary}");
}

/// Runs `body` as the `cmd` job `name` of one instance per node on two
/// nodes, a run that must fail (exit 1): its records (by node), its output
/// and its summary.
fn a_failing_run(name: &str, body: &str) -> (Vec<(String, Value)>, String, String) {
    let _cluster = cluster();
    let b = Bench::new();
    let prog = b.script(&format!("{name}.sh"), body);
    let jobs = b.jobs(&format!(r#"[{{"name": "{name}", "cmd": "{}", "cgroup": "student"}}]"#, prog.display()));
    let (out, text) = slurm::run(b.command(TWO_NODES, &jobs, &[]));
    assert_eq!(out.status.code(), Some(1), "{text}");
    (reports(&b.out()), text, summary(&b.out()))
}

#[test]
fn timeout_applies_per_instance_on_its_node() {
    let _cluster = cluster();
    let b = Bench::new();
    let prog = b.script("slow.sh", "if [ \"$JOB_ID\" = 1 ]; then exec sleep 60; fi\nexit 0");
    let jobs = b.jobs(&format!(r#"[{{"name": "slow", "cmd": "{}", "cgroup": "student"}}]"#, prog.display()));
    let t0 = Instant::now();
    let (out, text) = slurm::run(b.command(TWO_NODES, &jobs, &["--timeout", "2"]));
    assert!(t0.elapsed() < Duration::from_secs(30), "{:?}\n{text}", t0.elapsed());
    assert_eq!(out.status.code(), Some(1), "{text}");
    let reps = reports(&b.out());
    assert_eq!(reps.len(), 1, "only the slow rank failed: {reps:?}");
    assert_eq!((reps[0].0.as_str(), reps[0].1["failure"]["cause"].as_str()), ("n2", Some("timeout")));
    assert!(summary(&b.out()).contains("[ 1/ 2] FAILED"), "{}", summary(&b.out()));
}

#[test]
fn a_node_task_killed_after_its_start_is_recorded_as_killed_not_as_a_launch_failure() {
    // Rank 1 kills its `mlb slurm task` (its parent) once it has run a while.
    let (reps, text, _) =
        a_failing_run("orphan", "if [ \"$JOB_ID\" = 1 ]; then sleep 1; kill -KILL $PPID; fi\nsleep 2\nexit 0");
    let killed: Vec<&Value> = reps.iter().map(|(_, r)| r).filter(|r| r["jr_id"] == "1").collect();
    assert_eq!(killed.len(), 1, "rank 1 is recorded: {reps:?}\n{text}");
    let failure = &killed[0]["failure"];
    assert_eq!(failure["cause"], "crash", "{failure}\n{text}");
    let message = failure["message"].as_str().unwrap();
    assert!(message.contains("the Slurm task was killed after it started its instance"), "{message}");
}

#[test]
fn ctrl_c_cancels_the_step_and_leaves_nothing_running() {
    let _cluster = cluster();
    let b = Bench::new();
    // A duration only this test's tasks sleep: other tests in this binary sleep 300 too.
    let sleep = format!("sleep 300.{}", std::process::id());
    let prog = b.script("long.sh", &format!("exec {sleep}"));
    let jobs = b.jobs(&format!(r#"[{{"name": "long", "cmd": "{}", "cgroup": "student"}}]"#, prog.display()));
    let mut child = b.command(TWO_NODES, &jobs, &[]).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    // Wait until both tasks run.
    let until = Instant::now() + Duration::from_secs(30);
    while slurm::steps().iter().filter(|s| s.contains("mlb:long")).count() == 0 && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(100));
    }
    std::thread::sleep(Duration::from_millis(500));
    let mlb = mlb_pid_under(child.id()).expect("mlb runs under salloc");
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(mlb), nix::sys::signal::Signal::SIGINT).unwrap();
    let t0 = Instant::now();
    let status = child.wait().unwrap();
    let mut text = String::new();
    std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut text).unwrap();
    assert!(t0.elapsed() < Duration::from_secs(20), "stopped in {:?}", t0.elapsed());
    assert_eq!(status.code(), Some(130), "{text}");
    assert!(slurm::wait_idle(Duration::from_secs(20)), "steps left: {:?}", slurm::steps());
    assert!(!b.out().join("summary.txt").exists() || !summary(&b.out()).contains("long"), "no result line");
    let sleeping = Command::new("pgrep").args(["-f", &sleep]).output().unwrap();
    assert!(sleeping.stdout.is_empty(), "no task left: {}", String::from_utf8_lossy(&sleeping.stdout));
}

/// The pid of the `mlb` that `salloc` (pid `salloc`) started.
fn mlb_pid_under(salloc: u32) -> Option<i32> {
    let until = Instant::now() + Duration::from_secs(10);
    while Instant::now() < until {
        let out = Command::new("pgrep").args(["-P", &salloc.to_string()]).output().ok()?;
        if let Some(pid) = String::from_utf8_lossy(&out.stdout).split_whitespace().next() {
            return pid.parse().ok();
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    None
}

#[test]
fn resume_skips_configs_complete_on_every_node() {
    let _cluster = cluster();
    let b = Bench::new();
    let jobs = b.jobs(r#"[{"name": "r", "plugin": "spin", "args": {"repeat": 11, "number": 1, "size": [8, 16]}, "cgroup": "student"}]"#);
    let (out, text) = slurm::run(b.command(TWO_NODES, &jobs, &[]));
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert_eq!(reports(&b.out()).len(), 4);
    // One report of the second config lost: only that config runs again.
    let (_, lost) = reports(&b.out()).into_iter().find(|(n, r)| n == "n2" && r["size"] == 16).unwrap();
    let file = std::fs::read_dir(b.out().join("n2"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| std::fs::read_to_string(p).unwrap().contains(lost["start_time"].as_str().unwrap()))
        .unwrap();
    std::fs::remove_file(file).unwrap();
    let (out, text) = slurm::run(b.command(TWO_NODES, &jobs, &["--resume"]));
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("skip r[size=8]"), "{text}");
    assert_eq!(reports(&b.out()).len(), 5, "the second config ran again on both nodes");
}

#[test]
fn submit_writes_a_script_and_the_batch_job_runs_it() {
    let _cluster = cluster();
    let b = Bench::new();
    let jobs = b.jobs(
        r#"[{"name": "batch", "plugin": "spin", "args": {"repeat": 11, "number": 1, "size": 8}, "cgroup": "student"}]"#,
    );
    let dry = slurm::client(common::mlb().to_str().unwrap())
        .args(["slurm", "submit", "--jobs", jobs.to_str().unwrap(), "--nodes", "2", "--dry-run"])
        .output()
        .unwrap();
    let script = String::from_utf8_lossy(&dry.stdout).into_owned();
    assert!(script.contains("#SBATCH --nodes=2") && script.contains("--slurm --jobs"), "{script}");
    assert!(!b.out().exists(), "--dry-run submits and writes nothing");
    let mut submit = slurm::client(common::mlb().to_str().unwrap());
    submit.args(["--plugin-dir", b.spin.path().to_str().unwrap()]);
    submit.args(["slurm", "submit", "--jobs", jobs.to_str().unwrap(), "--nodes", "2"]);
    submit.args(["--outdir", b.out().to_str().unwrap(), "--time", "5"]);
    let (out, text) = slurm::run(submit);
    assert_eq!(out.status.code(), Some(0), "{text}");
    let job = text.split("submitted Slurm job ").nth(1).and_then(|t| t.split_whitespace().next()).unwrap().to_string();
    assert!(b.out().join("mlb-slurm.sbatch").is_file());
    assert!(slurm::wait_idle(Duration::from_secs(60)), "job {job} ended: {:?}", slurm::steps());
    let batch_out = std::fs::read_to_string(b.out().join(format!("slurm-{job}.out"))).unwrap_or_default();
    let reps = reports(&b.out());
    assert_eq!(reps.len(), 2, "{reps:?}\n{batch_out}");
    assert!(reps.iter().all(|(_, r)| r["completed"] == true));
    assert!(summary(&b.out()).contains("PASSED"), "{batch_out}");
}

#[test]
fn outside_an_allocation_the_run_is_refused_naming_submit() {
    let b = Bench::new();
    let jobs = b.jobs(r#"[{"name": "x", "plugin": "spin", "cgroup": "student"}]"#);
    let mut c = Command::new(common::mlb());
    c.args(["--plugin-dir", b.spin.path().to_str().unwrap(), "--slurm", "--jobs", jobs.to_str().unwrap()]);
    c.args(["--outdir", b.out().to_str().unwrap()]).env_remove("SLURM_JOB_ID").env("RUST_BACKTRACE", "0");
    let (out, text) = slurm::run(c);
    assert_eq!(out.status.code(), Some(2), "{text}");
    assert!(text.contains("mlb slurm submit"), "{text}");
    assert!(!b.out().exists(), "nothing started, nothing written");
}

#[test]
fn more_slots_than_the_allocation_holds_is_refused_before_anything_starts() {
    let _cluster = cluster();
    let b = Bench::new();
    let jobs = b.jobs(r#"[{"name": "x", "plugin": "spin", "args": {"repeat": 11}, "cgroup": "student"}]"#);
    // One CPU per node allocated, three slots asked for.
    let (out, text) = slurm::run(b.command(&["-N2", "--ntasks-per-node=1"], &jobs, &["--devices", "3"]));
    assert_eq!(out.status.code(), Some(2), "{text}");
    assert!(text.contains("3 slots per node") && text.contains("fix:"), "{text}");
    assert!(!b.out().exists(), "nothing started, nothing written");
}

#[test]
fn docker_without_pyxis_is_refused_with_the_reason() {
    let _cluster = cluster();
    let b = Bench::new();
    let jobs = b.jobs(r#"[{"name": "x", "plugin": "spin", "args": {"repeat": 11}, "cgroup": "student"}]"#);
    let (out, text) = slurm::run(b.command(TWO_NODES, &jobs, &["--docker", "ubuntu"]));
    assert_eq!(out.status.code(), Some(2), "{text}");
    assert!(text.contains("pyxis"), "{text}");
    assert!(!b.out().exists(), "nothing started");
}

/// pyxis cannot run here (it needs enroot and a container runtime): the test
/// cluster's srun and slurmd load a stand-in SPANK plugin
/// (scripts/slurm/pyxis-standin.c) that registers pyxis's options when
/// `MLB_PYXIS_STANDIN=1` and logs what each task was asked, running the task
/// on its node without a container. What is real: the detection from `srun
/// --help`, srun's parsing of the flags and their passage to every task.
#[test]
fn docker_steps_go_through_pyxis_one_container_per_node() {
    let _cluster = cluster();
    let b = Bench::new();
    let jobs = b.jobs(
        r#"[{"name": "px", "plugin": "spin", "args": {"repeat": 11, "number": 1, "size": [8, 16]}, "cgroup": "student"}]"#,
    );
    let unique = format!("{}-{}", std::process::id(), std::time::SystemTime::UNIX_EPOCH.elapsed().unwrap().as_nanos());
    let image = format!("registry.example.org:5000/mlb/test-{unique}:1");
    let mut command = b.command(TWO_NODES, &jobs, &["--docker", &image]);
    command.env("MLB_PYXIS_STANDIN", "1");
    let (out, text) = slurm::run(command);
    assert_eq!(out.status.code(), Some(0), "{text}");
    let reps = reports(&b.out());
    assert_eq!(reps.len(), 4, "two configs on two nodes: {text}");
    let job = reps[0].1["provenance"]["slurm"]["job_id"].as_str().unwrap().to_string();
    let log = std::fs::read_to_string(slurm::dir().join("pyxis-standin.log")).unwrap();
    let field = |line: &str, key: &str| -> String {
        line.split(' ').find_map(|kv| kv.strip_prefix(&format!("{key}="))).unwrap_or_default().to_string()
    };
    let mut tasks: Vec<(String, String, String)> = log
        .lines()
        .filter(|l| field(l, "job") == job)
        .map(|l| {
            let enroot = format!("registry.example.org:5000#mlb/test-{unique}:1");
            assert_eq!(field(l, "image"), enroot, "enroot's name of the image: {l}");
            let mounts = field(l, "mounts");
            let outdir = b.out();
            assert!(mounts.split(',').any(|m| m == format!("{0}:{0}", outdir.display())), "{mounts}");
            let mlb = Path::new(env!("CARGO_BIN_EXE_mlb")).parent().unwrap().to_path_buf();
            assert!(mounts.split(',').any(|m| m == format!("{0}:{0}:ro", mlb.display())), "mlb read-only: {mounts}");
            assert!(field(l, "name").starts_with("mlb-"), "{l}");
            (field(l, "step"), field(l, "node"), field(l, "container"))
        })
        .collect();
    tasks.sort();
    let task = |step: &str, node: &str, c: &str| (step.to_string(), node.to_string(), c.to_string());
    assert_eq!(
        tasks,
        [
            task("0", "n1", "imported"),
            task("0", "n2", "imported"),
            task("1", "n1", "reused"),
            task("1", "n2", "reused")
        ],
        "each node imports the image once, the second step reuses it:\n{log}"
    );
}

#[test]
fn singularity_tasks_run_apptainer_exec_on_their_node() {
    let _cluster = cluster();
    let b = Bench::new();
    let bin = b.dir.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let apptainer = common::write(&bin, "apptainer", common::standin::STAND_IN);
    std::fs::set_permissions(&apptainer, std::fs::Permissions::from_mode(0o755)).unwrap();
    let sif = common::write(b.dir.path(), "mlb-cpu.sif", "stand-in image");
    let jobs = b.jobs(
        r#"[{"name": "sing", "plugin": "spin", "args": {"repeat": 11, "number": 1, "size": 8}, "cgroup": "student"}]"#,
    );
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    let mut c = b.command(TWO_NODES, &jobs, &["--singularity", sif.to_str().unwrap()]);
    c.env("PATH", path).env("STANDIN_IMAGE_BIN", common::spin_plugin().parent().unwrap());
    let (out, text) = slurm::run(c);
    assert_eq!(out.status.code(), Some(0), "{text}");
    let reps = reports(&b.out());
    assert_eq!(reps.len(), 2, "{reps:?}\n{text}");
    for (node, r) in &reps {
        let p = &r["provenance"];
        assert_eq!(p["container"]["runtime"], "apptainer", "{p}");
        assert_eq!(p["slurm"]["node"], node.as_str(), "{p}");
        assert_eq!(p["isolation"], Isolation::Slurm.name(), "{p}");
    }
}

#[test]
fn two_slots_per_node_and_an_all_job_with_one_task_per_node() {
    let _cluster = cluster();
    let b = Bench::new();
    let jobs = b.jobs(
        r#"[{"name": "slots", "plugin": "spin", "args": {"repeat": 11, "number": 1, "size": 8}, "cgroup": "student"},
            {"name": "whole", "plugin": "spin", "args": {"repeat": 11, "number": 1, "size": 8}, "cgroup": "all"}]"#,
    );
    let (out, text) = slurm::run(b.command(&["-N2", "--ntasks-per-node=2"], &jobs, &["--devices", "2"]));
    assert_eq!(out.status.code(), Some(0), "{text}");
    let reps = reports(&b.out());
    let of = |name: &str| -> Vec<(String, String, String, u64)> {
        let mut v: Vec<_> = reps
            .iter()
            .filter(|(_, r)| r["name"] == name)
            .map(|(node, r)| {
                let p = &r["provenance"];
                let (jr, vcd) = (r["jr_id"].as_str().unwrap().to_string(), r["vcd"].as_str().unwrap().to_string());
                (node.clone(), jr, vcd, p["cpu_count"].as_u64().unwrap())
            })
            .collect();
        v.sort();
        v
    };
    let slot = |n: &str, jr: &str, vcd: &str| (n.to_string(), jr.to_string(), vcd.to_string(), 1);
    assert_eq!(
        of("slots"),
        vec![slot("n1", "0", "0"), slot("n1", "1", "1"), slot("n2", "2", "0"), slot("n2", "3", "1")],
        "ranks n*G+slot, each task bound to its one CPU: {text}"
    );
    let whole = |n: &str, jr: &str| (n.to_string(), jr.to_string(), "0,1".to_string(), 2);
    assert_eq!(of("whole"), vec![whole("n1", "0"), whole("n2", "1")], "one task per node seeing every slot");
    for (node, r) in reps.iter().filter(|(_, r)| r["name"] == "whole") {
        let p = &r["provenance"];
        assert_eq!(
            (p["isolation"].as_str(), p["slurm"]["node"].as_str()),
            (Some(Isolation::Slurm.name()), Some(node.as_str())),
            "{p}"
        );
    }
    let cpus: std::collections::BTreeSet<String> = reps
        .iter()
        .filter(|(n, r)| n == "n1" && r["name"] == "slots")
        .map(|(_, r)| r["provenance"]["cpus"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(cpus.len(), 2, "the two tasks of a node got distinct cores: {cpus:?}");
    // mlb report: a row per node and a column per node's GPU.
    let report =
        common::run(&["report", "--reports", b.out().to_str().unwrap(), "--rows", "bench", "--format", "json"]);
    let (stdout, stderr) = common::text(&report);
    assert_eq!(report.status.code(), Some(0), "{stdout}{stderr}");
    let json: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(json["per_node"]["nodes"], serde_json::json!(["n1", "n2"]), "{}", json["per_node"]);
    let rows: Vec<&str> =
        json["per_node"]["rows"].as_array().unwrap().iter().map(|r| r["label"].as_str().unwrap()).collect();
    assert_eq!(rows, ["slots", "whole"], "the all job's one task per node counts for its node too");
    let devices: Vec<(String, String)> = json["per_gpu"]["devices"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| (d["node"].as_str().unwrap().to_string(), d["id"].as_str().unwrap().to_string()))
        .collect();
    let device = |n: &str, id: &str| (n.to_string(), id.to_string());
    assert_eq!(devices, [device("n1", "0"), device("n1", "1"), device("n2", "0"), device("n2", "1")]);
    let text = common::run(&["report", "--reports", b.out().to_str().unwrap()]);
    let (stdout, _) = common::text(&text);
    assert!(stdout.contains("Relative node performance") && stdout.contains("n2/1"), "{stdout}");
}
