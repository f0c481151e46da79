//! The launcher with container runtimes, end to end through the `mlb`
//! binary: `mlb --docker IMAGE --jobs FILE` against a real Docker daemon and
//! the local test image (real containers, cpusets, memory limits, OOM kills),
//! and `mlb --singularity IMAGE --jobs FILE` against the STAND-IN `apptainer`
//! of `common::standin` (Apptainer cannot be installed here) under real cgroups.
//!
//! The Docker tests FAIL (they do not skip) when no daemon answers: run
//! `scripts/setup-docker.sh` as root first.

use crate::common;

use common::docker::{docker, test_image, test_image_tag};
use common::enclosure::Enclosure;
use common::{reports, spin_dir, text, write};
use mlb::isolation::Isolation;
use mlb::runtime::docker::JOB_LABEL;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const PAGE: u64 = 4096;

/// A jobs folder, an output folder and the spin plugin, for one test; job
/// names carry the test's unique suffix so its containers can be found by label.
struct Bench {
    dir: tempfile::TempDir,
    spin: tempfile::TempDir,
    suffix: String,
}

impl Bench {
    fn new(name: &str) -> Bench {
        Bench { dir: tempfile::tempdir().unwrap(), spin: spin_dir(), suffix: format!("{name}{}", std::process::id()) }
    }

    fn out(&self) -> PathBuf {
        self.dir.path().join("out")
    }

    /// A job name unique to this test.
    fn job(&self, name: &str) -> String {
        format!("{name}_{}", self.suffix)
    }

    /// Writes the jobs file; `@` in `text` stands for the unique suffix.
    fn jobs(&self, text: &str) -> PathBuf {
        write(self.dir.path(), "suite.json", &text.replace('@', &self.suffix))
    }

    fn command(&self, jobs: &Path, extra: &[&str]) -> Command {
        let mut c = Command::new(common::mlb());
        c.args(["--plugin-dir", self.spin.path().to_str().unwrap(), "--jobs", jobs.to_str().unwrap()]);
        c.args(["--outdir", self.out().to_str().unwrap(), "--devices", "2"]).args(extra);
        c.env("RUST_BACKTRACE", "0");
        // Tests run side by side: each takes a host lock of its own.
        common::launcher::private_lock(&mut c, &self.dir.path().join("mlb.lock"));
        c
    }

    fn run(&self, jobs: &Path, extra: &[&str]) -> Output {
        self.command(jobs, extra).output().unwrap()
    }

    /// Containers (running or not) of job `name`.
    fn containers(&self, name: &str) -> Vec<String> {
        docker().containers_labelled(JOB_LABEL, &self.job(name)).unwrap()
    }
}

fn host() -> mlb::host::Host {
    mlb::host::detect(&mlb::host::Probe::this_host())
}

/// The reports of job `name`, by instance.
fn of_job<'a>(reps: &'a [(String, Value)], b: &Bench, name: &str) -> Vec<&'a (String, Value)> {
    let job = b.job(name);
    reps.iter().filter(|(_, r)| r["name"] == job.as_str()).collect()
}

