//! What `--verify` reads of the files a record names, only from inside the
//! record's folder: each path relative, without `..` ([`confined`]), and
//! opened through the folder held open ([`Dir`]), so that no link is
//! followed on the way; only regular files, each of at most
//! [`INPUT_LIMIT`] bytes, at most [`MAX_ENTRIES`] names listed and
//! [`MAX_BYTES`] read in all. The request's files are copied into a
//! private folder laid out as the record's ([`Copied`]), where the verdicts
//! are computed again: the evaluation reads nothing but what was copied.
//!
//! A report folder is walked as `mlb report` reads it: every `*.json` file
//! at any depth, hidden names left out; a link, a FIFO or a device there is
//! left out and said ([`LeftOut`]).

use super::inputs::Hashed;
use super::paths::{confined, Place};
use crate::accept::Request;
use mlb_record::reading::INPUT_LIMIT;
use mlb_run::linux::dir::{Dir, Entry};
use std::path::Path;

/// The most names listed below the record's folder by one `--verify`.
pub const MAX_ENTRIES: usize = 200_000;
/// The most bytes read below the record's folder by one `--verify`: 2 GiB.
pub const MAX_BYTES: u64 = 2 << 30;

/// The files of a request, copied from the record's folder.
pub struct Copied {
    /// The private folder, removed when dropped.
    root: tempfile::TempDir,
    /// The place of the record in the copy: paths relative to it are the
    /// record's.
    pub place: Place,
    /// Files below the request's folders not copied, and why.
    pub left_out: Vec<LeftOut>,
}

/// A file a record names, or that its folders hold, that was not read.
#[derive(Clone, Debug, PartialEq)]
pub struct LeftOut {
    /// The path, relative to the record's folder.
    pub path: String,
    /// Why.
    pub reason: String,
}

/// Why the request's files cannot be copied, so that the verdicts cannot
/// be computed again.
#[derive(Debug, thiserror::Error)]
pub enum ConfineError {
    /// A path of the request is absolute, leads out by `..` or names the
    /// record's folder itself.
    #[error("the request's {what} {path:?} is not a path inside the record's folder (relative, without `..`): it was not opened")]
    Outside {
        /// Which path of the request (`rules`, `reports` ...).
        what: &'static str,
        /// The path as the record gives it.
        path: String,
    },
    /// A file or folder of the request cannot be read from the record's folder.
    #[error("the request's {what} {path:?} cannot be read inside the record's folder: {source}")]
    Unreadable {
        /// Which path of the request.
        what: &'static str,
        /// The path as the record gives it.
        path: String,
        /// Why (a link, a FIFO, missing, over the limit).
        source: std::io::Error,
    },
    /// More than [`MAX_ENTRIES`] names or [`MAX_BYTES`] bytes.
    #[error("the request's {what} {path:?} holds more than {MAX_ENTRIES} files or {MAX_BYTES} bytes, the limits of --verify")]
    TooMuch {
        /// Which path of the request.
        what: &'static str,
        /// The path as the record gives it.
        path: String,
    },
    /// The private folder cannot be made or written.
    #[error("cannot copy the record's files into a private folder: {0}")]
    Private(std::io::Error),
}

/// What may still be read: names to list, bytes to read.
struct Budget {
    entries: usize,
    bytes: u64,
}

impl Budget {
    fn new() -> Budget {
        Budget { entries: MAX_ENTRIES, bytes: MAX_BYTES }
    }

    /// Takes `entries` names and `bytes` bytes; false when over.
    fn take(&mut self, entries: usize, bytes: u64) -> bool {
        let ok = entries <= self.entries && bytes <= self.bytes;
        self.entries = self.entries.saturating_sub(entries);
        self.bytes = self.bytes.saturating_sub(bytes);
        ok
    }
}

