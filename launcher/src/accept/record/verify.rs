//! `mlb accept --verify acceptance.json`: reads the record, hashes its
//! inputs again, evaluates its request again from the files, and says what
//! changed: each file added, removed or changed, by name; each verdict
//! added, removed or changed, by rule, bench, GPU and node; and whether the
//! signature (`acceptance.json.sig`) vouches for the record.

use super::error::RecordError;
use super::file::{relative_verdicts, resolved_request, Record};
use super::inputs::{digest, hash_all, Hashed};
use super::paths::Place;
use super::sign::{check, signature_path, SignatureCheck};
use super::signers::AllowedSigners;
use crate::accept::{evaluate, Kind, Subject, Verdict};
use crate::exit::{EXIT_FAILED, EXIT_OK};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// What verifying a record found.
#[derive(Debug)]
pub struct Verification {
    /// The record file.
    pub record: PathBuf,
    /// The mlb that wrote it, and when.
    pub written: (String, String),
    /// Inputs whose bytes are as recorded.
    pub unchanged_inputs: usize,
    /// Inputs added, removed or changed.
    pub inputs: Vec<Change<Hashed>>,
    /// Verdicts as recorded.
    pub unchanged_verdicts: usize,
    /// Verdicts added, removed or changed.
    pub verdicts: Vec<Change<Verdict>>,
    /// Why the verdicts could not be computed again, if they could not.
    pub not_recomputed: Option<String>,
    /// What the signature says.
    pub signature: Signature,
}

/// A difference between the record and the files now.
#[derive(Debug, PartialEq)]
pub enum Change<T> {
    /// Not in the record; there now.
    Added(T),
    /// In the record; not there now.
    Removed(T),
    /// In both, different.
    Changed {
        /// As recorded.
        recorded: T,
        /// As now.
        now: T,
    },
}

/// The state of a record's signature.
#[derive(Debug, PartialEq)]
pub enum Signature {
    /// Not signed, and no signature was asked for.
    Unsigned,
    /// The record names a signer, or `--allowed-signers` asks for a
    /// signature, but there is no `.sig` file.
    Missing,
    /// The `.sig` file checked.
    Checked(SignatureCheck),
}

/// Verifies the record at `path`, the signature against `trusted` when
/// given. Errs (refused) only when the record cannot be read.
pub fn verify(path: &Path, trusted: Option<&AllowedSigners>) -> Result<Verification, RecordError> {
    let bytes = std::fs::read(path).map_err(|source| RecordError::Read { path: path.to_path_buf(), source })?;
    let record = Record::parse(path, &bytes)?;
    let place = Place::of(path).map_err(|source| RecordError::Read { path: path.to_path_buf(), source })?;
    let signature = signature_of(path, &bytes, &record, trusted);
    let (now_inputs, now_verdicts, not_recomputed) = match evaluate(&resolved_request(&record.request, &place)) {
        Ok(evaluation) => match hash_all(&evaluation.inputs, &place) {
            Ok(hashed) => (hashed, Some(relative_verdicts(&evaluation.verdicts, &place)), None),
            Err(e) => (rehash(&record.inputs, &place), None, Some(e.to_string())),
        },
        Err(e) => (rehash(&record.inputs, &place), None, Some(crate::fix::one_line(&e))),
    };
    let (unchanged_inputs, inputs) = diff(&record.inputs, &now_inputs, |h| h.path.clone(), |a, b| a == b);
    let (unchanged_verdicts, verdicts) = match &now_verdicts {
        Some(now) => diff(&record.verdicts, now, key, same_verdict),
        None => (0, Vec::new()),
    };
    Ok(Verification {
        record: path.to_path_buf(),
        written: (record.mlb_version, record.written),
        unchanged_inputs,
        inputs,
        unchanged_verdicts,
        verdicts,
        not_recomputed,
        signature,
    })
}

/// The recorded inputs hashed again where they are, when the request
/// cannot be evaluated (so which files it reads is not known): those gone
/// are left out.
fn rehash(recorded: &[Hashed], place: &Place) -> Vec<Hashed> {
    recorded
        .iter()
        .filter_map(|h| {
            let (sha256, size) = digest(&place.resolve(&h.path)).ok()?;
            Some(Hashed { sha256, size, ..h.clone() })
        })
        .collect()
}

