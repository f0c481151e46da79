//! A scene for one hostile case: a private folder with a jobs file, an output
//! folder and the spin plugin, and the real `mlb --jobs` run on them.

use crate::common::launcher::private_lock;
use crate::common::{self, reports, spin_dir, text, write};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A folder for one case.
pub struct Scene {
    dir: tempfile::TempDir,
    spin: tempfile::TempDir,
    /// The jobs file's base name, hence the suite's: unique per case.
    pub suite: String,
}

/// What one `mlb` run printed and how it ended.
pub struct Ran {
    /// Its exit status (`None`: killed by a signal).
    pub code: Option<i32>,
    /// Stdout.
    pub stdout: String,
    /// Stderr.
    pub stderr: String,
}

impl Ran {
    fn of(out: Output) -> Ran {
        let (stdout, stderr) = text(&out);
        Ran { code: out.status.code(), stdout, stderr }
    }

    /// Asserts a usage or validation refusal (exit status 2) whose message
    /// holds every one of `parts`, and that nothing was printed on stdout.
    pub fn refused(&self, parts: &[&str]) {
        assert_eq!(self.code, Some(2), "refused\nstdout: {}\nstderr: {}", self.stdout, self.stderr);
        for part in parts {
            assert!(self.stderr.contains(part), "`{part}` missing from:\n{}", self.stderr);
        }
        assert!(self.stdout.is_empty(), "nothing ran, nothing printed: {}", self.stdout);
    }
}

impl Scene {
    /// A scene whose suite is `name` plus this process's id.
    pub fn new(name: &str) -> Scene {
        Scene { dir: tempfile::tempdir().unwrap(), spin: spin_dir(), suite: format!("{name}{}", std::process::id()) }
    }

    /// The output folder.
    pub fn out(&self) -> PathBuf {
        self.dir.path().join("out")
    }

    /// The plugin folder of the scene (spin, and what a case adds).
    pub fn plugins(&self) -> &Path {
        self.spin.path()
    }

    /// The folder of the scene.
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    /// Writes the jobs file (`<suite>.json`).
    pub fn jobs(&self, text: &str) -> PathBuf {
        write(self.dir.path(), &format!("{}.json", self.suite), text)
    }

    /// `mlb --plugin-dir SPIN --jobs JOBS --outdir OUT --devices 1 EXTRA...`,
    /// with a host lock of the scene's own (scenes run side by side).
    pub fn command(&self, jobs: &Path, extra: &[&str]) -> Command {
        let mut c = Command::new(common::mlb());
        c.arg("--plugin-dir").arg(self.spin.path()).arg("--jobs").arg(jobs).arg("--outdir").arg(self.out());
        c.args(["--devices", "1"]).args(extra);
        private_lock(&mut c, &self.dir.path().join("mlb.lock"));
        c
    }

    /// Runs [`Scene::command`] to its end.
    pub fn run(&self, jobs: &Path, extra: &[&str]) -> Ran {
        Ran::of(self.command(jobs, extra).output().expect("mlb runs"))
    }

    /// The reports and records in the output folder, by file name.
    pub fn reports(&self) -> Vec<(String, Value)> {
        reports(&self.out())
    }

    /// The files of the logs folder, by name, with their text.
    pub fn logs(&self) -> Vec<(String, String)> {
        let mut out: Vec<(String, String)> = std::fs::read_dir(self.out().join("logs"))
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| (e.file_name().to_string_lossy().into_owned(), std::fs::read_to_string(e.path()).unwrap()))
            .collect();
        out.sort();
        out
    }

    /// Asserts that nothing started: no output folder at all (no summary,
    /// no log, no report).
    pub fn nothing_started(&self) {
        let left: Vec<_> = std::fs::read_dir(self.out()).into_iter().flatten().flatten().map(|e| e.path()).collect();
        assert!(left.is_empty(), "nothing may start, but the output folder holds {left:?}");
    }
}
