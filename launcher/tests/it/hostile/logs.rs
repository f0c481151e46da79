//! Instance logs (`<outdir>/logs/`): every config of a list-valued job, and
//! every run into one output folder, keeps its own log; the failure record
//! names the log of its own instance; duplicate job names are refused.

use crate::common::write;
use crate::hostile::scene::Scene;
use serde_json::Value;
use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;

/// A command that prints its arguments and fails when one of them is `bad`.
fn say(scene: &Scene) -> PathBuf {
    let script = write(scene.dir(), "say.sh", "#!/bin/sh\necho \"said: $*\"\ncase \"$*\" in *bad*) exit 3;; esac\n");
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    script
}

/// The failure records in the output folder.
fn records(scene: &Scene) -> Vec<Value> {
    scene.reports().into_iter().filter(|(name, _)| name.contains(".FAIL.")).map(|(_, r)| r).collect()
}

/// The text of the log a record names.
fn log_of(record: &Value) -> String {
    let path = record["log"].as_str().unwrap_or_else(|| panic!("the record names its log: {record}"));
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("the log {path} of {record}: {e}"))
}

#[test]
fn each_config_of_a_list_job_keeps_its_own_log() {
    let scene = Scene::new("logcfg");
    let jobs = scene.jobs(&format!(
        r#"[{{"name": "c", "cmd": "{}", "args": {{"--v": ["good", "bad"]}}, "cgroup": "student"}}]"#,
        say(&scene).display()
    ));
    let ran = scene.run(&jobs, &[]);
    assert_eq!(ran.code, Some(1), "{}\n{}", ran.stdout, ran.stderr);
    let logs = scene.logs();
    assert_eq!(logs.len(), 2, "one log per config: {logs:?}");
    let texts: Vec<&str> = logs.iter().map(|(_, t)| t.as_str()).collect();
    assert!(texts.iter().any(|t| t.starts_with("said: --v good ")), "{logs:?}");
    assert!(texts.iter().any(|t| t.starts_with("said: --v bad ")), "the failed config's log survives: {logs:?}");
    let failed = records(&scene);
    assert_eq!(failed.len(), 1, "{failed:?}");
    assert!(log_of(&failed[0]).starts_with("said: --v bad "), "the record names its own config's log");
}

#[test]
fn a_second_run_into_the_same_folder_keeps_the_first_runs_logs() {
    let scene = Scene::new("logrun");
    let jobs = scene.jobs(&format!(
        r#"[{{"name": "c", "cmd": "{}", "args": {{"--v": "bad", "--tag": "$LOG_TAG"}}, "cgroup": "student"}}]"#,
        say(&scene).display()
    ));
    for tag in ["first", "second"] {
        let out = scene.command(&jobs, &[]).env("LOG_TAG", tag).output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{out:?}");
    }
    let logs = scene.logs();
    assert_eq!(logs.len(), 2, "one log per run: {logs:?}");
    for tag in ["first", "second"] {
        assert_eq!(logs.iter().filter(|(_, t)| t.contains(&format!("--tag {tag} "))).count(), 1, "{tag}: {logs:?}");
    }
    let failed = records(&scene);
    assert_eq!(failed.len(), 2, "{failed:?}");
    let mut seen: Vec<String> = failed.iter().map(log_of).collect();
    seen.sort();
    assert!(
        seen[0].contains("--tag first ") && seen[1].contains("--tag second "),
        "each record its run's log: {seen:?}"
    );
}

#[test]
fn duplicate_job_names_are_refused_naming_both_positions() {
    let scene = Scene::new("logdup");
    let jobs = scene.jobs(
        r#"[{"name": "a", "cmd": "/bin/true"}, {"name": "b", "cmd": "/bin/true"},
            {"name": "a", "cmd": "/bin/false"}]"#,
    );
    let ran = scene.run(&jobs, &[]);
    ran.refused(&[&jobs.display().to_string(), "job #3 `a`", "job #1", "fix: rename"]);
    scene.nothing_started();
    let ran = scene.run(&jobs, &["--dry-run", "--name", "b"]);
    ran.refused(&["job #3 `a`", "job #1"]);
}