#[test]
fn two_slots_in_containers_get_their_cpuset_and_memory_applied_and_seen() {
    let b = Bench::new("slots");
    let image = test_image(&docker());
    let jobs = b.jobs(
        r#"[{"name": "s_@", "plugin": "spin", "args": {"repeat": 12, "number": 2, "size": 16}, "cgroup": "student"}]"#,
    );
    let out = b.run(&jobs, &["--docker", test_image_tag()]);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(stdout.lines().next().unwrap().contains("PASSED"), "{stdout}");
    assert!(stderr.contains(&format!("[s_{} 1/2] [ 12/ 12]", b.suffix)), "output streamed with a prefix: {stderr}");

    let host = host();
    let memory = host.memory.usable_bytes / 2 / PAGE * PAGE;
    let reps = reports(&b.out());
    let mine = of_job(&reps, &b, "s");
    assert_eq!(mine.len(), 2, "{reps:?}");
    let mut seen_cpus = Vec::new();
    for (i, (name, r)) in mine.iter().enumerate() {
        assert!(name.contains(&format!(".D{i}.")) && r["completed"] == true, "{name}");
        let p = &r["provenance"];
        assert_eq!(p["isolation"], Isolation::Docker.name(), "{p}");
        // Seen from inside the container.
        assert_eq!(p["cpu_count"], host.cpus.len() / 2, "{p}");
        assert_eq!(p["memory_limit_bytes"], memory, "{p}");
        // Applied by Docker (checked against inspect before the start).
        let c = &p["container"];
        assert_eq!((c["runtime"].as_str(), c["image"].as_str()), (Some("docker"), Some(test_image_tag())));
        assert_eq!(c["digest"], image.digest.as_str());
        assert_eq!(c["limits"]["cpuset_cpus"], p["cpus"], "{p}");
        assert_eq!(c["limits"]["memory_bytes"], memory);
        assert_eq!(c["limits"]["memory_swap_bytes"], memory, "no swap beyond the limit");
        seen_cpus.push(p["cpus"].as_str().unwrap().to_string());
        let log = b.out().join(format!("logs/suite.{}.C1.R0.J{i}.log", b.job("s")));
        let log = std::fs::read_to_string(&log).unwrap_or_else(|e| panic!("{}: {e}", log.display()));
        assert!(log.contains("[ 12/ 12]") && log.contains("report: "), "the instance log: {log}");
    }
    assert_ne!(seen_cpus[0], seen_cpus[1], "each slot its own CPUs");
    assert!(b.containers("s").is_empty(), "containers removed at the end");
}

#[test]
fn an_instance_past_its_memory_is_oom_killed_in_its_container_the_other_passes() {
    let b = Bench::new("oom");
    // Under a 768 MiB enclosing limit the launcher gives each slot 384 MiB,
    // which Docker applies; instance 1 allocates 1000 MiB, instance 0 nothing.
    let enclosure = Enclosure::new(&format!("mlb-test-docker-{}", b.suffix), 768 << 20);
    let jobs = b.jobs(
        r#"[{"name": "m_@", "plugin": "spin", "args": {"repeat": 12, "number": 1, "alloc_mb": "${JOB_ID}000"}, "cgroup": "student"}]"#,
    );
    let mut cmd = b.command(&jobs, &["--docker", test_image_tag()]);
    enclosure.place(&mut cmd);
    let out = cmd.output().unwrap();
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{stderr}");
    assert!(stdout.starts_with("[ 1/ 1][ 1/ 2] FAILED"), "{stdout}\n{stderr}");
    assert!(stderr.contains("instance 1 (device 1): oom-killed"), "{stderr}");
    let reps = reports(&b.out());
    let mine = of_job(&reps, &b, "m");
    assert_eq!(mine.len(), 2, "{reps:?}");
    let (ok, fail) = (&mine[0].1, &mine[1].1);
    assert_eq!(ok["completed"], true);
    assert_eq!(ok["provenance"]["memory_limit_bytes"], 384u64 << 20);
    assert!(mine[1].0.contains(".D1.FAIL."), "{}", mine[1].0);
    assert_eq!(fail["failure"]["cause"], "oom");
    assert!(fail["failure"]["message"].as_str().unwrap().contains("memory limit of 384 MiB"), "{fail}");
    let p = &fail["provenance"];
    assert_eq!((p["written_by"].as_str(), p["isolation"].as_str()), (Some("launcher"), Some(Isolation::Docker.name())));
    assert_eq!(p["container"]["image"], test_image_tag());
    assert!(b.containers("m").is_empty());
}

