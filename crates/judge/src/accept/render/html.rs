//! The verdicts as one self-contained HTML page: the summary, then a table
//! with failed lines first, coloured by outcome, and the files read.

use super::super::verdict::{Evaluation, Outcome, Verdict};
use super::{number, summary};
use mlb_present::html::escape;

const STYLE: &str = "body{font-family:sans-serif;margin:24px;color:#222}h1{font-size:22px}\
table{border-collapse:collapse;font-family:monospace;font-size:13px}\
td,th{border:1px solid #ddd;padding:3px 8px;text-align:left;white-space:nowrap}th{background:#f3f3f3}\
td.n{text-align:right}.pass{color:#080;font-weight:bold}.fail{color:#c00;font-weight:bold}\
.not_measured{color:#c60;font-weight:bold}";

fn row(v: &Verdict) -> String {
    let class = serde_json::to_value(v.outcome).expect("serialises");
    let class = class.as_str().unwrap_or_default();
    let text = |s: &str| format!("<td>{}</td>", escape(s));
    let figure = |f: Option<f64>, signed| format!("<td class=\"n\">{}</td>", number(f, signed));
    format!(
        "<tr><td class=\"{class}\">{}</td>{}{}{}{}{}{}{}{}</tr>",
        escape(&v.outcome.to_string()),
        text(&v.rule),
        text(&v.subject.to_string()),
        figure(v.measured, false),
        figure(v.bound, false),
        figure(v.margin, true),
        text(&v.unit),
        text(&v.origin.to_string()),
        text(&v.note),
    )
}

/// The page, titled after the reports folder `reports`.
pub fn page(evaluation: &Evaluation, reports: &std::path::Path) -> String {
    let title = escape(&format!("mlb accept: {}", reports.display()));
    let verdict = if evaluation.passed() { "pass" } else { "fail" };
    let rows: String = evaluation.verdicts.iter().map(row).collect();
    let inputs: String = evaluation
        .inputs
        .iter()
        .map(|i| {
            let role = serde_json::to_value(i.role).expect("serialises");
            format!("<li>{}: {}</li>", escape(role.as_str().unwrap_or_default()), escape(&i.path.display().to_string()))
        })
        .collect();
    let missing = evaluation.count(Outcome::NotMeasured);
    format!(
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{title}</title><style>{STYLE}</style></head>\
         <body><h1>{title}</h1><p class=\"{verdict}\">{}</p><p>rules: {}; targets: {}; {missing} not measured</p>\
         <table><tr><th>outcome</th><th>rule</th><th>subject</th><th>measured</th><th>bound</th><th>margin</th>\
         <th>unit</th><th>written at</th><th>note</th></tr>{rows}</table><h2>Files read</h2><ul>{inputs}</ul>\
         </body></html>\n",
        escape(&summary(evaluation)),
        escape(&evaluation.rules),
        escape(evaluation.targets.as_deref().unwrap_or("none")),
    )
}
