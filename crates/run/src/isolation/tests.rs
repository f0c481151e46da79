//! Groups made, verified and removed on fixture trees: a temporary folder
//! laid out as the kernel exposes a cgroup filesystem (v1: one hierarchy per
//! controller; v2: the unified one), without root.
//!
//! The fixture is the kernel: it lays out beforehand the folders and
//! interface files the kernel would create on `mkdir`, with the CPUs and
//! memory nodes a group would effectively get (what it asks for, within the
//! CPUs online); a value written to a file reads back as written. Removal
//! needs the kernel's part of `rmdir` (the interface files go with the
//! folder): [`Fixture::release`] does it.

use super::Slot;
use super::*;
use crate::linux::cpulist;
use std::path::{Path, PathBuf};

pub(crate) const RUN: &str = "t-1";
const GIB: u64 = 1 << 30;
/// What cgroup v1 shows for "no limit".
const V1_UNLIMITED: &str = "9223372036854771712";

pub(crate) fn slot(index: usize, cpus: &str) -> Slot {
    Slot { index, device: index.into(), cpus: cpulist::parse(cpus), mems: vec![0, 1], memory_bytes: GIB }
}

fn two_slots() -> Vec<Slot> {
    vec![slot(0, "0-3"), slot(1, "4-7")]
}

pub(crate) struct Fixture {
    _dir: tempfile::TempDir,
    pub(crate) root: CgroupRoot,
}

fn put(dir: &Path, files: &[(&str, &str)]) {
    std::fs::create_dir_all(dir).unwrap();
    for (name, text) in files {
        std::fs::write(dir.join(name), text).unwrap();
    }
}

fn read(file: PathBuf) -> String {
    std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()))
}

/// The CPUs of `wanted` that are `online`, as the kernel lists them.
fn within(wanted: &[usize], online: &str) -> String {
    let online = cpulist::parse(online);
    cpulist::format(&wanted.iter().copied().filter(|c| online.contains(c)).collect::<Vec<_>>())
}

impl Fixture {
    /// cgroup v1 with `online` CPUs, nodes 0-1, and the groups of `slots`.
    pub(crate) fn v1(online: &str, slots: &[Slot]) -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let mount = dir.path().join("cgroup");
        let cpuset = |g: &str, cpus: &str, mems: &str, procs: &str| {
            put(
                &mount.join("cpuset").join(g),
                &[
                    ("cgroup.procs", procs),
                    ("cpuset.cpus", cpus),
                    ("cpuset.mems", mems),
                    ("cpuset.effective_cpus", cpus),
                    ("cpuset.effective_mems", mems),
                ],
            )
        };
        let memory = |g: &str, procs: &str| {
            put(
                &mount.join("memory").join(g),
                &[
                    ("cgroup.procs", procs),
                    ("memory.limit_in_bytes", V1_UNLIMITED),
                    ("memory.oom_control", "oom_kill_disable 0\nunder_oom 0\noom_kill 0\n"),
                ],
            )
        };
        cpuset("", &format!("{online}\n"), "0-1\n", "1\n");
        memory("", "1\n");
        let parent = format!("mlb-{RUN}");
        cpuset(&parent, "\n", "\n", "");
        memory(&parent, "");
        for s in slots {
            let g = format!("{parent}/slot{}", s.index);
            cpuset(&g, "\n", "\n", "");
            // The kernel shows the CPUs the group will effectively have.
            put(
                &mount.join("cpuset").join(&g),
                &[("cpuset.effective_cpus", &within(&s.cpus, online)), ("cpuset.effective_mems", "0-1")],
            );
            memory(&g, "");
        }
        Fixture { root: CgroupRoot::v1(&mount), _dir: dir }
    }

    /// cgroup v2 with `online` CPUs, nodes 0-1, and the groups of `slots`.
    fn v2(online: &str, slots: &[Slot]) -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let mount = dir.path().join("cgroup");
        let group = |g: &str, offers: &str, procs: &str, cpus: &str| {
            put(
                &mount.join(g),
                &[
                    ("cgroup.controllers", offers),
                    ("cgroup.subtree_control", ""),
                    ("cgroup.procs", procs),
                    ("cpuset.cpus", ""),
                    ("cpuset.mems", ""),
                    ("cpuset.cpus.effective", cpus),
                    ("cpuset.mems.effective", "0-1\n"),
                    ("memory.max", "max\n"),
                    ("memory.events", "low 0\nhigh 0\nmax 0\noom 0\noom_kill 0\n"),
                ],
            )
        };
        group("", "cpuset cpu io memory pids\n", "1\n", online);
        let parent = format!("mlb-{RUN}");
        group(&parent, "cpuset memory\n", "", online);
        for s in slots {
            group(&format!("{parent}/slot{}", s.index), "cpuset memory\n", "", &within(&s.cpus, online));
        }
        Fixture { root: CgroupRoot::v2(&mount), _dir: dir }
    }

    /// Folder of group `g` in the hierarchy of `controller` (v1) or the unified one.
    pub(crate) fn dir(&self, controller: &str, g: &str) -> PathBuf {
        self.root.dir(controller, g)
    }

    /// The run's parent folders still there.
    fn left(&self) -> Vec<PathBuf> {
        ["cpuset", "memory"].iter().map(|c| self.dir(c, "mlb-t-1")).filter(|d| d.exists()).collect()
    }

    /// Removes `groups` (the kernel doing its part) and checks nothing stays.
    fn removes(&self, groups: RunGroups) {
        self.release();
        groups.remove().unwrap();
        assert_eq!(self.left(), Vec::<PathBuf>::new());
    }

    /// The kernel's part of `rmdir`: the interface files of the run's groups go.
    pub(crate) fn release(&self) {
        fn files_out(dir: &Path) {
            for e in std::fs::read_dir(dir).unwrap().flatten() {
                if e.file_type().unwrap().is_dir() {
                    files_out(&e.path());
                } else {
                    std::fs::remove_file(e.path()).unwrap();
                }
            }
        }
        for c in ["cpuset", "memory"] {
            let parent = self.dir(c, &format!("mlb-{RUN}"));
            if parent.exists() {
                files_out(&parent);
            }
        }
    }
}

