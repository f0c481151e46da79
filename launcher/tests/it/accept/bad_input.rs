//! Refused input: exit status 2, one plain message naming the file, line
//! and column and the fix, nothing written.

use super::{accept, rules, slots, stderr};
use std::path::Path;

fn refused(run: &Path, rules_text: &str) -> String {
    let etc = tempfile::tempdir().unwrap();
    let r = rules(etc.path(), rules_text);
    let out_file = etc.path().join("verdicts.txt");
    let out = accept(&[
        "--reports",
        run.to_str().unwrap(),
        "--rules",
        r.to_str().unwrap(),
        "--output",
        out_file.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(out.stdout.is_empty() && !out_file.exists(), "nothing written");
    let text = stderr(&out);
    assert!(text.starts_with("mlb: error: "), "{text}");
    assert!(text.contains("  fix: "), "{text}");
    assert_eq!(text.matches("mlb: error:").count(), 1, "{text}");
    text.replace(r.to_str().unwrap(), "RULES")
}

#[test]
fn bad_rules_files_are_refused_with_file_line_and_column() {
    let run = tempfile::tempdir().unwrap();
    slots(run.path(), "convnet", "n1", &[100.0, 100.0]);
    let syntax = refused(run.path(), "rules:\n  - kind: per_gpu\n    min: [0.9\n");
    assert!(syntax.contains("mlb: error: RULES:"), "{syntax}");
    let kind = refused(run.path(), "rules:\n  - kind: per_gpu\n    min: 0.9\n  - kind: fastest\n");
    assert!(kind.contains("RULES:4:11: unknown rule kind `fastest`") && kind.contains("fix: use one of"), "{kind}");
    let number = refused(run.path(), "rules:\n  - kind: per_gpu\n    min: ninety\n");
    assert!(
        number.contains("RULES:3:10: the bound `ninety` is not a number")
            && number.contains("fix: write the bound as a number"),
        "{number}"
    );
    let bench = refused(run.path(), "rules:\n  - kind: per_gpu\n    bench: convnte\n    min: 0.9\n");
    assert!(bench.contains("RULES:3:12: rule `per_gpu#1` names no known bench: `convnte`"), "{bench}");
    assert!(bench.contains("convnet"), "the fix names the benches: {bench}");
}

#[test]
fn unreadable_folders_and_rules_files_are_refused() {
    let out = accept(&["--reports", "/nonexistent/run"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("cannot read the reports folder /nonexistent/run"), "{}", stderr(&out));
    let run = tempfile::tempdir().unwrap();
    slots(run.path(), "convnet", "n1", &[100.0]);
    let out = accept(&["--reports", run.path().to_str().unwrap(), "--rules", "/nonexistent/rules.yaml"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("cannot read the rules file /nonexistent/rules.yaml"), "{}", stderr(&out));
}

#[test]
fn unknown_fields_and_broken_yaml_name_their_place_once() {
    let run = tempfile::tempdir().unwrap();
    slots(run.path(), "convnet", "n1", &[100.0, 100.0]);
    let field = refused(run.path(), "rules:\n  - kind: per_gpu\n    min: 0.9\n    bogus: 1\n");
    assert!(field.starts_with("mlb: error: RULES:4:5: unknown field `bogus`"), "{field}");
    assert!(!field.contains("line 4 column 5"), "the place is said once: {field}");
    let indent = refused(run.path(), "rules:\n  - kind: per_gpu\n   min: 0.9\n");
    assert!(indent.starts_with("mlb: error: RULES:3:4: "), "{indent}");
}
