//! `mlb prepare` given what it must refuse or cannot finish: an unknown
//! job, a data folder holding something else, a set prepared with other
//! settings or changed since, a disk that fills up. Each ends with one
//! error naming the folder and the fix, and the documented exit status;
//! nothing of the user's is overwritten and no partial set is left.

use super::full_disk::Tmpfs;
use crate::common::launcher::root_or_skip;
use crate::common::prepare::run as prepare;
use crate::common::text;
use std::process::Output;

/// Exit status and stderr of `out`, asserting stdout is empty.
fn refused(out: &Output) -> (Option<i32>, String) {
    let (stdout, stderr) = text(out);
    assert!(stdout.is_empty(), "{stdout}");
    (out.status.code(), stderr)
}

#[test]
fn an_unknown_job_is_refused_naming_the_jobs_file_and_the_jobs() {
    let base = tempfile::tempdir().unwrap();
    let (code, stderr) = refused(&prepare(base.path(), &["--name", "vae,nope"]));
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("nope") && stderr.contains("baselines.json") && stderr.contains("loader"), "{stderr}");
    assert!(!base.path().join("data").exists(), "nothing written");
}

#[test]
fn a_folder_holding_something_else_is_refused_and_left_as_it_is() {
    let base = tempfile::tempdir().unwrap();
    let text = base.path().join("data/wikitext-2");
    std::fs::create_dir_all(&text).unwrap();
    std::fs::write(text.join("train.txt"), "my own corpus").unwrap();
    // MNIST comes first in the run's order but is not written: every set is checked first.
    let (code, stderr) = refused(&prepare(base.path(), &["--name", "vae,wlm"]));
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains(&text.display().to_string()) && stderr.contains("did not write"), "{stderr}");
    assert!(stderr.contains("fix: move it away"), "{stderr}");
    assert_eq!(std::fs::read_to_string(text.join("train.txt")).unwrap(), "my own corpus");
    assert!(!base.path().join("data/MNIST").exists());
    // A file where the folder should be is refused the same way.
    std::fs::write(base.path().join("data/ml-20m"), "not a folder").unwrap();
    let (code, stderr) = refused(&prepare(base.path(), &["--name", "recom"]));
    assert_eq!(code, Some(2), "{stderr}");
    assert_eq!(std::fs::read_to_string(base.path().join("data/ml-20m")).unwrap(), "not a folder");
}

#[test]
fn a_set_of_other_settings_or_changed_since_is_refused() {
    let base = tempfile::tempdir().unwrap();
    assert!(prepare(base.path(), &["--name", "vae"]).status.success());
    let (code, stderr) = refused(&prepare(base.path(), &["--name", "vae", "--seed", "3"]));
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("seed 0, not small with seed 3") && stderr.contains("--scale small --seed 0"), "{stderr}");

    let labels = base.path().join("data/MNIST/t10k-labels-idx1-ubyte");
    let mut bytes = std::fs::read(&labels).unwrap();
    bytes[20] ^= 1;
    std::fs::write(&labels, &bytes).unwrap();
    let (code, stderr) = refused(&prepare(base.path(), &["--name", "vae"]));
    assert_eq!(code, Some(2), "{stderr}");
    assert!(stderr.contains("1 file(s) missing or changed") && stderr.contains("t10k-labels-idx1-ubyte"), "{stderr}");
    assert_eq!(std::fs::read(&labels).unwrap(), bytes, "left as it is");
}

#[test]
fn a_full_disk_stops_the_set_with_a_clear_error_and_removes_what_was_written() {
    if !root_or_skip("a_full_disk_stops_the_set_with_a_clear_error_and_removes_what_was_written") {
        return;
    }
    let base = tempfile::tempdir().unwrap();
    let data = base.path().join("data");
    let _fs = Tmpfs::mount(&data, "1m");
    // MNIST fits (about 0.9 MB); wmt16 (1.2 MB) does not.
    let (code, stderr) = refused(&prepare(base.path(), &["--name", "vae,translator"]));
    assert_eq!(code, Some(1), "{stderr}");
    assert!(stderr.contains("no space left to write the wmt16 data set"), "{stderr}");
    assert!(stderr.contains("the partial set was removed") && stderr.contains("fix: free space"), "{stderr}");
    let mut left: Vec<String> =
        std::fs::read_dir(&data).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    left.sort();
    assert_eq!(left, [".mlb-prepare.lock", "MNIST"], "the complete set stays, nothing of the partial one");
}
