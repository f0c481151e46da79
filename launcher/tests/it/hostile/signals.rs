//! An instance that leaves a background process holding its output open
//! (`setsid sleep 300 &`): the launcher once waited for that output to end
//! forever, deaf to Ctrl-C and SIGTERM. It now waits a bounded grace, kills
//! what holds the output, says so, and goes on; a signal stops the wait at
//! once.

use crate::common::launcher::{alive, output_of, pid_in, wait_within, KillOnDrop, Launches};
use crate::common::text;
use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;
use std::process::Child;
use std::time::{Duration, Instant};

/// A `cmd` job (scope `all`: no cgroup) whose script leaves `setsid sleep
/// 300` behind, holding its stdout, and exits once that process has left
/// its process group (it writes its pid then); then a job that must run
/// after it. The process starts with an environment of its own (`env -i`),
/// so that the instance's mark cannot find it (hostile/leftovers.rs): only
/// its hold on the output can.
fn start_background_job(l: &Launches) -> (Child, KillOnDrop) {
    let script = l.script(
        "bg.sh",
        "setsid env -i PATH=\"$PATH\" sh -c 'echo $$ > \"$0\"; exec sleep 300' \"$1\" &\n\
         while [ ! -s \"$1\" ]; do sleep 0.01; done\necho hi\n",
    );
    let pid_file = l.dir().join("bg.pid");
    let jobs = l.jobs(&format!(
        r#"[{{"name": "bg", "cmd": "{} {}"}}, {{"name": "after", "cmd": "true"}}]"#,
        script.display(),
        pid_file.display()
    ));
    let child = l.command(&jobs, &l.out(), &[]).spawn().unwrap();
    let leftover = KillOnDrop::new(pid_in(&pid_file));
    (child, leftover)
}

#[test]
fn a_background_process_holding_the_output_is_killed_after_a_grace_and_the_run_goes_on() {
    let l = Launches::new("bgout");
    let started = Instant::now();
    let (mut child, leftover) = start_background_job(&l);
    let status = wait_within(&mut child, Duration::from_secs(30), "the launcher");
    let elapsed = started.elapsed();
    let out = output_of(child);
    let (stdout, stderr) = text(&out);
    assert_eq!(status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(elapsed < Duration::from_secs(15), "ended within the grace: {elapsed:?}");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{stdout}");
    assert!(lines[0].starts_with("[ 1/ 2][  /  ] PASSED") && lines[0].ends_with("| bg"), "{stdout}");
    assert!(lines[1].starts_with("[ 2/ 2][  /  ] PASSED") && lines[1].ends_with("| after"), "{stdout}");
    let note = format!("its output was held open after it ended by pid {} (sleep): killed", leftover.pid);
    assert!(stderr.contains(&note), "{note:?} in {stderr}");
    assert!(!alive(leftover.pid), "the background process was killed");
    let log = std::fs::read_to_string(l.out().join(format!("logs/{}.bg.C1.R0.J0.log", l.suite))).unwrap();
    assert!(log.starts_with("hi\n") && log.contains(&note), "the log says it too: {log}");
}

/// Sends `signal` while the launcher waits for the output of the ended
/// instance: it must stop waiting at once (well within the grace) and exit
/// 130 without starting the next job.
fn a_signal_stops_the_wait(signal: Signal) {
    let l = Launches::new(&format!("bgsig{}", signal as i32));
    let (mut child, leftover) = start_background_job(&l);
    // The script exits right after writing the pid: the launcher is waiting.
    std::thread::sleep(Duration::from_millis(300));
    kill(Pid::from_raw(child.id() as i32), signal).unwrap();
    let signalled = Instant::now();
    let status = wait_within(&mut child, Duration::from_secs(30), "the launcher");
    let elapsed = signalled.elapsed();
    let (stdout, stderr) = text(&output_of(child));
    assert_eq!(status.code(), Some(130), "{stdout}\n{stderr}");
    assert!(elapsed < Duration::from_millis(1500), "stopped waiting at once: {elapsed:?}\n{stderr}");
    assert!(
        !stdout.contains("| after") && !stderr.contains("start after"),
        "nothing started after: {stdout}\n{stderr}"
    );
    assert!(!alive(leftover.pid), "the background process was killed");
}

#[test]
fn ctrl_c_while_waiting_for_the_output_exits_130_at_once() {
    a_signal_stops_the_wait(Signal::SIGINT);
}

#[test]
fn sigterm_while_waiting_for_the_output_exits_130_at_once() {
    a_signal_stops_the_wait(Signal::SIGTERM);
}

#[test]
fn a_hang_up_or_a_user_signal_while_waiting_for_the_output_exits_130_at_once() {
    for signal in [Signal::SIGHUP, Signal::SIGUSR1, Signal::SIGUSR2] {
        a_signal_stops_the_wait(signal);
    }
}

/// Sends `signal` while an instance runs (a `cmd` job sleeping, its pid
/// written): the instance is killed, the run exits 130 without a result line
/// for it, and the host lock is free for the next run at once.
fn a_signal_stops_a_running_instance(signal: Signal) {
    let l = Launches::new(&format!("runsig{}", signal as i32));
    let script = l.script("sleeper.sh", "echo $$ > \"$1\"\nexec sleep 300\n");
    let pid_file = l.dir().join("sleeper.pid");
    let jobs = l.jobs(&format!(
        r#"[{{"name": "sleeper", "cmd": "{} {}"}}, {{"name": "after", "cmd": "true"}}]"#,
        script.display(),
        pid_file.display()
    ));
    let mut child = l.command(&jobs, &l.out(), &[]).spawn().unwrap();
    let sleeper = KillOnDrop::new(pid_in(&pid_file));
    kill(Pid::from_raw(child.id() as i32), signal).unwrap();
    let status = wait_within(&mut child, Duration::from_secs(30), "the launcher");
    let (stdout, stderr) = text(&output_of(child));
    assert_eq!(status.code(), Some(130), "{signal}: {stdout}\n{stderr}");
    assert!(stderr.contains("sleeper: interrupted, no result line"), "{signal}: {stderr}");
    assert!(!stdout.contains("| after"), "{signal}: nothing started after: {stdout}");
    assert!(!alive(sleeper.pid), "{signal}: the instance was killed");
    // The lock was released: a second run into another folder takes it at once.
    let again = l.jobs(r#"[{"name": "after", "cmd": "true"}]"#);
    let out = l.command(&again, &l.dir().join("again"), &[]).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{signal}: {}", text(&out).1);
}

#[test]
fn a_hang_up_or_a_user_signal_stops_a_running_instance_as_sigterm_does() {
    for signal in [Signal::SIGTERM, Signal::SIGHUP, Signal::SIGUSR1, Signal::SIGUSR2] {
        a_signal_stops_a_running_instance(signal);
    }
}

/// Ctrl-\ (SIGQUIT) once ended the launcher at once (with a core dump),
/// leaving its instance running and its lock held: it now stops the run as
/// SIGTERM does.
#[test]
fn ctrl_backslash_stops_a_running_instance_and_a_wait_as_sigterm_does() {
    a_signal_stops_a_running_instance(Signal::SIGQUIT);
    a_signal_stops_the_wait(Signal::SIGQUIT);
}
