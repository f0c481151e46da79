//! Renderings of an [`Evaluation`]: its [`document`] for the presentation
//! layer's text (fitted to a width), Markdown and HTML page ([`html`]), and
//! JSON and CSV with every figure at full precision. Each lists the
//! verdicts in the evaluation's order (failed first).

pub mod csv;
mod document;
pub mod html;

pub use document::document;

use super::verdict::{Evaluation, Outcome};

/// The evaluation as pretty JSON.
pub fn json(evaluation: &Evaluation) -> String {
    serde_json::to_string_pretty(evaluation).expect("an evaluation serialises") + "\n"
}

/// One line on the whole: `FAIL: 2 failed, 1 not measured, 30 passed`, or
/// `PASS: all 33 verdicts passed`.
pub fn summary(evaluation: &Evaluation) -> String {
    let (fail, missing, pass) =
        (evaluation.count(Outcome::Fail), evaluation.count(Outcome::NotMeasured), evaluation.count(Outcome::Pass));
    if evaluation.passed() {
        format!("PASS: all {pass} verdicts passed")
    } else {
        format!("FAIL: {fail} failed, {missing} not measured (no pass), {pass} passed")
    }
}

/// A figure in a few significant digits (`-` for none); a margin with its sign.
pub fn number(v: Option<f64>, signed: bool) -> String {
    let Some(v) = v else { return "-".into() };
    let text = if v.abs() >= 1000.0 {
        format!("{v:.0}")
    } else {
        let t = format!("{v:.4}");
        t.trim_end_matches('0').trim_end_matches('.').to_string()
    };
    if signed && v >= 0.0 {
        format!("+{text}")
    } else {
        text
    }
}
