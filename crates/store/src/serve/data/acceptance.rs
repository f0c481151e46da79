//! The standing of a run's `acceptance.json`: anyone who could write the
//! run's folder could have written it, so the run page says who vouches for
//! it (signed, by which key and, with `--allowed-signers`, by whom; or
//! unsigned, or a signature that does not hold) and whether the reports it
//! judged are this run's reports as the store keeps them (same names, same
//! SHA-256) rather than another folder's. The signature is checked by `mlb
//! accept`'s own code ([`mlb_judge::accept::record::check`]), over the bytes the
//! store kept of the record and of its `acceptance.json.sig`.

use mlb_judge::accept::record::{check, confined, AllowedSigners, Record, SignatureCheck};
use mlb_judge::accept::Role;
use serde::Serialize;
use std::collections::HashMap;
use std::path::Path;

/// Who vouches for the record.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum Signature {
    /// No `acceptance.json.sig` and the record names no signer.
    Unsigned,
    /// The record names a signer, but the store holds no signature.
    Missing {
        /// The signer the record names.
        signer: String,
    },
    /// A signature over the record's bytes, by this key.
    Good {
        /// The key's fingerprint (`SHA256:...`).
        key: String,
        /// The principals the server's allowed signers give the key; none
        /// when the server was given no `--allowed-signers`.
        principals: Option<String>,
    },
    /// A signature that does not vouch for the record, and why.
    Bad {
        /// Why.
        why: String,
    },
}

/// Whether the record judged this run's reports.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Inputs {
    /// The run's reports the record names with the hash the store keeps.
    pub own: usize,
    /// The run's reports the store keeps.
    pub stored: usize,
    /// The reports the record names outside the run's folder, or that the
    /// run does not have.
    pub foreign: Vec<String>,
    /// The run's reports the record names with other bytes than the store keeps.
    pub changed: Vec<String>,
    /// The reports folder the record's request names, when not the run's
    /// own (the record's folder).
    pub folder: Option<String>,
}

/// The standing of a run's acceptance record.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Standing {
    /// Whether the record says the run was accepted (none: not a record).
    pub accepted: Option<bool>,
    /// Why it is not an `mlb accept` record, when it is not.
    pub not_a_record: Option<String>,
    /// Who vouches for it.
    pub signature: Signature,
    /// Whether it judged this run's reports (none: not a record).
    pub inputs: Option<Inputs>,
    /// Whether it can be taken as the run's acceptance: a record, signed
    /// by a good signature, over this run's reports and only those.
    pub trusted: bool,
    /// What the page says of it, in one or two sentences.
    pub summary: String,
}

/// The standing of the record `bytes` with its signature `signature` (the
/// `.sig` file's text, when the store kept one), of a run whose reports
/// the store keeps as `reports` (file relative to the run's folder → its
/// SHA-256); `trusted` the server's allowed signers.
pub fn standing(
    bytes: &[u8],
    signature: Option<&str>,
    reports: &HashMap<String, String>,
    trusted: Option<&AllowedSigners>,
) -> Standing {
    let record = Record::parse(Path::new("acceptance.json"), bytes);
    let signer = record.as_ref().ok().and_then(|r| r.signer.clone());
    let signature = match (signature, signer) {
        (None, None) => Signature::Unsigned,
        (None, Some(signer)) => Signature::Missing { signer },
        (Some(armoured), signer) => match check(bytes, armoured, trusted) {
            SignatureCheck::Good { key, .. } if signer.as_ref().is_some_and(|s| s != &key) => Signature::Bad {
                why: format!("made by the key {key}, while the record names {}", signer.unwrap_or_default()),
            },
            SignatureCheck::Good { key, principals } => Signature::Good { key, principals },
            SignatureCheck::Bad(why) => Signature::Bad { why },
        },
    };
    let record = match record {
        Ok(record) => record,
        Err(e) => {
            let why = e.to_string();
            return Standing {
                accepted: None,
                summary: format!(
                    "This acceptance.json is not a record mlb accept wrote ({why}): its verdicts vouch for nothing."
                ),
                not_a_record: Some(why),
                signature,
                inputs: None,
                trusted: false,
            };
        }
    };
    let inputs = inputs(&record, reports);
    let own_only = inputs.foreign.is_empty() && inputs.changed.is_empty() && inputs.folder.is_none();
    let complete = own_only && inputs.own == inputs.stored;
    let trusted = complete && matches!(signature, Signature::Good { .. });
    let summary = format!("{} {}", said_of(&signature), said_of_inputs(&inputs, complete));
    Standing { accepted: Some(record.accepted), not_a_record: None, signature, inputs: Some(inputs), trusted, summary }
}

