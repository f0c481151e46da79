//! The top-level command line: the launcher without a subcommand, the
//! subcommands beside it, and the error edge every one of them ends through
//! (exit statuses, the exact text of errors on a piped stderr, colour).

use crate::common;

use std::path::Path;
use std::process::{Command, Output};

/// `mlb ARGS` (the binary at `mlb`) with stderr piped and none of the
/// variables that change how errors look.
fn plain(mlb: &Path, args: &[&str]) -> Output {
    Command::new(mlb)
        .args(args)
        .env_remove("NO_COLOR")
        .env_remove("CLICOLOR")
        .env_remove("CLICOLOR_FORCE")
        .env_remove("FORCE_COLOR")
        .env_remove("RUST_BACKTRACE")
        .env_remove("RUST_LIB_BACKTRACE")
        .env_remove("MLB_BACKTRACE")
        .env_remove("MLB_PLUGIN_PATH")
        .output()
        .expect("mlb runs")
}

/// Asserts a refusal: exit status 2, nothing on stdout, exactly `stderr`.
fn assert_refused(out: &Output, stderr: &str) {
    let (got_out, got_err) = common::text(out);
    assert_eq!(got_err, stderr);
    assert_eq!(out.status.code(), Some(2), "{got_err}");
    assert!(got_out.is_empty(), "{got_out}");
    assert!(!got_err.contains('\x1b'), "no escape bytes on a pipe: {got_err:?}");
}

#[test]
fn nothing_to_do_is_explained() {
    let out = plain(&common::mlb(), &[]);
    assert_refused(
        &out,
        "mlb: error: nothing to do: give --jobs FILE to run a jobs file, or a subcommand (see mlb --help)\n",
    );
}

#[test]
fn plugin_dir_still_works_before_a_subcommand() {
    let spin = common::spin_dir();
    let out = common::run(&["--plugin-dir", spin.path().to_str().unwrap(), "plugins", "list", "--format", "json"]);
    let (stdout, stderr) = common::text(&out);
    assert!(out.status.success(), "{stderr}");
    let v: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert!(v.as_array().unwrap().iter().any(|e| e["name"] == "spin" && e["status"] == "ok"), "{stdout}");
}

#[test]
fn a_missing_jobs_file_is_one_line_with_its_cause_once() {
    let out = plain(&common::mlb(), &["--jobs", "/nonexistent/jobs.json"]);
    assert_refused(
        &out,
        "mlb: error: cannot read jobs file /nonexistent/jobs.json: No such file or directory (os error 2)\n",
    );
}

#[test]
fn a_malformed_jobs_file_names_line_and_column_then_the_fix() {
    let dir = tempfile::tempdir().unwrap();
    let jobs = common::write(dir.path(), "bad.json", "[{\"name\": }]\n");
    let out = plain(&common::mlb(), &["--jobs", jobs.to_str().unwrap(), "--dry-run"]);
    assert_refused(
        &out,
        &format!(
            "mlb: error: {}:1:11: expected value\n  \
             fix: a jobs file is a JSON list of {{name, cmd|plugin, args, cgroup}} objects\n",
            jobs.display()
        ),
    );
}

#[test]
fn a_missing_reports_folder_is_refused() {
    let out = plain(&common::mlb(), &["report", "--reports", "/nonexistent"]);
    assert_refused(
        &out,
        "mlb: error: cannot read the reports folder /nonexistent: No such file or directory (os error 2)\n  \
         fix: pass the output folder of a run with --reports DIR\n",
    );
}

#[test]
fn a_missing_plugin_is_refused_before_anything_starts() {
    let (dir, mlb) = common::lone_mlb();
    let jobs = common::write(dir.path(), "p.json", r#"[{"name": "x", "plugin": "nope", "cgroup": "student"}]"#);
    let out = plain(&mlb, &["--jobs", jobs.to_str().unwrap(), "--devices", "1", "--outdir", "/nonexistent/out"]);
    assert_refused(
        &out,
        &format!(
            "mlb: error: {}: job #1 `x`: no plugin named `nope`; plugins found: none\n  \
             fix: build or install it, or add its folder with --plugin-dir\n",
            jobs.display()
        ),
    );
}

#[test]
fn usage_errors_stay_with_clap_and_exit_2() {
    let out = plain(&common::mlb(), &["--bogus"]);
    let (_, stderr) = common::text(&out);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr.starts_with("error: unexpected argument '--bogus' found"), "{stderr}");
}

