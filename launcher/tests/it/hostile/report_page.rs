//! `mlb report --html PAGE` over a previous page: it once opened the page
//! with truncation and wrote it in place, so a SIGTERM or Ctrl-C during the
//! write, or a write that failed half-way, left a truncated or empty page
//! where a good one had been. The page is now written whole beside it and
//! renamed over it: the previous page stays whole until the new one is.

use crate::report_gen;
use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

/// A previous page, as an earlier `mlb report --html` left it.
const PREVIOUS: &str = "<html><body>the previous report</body></html>\n";

/// A reports folder of about `entries` entries in the original's shapes, and
/// a folder holding the previous page.
fn scene(entries: usize) -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let reports = dir.path().join("reports");
    report_gen::write_set(&reports, entries, 0, 30);
    let pages = dir.path().join("pages");
    std::fs::create_dir(&pages).unwrap();
    let page = pages.join("report.html");
    std::fs::write(&page, PREVIOUS).unwrap();
    (dir, reports, page)
}

fn report(reports: &Path, page: &Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_mlb"));
    cmd.args(["report", "--gpu-model", "V100", "--reports"]).arg(reports).arg("--html").arg(page);
    cmd.stdout(Stdio::null()).stderr(Stdio::piped());
    cmd
}

/// The names in the page's folder.
fn listing(folder: &Path) -> Vec<String> {
    let mut names: Vec<String> =
        std::fs::read_dir(folder).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    names
}

/// The page is the previous one or a whole new one, and nothing else is
/// left in its folder but `also`.
fn previous_or_whole(page: &Path, also: &[&str], when: &str) -> bool {
    let text = std::fs::read_to_string(page).unwrap();
    let mut want: Vec<String> = also.iter().map(|s| s.to_string()).chain(["report.html".to_string()]).collect();
    want.sort();
    assert_eq!(listing(page.parent().unwrap()), want, "{when}: no temporary file is left");
    if text == PREVIOUS {
        return false;
    }
    assert!(text.starts_with("<!DOCTYPE html>") && text.trim_end().ends_with("</html>"), "{when}: a whole page");
    true
}

#[test]
fn the_page_is_replaced_whole_never_written_in_place() {
    let (_dir, reports, page) = scene(300);
    // A second name of the previous page: a write in place would change it.
    let kept = page.with_file_name("kept.html");
    std::fs::hard_link(&page, &kept).unwrap();
    let out = report(&reports, &page).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(std::fs::read_to_string(&kept).unwrap(), PREVIOUS, "the previous page was not written over");
    assert!(previous_or_whole(&page, &["kept.html"], "after the run"), "the new page is in place");
    let mode = std::fs::metadata(&page).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o644, "a report is meant to be shared: {mode:o}");
}

#[test]
fn a_page_that_cannot_be_written_whole_leaves_the_previous_one() {
    // A file size limit of 4 blocks stops the write half-way (EFBIG, with
    // SIGXFSZ ignored), as a full disk would.
    let (_dir, reports, page) = scene(300);
    let mut cmd = Command::new("sh");
    cmd.arg("-c").arg("ulimit -f 4 && trap '' XFSZ && exec \"$@\"").arg("sh").arg(env!("CARGO_BIN_EXE_mlb"));
    cmd.args(["report", "--gpu-model", "V100", "--reports"]).arg(&reports).arg("--html").arg(&page);
    let out = cmd.output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("cannot write the HTML report") && stderr.contains("report.html"), "{stderr}");
    assert!(!previous_or_whole(&page, &[], "after a failed write"), "the previous page is left as it was");
}

#[test]
fn sigterm_or_ctrl_c_at_any_time_leaves_the_previous_page_or_the_new_one() {
    let (_dir, reports, page) = scene(6_000);
    let started = Instant::now();
    let out = report(&reports, &page).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let whole = started.elapsed();
    let (mut replaced, mut interrupted) = (0, 0);
    // From early in the run to past its end (later runs may be slower on
    // a loaded machine: the sweep goes on until one ends before its signal).
    let signals = [Signal::SIGTERM, Signal::SIGINT].into_iter().cycle();
    for (k, signal) in (1..=64).zip(signals) {
        if k > 24 && replaced > 0 {
            break;
        }
        std::fs::write(&page, PREVIOUS).unwrap();
        let child = report(&reports, &page).spawn().unwrap();
        let delay = whole * k / 16;
        std::thread::sleep(delay);
        kill(Pid::from_raw(child.id() as i32), signal).ok();
        let out = child.wait_with_output().unwrap();
        let when = format!("{signal} after {delay:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        // Killed before the page is written (the default action), stopped
        // while it is written (130, saying so), or done before the signal.
        match (out.status.code(), out.status.signal()) {
            (Some(130), _) => {
                interrupted += 1;
                assert!(stderr.contains("interrupted") && stderr.contains("report.html"), "{when}: {stderr}");
            }
            (Some(0), _) | (None, Some(_)) => {}
            other => panic!("{when}: {other:?} {stderr}"),
        }
        replaced += usize::from(previous_or_whole(&page, &[], &when));
    }
    assert!(replaced > 0, "some runs ended before the signal: the sweep spans the whole run");
    eprintln!("{interrupted} runs stopped during the write, {replaced} replaced the page");
}
