//! `mlb db keys list`, `mlb db pushes` and `mlb db share --list` printed: a
//! row per key, push or link, as a document or from the rows themselves.

use super::list::{csv, table};
use super::{json, Format};
use crate::collect::keys::PushKey;
use crate::collect::log::Pushed;
use crate::collect::shares::Share;
use mlb_present::Document;

const KEY_HEADERS: [&str; 7] = ["key", "systems", "pushes a minute", "bytes a push", "files a push", "made", "revoked"];

fn key_rows(keys: &[PushKey]) -> Vec<Vec<String>> {
    keys.iter()
        .map(|k| {
            vec![
                k.name.clone(),
                k.systems.join(" "),
                k.per_minute.to_string(),
                k.bounds.max_bytes.map_or_else(|| "server's".into(), |b| b.to_string()),
                k.bounds.max_files.map_or_else(|| "server's".into(), |f| f.to_string()),
                k.made_at.clone(),
                k.revoked_at.clone().unwrap_or_default(),
            ]
        })
        .collect()
}

/// The keys in `format`.
pub fn keys(keys: &[PushKey], format: Format) -> String {
    match format {
        Format::Json => json(&keys),
        Format::Csv => csv(&KEY_HEADERS, &key_rows(keys)),
    }
}

/// The keys as a document.
pub fn keys_document(keys: &[PushKey]) -> Document {
    table("Push keys", &KEY_HEADERS, key_rows(keys))
}

const PUSH_HEADERS: [&str; 9] = ["at", "key", "from", "system", "folder", "bytes", "files", "status", "outcome"];

fn push_rows(pushes: &[Pushed]) -> Vec<Vec<String>> {
    pushes
        .iter()
        .map(|p| {
            vec![
                p.at.clone(),
                p.key.clone(),
                p.peer.clone(),
                p.system.clone().unwrap_or_default(),
                p.folder.clone().unwrap_or_default(),
                p.bytes.to_string(),
                p.files.to_string(),
                p.status.to_string(),
                p.outcome.clone(),
            ]
        })
        .collect()
}

/// The pushes in `format`.
pub fn pushes(pushes: &[Pushed], format: Format) -> String {
    match format {
        Format::Json => json(&pushes),
        Format::Csv => csv(&PUSH_HEADERS, &push_rows(pushes)),
    }
}

/// The pushes as a document.
pub fn pushes_document(pushes: &[Pushed]) -> Document {
    table("Pushes", &PUSH_HEADERS, push_rows(pushes))
}

const SHARE_HEADERS: [&str; 4] = ["link", "run", "made", "revoked"];

fn share_rows(shares: &[Share]) -> Vec<Vec<String>> {
    shares
        .iter()
        .map(|s| {
            vec![s.id.to_string(), s.run_id.to_string(), s.made_at.clone(), s.revoked_at.clone().unwrap_or_default()]
        })
        .collect()
}

/// The share links in `format`.
pub fn shares(shares: &[Share], format: Format) -> String {
    match format {
        Format::Json => json(&shares),
        Format::Csv => csv(&SHARE_HEADERS, &share_rows(shares)),
    }
}

/// The share links as a document.
pub fn shares_document(shares: &[Share]) -> Document {
    table("Share links", &SHARE_HEADERS, share_rows(shares))
}
