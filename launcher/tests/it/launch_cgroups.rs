//! Real runs of the launcher on this host: two slots of spin under real
//! cgroups (root, cgroup v1 or v2), supervision outcomes, Ctrl-C, resume,
//! `cmd` jobs. Set `MLB_SKIP_CGROUP_TESTS=1` to skip them on a host where
//! mlb cannot create cgroups (not root, no cpuset/memory controllers).

use crate::common;

use common::enclosure::Enclosure;
use common::{reports, spin_dir, text, write};
use mlb::isolation::Isolation;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// A jobs folder, an output folder and the spin plugin, for one test.
struct Bench {
    dir: tempfile::TempDir,
    spin: tempfile::TempDir,
    suite: String,
}

impl Bench {
    /// `name` becomes the jobs file's (and the suite's) name: unique per test,
    /// so leftovers of one test are recognisable.
    fn new(name: &str) -> Option<Bench> {
        if std::env::var_os("MLB_SKIP_CGROUP_TESTS").is_some() {
            eprintln!("MLB_SKIP_CGROUP_TESTS is set: skipping a real cgroup test");
            return None;
        }
        let host = mlb::host::detect(&mlb::host::Probe::this_host());
        if let Some(why) = host.cgroup.reason {
            panic!("these tests need real cgroups, but {why}; set MLB_SKIP_CGROUP_TESTS=1 to skip them");
        }
        let suite = format!("{name}{}", std::process::id());
        Some(Bench { dir: tempfile::tempdir().unwrap(), spin: spin_dir(), suite })
    }

    fn out(&self) -> PathBuf {
        self.dir.path().join("out")
    }

    fn jobs(&self, text: &str) -> PathBuf {
        write(self.dir.path(), &format!("{}.json", self.suite), text)
    }

    fn command(&self, jobs: &Path, extra: &[&str]) -> Command {
        let mut c = Command::new(common::mlb());
        c.args(["--plugin-dir", self.spin.path().to_str().unwrap(), "--jobs", jobs.to_str().unwrap()]);
        c.args(["--outdir", self.out().to_str().unwrap(), "--devices", "2"]).args(extra);
        // Tests run side by side: each takes a host lock of its own.
        common::launcher::private_lock(&mut c, &self.dir.path().join("mlb.lock"));
        c
    }

    fn run(&self, jobs: &Path, extra: &[&str]) -> Output {
        self.command(jobs, extra).output().unwrap()
    }

    /// cgroup folders of this test's runs still present.
    fn leftover_groups(&self) -> Vec<PathBuf> {
        let mut out = Vec::new();
        for mount in ["/sys/fs/cgroup/cpuset", "/sys/fs/cgroup/memory", "/sys/fs/cgroup"] {
            for e in std::fs::read_dir(mount).into_iter().flatten().flatten() {
                if e.file_name().to_string_lossy().starts_with(&format!("mlb-{}-", self.suite)) {
                    out.push(e.path());
                }
            }
        }
        out
    }

    /// Processes whose command line names this test's suite.
    fn leftover_processes(&self) -> Vec<String> {
        common::slowdown::Worker::of_suite(&self.suite).into_iter().map(|w| w.cmdline).collect()
    }
}

fn usable_memory() -> u64 {
    mlb::host::detect(&mlb::host::Probe::this_host()).memory.usable_bytes
}

fn cpus_of(v: &Value) -> Vec<usize> {
    mlb::linux::cpulist::parse(v["provenance"]["cpus"].as_str().unwrap())
}

