//! cgroup v2 rules the crate does not enforce: controllers are enabled top
//! down (a group offers its children only what its own `subtree_control`
//! enables), and a group that passes controllers down holds no process.

use super::error::CgroupError;
use std::path::Path;

/// Makes `controllers` available to the children of `mount/path` (e.g.
/// `mlb/run`): for the mount root and every group on the way, checks the
/// controller is offered (`cgroup.controllers`), that a non-root group holds
/// no process, and enables it in `cgroup.subtree_control`, verifying it took.
/// Missing groups on the way are created.
pub fn delegate(mount: &Path, path: &str, controllers: &[&str]) -> Result<(), CgroupError> {
    let mut dir = mount.to_path_buf();
    let parts: Vec<&str> = path.split('/').filter(|p| !p.is_empty()).collect();
    for depth in 0..=parts.len() {
        if depth > 0 {
            dir.push(parts[depth - 1]);
            if !dir.exists() {
                std::fs::create_dir(&dir).map_err(CgroupError::io(&dir))?;
            }
        }
        enable(&dir, depth == 0, controllers)?;
    }
    Ok(())
}

fn enable(dir: &Path, is_root: bool, controllers: &[&str]) -> Result<(), CgroupError> {
    let read = |name: &str| {
        let file = dir.join(name);
        std::fs::read_to_string(&file).map_err(CgroupError::io(file))
    };
    let offered = read("cgroup.controllers")?;
    let enabled = read("cgroup.subtree_control")?;
    let missing: Vec<&str> = controllers.iter().copied().filter(|c| !listed(&enabled, c)).collect();
    if missing.is_empty() {
        return Ok(());
    }
    if let Some(c) = missing.iter().find(|c| !listed(&offered, c)) {
        return Err(CgroupError::ControllerMissing { group: dir.to_path_buf(), controller: c.to_string() });
    }
    if !is_root && !read("cgroup.procs")?.trim().is_empty() {
        return Err(CgroupError::InnerNodeBusy { group: dir.to_path_buf() });
    }
    let file = dir.join("cgroup.subtree_control");
    let request: Vec<String> = missing.iter().map(|c| format!("+{c}")).collect();
    std::fs::write(&file, request.join(" ")).map_err(CgroupError::io(&file))?;
    let now = read("cgroup.subtree_control")?;
    if let Some(c) = missing.iter().find(|c| !listed(&now, c)) {
        return Err(CgroupError::NotApplied { file, wanted: format!("+{c}"), got: now.trim().to_string() });
    }
    Ok(())
}

/// True when a controller list (`cpuset memory`, or a `+cpuset` request) names `controller`.
fn listed(list: &str, controller: &str) -> bool {
    list.split_whitespace().any(|w| w.trim_start_matches('+') == controller)
}

#[cfg(test)]
mod tests {
    //! A fixture tree stands in for the cgroup2 filesystem: the groups exist
    //! with their interface files; what mlb writes stays in the files.
    use super::*;
    use std::path::PathBuf;

    fn tree(root_offers: &str, groups: &[(&str, &str, &str)]) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let mount = dir.path().join("cgroup");
        let mut all = vec![("", root_offers, "1\n")];
        all.extend_from_slice(groups);
        for (path, offers, procs) in all {
            let g = mount.join(path);
            std::fs::create_dir_all(&g).unwrap();
            std::fs::write(g.join("cgroup.controllers"), offers).unwrap();
            std::fs::write(g.join("cgroup.subtree_control"), "").unwrap();
            std::fs::write(g.join("cgroup.procs"), procs).unwrap();
        }
        (dir, mount)
    }

    fn control(mount: &Path, group: &str) -> String {
        std::fs::read_to_string(mount.join(group).join("cgroup.subtree_control")).unwrap()
    }

    #[test]
    fn controllers_are_enabled_on_every_group_down_the_path() {
        let offers = "cpuset cpu io memory pids";
        let (_d, mount) = tree(offers, &[("mlb", "cpuset memory", ""), ("mlb/run1", "cpuset memory", "")]);
        delegate(&mount, "mlb/run1", &["cpuset", "memory"]).unwrap();
        for g in ["", "mlb", "mlb/run1"] {
            assert_eq!(control(&mount, g), "+cpuset +memory", "group {g:?}");
        }
        // Already enabled: nothing is written again.
        std::fs::write(mount.join("cgroup.subtree_control"), "cpu cpuset memory").unwrap();
        delegate(&mount, "mlb/run1", &["cpuset", "memory"]).unwrap();
        assert_eq!(control(&mount, ""), "cpu cpuset memory");
    }

    #[test]
    fn a_busy_inner_node_is_refused_and_nothing_below_it_is_touched() {
        let (_d, mount) = tree("cpuset memory", &[("mlb", "cpuset memory", "4242\n"), ("mlb/run1", "", "")]);
        let e = delegate(&mount, "mlb/run1", &["cpuset", "memory"]).unwrap_err();
        assert!(matches!(e, CgroupError::InnerNodeBusy { ref group } if group.ends_with("mlb")), "{e}");
        let text = mlb_record::fix::one_line(&e);
        assert!(text.contains("only in leaves") && text.contains("--no-cgroups"), "{text}");
        assert_eq!(control(&mount, ""), "+cpuset +memory", "the root (exempt) was enabled first");
        assert_eq!(control(&mount, "mlb"), "");
        assert_eq!(control(&mount, "mlb/run1"), "");
    }

    #[test]
    fn a_controller_not_offered_is_named() {
        let (_d, mount) = tree("cpuset memory", &[("mlb", "memory", ""), ("mlb/run1", "", "")]);
        let e = delegate(&mount, "mlb/run1", &["cpuset", "memory"]).unwrap_err();
        assert!(
            matches!(e, CgroupError::ControllerMissing { ref controller, ref group } if controller == "cpuset" && group.ends_with("mlb")),
            "{e}"
        );
        assert_eq!(control(&mount, "mlb"), "");
    }

    #[test]
    fn a_write_that_does_not_take_is_reported() {
        let (_d, mount) = tree("cpuset memory", &[]);
        let sc = mount.join("cgroup.subtree_control");
        std::fs::remove_file(&sc).unwrap();
        std::fs::create_dir(&sc).unwrap();
        let e = delegate(&mount, "mlb", &["cpuset"]).unwrap_err();
        assert!(matches!(e, CgroupError::Io { ref file, .. } if file == &sc), "{e}");
    }
}