/// The signature's state: checked when `RECORD.sig` exists; missing when
/// the record names a signer or `trusted` asks for one.
fn signature_of(path: &Path, bytes: &[u8], record: &Record, trusted: Option<&AllowedSigners>) -> Signature {
    let sig_path = signature_path(path);
    let armoured = match std::fs::read_to_string(&sig_path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let expected = record.signer.is_some() || trusted.is_some();
            return if expected { Signature::Missing } else { Signature::Unsigned };
        }
        Err(e) => return Signature::Checked(SignatureCheck::Bad(format!("cannot read {}: {e}", sig_path.display()))),
    };
    match (check(bytes, &armoured, trusted), &record.signer) {
        (SignatureCheck::Good { key, .. }, Some(signer)) if &key != signer => {
            Signature::Checked(SignatureCheck::Bad(format!("made by the key {key}, while the record names {signer}")))
        }
        (checked, _) => Signature::Checked(checked),
    }
}

/// A verdict's identity: its rule, kind and subject (with [`diff`]: and
/// which of the verdicts so named it is).
fn key(verdict: &Verdict) -> (String, Kind, Subject) {
    (verdict.rule.clone(), verdict.kind, verdict.subject.clone())
}

/// Whether two verdicts of the same key say the same: outcome, bound and
/// measured value (a relative difference below 1e-9 is the same figure).
fn same_verdict(a: &Verdict, b: &Verdict) -> bool {
    let close = |x: Option<f64>, y: Option<f64>| match (x.filter(|v| v.is_finite()), y.filter(|v| v.is_finite())) {
        (None, None) => true,
        (Some(x), Some(y)) => (x - y).abs() <= 1e-9 * x.abs().max(y.abs()),
        _ => false,
    };
    a.outcome == b.outcome && a.unit == b.unit && close(a.measured, b.measured) && close(a.bound, b.bound)
}

/// How many items of `recorded` are the same in `now`, and every item
/// added, removed or changed, matched by `key_of`; removed and changed in
/// the record's order, then added in the order of `now`.
fn diff<T: Clone, K: Ord + Clone>(
    recorded: &[T],
    now: &[T],
    key_of: impl Fn(&T) -> K,
    same: impl Fn(&T, &T) -> bool,
) -> (usize, Vec<Change<T>>) {
    let numbered = |items: &[T]| -> Vec<((K, usize), T)> {
        let mut seen: BTreeMap<K, usize> = BTreeMap::new();
        items
            .iter()
            .map(|item| {
                let k = key_of(item);
                let n = seen.entry(k.clone()).or_default();
                *n += 1;
                ((k, *n), item.clone())
            })
            .collect()
    };
    let mut current: BTreeMap<(K, usize), (usize, T)> =
        numbered(now).into_iter().enumerate().map(|(i, (k, item))| (k, (i, item))).collect();
    let mut unchanged = 0;
    let mut changes = Vec::new();
    for (k, item) in numbered(recorded) {
        match current.remove(&k) {
            Some((_, now)) if same(&item, &now) => unchanged += 1,
            Some((_, now)) => changes.push(Change::Changed { recorded: item, now }),
            None => changes.push(Change::Removed(item)),
        }
    }
    let mut added: Vec<(usize, T)> = current.into_values().collect();
    added.sort_by_key(|(i, _)| *i);
    changes.extend(added.into_iter().map(|(_, item)| Change::Added(item)));
    (unchanged, changes)
}

impl Verification {
    /// Whether the files, the verdicts and the signature are as recorded.
    pub fn unchanged(&self) -> bool {
        let signature_good =
            matches!(self.signature, Signature::Unsigned | Signature::Checked(SignatureCheck::Good { .. }));
        self.inputs.is_empty() && self.verdicts.is_empty() && self.not_recomputed.is_none() && signature_good
    }

    /// The exit status of `mlb accept --verify`: 0 unchanged and the
    /// signature (if any) good, 1 otherwise.
    pub fn exit_code(&self) -> i32 {
        if self.unchanged() {
            EXIT_OK
        } else {
            EXIT_FAILED
        }
    }

