//! `mlb --jobs FILE --db [URL]`: the run imported into the store when it
//! ends. The launcher reports a failure to import as a warning: the run's
//! verdict (its exit status) is the benchmark's, whatever became of it.

use super::import::{import, Labels};
use super::{Location, Store, StoreError};
use mlb_record::digest::sha256_of;
use std::path::Path;

/// Imports the output folder `outdir` of a run of the jobs file `jobs`
/// into the store `--db` names (`""`: the flag without a URL, the default
/// store); returns what was imported, for a person.
pub fn import_run(db: &str, outdir: &Path, jobs: Option<&Path>) -> Result<String, StoreError> {
    let store = Store::open(&Location::from_env(Some(db))?)?;
    let jobs_hash = jobs.and_then(|f| std::fs::File::open(f).and_then(sha256_of).ok()).map(|(_, sha256)| sha256);
    let labels = Labels { jobs_hash, ..Labels::default() };
    Ok(import(&store, &[outdir.to_path_buf()], &labels, &|_| ())?.render(&store))
}
