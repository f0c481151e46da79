//! `mlb db runs`, `mlb db systems` and `mlb db interference` printed: a
//! row per run, system or cell, as a document (text, Markdown, HTML) or
//! from the rows themselves (JSON, CSV).

use super::super::interference::StoredCell;
use super::super::runs::RunRow;
use super::super::systems::SystemListing;
use super::{csv_text, json, Format};
use mlb_present::{Body, Cell, Document};

/// `headers` and `rows` as CSV.
pub(super) fn csv(headers: &[&str], rows: &[Vec<String>]) -> String {
    let headers: Vec<String> = headers.iter().map(|h| h.to_string()).collect();
    std::iter::once(&headers)
        .chain(rows)
        .map(|cells| cells.iter().map(|c| csv_text(c)).collect::<Vec<_>>().join(",") + "\n")
        .collect()
}

/// A document of one table titled `title`.
pub(super) fn table(title: &str, headers: &[&str], rows: Vec<Vec<String>>) -> Document {
    let mut document = Document::new(title);
    let rows = rows.into_iter().map(|r| r.into_iter().map(Cell::from).collect()).collect();
    document.push(title, Body::table(headers.iter().copied(), rows));
    document
}

/// The columns of a run.
const RUN_HEADERS: [&str; 10] =
    ["id", "system", "started", "run ids", "instances", "mlb", "image", "tags", "folder", "embargoed until"];

/// A run's cells.
fn run_rows(runs: &[RunRow]) -> Vec<Vec<String>> {
    runs.iter()
        .map(|r| {
            let tags: Vec<String> = r.tags.iter().map(|(k, v)| format!("{k}={v}")).collect();
            vec![
                r.id.to_string(),
                r.system.clone(),
                r.started.clone().unwrap_or_default(),
                r.run_ids.clone(),
                r.instances.to_string(),
                r.mlb_version.clone().unwrap_or_default(),
                r.image_digest.clone().unwrap_or_default(),
                tags.join(" "),
                r.folder.clone(),
                r.embargo_until.clone().unwrap_or_default(),
            ]
        })
        .collect()
}

/// The runs in `format`.
pub fn runs(runs: &[RunRow], format: Format) -> String {
    match format {
        Format::Json => json(&runs),
        Format::Csv => csv(&RUN_HEADERS, &run_rows(runs)),
    }
}

/// The runs as a document.
pub fn runs_document(runs: &[RunRow]) -> Document {
    table("Runs", &RUN_HEADERS, run_rows(runs))
}

/// The columns of a system.
const SYSTEM_HEADERS: [&str; 9] = ["system", "host", "gpu", "gpus", "driver", "cpu", "runs", "first", "last"];

/// A system's cells.
fn system_rows(systems: &[SystemListing]) -> Vec<Vec<String>> {
    systems
        .iter()
        .map(|listing| {
            let s = &listing.system;
            vec![
                s.name.clone(),
                s.host.clone(),
                s.gpu_model.clone(),
                s.gpu_count.to_string(),
                s.driver.clone(),
                s.cpu.clone(),
                listing.runs.to_string(),
                listing.first.clone().unwrap_or_default(),
                listing.last.clone().unwrap_or_default(),
            ]
        })
        .collect()
}

/// The systems in `format`.
pub fn systems(systems: &[SystemListing], format: Format) -> String {
    match format {
        Format::Json => json(&systems),
        Format::Csv => csv(&SYSTEM_HEADERS, &system_rows(systems)),
    }
}

/// The systems as a document.
pub fn systems_document(systems: &[SystemListing]) -> Document {
    table("Systems", &SYSTEM_HEADERS, system_rows(systems))
}

/// The columns of an interference cell.
const CELL_HEADERS: [&str; 9] =
    ["system", "victim", "aggressor", "n", "alone items/s", "paired items/s", "slowdown", "95% interval", "folder"];

/// A cell's cells: figures as `mlb interfere` shows them.
fn cell_rows(cells: &[StoredCell]) -> Vec<Vec<String>> {
    let share = |v: Option<f64>| v.map_or_else(String::new, |v| format!("{:+.1}%", v * 100.0));
    let rate = |v: Option<f64>| v.map_or_else(String::new, |v| format!("{v:.3}"));
    cells
        .iter()
        .map(|c| {
            let interval = match (c.slowdown_low, c.slowdown_high) {
                (Some(low), Some(high)) => format!("[{}, {}]", share(Some(low)), share(Some(high))),
                _ => String::new(),
            };
            vec![
                c.system.clone(),
                c.victim.clone(),
                c.aggressor.clone(),
                c.n.to_string(),
                rate(c.alone_mean),
                rate(c.paired_mean),
                share(c.slowdown),
                interval,
                c.folder.clone(),
            ]
        })
        .collect()
}

/// The interference cells in `format`.
pub fn cells(cells: &[StoredCell], format: Format) -> String {
    match format {
        Format::Json => json(&cells),
        Format::Csv => csv(&CELL_HEADERS, &cell_rows(cells)),
    }
}

/// The interference cells as a document.
pub fn cells_document(cells: &[StoredCell]) -> Document {
    table("Interference cells", &CELL_HEADERS, cell_rows(cells))
}
