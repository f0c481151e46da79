//! The host lock file as a hostile user plants it. A run reads the lock
//! file back to find the groups of the run before; the run name it held was
//! joined into a cgroup path unchecked, so that a name with `/..` made the
//! next run kill the processes of another group and remove it. And the lock
//! was opened through a symbolic link, truncating whatever file the link
//! named. A run name is now checked against the grammar mlb makes names in
//! (anything else is ignored, with a warning), and a lock file that is a
//! link or no regular file is refused.

use crate::common::launcher::{alive, output_of, root_or_skip, wait_within, LOCK_VAR};
use crate::common::{launcher::Launches, text};
use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::Duration;

/// A run of one `true` job with the host lock at `lock`.
fn run_with_lock(l: &Launches, lock: &Path) -> Output {
    let jobs = l.jobs(r#"[{"name": "next", "cmd": "true"}]"#);
    let mut cmd = l.command(&jobs, &l.out(), &["--devices", "1"]);
    cmd.env(LOCK_VAR, lock);
    let mut child = cmd.spawn().unwrap();
    wait_within(&mut child, Duration::from_secs(60), "the run");
    output_of(child)
}

/// A lock file naming `run` as the run that held the host before.
fn planted_lock(l: &Launches, run: &str) -> PathBuf {
    let lock = l.dir().join("planted.lock");
    let holder = serde_json::json!({"pid": 1, "started": "2025-01-01 10:00:00+00:00", "outdir": "/x", "run": run});
    std::fs::write(&lock, holder.to_string()).unwrap();
    lock
}

/// A v1 cpuset group (or a v2 group) that is no group of mlb, with a slot
/// folder holding a live process; killed and removed when dropped.
struct Victim {
    group: PathBuf,
    decoy: PathBuf,
    child: std::process::Child,
}

impl Victim {
    /// `name` below the cgroup mount, beside an empty group `mlb-x` through
    /// which a planted name reaches it (`mlb-x/../NAME`).
    fn new(name: &str) -> Victim {
        let v1 = Path::new("/sys/fs/cgroup/cpuset/cgroup.procs").exists();
        let mount = if v1 { PathBuf::from("/sys/fs/cgroup/cpuset") } else { PathBuf::from("/sys/fs/cgroup") };
        let group = mount.join(name);
        let decoy = mount.join("mlb-x");
        std::fs::create_dir_all(group.join("slot0")).unwrap();
        let _ = std::fs::create_dir(&decoy);
        if v1 {
            for file in ["cpuset.cpus", "cpuset.mems"] {
                let value = std::fs::read_to_string(mount.join(file)).unwrap();
                std::fs::write(group.join(file), &value).unwrap();
                std::fs::write(group.join("slot0").join(file), &value).unwrap();
            }
        }
        let child = std::process::Command::new("sleep").arg("300").spawn().unwrap();
        std::fs::write(group.join("slot0/cgroup.procs"), child.id().to_string()).unwrap();
        Victim { group, decoy, child }
    }
}

impl Drop for Victim {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir(self.group.join("slot0"));
        let _ = std::fs::remove_dir(&self.group);
        let _ = std::fs::remove_dir(&self.decoy);
    }
}

#[test]
fn a_run_name_leading_out_of_mlb_groups_is_ignored_and_nothing_of_another_group_is_killed() {
    if !root_or_skip("a test of a planted run name reaching a group that is not mlb's") {
        return;
    }
    let l = Launches::new("planted");
    let name = format!("victim{}", std::process::id());
    let victim = Victim::new(&name);
    let lock = planted_lock(&l, &format!("x/../{name}"));
    let out = run_with_lock(&l, &lock);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(alive(victim.child.id() as i32), "the process of another group was killed: {stderr}");
    assert!(victim.group.join("slot0").is_dir(), "another group was removed: {stderr}");
    assert!(
        stderr.contains(&format!(
            "mlb: warning: the host lock {} names the run \"x/../{name}\", which is not a run name mlb makes",
            lock.display()
        )),
        "{stderr}"
    );
}

#[test]
fn a_run_name_that_is_not_mlb_s_is_ignored_with_a_warning() {
    let l = Launches::new("badname");
    let lock = planted_lock(&l, "../../x");
    let out = run_with_lock(&l, &lock);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    let warning =
        stderr.lines().find(|l| l.contains("names the run \"../../x\"")).unwrap_or_else(|| panic!("{stderr}"));
    assert!(
        warning.ends_with("its groups are not looked for; fix: remove the lock file if mlb did not write it"),
        "{warning}"
    );
    let now = std::fs::read_to_string(&lock).unwrap();
    assert!(now.contains(&format!("\"run\":\"{}-", l.suite)), "the run names itself in the lock: {now}");
}

#[test]
fn a_lock_file_that_is_a_symbolic_link_is_refused_and_its_target_kept() {
    let l = Launches::new("linked");
    let target = l.dir().join("precious.txt");
    std::fs::write(&target, "keep me\n").unwrap();
    let lock = l.dir().join("link.lock");
    std::os::unix::fs::symlink(&target, &lock).unwrap();
    let out = run_with_lock(&l, &lock);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(2), "{stdout}\n{stderr}");
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "keep me\n", "the link's target was written");
    assert!(
        stderr.contains(&format!("the host lock {} is a symbolic link, not a regular file", lock.display())),
        "{stderr}"
    );
    assert!(!l.out().join("summary.txt").exists(), "nothing ran");
}

#[test]
fn a_lock_file_that_is_no_regular_file_is_refused() {
    let l = Launches::new("fifolock");
    let lock = l.dir().join("fifo.lock");
    nix::unistd::mkfifo(&lock, nix::sys::stat::Mode::S_IRWXU).unwrap();
    let out = run_with_lock(&l, &lock);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(2), "{stdout}\n{stderr}");
    assert!(stderr.contains(&format!("the host lock {} is a FIFO, not a regular file", lock.display())), "{stderr}");
}
