//! The report as text tables (comfy-table), for a terminal.

use super::super::Report;
use super::sections::{sections, Body};
use crate::untrusted::visible;
use comfy_table::{presets::UTF8_FULL_CONDENSED, ContentArrangement, Table};

/// Renders every section: a title line, then its table, pairs or lines.
pub fn render(report: &Report) -> String {
    let mut out = String::new();
    for section in sections(report) {
        let title = visible(&section.title);
        out.push_str(&format!("{title}\n{}\n", "=".repeat(title.chars().count())));
        match section.body {
            Body::Table { headers, rows } => {
                let mut table = Table::new();
                table.load_preset(UTF8_FULL_CONDENSED).set_content_arrangement(ContentArrangement::Dynamic);
                table.set_header(headers.iter().map(|h| visible(h)));
                for row in rows {
                    table.add_row(row.iter().map(|c| visible(&c.text)));
                }
                out.push_str(&format!("{table}\n"));
            }
            Body::Pairs(pairs) => {
                let width = pairs.iter().map(|(k, _)| visible(k).chars().count()).max().unwrap_or(0);
                for (label, cell) in pairs {
                    out.push_str(&format!("{:<width$}  {}\n", visible(&label), visible(&cell.text)));
                }
            }
            Body::Lines(lines) => {
                for line in lines {
                    out.push_str(&format!("{}\n", visible(&line)));
                }
            }
        }
        out.push('\n');
    }
    out
}