#[test]
fn two_slots_get_their_own_cpus_and_half_the_memory() {
    let Some(b) = Bench::new("slots") else { return };
    let jobs = b.jobs(
        r#"[{"name": "s", "plugin": "spin", "args": {"repeat": 12, "number": 2, "size": 16}, "cgroup": "student"}]"#,
    );
    let out = b.run(&jobs, &[]);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.starts_with("[ 1/ 1][  /  ] PASSED |"), "{stdout}");
    assert!(stdout.lines().last().unwrap().starts_with("Total Time"));
    assert_eq!(std::fs::read_to_string(b.out().join("summary.txt")).unwrap(), stdout);

    let reps = reports(&b.out());
    assert_eq!(reps.len(), 2, "{reps:?}");
    let usable = mlb::host::detect(&mlb::host::Probe::this_host()).cpus;
    let per = usable.len() / 2;
    let mut seen: Vec<usize> = Vec::new();
    for (i, (name, r)) in reps.iter().enumerate() {
        assert!(name.starts_with(&format!("{}.s.R0.D{i}.", b.suite)), "{name}");
        assert_eq!(r["completed"], true);
        let cpus = cpus_of(r);
        assert_eq!(cpus, usable[i * per..(i + 1) * per], "instance {i} saw exactly its slot's CPUs");
        assert!(cpus.iter().all(|c| !seen.contains(c)), "disjoint");
        seen.extend(&cpus);
        assert_eq!(r["cpu_cores"], per);
        let half = usable_memory() / 2 / 4096 * 4096;
        assert_eq!(r["provenance"]["memory_limit_bytes"].as_u64(), Some(half), "half the usable memory");
        let isolation = r["provenance"]["isolation"].as_str().unwrap();
        assert!(matches!(isolation.parse(), Ok(Isolation::CgroupV1 | Isolation::CgroupV2)), "{isolation}");
        let group = r["provenance"]["cgroup"].as_str().unwrap();
        assert!(group.starts_with(&format!("/mlb-{}-", b.suite)) && group.ends_with(&format!("/slot{i}")), "{group}");
        assert_eq!(r["seed"], (i as u64 + 1) * 100);
        assert_eq!(r["jr_id"], i.to_string());
    }
    assert!(b.leftover_groups().is_empty(), "{:?}", b.leftover_groups());
}

#[test]
fn an_instance_past_its_memory_is_oom_killed_the_other_passes() {
    let Some(b) = Bench::new("oom") else { return };
    // Under a 768 MiB enclosing limit each of the two slots gets 384 MiB;
    // instance 1 allocates 1000 MiB ("${JOB_ID}000"), instance 0 nothing.
    let enclosure = Enclosure::new(&format!("mlb-test-{}", b.suite), 768 << 20);
    let jobs = b.jobs(
        r#"[{"name": "m", "plugin": "spin", "args": {"repeat": 12, "number": 1, "alloc_mb": "${JOB_ID}000"}, "cgroup": "student"},
            {"name": "after", "plugin": "spin", "args": {"repeat": 11, "number": 1}, "cgroup": "student"}]"#,
    );
    let mut cmd = b.command(&jobs, &[]);
    enclosure.place(&mut cmd);
    let out = cmd.output().unwrap();
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{stderr}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(lines[0].starts_with("[ 1/ 2][ 1/ 2] FAILED |") && lines[0].ends_with("| m"), "{stdout}");
    assert!(lines[1].starts_with("[ 2/ 2][  /  ] PASSED |"), "the next job goes on: {stdout}");
    assert!(stderr.contains("instance 1 (device 1): oom-killed"), "{stderr}");

    let reps = reports(&b.out());
    let m: Vec<&(String, Value)> = reps.iter().filter(|(n, _)| n.contains(".m.")).collect();
    assert_eq!(m.len(), 2);
    let (ok, fail) = (&m[0].1, &m[1].1);
    assert!(
        m[0].0.contains(".D0.") && ok["completed"] == true && ok["provenance"]["memory_limit_bytes"] == (384u64 << 20)
    );
    assert!(m[1].0.contains(".D1.FAIL."), "{}", m[1].0);
    assert_eq!(fail["completed"], false);
    assert_eq!(fail["failure"]["cause"], "oom");
    assert!(fail["failure"]["message"].as_str().unwrap().contains("memory limit of 384 MiB"));
    assert_eq!(fail["provenance"]["written_by"], "launcher");
    assert_eq!(
        (fail["suite"].as_str(), fail["name"].as_str(), fail["run_id"].as_u64()),
        (Some(b.suite.as_str()), Some("m"), Some(0))
    );
    assert!(b.leftover_groups().is_empty());
}

