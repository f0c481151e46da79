//! Renderings of the query results: a document each (text, Markdown and
//! HTML, [`mlb_present`], which makes names visible), and CSV and JSON from
//! the results themselves, every figure at full precision (CSV escapes
//! control characters in names, [`mlb_record::untrusted::csv`]; JSON
//! escapes them itself).

pub mod collect;
pub mod compare;
pub mod history;
pub mod list;
pub mod vote;

use serde::Serialize;

/// How a query's result is printed from its own data (the other formats
/// are its document's).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// CSV: rows benches, columns systems (compare); one line per point (history).
    Csv,
    /// One JSON document with every figure at full precision.
    Json,
}

/// `value` as pretty JSON.
pub fn json(value: &impl Serialize) -> String {
    format!("{}\n", serde_json::to_string_pretty(value).expect("query results serialise"))
}

pub use mlb_record::untrusted::csv::{number as csv_number, text as csv_text};

/// A time of the store (RFC 3339) to the minute in UTC, as a person reads
/// it (`2026-01-02 10:00 UTC`); text that is no such time as it is.
pub fn when(text: &str) -> String {
    chrono::DateTime::parse_from_rfc3339(text)
        .map_or_else(|_| text.to_string(), |t| t.with_timezone(&chrono::Utc).format("%Y-%m-%d %H:%M UTC").to_string())
}

/// A figure for a person: four significant digits or so; `-` when there is none.
pub fn short(v: Option<f64>) -> String {
    match v {
        None => "-".into(),
        Some(v) if v.abs() >= 100.0 || v == 0.0 => format!("{v:.1}"),
        Some(v) if v.abs() >= 1.0 => format!("{v:.3}"),
        Some(v) => format!("{v:.4}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_time_reads_to_the_minute_in_utc() {
        assert_eq!(when("2026-01-02T10:00:59.000000Z"), "2026-01-02 10:00 UTC");
        assert_eq!(when("2026-01-02T12:00:00+02:00"), "2026-01-02 10:00 UTC");
        assert_eq!(when("yesterday"), "yesterday");
    }
}
