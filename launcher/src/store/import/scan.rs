//! Finding what to import under a folder: its report files at any depth
//! (mlb's and the original suite's, through the one report reader), each
//! read once and parsed once into its entries and what the store keeps
//! beyond them, hashed and its text deflated as it is read, judged as
//! `mlb report` judges the folder, and grouped into run folders (each
//! folder that holds report files).
//!
//! The folder is a vendor's: below the folder the user named, no link is
//! followed and no special file is read (the reader's
//! [`read_folder_no_links`]). A report reached through a link (to a file or
//! a folder) is left out, with the reason, before it is read.

use super::kept;
use crate::linux::dir::Dir;
use crate::report::{judge, Check};
use mlb_record::contract::read::{read_folder_no_links, Entry, Extra, FolderError, Unreadable};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// What a folder holds to import.
#[derive(Debug, Default)]
pub struct Scan {
    /// The folder scanned, absolute, links resolved.
    pub dir: PathBuf,
    /// Its run folders, in the order the reader met them.
    pub folders: Vec<RunFolder>,
    /// Files and folders left out, and why.
    pub unreadable: Vec<Unreadable>,
}

/// A folder of report files: one run.
#[derive(Debug)]
pub struct RunFolder {
    /// The folder, absolute, links resolved: one folder has one name.
    pub path: PathBuf,
    /// The folder the user named, held open (every other file of the run is
    /// read below it, no link followed).
    pub root: Arc<Dir>,
    /// The folder, relative to `root`.
    pub rel: PathBuf,
    /// Its report files.
    pub files: Vec<ReportFile>,
}

impl RunFolder {
    /// The folder, held open, to read its files; `None` when it cannot be
    /// opened any more (or was replaced by a link since the scan).
    pub fn open(&self) -> Option<Dir> {
        self.root.open_sub(&self.rel).ok()
    }
}

/// A report file and its entries.
#[derive(Debug)]
pub struct ReportFile {
    /// The file, absolute.
    pub path: Arc<Path>,
    /// sha256 (hex) of its bytes.
    pub hash: String,
    /// Its text as read, deflated ([`kept::deflate`]).
    pub body: Vec<u8>,
    /// Its entries in file order, each with the first check it fails.
    pub entries: Vec<(Entry, Option<Check>)>,
    /// What each entry adds to its light view, in the same order.
    pub extras: Vec<Extra>,
}

/// Reads every report under `dir` and groups them; errs only when `dir`
/// cannot be listed.
pub fn scan(dir: &Path) -> Result<Scan, FolderError> {
    let failed = |source| FolderError { path: dir.to_path_buf(), source };
    // One name for a folder, whatever path reached it (`a/./b`, a link).
    let dir = std::fs::canonicalize(dir).map_err(failed)?;
    let root = Arc::new(Dir::open(&dir).map_err(failed)?);
    let reading =
        read_folder_no_links(&dir, |text| (crate::prepare::manifest::digest(text.as_bytes()).1, kept::deflate(text)))?;
    // Judged together, in the reader's order, as `mlb report` judges them.
    let mut entries = Vec::new();
    let mut files = Vec::with_capacity(reading.files.len());
    for file in reading.files {
        let (light, extras): (Vec<Entry>, Vec<Extra>) = file.entries.into_iter().unzip();
        files.push((file.path, file.kept, extras));
        entries.extend(light);
    }
    let checks = judge(&entries);
    let mut judged = entries.into_iter().zip(checks);
    let mut folders: Vec<RunFolder> = Vec::new();
    let mut index: HashMap<PathBuf, usize> = HashMap::new();
    for (path, (hash, body), extras) in files {
        let folder = path.parent().unwrap_or(&dir).to_path_buf();
        let at = *index.entry(folder.clone()).or_insert_with(|| {
            let rel = folder.strip_prefix(&dir).unwrap_or(Path::new("")).to_path_buf();
            folders.push(RunFolder { path: folder, root: root.clone(), rel, files: Vec::new() });
            folders.len() - 1
        });
        let entries = judged.by_ref().take(extras.len()).collect();
        folders[at].files.push(ReportFile { path, hash, body, entries, extras });
    }
    Ok(Scan { dir, folders, unreadable: reading.unreadable })
}

/// sha256 (hex) of the file at `path` (the user's own: the jobs file),
/// hashed as `mlb prepare` hashes its files.
pub fn hash_file(path: &Path) -> std::io::Result<String> {
    crate::prepare::manifest::hash(std::fs::File::open(path)?).map(|(_, sha256)| sha256)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_are_grouped_by_folder_hashed_and_judged() {
        let dir = tempfile::tempdir().unwrap();
        let put = |p: &str, text: &str| {
            let p = dir.path().join(p);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        };
        put("a/one.json", r#"{"name": "vae", "vcd": "0", "train_item": {"avg": 1.0}}"#);
        put("a/two.json", r#"{"name": "vae", "vcd": "1", "completed": false}"#);
        put("a/b/three.json", "[\n{\"name\": \"wlm\", \"batch_loss\": [NaN]},\n{\"name\": \"wlm\"},\n");
        put("a/bad.json", "{");
        let scan = scan(&dir.path().join("a")).unwrap();
        let folders: Vec<(&Path, usize)> = scan.folders.iter().map(|f| (f.path.as_path(), f.files.len())).collect();
        assert_eq!(folders.len(), 2);
        assert!(folders.contains(&(&dir.path().join("a"), 2)) && folders.contains(&(&dir.path().join("a/b"), 1)));
        let three = scan.folders.iter().find(|f| f.path.ends_with("b")).unwrap();
        let checks: Vec<Option<Check>> = three.files[0].entries.iter().map(|e| e.1).collect();
        assert_eq!(checks, [Some(Check::NanLoss), Some(Check::NoThroughput)]);
        assert_eq!(three.files[0].hash, hash_file(&dir.path().join("a/b/three.json")).unwrap());
        assert_eq!(three.files[0].hash.len(), 64);
        let text = std::fs::read_to_string(dir.path().join("a/b/three.json")).unwrap();
        assert_eq!(kept::inflate(&three.files[0].body).as_deref(), Some(text.as_str()));
        assert_eq!(three.files[0].extras.len(), 2);
        assert_eq!(scan.unreadable.len(), 1);
    }
}
