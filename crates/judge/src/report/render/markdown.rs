//! The report as Markdown: a heading per section and pipe tables.

use super::super::Report;
use super::sections::{sections, Body};
use mlb_record::untrusted::visible;

/// A cell's text: control characters escaped, `|` too.
fn escape(text: &str) -> String {
    visible(text).replace('|', "\\|")
}

fn row<'a>(cells: impl IntoIterator<Item = &'a str>) -> String {
    let cells: Vec<String> = cells.into_iter().map(escape).collect();
    format!("| {} |\n", cells.join(" | "))
}

/// Renders every section as Markdown.
pub fn render(report: &Report) -> String {
    let mut out = String::from("# mlb report\n\n");
    for section in sections(report) {
        out.push_str(&format!("## {}\n\n", escape(&section.title)));
        match section.body {
            Body::Table { headers, rows } => {
                out.push_str(&row(headers.iter().map(String::as_str)));
                out.push_str(&row(headers.iter().map(|_| "---")));
                for cells in &rows {
                    out.push_str(&row(cells.iter().map(|c| c.text.as_str())));
                }
            }
            Body::Pairs(pairs) => {
                out.push_str("| | |\n|---|---|\n");
                for (label, cell) in &pairs {
                    out.push_str(&row([label.as_str(), cell.text.as_str()]));
                }
            }
            Body::Lines(lines) => {
                for line in lines {
                    out.push_str(&format!("- {}\n", escape(&line)));
                }
            }
        }
        out.push('\n');
    }
    out
}
