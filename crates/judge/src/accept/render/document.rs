//! The verdicts as the presentation layer's [`Document`]: what was judged
//! (the reports, the rules, the target table), a table of the verdicts
//! (failed first) with their outcome marked, a note for each verdict that
//! did not pass (its rule's place and why), what the passes of the kinds
//! that state something established (`identical`), and the summary. The text,
//! Markdown and HTML views are this document; a name is never cut in any
//! of them (two nodes cut to the same letters would look the same).

use super::super::verdict::{Evaluation, Outcome, Verdict};
use super::{number, summary};
use mlb_present::{Body, Cell, Document, Mark};
use std::path::Path;

/// The verdict table's columns. The subject names the row: a table cut
/// into parts repeats it, a row laid out as a block is headed by it; the
/// outcome comes next, in sight beside it on a narrow page.
const COLUMNS: [&str; 7] = ["subject", "outcome", "rule", "measured", "bound", "margin", "unit"];

/// How an outcome stands out: a pass, a failure, and a figure that was not
/// measured (no pass either) as worth a look.
fn mark(outcome: Outcome) -> Mark {
    match outcome {
        Outcome::Pass => Mark::Pass,
        Outcome::Fail => Mark::Fail,
        Outcome::NotMeasured => Mark::Warn,
    }
}

fn row(v: &Verdict) -> Vec<Cell> {
    vec![
        v.subject.to_string().into(),
        Cell::marked(v.outcome.to_string(), mark(v.outcome)),
        v.rule.as_str().into(),
        number(v.measured, false).into(),
        number(v.bound, false).into(),
        number(v.margin, true).into(),
        v.unit.as_str().into(),
    ]
}

/// The note of a verdict that did not pass: which one, why, and where its
/// rule was written.
fn note(v: &Verdict) -> String {
    format!("{} {} on {}: {} (rule at {})", v.outcome, v.rule, v.subject, v.note, v.origin)
}

/// The verdicts of `evaluation` on the reports folder `reports`, titled
/// `mlb accept: REPORTS`.
pub fn document(evaluation: &Evaluation, reports: &Path) -> Document {
    let mut doc = Document::new(format!("mlb accept: {}", reports.display()));
    doc.push(
        "Acceptance",
        Body::Pairs(vec![
            ("reports".into(), reports.display().to_string().into()),
            ("rules".into(), evaluation.rules.as_str().into()),
            ("targets".into(), evaluation.targets.as_deref().unwrap_or("none").into()),
        ]),
    );
    doc.push("Verdicts", Body::table(COLUMNS, evaluation.verdicts.iter().map(row).collect()));
    let notes: Vec<String> = evaluation.verdicts.iter().filter(|v| v.outcome != Outcome::Pass).map(note).collect();
    if !notes.is_empty() {
        doc.push("Not passed", Body::Notes(notes));
    }
    let stated: Vec<String> = evaluation
        .verdicts
        .iter()
        .filter(|v| v.outcome == Outcome::Pass && v.kind.states())
        .map(|v| format!("{} on {}: {}", v.rule, v.subject, v.note))
        .collect();
    if !stated.is_empty() {
        doc.push("Established", Body::Notes(stated));
    }
    let outcome = if evaluation.passed() { Mark::Pass } else { Mark::Fail };
    doc.push("Summary", Body::Pairs(vec![("outcome".into(), Cell::marked(summary(evaluation), outcome))]));
    doc
}

#[cfg(test)]
mod tests {
    use super::super::super::verdict::{Kind, Origin, Subject};
    use super::*;
    use mlb_present::{text, Width};

    const LONG_NODE: &str = "gpu-node-in-rack-twelve-of-the-second-hall.cluster.example.org";

