//! A stored run as the archive of its folder (`/api/runs/ID/archive`,
//! which `mlb db pull` reads): its report files as the store keeps them,
//! byte for byte (so that they hash as they did, and a pull twice stores
//! nothing twice), the documents beside them, and its system's
//! `system.json`. Logs are not kept whole, so none is sent.

use super::archive;
use crate::store::import::kept::inflate;
use crate::store::query::filters::{Filters, RunFilters, Visible};
use crate::store::query::sql::Sql;
use crate::store::{Store, StoreError};

/// A report file's stored text.
#[derive(sqlx::FromRow)]
struct Text {
    file: String,
    body: Vec<u8>,
}

/// A document's stored text.
#[derive(sqlx::FromRow)]
struct Document {
    name: String,
    body: String,
}

/// The archive of the run `id`, when who sees `visible` sees it.
pub fn archive_of(store: &Store, id: i64, visible: Visible) -> Result<Option<Vec<u8>>, StoreError> {
    let filters = Filters { system: None, runs: RunFilters { run: Some(id), visible, ..RunFilters::default() } };
    if crate::store::query::runs::runs(store, &filters)?.is_empty() {
        return Ok(None);
    }
    let of_run = |select: &str| Sql::of_run(select, id, "");
    let texts: Vec<Text> =
        of_run("SELECT file, body FROM report_texts WHERE run_id = ").rows(store, "reading the reports")?;
    let documents: Vec<Document> =
        of_run("SELECT name, body FROM run_documents WHERE run_id = ").rows(store, "reading the documents")?;
    let system: Vec<Option<String>> =
        of_run("SELECT s.description FROM runs r JOIN systems s ON s.id = r.system_id WHERE r.id = ")
            .scalars(store, "reading the run's system")?;
    let texts: Vec<(String, String)> =
        texts.into_iter().filter_map(|t| inflate(&t.body).map(|body| (t.file, body))).collect();
    let system = system.into_iter().flatten().next();
    let files = texts
        .iter()
        .map(|(file, body)| (file.as_str(), body.as_bytes()))
        .chain(documents.iter().map(|d| (d.name.as_str(), d.body.as_bytes())))
        .chain(system.iter().map(|s| (mlb_record::contract::SYSTEM_FILE, s.as_bytes())));
    let mut out = Vec::new();
    archive::pack_files(files, &mut out).map_err(|e| StoreError::Query {
        location: store.location().clone(),
        what: "packing a run".into(),
        reason: e.to_string(),
    })?;
    Ok(Some(out))
}
