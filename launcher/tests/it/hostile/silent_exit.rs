//! A worker that ends without announcing its report has failed, whatever its
//! exit status: a plugin whose `setup` calls `_exit(0)` (its manifest in
//! order, so nothing refuses it before it runs) once passed with no report
//! and no failure record. A real C plugin, through the real `mlb --jobs`.

use crate::common;
use crate::hostile::scene::Scene;
use crate::plugin_manifest::{c_manifest, c_plugin};

/// The `setup` of [`c_plugin`], and the one that leaves the process at once with status 0.
const SETUP: &str = "static int setup(void *i, const SetupInfo *info) { (void)i; (void)info; return 0; }";
const EXIT_IN_SETUP: &str =
    "void _exit(int); static int setup(void *i, const SetupInfo *info) { (void)i; (void)info; _exit(0); }";

#[test]
fn a_worker_that_exits_0_without_its_report_fails_with_a_record() {
    let scene = Scene::new("silent");
    let tables = [("c_silent", "exits 0 in setup")];
    let source = c_plugin(&tables, false, Some(&c_manifest(&tables)), "");
    assert!(source.contains(SETUP), "the stand-in's setup is as expected");
    common::c_library(scene.plugins(), "libc_silent.so", &source.replace(SETUP, EXIT_IN_SETUP));
    let jobs = scene.jobs(r#"[{"name": "quiet", "plugin": "c_silent", "args": {"skip": 0}}]"#);
    let ran = scene.run(&jobs, &[]);
    assert_eq!(ran.code, Some(1), "failed\nstdout: {}\nstderr: {}", ran.stdout, ran.stderr);
    assert!(ran.stdout.contains("FAILED") && !ran.stdout.contains("PASSED"), "{}", ran.stdout);
    let said = "the worker exited 0 without writing its report";
    assert!(ran.stderr.contains(said), "{}", ran.stderr);
    let records = scene.reports();
    assert_eq!(records.len(), 1, "one failure record: {records:?}");
    let (name, record) = &records[0];
    assert!(name.contains(".FAIL."), "{name}");
    assert_eq!(record["completed"], false);
    assert_eq!(record["failure"]["cause"], "exit", "{record}");
    assert!(record["failure"]["message"].as_str().unwrap().contains(said), "{record}");
}
