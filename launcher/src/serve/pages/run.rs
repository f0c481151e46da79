//! A run's page: what the run is (system, start, folder, versions, tags),
//! then what `mlb report` shows for it (the same sections and charts as
//! the HTML report: tables, score, per-GPU and per-node tables,
//! stragglers, telemetry timelines, energy, acceptance verdicts), then the
//! tails of the logs of its failed instances.

use super::layout::empty;
use super::table::{heading, table, when, Cell};
use crate::report::render::html::{self, escape};
use crate::report::Report;
use crate::store::query::runs::RunRow;

/// The last lines of one failed instance's log.
pub struct Tail<'a> {
    /// Which instance and log (`vae on GPU 3: stderr`).
    pub what: &'a str,
    /// The tail, as stored.
    pub text: &'a str,
}

fn about(run: &RunRow) -> String {
    let tags: Vec<String> = run.tags.iter().map(|(k, v)| format!("{k}={v}")).collect();
    let pairs = [
        ("system", run.system.as_str()),
        ("started", &run.started.as_deref().map_or_else(|| "-".into(), when)),
        ("run ids", run.run_ids.as_str()),
        ("instances", &run.instances.to_string()),
        ("folder", run.folder.as_str()),
        ("mlb", run.mlb_version.as_deref().unwrap_or("-")),
        ("image", run.image_digest.as_deref().unwrap_or("-")),
        ("tags", &tags.join(", ")),
    ]
    .map(|(k, v)| vec![Cell::text(k), Cell::text(v)]);
    table("run", &["", ""], pairs)
}

/// The page's content.
pub fn content(run: &RunRow, report: Option<&Report>, tails: &[Tail]) -> String {
    let mut out = about(run);
    match report {
        Some(report) => {
            out.push_str(&heading("Report", &format!("/runs/{}", run.id), ""));
            out.push_str(&html::content(report));
        }
        None => out.push_str(&empty(
            "The store holds this run's figures but not its reports: import its folder again with mlb db import to see them here.",
        )),
    }
    if !tails.is_empty() {
        out.push_str("<h2>Logs of the failed instances (last lines)</h2>\n");
    }
    for tail in tails {
        out.push_str(&format!("<h3>{}</h3>\n<pre class=\"log\">{}</pre>\n", escape(tail.what), escape(tail.text)));
    }
    out
}
