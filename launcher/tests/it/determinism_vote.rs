//! The vote over deterministic runs' fingerprints, end to end: report files
//! with a `determinism` block, written as `mlb worker` writes them, read by
//! the real `mlb report` (its *Reproducibility* section in every format)
//! and `mlb accept` (the `identical` rule and its exit status).

use crate::accept::{accept, rules, stdout};
use crate::common::records::{deterministic_record, file_name, Run};
use mlb_record::contract::record::write_atomic;
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};

/// One instance of the deterministic `spin` config: run `run` on slot
/// `vcd` of `host`, its parameters hashing to `prints` (a letter per
/// fingerprint, every 10 steps from step 10).
struct Instance<'a> {
    run: u64,
    host: &'a str,
    vcd: &'a str,
    prints: &'a str,
}

impl Instance<'_> {
    fn write(&self, dir: &Path) {
        let r = Run { suite: "fast", bench: "spin", run: self.run, vcd: self.vcd, items_per_sec: 100.0, gpu: None };
        let report = deterministic_record(&r, self.host, self.prints);
        let folder = dir.join(self.host.replace(['/', '<', '>', ','], "_"));
        std::fs::create_dir_all(&folder).unwrap();
        write_atomic(&folder, &file_name(&r), &report).unwrap();
    }
}

/// Four instances on two nodes, five fingerprints each; slot 1 of `odd`
/// leaves the others at step 30 when `outlier`.
fn four(dir: &Path, odd: &str, outlier: bool) {
    for (host, vcd) in [("n1", "0"), ("n1", "1"), (odd, "0"), (odd, "1")] {
        let prints = if outlier && host == odd && vcd == "1" { "aabbb" } else { "aaaaa" };
        Instance { run: 0, host, vcd, prints }.write(dir);
    }
}

fn report(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mlb")).arg("report").args(args).output().unwrap()
}

fn ok(out: Output) -> String {
    assert!(out.status.success(), "mlb failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

const OUTLIER: &str = "run 0 node n2 vcd 1 differs from step 30; the other 3 of 4 agree over 50 steps";

#[test]
fn the_report_names_the_outlier_and_its_step_in_every_format() {
    let dir = tempfile::tempdir().unwrap();
    four(dir.path(), "n2", true);
    let d = s(dir.path());
    let text = ok(report(&["--reports", d]));
    assert!(text.contains("Reproducibility"), "{text}");
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(flat.contains(OUTLIER), "{text}");
    assert!(flat.contains("each is a suspect device"), "{text}");
    let json: Value = serde_json::from_str(&ok(report(&["--reports", d, "--format", "json"]))).unwrap();
    let group = &json["reproducibility"][0];
    assert_eq!((group["verdict"].as_str(), group["config"].as_str()), (Some("outliers"), Some("spin")), "{json:#}");
    assert_eq!(group["outliers"][0]["step"], 30);
    assert_eq!(group["outliers"][0]["instance"]["node"], "n2");
    assert_eq!((group["nodes"].as_u64(), group["last_step"].as_u64()), (Some(2), Some(50)));
    let csv = ok(report(&["--reports", d, "--format", "csv"]));
    let mut lines = csv.lines();
    assert!(lines.next().unwrap().contains(",reproducibility,reproducibility_detail"), "{csv}");
    assert!(lines.next().unwrap().ends_with(&format!(",outliers,Xeon: {OUTLIER}")), "{csv}");
    let md = ok(report(&["--reports", d, "--format", "markdown"]));
    assert!(md.contains("| spin ") && md.contains("outliers"), "{md}");

    // Without a determinism block, no section, no column, no key.
    let plain = tempfile::tempdir().unwrap();
    crate::common::records::write_report(
        plain.path(),
        &Run { suite: "fast", bench: "spin", run: 0, vcd: "0", items_per_sec: 1.0, gpu: None },
    );
    let p = s(plain.path());
    assert!(!ok(report(&["--reports", p])).contains("Reproducibility"));
    assert!(!ok(report(&["--reports", p, "--format", "csv"])).contains("reproducibility"));
    assert!(!ok(report(&["--reports", p, "--format", "json"])).contains("\"reproducibility\""));
}

#[test]
fn two_that_differ_are_not_reproducible_and_the_step_is_named() {
    let dir = tempfile::tempdir().unwrap();
    Instance { run: 0, host: "n1", vcd: "0", prints: "aab" }.write(dir.path());
    Instance { run: 0, host: "n1", vcd: "1", prints: "aac" }.write(dir.path());
    let text = ok(report(&["--reports", s(dir.path()), "--rows", "bench"]));
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(flat.contains("not reproducible on this stack"), "{text}");
    assert!(flat.contains("2 instances first differ at step 30"), "{text}");
    assert!(flat.contains("nobody can say which one is wrong"), "{text}");
    assert!(flat.contains("not a failed GPU"), "{text}");
}

#[test]
fn names_are_escaped_in_html_and_quoted_in_csv() {
    let dir = tempfile::tempdir().unwrap();
    four(dir.path(), "n2,<b>x</b>", true);
    let d = s(dir.path());
    let html_file = dir.path().join("page").join("r.html");
    std::fs::create_dir_all(html_file.parent().unwrap()).unwrap();
    ok(report(&["--reports", d, "--format", "html", "--output", s(&html_file)]));
    let page = std::fs::read_to_string(&html_file).unwrap();
    assert!(page.contains("node n2,&lt;b&gt;x&lt;/b&gt; vcd 1"), "the name escaped");
    assert!(!page.contains("<b>x</b>"), "no markup from a host name");
    let csv = ok(report(&["--reports", d, "--format", "csv"]));
    let row = csv.lines().nth(1).unwrap();
    assert!(row.contains("\"Xeon: run 0 node n2,<b>x</b> vcd 1 differs from step 30;"), "{row}");
}

#[test]
fn accept_identical_fails_on_the_outlier_and_passes_when_bit_identical() {
    let etc = tempfile::tempdir().unwrap();
    let r = rules(etc.path(), "rules:\n  - kind: identical\n");
    let bad = tempfile::tempdir().unwrap();
    four(bad.path(), "n2", true);
    let out = accept(&["--reports", s(bad.path()), "--rules", s(&r)]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(flat.contains(&format!("FAIL identical#1 on spin: Xeon: {OUTLIER}")), "{text}");

    let good = tempfile::tempdir().unwrap();
    four(good.path(), "n2", false);
    let out = accept(&["--reports", s(good.path()), "--rules", s(&r)]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{text}");
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(flat.contains("4 instances on 2 nodes, bit-identical over 50 steps"), "{text}");
    let json: Value =
        serde_json::from_slice(&accept(&["--reports", s(good.path()), "--rules", s(&r), "--format", "json"]).stdout)
            .unwrap();
    let verdict = &json["verdicts"][0];
    assert_eq!((verdict["kind"].as_str(), verdict["outcome"].as_str()), (Some("identical"), Some("pass")), "{json:#}");

    // Reports without fingerprints: the rule cannot hold, and says how to get them.
    let plain = tempfile::tempdir().unwrap();
    crate::common::records::write_report(
        plain.path(),
        &Run { suite: "fast", bench: "spin", run: 0, vcd: "0", items_per_sec: 1.0, gpu: None },
    );
    let out = accept(&["--reports", s(plain.path()), "--rules", s(&r)]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stdout(&out).contains("no deterministic report: run the config with `deterministic: true`"),
        "{}",
        stdout(&out)
    );
}