#[test]
fn crash_timeout_error_and_nan_are_told_apart() {
    let Some(b) = Bench::new("faults") else { return };
    let jobs = b.jobs(
        r#"[{"name": "crash", "plugin": "spin", "args": {"repeat": 12, "number": 1, "abort_at": 2}, "cgroup": "student"},
            {"name": "hang", "plugin": "spin", "args": {"repeat": 12, "number": 1, "hang_at": 2}, "cgroup": "student"},
            {"name": "err", "plugin": "spin", "args": {"repeat": 12, "number": 1, "error_at": 2}, "cgroup": "all"},
            {"name": "nan", "plugin": "spin", "args": {"repeat": 12, "number": 1, "nan_at": 3}, "cgroup": "all"},
            {"name": "fine", "plugin": "spin", "args": {"repeat": 11, "number": 1}, "cgroup": "all"}]"#,
    );
    let started = Instant::now();
    let out = b.run(&jobs, &["--timeout", "2"]);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{stderr}");
    assert!(started.elapsed() < Duration::from_secs(30), "the hanging job was killed");
    let lines: Vec<&str> = stdout.lines().collect();
    assert!(lines[0].contains("[ 2/ 2] FAILED") && lines[1].contains("[ 2/ 2] FAILED"), "{stdout}");
    assert!(lines[2].contains("[ 1/ 1] FAILED") && lines[3].contains("[ 1/ 1] FAILED"), "{stdout}");
    assert!(lines[4].contains("PASSED"), "{stdout}");
    for expected in [
        "crashed: killed by signal 6 (SIGABRT)",
        "timed-out: killed after running past --timeout 2 s",
        "failed: exit code 3",
        "nan: ",
    ] {
        assert!(stderr.contains(expected), "{expected:?} in {stderr}");
    }
    let causes: Vec<(String, String, String)> = reports(&b.out())
        .into_iter()
        .filter(|(_, r)| r["completed"] == false)
        .map(|(n, r)| {
            (
                n.split('.').nth(1).unwrap().to_string(),
                r["failure"]["cause"].as_str().unwrap().to_string(),
                r["provenance"]["written_by"].as_str().unwrap_or("worker").to_string(),
            )
        })
        .collect();
    let expect = |job: &str, cause: &str, by: &str, n: usize| {
        let found = causes.iter().filter(|c| c.0 == job && c.1 == cause && c.2 == by).count();
        assert_eq!(found, n, "{job}: {causes:?}");
    };
    expect("crash", "crash", "launcher", 2);
    expect("hang", "timeout", "launcher", 2);
    expect("err", "error", "worker", 1);
    expect("nan", "nan", "worker", 1);
    assert!(b.leftover_processes().is_empty() && b.leftover_groups().is_empty());
}

/// Stops a run with `signal` while its second job runs: nothing must stay
/// behind, and the result line of the first job must be kept.
fn stopped_mid_run(name: &str, signal: nix::sys::signal::Signal) {
    let Some(b) = Bench::new(name) else { return };
    let jobs = b.jobs(
        r#"[{"name": "quick", "plugin": "spin", "args": {"repeat": 11, "number": 1}, "cgroup": "student"},
            {"name": "slow", "plugin": "spin", "args": {"repeat": 2000, "number": 1, "sleep_ms": 50}, "cgroup": "student"},
            {"name": "never", "plugin": "spin", "args": {"repeat": 11, "number": 1}, "cgroup": "student"}]"#,
    );
    let mut child = b.command(&jobs, &[]).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    // Wait until the slow job's instances are running in their groups.
    let deadline = Instant::now() + Duration::from_secs(30);
    let summary = b.out().join("summary.txt");
    while b.leftover_processes().len() < 2 || !std::fs::read_to_string(&summary).unwrap_or_default().contains("quick") {
        assert!(Instant::now() < deadline, "the slow job never started");
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(!b.leftover_groups().is_empty(), "groups exist while it runs");
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(child.id() as i32), signal).unwrap();
    let started = Instant::now();
    let status = child.wait().unwrap();
    assert!(started.elapsed() < Duration::from_secs(10));
    let mut stdout = String::new();
    std::io::Read::read_to_string(child.stdout.as_mut().unwrap(), &mut stdout).unwrap();
    assert_eq!(status.code(), Some(130));
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{stdout}");
    assert!(lines[0].starts_with("[ 1/ 3][  /  ] PASSED") && lines[1].starts_with("Total Time"), "{stdout}");
    assert!(b.leftover_processes().is_empty(), "{:?}", b.leftover_processes());
    assert!(b.leftover_groups().is_empty(), "{:?}", b.leftover_groups());
    assert_eq!(std::fs::read_to_string(summary).unwrap(), stdout);
}

#[test]
fn ctrl_c_mid_run_leaves_nothing_behind_and_keeps_the_lines_so_far() {
    stopped_mid_run("sigint", nix::sys::signal::Signal::SIGINT);
}

