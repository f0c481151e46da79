//! Links planted in the partial folder of `mlb prepare`: it once followed
//! them, and so wrote (as root) outside `$BASE` through a link to a file or
//! to a folder. It now never follows a link it did not make: inside a
//! partial folder (its own), a planted link, the folder itself included, is
//! removed and what belongs there is written in its place; in a prepared
//! set, a link is a damaged file. Nothing outside the base changes.

use crate::common::prepare::{run as prepare, walk};
use crate::common::text;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

/// A folder outside the base with a file that must not change.
struct Outside {
    dir: tempfile::TempDir,
}

impl Outside {
    fn new() -> Outside {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("victim"), "precious").unwrap();
        Outside { dir }
    }

    fn victim(&self) -> PathBuf {
        self.dir.path().join("victim")
    }

    /// Nothing was written there.
    fn untouched(&self) {
        assert_eq!(std::fs::read_to_string(self.victim()).unwrap(), "precious");
        let names: Vec<_> = std::fs::read_dir(self.dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names, ["victim"], "nothing else written outside the base");
    }
}

/// A partial folder of `set` at scale small, seed 0, as an interrupted run
/// leaves it (its settings file naming those settings).
fn partial(base: &Path, set: &str) -> PathBuf {
    let dir = base.join("data").join(format!(".{set}.partial"));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join(".settings"), format!("{set} small 0")).unwrap();
    dir
}

/// `mlb prepare --name JOB` passes, and its set holds no link.
fn prepares_without_links(base: &Path, job: &str, set: &str) {
    let out = prepare(base, &["--name", job]);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    let folder = base.join("data").join(set);
    assert!(!folder.is_symlink(), "the set's folder is a folder");
    for file in walk(&folder) {
        assert!(!file.is_symlink() && file.is_file(), "{} is a regular file", file.display());
    }
    // The set is intact as prepared: a second run checks it and skips it.
    let again = prepare(base, &["--name", job]);
    assert!(again.status.success() && text(&again).0.contains(" present "), "{:?}", text(&again));
}

#[test]
fn links_to_a_file_outside_in_place_of_files_of_the_partial_folder_are_not_followed() {
    let base = tempfile::tempdir().unwrap();
    let outside = Outside::new();
    let dir = partial(base.path(), "ml-20m");
    // The temporary name the file is written under, and the file itself.
    symlink(outside.victim(), dir.join(".ratings.csv.tmp")).unwrap();
    symlink(outside.victim(), dir.join("ratings.csv")).unwrap();
    prepares_without_links(base.path(), "recom", "ml-20m");
    outside.untouched();
}

#[test]
fn a_link_to_a_file_outside_in_place_of_the_settings_file_is_not_followed() {
    let base = tempfile::tempdir().unwrap();
    let outside = Outside::new();
    let dir = base.path().join("data/.wikitext-2.partial");
    std::fs::create_dir_all(&dir).unwrap();
    symlink(outside.victim(), dir.join(".settings")).unwrap();
    prepares_without_links(base.path(), "wlm", "wikitext-2");
    outside.untouched();
}

#[test]
fn a_link_to_a_folder_outside_in_place_of_a_folder_of_the_set_is_not_followed() {
    let base = tempfile::tempdir().unwrap();
    let outside = Outside::new();
    let dir = partial(base.path(), "BSDS500");
    symlink(outside.dir.path(), dir.join("images")).unwrap();
    prepares_without_links(base.path(), "reso", "BSDS500");
    outside.untouched();
}

#[test]
fn a_link_to_a_folder_outside_in_place_of_the_partial_folder_is_not_followed() {
    let base = tempfile::tempdir().unwrap();
    let outside = Outside::new();
    // The folder it points to even names the settings of the run.
    std::fs::write(outside.dir.path().join(".settings"), "MNIST small 0").unwrap();
    std::fs::create_dir_all(base.path().join("data")).unwrap();
    symlink(outside.dir.path(), base.path().join("data/.MNIST.partial")).unwrap();
    prepares_without_links(base.path(), "vae", "MNIST");
    std::fs::remove_file(outside.dir.path().join(".settings")).unwrap();
    outside.untouched();
}

#[test]
fn a_link_in_a_prepared_set_is_a_damaged_file() {
    let base = tempfile::tempdir().unwrap();
    let outside = Outside::new();
    assert!(prepare(base.path(), &["--name", "recom"]).status.success());
    let ratings = base.path().join("data/ml-20m/ratings.csv");
    std::fs::copy(&ratings, outside.victim()).unwrap();
    std::fs::remove_file(&ratings).unwrap();
    // The same bytes, behind a link: still not what was prepared.
    symlink(outside.victim(), &ratings).unwrap();
    let out = prepare(base.path(), &["--name", "recom"]);
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(2), "{stdout}\n{stderr}");
    assert!(stderr.contains("1 file(s) missing or changed") && stderr.contains("ratings.csv: "), "{stderr}");
    assert!(stderr.contains("a symbolic link, not followed"), "{stderr}");
}
