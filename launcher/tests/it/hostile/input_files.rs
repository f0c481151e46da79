//! Input files without a bound: a jobs file or a target table that is
//! `/dev/zero`, a FIFO or a 50 GB file was read until memory ran out (or, for
//! a FIFO without a writer, waited for forever). mlb now reads an input file
//! only when it is a regular file of at most 16 MiB, and otherwise refuses
//! it (exit status 2) naming the file and the limit. Each case runs under a
//! 4 GB address space limit, so that a reader without the bound fails fast
//! instead of taking the machine's memory.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The inputs that once had no bound, by what they are.
fn hostile_inputs(dir: &Path) -> Vec<(&'static str, PathBuf)> {
    let fifo = dir.join("jobs.fifo.json");
    nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRWXU).unwrap();
    let huge = dir.join("huge.json");
    std::fs::File::create(&huge).unwrap().set_len(50 << 30).unwrap(); // sparse: 50 GB of zeros
    let over = dir.join("over.json");
    std::fs::write(&over, vec![b' '; (16 << 20) + 1]).unwrap();
    vec![("/dev/zero", PathBuf::from("/dev/zero")), ("a FIFO", fifo), ("a 50 GB file", huge), ("16 MiB + 1", over)]
}

/// Runs `mlb args...` under a 4 GB address space limit; kills it after 60 s.
fn mlb_bounded(args: &[&std::ffi::OsStr]) -> (Option<i32>, String, Duration) {
    let mut cmd = Command::new("sh");
    cmd.arg("-c").arg("ulimit -v 4000000 && exec \"$@\"").arg("sh").arg(env!("CARGO_BIN_EXE_mlb")).args(args);
    let mut child = cmd.stdout(Stdio::null()).stderr(Stdio::piped()).spawn().unwrap();
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > Duration::from_secs(60) {
            child.kill().unwrap();
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    (out.status.code(), String::from_utf8_lossy(&out.stderr).into_owned(), started.elapsed())
}

fn refused(what: &str, path: &Path, (code, stderr, took): (Option<i32>, String, Duration)) {
    assert_eq!(code, Some(2), "{what}: refused, not {code:?} after {took:?}: {stderr}");
    assert!(took < Duration::from_secs(20), "{what}: at once ({took:?})");
    assert!(stderr.contains(&path.display().to_string()), "{what}: names the file: {stderr}");
    let limit = stderr.contains("16 MiB");
    let kind = stderr.contains("not a regular file");
    assert!(limit || kind, "{what}: says why (the limit or the kind of file): {stderr}");
}

#[test]
fn a_jobs_file_that_never_ends_is_refused_with_the_limit() {
    let dir = tempfile::tempdir().unwrap();
    for (what, path) in hostile_inputs(dir.path()) {
        let out = mlb_bounded(&["--jobs".as_ref(), path.as_os_str(), "--dry-run".as_ref()]);
        refused(what, &path, out);
    }
}

#[test]
fn a_target_table_that_never_ends_is_refused_with_the_limit() {
    let dir = tempfile::tempdir().unwrap();
    let reports = dir.path().join("reports");
    std::fs::create_dir(&reports).unwrap();
    let report = r#"{"name": "vae", "vcd": "0", "batch_loss": [0.5], "train_item": {"avg": 10.0}}"#;
    std::fs::write(reports.join("fast.vae.R0.D0.json"), report).unwrap();
    for (what, path) in hostile_inputs(dir.path()) {
        let args =
            ["report".as_ref(), "--reports".as_ref(), reports.as_os_str(), "--targets".as_ref(), path.as_os_str()];
        refused(what, &path, mlb_bounded(&args));
    }
}
