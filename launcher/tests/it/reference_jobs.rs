//! The original suite's jobs files load and dry-run, and bad jobs files are
//! refused before anything starts with the file, the job and the fix named.

use crate::common;

use common::{hosts, run, text, write};
use std::path::PathBuf;

fn fixture(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name).display().to_string()
}

/// `mlb --dry-run` of a jobs file on the 4-GPU NGC fixture host.
fn dry_run_ngc(file: &str, extra: &[&str]) -> String {
    let host = hosts::ngc();
    let base = tempfile::tempdir().unwrap();
    let mut args = vec!["--jobs", file, "--dry-run", "--host-root", host.root().to_str().unwrap()];
    let b = base.path().to_str().unwrap().to_string();
    args.extend(["--base", &b]);
    args.extend(extra);
    let out = run(&args);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stderr}");
    stdout.replace(&b, "$BASE")
}

fn blocks(stdout: &str) -> Vec<&str> {
    stdout.split("\n[").collect()
}

#[test]
fn original_baselines_dry_run_on_four_gpus() {
    let out = dry_run_ngc(&fixture("original-baselines.json"), &[]);
    let jobs: Vec<&str> = out.lines().filter(|l| l.starts_with('[')).collect();
    assert_eq!(jobs.len(), 17, "{out}");
    assert!(jobs[0].starts_with("[ 1/17] toy_reg (config 1/1, student, run 0)"), "{}", jobs[0]);
    assert!(jobs[16].starts_with("[17/17] scaling (config 1/1, all, run 0)"));
    assert_eq!(out.matches("  instance ").count(), 16 * 4 + 1);

    let toy = blocks(&out)[0];
    assert!(toy.contains(
        "command:         ./regression/polynome/pytorch/run.sh --repeat 20 --number 100 --batch-size 256 --report $BASE/output --cuda --seed 100"
    ), "{toy}");
    for seed in ["seed:            100", "seed:            200", "seed:            300", "seed:            400"] {
        assert!(toy.contains(seed), "{seed} in {toy}");
    }
    // Slot 0 is GPU 0, on NUMA node 1: CPUs 8-11; a quarter of 64 GiB each.
    assert!(toy.contains("CUDA_VISIBLE_DEVICES=0\n") && toy.contains("CPUs:            8-11 (4)"), "{toy}");
    assert!(toy.contains("CPU_COUNT=4") && toy.contains("DEVICE_TOTAL=4") && toy.contains("JOB_ID=3"));
    assert!(toy.contains("memory limit:    16.00 GiB") && toy.contains("NUMA nodes:      0-1"));
    assert!(toy.contains("SUITE_NAME=original-baselines") && toy.contains("JOB_FILE=original-baselines"));
    assert!(toy.contains("/slot3 (cgroup-v1)"));
    // Values render as the original rendered them.
    assert!(out.contains("--target-bleu 21.8 "), "21.80 -> 21.8");
    assert!(
        out.contains("--lr 0.1 ") && out.contains("-l 0.0005 --layers 256 256 128 64 -f 64"),
        "four words, as the shell split them"
    );
    assert!(out.contains("run.sh $BASE/data/ml-20m -l"), "a positional first, as written");
    assert!(out.contains("--data $BASE/data/coco "), "${{DATA_DIRECTORY}} form");
    assert!(out.contains("--env-name PongNoFrameskip-v4 "), "the shell's quotes are dropped");
    let scaling = blocks(&out)[16];
    assert!(
        scaling.contains("CUDA_VISIBLE_DEVICES=0,1,2,3\n") && scaling.contains("seed:            4\n"),
        "{scaling}"
    );
    assert!(scaling.contains("memory limit:    no limit") && scaling.contains("MLB_ISOLATION=none"));
}

#[test]
fn old_baselines_dry_run_with_three_all_jobs() {
    let out = dry_run_ngc(&fixture("original-old-baselines.json"), &["--uid", "7"]);
    let jobs: Vec<&str> = out.lines().filter(|l| l.starts_with('[')).collect();
    assert_eq!(jobs.len(), 19);
    assert_eq!(jobs.iter().filter(|l| l.contains(", all, run 7)")).count(), 3);
    assert!(out.contains("--report $BASE/output/original-old-baselines"), "$JOB_FILE");
    assert!(out.contains("--ngpu 4"), "$DEVICE_TOTAL");
    assert!(out.contains("seed:            107") && out.contains("seed:            11\n"), "uid + (i+1)*100, uid + N");
}

