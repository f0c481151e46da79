//! The runs page: a filter form (system, bench, dates, a tag, outcome)
//! whose URL is the list's permalink, the runs it selects, each linked to
//! its page, and links to the neighbouring pages of the list.

use super::form::{form, Field, Input};
use super::layout::{empty, EMPTY_STORE};
use super::query::with;
use super::table::{heading, table, Cell};
use crate::serve::data::runs::Runs;
use mlb_present::html::escape;

const OUTCOMES: [(&str, &str); 3] = [("", "any"), ("completed", "completed"), ("failed", "failed")];

/// What the page was asked, as its URL holds it.
pub struct Asked<'a> {
    /// `system`.
    pub system: &'a str,
    /// `bench`.
    pub bench: &'a str,
    /// `since`.
    pub since: &'a str,
    /// `until`.
    pub until: &'a str,
    /// `tag`: `KEY=VALUE`.
    pub tag: &'a str,
    /// `outcome`.
    pub outcome: &'a str,
}

fn filters(asked: &Asked) -> String {
    let fields = [
        Field { label: "System", name: "system", value: asked.system, input: Input::Text("any") },
        Field { label: "Bench", name: "bench", value: asked.bench, input: Input::Text("any") },
        Field { label: "Since", name: "since", value: asked.since, input: Input::Date },
        Field { label: "Until", name: "until", value: asked.until, input: Input::Date },
        Field { label: "Tag", name: "tag", value: asked.tag, input: Input::Text("KEY=VALUE") },
        Field { label: "Outcome", name: "outcome", value: asked.outcome, input: Input::Choice(&OUTCOMES) },
    ];
    form("/runs", &fields)
}

/// Links to the neighbouring pages of the list, which keep its filters.
fn pager(runs: &Runs, query: &str) -> String {
    let link = |page: usize, text: &str| {
        format!("<a href=\"/runs?{}\">{text}</a>", escape(&with(query, "page", &page.to_string())))
    };
    let mut parts = Vec::new();
    if runs.page > 1 {
        parts.push(link(runs.page - 1, "previous"));
    }
    parts.push(format!("page {} of {} ({} runs)", runs.page, runs.pages, runs.total));
    if runs.page < runs.pages {
        parts.push(link(runs.page + 1, "next"));
    }
    format!("<p class=\"pager\">{}</p>\n", parts.join(""))
}

/// Until when a run is under embargo (seen only by its push key's
/// holder, who alone is shown it), marked; `-` for a public run (one
/// whose embargo has ended too).
pub fn embargo(until: Option<&str>) -> Cell {
    match until {
        Some(until) if until > crate::store::import::rows::now().as_str() => Cell::time(Some(until)).marked("fail"),
        _ => Cell::text("-"),
    }
}

/// The page's content: the form, then the runs (or why there are none).
pub fn content(asked: &Asked, data: Result<&Runs, &str>, query: &str) -> String {
    let mut out = filters(asked);
    let data = match data {
        Ok(data) => data,
        Err(why) => return out + &empty(why),
    };
    if data.runs.is_empty() {
        let why = if query.is_empty() { EMPTY_STORE } else { "No run matches the filter." };
        out.push_str(&empty(why));
        return out;
    }
    out.push_str(&heading("Runs, newest first", "/runs", query));
    let rows = data.runs.iter().map(|e| {
        let r = &e.run;
        let failed = if e.failed > 0 { Cell::count(e.failed).marked("fail") } else { Cell::count(0) };
        let tags: Vec<String> = r.tags.iter().map(|(k, v)| format!("{k}={v}")).collect();
        vec![
            Cell::link(&format!("/runs/{}", r.id), &r.id.to_string()),
            Cell::link(&format!("/runs?system={}", super::query::encode(&r.system)), &r.system),
            Cell::time(r.started.as_deref()),
            Cell::text(&r.run_ids),
            Cell::count(r.instances),
            failed,
            Cell::text(r.mlb_version.as_deref().unwrap_or("-")),
            Cell::text(&tags.join(", ")),
            embargo(r.embargo_until.as_deref()),
        ]
    });
    let headers = ["run", "system", "started", "run ids", "instances", "failed", "mlb", "tags", "embargoed until"];
    out.push_str(&table("runs", &headers, rows));
    out.push_str(&pager(data, query));
    out
}
