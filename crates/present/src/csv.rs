//! The CSV back-end for a document: each section's title alone on a line,
//! then its table with its header (pairs as `label,value`, notes one per
//! line), a blank line between sections. Cells are quoted and made safe
//! for a spreadsheet ([`mlb_record::untrusted::csv::text`]).

use crate::document::{Body, Document};
use mlb_record::untrusted::csv::text;

/// One CSV line of `cells`.
pub fn line<'a>(cells: impl IntoIterator<Item = &'a str>) -> String {
    let cells: Vec<String> = cells.into_iter().map(text).collect();
    cells.join(",") + "\n"
}

/// `document` as CSV.
pub fn render<A>(document: &Document<A>) -> String {
    let mut sections = Vec::new();
    for section in &document.sections {
        let mut out = line([section.title.as_str()]);
        match &section.body {
            Body::Table(t) => {
                out.push_str(&line(t.headers.iter().map(String::as_str)));
                for row in &t.rows {
                    out.push_str(&line(row.iter().map(|c| c.text.as_str())));
                }
            }
            Body::Pairs(pairs) => {
                for (label, cell) in pairs {
                    out.push_str(&line([label.as_str(), cell.text.as_str()]));
                }
            }
            Body::Notes(notes) => {
                for note in notes {
                    out.push_str(&line([note.as_str()]));
                }
            }
        }
        sections.push(out);
    }
    sections.join("\n")
}