#[test]
fn sigterm_mid_run_too() {
    stopped_mid_run("sigterm", nix::sys::signal::Signal::SIGTERM);
}

#[test]
fn a_hang_up_or_a_user_signal_mid_run_too() {
    use nix::sys::signal::Signal;
    for signal in [Signal::SIGHUP, Signal::SIGUSR1, Signal::SIGUSR2] {
        stopped_mid_run(&format!("sig{}", signal as i32), signal);
    }
}

#[test]
fn resume_reruns_only_what_is_missing() {
    let Some(b) = Bench::new("resume") else { return };
    let jobs = b.jobs(
        r#"[{"name": "a", "plugin": "spin", "args": {"repeat": 11, "number": [1, 2]}, "cgroup": "student"},
            {"name": "b", "plugin": "spin", "args": {"repeat": 11, "number": 1}, "cgroup": "all"}]"#,
    );
    let first = b.run(&jobs, &["--name", "a"]);
    assert!(first.status.success(), "{:?}", text(&first));
    assert_eq!(reports(&b.out()).len(), 4);
    // One report of a[number=2] lost: that config runs again, a[number=1] does not.
    let lost = reports(&b.out()).into_iter().find(|(n, r)| n.contains(".D1.") && r["number"] == 2).unwrap().0;
    std::fs::remove_file(b.out().join(&lost)).unwrap();
    let second = b.run(&jobs, &["--resume"]);
    let (stdout, stderr) = text(&second);
    assert!(second.status.success(), "{stdout}\n{stderr}");
    assert!(stderr.contains("skip a[number=1]: its reports are complete"), "{stderr}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{stdout}");
    assert!(lines[0].ends_with("| a[number=2]") && lines[1].ends_with("| b"), "{stdout}");
    let reps = reports(&b.out());
    assert_eq!(reps.len(), 4 - 1 + 2 + 1);
    // A third resume finds everything complete.
    let third = b.run(&jobs, &["--resume"]);
    assert_eq!(text(&third).0.lines().count(), 1, "only the total");
}

#[test]
fn runs_k_times_with_successive_run_ids() {
    let Some(b) = Bench::new("runs") else { return };
    let jobs = b.jobs(r#"[{"name": "r", "plugin": "spin", "args": {"repeat": 11, "number": 1}, "cgroup": "student"}]"#);
    let out = b.run(&jobs, &["--runs", "2", "--uid", "5", "--pause", "0.2"]);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stderr}");
    assert!(stdout.contains("| r (run 5)") && stdout.contains("| r (run 6)"), "{stdout}");
    let mut seen: Vec<(u64, u64)> =
        reports(&b.out()).iter().map(|(_, r)| (r["run_id"].as_u64().unwrap(), r["seed"].as_u64().unwrap())).collect();
    seen.sort();
    assert_eq!(seen, [(5, 105), (5, 205), (6, 106), (6, 206)]);
}