#[test]
fn crash_timeout_and_error_in_containers_end_as_on_bare_metal() {
    let b = Bench::new("faults");
    let jobs = b.jobs(
        r#"[{"name": "crash_@", "plugin": "spin", "args": {"repeat": 12, "number": 1, "abort_at": 2}, "cgroup": "student"},
            {"name": "hang_@", "plugin": "spin", "args": {"repeat": 12, "number": 1, "hang_at": 2}, "cgroup": "all"},
            {"name": "err_@", "plugin": "spin", "args": {"repeat": 12, "number": 1, "error_at": 2}, "cgroup": "all"}]"#,
    );
    let started = Instant::now();
    let out = b.run(&jobs, &["--docker", test_image_tag(), "--timeout", "3"]);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{stderr}");
    assert!(started.elapsed() < Duration::from_secs(60), "the hanging container was stopped");
    for expected in [
        "crashed: killed by signal 6 (SIGABRT)",
        "timed-out: killed after running past --timeout 3 s",
        "failed: exit code 3",
    ] {
        assert!(stderr.contains(expected), "{expected:?} in {stderr}");
    }
    let causes: Vec<(String, String)> = reports(&b.out())
        .into_iter()
        .filter(|(_, r)| r["completed"] == false)
        .map(|(_, r)| {
            let by = r["provenance"]["written_by"].as_str().unwrap_or("worker").to_string();
            (r["failure"]["cause"].as_str().unwrap().to_string(), by)
        })
        .collect();
    let count = |cause: &str, by: &str| causes.iter().filter(|c| c.0 == cause && c.1 == by).count();
    assert_eq!(
        (count("crash", "launcher"), count("timeout", "launcher"), count("error", "worker")),
        (2, 1, 1),
        "{causes:?}"
    );
    for job in ["crash", "hang", "err"] {
        assert!(b.containers(job).is_empty(), "{job}: container removed");
    }
}

#[test]
fn sigint_mid_run_leaves_no_container_and_keeps_the_lines_so_far() {
    let b = Bench::new("sigint");
    let jobs = b.jobs(
        r#"[{"name": "quick_@", "plugin": "spin", "args": {"repeat": 11, "number": 1}, "cgroup": "student"},
            {"name": "slow_@", "plugin": "spin", "args": {"repeat": 2000, "number": 1, "sleep_ms": 50}, "cgroup": "student"}]"#,
    );
    let child = b
        .command(&jobs, &["--docker", test_image_tag()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while b.containers("slow").len() < 2 {
        assert!(Instant::now() < deadline, "the slow job's containers never appeared");
        std::thread::sleep(Duration::from_millis(100));
    }
    std::thread::sleep(Duration::from_millis(500)); // started, streaming
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(child.id() as i32), nix::sys::signal::Signal::SIGINT).unwrap();
    let started = Instant::now();
    let out = child.wait_with_output().unwrap();
    let (stdout, stderr) = text(&out);
    assert!(started.elapsed() < Duration::from_secs(30), "stopped promptly");
    assert_eq!(out.status.code(), Some(130), "{stdout}\n{stderr}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{stdout}");
    assert!(lines[0].starts_with("[ 1/ 2][  /  ] PASSED") && lines[1].starts_with("Total Time"), "{stdout}");
    assert_eq!(b.containers("slow"), Vec::<String>::new(), "no container left behind");
    assert_eq!(std::fs::read_to_string(b.out().join("summary.txt")).unwrap(), stdout);
}

