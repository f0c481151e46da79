//! A full output folder: every config after the first that could not write
//! its report was started all the same, to fail the same way. The run now
//! stops at the first write that fails for lack of space (a report, a
//! failure record, a result line), says which folder is full and how to go
//! on, and starts nothing more.

use crate::common::launcher::{output_of, root_or_skip, wait_within, Launches};
use crate::common::text;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// A tiny tmpfs mounted on a folder, unmounted when dropped.
pub(crate) struct Tmpfs(PathBuf);

impl Tmpfs {
    /// Mounts a tmpfs of `size` (`64k`, `1m`) on `dir` (made).
    pub(crate) fn mount(dir: &Path, size: &str) -> Tmpfs {
        std::fs::create_dir_all(dir).unwrap();
        let options = format!("size={size}");
        let status = Command::new("mount").args(["-t", "tmpfs", "-o", &options, "tmpfs"]).arg(dir).status().unwrap();
        assert!(status.success(), "mount a tmpfs on {}", dir.display());
        Tmpfs(dir.to_path_buf())
    }

    /// Mounts a tmpfs of 64 KiB on `dir` (made) and fills it up.
    fn full(dir: &Path) -> Tmpfs {
        let fs = Tmpfs::mount(dir, "64k");
        let mut ballast = std::fs::File::create(dir.join("ballast")).unwrap();
        let err = loop {
            if let Err(e) = ballast.write_all(&[0; 4096]).and_then(|_| ballast.sync_all()) {
                break e;
            }
        };
        assert_eq!(err.raw_os_error(), Some(nix::libc::ENOSPC), "{err}");
        fs
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.0).status();
    }
}

/// Runs `first` then two configs that leave a marker when they start, into
/// a full output folder; returns the exit code, stdout, stderr, the output
/// folder and the markers left.
fn run_into_a_full_folder(l: &Launches, first: &str) -> (Option<i32>, String, String, PathBuf, Vec<String>) {
    let out = l.out();
    let _fs = Tmpfs::full(&out);
    let markers = l.dir().join("started");
    std::fs::create_dir(&markers).unwrap();
    let later = l.script("later.sh", "touch \"$1/later.$3\"\n");
    let jobs = l.jobs(&format!(
        r#"[{first}, {{"name": "later", "cmd": "{} {}", "args": {{"--n": [1, 2]}}}}]"#,
        later.display(),
        markers.display()
    ));
    let mut child = l.command(&jobs, &out, &[]).spawn().unwrap();
    let status = wait_within(&mut child, Duration::from_secs(60), "the launcher");
    let (stdout, stderr) = text(&output_of(child));
    let started: Vec<String> =
        std::fs::read_dir(&markers).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    (status.code(), stdout, stderr, out, started)
}

/// What the run must have said and done after the first config, whose
/// write that failed was `what`.
fn stopped_after_the_first(code: Option<i32>, stdout: &str, stderr: &str, out: &Path, started: &[String], what: &str) {
    assert_eq!(code, Some(1), "{stdout}\n{stderr}");
    let error = stderr.lines().find(|l| l.starts_with("mlb: error: ")).unwrap_or_else(|| panic!("an error: {stderr}"));
    assert!(error.contains(&format!(": cannot {what}")), "{what:?} in {error}");
    assert!(started.is_empty(), "no config started after the first: {started:?}\n{stderr}");
    assert!(!stderr.contains("start later"), "{stderr}");
    for expected in [
        format!("no space left in the output folder {}", out.display()),
        "the run stopped with 2 job config(s) not started".to_string(),
        format!("fix: free space in {} (or pass another --outdir), then run again with --resume", out.display()),
    ] {
        assert!(stderr.contains(&expected), "{expected:?} in {stderr}");
    }
    assert_eq!(stdout.lines().count(), 2, "the first config's line and the total: {stdout}");
}

#[test]
fn a_report_that_cannot_be_written_for_lack_of_space_stops_the_run() {
    if !root_or_skip("a test on a full tmpfs") {
        return;
    }
    let l = Launches::new("fullrep");
    let spin = r#"{"name": "spin", "plugin": "spin", "args": {"repeat": 11, "number": 1}}"#;
    let (code, stdout, stderr, out, started) = run_into_a_full_folder(&l, spin);
    assert!(stdout.starts_with("[ 1/ 2][ 1/ 1] FAILED") && stdout.contains("| spin\n"), "{stdout}");
    stopped_after_the_first(code, &stdout, &stderr, &out, &started, "write the failure record");
}

#[test]
fn a_result_line_that_cannot_be_appended_for_lack_of_space_stops_the_run() {
    if !root_or_skip("a test on a full tmpfs") {
        return;
    }
    let l = Launches::new("fullsum");
    let (code, stdout, stderr, out, started) = run_into_a_full_folder(&l, r#"{"name": "quiet", "cmd": "true"}"#);
    assert!(stdout.starts_with("[ 1/ 2][  /  ] PASSED") && stdout.contains("| quiet\n"), "{stdout}");
    let what = format!("append to {}", out.join("summary.txt").display());
    stopped_after_the_first(code, &stdout, &stderr, &out, &started, &what);
}
