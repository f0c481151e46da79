//! The vendors' own diagnostics, run by `mlb doctor --diag` (and `--deep`)
//! when their tool is installed: NVIDIA DCGM's `dcgmi diag -r LEVEL -j`
//! ([`crate::gpu::nvidia::dcgmi`]) and AMD's ROCm Validation Suite,
//! `rvs -r LEVEL -j FILE` ([`crate::gpu::amd::rvs`]). Every test's own
//! result is kept (in `doctor.json` and `system.json`) and becomes a check:
//! a failed test fails the doctor even when the tool exits 0, which `dcgmi`
//! does with a failed test.

use crate::check::{Check, Status};
use crate::gpu::amd::rvs;
use crate::gpu::nvidia::dcgmi;
use crate::gpu::Diagnostic;
use std::path::{Path, PathBuf};

/// One check per test result of `diagnostic`, and a failed one when the
/// tool gave none.
pub fn checks(diagnostic: &Diagnostic) -> Vec<Check> {
    let Diagnostic { tool, command, exit_status, tests, error } = diagnostic;
    let fix =
        format!("run `{command}` by hand and see the vendor's guide to its tests; a GPU that fails needs service");
    if tests.is_empty() {
        let why = error.clone().unwrap_or_else(|| "no test result".into());
        let found = format!("`{command}` gave no test result (exit status {exit_status:?}): {why}");
        return vec![Check::not(Status::Fail, tool.clone(), found, fix)];
    }
    tests
        .iter()
        .map(|t| {
            let name = match &t.gpu {
                Some(gpu) => format!("{tool} {} gpu{gpu}", t.name),
                None => format!("{tool} {}", t.name),
            };
            let found = if t.info.is_empty() { t.status.clone() } else { format!("{}: {}", t.status, t.info) };
            match t.status() {
                Status::Pass => Check::pass(name, found),
                status => Check::not(status, name, found, format!("{fix} (test `{}`)", t.name)),
            }
        })
        .collect()
}

/// The executable `name` in a folder of `PATH`, if any.
fn on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).map(|dir| dir.join(name)).find(|p| is_executable(p))
}

fn is_executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    p.metadata().is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// Every vendor diagnostic installed here, run at `level`.
pub fn run_all(level: u8) -> Vec<Diagnostic> {
    let dcgmi = on_path(dcgmi::TOOL).map(|tool| dcgmi::run(&tool, level));
    let rvs = on_path(rvs::TOOL).map(|tool| rvs::run(&tool, level));
    dcgmi.into_iter().chain(rvs).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn diagnostic(tool: &str, tests: Vec<crate::gpu::TestResult>) -> Diagnostic {
        let command = format!("{tool} diag -r 1 -j");
        Diagnostic { tool: tool.into(), command, exit_status: Some(0), tests, error: None }
    }

    #[test]
    fn a_failed_test_fails_by_name_and_a_skipped_one_passes() {
        let found = checks(&diagnostic(dcgmi::TOOL, dcgmi::tests(&dcgmi::tests::one_failed())));
        let failed: Vec<&str> = found.iter().filter(|c| c.status == Status::Fail).map(|c| c.name.as_str()).collect();
        assert_eq!(failed, ["dcgmi GPU Memory gpu1"]);
        assert!(found[2].found.contains("DBE errors"), "{:?}", found[2]);
        assert!(found[2].fix.contains("test `GPU Memory`"));
        assert_eq!(found[3].status, Status::Pass, "a skipped test is no failure");
        let found = checks(&diagnostic(rvs::TOOL, rvs::tests(&rvs::tests::one_failed())));
        let failed: Vec<String> = found.into_iter().filter(|c| c.status == Status::Fail).map(|c| c.name).collect();
        assert_eq!(failed, [format!("rvs {} gpu1", rvs::tests::FP8)]);
    }

    #[test]
    fn a_tool_that_gave_no_result_fails() {
        let diagnostic = Diagnostic {
            exit_status: Some(226),
            error: Some("Error: unable to connect to host engine".into()),
            ..diagnostic(dcgmi::TOOL, Vec::new())
        };
        let found = checks(&diagnostic);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].status, Status::Fail);
        assert!(found[0].found.contains("unable to connect"), "{}", found[0].found);
    }
}