/// The files of `request` (as the record at `record_name` in `folder`
/// gives them), copied from `folder` into a private folder.
pub fn copy(folder: &Dir, record_name: &Path, request: &Request) -> Result<Copied, ConfineError> {
    let root = tempfile::Builder::new().prefix("mlb-verify-").tempdir().map_err(ConfineError::Private)?;
    let place = Place::of(&root.path().join(record_name)).map_err(ConfineError::Private)?;
    let mut copy = Copied { root, place, left_out: Vec::new() };
    let mut budget = Budget::new();
    let folders = [("reports", Some(&request.reports)), ("baseline", request.baseline.as_ref())];
    for (what, path) in folders {
        let Some(path) = path else { continue };
        let (rel, text) = inside(what, path)?;
        let unreadable = |source| ConfineError::Unreadable { what, path: text.clone(), source };
        let from = folder.open_sub(&rel).map_err(unreadable)?;
        copy.walk(&from, &rel, &mut budget).map_err(|e| match e.kind() {
            std::io::ErrorKind::InvalidData => ConfineError::TooMuch { what, path: text.clone() },
            _ => ConfineError::Private(e),
        })?;
    }
    for (what, path) in [("rules", request.rules.as_ref()), ("targets", request.targets.as_ref())] {
        let Some(path) = path else { continue };
        let (rel, text) = inside(what, path)?;
        let bytes = folder.read_bounded(&rel, INPUT_LIMIT).map_err(|source| ConfineError::Unreadable {
            what,
            path: text.clone(),
            source,
        })?;
        if !budget.take(1, bytes.len() as u64) {
            return Err(ConfineError::TooMuch { what, path: text });
        }
        copy.write(&rel, &bytes).map_err(ConfineError::Private)?;
    }
    Ok(copy)
}

/// The request's `path` when it is inside the record's folder, and as the
/// record gives it (for messages).
fn inside(what: &'static str, path: &Path) -> Result<(std::path::PathBuf, String), ConfineError> {
    let text = path.to_string_lossy().into_owned();
    match path.to_str().and_then(confined) {
        Some(rel) => Ok((rel, text)),
        None => Err(ConfineError::Outside { what, path: text }),
    }
}

impl Copied {
    /// Whether `path` is in the copy (else it is a file of the host that
    /// the evaluation read, a `--gpu-model` table).
    pub fn holds(&self, path: &Path) -> bool {
        path.starts_with(self.root.path())
    }

    /// `text` with the copy's folder named as the record's, `given`: an
    /// error of the evaluation names the files where the user has them.
    pub fn as_given(&self, text: &str, given: &Path) -> String {
        let root = self.place.given().display().to_string();
        text.replace(&format!("{root}/"), &format!("{}/", given.display())).replace(&root, &given.display().to_string())
    }

    /// Copies the reports of the folder `from` (at `rel` in the record's
    /// folder), at any depth; errs (`InvalidData`) past the budget (as
    /// [`Dir::list`] past its limit).
    fn walk(&mut self, from: &Dir, rel: &Path, budget: &mut Budget) -> std::io::Result<()> {
        let over = || std::io::Error::from(std::io::ErrorKind::InvalidData);
        let listed = from.list(budget.entries)?;
        if !budget.take(listed.len(), 0) {
            return Err(over());
        }
        self.make_folder(rel)?;
        for (name, entry) in listed {
            let text = name.to_string_lossy();
            if text.starts_with('.') {
                continue;
            }
            let at = rel.join(&name);
            let leave = |reason: &str| LeftOut { path: at.to_string_lossy().into_owned(), reason: reason.into() };
            match entry {
                Entry::Folder => match from.open_sub(Path::new(&name)) {
                    Ok(sub) => self.walk(&sub, &at, budget)?,
                    Err(e) => self.left_out.push(leave(&e.to_string())),
                },
                // A link to a folder of reports too: `mlb report` follows it.
                Entry::Link => self.left_out.push(leave("a symbolic link, not followed")),
                _ if !text.ends_with(".json") => {}
                Entry::File => match from.read_bounded(Path::new(&name), INPUT_LIMIT) {
                    Ok(bytes) if budget.take(0, bytes.len() as u64) => self.write(&at, &bytes)?,
                    Ok(_) => return Err(over()),
                    Err(e) => self.left_out.push(leave(&e.to_string())),
                },
                Entry::Other => self.left_out.push(leave("not a regular file (a FIFO, a socket or a device)")),
            }
        }
        Ok(())
    }

    /// Makes the folder `rel` of the copy.
    fn make_folder(&self, rel: &Path) -> std::io::Result<()> {
        std::fs::create_dir_all(self.place.given().join(rel))
    }

    /// Writes `bytes` to `rel` in the copy.
    fn write(&self, rel: &Path, bytes: &[u8]) -> std::io::Result<()> {
        let path = self.place.given().join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(path, bytes)
    }
}

