//! The systems page: every system of the store, what it is (host, GPUs,
//! driver, runtimes, CPU, and its whole `system.json` on demand), how many
//! runs it has and its last run, linked.

use super::layout::{empty, EMPTY_STORE};
use super::query::encode;
use super::table::{heading, table, Cell};
use crate::serve::data::systems::{SystemEntry, Systems};
use crate::store::query::render::when;
use mlb_present::html::escape;

/// A blank value of the store (an identity the reports did not give) reads
/// as `-`, never as an empty cell or a separator.
fn or_dash(text: &str) -> &str {
    if text.trim().is_empty() {
        "-"
    } else {
        text
    }
}

/// The page's content: the systems' table, then each description.
pub fn content(data: &Systems, query: &str) -> String {
    let systems = &data.systems;
    if systems.is_empty() {
        return empty(EMPTY_STORE);
    }
    let mut out = heading(&format!("{} systems", systems.len()), "/systems", query);
    let rows = systems.iter().map(|e| {
        let (l, s) = (&e.listing, &e.listing.system);
        let last = match &e.last_run {
            Some(r) => Cell::link(
                &format!("/runs/{}", r.id),
                &r.started.as_deref().map_or_else(|| format!("run {}", r.id), when),
            ),
            None => Cell::text("-"),
        };
        let gpus = if s.gpu_count > 0 {
            format!("{} x {}", s.gpu_count, or_dash(&s.gpu_model))
        } else {
            or_dash(&s.gpu_model).to_string()
        };
        vec![
            Cell::link(&format!("/runs?system={}", encode(&s.name)), &s.name),
            Cell::name(or_dash(&s.host)),
            Cell::text(&gpus),
            Cell::text(or_dash(&s.driver)),
            Cell::text(or_dash(&s.runtime_versions)),
            Cell::text(or_dash(&s.cpu)),
            Cell::count(l.runs),
            last,
        ]
    });
    let headers = ["system", "host", "GPUs", "driver", "runtimes", "CPU", "runs", "last run"];
    out.push_str(&table("systems", &headers, rows));
    let described: Vec<&SystemEntry> = systems.iter().filter(|e| e.described.is_some()).collect();
    if !described.is_empty() {
        out.push_str("<h2>Descriptions</h2>\n");
    }
    for e in described {
        let pretty = e.described.as_ref().and_then(|v| serde_json::to_string_pretty(v).ok()).unwrap_or_default();
        out.push_str(&format!(
            "<details><summary>{} (system.json)</summary><pre class=\"log\">{}</pre></details>\n",
            escape(&e.listing.system.name),
            escape(&pretty)
        ));
    }
    out
}
