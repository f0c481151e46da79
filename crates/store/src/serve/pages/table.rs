//! Tables of the pages: cells that are text, figures or links, and a
//! section heading with a link to the same figures as CSV from the API.

use crate::store::query::render::{short, when};
use mlb_present::html::escape;

/// A table cell, as HTML.
pub struct Cell {
    html: String,
    class: &'static str,
}

impl Cell {
    /// Text, left-aligned and wrapped.
    pub fn text(text: &str) -> Cell {
        Cell { html: escape(text), class: "text" }
    }

    /// A name (a host, a node), left-aligned and never broken across lines
    /// (not even at its hyphens).
    pub fn name(text: &str) -> Cell {
        Cell { html: escape(text), class: "text whole" }
    }

    /// Names (`bench vae`, `node gpu-node-rack12-slot02`), left-aligned and
    /// joined by commas: the cell wraps between them, never inside one.
    pub fn names(names: &[String]) -> Cell {
        let names: Vec<String> = names.iter().map(|n| format!("<span class=\"whole\">{}</span>", escape(n))).collect();
        Cell { html: names.join(", "), class: "text" }
    }

    /// A figure as `mlb db` prints it for a person (about four significant
    /// digits), or `-` when there is none.
    pub fn figure(value: Option<f64>) -> Cell {
        Cell { html: short(value), class: "" }
    }

    /// A count.
    pub fn count(n: impl std::fmt::Display) -> Cell {
        Cell { html: n.to_string(), class: "" }
    }

    /// A time of the store (RFC 3339, UTC) to the minute, as a person
    /// reads it (`2026-01-02 10:00 UTC`), on one line; `-` when there is none.
    pub fn time(text: Option<&str>) -> Cell {
        Cell::name(&text.map_or_else(|| "-".into(), when))
    }

    /// A link to `href` reading `text`.
    pub fn link(href: &str, text: &str) -> Cell {
        Cell { html: format!("<a href=\"{}\">{}</a>", escape(href), escape(text)), class: "text" }
    }

    /// The same cell, in the colour of `class` (`pass`, `fail`, `warn`,
    /// `regression`).
    pub fn marked(self, class: &'static str) -> Cell {
        Cell { class, ..self }
    }
}

/// A table: a header row of `headers`, then `rows`; `id` names it for
/// links and tests. A table wider than the page scrolls in its own box, as
/// the report's do ([`mlb_present::html::body`]).
pub fn table(id: &str, headers: &[&str], rows: impl IntoIterator<Item = Vec<Cell>>) -> String {
    let rows: Vec<Vec<Cell>> = rows.into_iter().collect();
    let mut out = format!("<div class=\"scroll\"><table id=\"{}\"><tr>", escape(id));
    for (i, h) in headers.iter().enumerate() {
        // A column of text is headed on its left, as its cells are.
        let text = rows.first().and_then(|r| r.get(i)).is_some_and(|c| c.class.starts_with("text"));
        let class = if text { " class=\"text\"" } else { "" };
        out.push_str(&format!("<th{class}>{}</th>", escape(h)));
    }
    out.push_str("</tr>\n");
    for row in rows {
        out.push_str("<tr>");
        for cell in row {
            let class = if cell.class.is_empty() { String::new() } else { format!(" class=\"{}\"", cell.class) };
            out.push_str(&format!("<td{class}>{}</td>", cell.html));
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</table></div>\n");
    out
}

/// A section heading with a "CSV" link: the API's answer for `path` (the
/// page's own path, `/runs`) and `query` (the page's query string, its
/// filters) as CSV.
pub fn heading(title: &str, path: &str, query: &str) -> String {
    format!("<h2>{}{}</h2>\n", escape(title), csv_link(path, query))
}

/// The "CSV" link of [`heading`], alone.
pub fn csv_link(path: &str, query: &str) -> String {
    format!(" <a class=\"csv\" href=\"{}\" download>CSV</a>", escape(&csv_href(path, query)))
}

/// The API's CSV address of a page: `/api` + its path, its query without
/// any `format`, and `format=csv`.
pub fn csv_href(path: &str, query: &str) -> String {
    let kept: Vec<&str> = query.split('&').filter(|p| !p.is_empty() && !p.starts_with("format=")).collect();
    let mut href = format!("/api{path}?");
    for p in kept {
        href.push_str(p);
        href.push('&');
    }
    href.push_str("format=csv");
    href
}

#[cfg(test)]
mod tests {
    use super::*;
    use mlb_present::html::STYLE;

    #[test]
    fn cells_are_escaped_and_marked() {
        let html = table(
            "t",
            &["system", "items/s"],
            [vec![Cell::link("/runs?system=a&b", "<a>"), Cell::figure(Some(2.0 / 3.0)).marked("fail")]],
        );
        assert!(html.contains("<td class=\"text\"><a href=\"/runs?system=a&amp;b\">&lt;a&gt;</a></td>"), "{html}");
        assert!(html.contains("<td class=\"fail\">0.6667</td>"));
        assert!(table("t", &["x"], [vec![Cell::figure(None)]]).contains("<td>-</td>"));
        let hosts = table("h", &["host", "runs"], [vec![Cell::name("gpu-node-rack12-slot01"), Cell::count(3)]]);
        assert!(hosts.starts_with("<div class=\"scroll\">"), "a wide table scrolls in its box: {hosts}");
        assert!(hosts.contains("<th class=\"text\">host</th><th>runs</th>"), "{hosts}");
        assert!(hosts.contains("<td class=\"text whole\">gpu-node-rack12-slot01</td>"), "{hosts}");
        let of = table("a", &["of"], [vec![Cell::names(&["bench <v>".into(), "node gpu-node-7".into()])]]);
        let whole = "<span class=\"whole\">bench &lt;v&gt;</span>, <span class=\"whole\">node gpu-node-7</span>";
        assert!(of.contains(whole), "each name kept whole, the cell wrapping between them: {of}");
        assert!(STYLE.contains("span.whole{white-space:nowrap}"), "{STYLE}");
    }

    #[test]
    fn the_csv_link_keeps_the_filters_and_asks_for_csv_once() {
        assert_eq!(csv_href("/runs", ""), "/api/runs?format=csv");
        assert_eq!(csv_href("/runs", "system=a%20b&format=json&page=2"), "/api/runs?system=a%20b&page=2&format=csv");
        assert!(heading("Runs", "/runs/3", "").contains("href=\"/api/runs/3?format=csv\" download>CSV</a>"));
    }
}
