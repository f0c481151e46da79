//! A launcher killed by SIGKILL cannot clean up: its direct children die
//! with it (`PR_SET_PDEATHSIG`), but what they started lives on inside the
//! run's slot groups, and the next run once neither removed nor mentioned
//! them. The next run (holding the same host lock) now kills those
//! processes, removes the groups and says so; so does a prepare that takes
//! the host lock next (it replaces the run's name in the lock file).

use crate::common::launcher::{
    alive, output_of, pid_in, private_lock, root_or_skip, wait_until, wait_within, KillOnDrop, Launches,
};
use crate::common::text;
use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;
use std::path::PathBuf;
use std::time::Duration;

/// The cgroup folders (every hierarchy) whose name starts with `prefix`;
/// what is left of them is killed and removed when dropped.
struct Groups(String);

impl Groups {
    fn present(&self) -> Vec<PathBuf> {
        let mut out = Vec::new();
        for mount in ["/sys/fs/cgroup/cpuset", "/sys/fs/cgroup/memory", "/sys/fs/cgroup"] {
            for e in std::fs::read_dir(mount).into_iter().flatten().flatten() {
                if e.file_name().to_string_lossy().starts_with(&self.0) {
                    out.push(e.path());
                }
            }
        }
        out
    }
}

impl Drop for Groups {
    fn drop(&mut self) {
        for dir in self.present() {
            for slot in std::fs::read_dir(&dir).into_iter().flatten().flatten().filter(|e| e.path().is_dir()) {
                let procs = std::fs::read_to_string(slot.path().join("cgroup.procs")).unwrap_or_default();
                for pid in procs.lines().filter_map(|p| p.parse().ok()) {
                    let _ = kill(Pid::from_raw(pid), Signal::SIGKILL);
                }
                std::thread::sleep(Duration::from_millis(100));
                let _ = std::fs::remove_dir(slot.path());
            }
            let _ = std::fs::remove_dir(&dir);
        }
    }
}

/// A launcher killed by SIGKILL with its slot group's grandchild alive:
/// the groups it left, the grandchild, and the launcher's pid.
fn killed_launch(l: &Launches) -> (Groups, KillOnDrop, u32) {
    let pid_file = l.dir().join("grandchild.pid");
    let script = l.script("leave.sh", "sleep 300 &\necho $$ > \"$1.sh\"\necho $! > \"$1\"\nwait\n");
    let jobs = l.jobs(&format!(
        r#"[{{"name": "leave", "cmd": "{} {}", "cgroup": "student"}}]"#,
        script.display(),
        pid_file.display()
    ));
    let mut first = l.command(&jobs, &l.out(), &["--devices", "1"]).spawn().unwrap();
    let groups = Groups(format!("mlb-{}-{}-", l.suite, first.id()));
    let grandchild = KillOnDrop::new(pid_in(&pid_file));
    let child = pid_in(&PathBuf::from(format!("{}.sh", pid_file.display())));
    kill(Pid::from_raw(first.id() as i32), Signal::SIGKILL).unwrap();
    first.wait().unwrap();

    // The launcher's child died with it; its grandchild lives on in the slot group.
    wait_until(Duration::from_secs(10), "the launcher's child dies with it", || !alive(child));
    let cgroup = std::fs::read_to_string(format!("/proc/{}/cgroup", grandchild.pid)).unwrap();
    assert!(alive(grandchild.pid) && cgroup.contains(&format!("/{}", groups.0)), "{cgroup}");
    assert!(!groups.present().is_empty(), "the groups stay");
    (groups, grandchild, first.id())
}

/// `stderr` says the groups were removed and the grandchild killed; they are.
fn removed(stderr: &str, groups: &Groups, grandchild: &KillOnDrop, launcher: u32) {
    let said = format!("mlb: removed {}", groups.0);
    let line = stderr.lines().find(|l| l.starts_with(&said)).unwrap_or_else(|| panic!("{said:?} in {stderr}"));
    assert!(line.contains(&format!("launcher pid {launcher}")) && line.ends_with(": 1 process killed"), "{line}");
    assert!(!alive(grandchild.pid), "killed");
    assert!(groups.present().is_empty(), "removed: {:?}", groups.present());
}

#[test]
fn the_groups_of_a_launcher_killed_by_sigkill_are_emptied_and_removed_by_the_next_run() {
    if !root_or_skip("a test of the groups a killed launcher leaves") {
        return;
    }
    let l = Launches::new("stale");
    let (groups, grandchild, launcher) = killed_launch(&l);
    let next = l.jobs(r#"[{"name": "next", "cmd": "true"}]"#);
    let mut second = l.command(&next, &l.dir().join("out2"), &[]).spawn().unwrap();
    let status = wait_within(&mut second, Duration::from_secs(30), "the next run");
    let (stdout, stderr) = text(&output_of(second));
    assert_eq!(status.code(), Some(0), "{stdout}\n{stderr}");
    removed(&stderr, &groups, &grandchild, launcher);
}

/// A prepare takes the host lock too, and writes itself in the killed
/// run's place: it removes the groups, or no later run would find them.
#[test]
fn the_groups_of_a_launcher_killed_by_sigkill_are_removed_by_a_prepare_holding_the_host_next() {
    if !root_or_skip("a test of the groups a killed launcher leaves") {
        return;
    }
    let l = Launches::new("staleprep");
    let (groups, grandchild, launcher) = killed_launch(&l);
    let base = tempfile::tempdir().unwrap();
    let mut prepare = crate::common::prepare::command(base.path(), &["--name", "recom"]);
    private_lock(&mut prepare, &l.lock());
    let out = prepare.output().unwrap();
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    removed(&stderr, &groups, &grandchild, launcher);
}