#[test]
fn a_missing_image_names_the_build_command_and_a_dead_daemon_is_named() {
    let b = Bench::new("errors");
    let _ = docker(); // the daemon must answer for the first case
    let jobs = b.jobs(r#"[{"name": "e_@", "plugin": "spin", "args": {"repeat": 11}, "cgroup": "student"}]"#);
    let out = b.run(&jobs, &["--docker", "mlb-test:no-such-tag"]);
    let (_, stderr) = text(&out);
    assert!(!out.status.success(), "{stderr}");
    assert!(
        stderr.contains("image `mlb-test:no-such-tag` not found") && stderr.contains("scripts/build-test-image.sh"),
        "{stderr}"
    );
    let out = b.run(&jobs, &["--docker", "rocm"]);
    assert!(text(&out).1.contains("build it with `mlb containers build rocm`"), "{}", text(&out).1);

    // A daemon that died: its socket is there, nobody listens.
    let dead = b.dir.path().join("dead.sock");
    drop(std::os::unix::net::UnixListener::bind(&dead).unwrap());
    let out = b
        .command(&jobs, &["--docker", test_image_tag()])
        .env("DOCKER_HOST", format!("unix://{}", dead.display()))
        .output()
        .unwrap();
    let (_, stderr) = text(&out);
    assert!(!out.status.success());
    assert!(
        stderr.contains("cannot reach the Docker daemon at unix://") && stderr.contains("is dockerd running?"),
        "{stderr}"
    );
    assert!(reports(&b.out()).is_empty(), "nothing ran");
}

#[test]
fn container_instances_get_the_telemetry_of_their_own_container_group() {
    let b = Bench::new("telemetry");
    // Busy warm-up (4 observations of 3 steps of size 200), idle timed steps
    // (4 of 3 sleeps of 60 ms): a block reaching outside the window, or
    // reading another group than the container's, shows CPU time.
    let jobs = b.jobs(
        r#"[{"name": "t_@", "plugin": "spin", "cgroup": "student",
             "args": {"repeat": 8, "skip": 4, "number": 3, "size": 200, "sleep_ms": 60, "idle_from": 13}}]"#,
    );
    let out = b.run(&jobs, &["--docker", test_image_tag(), "--sample-hz", "50"]);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    let reps = reports(&b.out());
    let mine = of_job(&reps, &b, "t");
    assert_eq!(mine.len(), 2, "{reps:?}");
    let mut groups = Vec::new();
    for (name, r) in mine {
        let t = &r["telemetry"];
        let source = t["sources"]["slot"].as_str().unwrap_or_else(|| panic!("{name}: {t:#}"));
        assert!(source.ends_with("(the container's group)"), "{name}: {source}");
        groups.push(source.to_string());
        let window = t["window_seconds"].as_f64().unwrap();
        let slot = &t["slot"];
        let cpu_s =
            slot["totals"]["cpu_ns"].as_f64().unwrap_or_else(|| panic!("{name}: cpu_ns at both edges: {slot:#}"));
        assert!(
            cpu_s > 0.0 && cpu_s / 1e9 < 0.15 * window,
            "{name}: {cpu_s} ns of CPU in a {window} s window of sleeps"
        );
        assert!(slot["stats"]["memory_bytes"]["mean"].as_f64().unwrap() > 0.0, "{name}: {slot:#}");
        assert!(slot["stats"]["memory_peak_bytes"]["max"].as_f64().unwrap() > 0.0, "{name}: {slot:#}");
        assert!(slot["totals"]["page_faults"].as_f64().is_some(), "{name}: {slot:#}");
    }
    assert_ne!(groups[0], groups[1], "each instance its own container's group");
    assert!(b.containers("t").is_empty(), "containers removed at the end");
}

#[test]
fn dry_run_shows_each_container_and_starts_nothing() {
    let b = Bench::new("dry");
    let image = test_image(&docker());
    let jobs = b.jobs(r#"[{"name": "d_@", "plugin": "spin", "args": {"repeat": 11}, "cgroup": "student"}]"#);
    let out = b.run(&jobs, &["--docker", test_image_tag(), "--dry-run"]);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stderr}");
    assert!(stdout.contains(&format!("docker image: {} ({})", test_image_tag(), image.digest)), "{stdout}");
    assert_eq!(stdout.matches("docker create body:").count(), 2, "{stdout}");
    let host = host();
    let memory = host.memory.usable_bytes / 2 / PAGE * PAGE;
    for needle in [
        format!("\"Image\": \"{}\"", image.id),
        "\"/opt/mlb/bin/mlb\"".to_string(),
        "\"--plugin=/opt/mlb/lib/mlb/plugins/libmlb_spin.so\"".to_string(),
        format!("\"Memory\": {memory}"),
        "\"CpusetCpus\": \"0\"".to_string(),
        format!("\"{}:{}:rw\"", b.out().display(), b.out().display()),
        "\"MLB_ISOLATION=docker\"".to_string(),
        format!("\"mlb.job\": \"{}\"", b.job("d")),
        "none (the container runtime applies the limits)".to_string(),
    ] {
        assert!(stdout.contains(&needle), "{needle} in {stdout}");
    }
    assert!(b.containers("d").is_empty() && reports(&b.out()).is_empty());
}

