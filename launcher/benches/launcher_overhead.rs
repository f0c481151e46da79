//! The launcher's own cost, end to end, with the real binary, in two installs
//! laid out as a real one (`bin/mlb` and `bin/plugins/*.so`, nothing else
//! searched):
//!
//! - *spin only*: the spin plugin alone;
//! - *full*: every plugin built next to the `mlb` binary under test (the
//!   libtorch plugins, once `scripts/test-torch.sh` or an equivalent
//!   `cargo build --release -p ...` has built them into the same target
//!   folder), or those of `MLB_BENCH_PLUGINS=DIR`, plus spin.
//!
//! For each install:
//!
//! - `mlb --jobs` running a one-observation spin job (`size: 0`: the step does
//!   no work) as a one-slot `student` job, with cgroups (when this host allows
//!   them) and with `--no-cgroups`;
//! - `mlb plugins list` (what resolving a plugin job's plugin costs: the
//!   manifests of every candidate) and `mlb plugins list --verify` (every
//!   candidate loaded in a child process, as every listing did before
//!   manifests);
//! - peak RSS (`wait4`'s `ru_maxrss`: the process and the children it waited
//!   for) of `mlb --jobs --no-cgroups`, `mlb --jobs --dry-run` and
//!   `mlb plugins list`.
//!
//! Plus `mlb worker` alone on the same job (the floor any launch pays) and
//! `mlb --jobs --dry-run` of a generated jobs file of 1,000 configs.
//!
//! Medians of several runs, in milliseconds; the acceptance limits of the
//! manifest work (full install: `--jobs` within 1.5x of spin only, `plugins
//! list` under 50 ms, launcher peak RSS under 30 MiB) are checked and printed.
//! Run with `cargo bench -p mlb --bench launcher_overhead`.

#[path = "common/rusage.rs"]
mod rusage;

use nix::libc;
use rusage::wait_with_usage;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

const RUNS: usize = 15;
const VERIFY_RUNS: usize = 3;
const DRY_RUNS: usize = 7;
const CONFIG: &str = r#"{"repeat": 1, "number": 1, "skip": 0, "size": 0}"#;
const MAX_RATIO: f64 = 1.5;
const MAX_LIST_MS: f64 = 50.0;
const MAX_RSS_MIB: f64 = 30.0;

/// Time and peak RSS of one run of a command.
struct Run {
    ms: f64,
    maxrss_kib: u64,
}

/// Runs `cmd` to its end (it must succeed), reaping it with `wait4` for its
/// resource usage.
#[allow(clippy::zombie_processes)] // reaped by wait4, which std does not offer
fn run(cmd: &mut Command) -> Run {
    cmd.stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::null()).env_remove("MLB_PLUGIN_PATH");
    let start = Instant::now();
    let child = cmd.spawn().expect("mlb starts");
    let (status, usage) = wait_with_usage(child.id());
    let ms = start.elapsed().as_secs_f64() * 1000.0;
    assert!(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0, "{cmd:?} failed (status {status:#x})");
    Run { ms, maxrss_kib: usage.ru_maxrss as u64 }
}

/// Median time (ms) and highest peak RSS (MiB) of `runs` runs, after one
/// warm-up run (page cache).
fn measure(runs: usize, make: impl Fn() -> Command) -> (f64, f64) {
    measure_each(runs, &[()], |_| make()).remove(0)
}

/// [`measure`] for the command of each item (an install), the items taking
/// turns run after run (so that a busy spell of a shared machine hits them
/// alike).
fn measure_each<T>(runs: usize, items: &[T], make: impl Fn(&T) -> Command) -> Vec<(f64, f64)> {
    for item in items {
        run(&mut make(item));
    }
    let mut results: Vec<Vec<Run>> = items.iter().map(|_| Vec::with_capacity(runs)).collect();
    for _ in 0..runs {
        for (item, out) in items.iter().zip(&mut results) {
            out.push(run(&mut make(item)));
        }
    }
    results
        .into_iter()
        .map(|results| {
            let mut times: Vec<f64> = results.iter().map(|r| r.ms).collect();
            times.sort_by(f64::total_cmp);
            let rss = results.iter().map(|r| r.maxrss_kib).max().unwrap_or(0) as f64 / 1024.0;
            (times[times.len() / 2], rss)
        })
        .collect()
}

/// `target/<profile>/libmlb_spin.so`, or in `deps/`.
fn built_spin(target: &Path) -> PathBuf {
    [target.join("libmlb_spin.so"), target.join("deps/libmlb_spin.so")]
        .into_iter()
        .find(|p| p.is_file())
        .expect("libmlb_spin.so is built (spin is a dev-dependency of mlb)")
}

