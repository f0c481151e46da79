//! The Slurm step plans a run writes beside its reports (`mlb --slurm`):
//! one file per step in the output folder's [`PLAN_DIR`], which the step's
//! tasks read on their nodes. They are JSON and no report: every walk over
//! a run's reports leaves them out by [`is_step_plan`], and this module
//! names them, so that both agree.

use std::path::Path;

/// The folder of the output folder that holds the step plans.
pub const PLAN_DIR: &str = "slurm";

/// The name of the plan of step `step` of the config `name` of suite
/// `suite`, run `run`: `<suite>.<name>.R<run>.step<step>.json`, a `/` or
/// `\` of the name written `_`.
pub fn file_name(suite: &str, name: &str, run: u64, step: usize) -> String {
    format!("{suite}.{}.R{run}.step{step}.json", name.replace(['/', '\\'], "_"))
}

/// Whether `path` is a step plan: a file named as [`file_name`] names one
/// (`*.step<N>.json`) in a folder named [`PLAN_DIR`]. A report in a folder
/// a user named `slurm` is still read.
pub fn is_step_plan(path: &Path) -> bool {
    let in_plan_dir = path.parent().and_then(Path::file_name).is_some_and(|d| d == PLAN_DIR);
    let named = path.file_name().and_then(|n| n.to_str()).and_then(|n| n.strip_suffix(".json")).and_then(|stem| {
        let (_, step) = stem.rsplit_once(".step")?;
        Some(!step.is_empty() && step.bytes().all(|b| b.is_ascii_digit()))
    });
    in_plan_dir && named == Some(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans_are_named_once_and_known_by_that_name_in_their_folder() {
        let name = file_name("suite", "a/b", 2, 7);
        assert_eq!(name, "suite.a_b.R2.step7.json");
        assert!(is_step_plan(&Path::new("out").join(PLAN_DIR).join(&name)));
        assert!(!is_step_plan(&Path::new("out").join(&name)), "outside the plan folder: a file of the user's");
        for report in ["suite.a.R0.D0.20261128-165657-307799.json", "x.step.json", "x.stepA.json", "step3.json"] {
            assert!(!is_step_plan(&Path::new("out").join(PLAN_DIR).join(report)), "{report}");
        }
    }
}