#[test]
fn cmd_jobs_run_in_their_slot_with_the_compat_environment() {
    let Some(b) = Bench::new("cmd") else { return };
    let script = write(
        b.dir.path(),
        "record.sh",
        "#!/bin/sh\nf=\"$OUTPUT_DIRECTORY/seen-$JOB_ID.txt\"\nmkdir -p \"$OUTPUT_DIRECTORY\"\n\
         echo \"args: $*\" > \"$f\"\nenv | sort >> \"$f\"\ngrep Cpus_allowed_list /proc/self/status >> \"$f\"\n\
         cat /proc/self/cgroup >> \"$f\"\n[ \"$JOB_ID\" = 1 ] && exit 4\nexit 0\n",
    );
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let jobs = b.jobs(&format!(
        r#"[{{"name": "c", "cmd": "{}", "args": {{"$DATA_DIRECTORY/set": "", "--lr": 0.10, "--cuda": "", "--tag": "t$JOB_ID"}}, "cgroup": "student"}}]"#,
        script.display()
    ));
    let out = b.run(&jobs, &["--base", b.dir.path().to_str().unwrap()]);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{stderr}");
    assert!(stdout.starts_with("[ 1/ 1][ 1/ 2] FAILED"), "{stdout}");
    let usable = mlb::host::detect(&mlb::host::Probe::this_host()).cpus;
    let per = usable.len() / 2;
    for i in 0..2usize {
        let seen = std::fs::read_to_string(b.out().join(format!("seen-{i}.txt"))).unwrap();
        let data = b.dir.path().join("data/set");
        assert!(
            seen.starts_with(&format!(
                "args: {} --lr 0.1 --cuda --tag t{i} --seed {}\n",
                data.display(),
                (i + 1) * 100
            )),
            "{seen}"
        );
        for var in [
            format!("JOB_ID={i}"),
            format!("CUDA_VISIBLE_DEVICES={i}"),
            format!("CPU_COUNT={per}"),
            "DEVICE_TOTAL=2".into(),
            format!("SUITE_NAME={}", b.suite),
            "BENCH_NAME=c".to_string(),
            "RUN_ID=0".into(),
        ] {
            assert!(seen.lines().any(|l| l == var), "{var} in {seen}");
        }
        let cpus = mlb::linux::cpulist::format(&usable[i * per..(i + 1) * per]);
        assert!(
            seen.contains(&format!("Cpus_allowed_list:\t{cpus}\n")),
            "its own CPUs from the first instruction: {seen}"
        );
        assert!(seen.contains(&format!("/mlb-{}-", b.suite)) && seen.contains(&format!("/slot{i}\n")), "{seen}");
    }
    let fail: Vec<(String, Value)> = reports(&b.out()).into_iter().filter(|(n, _)| n.contains(".FAIL.")).collect();
    assert_eq!(fail.len(), 1);
    assert!(fail[0].0.starts_with(&format!("{}.c.R0.D1.FAIL.", b.suite)));
    assert_eq!(fail[0].1["failure"]["cause"], "exit");
    assert_eq!(fail[0].1["failure"]["message"], "exit code 4");
    assert_eq!(fail[0].1["lr"], 0.1);
}

