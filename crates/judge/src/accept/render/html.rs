//! The verdicts as one self-contained HTML page in the one page frame:
//! the [`document`](super::document()) (the outcomes coloured), then the
//! files the verdicts were computed from.

use super::super::verdict::Evaluation;
use mlb_present::html::{section, Page};
use mlb_present::{Body, Section};

/// The page of `evaluation` on the reports folder `reports`.
pub fn page(evaluation: &Evaluation, reports: &std::path::Path) -> String {
    let doc = super::document(evaluation, reports);
    let mut content: String = doc.sections.iter().map(section).collect();
    let files = evaluation
        .inputs
        .iter()
        .map(|i| {
            let role = serde_json::to_value(i.role).expect("serialises");
            (role.as_str().unwrap_or_default().to_string(), i.path.display().to_string().into())
        })
        .collect();
    content.push_str(&section(&Section::<()>::new("Files read", Body::Pairs(files))));
    mlb_present::html::page(Page { title: &doc.title, body: &content, ..Page::default() })
}

#[cfg(test)]
mod tests {
    use super::super::super::verdict::{Input, Role};
    use super::*;

    #[test]
    fn the_page_is_in_the_one_frame_with_the_files_read() {
        let evaluation = Evaluation {
            verdicts: Vec::new(),
            inputs: vec![Input { role: Role::Report, path: "run/<a>.json".into() }],
            targets: None,
            rules: "default rules".into(),
        };
        let html = page(&evaluation, std::path::Path::new("run"));
        assert!(html.starts_with(mlb_present::html::START) && html.contains(mlb_present::html::STYLE));
        assert!(html.contains("<title>mlb accept: run</title>") && html.contains("<h2>Files read</h2>"));
        assert!(html.contains("<tr><th>report</th><td>run/&lt;a&gt;.json</td></tr>"), "{html}");
        assert!(html.contains("<td class=\"pass\">PASS: all 0 verdicts passed</td>"), "{html}");
    }
}
