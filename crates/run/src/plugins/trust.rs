//! Which plugin files mlb agrees to load.
//!
//! A plugin runs with the launcher's privileges (often root, to manage
//! cgroups), so a file that another user could replace is refused: it could
//! be swapped for arbitrary code. Symlinks are resolved first, and the rules
//! apply to the real file and to every folder on its way from `/` (as
//! OpenSSH's `StrictModes` does for `authorized_keys`), and to the folder
//! holding a symlink:
//!
//! - each must belong to root or to the user running mlb;
//! - none may be writable by other users, nor by a group other than root's;
//! - except that a folder above the plugin's own folder may be writable by
//!   others when it has the sticky bit (as `/tmp`): only the owner of an
//!   entry (root or you, by the first rule) may then rename or remove it.
//!
//! The plugin's own folder gets no such exception: anyone may add files to a
//! sticky folder, and every `*.so` there is a candidate.

use mlb_record::fix::Fix;
use nix::unistd::Uid;
use std::fmt;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// Why a plugin file is not trusted.
#[derive(Debug, thiserror::Error)]
pub enum TrustError {
    /// The file, or a folder on its way, is writable by users other than its
    /// owner (and root's group).
    #[error("{}, writable by {who}", Located(.file, .component, .stat))]
    Writable {
        /// The plugin file, as given.
        file: PathBuf,
        /// The file or folder at fault (on the real path).
        component: PathBuf,
        /// Its mode and owner.
        stat: Stat,
        /// Who else can write it, in words.
        who: &'static str,
    },
    /// The file, or a folder on its way, belongs to a user other than root
    /// or the user running mlb.
    #[error("{}, owned by neither root nor the user running mlb (uid {me})", Located(.file, .component, .stat))]
    ForeignOwner {
        /// The plugin file, as given.
        file: PathBuf,
        /// The file or folder at fault (on the real path).
        component: PathBuf,
        /// Its mode and owner.
        stat: Stat,
        /// The uid mlb runs as.
        me: u32,
    },
    /// The file or a folder on its way could not be inspected.
    #[error("cannot inspect {path}: {source}")]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
}

/// The mode and owner of a file or folder.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stat {
    /// Permission bits, with setuid, setgid and sticky.
    pub mode: u32,
    /// Owner.
    pub uid: u32,
    /// Group.
    pub gid: u32,
}

impl fmt::Display for Stat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "mode {:04o}, owner uid {}, group gid {}", self.mode, self.uid, self.gid)
    }
}

/// `FILE (stat)` or `FILE lies in FOLDER (stat)`: the plugin named first,
/// then what is at fault with it.
struct Located<'a>(&'a Path, &'a Path, &'a Stat);

impl fmt::Display for Located<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Located(file, component, stat) = self;
        if file == component {
            write!(f, "{} ({stat})", file.display())
        } else {
            write!(f, "{} lies in {} ({stat})", file.display(), component.display())
        }
    }
}

/// Where a checked path lies relative to the plugin file.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Place {
    /// The file itself.
    File,
    /// The folder holding it (or holding a symlink to it).
    Folder,
    /// A folder further up.
    Ancestor,
}

/// Accepts `path` only if the file it resolves to, every folder from `/` to
/// it, and the folder holding it when it is a symlink follow the rules of
/// the module documentation. Returns the real path: the file that was
/// checked, the one to read and load.
pub fn check_trusted(path: &Path) -> Result<PathBuf, TrustError> {
    let real = canonical(path)?;
    let me = Uid::effective().as_raw();
    check(path, &real, Place::File, me)?;
    let mut folders: Vec<PathBuf> = real.parent().map(Path::to_path_buf).into_iter().collect();
    if std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
        folders.extend(path.parent().map(canonical).transpose()?);
    }
    for folder in &folders {
        for (i, dir) in folder.ancestors().enumerate() {
            check(path, dir, if i == 0 { Place::Folder } else { Place::Ancestor }, me)?;
        }
    }
    Ok(real)
}

fn canonical(path: &Path) -> Result<PathBuf, TrustError> {
    path.canonicalize().map_err(|source| TrustError::Io { path: path.to_path_buf(), source })
}

/// One file or folder (`component`) on the way to the plugin `file`.
fn check(file: &Path, component: &Path, place: Place, me: u32) -> Result<(), TrustError> {
    let meta = std::fs::metadata(component).map_err(|source| TrustError::Io { path: component.into(), source })?;
    let stat = Stat { mode: meta.mode() & 0o7777, uid: meta.uid(), gid: meta.gid() };
    let (file, component) = (file.to_path_buf(), component.to_path_buf());
    if stat.uid != 0 && stat.uid != me {
        return Err(TrustError::ForeignOwner { file, component, stat, me });
    }
    let others = stat.mode & 0o002 != 0;
    let group = stat.mode & 0o020 != 0 && stat.gid != 0;
    let sticky = stat.mode & 0o1000 != 0 && place == Place::Ancestor;
    let who = match (others, group) {
        _ if sticky => return Ok(()),
        (true, true) => "other users and its group",
        (true, false) => "other users",
        (false, true) => "its group",
        (false, false) => return Ok(()),
    };
    Err(TrustError::Writable { file, component, stat, who })
}

impl Fix for TrustError {
    fn fix(&self) -> Option<String> {
        match self {
            TrustError::Writable { component, .. } => Some(format!("chmod g-w,o-w {}", component.display())),
            TrustError::ForeignOwner { me, .. } => Some(format!(
                "have root or uid {me} own it, or install the plugin in a folder only root or you can write"
            )),
            TrustError::Io { .. } => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn chmod(path: &Path, mode: u32) {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
    }

    #[test]
    fn world_writable_file_or_folder_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("libx.so");
        std::fs::write(&file, b"x").unwrap();
        chmod(dir.path(), 0o755);
        chmod(&file, 0o644);
        assert_eq!(check_trusted(&file).unwrap(), file);

        chmod(&file, 0o646);
        let e = mlb_record::fix::one_line(&check_trusted(&file).unwrap_err());
        let meta = std::fs::metadata(&file).unwrap();
        let expected = format!(
            "{0} (mode 0646, owner uid {1}, group gid {2}), writable by other users; fix: chmod g-w,o-w {0}",
            file.display(),
            meta.uid(),
            meta.gid()
        );
        assert_eq!(e, expected);

        chmod(&file, 0o644);
        chmod(dir.path(), 0o757);
        assert!(matches!(check_trusted(&file), Err(TrustError::Writable { component, .. }) if component == dir.path()));
    }

    #[test]
    fn a_symlink_is_checked_where_it_points_and_where_it_lies() {
        let dir = tempfile::tempdir().unwrap();
        chmod(dir.path(), 0o755);
        let (here, there) = (dir.path().join("here"), dir.path().join("there"));
        for d in [&here, &there] {
            std::fs::create_dir(d).unwrap();
            chmod(d, 0o755);
        }
        let real = there.join("libx.so");
        std::fs::write(&real, b"x").unwrap();
        chmod(&real, 0o644);
        let link = here.join("libx.so");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        assert_eq!(check_trusted(&link).unwrap(), real, "the real path is what gets loaded");

        chmod(&here, 0o777);
        let e = check_trusted(&link).unwrap_err().to_string();
        assert!(e.starts_with(&format!("{} lies in {} (mode 0777", link.display(), here.display())), "{e}");
    }
}
