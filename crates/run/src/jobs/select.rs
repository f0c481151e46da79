//! Which jobs of a file run: `--name` (all when empty) less `--exclude`.

use super::error::JobsError;
use super::parse::JobsFile;
use std::collections::HashSet;

/// Names of the jobs of `file` to run: `names` (all when empty) less
/// `exclude`. Refused when either names a job the file does not hold, or
/// when nothing is left.
pub fn select<'f>(file: &'f JobsFile, names: &[String], exclude: &[String]) -> Result<HashSet<&'f str>, JobsError> {
    let all: HashSet<&str> = file.jobs.iter().map(|j| j.name.as_str()).collect();
    if let Some(unknown) = names.iter().chain(exclude).find(|n| !all.contains(n.as_str())) {
        return Err(JobsError::UnknownJob {
            path: file.path.clone(),
            name: unknown.clone(),
            available: file.jobs.iter().map(|j| j.name.as_str()).collect::<Vec<_>>().join(", "),
        });
    }
    let names: HashSet<&str> = names.iter().map(String::as_str).collect();
    let exclude: HashSet<&str> = exclude.iter().map(String::as_str).collect();
    let picked: HashSet<&str> =
        all.into_iter().filter(|n| (names.is_empty() || names.contains(n)) && !exclude.contains(n)).collect();
    if picked.is_empty() {
        return Err(JobsError::NothingSelected { path: file.path.clone() });
    }
    Ok(picked)
}
