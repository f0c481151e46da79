//! `--singularity IMAGE`: each instance is the `exec` process of
//! Apptainer/Singularity, placed in its slot's cgroup as a bare instance is
//! (Apptainer sets no limits of its own).

use super::container::Wrapping;
use super::dry_run::shell_word;
use super::lines::Lines;
use super::process;
use super::runtime::{Runtime, Started};
use crate::isolation::SlotGroup;
use crate::plan::InstanceSpec;
use crate::runtime::singularity::{ContainerCli, SingularityImage};
use std::sync::Arc;

/// Runs instances with `apptainer exec` (or `singularity exec`) of one image.
pub struct SingularityRuntime {
    /// The tool.
    pub cli: ContainerCli,
    /// The image file and its digest.
    pub image: SingularityImage,
    /// How instances are wrapped.
    pub wrapping: Wrapping,
}

/// The `exec` command line and environment of `spec`, indented, for `--dry-run`.
pub fn describe(cli: &ContainerCli, image: &SingularityImage, wrapping: &Wrapping, spec: &InstanceSpec) -> String {
    let container = wrapping.spec(spec);
    let args: Vec<String> = cli.exec_args(image, &container).iter().map(|a| shell_word(&a.to_string_lossy())).collect();
    let mut out = format!(
        "    {} exec: {} {}\n    exec environment:\n",
        cli.flavor.program(),
        cli.program.display(),
        args.join(" ")
    );
    let mut env = cli.exec_env(image, &container);
    env.sort();
    for (k, v) in env {
        out.push_str(&format!("      {k}={v}\n"));
    }
    out
}

impl Runtime for SingularityRuntime {
    fn start(&self, spec: &InstanceSpec, group: Option<&SlotGroup>, lines: Arc<Lines>) -> Started {
        process::start(self.cli.command(&self.image, &self.wrapping.spec(spec)), group, lines)
    }

    fn container(&self) -> Option<serde_json::Value> {
        Some(serde_json::json!({
            "runtime": self.cli.flavor.program(),
            "image": self.image.path,
            "digest": self.image.digest,
        }))
    }
}