#[test]
fn v1_slots_get_their_cpus_nodes_and_memory_in_both_hierarchies() {
    let fx = Fixture::v1("0-7", &two_slots());
    let groups = RunGroups::create(&fx.root, RUN, &two_slots()).unwrap();
    assert_eq!(groups.isolation(), Isolation::CgroupV1);
    // The parent gets what its children use, or they could not have it.
    assert_eq!(read(fx.dir("cpuset", "mlb-t-1").join("cpuset.cpus")), "0-7");
    assert_eq!(read(fx.dir("cpuset", "mlb-t-1").join("cpuset.mems")), "0-1");
    for (i, cpus) in ["0-3", "4-7"].into_iter().enumerate() {
        let g = format!("mlb-t-1/slot{i}");
        assert_eq!(read(fx.dir("cpuset", &g).join("cpuset.cpus")), cpus);
        assert_eq!(read(fx.dir("cpuset", &g).join("cpuset.mems")), "0-1");
        assert_eq!(read(fx.dir("memory", &g).join("memory.limit_in_bytes")), GIB.to_string());
        let s = groups.slot(i).unwrap();
        assert_eq!(s.display_path(), format!("/{g}"));
        assert_eq!(s.procs_files().len(), 2, "one cgroup.procs per hierarchy");
        assert!(s.pids().is_empty());
    }
    std::fs::write(fx.dir("memory", "mlb-t-1/slot1").join("memory.oom_control"), "under_oom 0\noom_kill 2\n").unwrap();
    assert_eq!((groups.slot(0).unwrap().oom_kills(), groups.slot(1).unwrap().oom_kills()), (0, 2));
    fx.removes(groups);
}

#[test]
fn v2_enables_the_controllers_down_to_the_run_and_limits_each_slot() {
    let fx = Fixture::v2("0-7", &two_slots());
    let groups = RunGroups::create(&fx.root, RUN, &two_slots()).unwrap();
    assert_eq!(groups.isolation(), Isolation::CgroupV2);
    assert_eq!(read(fx.dir("", "").join("cgroup.subtree_control")), "+cpuset +memory");
    assert_eq!(read(fx.dir("", "mlb-t-1").join("cgroup.subtree_control")), "+cpuset +memory");
    assert_eq!(read(fx.dir("", "mlb-t-1").join("cpuset.cpus")), "", "a v2 parent inherits its CPUs");
    for (i, cpus) in ["0-3", "4-7"].into_iter().enumerate() {
        let g = fx.dir("", &format!("mlb-t-1/slot{i}"));
        assert_eq!(read(g.join("cpuset.cpus")), cpus);
        assert_eq!(read(g.join("memory.max")), GIB.to_string());
        assert_eq!(groups.slot(i).unwrap().procs_files().len(), 1, "one unified hierarchy");
    }
    std::fs::write(fx.dir("", "mlb-t-1/slot0").join("memory.events"), "max 3\noom 1\noom_kill 1\n").unwrap();
    assert_eq!(groups.slot(0).unwrap().oom_kills(), 1);
    fx.removes(groups);
}