#[test]
fn dry_run_without_gpu_uses_devices_slots() {
    let base = tempfile::tempdir().unwrap();
    let host = hosts::cpu();
    let out = run(&[
        "--jobs",
        &fixture("original-baselines.json"),
        "--dry-run",
        "--devices",
        "2",
        "--name",
        "vae,scaling",
        "--base",
        base.path().to_str().unwrap(),
        "--host-root",
        host.root().to_str().unwrap(),
    ]);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(stdout.lines().filter(|l| l.starts_with('[')).count(), 2);
    assert!(stdout.contains("CPUs:            2-3 (2)") && stdout.contains("CPUs:            4-5 (2)"), "{stdout}");
    assert!(stdout.contains("memory limit:    4.00 GiB"), "half of the enclosing 8 GiB limit");
    assert!(stdout.contains("MLB_HOST_KIND=cpu"));
}

#[test]
fn rocm_instances_see_hip_and_rocr_devices() {
    let host = hosts::rocm();
    let dir = tempfile::tempdir().unwrap();
    let jobs = write(dir.path(), "r.json", r#"[{"name": "x", "cmd": "/bin/true", "cgroup": "student"}]"#);
    let out = run(&["--jobs", jobs.to_str().unwrap(), "--dry-run", "--host-root", host.root().to_str().unwrap()]);
    let (stdout, _) = text(&out);
    assert!(stdout.contains("HIP_VISIBLE_DEVICES=1\n") && stdout.contains("ROCR_VISIBLE_DEVICES=1\n"), "{stdout}");
    assert!(!stdout.contains("CUDA_VISIBLE_DEVICES"));
}

#[test]
fn a_ddp_group_gives_each_slot_torchruns_variables() {
    let host = hosts::ngc();
    let dir = tempfile::tempdir().unwrap();
    let jobs = write(dir.path(), "g.json", r#"[{"name": "ddp", "cmd": "python train.py", "group": "ddp"}]"#);
    let out = run(&["--jobs", jobs.to_str().unwrap(), "--dry-run", "--host-root", host.root().to_str().unwrap()]);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stderr}");
    assert!(stdout.starts_with("[ 1/ 1] ddp (config 1/1, student, group ddp of 4 ranks, run 0)"), "{stdout}");
    let instances: Vec<&str> = stdout.split("  instance ").skip(1).collect();
    assert_eq!(instances.len(), 4, "one rank per slot: {stdout}");
    let port = |block: &str| block.lines().find_map(|l| l.trim().strip_prefix("MASTER_PORT=")).map(str::to_string);
    let first = port(instances[0]).expect("MASTER_PORT is set");
    assert!(first.parse::<u16>().is_ok_and(|p| p > 0), "{first}");
    for (rank, block) in instances.iter().enumerate() {
        for var in ["MASTER_ADDR=127.0.0.1", &format!("RANK={rank}"), "WORLD_SIZE=4", &format!("LOCAL_RANK={rank}")] {
            assert!(block.lines().any(|l| l.trim() == var), "instance {rank} lacks {var}: {block}");
        }
        assert_eq!(port(block), Some(first.clone()), "one group, one port");
        assert!(!block.contains("MLB_GROUP="), "a rank of a group: {block}");
    }
}

#[test]
fn instances_of_no_group_are_told_to_train_alone() {
    // Under --slurm a student job's instances are the tasks of one step,
    // whose variables name all of them: MLB_GROUP=alone keeps each alone.
    let host = hosts::ngc();
    let dir = tempfile::tempdir().unwrap();
    let jobs = write(dir.path(), "a.json", r#"[{"name": "solo", "cmd": "python train.py", "cgroup": "student"}]"#);
    let out = run(&["--jobs", jobs.to_str().unwrap(), "--dry-run", "--host-root", host.root().to_str().unwrap()]);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stderr}");
    let instances: Vec<&str> = stdout.split("  instance ").skip(1).collect();
    assert_eq!(instances.len(), 4, "{stdout}");
    assert!(instances.iter().all(|b| b.lines().any(|l| l.trim() == "MLB_GROUP=alone")), "{stdout}");
}

#[test]
fn yaml_and_json_dry_run_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let json = write(
        dir.path(),
        "grid.json",
        r#"[{"name": "g", "cmd": "./run.sh", "args": {"--bs": [32, 64], "--lr": [0.1, 0.01], "--cuda": ""}, "cgroup": "student"}]"#,
    );
    let yaml = write(
        dir.path(),
        "grid.yaml",
        "- name: g\n  cmd: ./run.sh\n  args:\n    --bs: [32, 64]\n    --lr: [0.1, 0.01]\n    --cuda: \"\"\n  cgroup: student\n",
    );
    let a = dry_run_ngc(json.to_str().unwrap(), &[]);
    let b = dry_run_ngc(yaml.to_str().unwrap(), &[]);
    let strip = |s: &str| s.lines().filter(|l| !l.contains("cgroup:")).collect::<Vec<_>>().join("\n");
    assert_eq!(strip(&a), strip(&b));
    let heads: Vec<&str> = a.lines().filter(|l| l.starts_with('[')).collect();
    assert_eq!(
        heads,
        [
            "[ 1/ 1] g[bs=32 lr=0.1] (config 1/4, student, run 0)",
            "[ 1/ 1] g[bs=64 lr=0.1] (config 2/4, student, run 0)",
            "[ 1/ 1] g[bs=32 lr=0.01] (config 3/4, student, run 0)",
            "[ 1/ 1] g[bs=64 lr=0.01] (config 4/4, student, run 0)",
        ]
    );
    assert!(a.contains("./run.sh --bs 64 --lr 0.01 --cuda --seed 100"), "JSON order kept");
}

