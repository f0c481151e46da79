//! Draining the failed nodes of a burn across a Slurm allocation: the
//! `scontrol update` command a site runs for each, printed always and run
//! only with `--drain`.

use std::process::Command;

/// The command that drains `node` for `reason` (quotes in the reason become
/// apostrophes: the reason is one double-quoted word of the command line).
pub fn command(node: &str, reason: &str) -> String {
    format!("scontrol update nodename={node} state=drain reason=\"mlb burn: {}\"", reason.replace('"', "'"))
}

/// Runs `scontrol update nodename=NODE state=drain reason=...` for `node`;
/// `Err` says why it did not drain it.
pub fn drain(node: &str, reason: &str) -> Result<(), String> {
    let reason = format!("mlb burn: {}", reason.replace('"', "'"));
    let out = Command::new("scontrol")
        .args(["update", &format!("nodename={node}"), "state=drain", &format!("reason={reason}")])
        .output()
        .map_err(|e| format!("cannot run scontrol: {e}"))?;
    match out.status.success() {
        true => Ok(()),
        false => Err(format!("scontrol: {}", String::from_utf8_lossy(&out.stderr).trim())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reason_is_one_quoted_word() {
        assert_eq!(
            command("n2", r#"gemm 0.1 TFLOPS "slow""#),
            r#"scontrol update nodename=n2 state=drain reason="mlb burn: gemm 0.1 TFLOPS 'slow'""#
        );
    }
}
