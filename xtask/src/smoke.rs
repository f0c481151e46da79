//! The smoke suite, mlb's main job end to end: builds everything, prepares
//! the small data sets a suite reads (`mlb prepare --scale small`; a second
//! run checks and skips them), lists the plugins, runs the suite through
//! `mlb --jobs` (one instance per slot in its cgroup; `--no-cgroups` when not
//! root) and prints the report summary.

use crate::build::{self, Set};
use crate::cmd::{self, Error};
use crate::data_check;
use std::path::{Path, PathBuf};

/// Where the suite reads and writes.
#[derive(clap::Args)]
pub struct Options {
    /// The suite (a jobs file).
    #[arg(long, default_value = "configs/smoke.json")]
    pub jobs: PathBuf,
    /// Base folder of the data sets (BASE/data); default: a temporary folder, removed at the end.
    #[arg(long)]
    pub base: Option<PathBuf>,
    /// Output folder of the reports; default: BASE/output.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Also check that every job that names a data folder read it from BASE/data.
    #[arg(long)]
    pub check_data: bool,
    /// Options passed on to `mlb --jobs`.
    #[arg(last = true)]
    pub mlb: Vec<String>,
}

impl Options {
    /// The smoke tier of the tests: configs/smoke.json on data prepared in a
    /// temporary folder, checked to have been read.
    pub fn checking_data() -> Options {
        Options { jobs: "configs/smoke.json".into(), base: None, out: None, check_data: true, mlb: Vec::new() }
    }
}

/// Runs the suite of `options`.
pub fn run(root: &Path, options: &Options) -> Result<(), Error> {
    let built = build::build(root, Set::Everything)?;
    // A temporary base lives (and is removed) with `_temporary`.
    let (base, _temporary) = match &options.base {
        Some(base) => {
            (std::path::absolute(root.join(base)).map_err(|source| Error::Io { path: base.clone(), source })?, None)
        }
        None => {
            let dir = tempfile::tempdir().map_err(|source| Error::Io { path: std::env::temp_dir(), source })?;
            (dir.path().to_path_buf(), Some(dir))
        }
    };
    let out = options.out.as_ref().map_or_else(|| base.join("output"), |out| root.join(out));
    let mlb = || {
        let mut c = built.env.command(built.mlb());
        c.current_dir(root);
        c
    };

    cmd::run(mlb().args(["prepare", "--scale", "small", "--jobs"]).arg(&options.jobs).arg("--base").arg(&base))?;
    cmd::run(mlb().args(["plugins", "list"]))?;
    let mut suite = mlb();
    suite.arg("--jobs").arg(&options.jobs).arg("--outdir").arg(&out).arg("--base").arg(&base);
    if !is_root() {
        suite.arg("--no-cgroups"); // creating cgroups needs root
    }
    cmd::run(suite.args(&options.mlb))?;
    if options.check_data {
        let read = data_check::check(&out, &base.join("data"))?;
        eprintln!("xtask: {read} reports read the prepared data sets under {}", base.join("data").display());
    }
    let name = options.jobs.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    cmd::run(mlb().args(["report", "--reports"]).arg(&out).args(["--suite", &name]))
}

/// Whether this process runs as root (it owns `/proc/self`).
fn is_root() -> bool {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata("/proc/self").is_ok_and(|m| m.uid() == 0)
}
