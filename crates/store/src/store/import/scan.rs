//! Finding what to import under a folder: its report files at any depth
//! (mlb's and the original suite's, through the one report reader), each
//! read once and parsed once into its entries and what the store keeps
//! beyond them, hashed and its text deflated as it is read, judged as
//! `mlb report` judges the folder, and handed on a run folder (a folder
//! that holds report files) at a time, as soon as its files are read: what
//! is held at once is a run folder, not the whole tree.
//!
//! The folder is a vendor's: below the folder the user named, no link is
//! followed and no special file is read (the reader's
//! [`walk_folder_no_links`]). A report reached through a link (to a file or
//! a folder) is left out, with the reason, before it is read.

use super::kept;
use mlb_judge::report::{Check, Judge};
use mlb_record::contract::read::{walk_folder_no_links, Entry, Extra, FolderError, Unreadable};
use mlb_run::linux::dir::Dir;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// A folder to import, held open.
#[derive(Debug)]
pub struct Scan {
    /// The folder, absolute, links resolved.
    pub dir: PathBuf,
    /// The folder, held open: every file of its run folders is read below it.
    root: Arc<Dir>,
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

impl Scan {
    /// Opens `dir` to scan it.
    pub fn open(dir: &Path) -> Result<Scan, FolderError> {
        let failed = |source| FolderError { path: dir.to_path_buf(), source };
        // One name for a folder, whatever path reached it (`a/./b`, a link).
        let dir = std::fs::canonicalize(dir).map_err(failed)?;
        let root = Arc::new(Dir::open(&dir).map_err(failed)?);
        Ok(Scan { dir, root })
    }

    /// Reads every report under the folder and hands each run folder to
    /// `each`, its files judged together in the reader's order as `mlb
    /// report` judges them, once all of them are read (the reader hands a
    /// folder's files one after another); stops when `each` breaks.
    /// Returns the files and folders left out; errs only when the folder
    /// cannot be listed.
    pub fn each_folder(
        &self,
        mut each: impl FnMut(RunFolder) -> ControlFlow<()> + Send,
    ) -> Result<Vec<Unreadable>, FolderError> {
        let mut judge = Judge::default();
        let mut current: Option<RunFolder> = None;
        let keep = |text: &str| (mlb_record::digest::sha256(text.as_bytes()), kept::deflate(text));
        let unreadable = walk_folder_no_links(&self.dir, keep, |file| {
            let folder = file.path.parent().unwrap_or(&self.dir);
            if current.as_ref().is_some_and(|c| c.path != folder) {
                // A break stops the walk: `current` stays taken.
                each(current.take().expect("a folder"))?;
            }
            let run = current.get_or_insert_with(|| self.run_folder(folder));
            let (hash, body) = file.kept;
            let (light, extras): (Vec<Entry>, Vec<Extra>) = file.entries.into_iter().unzip();
            let entries = light
                .into_iter()
                .map(|entry| {
                    let check = judge.next(&entry);
                    (entry, check)
                })
                .collect();
            run.files.push(ReportFile { path: file.path, hash, body, entries, extras });
            ControlFlow::Continue(())
        })?;
        if let Some(last) = current {
            let _ = each(last);
        }
        Ok(unreadable)
    }

    /// The run folder `folder` (below the folder scanned), its files yet to add.
    fn run_folder(&self, folder: &Path) -> RunFolder {
        let rel = folder.strip_prefix(&self.dir).unwrap_or(Path::new("")).to_path_buf();
        RunFolder { path: folder.to_path_buf(), root: self.root.clone(), rel, files: Vec::new() }
    }
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
        let mut found = Vec::new();
        let unreadable = Scan::open(&dir.path().join("a"))
            .unwrap()
            .each_folder(|folder| {
                found.push(folder);
                ControlFlow::Continue(())
            })
            .unwrap();
        let folders: Vec<(&Path, usize)> = found.iter().map(|f| (f.path.as_path(), f.files.len())).collect();
        assert_eq!(folders.len(), 2);
        assert!(folders.contains(&(&dir.path().join("a"), 2)) && folders.contains(&(&dir.path().join("a/b"), 1)));
        let three = found.iter().find(|f| f.path.ends_with("b")).unwrap();
        let checks: Vec<Option<Check>> = three.files[0].entries.iter().map(|e| e.1).collect();
        assert_eq!(checks, [Some(Check::NanLoss), Some(Check::NoThroughput)]);
        let bytes = std::fs::read(dir.path().join("a/b/three.json")).unwrap();
        assert_eq!(three.files[0].hash, mlb_record::digest::sha256(&bytes));
        assert_eq!(three.files[0].hash.len(), 64);
        let text = std::fs::read_to_string(dir.path().join("a/b/three.json")).unwrap();
        assert_eq!(kept::inflate(&three.files[0].body).as_deref(), Some(text.as_str()));
        assert_eq!(three.files[0].extras.len(), 2);
        assert_eq!(unreadable.len(), 1);
    }

    #[test]
    fn a_folder_is_handed_on_whole_once_and_a_break_stops_the_scan() {
        let dir = tempfile::tempdir().unwrap();
        for folder in 0..40 {
            for file in 0..3 {
                let path = dir.path().join(format!("run{folder}/r{file}.json"));
                std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                std::fs::write(path, r#"{"name": "vae", "vcd": "0", "train_item": {"avg": 1.0}}"#).unwrap();
            }
        }
        let scan = Scan::open(dir.path()).unwrap();
        let mut seen = Vec::new();
        scan.each_folder(|folder| {
            seen.push((folder.path.clone(), folder.files.len()));
            ControlFlow::Continue(())
        })
        .unwrap();
        let mut folders: Vec<&PathBuf> = seen.iter().map(|(p, _)| p).collect();
        folders.sort();
        folders.dedup();
        assert_eq!((seen.len(), folders.len()), (40, 40), "each folder once");
        assert!(seen.iter().all(|(_, files)| *files == 3), "{seen:?}");
        let mut handed = 0;
        scan.each_folder(|_| {
            handed += 1;
            if handed == 2 {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        })
        .unwrap();
        assert_eq!(handed, 2);
    }
}