/// The recorded inputs hashed again from `folder` (when the request cannot
/// be evaluated, so which files it reads is not known): an input outside
/// the folder, or that cannot be read as a regular file within the limits,
/// is left out, with why.
pub fn rehash(folder: &Dir, recorded: &[Hashed]) -> (Vec<Hashed>, Vec<LeftOut>) {
    let mut budget = Budget::new();
    let mut hashed = Vec::new();
    let mut left_out = Vec::new();
    for h in recorded {
        let leave = |reason: String| LeftOut { path: h.path.clone(), reason };
        let Some(rel) = confined(&h.path) else {
            left_out.push(leave("not a path inside the record's folder: not opened".into()));
            continue;
        };
        match folder.read_bounded(&rel, INPUT_LIMIT) {
            Ok(bytes) if budget.take(1, bytes.len() as u64) => {
                let (size, sha256) = (bytes.len() as u64, mlb_record::digest::sha256(&bytes));
                hashed.push(Hashed { sha256, size, ..h.clone() });
            }
            Ok(_) => left_out.push(leave(format!("past the limits of --verify ({MAX_BYTES} bytes in all)"))),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => left_out.push(leave(e.to_string())),
        }
    }
    (hashed, left_out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;
    use std::path::PathBuf;

    /// The path of `rel` in `copy`.
    fn in_copy(copy: &Copied, rel: &str) -> PathBuf {
        copy.place.given().join(rel)
    }

    #[test]
    fn only_regular_report_files_inside_are_copied() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("delivery/node1/.hidden")).unwrap();
        std::fs::write(root.join("delivery/node1/a.json"), "{}").unwrap();
        std::fs::write(root.join("delivery/node1/.hidden/b.json"), "{}").unwrap();
        std::fs::write(root.join("delivery/notes.txt"), "").unwrap();
        symlink("/etc/passwd", root.join("delivery/linked.json")).unwrap();
        symlink("/", root.join("delivery/root")).unwrap();
        nix::unistd::mkfifo(&root.join("delivery/fifo.json"), nix::sys::stat::Mode::S_IRWXU).unwrap();
        std::fs::write(root.join("rules.yaml"), "rules: []").unwrap();
        let request = Request { reports: "delivery".into(), rules: Some("./rules.yaml".into()), ..Request::default() };
        let copy = copy(&Dir::open(root).unwrap(), Path::new("acceptance.json"), &request).unwrap();
        assert!(in_copy(&copy, "delivery/node1/a.json").is_file() && in_copy(&copy, "rules.yaml").is_file());
        assert!(!in_copy(&copy, "delivery/node1/.hidden").exists() && !in_copy(&copy, "delivery/notes.txt").exists());
        let mut left: Vec<(&str, &str)> = copy.left_out.iter().map(|l| (l.path.as_str(), l.reason.as_str())).collect();
        left.sort();
        assert_eq!(
            left,
            [
                ("delivery/fifo.json", "not a regular file (a FIFO, a socket or a device)"),
                ("delivery/linked.json", "a symbolic link, not followed"),
                ("delivery/root", "a symbolic link, not followed"),
            ]
        );
        assert_eq!(copy.place.relative(&in_copy(&copy, "delivery/node1/a.json")), "delivery/node1/a.json");
    }

    #[test]
    fn a_path_outside_or_through_a_link_is_not_opened() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("delivery")).unwrap();
        symlink("/etc", dir.path().join("etc")).unwrap();
        let folder = Dir::open(dir.path()).unwrap();
        let name = Path::new("acceptance.json");
        for (rules, why) in [
            ("/etc/passwd", "is not a path inside the record's folder"),
            ("../passwd", "is not a path inside the record's folder"),
            ("etc/passwd", "a symbolic link, not followed"),
        ] {
            let request = Request { reports: "delivery".into(), rules: Some(rules.into()), ..Request::default() };
            let err = copy(&folder, name, &request).err().unwrap().to_string();
            assert!(err.contains(why), "{rules}: {err}");
        }
        let request = Request { reports: "/".into(), ..Request::default() };
        assert!(matches!(copy(&folder, name, &request), Err(ConfineError::Outside { what: "reports", .. })));
        let recorded = Hashed { role: crate::accept::Role::Rules, path: "../x".into(), sha256: String::new(), size: 0 };
        let (hashed, left) = rehash(&folder, &[recorded]);
        assert!(hashed.is_empty() && left[0].reason.starts_with("not a path inside"), "{left:?}");
    }
}