#[test]
fn a_report_that_cannot_be_written_fails_with_1() {
    let dir = tempfile::tempdir().unwrap();
    let run = common::records::Run { suite: "s", bench: "b", run: 0, vcd: "0", items_per_sec: 100.0, gpu: None };
    common::records::write_report(dir.path(), &run);
    let html = dir.path().join("missing/report.html");
    let out =
        plain(&common::mlb(), &["report", "--reports", dir.path().to_str().unwrap(), "--html", html.to_str().unwrap()]);
    let (stdout, stderr) = common::text(&out);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stdout.is_empty(), "{stdout}");
    assert_eq!(
        stderr,
        format!(
            "mlb: note: --html is deprecated, use --format html --output FILE; the old spelling goes in the next \
             release\nmlb: error: cannot write the HTML report {}: No such file or directory (os error 2)\n",
            html.display()
        )
    );
}

/// `RUST_BACKTRACE`, which many machines set for every program, leaves an
/// expected error its plain block; `MLB_BACKTRACE` adds where it arose and
/// a backtrace.
#[test]
fn only_mlb_backtrace_adds_where_the_error_arose_and_a_backtrace() {
    let refused = |var: &str| {
        let out = Command::new(common::mlb())
            .args(["--jobs", "/nonexistent/jobs.json"])
            .env_remove("NO_COLOR")
            .env_remove("RUST_BACKTRACE")
            .env_remove("MLB_BACKTRACE")
            .env(var, "1")
            .output()
            .unwrap();
        let (_, stderr) = common::text(&out);
        assert_eq!(out.status.code(), Some(2));
        assert!(stderr.starts_with("mlb: error: cannot read jobs file /nonexistent/jobs.json: "), "{stderr}");
        assert!(!stderr.contains('\x1b'), "{stderr}");
        stderr
    };
    let plain = refused("RUST_BACKTRACE");
    assert!(!plain.contains("location:") && !plain.contains("backtrace"), "{plain}");
    assert_eq!(plain.lines().count(), 1, "the message alone: {plain}");
    let debug = refused("MLB_BACKTRACE");
    assert!(debug.contains("\n  location: launcher/src/main.rs:") && debug.contains("\n  backtrace:\n"), "{debug}");
}

/// `mlb ARGS` on a pseudo-terminal (util-linux `script`), with `env` set:
/// what the terminal shows.
fn on_a_terminal(args: &[&str], env: &[(&str, &str)]) -> String {
    let line: Vec<String> =
        std::iter::once(common::mlb().display().to_string()).chain(args.iter().map(|a| a.to_string())).collect();
    let mut cmd = Command::new("script");
    cmd.args(["-qefc", &line.join(" "), "/dev/null"]).env_remove("NO_COLOR").env_remove("RUST_BACKTRACE");
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("script (util-linux) runs");
    common::text(&out).0
}

#[test]
fn a_terminal_gets_colour_unless_no_color_is_set() {
    let args = ["--jobs", "/nonexistent/jobs.json"];
    let coloured = on_a_terminal(&args, &[]);
    assert!(coloured.contains("\x1b[1;31mmlb: error:\x1b[0m cannot read jobs file"), "{coloured:?}");
    let plain = on_a_terminal(&args, &[("NO_COLOR", "1")]);
    assert!(plain.starts_with("mlb: error: cannot read jobs file") && !plain.contains('\x1b'), "{plain:?}");
    let empty = on_a_terminal(&args, &[("NO_COLOR", "")]);
    assert!(empty.contains('\x1b'), "an empty NO_COLOR does not count: {empty:?}");
}
