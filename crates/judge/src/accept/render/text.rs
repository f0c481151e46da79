//! The terminal view: a header, one line per verdict (failed first) within
//! 100 columns, a second line with the rule's place and note for each
//! verdict that did not pass, and the summary. A rule or a subject is never
//! cut (two nodes cut to the same letters would look the same): its column
//! widens to the longest, past 100 columns if need be.

use super::super::verdict::{Evaluation, Outcome, Verdict};
use super::{number, summary};
use mlb_record::untrusted::visible;

/// The widest line of the view.
pub const WIDTH: usize = 100;

/// Columns: outcome, rule, subject, measured, bound, margin, unit, and
/// their widths (the least, for the rule and the subject).
const COLUMNS: [(&str, usize); 7] =
    [("outcome", 12), ("rule", 14), ("subject", 30), ("measured", 9), ("bound", 9), ("margin", 9), ("unit", 7)];

/// The columns of names, never cut: the rule and the subject.
const NAMES: [usize; 2] = [1, 2];

/// The view of `evaluation`, of reports folder `reports`.
pub fn render(evaluation: &Evaluation, reports: &std::path::Path) -> String {
    let rows: Vec<[String; 7]> = evaluation.verdicts.iter().map(cells).collect();
    let mut widths = COLUMNS.map(|(_, width)| width);
    for column in NAMES {
        let longest = rows.iter().map(|cells| cells[column].chars().count()).max().unwrap_or(0);
        widths[column] = widths[column].max(longest);
    }
    let mut lines = vec![
        fit(&format!("mlb accept: {}", reports.display())),
        fit(&format!("rules: {}; targets: {}", evaluation.rules, evaluation.targets.as_deref().unwrap_or("none"))),
        String::new(),
        row(&COLUMNS.map(|(name, _)| name.to_string()), &widths),
    ];
    for (v, cells) in evaluation.verdicts.iter().zip(&rows) {
        lines.push(row(cells, &widths));
        if v.outcome != Outcome::Pass {
            lines.push(fit(&format!("  at {}: {}", v.origin, visible(&v.note))));
        }
    }
    lines.push(String::new());
    lines.push(fit(&summary(evaluation)));
    lines.join("\n") + "\n"
}

fn cells(v: &Verdict) -> [String; 7] {
    [
        v.outcome.to_string(),
        visible(&v.rule).into_owned(),
        visible(&v.subject.to_string()).into_owned(),
        number(v.measured, false),
        number(v.bound, false),
        number(v.margin, true),
        v.unit.clone(),
    ]
}

/// One line of cells, each cut or padded to its column's `widths`;
/// figures right-aligned.
fn row(cells: &[String; 7], widths: &[usize; 7]) -> String {
    let parts: Vec<String> = cells
        .iter()
        .zip(widths)
        .enumerate()
        .map(|(i, (cell, &width))| {
            let cell = cut(cell, width);
            if (3..6).contains(&i) {
                format!("{cell:>width$}")
            } else {
                format!("{cell:<width$}")
            }
        })
        .collect();
    parts.join(" ").trim_end().to_string()
}

/// `text` cut to [`WIDTH`] characters.
fn fit(text: &str) -> String {
    cut(text, WIDTH)
}

/// `text` cut to `width` characters, the last one `…` when cut.
fn cut(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        return text.to_string();
    }
    let mut out: String = text.chars().take(width - 1).collect();
    out.push('…');
    out
}
