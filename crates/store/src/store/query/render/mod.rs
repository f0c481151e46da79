//! Renderings of the query results: text tables (comfy-table), CSV, Markdown
//! and JSON. Text, CSV and Markdown escape control characters in names
//! ([`mlb_record::untrusted::visible`]); JSON escapes them itself.

pub mod compare;
pub mod history;
pub mod list;
pub mod table;

use clap::ValueEnum;
use serde::Serialize;

/// How a query's result is printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Text tables.
    Text,
    /// CSV: rows benches, columns systems (compare); one line per point (history).
    Csv,
    /// Markdown tables.
    Markdown,
    /// One JSON document with every figure at full precision.
    Json,
}

/// `value` as pretty JSON.
pub fn json(value: &impl Serialize) -> String {
    format!("{}\n", serde_json::to_string_pretty(value).expect("query results serialise"))
}

pub use mlb_record::untrusted::csv::{number as csv_number, text as csv_text};

/// A figure for a person: four significant digits or so; `-` when there is none.
pub fn short(v: Option<f64>) -> String {
    match v {
        None => "-".into(),
        Some(v) if v.abs() >= 100.0 || v == 0.0 => format!("{v:.1}"),
        Some(v) if v.abs() >= 1.0 => format!("{v:.3}"),
        Some(v) => format!("{v:.4}"),
    }
}
