//! A job that starts a daemon and ends: the daemon (a session of its own,
//! its output closed) outlived its instance and the run, unreported, when
//! the job was an `all` job (in no slot group). Whatever an instance started
//! and left running when it ended is now killed, and named on the
//! instance's line.

use crate::common::launcher::{alive, output_of, pid_in, wait_until, wait_within, KillOnDrop, Launches};
use crate::common::text;
use std::time::Duration;

#[test]
fn a_silent_daemon_an_all_job_leaves_is_killed_and_named() {
    let l = Launches::new("daemon");
    let pid_file = l.dir().join("daemon.pid");
    let script = l.script(
        "daemon.sh",
        "setsid sh -c 'echo $$ > \"$1.tmp\"; mv \"$1.tmp\" \"$1\"; exec sleep 300' sh \"$1\" </dev/null >/dev/null 2>&1 &\n\
         while [ ! -e \"$1\" ]; do sleep 0.01; done\n",
    );
    let jobs = l.jobs(&format!(
        r#"[{{"name": "daemon", "cmd": "{} {}", "cgroup": "all"}}]"#,
        script.display(),
        pid_file.display()
    ));
    let mut child = l.command(&jobs, &l.out(), &["--devices", "1"]).spawn().unwrap();
    let daemon = KillOnDrop::new(pid_in(&pid_file));
    let status = wait_within(&mut child, Duration::from_secs(60), "the run");
    let (stdout, stderr) = text(&output_of(child));
    assert_eq!(status.code(), Some(0), "{stdout}\n{stderr}");
    let line = stderr.lines().find(|l| l.contains("daemon instance 0")).unwrap_or_else(|| panic!("{stderr}"));
    assert!(
        line.contains(&format!("it left 1 process running after it ended: pid {} (sleep), killed", daemon.pid)),
        "{line}"
    );
    wait_until(Duration::from_secs(5), "the daemon is killed", || !alive(daemon.pid));
}
