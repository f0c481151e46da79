//! Renderings of a [`Report`]: its [`document`] (the sections) for the
//! presentation layer's text and Markdown, an HTML page with charts
//! ([`html`]), and CSV and JSON with the raw figures.

pub mod charts;
pub mod csv;
pub mod html;
mod measured;
pub mod quality;
pub mod reproducibility;
pub mod sections;
mod timelines;

#[cfg(test)]
pub(crate) mod fixtures;

use super::Report;
use mlb_present::Document;
use sections::Anchor;

/// The report as a document: its sections, titled `mlb report`.
pub fn document(report: &Report) -> Document<Anchor> {
    Document { title: "mlb report".into(), sections: sections::sections(report) }
}

/// The report as pretty JSON (every figure at full precision).
pub fn json(report: &Report) -> String {
    serde_json::to_string_pretty(report).expect("a report serialises")
}
