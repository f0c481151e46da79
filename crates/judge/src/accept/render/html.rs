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
