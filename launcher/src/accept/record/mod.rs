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
use clap::Args;
use paths::Place;
use std::path::{Path, PathBuf};

/// The options of `mlb accept` for the record.
#[derive(Debug, Default, Args)]
pub struct RecordArgs {
    /// Write the acceptance record to FILE (JSON: every input with its
    /// SHA-256 and size, the mlb version, every verdict), whole, mode 0644.
    #[arg(long, value_name = "FILE")]
    pub record: Option<PathBuf>,

    /// Sign the record with this OpenSSH ed25519 private key (unencrypted):
    /// writes FILE.sig as `ssh-keygen -Y sign -n mlb-acceptance` does.
    #[arg(long, value_name = "KEY", requires = "record")]
    pub sign: Option<PathBuf>,

    /// Verify the record FILE: check FILE.sig first, then compute the
    /// record again from the files it names inside its folder; exit 0 only
    /// when signed by a key of --allowed-signers and nothing changed, 1
    /// otherwise (unsigned, signer not checked, bad signature, a change).
    #[arg(
        long,
        value_name = "FILE",
        conflicts_with_all = ["record", "sign", "reports", "rules", "targets", "gpu_model", "baseline", "suite", "out"]
    )]
    pub verify: Option<PathBuf>,

    /// With --verify: the keys trusted to sign records, an allowed signers
    /// file (as `ssh-keygen -Y verify -f`) or a public key file (KEY.pub).
    #[arg(long = "allowed-signers", value_name = "FILE", requires = "verify")]
    pub allowed_signers: Option<PathBuf>,
}

impl RecordArgs {
    /// Checks, before anything is evaluated, that the record can be
    /// written where asked for `request` (not inside a folder of reports
    /// the evaluation reads, where it would be read as one, nor over its
    /// rules file or target table, and in a folder that holds every path
    /// of the request, the only place `--verify` reads), and reads the
    /// key of `--sign`, so that a refusal leaves nothing written.
    pub fn ready(&self, request: &Request) -> Result<Option<SigningKey>, RecordError> {
        if let Some(path) = &self.record {
            let mut folders = std::iter::once(&request.reports).chain(&request.baseline);
            if let Some(folder) = folders.find(|f| paths::inside(path, f)) {
                return Err(RecordError::InsideReports { record: path.clone(), folder: folder.clone() });
            }
            let mut files = files_of(request);
            if let Some(input) = files.find(|f| paths::same(path, f)) {
                return Err(RecordError::OverInput { record: path.clone(), input: input.clone() });
            }
            let folder = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
            let mut named = std::iter::once(&request.reports).chain(&request.baseline).chain(files_of(request));
            if let Some(input) = named.find(|input| !paths::below(input, folder)) {
                return Err(RecordError::Outside { record: path.clone(), input: input.clone() });
            }
        }
        Ok(self.sign.as_deref().map(SigningKey::read).transpose()?)
    }
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
