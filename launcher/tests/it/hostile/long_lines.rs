//! An instance printing one line of tens of MB: the launcher, which sits
//! outside the slot's memory limit, once held the whole line in memory (a
//! 300 MB line grew it by 300 MB). It keeps the first part of an over-long
//! line, marks the rest as dropped, and its memory stays bounded.

use crate::common::launcher::Launches;
use std::process::Stdio;

#[path = "../../../benches/common/rusage.rs"]
mod rusage;

/// Bytes of the one long line.
const LINE: usize = 160 << 20;

/// The most the launcher may hold at its peak (resident), bytes: far less
/// than the line (the launcher peaks at 20 to 41 MiB, its allocator's and
/// the machine's load deciding, without the line).
const BOUNDED: u64 = 64 << 20;

#[test]
fn a_line_of_tens_of_megabytes_keeps_the_launcher_small_and_is_cut_in_the_log() {
    let l = Launches::new("longline");
    let script = l.script("long.sh", &format!("head -c {LINE} /dev/zero | tr '\\0' x\necho\necho after\n"));
    let jobs = l.jobs(&format!(r#"[{{"name": "long", "cmd": "{}"}}]"#, script.display()));
    #[allow(clippy::zombie_processes)] // reaped by wait4, which std does not offer
    let child = l.command(&jobs, &l.out(), &[]).stdout(Stdio::null()).stderr(Stdio::null()).spawn().unwrap();
    let (status, usage) = rusage::wait_with_usage(child.id());
    assert!(nix::libc::WIFEXITED(status) && nix::libc::WEXITSTATUS(status) == 0, "the launcher passed: {status}");
    let peak = usage.ru_maxrss as u64 * 1024;
    assert!(peak < BOUNDED, "the launcher's peak was {} MiB for a {} MiB line", peak >> 20, LINE >> 20);
    let log = std::fs::read_to_string(l.out().join(format!("logs/{}.long.C1.R0.J0.log", l.suite))).unwrap();
    let lines: Vec<&str> = log.lines().collect();
    assert_eq!(lines.len(), 2, "the long line, then the next: {} bytes", log.len());
    let kept = lines[0].trim_start_matches('x');
    assert_eq!(kept, format!(" [mlb: line cut: {} more bytes not kept]", LINE - (64 << 10)), "{kept}");
    assert_eq!(lines[0].len() - kept.len(), 64 << 10, "the first 64 KiB are kept");
    assert_eq!(lines[1], "after");
}
