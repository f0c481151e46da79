//! A library without a manifest is probed in a child process (`mlb worker
//! --describe`). A constructor that forks a copy of the probe into a session
//! of its own, keeping the probe's stdout, hung the listing for good: mlb
//! read the probe's output until its end, which never came, past
//! `MLB_PROBE_TIMEOUT`; Ctrl-C left the copy running. The probe is now
//! bounded whatever holds its pipes, what it left running is found and
//! killed, and Ctrl-C stops mlb and the probe with it.

use crate::common::launcher::{alive, pid_in, wait_until, wait_within, KillOnDrop};
use crate::common::{self, text};
use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;
use serde_json::Value;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A folder of plugins mlb trusts (only its owner may write it) holding a
/// library without a manifest whose constructor forks a copy that starts a
/// session of its own, writes its pid to `pid_file` and waits for ever with
/// the probe's stdout and stderr open; the constructor returns once the pid
/// is written (else the probe could end, and its copy be killed, before
/// it is), or with `hang` never.
fn escaping_library(pid_file: &Path, hang: bool) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let source = format!(
        "#include <fcntl.h>\n#include <stdio.h>\n#include <unistd.h>\n\
         __attribute__((constructor)) static void escape(void) {{\n\
           if (fork() == 0) {{\n\
             setsid();\n\
             char pid[32];\n\
             int n = snprintf(pid, sizeof pid, \"%d\\n\", getpid());\n\
             int fd = open(\"{tmp}\", O_CREAT | O_WRONLY | O_TRUNC, 0600);\n\
             write(fd, pid, n);\n\
             close(fd);\n\
             rename(\"{tmp}\", \"{file}\");\n\
             for (;;) pause();\n\
           }}\n\
           while (access(\"{file}\", F_OK) != 0) usleep(1000);\n\
           {hang}\n\
         }}\n\
         int not_a_plugin(void) {{ return 0; }}\n",
        tmp = format!("{}.tmp", pid_file.display()),
        file = pid_file.display(),
        hang = if hang { "for (;;) pause();" } else { "" },
    );
    let lib = common::c_library(dir.path(), "libescape.so", &source);
    std::fs::set_permissions(&lib, std::fs::Permissions::from_mode(0o755)).unwrap();
    (dir, lib)
}

/// `mlb plugins list --format json` of `dir` alone, probes bounded by `timeout_s`.
fn listing(dir: &Path, timeout_s: u32) -> Child {
    Command::new(common::mlb())
        .args(["plugins", "list", "--format", "json", "--plugin-dir"])
        .arg(dir)
        .env_remove("MLB_PLUGIN_PATH")
        .env("MLB_PROBE_TIMEOUT", timeout_s.to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

/// The refusal reason of `lib` in a listing's JSON.
fn reason_of(stdout: &str, lib: &Path) -> String {
    let entries: Value = serde_json::from_str(stdout).unwrap_or_else(|e| panic!("{e}: {stdout}"));
    let entry = entries.as_array().unwrap().iter().find(|e| e["path"] == lib.to_str().unwrap()).unwrap().clone();
    assert_eq!(entry["status"], "refused", "{entry}");
    entry["reason"].as_str().unwrap().to_string()
}

#[test]
fn a_forked_copy_keeping_the_probe_output_is_killed_and_the_library_refused_in_bounded_time() {
    let pids = tempfile::tempdir().unwrap();
    let pid_file = pids.path().join("copy.pid");
    let (dir, lib) = escaping_library(&pid_file, false);
    let started = Instant::now();
    let mut child = listing(dir.path(), 3);
    let copy = KillOnDrop::new(pid_in(&pid_file));
    wait_within(&mut child, Duration::from_secs(20), "mlb plugins list");
    let took = started.elapsed();
    let (stdout, stderr) = text(&child.wait_with_output().unwrap());
    assert!(took < Duration::from_secs(10), "took {took:?}: {stderr}");
    let reason = reason_of(&stdout, &lib);
    assert!(
        reason.contains(&format!("{} left 1 process running after loading: pid {} (", lib.display(), copy.pid)),
        "{reason}"
    );
    assert!(reason.contains("killed"), "{reason}");
    wait_until(Duration::from_secs(5), "the forked copy is killed", || !alive(copy.pid));
}

#[test]
fn a_probe_that_hangs_is_refused_at_its_timeout_and_its_forked_copy_killed() {
    let pids = tempfile::tempdir().unwrap();
    let pid_file = pids.path().join("copy.pid");
    let (dir, lib) = escaping_library(&pid_file, true);
    let started = Instant::now();
    let mut child = listing(dir.path(), 2);
    let copy = KillOnDrop::new(pid_in(&pid_file));
    wait_within(&mut child, Duration::from_secs(20), "mlb plugins list");
    let took = started.elapsed();
    let (stdout, stderr) = text(&child.wait_with_output().unwrap());
    assert!(took < Duration::from_secs(8), "took {took:?}: {stderr}");
    let reason = reason_of(&stdout, &lib);
    assert!(reason.contains("did not finish loading within 2 s"), "{reason}");
    assert!(reason.contains(&format!("left 1 process running after loading: pid {} (", copy.pid)), "{reason}");
    wait_until(Duration::from_secs(5), "the forked copy is killed", || !alive(copy.pid));
}

#[test]
fn ctrl_c_while_probing_ends_mlb_the_probe_and_its_forked_copy() {
    let pids = tempfile::tempdir().unwrap();
    let pid_file = pids.path().join("copy.pid");
    let (dir, _lib) = escaping_library(&pid_file, true);
    let mut child = listing(dir.path(), 300);
    let copy = KillOnDrop::new(pid_in(&pid_file));
    kill(Pid::from_raw(child.id() as i32), Signal::SIGINT).unwrap();
    let status = wait_within(&mut child, Duration::from_secs(10), "mlb plugins list after Ctrl-C");
    let (_, stderr) = text(&child.wait_with_output().unwrap());
    assert_eq!(status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("mlb: interrupted while loading plugins"), "{stderr}");
    wait_until(Duration::from_secs(5), "the forked copy is killed", || !alive(copy.pid));
}
