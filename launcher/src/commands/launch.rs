//! `mlb --jobs FILE ...`: the run ([`crate::launch`]), then with `--db` its
//! reports imported into the results store ([`crate::store::after_run`]).
//! Composed here, so that the launcher imports no store.

use crate::launch::{LaunchArgs, LaunchError};
use std::path::{Path, PathBuf};

/// Runs `args`' jobs, and stores the run when `--db` asks; returns the
/// exit status (the run's own: a store that fails is a warning).
pub fn run(args: &LaunchArgs, plugin_dirs: &[PathBuf]) -> Result<i32, LaunchError> {
    let store = |outdir: &Path| Some(stored(args.db.as_deref()?, outdir, args.jobs.as_deref()));
    crate::launch::run(args, plugin_dirs, &store)
}

/// Imports the run's reports in `outdir` into the store `db` names: what
/// was imported, or a warning that says why not.
fn stored(db: &str, outdir: &Path, jobs: Option<&Path>) -> String {
    match crate::store::after_run::import_run(db, outdir, jobs) {
        Ok(said) => said.trim_end().to_string(),
        Err(e) => format!("mlb: warning: the run was not stored: {}", mlb_record::fix::one_line(&e)),
    }
}
