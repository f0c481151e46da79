//! The Singularity/Apptainer backend (`--singularity IMAGE`): each instance
//! is the `exec` process of Apptainer/Singularity, placed in its slot's
//! cgroup as a bare instance is (Apptainer sets no limits of its own).

mod cli;

pub use cli::{ContainerCli, Flavor, SingularityError, SingularityImage};

use crate::contract::Container;
use crate::isolation::SlotGroup;
use crate::plan::Instance;
use crate::runtime::container::Wrapping;
use crate::runtime::{process, shell::shell_word, Output, Runtime, Started};
use std::path::Path;
use std::sync::Arc;

/// Runs instances with `apptainer exec` (or `singularity exec`) of one image.
pub struct SingularityRuntime {
    cli: ContainerCli,
    image: SingularityImage,
    wrapping: Wrapping,
    /// For `--dry-run`: what could not be found or read.
    notes: String,
}

impl SingularityRuntime {
    /// Finds the tool on PATH and hashes the image file.
    pub fn open(file: &Path, wrapping: Wrapping) -> Result<Self, SingularityError> {
        let cli = ContainerCli::find()?;
        let image = SingularityImage::open(file)?;
        Ok(SingularityRuntime { cli, image, wrapping, notes: String::new() })
    }

    /// For `--dry-run`: as for a run where the tool and the image are there;
    /// otherwise `apptainer` and the image by name, with the reasons in its
    /// notes. Such a runtime starts nothing.
    pub fn for_description(file: &Path, wrapping: Wrapping) -> Self {
        let mut notes = String::new();
        let cli = ContainerCli::find().unwrap_or_else(|e| {
            notes.push_str(&format!("singularity: {e}\n"));
            ContainerCli { program: "apptainer".into(), flavor: Flavor::Apptainer }
        });
        let image = SingularityImage::open(file).unwrap_or_else(|e| {
            notes.push_str(&format!("singularity: {e}\n"));
            SingularityImage { path: file.to_path_buf(), digest: String::new() }
        });
        SingularityRuntime { cli, image, wrapping, notes }
    }
}

impl Runtime for SingularityRuntime {
    fn start(&self, instance: &Instance, group: Option<&SlotGroup>, output: Arc<dyn Output>) -> Started {
        process::start(self.command(instance)?, group, output)
    }

    fn command(&self, instance: &Instance) -> Result<std::process::Command, String> {
        if !self.notes.is_empty() {
            return Err(self.notes.trim_end().to_string());
        }
        Ok(self.cli.command(&self.image, &self.wrapping.spec(instance)))
    }

    /// The `exec` command line and environment.
    fn describe(&self, instance: &Instance) -> String {
        let container = self.wrapping.spec(instance);
        let args: Vec<String> =
            self.cli.exec_args(&self.image, &container).iter().map(|a| shell_word(&a.to_string_lossy())).collect();
        let mut out = format!(
            "    {} exec: {} {}\n    exec environment:\n",
            self.cli.flavor.program(),
            self.cli.program.display(),
            args.join(" ")
        );
        let mut env = self.cli.exec_env(&self.image, &container);
        env.sort();
        for (k, v) in env {
            out.push_str(&format!("      {k}={v}\n"));
        }
        out
    }

    fn notes(&self) -> String {
        self.notes.clone()
    }

    fn container(&self) -> Option<Container> {
        Some(Container {
            runtime: Some(self.cli.flavor.program().into()),
            image: Some(self.image.path.display().to_string()),
            digest: Some(self.image.digest.clone()),
            ..Container::default()
        })
    }
}
