//! The HTML back-end: a section as HTML, and the one page frame every
//! page mlb writes (a report, an acceptance) or serves shares: its style
//! sheet, its `<head>`, its title.

use crate::document::{Body, Cell, Document, Mark, Section, Table};

/// The style sheet of every page mlb writes or serves.
pub const STYLE: &str = include_str!("style.css");

/// Escapes text for HTML.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// The class attribute of a cell: its mark's class, and `l` when it is
/// text aligned left (words, not figures); empty when neither.
fn classes(mark: Option<Mark>, left: bool) -> String {
    let mark = match mark {
        None => None,
        Some(Mark::Pass) => Some("pass"),
        Some(Mark::Fail) => Some("fail"),
        Some(Mark::Warn) => Some("warn"),
    };
    let names: Vec<&str> = mark.into_iter().chain(left.then_some("l")).collect();
    if names.is_empty() {
        String::new()
    } else {
        format!(" class=\"{}\"", names.join(" "))
    }
}

/// Which columns of `table` hold words rather than figures: those with a
/// cell of two letters or more (`degraded`, a rule's name), aligned left;
/// the others (`93%`, `1.2e-3`, `-`) are aligned right, as figures are.
fn word_columns(table: &Table) -> Vec<bool> {
    (0..table.headers.len())
        .map(|i| {
            table
                .rows
                .iter()
                .any(|r| r.get(i).is_some_and(|c| c.text.chars().filter(char::is_ascii_alphabetic).count() >= 2))
        })
        .collect()
}

/// One cell as `<tag>`, classed by its mark.
pub fn cell(tag: &str, c: &Cell) -> String {
    format!("<{tag}{}>{}</{tag}>", classes(c.mark, false), escape(&c.text))
}

/// A section's body as HTML.
pub fn body(body: &Body) -> String {
    let mut out = String::new();
    match body {
        Body::Table(t) => {
            // A table wider than the page (eight GPUs' columns) scrolls in its own box.
            out.push_str("<div class=\"scroll\"><table><tr>");
            let words = word_columns(t);
            for (h, &word) in t.headers.iter().zip(&words) {
                out.push_str(&format!("<th{}>{}</th>", classes(None, word), escape(h)));
            }
            out.push_str("</tr>\n");
            for row in &t.rows {
                out.push_str("<tr>");
                for (c, &word) in row.iter().zip(words.iter().chain(std::iter::repeat(&false))) {
                    out.push_str(&format!("<td{}>{}</td>", classes(c.mark, word), escape(&c.text)));
                }
                out.push_str("</tr>\n");
            }
            out.push_str("</table></div>\n");
        }
        Body::Pairs(pairs) => {
            out.push_str("<div class=\"scroll\"><table class=\"pairs\">\n");
            for (label, value) in pairs {
                out.push_str(&format!("<tr><th>{}</th>{}</tr>\n", escape(label), cell("td", value)));
            }
            out.push_str("</table></div>\n");
        }
        Body::Notes(notes) => {
            out.push_str("<ul>\n");
            for note in notes {
                out.push_str(&format!("<li>{}</li>\n", escape(note)));
            }
            out.push_str("</ul>\n");
        }
    }
    out
}

/// A section: its title as `<h2>`, then its body.
pub fn section<A>(section: &Section<A>) -> String {
    format!("<h2>{}</h2>\n{}", escape(&section.title), body(&section.body))
}

/// What a page holds inside the frame.
#[derive(Clone, Copy, Debug, Default)]
pub struct Page<'a> {
    /// The title: the tab's, and the page's heading.
    pub title: &'a str,
    /// Raw markup the `<head>` starts with (a Content-Security-Policy
    /// `<meta>` must come first to cover the rest).
    pub head: &'a str,
    /// Raw markup before the page's `<main>` (a served page's header and
    /// navigation).
    pub before: &'a str,
    /// The content, after the heading.
    pub body: &'a str,
    /// Raw markup after the page's `<main>` (a footer, scripts).
    pub after: &'a str,
}

/// The start of every page, up to the markup of its `head`: doctype,
/// language and charset.
pub const START: &str = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">";

/// The page frame: [`START`], `head`, the viewport, the title, the style
/// sheet; then `before`, and in `<main>` the heading and `body`; then
/// `after`.
pub fn page(page: Page<'_>) -> String {
    format!(
        "{START}{head}<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>{title}</title><style>{STYLE}</style></head><body>\n{before}\
         <main>\n<h1>{title}</h1>\n{body}</main>\n{after}</body></html>\n",
        head = page.head,
        title = escape(page.title),
        before = page.before,
        body = page.body,
        after = page.after,
    )
}

/// `document` as a whole page in the frame, its title the heading.
pub fn render<A>(document: &Document<A>) -> String {
    let body: String = document.sections.iter().map(section).collect();
    page(Page { title: &document.title, body: &body, ..Page::default() })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes() {
        assert_eq!(escape("<a href=\"x\">&'"), "&lt;a href=&quot;x&quot;&gt;&amp;&#39;");
    }

    #[test]
    fn a_document_is_one_page_with_its_sections_and_marks() {
        let mut doc: Document = Document::new("mlb <accept>");
        doc.push(
            "Verdicts",
            Body::table(["rule", "outcome"], vec![vec!["r".into(), Cell::marked("FAIL", Mark::Fail)]]),
        );
        let page = render(&doc);
        assert!(page.starts_with("<!DOCTYPE html>") && page.contains("<title>mlb &lt;accept&gt;</title>"));
        assert!(page.contains("<h2>Verdicts</h2>") && page.contains("<td class=\"fail l\">FAIL</td>"), "{page}");
        assert!(page.contains("name=\"viewport\""), "{page}");
        assert!(page.contains("<main>\n<h1>mlb &lt;accept&gt;</h1>") && page.starts_with(START), "{page}");
    }

    #[test]
    fn columns_of_words_align_left_and_columns_of_figures_right() {
        let table = Body::table(
            ["gpu", "mean", "link", "share"],
            vec![
                vec!["0".into(), "1.2e-3".into(), "degraded".into(), Cell::marked("93%", Mark::Warn)],
                vec!["1".into(), "-".into(), "ok".into(), "100%".into()],
            ],
        );
        let html = body(&table);
        assert!(html.contains("<tr><th>gpu</th><th>mean</th><th class=\"l\">link</th><th>share</th></tr>"), "{html}");
        assert!(html.contains("<td>1.2e-3</td><td class=\"l\">degraded</td><td class=\"warn\">93%</td>"), "{html}");
    }
}