/// The plugins of the full install: every `*.so` of `MLB_BENCH_PLUGINS`, or
/// the `libmlb_*.so` built next to the `mlb` binary.
fn full_install_plugins(target: &Path) -> Vec<PathBuf> {
    let (dir, all) = match std::env::var_os("MLB_BENCH_PLUGINS") {
        Some(dir) => (PathBuf::from(dir), true),
        None => (target.to_path_buf(), false),
    };
    let mut out: Vec<PathBuf> =
        std::fs::read_dir(&dir).map(|read| read.filter_map(|e| e.ok().map(|e| e.path())).collect()).unwrap_or_default();
    out.retain(|p| {
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
        p.is_file() && name.ends_with(".so") && (all || name.starts_with("libmlb_"))
    });
    out.sort();
    out
}

/// An install: `root/bin/mlb` (a hard link, else a copy, of the binary under
/// test: the search path follows the binary) and `root/bin/plugins/`.
struct Install {
    mlb: PathBuf,
    plugins: usize,
}

fn install(root: &Path, mlb: &Path, plugins: &[PathBuf]) -> Install {
    let bin = root.join("bin");
    let dir = bin.join("plugins");
    std::fs::create_dir_all(&dir).unwrap();
    let exe = bin.join("mlb");
    if std::fs::hard_link(mlb, &exe).is_err() {
        std::fs::copy(mlb, &exe).unwrap();
    }
    for p in plugins {
        let name = p.file_name().unwrap();
        if std::fs::hard_link(p, dir.join(name)).is_err() {
            std::fs::copy(p, dir.join(name)).unwrap();
        }
    }
    Install { mlb: exe, plugins: plugins.len() }
}

/// The figures of one install.
struct Figures {
    jobs_cgroups: Option<(f64, f64)>,
    jobs: (f64, f64),
    dry: (f64, f64),
    list: (f64, f64),
    verify: (f64, f64),
}

/// The figures of each install, measured in turns.
fn figures(installs: &[&Install], jobs: &Path, out: &Path, cgroups: bool) -> Vec<Figures> {
    let launch = |extra: &'static [&'static str]| {
        measure_each(RUNS, installs, |install: &&Install| {
            let mut cmd = Command::new(&install.mlb);
            cmd.arg("--jobs").arg(jobs).arg("--outdir").arg(out).args(["--devices", "1"]).args(extra);
            cmd
        })
    };
    let list = |runs, extra: &'static [&'static str]| {
        measure_each(runs, installs, |install: &&Install| {
            let mut cmd = Command::new(&install.mlb);
            cmd.args(["plugins", "list", "--format", "json"]).args(extra);
            cmd
        })
    };
    let jobs_cgroups = cgroups.then(|| launch(&[]));
    let jobs = launch(&["--no-cgroups"]);
    let dry = launch(&["--no-cgroups", "--dry-run"]);
    let listed = list(RUNS, &[]);
    let verified = list(VERIFY_RUNS, &["--verify"]);
    (0..installs.len())
        .map(|i| Figures {
            jobs_cgroups: jobs_cgroups.as_ref().map(|c| c[i]),
            jobs: jobs[i],
            dry: dry[i],
            list: listed[i],
            verify: verified[i],
        })
        .collect()
}

fn verdict(ok: bool) -> &'static str {
    if ok {
        "ok"
    } else {
        "OVER THE LIMIT"
    }
}