#[test]
fn no_cgroups_is_warned_and_recorded() {
    let Some(b) = Bench::new("nocg") else { return };
    let jobs = b.jobs(r#"[{"name": "n", "plugin": "spin", "args": {"repeat": 11, "number": 1}, "cgroup": "student"}]"#);
    let out = b.run(&jobs, &["--no-cgroups"]);
    let (_, stderr) = text(&out);
    assert!(out.status.success() && stderr.contains("warning: --no-cgroups"), "{stderr}");
    let reps = reports(&b.out());
    assert_eq!(reps.len(), 2);
    assert!(reps.iter().all(|(_, r)| r["provenance"]["isolation"] == Isolation::None.name()));
}

/// A job whose name looks like an option (`-x`) reaches its workers as a
/// name: its instances run, and `mlb report` counts their reports. (The
/// worker once read `--name -x` as an unknown option and exited with the
/// code of a recorded failure, so that no record was written at all.)
#[test]
fn a_job_named_like_an_option_runs_and_is_reported() {
    let Some(b) = Bench::new("dash") else { return };
    let jobs =
        b.jobs(r#"[{"name": "-x", "plugin": "spin", "args": {"repeat": 11, "number": 1}, "cgroup": "student"}]"#);
    let out = b.run(&jobs, &["--no-cgroups"]);
    let (stdout, stderr) = text(&out);
    let reps = reports(&b.out());
    assert_eq!(reps.len(), 2, "one record per instance: {reps:?}\n{stdout}\n{stderr}");
    assert!(out.status.success(), "{stdout}\n{stderr}");
    for (name, r) in &reps {
        assert!(name.starts_with(&format!("{}.-x.R0.D", b.suite)) && !name.contains(".FAIL."), "{name}");
        assert_eq!((r["name"].as_str(), r["completed"].as_bool()), (Some("-x"), Some(true)));
    }
    let report = Command::new(common::mlb())
        .args(["report", "--reports", b.out().to_str().unwrap(), "--suite", &b.suite, "--format", "json"])
        .output()
        .unwrap();
    let (json, stderr) = text(&report);
    assert!(report.status.success(), "{stderr}");
    let json: Value = serde_json::from_str(&json).unwrap();
    let bench = &json["benches"][0];
    assert_eq!((bench["bench"].as_str(), bench["results"].as_u64()), (Some("-x"), Some(2)), "{json}");
    assert_eq!(bench["failures"], 0, "{json}");
}

/// A world-readable copy of the `mlb` binary and a jobs file, for a user
/// other than root.
fn shared_copy(b: &Bench, jobs: &str) -> (PathBuf, PathBuf) {
    use std::os::unix::fs::PermissionsExt;
    let shared = b.dir.path().join("shared");
    std::fs::create_dir(&shared).unwrap();
    std::fs::set_permissions(b.dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::set_permissions(&shared, std::fs::Permissions::from_mode(0o755)).unwrap();
    let mlb = shared.join("mlb");
    std::fs::copy(common::mlb(), &mlb).unwrap();
    let file = write(&shared, &format!("{}.json", b.suite), jobs);
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
    (mlb, file)
}

#[test]
fn without_root_the_refusal_says_why_and_names_no_cgroups() {
    let Some(b) = Bench::new("nonroot") else { return };
    let (mlb, jobs) = shared_copy(&b, r#"[{"name": "x", "cmd": "/bin/true", "cgroup": "student"}]"#);
    let out = Command::new("setpriv")
        .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
        .arg(&mlb)
        .args(["--jobs", jobs.to_str().unwrap(), "--devices", "2", "--outdir", "/nonexistent/out"])
        .env("NO_COLOR", "1")
        .output()
        .expect("setpriv (util-linux) runs");
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(2), "refused before anything started: {stdout}\n{stderr}");
    assert!(stdout.is_empty(), "nothing started: {stdout}");
    assert!(stderr.contains("cannot isolate slots with cgroups: mlb is not running as root (uid 65534)"), "{stderr}");
    assert!(stderr.contains("pass --no-cgroups to run without isolation"), "{stderr}");
}

#[test]
fn a_terminal_gets_progress_bars() {
    let Some(b) = Bench::new("tty") else { return };
    let jobs = b.jobs(r#"[{"name": "bars", "plugin": "spin", "args": {"repeat": 20, "number": 1, "sleep_ms": 20}, "cgroup": "student"}]"#);
    let cmd = b.command(&jobs, &[]);
    let line: Vec<String> = std::iter::once(cmd.get_program())
        .chain(cmd.get_args())
        .map(|a| format!("'{}'", a.to_string_lossy()))
        .collect();
    // `script` runs the launcher on a pseudo-terminal.
    let out = Command::new("script")
        .args(["-qefc", &line.join(" "), "/dev/null"])
        .envs(cmd.get_envs().filter_map(|(k, v)| Some((k, v?))))
        .output()
        .expect("script (util-linux) runs");
    let (all, _) = text(&out);
    assert!(out.status.success(), "{all}");
    assert!(
        all.contains("bars [") && all.contains("/40 obs | ") && all.contains("/2 instances done"),
        "a bar per job: {all}"
    );
    assert!(all.contains("[ 1/ 1][  /  ] PASSED"), "{all}");
    // Without a terminal: plain lines, no bar.
    let plain = b.run(&jobs, &[]);
    let (_, stderr) = text(&plain);
    assert!(stderr.contains("start bars: 2 instance(s)") && !stderr.contains(" obs | "), "{stderr}");
}

#[test]
fn a_read_only_cgroup_filesystem_is_named() {
    let Some(b) = Bench::new("readonly") else { return };
    let jobs = b.jobs(r#"[{"name": "x", "cmd": "/bin/true", "cgroup": "student"}]"#);
    let mount = mlb::host::detect(&mlb::host::Probe::this_host()).cgroup.mount;
    let target = if mount.join("cgroup.controllers").exists() { mount } else { mount.join("cpuset") };
    // A private mount namespace where the cgroup filesystem is read-only;
    // the host's stays as it is.
    let script = format!(
        "mount -o remount,bind,ro {} && exec {} --jobs {} --devices 2 --outdir {}",
        target.display(),
        common::mlb().display(),
        jobs.display(),
        b.out().display()
    );
    let mut unshare = Command::new("unshare");
    unshare.args(["-m", "sh", "-c", &script]).env("NO_COLOR", "1");
    common::launcher::private_lock(&mut unshare, &b.dir.path().join("mlb.lock"));
    let out = unshare.output().expect("unshare runs");
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(2), "refused before anything started: {stdout}\n{stderr}");
    assert!(stderr.contains(&format!("{} is read-only", target.display())), "{stderr}");
    assert!(stderr.contains("--no-cgroups"), "{stderr}");
    assert!(std::fs::metadata(&target).is_ok() && !b.out().exists(), "nothing started");
}