    fn verdict(outcome: Outcome, gpu: usize, node: &str) -> Verdict {
        Verdict {
            rule: "every-gpu-within-ten-percent-of-the-best".into(),
            kind: Kind::PerGpu,
            origin: Origin::File { path: "rules.yaml".into(), line: 2, column: 5 },
            subject: Subject {
                bench: Some("convnet[arch=resnet18]".into()),
                gpu: Some(gpu.to_string()),
                node: Some(node.into()),
            },
            measured: Some(0.7075),
            bound: Some(0.9),
            margin: Some(-0.1925),
            unit: "ratio".into(),
            outcome,
            note: "mean of the best GPU's, 3 runs".into(),
        }
    }

    fn evaluation() -> Evaluation {
        let mut verdicts = vec![verdict(Outcome::Fail, 3, LONG_NODE), verdict(Outcome::NotMeasured, 0, "n2")];
        verdicts.extend((0..8).map(|gpu| verdict(Outcome::Pass, gpu, LONG_NODE)));
        Evaluation { verdicts, inputs: Vec::new(), targets: Some("built-in V100".into()), rules: "rules.yaml".into() }
    }

    #[test]
    fn the_document_holds_what_was_judged_the_verdicts_marked_the_notes_and_the_summary() {
        let doc = document(&evaluation(), Path::new("run"));
        assert_eq!(doc.title, "mlb accept: run");
        let titles: Vec<&str> = doc.sections.iter().map(|s| s.title.as_str()).collect();
        assert_eq!(titles, ["Acceptance", "Verdicts", "Not passed", "Summary"]);
        let Body::Table(table) = &doc.sections[1].body else { panic!("a table of verdicts") };
        assert_eq!(table.rows.len(), 10);
        let marks: Vec<Option<Mark>> = table.rows.iter().take(3).map(|r| r[1].mark).collect();
        assert_eq!(marks, [Some(Mark::Fail), Some(Mark::Warn), Some(Mark::Pass)]);
        assert_eq!(table.rows[0][5].text, "-0.1925");
        let Body::Notes(notes) = &doc.sections[2].body else { panic!("notes") };
        assert_eq!(notes.len(), 2, "one note per verdict that did not pass: {notes:?}");
        assert!(notes[0].starts_with("FAIL every-gpu") && notes[0].ends_with("(rule at rules.yaml:2:5)"));
        let passed = Evaluation { verdicts: vec![verdict(Outcome::Pass, 0, "n1")], ..evaluation() };
        let doc = document(&passed, Path::new("run"));
        assert!(doc.sections.iter().all(|s| s.title != "Not passed"), "no notes when all passed");
        assert!(doc.sections.iter().all(|s| s.title != "Established"), "a per_gpu pass states nothing");
        let identical = Verdict {
            rule: "identical#1".into(),
            kind: Kind::Identical,
            subject: Subject { bench: Some("spin".into()), ..Subject::default() },
            note: "H100: 8 instances on 2 nodes, bit-identical over 100 steps".into(),
            ..verdict(Outcome::Pass, 0, "n1")
        };
        let doc = document(&Evaluation { verdicts: vec![identical], ..evaluation() }, Path::new("run"));
        let established = doc.sections.iter().find(|s| s.title == "Established").expect("what the vote established");
        let Body::Notes(lines) = &established.body else { panic!("notes") };
        assert_eq!(lines, &["identical#1 on spin: H100: 8 instances on 2 nodes, bit-identical over 100 steps"]);
    }

    #[test]
    fn the_text_fits_the_width_and_never_cuts_a_node_name() {
        let doc = document(&evaluation(), Path::new("run"));
        for columns in [80, 100, 160] {
            let text = text::render(&doc, Width::of(columns));
            for line in text.lines() {
                assert!(line.chars().count() <= columns, "{columns} columns: {line:?} in\n{text}");
            }
            let words: Vec<&str> = text.split_whitespace().collect();
            for name in [LONG_NODE, "every-gpu-within-ten-percent-of-the-best", "convnet[arch=resnet18]"] {
                assert!(words.contains(&name), "{name} whole at {columns} columns:\n{text}");
            }
            assert!(!text.contains('…'), "{text}");
            assert!(text.contains("FAIL: 1 failed, 1 not measured (no pass), 8 passed"), "{text}");
        }
    }
}
