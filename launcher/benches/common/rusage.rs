//! Waiting for a child with `wait4`, for its resource use (peak resident
//! set, CPU time), which std's `wait` does not give. Included by the benches
//! that time whole processes (`#[path]`, not through `common`).

use nix::libc;

/// Waits for child process `pid`: its wait status and resource use.
pub fn wait_with_usage(pid: u32) -> (i32, libc::rusage) {
    let mut status = 0;
    // SAFETY: a zeroed rusage is a valid value; wait4 fills it for our child.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let got = unsafe { libc::wait4(pid as libc::pid_t, &mut status, 0, &mut usage) };
    assert_eq!(got, pid as libc::pid_t, "wait4: {}", std::io::Error::last_os_error());
    (status, usage)
}
