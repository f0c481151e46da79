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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::{Body, Cell};

    #[test]
    fn each_section_is_its_title_then_its_rows_quoted_and_safe_for_a_spreadsheet() {
        let mut doc: Document = Document::new("t");
        doc.push("GPUs, all", Body::table(["gpu", "note"], vec![vec!["0".into(), Cell::from("=1+1, \"x\"")]]));
        doc.push("Host", Body::Pairs(vec![("kind".into(), "cpu".into())]));
        let csv = render(&doc);
        assert_eq!(csv, "\"GPUs, all\"\ngpu,note\n0,\"'=1+1, \"\"x\"\"\"\n\nHost\nkind,cpu\n");
    }
}