#[test]
fn an_offline_cpu_fails_verification_naming_the_effective_file() {
    // CPU 7 is offline: slot 1 asks for 4-7 and effectively gets 4-6.
    let fx = Fixture::v2("0-6", &two_slots());
    let e = RunGroups::create(&fx.root, RUN, &two_slots()).unwrap_err();
    let CgroupError::NotApplied { file, wanted, got } = &e else { panic!("{e}") };
    assert!(file.ends_with("mlb-t-1/slot1/cpuset.cpus.effective"), "{e}");
    assert_eq!((wanted.as_str(), got.as_str()), ("4-7", "4-6"));
    let text = mlb_record::fix::one_line(&e);
    assert!(
        text.contains("the limit did not take") && text.contains("; fix: ") && text.contains("--no-cgroups"),
        "{text}"
    );

    let fx = Fixture::v1("0-6", &two_slots());
    let e = RunGroups::create(&fx.root, RUN, &two_slots()).unwrap_err();
    assert!(
        matches!(&e, CgroupError::NotApplied { file, got, .. } if file.ends_with("slot1/cpuset.effective_cpus") && got == "4-6"),
        "{e}"
    );
}

#[test]
fn a_limit_the_controller_ignores_is_reported() {
    // A memory.limit_in_bytes that accepts every write and keeps nothing.
    let fx = Fixture::v1("0-7", &two_slots());
    let file = fx.dir("memory", "mlb-t-1/slot0").join("memory.limit_in_bytes");
    std::fs::remove_file(&file).unwrap();
    std::os::unix::fs::symlink("/dev/null", &file).unwrap();
    let e = RunGroups::create(&fx.root, RUN, &two_slots()).unwrap_err();
    assert!(
        matches!(&e, CgroupError::NotApplied { file: f, wanted, got } if f == &file && *wanted == GIB.to_string() && got.is_empty()),
        "{e}"
    );
}

#[test]
fn a_group_without_its_interface_files_is_named_and_removed_again() {
    // A hierarchy where a new group gets no cpuset files (no such controller):
    // the fixture lays out no group of the run, mlb's mkdir makes bare folders.
    let fx = Fixture::v1("0-7", &[]);
    for c in ["cpuset", "memory"] {
        std::fs::remove_dir_all(fx.dir(c, "mlb-t-1")).unwrap();
    }
    let e = RunGroups::create(&fx.root, RUN, &two_slots()).unwrap_err();
    assert!(
        matches!(&e, CgroupError::Write { file, value, .. } if file == &fx.dir("cpuset", "mlb-t-1").join("cpuset.cpus") && value == "0-7"),
        "{e}"
    );
    assert!(e.to_string().starts_with("cannot write \"0-7\" to cgroup file "), "{e}");
    assert_eq!(fx.left(), Vec::<PathBuf>::new(), "the folders made were removed");
}

#[test]
fn removal_takes_the_slots_then_the_parent_and_reports_what_stays() {
    let fx = Fixture::v1("0-7", &two_slots());
    let groups = RunGroups::create(&fx.root, RUN, &two_slots()).unwrap();
    // Someone made a group inside slot 1: it and the parent must stay.
    std::fs::create_dir(fx.dir("cpuset", "mlb-t-1/slot1/inner")).unwrap();
    fx.release();
    let errors = groups.remove().unwrap_err();
    let stayed: Vec<String> = errors
        .iter()
        .map(|e| match e {
            CgroupError::Remove { group, .. } => group.strip_prefix(fx.root.mount()).unwrap().display().to_string(),
            other => panic!("{other}"),
        })
        .collect();
    assert_eq!(stayed, ["cpuset/mlb-t-1/slot1", "cpuset/mlb-t-1"]);
    let first = mlb_record::fix::one_line(&errors[0]);
    assert!(first.contains("; fix: remove it with rmdir"), "{first}");
    assert!(!fx.dir("cpuset", "mlb-t-1/slot0").exists());
    assert!(!fx.dir("memory", "mlb-t-1").exists(), "the memory hierarchy is clean");
}

#[test]
fn a_host_that_cannot_make_groups_has_no_root() {
    let support = support::probe(Path::new("/nonexistent-root"), 0);
    let e = support.root().unwrap_err();
    assert!(matches!(e, CgroupError::Unsupported { .. }), "{e}");
    assert!(e.to_string().contains("no cgroup filesystem is mounted"), "{e}");
}

#[test]
fn the_groups_a_run_left_are_found_by_its_name_and_removed() {
    let fx = Fixture::v1("0-7", &two_slots());
    // A launcher killed by SIGKILL made them and never removed them.
    std::mem::forget(RunGroups::create(&fx.root, RUN, &two_slots()).unwrap());
    assert!(RunGroups::left_by(&fx.root, "t-2").is_none(), "another run left nothing");
    let left = RunGroups::left_by(&fx.root, RUN).expect("found");
    assert_eq!(left.path, "mlb-t-1");
    let slots: Vec<String> = left.slots.iter().map(SlotGroup::display_path).collect();
    assert_eq!(slots, ["/mlb-t-1/slot0", "/mlb-t-1/slot1"]);
    fx.removes(left);
    assert!(RunGroups::left_by(&fx.root, RUN).is_none(), "gone");
}