/// A stand-in `apptainer` first on PATH, an image file, and the folder
/// holding this build's `mlb` and spin plugin, laid out as the image's.
fn stand_in(dir: &Path) -> (PathBuf, PathBuf) {
    use std::os::unix::fs::PermissionsExt;
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::write(bin.join("apptainer"), common::standin::STAND_IN).unwrap();
    std::fs::set_permissions(bin.join("apptainer"), std::fs::Permissions::from_mode(0o755)).unwrap();
    let sif = dir.join("mlb-cpu.sif");
    std::fs::write(&sif, "stand-in image").unwrap();
    (bin, sif)
}

#[test]
fn singularity_instances_run_in_their_slot_cgroup_through_the_stand_in() {
    let b = Bench::new("sing");
    let (bin, sif) = stand_in(b.dir.path());
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap_or_default());
    let jobs = b.jobs(
        r#"[{"name": "g_@", "plugin": "spin", "args": {"repeat": 12, "number": 1, "size": 8}, "cgroup": "student"}]"#,
    );
    let out = b
        .command(&jobs, &["--singularity", sif.to_str().unwrap()])
        .env("PATH", path)
        .env("STANDIN_IMAGE_BIN", common::spin_plugin().parent().unwrap())
        .output()
        .unwrap();
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    let host = host();
    let memory = host.memory.usable_bytes / 2 / PAGE * PAGE;
    let digest = mlb::runtime::singularity::SingularityImage::open(&sif).unwrap().digest;
    let reps = reports(&b.out());
    let mine = of_job(&reps, &b, "g");
    assert_eq!(mine.len(), 2, "reports written through the bound output folder: {reps:?}");
    let per = host.cpus.len() / 2;
    for (i, (_, r)) in mine.iter().enumerate() {
        // The environment went in through APPTAINERENV_*: identity and seed.
        assert_eq!(
            (r["jr_id"].as_str(), r["seed"].as_u64()),
            (Some(i.to_string().as_str()), Some((i as u64 + 1) * 100))
        );
        let p = &r["provenance"];
        let cpus = mlb::linux::cpulist::format(&host.cpus[i * per..(i + 1) * per]);
        assert_eq!(p["cpus"], cpus.as_str(), "the exec process was placed in slot {i}'s cgroup: {p}");
        assert_eq!(p["memory_limit_bytes"], memory, "{p}");
        assert!(
            matches!(p["isolation"].as_str().unwrap().parse(), Ok(Isolation::CgroupV1 | Isolation::CgroupV2)),
            "{p}"
        );
        assert!(p["cgroup"].as_str().unwrap().ends_with(&format!("/slot{i}")), "{p}");
        let c = &p["container"];
        assert_eq!((c["runtime"].as_str(), c["digest"].as_str()), (Some("apptainer"), Some(digest.as_str())));
        assert_eq!(c["image"], sif.to_str().unwrap());
    }
}

#[test]
fn singularity_without_a_runtime_says_what_to_install() {
    let b = Bench::new("noruntime");
    let (_, sif) = stand_in(b.dir.path());
    let jobs = b.jobs(r#"[{"name": "n_@", "plugin": "spin", "args": {"repeat": 11}, "cgroup": "student"}]"#);
    let empty = tempfile::tempdir().unwrap();
    let out = b.command(&jobs, &["--singularity", sif.to_str().unwrap()]).env("PATH", empty.path()).output().unwrap();
    let (_, stderr) = text(&out);
    assert!(!out.status.success());
    assert!(
        stderr.contains("neither `apptainer` nor `singularity` is on PATH") && stderr.contains("install Apptainer"),
        "{stderr}"
    );
    let out = b.run(&jobs, &["--singularity", sif.to_str().unwrap(), "--docker"]);
    assert!(text(&out).1.contains("cannot be used with"), "{}", text(&out).1);
}