fn main() {
    let mlb = PathBuf::from(env!("CARGO_BIN_EXE_mlb"));
    let target = mlb.parent().unwrap().to_path_buf();
    let work = tempfile::tempdir().unwrap();
    let spin = built_spin(&target);
    let others: Vec<PathBuf> =
        full_install_plugins(&target).into_iter().filter(|p| p.file_name() != spin.file_name()).collect();
    let small = install(&work.path().join("spin-only"), &mlb, std::slice::from_ref(&spin));
    let full = (!others.is_empty())
        .then(|| install(&work.path().join("full"), &mlb, &[others.clone(), vec![spin.clone()]].concat()));
    let out = work.path().join("out");

    let plugin = work.path().join("spin-only/bin/plugins/libmlb_spin.so");
    let (worker, _) = measure(RUNS, || {
        let mut cmd = Command::new(&mlb);
        cmd.args(["worker", "--plugin"]).arg(&plugin).args(["--config", CONFIG, "--outdir"]).arg(&out);
        cmd
    });

    let jobs = work.path().join("one.json");
    let job = format!(r#"[{{"name": "one", "plugin": "spin", "args": {CONFIG}, "cgroup": "student"}}]"#);
    std::fs::write(&jobs, job).unwrap();
    let host = mlb::host::detect(&mlb::host::Probe::this_host());
    let cgroups = host.cgroup.can_create;
    let installs: Vec<&Install> = std::iter::once(&small).chain(full.as_ref()).collect();
    let mut all = figures(&installs, &jobs, &out, cgroups);
    let full_fig = (all.len() > 1).then(|| all.remove(1));
    let small_fig = all.remove(0);

    let big = work.path().join("big.json");
    let values = |n: usize, f: &dyn Fn(usize) -> String| (0..n).map(f).collect::<Vec<_>>().join(", ");
    std::fs::write(
        &big,
        format!(
            r#"[{{"name": "grid", "cmd": "./run.sh", "args": {{"--bs": [{}], "--lr": [{}], "--arch": [{}], "--report": "$OUTPUT_DIRECTORY", "--cuda": ""}}, "cgroup": "student"}}]"#,
            values(10, &|i| (16 << i).to_string()),
            values(10, &|i| format!("0.{}", i + 1)),
            values(10, &|i| format!("\"net{i}\"")),
        ),
    )
    .unwrap();
    let (dry_big, _) = measure(DRY_RUNS, || {
        let mut cmd = Command::new(&small.mlb);
        cmd.arg("--jobs").arg(&big).args(["--dry-run", "--devices", "1", "--no-cgroups"]);
        cmd
    });

    println!("launcher overhead (median of {RUNS} runs; one-observation spin job, size 0):");
    println!("  mlb worker alone                                  {worker:8.1} ms");
    let full_name = match &full {
        Some(f) => format!("full ({} plugins)", f.plugins),
        None => "full: no other plugin built next to mlb (build the libtorch plugins, or set MLB_BENCH_PLUGINS)".into(),
    };
    println!("  {:<48}  {:>14}  {}", "", format!("spin only ({})", small.plugins), full_name);
    let row = |what: &str, s: (f64, f64), f: Option<(f64, f64)>| {
        let full = f.map(|f| format!("{:8.1} ms  ({:.2}x)", f.0, f.0 / s.0)).unwrap_or_default();
        println!("  {what:<48}  {:11.1} ms  {full}", s.0);
    };
    match small_fig.jobs_cgroups {
        Some(s) => row("mlb --jobs, 1 slot, cgroups", s, full_fig.as_ref().and_then(|f| f.jobs_cgroups)),
        None => println!("  mlb --jobs, 1 slot, cgroups: this host cannot create cgroups ({:?})", host.cgroup.reason),
    }
    row("mlb --jobs, 1 slot, --no-cgroups", small_fig.jobs, full_fig.as_ref().map(|f| f.jobs));
    row("mlb --jobs --dry-run (resolves the plugin)", small_fig.dry, full_fig.as_ref().map(|f| f.dry));
    row("mlb plugins list (manifests)", small_fig.list, full_fig.as_ref().map(|f| f.list));
    let verify_label = format!("mlb plugins list --verify (probes; {VERIFY_RUNS} runs)");
    row(&verify_label, small_fig.verify, full_fig.as_ref().map(|f| f.verify));
    println!("  peak RSS (process and its children, highest of the runs):");
    let rss = |what: &str, s: (f64, f64), f: Option<(f64, f64)>| {
        let full = f.map(|f| format!("{:8.1} MiB", f.1)).unwrap_or_default();
        println!("  {what:<48}  {:10.1} MiB  {full}", s.1);
    };
    rss("  mlb --jobs, --no-cgroups (launcher + worker)", small_fig.jobs, full_fig.as_ref().map(|f| f.jobs));
    rss("  mlb --jobs --dry-run (launcher alone)", small_fig.dry, full_fig.as_ref().map(|f| f.dry));
    rss("  mlb plugins list", small_fig.list, full_fig.as_ref().map(|f| f.list));
    rss("  mlb plugins list --verify", small_fig.verify, full_fig.as_ref().map(|f| f.verify));
    println!("dry run of a 1,000-config jobs file (median of {DRY_RUNS}):  {dry_big:8.1} ms");

    if let (Some(f), Some(install)) = (&full_fig, &full) {
        println!("acceptance (full install):");
        let listing = |extra: &[&str]| {
            let out = Command::new(&install.mlb)
                .args(["plugins", "list", "--format", "json"])
                .args(extra)
                .env_remove("MLB_PLUGIN_PATH")
                .output()
                .unwrap();
            assert!(out.status.success(), "mlb plugins list failed");
            out.stdout
        };
        let same = listing(&[]) == listing(&["--verify"]);
        println!("  plugins list from manifests equals plugins list --verify: {}", if same { "yes" } else { "NO" });
        let mut ratios = vec![("--no-cgroups", f.jobs.0 / small_fig.jobs.0)];
        if let (Some(fc), Some(sc)) = (f.jobs_cgroups, small_fig.jobs_cgroups) {
            ratios.push(("cgroups", fc.0 / sc.0));
        }
        for (what, ratio) in ratios {
            println!(
                "  mlb --jobs {what}: {ratio:.2}x spin only (limit {MAX_RATIO}x): {}",
                verdict(ratio <= MAX_RATIO)
            );
        }
        println!(
            "  mlb plugins list: {:.1} ms (limit {MAX_LIST_MS} ms): {}",
            f.list.0,
            verdict(f.list.0 < MAX_LIST_MS)
        );
        let peak = [Some(f.jobs.1), Some(f.dry.1), Some(f.list.1), f.jobs_cgroups.map(|c| c.1)]
            .into_iter()
            .flatten()
            .fold(0.0, f64::max);
        println!(
            "  launcher peak RSS (--jobs incl. its worker, --dry-run, plugins list): {peak:.1} MiB (limit {MAX_RSS_MIB} MiB): {}",
            verdict(peak < MAX_RSS_MIB)
        );
    }
}