    /// The report for a person: what changed, by name, then the signature
    /// and the result.
    pub fn render(&self) -> String {
        let mut out = format!("record: {} (mlb {}, {})\n", self.record.display(), self.written.0, self.written.1);
        out.push_str(&format!("inputs: {}\n", tally(self.unchanged_inputs, &self.inputs)));
        for change in &self.inputs {
            out.push_str(&input_line(change));
        }
        match &self.not_recomputed {
            Some(why) => out.push_str(&format!("verdicts: not computed again: {why}\n")),
            None => {
                out.push_str(&format!("verdicts: {}\n", tally(self.unchanged_verdicts, &self.verdicts)));
                for change in &self.verdicts {
                    out.push_str(&verdict_line(change));
                }
            }
        }
        out.push_str(&format!("signature: {}\n", signature_line(&self.signature)));
        out.push_str(if self.unchanged() {
            "result: unchanged: the files, the verdicts and the signature are as recorded\n"
        } else {
            "result: CHANGED since the record was written\n"
        });
        out
    }
}

/// `N unchanged, N changed, N added, N removed`.
fn tally<T>(unchanged: usize, changes: &[Change<T>]) -> String {
    let count = |which: fn(&Change<T>) -> bool| changes.iter().filter(|c| which(c)).count();
    format!(
        "{unchanged} unchanged, {} changed, {} added, {} removed",
        count(|c| matches!(c, Change::Changed { .. })),
        count(|c| matches!(c, Change::Added(_))),
        count(|c| matches!(c, Change::Removed(_))),
    )
}

/// One input's change: `  changed  report  runs/a.json (sha256 1a2b3c4d.. -> ..., N -> M bytes)`.
fn input_line(change: &Change<Hashed>) -> String {
    let short = |h: &Hashed| h.sha256.chars().take(12).collect::<String>();
    match change {
        Change::Added(h) => format!("  added    {} {}\n", role(h), h.path),
        Change::Removed(h) => format!("  removed  {} {}\n", role(h), h.path),
        Change::Changed { recorded, now } => format!(
            "  changed  {} {} (sha256 {} -> {}, {} -> {} bytes)\n",
            role(now),
            now.path,
            short(recorded),
            short(now),
            recorded.size,
            now.size
        ),
    }
}

/// An input's role as the record names it (`baseline_report`).
fn role(h: &Hashed) -> String {
    serde_json::to_value(h.role).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default()
}

/// One verdict's change: `  changed  per_gpu#1 bench gpu 1 node n1: pass -> FAIL (measured 0.97 -> 0.81 ratio)`.
fn verdict_line(change: &Change<Verdict>) -> String {
    let figure = |v: &Verdict| v.measured.map_or("not measured".to_string(), |m| format!("{m:.4} {}", v.unit));
    match change {
        Change::Added(v) => format!("  added    {} {}: {} ({})\n", v.rule, v.subject, v.outcome, figure(v)),
        Change::Removed(v) => format!("  removed  {} {}: was {} ({})\n", v.rule, v.subject, v.outcome, figure(v)),
        Change::Changed { recorded, now } => format!(
            "  changed  {} {}: {} -> {} (measured {} -> {}, bound {} -> {})\n",
            now.rule,
            now.subject,
            recorded.outcome,
            now.outcome,
            figure(recorded),
            figure(now),
            bound(recorded),
            bound(now)
        ),
    }
}

/// A verdict's bound, or `none`.
fn bound(v: &Verdict) -> String {
    v.bound.map_or("none".into(), |b| format!("{b:.4}"))
}

/// What the signature says, in words.
fn signature_line(signature: &Signature) -> String {
    match signature {
        Signature::Unsigned => "none (the record was written without --sign)".into(),
        Signature::Missing => {
            "MISSING: the record was signed, or a signature was asked for, but there is no .sig file".into()
        }
        Signature::Checked(SignatureCheck::Good { key, principals: Some(who) }) => {
            format!("good, by {who} (key {key})")
        }
        Signature::Checked(SignatureCheck::Good { key, principals: None }) => {
            format!("good, by the key {key} (pass --allowed-signers FILE to check whose it is)")
        }
        Signature::Checked(SignatureCheck::Bad(why)) => format!("BAD: {why}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diff_names_what_was_added_removed_and_changed_in_the_records_order() {
        let recorded = [("a", 1), ("b", 2), ("c", 3), ("c", 4)];
        let now = [("e", 5), ("c", 3), ("b", 9), ("c", 4), ("c", 6)];
        let (unchanged, changes) = diff(&recorded, &now, |x| x.0, |x, y| x == y);
        assert_eq!(unchanged, 2);
        assert_eq!(
            changes,
            [
                Change::Removed(("a", 1)),
                Change::Changed { recorded: ("b", 2), now: ("b", 9) },
                Change::Added(("e", 5)),
                Change::Added(("c", 6)),
            ]
        );
    }
}
