//! Processes found by a mark in their environment. A child started with a
//! variable of its own (`KEY=VALUE`, unique to it) passes it on to whatever
//! it starts, whatever its session, process group or parent after a double
//! fork: `/proc/PID/environ` keeps the environment a process started with.
//! This finds them and kills them, as far as this process may read their
//! environment (its own user's, or every process as root).

use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;
use std::time::{Duration, Instant};

/// How long the processes of a mark may take to be gone once killed.
const GONE_WITHIN: Duration = Duration::from_secs(2);

/// A process killed for carrying a mark.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Killed {
    /// Its pid.
    pub pid: i32,
    /// Its command (`/proc/PID/comm`).
    pub command: String,
}

/// Kills (SIGKILL) every process but this one whose environment holds
/// `key=value`, again until none is left (one that forks while it is
/// killed included) or [`GONE_WITHIN`] has passed; returns each, in the
/// order found.
pub fn kill_marked(key: &str, value: &str) -> Vec<Killed> {
    kill_marked_outside(key, value, None)
}

/// As [`kill_marked`], but leaves alone the processes of the process group
/// `spared` (being killed already, by the caller).
pub fn kill_marked_outside(key: &str, value: &str, spared: Option<i32>) -> Vec<Killed> {
    let mark = format!("{key}={value}");
    let mut killed: Vec<Killed> = Vec::new();
    let deadline = Instant::now() + GONE_WITHIN;
    loop {
        let mut found = marked(mark.as_bytes());
        found.retain(|&pid| spared.is_none() || process_group(pid) != spared);
        if found.is_empty() || Instant::now() >= deadline {
            return killed;
        }
        for pid in found {
            let _ = kill(Pid::from_raw(pid), Signal::SIGKILL);
            if !killed.iter().any(|k| k.pid == pid) {
                let command = std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default();
                killed.push(Killed { pid, command: command.trim_end().to_string() });
            }
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// The process group of `pid` (the fifth field of `/proc/PID/stat`).
fn process_group(pid: i32) -> Option<i32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    stat.rsplit_once(") ")?.1.split(' ').nth(2)?.parse().ok()
}

/// The live processes but this one whose environment holds `mark` (a
/// process that has ended, a zombie, has none).
fn marked(mark: &[u8]) -> Vec<i32> {
    let me = std::process::id() as i32;
    std::fs::read_dir("/proc")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter(|&pid| pid != me)
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/environ")).is_ok_and(|env| env.split(|&b| b == 0).any(|v| v == mark))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::{Command, Stdio};

    #[test]
    fn the_processes_of_a_mark_are_killed_however_they_left_their_parent() {
        let value = format!("test-{}", std::process::id());
        // A shell that starts a copy in a session of its own and ends: the
        // copy is no child of this process any more.
        let status = Command::new("sh")
            .args(["-c", "setsid sleep 300 </dev/null >/dev/null 2>&1 &"])
            .env("MLB_TEST_MARK", &value)
            .stdin(Stdio::null())
            .status()
            .unwrap();
        assert!(status.success());
        let other = Command::new("sleep").arg("300").spawn().unwrap();
        let deadline = Instant::now() + Duration::from_secs(5);
        let comm = |pid: &i32| std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default();
        while !marked(format!("MLB_TEST_MARK={value}").as_bytes()).iter().any(|p| comm(p) == "sleep\n") {
            assert!(Instant::now() < deadline, "the copy starts");
            std::thread::sleep(Duration::from_millis(10));
        }
        let killed = kill_marked("MLB_TEST_MARK", &value);
        assert_eq!(killed.len(), 1, "{killed:?}");
        assert_eq!(killed[0].command, "sleep");
        assert!(marked(format!("MLB_TEST_MARK={value}").as_bytes()).is_empty());
        assert!(kill_marked("MLB_TEST_MARK", &value).is_empty(), "nothing left");
        let mut other = other;
        assert!(other.try_wait().unwrap().is_none(), "an unmarked process is left alone");
        other.kill().unwrap();
        other.wait().unwrap();
    }
}
