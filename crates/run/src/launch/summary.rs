//! Result lines (docs/launcher.md, "Result lines"): printed and appended to `summary.txt`, flushed
//! as each job config finishes, then a total.

use crate::console::Console;
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The summary file's name in the output folder.
pub const FILE_NAME: &str = "summary.txt";

/// `[ 1/17][  /  ] PASSED |     0.27 MIN | toy_reg`: job position / jobs in
/// the file, failed / started instances (blank when none failed), minutes.
pub fn line(position: usize, jobs: usize, failed: usize, instances: usize, seconds: f64, label: &str) -> String {
    let (k, n, word) = if failed == 0 {
        ("  ".to_string(), "  ".to_string(), "PASSED")
    } else {
        (format!("{failed:>2}"), format!("{instances:>2}"), "FAILED")
    };
    format!("[{position:>2}/{jobs:>2}][{k}/{n}] {word} | {:>8.2} MIN | {label}", seconds / 60.0)
}

/// `Total Time  2817.82 s`.
pub fn total(seconds: f64) -> String {
    format!("Total Time {seconds:>8.2} s")
}

/// Where result lines go: stdout and `summary.txt`.
#[derive(Debug)]
pub struct Summary {
    file: File,
    path: PathBuf,
}

impl Summary {
    /// Opens (appends to) `outdir/summary.txt`, creating the folder.
    pub fn open(outdir: &Path) -> std::io::Result<Summary> {
        std::fs::create_dir_all(outdir)?;
        let path = outdir.join(FILE_NAME);
        let file = std::fs::OpenOptions::new().create(true).append(true).open(&path)?;
        Ok(Summary { file, path })
    }

    /// Prints `text` (not if stdout is closed) and appends it to the file,
    /// flushed; the error says why it could not be appended.
    pub fn emit(&mut self, text: &str) -> std::io::Result<()> {
        Console::Out.line(text);
        writeln!(self.file, "{text}").and_then(|_| self.file.sync_data())
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_match_the_original() {
        assert_eq!(line(1, 17, 0, 4, 16.2, "toy_reg"), "[ 1/17][  /  ] PASSED |     0.27 MIN | toy_reg");
        assert_eq!(line(2, 17, 1, 4, 55.8, "toy_lstm"), "[ 2/17][ 1/ 4] FAILED |     0.93 MIN | toy_lstm");
        assert_eq!(total(2817.819), "Total Time  2817.82 s");
    }

    #[test]
    fn appended_and_kept() {
        let dir = tempfile::tempdir().unwrap();
        Summary::open(dir.path()).unwrap().emit("a").unwrap();
        Summary::open(dir.path()).unwrap().emit("b").unwrap();
        assert_eq!(std::fs::read_to_string(dir.path().join(FILE_NAME)).unwrap(), "a\nb\n");
    }
}
