//! Where the groups of a run live: a cgroup mount point and its layout.
//!
//! Every group mlb makes, configures, verifies and removes is a path below a
//! [`CgroupRoot`], and every operation on it is a plain file operation there
//! (`mkdir`, `write`, `read`, `rmdir`), so a fixture tree in a temporary
//! folder, laid out as the kernel exposes the cgroup filesystem, stands in
//! for `/sys/fs/cgroup` in unprivileged tests.
//!
//! cgroups-rs (0.5) is not used for this: its hierarchies cannot be rooted
//! elsewhere. `V1::new()` finds the controllers through
//! `/proc/self/mountinfo` and `V2::new()` is fixed to `/sys/fs/cgroup` (its
//! controller list is read from there whatever the root), and even a
//! hand-written `Hierarchy` is left behind by `Cgroup::clone`,
//! `root_control_group` and `parent_control_group`, which go back to the
//! real hierarchy. The operations mlb needs are few, and doing them directly
//! also names the file and the value in every error.

use super::error::CgroupError;
use super::support::{Support, Version};
use std::path::{Path, PathBuf};

/// A cgroup mount point (`/sys/fs/cgroup` on a real host) and its layout.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CgroupRoot {
    mount: PathBuf,
    version: Version,
}

impl CgroupRoot {
    /// cgroup v1: one hierarchy per controller, `mount/cpuset` and `mount/memory`.
    pub fn v1(mount: impl Into<PathBuf>) -> CgroupRoot {
        CgroupRoot { mount: mount.into(), version: Version::V1 }
    }

    /// cgroup v2: the unified hierarchy mounted at `mount`.
    pub fn v2(mount: impl Into<PathBuf>) -> CgroupRoot {
        CgroupRoot { mount: mount.into(), version: Version::V2 }
    }

    /// The mount point.
    pub fn mount(&self) -> &Path {
        &self.mount
    }

    /// `V1` or `V2`.
    pub fn version(&self) -> Version {
        self.version
    }

    /// The folder of group `path` (`mlb-run/slot0`) in the hierarchy of
    /// `controller` (v1), or in the unified hierarchy (v2).
    pub(super) fn dir(&self, controller: &str, path: &str) -> PathBuf {
        match self.version {
            Version::V2 => self.mount.join(path),
            _ => self.mount.join(controller).join(path),
        }
    }
}

impl Support {
    /// The root to make groups under, or why groups cannot be made here.
    pub fn root(&self) -> Result<CgroupRoot, CgroupError> {
        if let Some(reason) = &self.reason {
            return Err(CgroupError::Unsupported { reason: reason.clone() });
        }
        match self.version {
            Version::V1 => Ok(CgroupRoot::v1(&self.mount)),
            Version::V2 => Ok(CgroupRoot::v2(&self.mount)),
            Version::None => Err(CgroupError::Unsupported {
                reason: format!("no cgroup filesystem is mounted at {}", self.mount.display()),
            }),
        }
    }
}
