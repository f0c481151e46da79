//! Finding what to import under a folder: its report files at any depth
//! (mlb's and the original suite's, through the one report reader), judged
//! as `mlb report` judges the folder, hashed, and grouped into run folders
//! (each folder that holds report files).

use crate::contract::read::{read_folder, Entry, FolderError, Unreadable};
use crate::report::{judge, Check};
use rayon::prelude::*;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// What a folder holds to import.
#[derive(Debug, Default)]
pub struct Scan {
    /// Its run folders, in the order the reader met them.
    pub folders: Vec<RunFolder>,
    /// Files and folders left out, and why.
    pub unreadable: Vec<Unreadable>,
}

/// A folder of report files: one run.
#[derive(Debug)]
pub struct RunFolder {
    /// The folder, absolute.
    pub path: PathBuf,
    /// Its report files.
    pub files: Vec<ReportFile>,
}

/// A report file and its entries.
#[derive(Debug)]
pub struct ReportFile {
    /// The file, absolute.
    pub path: Arc<Path>,
    /// sha256 (hex) of its bytes; empty when it could not be read again.
    pub hash: String,
    /// Its entries in file order, each with the first check it fails.
    pub entries: Vec<(Entry, Option<Check>)>,
}

/// Reads every report under `dir` and groups them; errs only when `dir`
/// cannot be listed.
pub fn scan(dir: &Path) -> Result<Scan, FolderError> {
    let dir = std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
    let reading = read_folder(&dir)?;
    let checks = judge(&reading.entries);
    let mut files: Vec<ReportFile> = Vec::new();
    for (entry, check) in reading.entries.into_iter().zip(checks) {
        match files.last_mut() {
            Some(last) if Arc::ptr_eq(&last.path, &entry.file) => last.entries.push((entry, check)),
            _ => {
                files.push(ReportFile { path: entry.file.clone(), hash: String::new(), entries: vec![(entry, check)] })
            }
        }
    }
    let mut unreadable = reading.unreadable;
    let hashes: Vec<std::io::Result<String>> = files.par_iter().map(|f| hash_file(&f.path)).collect();
    let mut folders: Vec<RunFolder> = Vec::new();
    let mut index: HashMap<PathBuf, usize> = HashMap::new();
    for (mut file, hash) in files.into_iter().zip(hashes) {
        match hash {
            Ok(hash) => file.hash = hash,
            Err(e) => {
                unreadable.push(Unreadable { path: file.path.to_path_buf(), reason: e.to_string() });
                continue;
            }
        }
        let folder = file.path.parent().unwrap_or(&dir).to_path_buf();
        let at = *index.entry(folder.clone()).or_insert_with(|| {
            folders.push(RunFolder { path: folder, files: Vec::new() });
            folders.len() - 1
        });
        folders[at].files.push(file);
    }
    Ok(Scan { folders, unreadable })
}

/// sha256 (hex) of the file at `path`, hashed as `mlb prepare` hashes its files.
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
        assert_eq!(scan.unreadable.len(), 1);
    }
}
