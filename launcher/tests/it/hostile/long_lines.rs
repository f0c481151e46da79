//! An instance printing one line of tens of MB: the launcher, which sits
//! outside the slot's memory limit, once held the whole line in memory (a
//! 300 MB line grew it by 300 MB). It keeps the first part of an over-long
//! line, marks the rest as dropped, and its memory stays bounded.

use crate::common::launcher::Launches;
use std::process::{Child, ExitStatus, Stdio};
use std::time::Duration;

/// Bytes of the one long line.
const LINE: usize = 160 << 20;

/// The most the launcher may hold at its peak (resident), bytes: far less
/// than the line (the launcher peaks at 20 to 41 MiB, its allocator's and
/// the machine's load deciding, without the line).
const BOUNDED: u64 = 64 << 20;

/// How often the launcher's peak is read.
const POLL: Duration = Duration::from_millis(2);

/// Waits for `child`: its status and its peak resident set since its exec,
/// read from `/proc/PID/status` (`VmHWM`, which only grows) until it exits,
/// so that at most its last [`POLL`] goes unseen. Not `wait4`'s peak: that
/// one also counts the address space the child had before its exec, a copy
/// of the test process's, which under `cargo test` holds every test of the
/// binary running beside this one (hundreds of MB at times).
fn wait_with_peak(child: &mut Child) -> (ExitStatus, u64) {
    let status_file = format!("/proc/{}/status", child.id());
    let mut peak = 0;
    loop {
        let hwm = std::fs::read_to_string(&status_file).ok().and_then(|status| {
            let line = status.lines().find_map(|l| l.strip_prefix("VmHWM:"))?;
            line.trim().trim_end_matches("kB").trim().parse::<u64>().ok()
        });
        peak = peak.max(hwm.unwrap_or(0) * 1024);
        if let Some(status) = child.try_wait().unwrap() {
            return (status, peak);
        }
        std::thread::sleep(POLL);
    }
}

#[test]
fn a_line_of_tens_of_megabytes_keeps_the_launcher_small_and_is_cut_in_the_log() {
    let l = Launches::new("longline");
    let script = l.script("long.sh", &format!("head -c {LINE} /dev/zero | tr '\\0' x\necho\necho after\n"));
    let jobs = l.jobs(&format!(r#"[{{"name": "long", "cmd": "{}"}}]"#, script.display()));
    let mut child = l.command(&jobs, &l.out(), &[]).stdout(Stdio::null()).stderr(Stdio::null()).spawn().unwrap();
    let (status, peak) = wait_with_peak(&mut child);
    assert!(status.success(), "the launcher passed: {status}");
    assert!(peak > 0, "the launcher's peak was read");
    assert!(peak < BOUNDED, "the launcher's peak was {} MiB for a {} MiB line", peak >> 20, LINE >> 20);
    let log = std::fs::read_to_string(l.out().join(format!("logs/{}.long.C1.R0.J0.log", l.suite))).unwrap();
    let lines: Vec<&str> = log.lines().collect();
    assert_eq!(lines.len(), 2, "the long line, then the next: {} bytes", log.len());
    let kept = lines[0].trim_start_matches('x');
    assert_eq!(kept, format!(" [mlb: line cut: {} more bytes not kept]", LINE - (64 << 10)), "{kept}");
    assert_eq!(lines[0].len() - kept.len(), 64 << 10, "the first 64 KiB are kept");
    assert_eq!(lines[1], "after");
}
