//! The record file, `acceptance.json`: what was asked (the request, its
//! paths relative to the record), every input with its SHA-256 and size,
//! the mlb version, every verdict and whether the run was accepted; written
//! whole (a temporary file renamed over it, mode 0644), keys sorted, so
//! that its bytes are what a signature covers. docs/accept.md gives the
//! schema.

use super::error::RecordError;
use super::inputs::{hash_all, Hashed};
use super::paths::Place;
use super::sign::{signature_path, SigningKey};
use crate::accept::{Evaluation, Origin, Request, Verdict};
use mlb_record::contract::record::{to_strict_json, Output};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The version of the record's layout; a reader refuses a later one.
pub const SCHEMA: u32 = 1;

/// An acceptance record.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Record {
    /// [`SCHEMA`] when written.
    pub schema: u32,
    /// The mlb that wrote it.
    pub mlb_version: String,
    /// When it was written (UTC, RFC 3339).
    pub written: String,
    /// What was asked: the paths relative to the record's folder.
    pub request: Request,
    /// Every file the verdicts were computed from, sorted by role and path.
    pub inputs: Vec<Hashed>,
    /// Every verdict, in the order `mlb accept` gives them; the rules
    /// file of their origin relative to the record's folder.
    pub verdicts: Vec<Verdict>,
    /// Whether every verdict passed.
    pub accepted: bool,
    /// The fingerprint (`SHA256:...`) of the key that signed it with
    /// `--sign`; none when written unsigned.
    pub signer: Option<String>,
}

impl Record {
    /// The record of `evaluation`, the answer to `request`, to be written in
    /// `place`; hashes every input.
    pub fn new(
        request: &Request,
        evaluation: &Evaluation,
        place: &Place,
        signer: Option<&SigningKey>,
    ) -> Result<Record, RecordError> {
        Ok(Record {
            schema: SCHEMA,
            mlb_version: env!("CARGO_PKG_VERSION").into(),
            written: chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            request: relative_request(request, place),
            inputs: hash_all(&evaluation.inputs, |p| place.relative(p))?,
            verdicts: relative_verdicts(&evaluation.verdicts, place),
            accepted: evaluation.passed(),
            signer: signer.map(SigningKey::fingerprint),
        })
    }

    /// The file's text: sorted keys, 4-space indent, a final newline.
    pub fn to_text(&self) -> String {
        let value = serde_json::to_value(self).expect("a record serialises");
        to_strict_json(&value) + "\n"
    }

    /// Parses the bytes of a record file at `path`; refuses a later schema.
    /// The reason of a refusal quotes nothing of the file (which may be
    /// any file): only where the fault is.
    pub fn parse(path: &Path, bytes: &[u8]) -> Result<Record, RecordError> {
        let not = |reason: String| RecordError::NotARecord { path: path.to_path_buf(), reason };
        let value: serde_json::Value = serde_json::from_slice(bytes)
            .map_err(|e| not(format!("not JSON (line {}, column {})", e.line(), e.column())))?;
        match value.get("schema").and_then(serde_json::Value::as_u64) {
            None => return Err(not("it has no `schema` number".into())),
            Some(s) if s > u64::from(SCHEMA) => {
                return Err(not(format!("its schema {s} is of a later mlb (this one reads {SCHEMA})")))
            }
            Some(_) => {}
        }
        serde_json::from_value(value).map_err(|_| {
            not(format!("its fields are not those of an acceptance record of schema {SCHEMA} (docs/accept.md)"))
        })
    }

    /// Writes the record to `path` and, with `key`, its signature to
    /// `path.sig` (each whole, mode 0644, as [`Output`] writes what a user
    /// names: never over a link or a device); without, removes a signature
    /// file or link left by an earlier record there. Returns the
    /// signature's path.
    pub fn write(&self, path: &Path, key: Option<&SigningKey>) -> Result<Option<PathBuf>, RecordError> {
        let failed = |target: &Path| {
            let target = target.to_path_buf();
            move |source| RecordError::Write { path: target, source }
        };
        let text = self.to_text();
        let sig_path = signature_path(path);
        let record_out = Output::at(path).map_err(failed(path))?;
        let signature_out = match key {
            Some(_) => Some(Output::at(&sig_path).map_err(failed(&sig_path))?),
            None => None,
        };
        let record = record_out.write(text.as_bytes()).map_err(failed(path))?;
        let signature = match signature_out.zip(key) {
            Some((out, key)) => Some(out.write(key.sign(text.as_bytes()).as_bytes()).map_err(failed(&sig_path))?),
            None => None,
        };
        record.finish().map_err(failed(path))?;
        let Some(signature) = signature else {
            let stale = std::fs::symlink_metadata(&sig_path).is_ok_and(|m| m.is_file() || m.is_symlink());
            return match stale.then(|| std::fs::remove_file(&sig_path)) {
                Some(Err(e)) if e.kind() != std::io::ErrorKind::NotFound => Err(failed(&sig_path)(e)),
                _ => Ok(None),
            };
        };
        signature.finish().map_err(failed(&sig_path))?;
        Ok(Some(sig_path))
    }
}

/// `request` with its paths relative to `place`.
pub fn relative_request(request: &Request, place: &Place) -> Request {
    map_paths(request, |p| PathBuf::from(place.relative(p)))
}

/// A recorded request with its paths as reached from the working folder.
pub fn resolved_request(recorded: &Request, place: &Place) -> Request {
    map_paths(recorded, |p| place.resolve(&p.to_string_lossy()))
}

/// `request` with `f` applied to each of its paths.
fn map_paths(request: &Request, f: impl Fn(&Path) -> PathBuf) -> Request {
    Request {
        reports: f(&request.reports),
        rules: request.rules.as_deref().map(&f),
        targets: request.targets.as_deref().map(&f),
        gpu_model: request.gpu_model.clone(),
        baseline: request.baseline.as_deref().map(&f),
        suite: request.suite.clone(),
    }
}

/// `verdicts` with the rules file of each origin relative to `place`.
pub fn relative_verdicts(verdicts: &[Verdict], place: &Place) -> Vec<Verdict> {
    verdicts
        .iter()
        .map(|v| {
            let mut v = v.clone();
            if let Origin::File { path, .. } = &mut v.origin {
                *path = PathBuf::from(place.relative(path));
            }
            v
        })
        .collect()
}
