//! Which plugin files mlb agrees to load.
//!
//! A plugin runs with the launcher's privileges (often root, to manage
//! cgroups), so a file, or the folder holding it, that another user can write
//! is refused: it could be swapped for arbitrary code.

use nix::unistd::Uid;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// Why a plugin file is not trusted.
#[derive(Debug, thiserror::Error)]
pub enum TrustError {
    /// A path is writable by users other than its owner and group.
    #[error("{path} is writable by other users (mode {mode:o}); fix: chmod o-w {path}")]
    WorldWritable {
        /// The file or folder.
        path: PathBuf,
        /// Its permission bits.
        mode: u32,
    },
    /// The file belongs to a user other than root or the user running mlb.
    #[error("{path} belongs to uid {owner}, neither root nor the user running mlb; fix: chown it or copy it to a folder you own")]
    ForeignOwner {
        /// The file.
        path: PathBuf,
        /// Its owner's uid.
        owner: u32,
    },
    /// The file could not be inspected.
    #[error("cannot inspect {path}: {source}")]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
}

/// Accepts `path` only if neither it nor its folder is writable by other
/// users and it is owned by root or the current user.
pub fn check_trusted(path: &Path) -> Result<(), TrustError> {
    let meta = |p: &Path| std::fs::metadata(p).map_err(|source| TrustError::Io { path: p.to_path_buf(), source });
    let file = meta(path)?;
    let me = Uid::effective().as_raw();
    if file.uid() != 0 && file.uid() != me {
        return Err(TrustError::ForeignOwner { path: path.to_path_buf(), owner: file.uid() });
    }
    let dir = path.parent().unwrap_or(Path::new("/"));
    for (p, m) in [(path, file.mode()), (dir, meta(dir)?.mode())] {
        // A sticky world-writable folder (like /tmp) still lets others add files.
        if m & 0o002 != 0 {
            return Err(TrustError::WorldWritable { path: p.to_path_buf(), mode: m & 0o7777 });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn world_writable_file_or_folder_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("libx.so");
        std::fs::write(&file, b"x").unwrap();
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
        check_trusted(&file).unwrap();

        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o646)).unwrap();
        let e = check_trusted(&file).unwrap_err().to_string();
        assert!(e.contains("writable by other users") && e.contains("chmod o-w"), "{e}");

        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o757)).unwrap();
        assert!(matches!(check_trusted(&file), Err(TrustError::WorldWritable { path, .. }) if path == dir.path()));
    }
}
