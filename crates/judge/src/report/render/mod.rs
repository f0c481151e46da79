//! Renderings of a [`Report`]: text tables, JSON, CSV, Markdown and an HTML
//! page with charts. Table, Markdown and HTML share one layout
//! ([`sections`]); CSV and JSON hold the raw figures.

pub mod charts;
pub mod csv;
pub mod html;
pub mod markdown;
mod measured;
pub mod quality;
pub mod sections;
pub mod table;
mod timelines;

#[cfg(test)]
mod fixtures;

use super::Report;

/// The report as pretty JSON (every figure at full precision).
pub fn json(report: &Report) -> String {
    serde_json::to_string_pretty(report).expect("a report serialises")
}