/// Which reports `record` judged, against the run's `reports`.
fn inputs(record: &Record, reports: &HashMap<String, String>) -> Inputs {
    let mut inputs = Inputs { own: 0, stored: reports.len(), foreign: Vec::new(), changed: Vec::new(), folder: None };
    let folder = record.request.reports.to_string_lossy();
    if !matches!(folder.as_ref(), "" | "." | "./") {
        inputs.folder = Some(mlb_record::untrusted::visible(&folder).into_owned());
    }
    for input in record.inputs.iter().filter(|i| i.role == Role::Report) {
        // Inside the record's folder as `--verify` reads it.
        let inside = confined(&input.path).is_some();
        let name = input.path.trim_start_matches("./");
        let shown = mlb_record::untrusted::visible(&input.path).into_owned();
        match reports.get(name) {
            Some(hash) if inside && hash.eq_ignore_ascii_case(&input.sha256) => inputs.own += 1,
            Some(_) if inside => inputs.changed.push(shown),
            _ => inputs.foreign.push(shown),
        }
    }
    inputs
}

/// What the page says of `signature`.
fn said_of(signature: &Signature) -> String {
    match signature {
        Signature::Unsigned => {
            "Unsigned: anyone who could write the run's folder could have written it; sign records with \
             `mlb accept --record FILE --sign KEY`."
                .into()
        }
        Signature::Missing { signer } => {
            format!("The record names the signer {signer}, but no acceptance.json.sig was imported with it.")
        }
        Signature::Good { key, principals: Some(who) } => format!("Signed by {who} (key {key})."),
        Signature::Good { key, principals: None } => format!(
            "Signed by the key {key}, which this server does not check against a list of signers (start mlb serve \
             with --allowed-signers FILE)."
        ),
        Signature::Bad { why } => format!("Its signature does not vouch for it: {why}."),
    }
}

/// What the page says of the reports the record judged (`complete`: all
/// the run's, and no other).
fn said_of_inputs(inputs: &Inputs, complete: bool) -> String {
    if complete {
        return format!("It judged this run's {} report file(s), as the store keeps them.", inputs.own);
    }
    let mut parts = Vec::new();
    if let Some(folder) = &inputs.folder {
        parts.push(format!("it judged the reports of the folder {folder}, not of this run's folder"));
    }
    if !inputs.foreign.is_empty() {
        parts.push(format!("it names reports this run does not have: {}", shortlist(&inputs.foreign)));
    }
    if !inputs.changed.is_empty() {
        parts.push(format!("it names reports of this run with other contents: {}", shortlist(&inputs.changed)));
    }
    if inputs.own < inputs.stored {
        parts.push(format!("it judged {} of this run's {} report file(s)", inputs.own, inputs.stored));
    }
    format!("Not this run's acceptance as imported: {}.", parts.join("; "))
}

/// Up to 5 names of `names`, and how many more.
fn shortlist(names: &[String]) -> String {
    let mut text = names.iter().take(5).cloned().collect::<Vec<_>>().join(", ");
    if names.len() > 5 {
        text.push_str(&format!(" and {} more", names.len() - 5));
    }
    text
}
