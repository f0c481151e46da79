//! The Markdown back-end: the title as a heading, a heading per section,
//! pipe tables, pairs as a two-column table, notes as a list.

use crate::document::{Body, Document};
use mlb_record::untrusted::visible;

/// A cell's text: control characters escaped, `|` too.
fn escape(text: &str) -> String {
    visible(text).replace('|', "\\|")
}

/// One pipe-table row of `cells`.
pub fn row<'a>(cells: impl IntoIterator<Item = &'a str>) -> String {
    let cells: Vec<String> = cells.into_iter().map(escape).collect();
    format!("| {} |\n", cells.join(" | "))
}

/// A pipe table: `headers`, the rule, then `rows`.
pub fn table(headers: &[String], rows: impl IntoIterator<Item = Vec<String>>) -> String {
    let mut out = row(headers.iter().map(String::as_str));
    out.push_str(&row(headers.iter().map(|_| "---")));
    for cells in rows {
        out.push_str(&row(cells.iter().map(String::as_str)));
    }
    out
}

/// `document` as Markdown.
pub fn render<A>(document: &Document<A>) -> String {
    let mut out = format!("# {}\n\n", escape(&document.title));
    for section in &document.sections {
        out.push_str(&format!("## {}\n\n", escape(&section.title)));
        match &section.body {
            Body::Table(t) => {
                out.push_str(&table(&t.headers, t.rows.iter().map(|r| r.iter().map(|c| c.text.clone()).collect())));
            }
            Body::Pairs(pairs) => {
                out.push_str("| | |\n|---|---|\n");
                for (label, cell) in pairs {
                    out.push_str(&row([label.as_str(), cell.text.as_str()]));
                }
            }
            Body::Notes(notes) => {
                for note in notes {
                    out.push_str(&format!("- {}\n", escape(note)));
                }
            }
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::Body;

    #[test]
    fn a_heading_per_section_and_pipes_escaped_in_cells() {
        let mut doc: Document = Document::new("mlb x");
        doc.push("Runs", Body::table(["a|b", "c"], vec![vec!["1".into(), "x\ny".into()]]));
        doc.push("Notes", Body::Notes(vec!["one".into()]));
        let md = render(&doc);
        assert_eq!(md, "# mlb x\n\n## Runs\n\n| a\\|b | c |\n| --- | --- |\n| 1 | x\\ny |\n\n## Notes\n\n- one\n\n");
    }
}
