//! `mlb db runs` and `mlb db systems` printed: a line per run or system.

use super::super::runs::RunRow;
use super::super::systems::SystemListing;
use super::{csv_text, json, table, Format};

/// A table of `headers` and `rows` in `format` (JSON is the caller's).
fn draw(headers: &[&str], rows: Vec<Vec<String>>, format: Format) -> String {
    let headers: Vec<String> = headers.iter().map(|h| h.to_string()).collect();
    match format {
        Format::Markdown => table::markdown(&headers, &rows),
        Format::Csv => std::iter::once(&headers)
            .chain(&rows)
            .map(|cells| cells.iter().map(|c| csv_text(c)).collect::<Vec<_>>().join(",") + "\n")
            .collect(),
        Format::Text | Format::Json => table::text(&headers, &rows),
    }
}

/// The runs in `format`.
pub fn runs(runs: &[RunRow], format: Format) -> String {
    if format == Format::Json {
        return json(&runs);
    }
    let rows = runs
        .iter()
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
            ]
        })
        .collect();
    let headers = ["id", "system", "started", "run ids", "instances", "mlb", "image", "tags", "folder"];
    draw(&headers, rows, format)
}

/// The systems in `format`.
pub fn systems(systems: &[SystemListing], format: Format) -> String {
    if format == Format::Json {
        return json(&systems);
    }
    let rows = systems
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
        .collect();
    let headers = ["system", "host", "gpu", "gpus", "driver", "cpu", "runs", "first", "last"];
    draw(&headers, rows, format)
}
