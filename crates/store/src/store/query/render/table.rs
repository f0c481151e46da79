//! One table as text (comfy-table) or as Markdown, cells made visible.

use comfy_table::{presets::UTF8_FULL_CONDENSED, ContentArrangement, Table};
use mlb_record::untrusted::visible;

/// `headers` and `rows` as a text table.
pub fn text(headers: &[String], rows: &[Vec<String>]) -> String {
    let mut table = Table::new();
    table.load_preset(UTF8_FULL_CONDENSED).set_content_arrangement(ContentArrangement::Dynamic);
    table.set_header(headers.iter().map(|h| visible(h)));
    for row in rows {
        table.add_row(row.iter().map(|c| visible(c)));
    }
    format!("{table}\n")
}

/// `headers` and `rows` as a Markdown pipe table (`|` escaped in cells).
pub fn markdown(headers: &[String], rows: &[Vec<String>]) -> String {
    let line = |cells: &mut dyn Iterator<Item = &str>| {
        let cells: Vec<String> = cells.map(|c| visible(c).replace('|', "\\|")).collect();
        format!("| {} |\n", cells.join(" | "))
    };
    let mut out = line(&mut headers.iter().map(String::as_str));
    out.push_str(&line(&mut headers.iter().map(|_| "---")));
    for row in rows {
        out.push_str(&line(&mut row.iter().map(String::as_str)));
    }
    out
}
