//! Jobs files and command lines that must be refused before anything starts:
//! workload numbers the plugin cannot take, jobs that expand to absurd
//! numbers of configs, out-of-range `--timeout`/`--runs`/`--pause`, control
//! characters in names. Each case runs the real `mlb`, checks the exit status
//! and the message, and that nothing started (no summary, log or report).

use crate::hostile::scene::Scene;
use std::time::{Duration, Instant};

/// A spin job with `args`.
fn spin_job(args: &str) -> String {
    format!(r#"[{{"name": "s", "plugin": "spin", "args": {args}, "cgroup": "student"}}]"#)
}

#[test]
fn workload_numbers_the_plugin_cannot_take_are_refused_before_start() {
    let scene = Scene::new("numbers");
    let cases: [(&str, &[&str]); 7] = [
        (r#"{"repeat": -5}"#, &["argument `repeat`", "-5", "a positive integer"]),
        (r#"{"number": 0}"#, &["argument `number`", "0", "a positive integer"]),
        (r#"{"size": -1}"#, &["argument `size`", "-1", "a non-negative integer"]),
        (r#"{"size": 1e30}"#, &["argument `size`", "1e+30", "a non-negative integer"]),
        (r#"{"--size": [8, 2.5]}"#, &["argument `--size`", "2.5", "a non-negative integer", "default 64"]),
        (r#"{"size": "big"}"#, &["argument `size`", "\"big\"", "a non-negative integer"]),
        (r#"{"repeat": 5}"#, &["repeat (5) must be greater than the default skip"]),
    ];
    for (args, parts) in cases {
        let jobs = scene.jobs(&spin_job(args));
        let mut want = vec![jobs.to_str().unwrap(), "job #1 `s`", "workload `spin`", "fix:"];
        want.extend(parts);
        scene.run(&jobs, &[]).refused(&want);
        scene.nothing_started();
        scene.run(&jobs, &["--dry-run"]).refused(&want);
    }
    // What the worker takes is taken: numbers as strings, a seed of its own.
    let jobs = scene.jobs(&spin_job(r#"{"repeat": "12", "number": 1, "size": [0, "4"], "skip": 2}"#));
    let ran = scene.run(&jobs, &["--dry-run"]);
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
}

/// A `cmd` job with `lists` list arguments of ten values each.
fn lists_job(lists: usize) -> String {
    let args: Vec<String> = (0..lists).map(|i| format!(r#""--a{i}": [0,1,2,3,4,5,6,7,8,9]"#)).collect();
    format!(r#"[{{"name": "x", "cmd": "/bin/true", "args": {{{}}}}}]"#, args.join(", "))
}

#[test]
fn a_job_of_too_many_configs_is_refused_before_it_is_expanded() {
    let scene = Scene::new("configs");
    let ten = scene.jobs(&lists_job(10));
    assert!(std::fs::metadata(&ten).unwrap().len() < 600, "a small file");
    let t0 = Instant::now();
    scene.run(&ten, &[]).refused(&["job #1 `x`", "10000000000 configs", "--max-configs 10000", "fix:"]);
    assert!(t0.elapsed() < Duration::from_secs(10), "counted, not expanded");
    scene.nothing_started();
    let twenty = scene.jobs(&lists_job(20));
    scene.run(&twenty, &["--dry-run"]).refused(&["job #1 `x`", "more than 18446744073709551615 configs"]);
    // The limit counts every selected job and can be raised.
    let three = scene.jobs(&lists_job(3));
    scene.run(&three, &["--dry-run", "--max-configs", "999"]).refused(&["1000 configs", "--max-configs 999"]);
    let ran = scene.run(&three, &["--dry-run", "--max-configs", "1000"]);
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    assert_eq!(ran.stdout.matches("(config ").count(), 1000);
    scene.run(&three, &["--dry-run", "--max-configs", "0"]).refused(&["--max-configs", "at least 1"]);
}

#[test]
fn out_of_range_timeout_runs_and_pause_are_usage_errors() {
    let scene = Scene::new("flags");
    let jobs = scene.jobs(r#"[{"name": "t", "cmd": "/bin/true", "cgroup": "student"}]"#);
    let cases: [(&[&str], &str); 11] = [
        (&["--timeout", "0"], "at least 1"),
        (&["--timeout", "-1"], "at least 1"),
        (&["--timeout", "NaN"], "at least 1"),
        (&["--timeout", "inf"], "at least 1"),
        (&["--timeout", "soon"], "at least 1"),
        (&["--runs", "0"], "at least 1"),
        (&["--runs", "-2"], "at least 1"),
        (&["--runs", "2", "--pause", "1e300"], "0 to 86400"),
        (&["--runs", "2", "--pause", "-1"], "0 to 86400"),
        (&["--runs", "2", "--pause", "NaN"], "0 to 86400"),
        (&["--runs", "2", "--pause", "inf"], "0 to 86400"),
    ];
    for (flags, accepted) in cases {
        let ran = scene.run(&jobs, flags);
        ran.refused(&[flags[flags.len() - 2], accepted]);
        assert!(!ran.stderr.contains("panicked"), "{flags:?}: {}", ran.stderr);
        scene.nothing_started();
    }
    let ran = scene.run(&jobs, &["--runs", "2", "--pause", "0", "--timeout", "30"]);
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
}

#[test]
fn control_characters_in_names_are_refused() {
    let scene = Scene::new("ctrl");
    for (name, shown) in
        [(r"a\nb", r"a\nb"), (r"nul\u0000", r"nul\0"), (r"tab\there", r"tab\there"), ("\\u007f", r"\u{7f}")]
    {
        let jobs =
            scene.jobs(&format!(r#"[{{"name": "ok", "cmd": "/bin/true"}}, {{"name": "{name}", "cmd": "/bin/true"}}]"#));
        let ran = scene.run(&jobs, &[]);
        ran.refused(&[jobs.to_str().unwrap(), &format!("job #2 `{shown}`"), "control character", "fix:"]);
        assert_eq!(ran.stderr.lines().filter(|l| l.contains("job #2")).count(), 1, "one line: {}", ran.stderr);
        scene.nothing_started();
    }
    // The suite is named after the file: a control character there is refused too.
    let jobs = crate::common::write(scene.dir(), "two\nlines.json", r#"[{"name": "ok", "cmd": "/bin/true"}]"#);
    let ran = scene.run(&jobs, &[]);
    ran.refused(&[r"two\nlines.json", "control character", "fix: rename the file"]);
    scene.nothing_started();
}

#[test]
fn a_value_with_a_newline_keeps_each_result_line_on_one_line() {
    let scene = Scene::new("label");
    let jobs =
        scene.jobs(r#"[{"name": "v", "cmd": "/bin/true", "args": {"--v": ["a\nb", "c"]}, "cgroup": "student"}]"#);
    let ran = scene.run(&jobs, &[]);
    assert_eq!(ran.code, Some(0), "{}", ran.stderr);
    let summary = std::fs::read_to_string(scene.out().join("summary.txt")).unwrap();
    let lines: Vec<&str> = summary.lines().collect();
    assert_eq!(lines.len(), 3, "two result lines and the total: {summary}");
    assert!(lines[0].ends_with(r"| v[v=a\nb]"), "{summary}");
}
