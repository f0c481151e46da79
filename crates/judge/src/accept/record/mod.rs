//! The acceptance record: `mlb accept --record FILE` writes every input
//! (with its SHA-256 and size), the request, the mlb version and every
//! verdict to `FILE` ([`file`]), `--sign KEY` signs it in the SSHSIG format
//! of `ssh-keygen -Y sign` ([`sign`]), and `mlb accept --verify FILE`
//! computes it all again from the files and says what changed
//! ([`verify`]). docs/accept.md describes the schema and the checks.

mod confined;
mod error;
mod file;
mod inputs;
mod paths;
mod sign;
mod signers;
mod verify;

pub use error::RecordError;
pub use file::Record;
pub use paths::confined;
pub use sign::{check, SignatureCheck, SigningKey, NAMESPACE};
pub use signers::{AllowedSigners, SignersError};
use verify::verify;

use crate::accept::{Evaluation, Request};
use paths::Place;
use std::path::{Path, PathBuf};

/// Checks, before anything is evaluated, that a record can be written at
/// `record` for `request` (not inside a folder of reports the evaluation
/// reads, where it would be read as one, nor over its rules file or target
/// table, and in a folder that holds every path of the request, the only
/// place `--verify` reads), and reads the signing key at `sign`, so that a
/// refusal leaves nothing written.
pub fn ready(record: Option<&Path>, sign: Option<&Path>, request: &Request) -> Result<Option<SigningKey>, RecordError> {
    if let Some(path) = record {
        let mut folders = std::iter::once(&request.reports).chain(&request.baseline);
        if let Some(folder) = folders.find(|f| paths::inside(path, f)) {
            return Err(RecordError::InsideReports { record: path.into(), folder: folder.clone() });
        }
        let mut files = files_of(request);
        if let Some(input) = files.find(|f| paths::same(path, f)) {
            return Err(RecordError::OverInput { record: path.into(), input: input.clone() });
        }
        let folder = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
        let mut named = std::iter::once(&request.reports).chain(&request.baseline).chain(files_of(request));
        if let Some(input) = named.find(|input| !paths::below(input, folder)) {
            return Err(RecordError::Outside { record: path.into(), input: input.clone() });
        }
    }
    Ok(sign.map(SigningKey::read).transpose()?)
}

/// The files `request` names (its rules file and target table).
fn files_of(request: &Request) -> impl Iterator<Item = &PathBuf> {
    request.rules.iter().chain(&request.targets)
}

/// Writes the record of `evaluation`, the answer to `request`, to `path`
/// (making its folder), signed with `key` when given; returns what to
/// print (where it went).
pub fn write(
    path: &Path,
    request: &Request,
    evaluation: &Evaluation,
    key: Option<&SigningKey>,
) -> Result<String, RecordError> {
    let failed = |source| RecordError::Write { path: path.to_path_buf(), source };
    if let Some(folder) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(folder).map_err(failed)?;
    }
    let place = Place::of(path).map_err(failed)?;
    let record = Record::new(request, evaluation, &place, key)?;
    let signature = record.write(path, key)?;
    let mut said =
        format!("record: {} ({} inputs, {} verdicts)\n", path.display(), record.inputs.len(), record.verdicts.len());
    if let (Some(sig), Some(key)) = (signature, key) {
        said.push_str(&format!("signature: {} (key {}, namespace {NAMESPACE})\n", sig.display(), key.fingerprint()));
    }
    Ok(said)
}

/// Runs `mlb accept --verify FILE [--allowed-signers FILE]`: what to
/// print, and the exit status.
pub fn run_verify(record: &Path, allowed_signers: Option<&Path>) -> Result<(String, i32), RecordError> {
    let trusted = allowed_signers.map(AllowedSigners::read).transpose()?;
    let verification = verify(record, trusted.as_ref())?;
    Ok((verification.render(), verification.exit_code()))
}
