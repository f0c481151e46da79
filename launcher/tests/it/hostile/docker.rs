//! A Docker run killed by SIGKILL cannot remove its containers, and the
//! kernel releases its host lock all the same: its containers stayed for
//! good, still running, while the next run took the host. The next run on
//! the host (a Docker run) now removes the containers of the launcher that
//! held the lock before it, found by their session label (`PID-NANOS`).
//!
//! A daemon that went away mid-run (stopped, restarting) failed every
//! remaining config in turn; the run now stops, as on a full disk.

use crate::common::docker::{docker, test_image_tag};
use crate::common::launcher::{wait_within, Launches, LOCK_VAR};
use crate::common::text;
use mlb::runtime::docker::{JOB_LABEL, SESSION_LABEL};
use std::os::unix::net::{UnixListener, UnixStream};
use std::process::Command;
use std::time::Duration;

/// A pid no process has (above the kernel's largest).
const DEAD_PID: u32 = 4_194_305;

#[test]
fn the_containers_of_a_killed_docker_run_are_removed_by_the_next_run() {
    let l = Launches::new("dockerleft");
    let job = format!("left_{}", std::process::id());
    let created = Command::new("docker")
        .args(["create", "--label", &format!("{SESSION_LABEL}={DEAD_PID}-1"), "--label"])
        .arg(format!("{JOB_LABEL}={job}"))
        .args([test_image_tag(), "sleep", "300"])
        .output()
        .unwrap();
    assert!(created.status.success(), "{}", String::from_utf8_lossy(&created.stderr));
    assert_eq!(docker().containers_labelled(JOB_LABEL, &job).unwrap().len(), 1);
    // The killed run held the host lock last.
    let holder = serde_json::json!({"pid": DEAD_PID, "started": "2025-01-01 10:00:00+00:00", "outdir": "/x",
        "run": format!("dockerleft-{DEAD_PID}-20250101100000")});
    std::fs::write(l.lock(), holder.to_string()).unwrap();

    let jobs = l.jobs(r#"[{"name": "next", "plugin": "spin", "args": {"repeat": 12, "number": 1}, "cgroup": "all"}]"#);
    let mut cmd = l.command(&jobs, &l.out(), &["--devices", "1", "--docker", test_image_tag()]);
    cmd.env(LOCK_VAR, l.lock());
    let mut child = cmd.spawn().unwrap();
    wait_within(&mut child, Duration::from_secs(120), "the next run");
    let out = child.wait_with_output().unwrap();
    let (stdout, stderr) = text(&out);
    let left = docker().containers_labelled(JOB_LABEL, &job).unwrap();
    let _ = docker().remove_labelled(JOB_LABEL, &job);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(left.is_empty(), "the container stays: {stderr}");
    assert!(
        stderr.contains(&format!(
            "mlb: removed 1 container(s) left by the run of launcher pid {DEAD_PID} (ended without removing them)"
        )),
        "{stderr}"
    );
}

/// A stand-in for the daemon's socket: forwards every connection to the
/// real daemon until [`Proxy::stop`], which closes them all and answers no
/// more, as a daemon that stopped (or restarts) does.
struct Proxy {
    socket: std::path::PathBuf,
    open: std::sync::Arc<std::sync::Mutex<Vec<UnixStream>>>,
    stopped: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

impl Proxy {
    fn start(dir: &std::path::Path) -> Proxy {
        let socket = dir.join("docker.sock");
        let listener = UnixListener::bind(&socket).unwrap();
        let open = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let stopped = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let (conns, stop) = (open.clone(), stopped.clone());
        std::thread::spawn(move || {
            for client in listener.incoming().flatten() {
                if stop.load(std::sync::atomic::Ordering::SeqCst) {
                    return;
                }
                let Ok(daemon) = UnixStream::connect("/var/run/docker.sock") else { return };
                let mut list = conns.lock().unwrap();
                list.extend([client.try_clone().unwrap(), daemon.try_clone().unwrap()]);
                for (mut from, mut to) in [(client.try_clone().unwrap(), daemon.try_clone().unwrap()), (daemon, client)]
                {
                    std::thread::spawn(move || {
                        let _ = std::io::copy(&mut from, &mut to);
                        let _ = to.shutdown(std::net::Shutdown::Both);
                    });
                }
            }
        });
        Proxy { socket, open, stopped }
    }

    /// The daemon is gone: every connection closed, the socket removed.
    fn stop(&self) {
        self.stopped.store(true, std::sync::atomic::Ordering::SeqCst);
        let _ = std::fs::remove_file(&self.socket);
        for s in self.open.lock().unwrap().drain(..) {
            let _ = s.shutdown(std::net::Shutdown::Both);
        }
        // Wakes the accept loop, which then ends.
        let _ = UnixStream::connect(&self.socket);
    }
}

#[test]
fn a_daemon_that_goes_away_mid_run_stops_the_run_with_a_clear_error() {
    let l = Launches::new("daemongone");
    let proxy = Proxy::start(l.dir());
    let suffix = std::process::id();
    let jobs = l.jobs(&format!(
        r#"[{{"name": "hang_{suffix}", "plugin": "spin", "args": {{"repeat": 12, "number": 1, "hang_at": 2}}, "cgroup": "all"}},
            {{"name": "second_{suffix}", "plugin": "spin", "args": {{"repeat": 12, "number": 1}}, "cgroup": "all"}},
            {{"name": "third_{suffix}", "plugin": "spin", "args": {{"repeat": 12, "number": 1}}, "cgroup": "all"}}]"#
    ));
    let mut cmd = l.command(&jobs, &l.out(), &["--devices", "1", "--docker", test_image_tag()]);
    cmd.env("DOCKER_HOST", format!("unix://{}", proxy.socket.display()));
    let mut child = cmd.spawn().unwrap();
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while docker().containers_labelled(JOB_LABEL, &format!("hang_{suffix}")).unwrap().is_empty() {
        assert!(std::time::Instant::now() < deadline, "the first container starts");
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_secs(1));
    proxy.stop();
    wait_within(&mut child, Duration::from_secs(60), "the run");
    let out = child.wait_with_output().unwrap();
    let (stdout, stderr) = text(&out);
    for job in ["hang", "second", "third"] {
        let _ = docker().remove_labelled(JOB_LABEL, &format!("{job}_{suffix}"));
    }
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{stderr}");
    assert!(!stderr.contains(&format!("start second_{suffix}")), "nothing started after: {stderr}");
    assert!(
        stderr.contains(&format!(
            "mlb: error: the Docker daemon at unix://{} stopped answering during the run",
            proxy.socket.display()
        )) && stderr.contains("the run stopped with 2 job config(s) not started"),
        "{stderr}"
    );
    assert!(stderr.contains("fix: start the Docker daemon again"), "{stderr}");
}
