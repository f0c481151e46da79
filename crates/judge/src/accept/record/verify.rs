//! `mlb accept --verify acceptance.json`: whether the record is the one
//! its signer wrote, and whether the files it names still give it. In this
//! order, so that nothing the record names is trusted before its signature:
//!
//! 1. the record and its signature (`acceptance.json.sig`) are read, each a
//!    regular file beside the record (not a link), of bounded size;
//! 2. the signature is checked, and its key against `--allowed-signers`; a
//!    bad or missing signature ends here: nothing the record names is opened;
//! 3. the files of the record's request are read from inside the record's
//!    folder only ([`confined`](super::confined)), and the whole record is
//!    computed again from them: the request, every input (by name), every
//!    verdict (every field of each) and `accepted` are compared with the
//!    record's. `schema`, `mlb_version`, `written` and `signer` cannot be
//!    computed again: the signature vouches for them.
//!
//! Only a record signed by a key of `--allowed-signers`, with nothing
//! changed, is verified (exit status 0): an unsigned record proves nothing,
//! and a signature by a key nobody listed proves only that someone signed.

use super::confined::{self, rehash, LeftOut};
use super::error::RecordError;
use super::file::{relative_request, relative_verdicts, resolved_request, Record};
use super::inputs::{hash_all, Hashed};
use super::paths::Place;
use super::sign::{check, signature_path, SignatureCheck};
use super::signers::AllowedSigners;
use crate::accept::{evaluate, Kind, Outcome, Request, Subject, Verdict};
use mlb_record::exit::{EXIT_FAILED, EXIT_OK};
use mlb_record::untrusted::visible;
use mlb_run::linux::dir::Dir;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The largest record `--verify` reads: 256 MiB (a record of 200,000
/// reports is about 50 MiB).
pub const RECORD_LIMIT: u64 = 256 << 20;
/// The largest signature file `--verify` reads (an SSHSIG is under 1 KiB).
pub const SIGNATURE_LIMIT: u64 = 64 << 10;

/// What verifying a record found.
#[derive(Debug)]
pub struct Verification {
    /// The record file.
    pub record: PathBuf,
    /// The mlb that wrote it, and when.
    pub written: (String, String),
    /// Whether the files the record names were opened (only when the
    /// signature vouches for the record, or there is none to check).
    pub opened: bool,
    /// Inputs whose bytes are as recorded.
    pub unchanged_inputs: usize,
    /// Inputs added, removed or changed.
    pub inputs: Vec<Change<Hashed>>,
    /// Files of the record's folder not read, and why.
    pub left_out: Vec<LeftOut>,
    /// Verdicts as recorded.
    pub unchanged_verdicts: usize,
    /// Verdicts added, removed or changed.
    pub verdicts: Vec<Change<Verdict>>,
    /// The record's other fields that differ from those computed again.
    pub fields: Vec<Field>,
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

/// A field of the record (besides its inputs and verdicts) that differs
/// from the one computed again.
#[derive(Debug, PartialEq)]
pub struct Field {
    /// The field (`accepted`, `request`).
    pub name: &'static str,
    /// How: `true -> false`, or which paths of the request.
    pub how: String,
}

/// The state of a record's signature.
#[derive(Debug, PartialEq)]
pub enum Signature {
    /// Not signed, and no signature was asked for: nothing proves the
    /// record unchanged.
    Unsigned,
    /// The record names a signer, or `--allowed-signers` asks for a
    /// signature, but there is no `.sig` file.
    Missing,
    /// The `.sig` file checked.
    Checked(SignatureCheck),
}

impl Signature {
    /// Whether the record may be read on: unsigned (nothing to check), or
    /// a good signature.
    fn vouches(&self) -> bool {
        !matches!(self, Signature::Missing | Signature::Checked(SignatureCheck::Bad(_)))
    }

    /// Whether a key of `--allowed-signers` made it.
    fn trusted(&self) -> bool {
        matches!(self, Signature::Checked(SignatureCheck::Good { principals: Some(_), .. }))
    }
}

/// The record as computed again from its files.
struct Now {
    inputs: Vec<Hashed>,
    left_out: Vec<LeftOut>,
    /// The request and the verdicts, when they could be computed again.
    computed: Result<(Request, Vec<Verdict>), String>,
}

/// Verifies the record at `path`, the signature against `trusted` when
/// given. Errs (refused) only when the record cannot be read.
pub fn verify(path: &Path, trusted: Option<&AllowedSigners>) -> Result<Verification, RecordError> {
    let unreadable = |source| RecordError::Read { path: path.to_path_buf(), source };
    let name = path.file_name().map(Path::new).ok_or_else(|| unreadable(std::io::ErrorKind::InvalidInput.into()))?;
    let place = Place::of(path).map_err(unreadable)?;
    let folder = Dir::open(place.given()).map_err(unreadable)?;
    let bytes = folder.read_bounded(name, RECORD_LIMIT).map_err(unreadable)?;
    let record = Record::parse(path, &bytes)?;
    let signature = signature_of(&folder, name, &bytes, &record, trusted);
    let mut verification = Verification {
        record: path.to_path_buf(),
        written: (record.mlb_version.clone(), record.written.clone()),
        opened: false,
        unchanged_inputs: 0,
        inputs: Vec::new(),
        left_out: Vec::new(),
        unchanged_verdicts: 0,
        verdicts: Vec::new(),
        fields: Vec::new(),
        not_recomputed: None,
        signature,
    };
    if !verification.signature.vouches() {
        verification.not_recomputed =
            Some("the signature does not vouch for the record: nothing the record names was opened".into());
        return Ok(verification);
    }
    let now = recompute(&folder, name, &record, &place);
    verification.opened = true;
    (verification.unchanged_inputs, verification.inputs) =
        diff(&record.inputs, &now.inputs, |h| h.path.clone(), |a, b| a == b);
    verification.left_out = now.left_out;
    let accepted = match now.computed {
        Ok((request, verdicts)) => {
            (verification.unchanged_verdicts, verification.verdicts) =
                diff(&record.verdicts, &verdicts, key, |a, b| differing(a, b).is_empty());
            verification.fields.extend(request_field(&record.request, &request));
            verdicts.iter().all(|v| v.outcome == Outcome::Pass)
        }
        Err(why) => {
            verification.not_recomputed = Some(why);
            record.verdicts.iter().all(|v| v.outcome == Outcome::Pass)
        }
    };
    if record.accepted != accepted {
        verification.fields.push(Field { name: "accepted", how: format!("{} -> {accepted}", record.accepted) });
    }
    Ok(verification)
}

/// The record computed again from the files of its folder: the request's
/// files copied from it and evaluated; when that cannot be done, the
/// recorded inputs hashed again where they are, and why.
fn recompute(folder: &Dir, name: &Path, record: &Record, place: &Place) -> Now {
    let fallback = |why: String, mut left_out: Vec<LeftOut>| {
        let (inputs, more) = rehash(folder, &record.inputs);
        left_out.extend(more);
        Now { inputs, left_out, computed: Err(why) }
    };
    let copy = match confined::copy(folder, name, &record.request) {
        Ok(copy) => copy,
        Err(e) => return fallback(e.to_string(), Vec::new()),
    };
    let request = resolved_request(&record.request, &copy.place);
    let evaluation = match evaluate(&request, &|| ()) {
        Ok(evaluation) => evaluation,
        Err(e) => return fallback(copy.as_given(&mlb_record::fix::one_line(&e), place.given()), copy.left_out),
    };
    // A `--gpu-model` table of the host is no file of the copy.
    let name_of = |p: &Path| if copy.holds(p) { copy.place.relative(p) } else { place.relative(p) };
    match hash_all(&evaluation.inputs, name_of) {
        Ok(inputs) => Now {
            inputs,
            computed: Ok((
                relative_request(&request, &copy.place),
                relative_verdicts(&evaluation.verdicts, &copy.place),
            )),
            left_out: copy.left_out,
        },
        Err(e) => fallback(copy.as_given(&e.to_string(), place.given()), copy.left_out),
    }
}

/// The paths of the request that differ from the record's as computed
/// again (the same folder or file, written otherwise: `./delivery/.`).
fn request_field(recorded: &Request, now: &Request) -> Option<Field> {
    let paths = [
        ("reports", recorded.reports != now.reports),
        ("rules", recorded.rules != now.rules),
        ("targets", recorded.targets != now.targets),
        ("baseline", recorded.baseline != now.baseline),
    ];
    let differ: Vec<&str> = paths.iter().filter(|(_, d)| *d).map(|(n, _)| *n).collect();
    (!differ.is_empty()).then(|| Field { name: "request", how: format!("{} not as computed again", differ.join(", ")) })
}

/// The signature's state: checked when `NAME.sig` is in `folder`; missing
/// when the record names a signer or `trusted` asks for one. The file is
/// read as the record is: a regular file, no link, bounded.
fn signature_of(
    folder: &Dir,
    name: &Path,
    bytes: &[u8],
    record: &Record,
    trusted: Option<&AllowedSigners>,
) -> Signature {
    let sig_name = signature_path(name);
    let armoured = match folder.read_bounded(&sig_name, SIGNATURE_LIMIT) {
        Ok(bytes) => match String::from_utf8(bytes) {
            Ok(text) => text,
            Err(_) => return Signature::Checked(SignatureCheck::Bad(format!("{} is not text", sig_name.display()))),
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let expected = record.signer.is_some() || trusted.is_some();
            return if expected { Signature::Missing } else { Signature::Unsigned };
        }
        Err(e) => return Signature::Checked(SignatureCheck::Bad(format!("cannot read {}: {e}", sig_name.display()))),
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

/// The fields in which two verdicts of the same key differ: every field
/// is compared, figures within a relative 1e-9 being the same.
fn differing(a: &Verdict, b: &Verdict) -> Vec<&'static str> {
    let close = |x: Option<f64>, y: Option<f64>| match (x.filter(|v| v.is_finite()), y.filter(|v| v.is_finite())) {
        (None, None) => true,
        (Some(x), Some(y)) => (x - y).abs() <= 1e-9 * x.abs().max(y.abs()),
        _ => false,
    };
    [
        ("outcome", a.outcome == b.outcome),
        ("measured", close(a.measured, b.measured)),
        ("bound", close(a.bound, b.bound)),
        ("margin", close(a.margin, b.margin)),
        ("unit", a.unit == b.unit),
        ("origin", a.origin == b.origin),
        ("note", a.note == b.note),
    ]
    .into_iter()
    .filter(|(_, same)| !same)
    .map(|(field, _)| field)
    .collect()
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
    /// Whether anything computed again differs from the record, or could
    /// not be computed.
    pub fn changed(&self) -> bool {
        !(self.inputs.is_empty() && self.verdicts.is_empty() && self.fields.is_empty()) || self.not_recomputed.is_some()
    }

    /// Whether the record is verified: signed by a key of
    /// `--allowed-signers`, and every field as computed again.
    pub fn verified(&self) -> bool {
        self.signature.trusted() && !self.changed()
    }

    /// The exit status of `mlb accept --verify`: 0 verified, 1 otherwise.
    pub fn exit_code(&self) -> i32 {
        if self.verified() {
            EXIT_OK
        } else {
            EXIT_FAILED
        }
    }

    /// The report for a person: what changed, by name, then the signature
    /// and the result, one line each: the record's text in a line (a rule,
    /// a path, its date) has its control characters escaped, so that it
    /// cannot end the line or drive the terminal.
    pub fn render(&self) -> String {
        let mut lines = Vec::new();
        lines.push(format!("record: {} (mlb {}, {})\n", self.record.display(), self.written.0, self.written.1));
        if self.opened {
            lines.push(format!("inputs: {}\n", tally(self.unchanged_inputs, &self.inputs)));
        } else {
            lines.push("inputs: not opened\n".into());
        }
        for change in &self.inputs {
            lines.push(input_line(change));
        }
        for left in &self.left_out {
            lines.push(format!("  left out {}: {}\n", left.path, left.reason));
        }
        match &self.not_recomputed {
            Some(why) => lines.push(format!("verdicts: not computed again: {why}\n")),
            None => {
                lines.push(format!("verdicts: {}\n", tally(self.unchanged_verdicts, &self.verdicts)));
                for change in &self.verdicts {
                    lines.push(verdict_line(change));
                }
            }
        }
        if !self.fields.is_empty() {
            lines.push(format!("fields: {} changed\n", self.fields.len()));
        }
        for field in &self.fields {
            lines.push(format!("  changed  {}: {}\n", field.name, field.how));
        }
        lines.push(format!("signature: {}\n", signature_line(&self.signature)));
        lines.push(String::from(match &self.signature {
            s if !s.vouches() => "result: NOT VERIFIED: the signature does not vouch for the record\n",
            _ if self.changed() => "result: CHANGED since the record was written\n",
            Signature::Unsigned => {
                "result: NOT VERIFIED: the files and verdicts are as recorded, but the record is unsigned\n"
            }
            _ if !self.verified() => {
                "result: NOT VERIFIED: the files and verdicts are as recorded, but the signer was not checked\n"
            }
            _ => "result: verified: signed by an allowed signer; the files, the verdicts and every field are as recorded\n",
        }));
        lines.iter().map(|line| visible(line.strip_suffix('\n').unwrap_or(line)) + "\n").collect()
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

/// One verdict's change: `  changed  per_gpu#1 bench gpu 1 node n1: pass -> FAIL (measured 0.97 -> 0.81 ratio,
/// bound ...)`, and the other fields that differ.
fn verdict_line(change: &Change<Verdict>) -> String {
    let figure = |v: &Verdict| v.measured.map_or("not measured".to_string(), |m| format!("{m:.4} {}", v.unit));
    match change {
        Change::Added(v) => format!("  added    {} {}: {} ({})\n", v.rule, v.subject, v.outcome, figure(v)),
        Change::Removed(v) => format!("  removed  {} {}: was {} ({})\n", v.rule, v.subject, v.outcome, figure(v)),
        Change::Changed { recorded, now } => format!(
            "  changed  {} {}: {} -> {} (measured {} -> {}, bound {} -> {}; differs in {})\n",
            now.rule,
            now.subject,
            recorded.outcome,
            now.outcome,
            figure(recorded),
            figure(now),
            bound(recorded),
            bound(now),
            differing(recorded, now).join(", ")
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
        Signature::Unsigned => {
            "unsigned: nothing proves it unchanged (sign it with --sign KEY, and verify with --allowed-signers FILE)"
                .into()
        }
        Signature::Missing => {
            "MISSING: the record was signed, or a signature was asked for, but there is no .sig file".into()
        }
        Signature::Checked(SignatureCheck::Good { key, principals: Some(who) }) => {
            format!("good, by {who} (key {key})")
        }
        Signature::Checked(SignatureCheck::Good { key, principals: None }) => format!(
            "made by the key {key}, whose signer was NOT CHECKED: any key could have made it; pass --allowed-signers \
             FILE to check whose it is"
        ),
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
