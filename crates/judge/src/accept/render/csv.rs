//! One CSV line per verdict, figures at full precision, text cells as
//! [`mlb_record::untrusted::csv::text`] writes them.

use super::super::verdict::{Evaluation, Verdict};
use mlb_record::untrusted::csv::{number as figure, text};

/// The header line.
const HEADER: &str = "outcome,rule,kind,origin,bench,gpu,node,measured,bound,margin,unit,note";

fn line(v: &Verdict) -> String {
    let outcome = serde_json::to_value(v.outcome).expect("serialises");
    let kind = v.kind.name();
    let s = &v.subject;
    let opt = |o: &Option<String>| o.as_deref().map(text).unwrap_or_default();
    [
        outcome.as_str().unwrap_or_default().to_string(),
        text(&v.rule),
        kind.to_string(),
        text(&v.origin.to_string()),
        opt(&s.bench),
        opt(&s.gpu),
        opt(&s.node),
        figure(v.measured),
        figure(v.bound),
        figure(v.margin),
        text(&v.unit),
        text(&v.note),
    ]
    .join(",")
}

/// The verdicts as CSV.
pub fn render(evaluation: &Evaluation) -> String {
    std::iter::once(HEADER.to_string()).chain(evaluation.verdicts.iter().map(line)).collect::<Vec<_>>().join("\n")
        + "\n"
}
