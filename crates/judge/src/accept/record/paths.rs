//! Paths in a record: every file and folder is named relative to the
//! record's own folder, never by an absolute path of the host, so that a
//! record moved or archived together with the runs it names still finds
//! them, and says nothing of the machine it was written on.
//!
//! A path is located by its folder's real path (links and `..` resolved)
//! and its own name as given: a report reached through a link keeps its
//! name, and the same file gets the same relative path whether the record
//! is written or verified, from whichever working folder.

use std::path::{Component, Path, PathBuf};

/// The folder a record is in, that its paths are relative to.
#[derive(Clone, Debug)]
pub struct Place {
    /// The folder's real path.
    folder: PathBuf,
    /// The folder as reached from the working folder (to open files by).
    given: PathBuf,
}

impl Place {
    /// The folder of the record file `record` (which need not exist yet;
    /// its folder must).
    pub fn of(record: &Path) -> std::io::Result<Place> {
        let given = match record.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        Ok(Place { folder: given.canonicalize()?, given })
    }

    /// `path` (as reached from the working folder) relative to the
    /// record's folder, with `/` between its parts.
    pub fn relative(&self, path: &Path) -> String {
        let located = locate(path);
        let mut base = self.folder.components().peekable();
        let mut rest = located.components().peekable();
        while let (Some(a), Some(b)) = (base.peek(), rest.peek()) {
            if a != b {
                break;
            }
            base.next();
            rest.next();
        }
        let ups = base.map(|_| "..".to_string());
        let down = rest.map(|c| c.as_os_str().to_string_lossy().into_owned());
        let parts: Vec<String> = ups.chain(down).collect();
        if parts.is_empty() {
            ".".into()
        } else {
            parts.join("/")
        }
    }

    /// The folder as reached from the working folder.
    pub fn given(&self) -> &Path {
        &self.given
    }

    /// The file or folder a record names by `relative`, as reached from
    /// the working folder.
    pub fn resolve(&self, relative: &str) -> PathBuf {
        if relative == "." {
            return self.given.clone();
        }
        self.given.join(relative)
    }
}

/// Whether the file `path` would be in `folder` or one of its sub-folders.
pub fn inside(path: &Path, folder: &Path) -> bool {
    let file = locate(path);
    let folder = folder.canonicalize().unwrap_or_else(|_| locate(folder));
    file.parent().is_some_and(|p| p.starts_with(&folder))
}

/// Whether `path` (a file or a folder) is below `folder`, at any depth,
/// however either is named.
pub fn below(path: &Path, folder: &Path) -> bool {
    let folder = folder.canonicalize().unwrap_or_else(|_| locate(folder));
    let path = locate(path);
    path != folder && path.starts_with(&folder)
}

/// The path a record names by `relative` when it is inside the record's
/// folder, as `--verify` opens it: relative, without `..`, naming
/// something below the folder (not the folder itself), its names alone
/// (`./a/./b` is `a/b`); `None` otherwise.
pub fn confined(relative: &str) -> Option<PathBuf> {
    let names = mlb_run::linux::dir::inside(Path::new(relative))?;
    (!names.is_empty()).then(|| names.into_iter().collect())
}

/// Whether `a` and `b` name the same file.
pub fn same(a: &Path, b: &Path) -> bool {
    locate(a) == locate(b)
}

/// `path` absolute: its folder's real path and its own name; lexically
/// made absolute where its folder does not exist.
fn locate(path: &Path) -> PathBuf {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let normal = lexical(&absolute);
    match (normal.parent(), normal.file_name()) {
        (Some(folder), Some(name)) => match folder.canonicalize() {
            Ok(real) => real.join(name),
            Err(_) => normal,
        },
        _ => normal,
    }
}

/// `path` without `.` and with each `..` taking away the part before it.
fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_relative_to_the_records_folder_and_resolve_back() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for folder in ["out", "runs/2026/gpu0", "elsewhere"] {
            std::fs::create_dir_all(root.join(folder)).unwrap();
        }
        std::os::unix::fs::symlink(root.join("elsewhere"), root.join("runs/linked")).unwrap();
        let place = Place::of(&root.join("out/acceptance.json")).unwrap();
        let report = root.join("runs/./2026/gpu0/../gpu0/a.json");
        assert_eq!(place.relative(&report), "../runs/2026/gpu0/a.json");
        assert_eq!(place.resolve("../runs/2026/gpu0/a.json"), root.join("out/../runs/2026/gpu0/a.json"));
        assert_eq!(place.relative(&root.join("out/rules.yaml")), "rules.yaml");
        assert_eq!(place.relative(&root.join("out")), ".");
        assert_eq!(place.relative(&root.join("runs/linked/b.json")), "../elsewhere/b.json");
        assert!(!place.relative(&root.join("runs")).starts_with('/'));
    }

    #[test]
    fn a_file_is_inside_a_folder_at_any_depth_however_named() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("runs/a")).unwrap();
        std::os::unix::fs::symlink(dir.path().join("runs"), dir.path().join("link")).unwrap();
        assert!(inside(&dir.path().join("runs/acceptance.json"), &dir.path().join("runs")));
        assert!(inside(&dir.path().join("link/a/acceptance.json"), &dir.path().join("runs/.")));
        assert!(inside(&dir.path().join("runs/acceptance.json"), &dir.path().join("link")));
        assert!(!inside(&dir.path().join("acceptance.json"), &dir.path().join("runs")));
        assert!(!inside(&dir.path().join("runs2/acceptance.json"), &dir.path().join("runs")));
        assert!(same(&dir.path().join("link/a/../rules.yaml"), &dir.path().join("runs/rules.yaml")));
        assert!(!same(&dir.path().join("runs/rules.yaml"), &dir.path().join("rules.yaml")));
    }

    #[test]
    fn only_paths_below_the_records_folder_are_confined() {
        for (inside, names) in [("delivery", "delivery"), ("./delivery/./n1/a.json/.", "delivery/n1/a.json")] {
            assert_eq!(confined(inside), Some(PathBuf::from(names)), "{inside}");
        }
        for outside in ["/etc/shadow", "../delivery", "delivery/../../x", ".", "", "./"] {
            assert_eq!(confined(outside), None, "{outside}");
        }
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("site/delivery")).unwrap();
        assert!(below(&dir.path().join("site/delivery"), &dir.path().join("site")));
        assert!(below(&dir.path().join("site/rules.yaml"), &dir.path().join("site/.")));
        assert!(!below(&dir.path().join("site"), &dir.path().join("site")));
        assert!(!below(&dir.path().join("other/rules.yaml"), &dir.path().join("site")));
    }

    #[test]
    fn a_record_in_the_working_folder_has_the_paths_as_given() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("runs")).unwrap();
        let place = Place::of(&dir.path().join("acceptance.json")).unwrap();
        assert_eq!(place.relative(&dir.path().join("runs")), "runs");
        assert_eq!(place.relative(dir.path()), ".");
        assert_eq!(place.resolve("."), dir.path());
    }
}
