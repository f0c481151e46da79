//! A run's page: what the run is (system, start, folder, versions, tags),
//! then what `mlb report` shows for it (the same sections and charts as
//! the HTML report: tables, score, per-GPU and per-node tables,
//! stragglers, telemetry timelines, energy), the verdicts of `mlb accept`
//! when the run had them (under who vouches for them: signed or not, over
//! this run's reports or others), what the store could not show and why, and the
//! ends of the logs of its failed instances.

use super::layout::empty;
use super::table::{csv_link, table, Cell};
use crate::serve::data::acceptance::Standing;
use crate::serve::data::run::RunPage;
use crate::store::query::render::when;
use mlb_judge::report::render::html;
use mlb_present::html::escape;
use serde_json::Value;

fn about(page: &RunPage) -> String {
    let run = &page.run.run;
    let tags: Vec<String> = run.tags.iter().map(|(k, v)| format!("{k}={v}")).collect();
    let mut rows = vec![
        vec![
            Cell::text("system"),
            Cell::link(&format!("/runs?system={}", super::query::encode(&run.system)), &run.system),
        ],
        vec![Cell::text("GPU model"), Cell::text(&page.gpu_model)],
        vec![Cell::text("started"), Cell::time(run.started.as_deref())],
        vec![Cell::text("run ids"), Cell::text(&run.run_ids)],
        vec![Cell::text("instances"), Cell::count(run.instances)],
    ];
    let failed = Cell::count(page.run.failed);
    rows.push(vec![Cell::text("failed"), if page.run.failed > 0 { failed.marked("fail") } else { failed }]);
    rows.extend([
        vec![Cell::text("folder"), Cell::text(&run.folder)],
        vec![Cell::text("mlb"), Cell::text(run.mlb_version.as_deref().unwrap_or("-"))],
        vec![Cell::text("image"), Cell::text(run.image_digest.as_deref().unwrap_or("-"))],
        vec![Cell::text("tags"), Cell::text(&tags.join(", "))],
        vec![Cell::text("embargoed until"), super::runs::embargo(run.embargo_until.as_deref())],
    ]);
    table("run", &["", ""], rows)
}

/// The verdicts of an `acceptance.json` (`mlb accept`'s record), a row
/// each: rule, what it judged, the figure against its bound, the outcome.
fn acceptance(record: &Value) -> String {
    let verdicts = record["verdicts"].as_array().or(record["evaluation"]["verdicts"].as_array());
    let Some(verdicts) = verdicts else {
        let text = serde_json::to_string_pretty(record).unwrap_or_default();
        return format!("<pre class=\"log\">{}</pre>\n", escape(&text));
    };
    let text =
        |v: &Value| v.as_str().map_or_else(|| if v.is_null() { "-".into() } else { v.to_string() }, str::to_string);
    let rows = verdicts.iter().map(|v| {
        let subject: Vec<String> = ["bench", "gpu", "node"]
            .iter()
            .filter_map(|k| v["subject"][k].as_str().map(|s| format!("{k} {s}")))
            .collect();
        let outcome = text(&v["outcome"]);
        let mark = match outcome.as_str() {
            "pass" => "pass",
            "fail" => "fail",
            _ => "warn",
        };
        vec![
            Cell::name(&text(&v["rule"])),
            Cell::names(&subject),
            Cell::figure(v["measured"].as_f64()),
            Cell::figure(v["bound"].as_f64()),
            Cell::text(&text(&v["unit"])),
            Cell::text(&outcome).marked(mark),
            Cell::text(&text(&v["note"])),
        ]
    });
    table("acceptance", &["rule", "of", "measured", "bound", "unit", "outcome", "note"], rows)
}

/// Who vouches for the record and over which reports, above its verdicts:
/// marked as vouched for only when signed by a good signature over this
/// run's reports and no others.
fn standing_of(standing: &Standing) -> String {
    let (class, label) = if standing.trusted { ("trusted", "Vouched for") } else { ("untrusted", "Not vouched for") };
    format!(
        "<p id=\"acceptance-standing\" class=\"standing {class}\"><strong>{label}.</strong> {}</p>\n",
        escape(&standing.summary)
    )
}

/// The page's content.
pub fn content(page: &RunPage) -> String {
    let mut out = about(page);
    for note in &page.notes {
        out.push_str(&format!("<p class=\"lead\">{}</p>\n", escape(note)));
    }
    match &page.report {
        Some(report) => {
            // The results table's heading links its CSV (the API's answer).
            let report = html::content(report);
            let link = csv_link(&format!("/runs/{}", page.run.run.id), "");
            let at = report.find("<h2>Results").and_then(|i| report[i..].find("</h2>").map(|j| i + j));
            match at {
                Some(at) => out.push_str(&format!("{}{link}{}", &report[..at], &report[at..])),
                None => out.push_str(&report),
            }
        }
        None => out.push_str(&empty("No report of this run can be shown (see above).")),
    }
    if let Some(record) = &page.acceptance {
        out.push_str("<h2>Acceptance (mlb accept)</h2>\n");
        if let Some(standing) = &page.acceptance_standing {
            out.push_str(&standing_of(standing));
        }
        out.push_str(&acceptance(record));
    }
    if !page.log_tails.is_empty() {
        out.push_str("<h2>Logs of the failed instances (last lines)</h2>\n");
    }
    for tail in &page.log_tails {
        let device = tail.device.as_deref().map(|d| format!(" on device {d}")).unwrap_or_default();
        let what = format!("{}{device}: {} ({})", tail.bench, tail.log, tail.file);
        out.push_str(&format!("<h3>{}</h3>\n<pre class=\"log\">{}</pre>\n", escape(&what), escape(&tail.tail)));
    }
    out
}

/// A run's title: its id and system, and when it started.
pub fn title(page: &RunPage) -> String {
    let run = &page.run.run;
    let started = run.started.as_deref().map(|s| format!(", {}", when(s))).unwrap_or_default();
    format!("Run {} of {}{started}", run.id, run.system)
}