fn refused(name: &str, text_: &str, extra: &[&str]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let jobs = write(dir.path(), name, text_);
    let mut args = vec!["--jobs", jobs.to_str().unwrap(), "--dry-run", "--devices", "1"];
    args.extend(extra);
    let out = run(&args);
    assert!(!out.status.success());
    assert!(out.stdout.is_empty(), "nothing starts");
    text(&out).1
}

#[test]
fn bad_files_name_file_line_and_column() {
    let original = std::fs::read_to_string(fixture("original-baselines.json")).unwrap();
    let broken = original.replacen("\"--number\": 5,", "\"--number\": 5", 1);
    let e = refused("broken.json", &broken, &[]);
    assert!(e.contains("broken.json:20:7: expected `,` or `}`"), "{e}");
    let e = refused("empty.json", "", &[]);
    assert!(e.contains("empty.json:1:0: EOF while parsing a value"), "{e}");
    let e = refused("bad.yaml", "- name: a\n  cmd: x\n  args: {--a: [1, 2}\n", &[]);
    assert!(e.contains("bad.yaml:3:"), "{e}");
}

#[test]
fn unknown_variable_plugin_and_job_are_named() {
    let e = refused(
        "v.json",
        r#"[{"name": "a", "cmd": "x"}, {"name": "b", "cmd": "x", "args": {"--d": "$NOPE_NOT_SET/x"}}]"#,
        &[],
    );
    assert!(e.contains("v.json: job #2 `b`: unknown variable `$NOPE_NOT_SET`"), "{e}");
    assert!(e.contains("$OUTPUT_DIRECTORY"), "lists the known variables: {e}");

    let spin = common::spin_dir();
    let dir = spin.path().to_str().unwrap();
    let e = refused("p.json", r#"[{"name": "t", "plugin": "spin_typo"}]"#, &["--plugin-dir", dir]);
    assert!(e.contains("p.json: job #1 `t`: no plugin named `spin_typo`; plugins found: spin"), "{e}");

    let e = refused("n.json", r#"[{"name": "a", "cmd": "x"}]"#, &["--name", "zz"]);
    assert!(e.contains("no job named `zz`; jobs in the file: a"), "{e}");
    let e = refused("n.json", r#"[{"name": "a", "cmd": "x"}]"#, &["--exclude", "a"]);
    assert!(e.contains("leave no job to run"), "{e}");
}

/// The product's usage lines work as written: `mlb --docker ngc` without
/// `--jobs` runs the standard suite, and `--jobs NAME` finds an installed
/// suite. An installed layout (`bin/mlb`, `share/mlb/configs/`) whose
/// `baselines.json` runs spin stands in for the real one, whose workloads
/// need libtorch plugins (the built-in copy is unit-tested).
#[test]
fn usage_lines_run_the_standard_suite_by_name_or_by_default() {
    let host = hosts::ngc();
    let prefix = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let bin = prefix.path().join("bin");
    let configs = prefix.path().join("share/mlb/configs");
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::create_dir_all(&configs).unwrap();
    let mlb = bin.join("mlb");
    if std::fs::hard_link(common::mlb(), &mlb).is_err() {
        std::fs::copy(common::mlb(), &mlb).unwrap();
    }
    write(
        &configs,
        "baselines.json",
        r#"[{"name": "a", "plugin": "spin", "args": {"repeat": 2, "skip": 1}}, {"name": "b", "plugin": "spin", "args": {}, "cgroup": "all"}]"#,
    );
    let images = write(prefix.path(), "images.json", r#"{"ngc": "mlb-missing-image:ngc"}"#);
    let spin = common::spin_plugin();
    let plugins = spin.parent().unwrap().to_str().unwrap().to_string();
    let root = host.root().to_str().unwrap().to_string();
    let b = prefix.path().to_str().unwrap().to_string();
    let mlb_run = |args: &[&str]| {
        let common = ["--dry-run", "--host-root", &root, "--base", &b, "--plugin-dir", &plugins];
        std::process::Command::new(&mlb).args(args).args(common).output().unwrap()
    };
    let docker = mlb_run(&["--docker", "ngc", "--images", images.to_str().unwrap()]);
    let (stdout, stderr) = text(&docker);
    assert!(docker.status.success(), "{stderr}");
    let lines: Vec<&str> = stdout.lines().filter(|l| l.starts_with('[')).collect();
    assert_eq!(lines.len(), 2, "{stdout}");
    assert!(stdout.contains("SUITE_NAME=baselines") && stdout.contains("docker create body:"), "{stdout}");
    assert!(stdout.contains("not inspected"), "the missing image is said, not fatal: {stdout}");
    let named = mlb_run(&["--jobs", "baselines"]);
    let (named_out, stderr) = text(&named);
    assert!(named.status.success(), "{stderr}");
    assert_eq!(named_out.lines().filter(|l| l.starts_with('[')).count(), 2, "{named_out}");
    let bare = mlb_run(&[]);
    assert_eq!(bare.status.code(), Some(2), "a bare run without --jobs is refused");
    let unknown = mlb_run(&["--jobs", "nosuch"]);
    let (_, stderr) = text(&unknown);
    assert_eq!(unknown.status.code(), Some(2));
    assert!(stderr.contains("installed suites: baselines, modern, modern-smoke, smoke"), "{stderr}");
}

/// `configs/quality-reference.json`, the jobs of the reference convergence
/// runs, is the quality suite (`configs/quality.json`) with each job's
/// `batch_size` a list of two: the suite's, then another (docs/quality.md).
#[test]
fn the_quality_reference_jobs_are_the_quality_suite_at_two_batch_sizes() {
    let read = |name: &str| -> Vec<serde_json::Value> {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../configs").join(name);
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    };
    let (suite, reference) = (read("quality.json"), read("quality-reference.json"));
    assert_eq!(suite.len(), reference.len());
    for (job, mut at_two) in suite.into_iter().zip(reference) {
        let sizes = at_two["args"]["batch_size"].take();
        let sizes = sizes.as_array().unwrap_or_else(|| panic!("{}: batch_size is not a list", job["name"]));
        assert_eq!(sizes.len(), 2, "{}: {sizes:?}", job["name"]);
        assert_eq!(sizes[0], job["args"]["batch_size"], "{}: the suite's batch size first", job["name"]);
        assert_ne!(sizes[0], sizes[1], "{}", job["name"]);
        at_two["args"]["batch_size"] = sizes[0].clone();
        assert_eq!(at_two, job, "the reference job is the suite's but for its batch sizes");
    }
}
