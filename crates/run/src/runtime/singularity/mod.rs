//! The Singularity/Apptainer backend (`--singularity IMAGE`): each instance
//! is the `exec` process of Apptainer/Singularity, placed in its slot's
//! cgroup as a bare instance is (Apptainer sets no limits of its own).

mod cli;

pub use cli::{ContainerCli, Flavor, SingularityError, SingularityImage};

use crate::plan::Instance;
use crate::runtime::container::Wrapping;
use crate::runtime::{shell::shell_word, Backend, Launch, RuntimeError, Traits};
use mlb_record::contract::Container;
use std::path::Path;
use std::sync::Arc;

/// Runs instances with `apptainer exec` (or `singularity exec`) of one image.
pub struct SingularityRuntime {
    cli: ContainerCli,
    image: SingularityImage,
    wrapping: Wrapping,
    /// For `--dry-run`: why the tool or the image is unusable.
    unusable: Option<Arc<SingularityError>>,
    traits: Traits,
}

impl SingularityRuntime {
    /// Finds the tool on PATH and hashes the image file.
    pub fn open(file: &Path, wrapping: Wrapping) -> Result<Self, SingularityError> {
        let cli = ContainerCli::find()?;
        let image = SingularityImage::open(file)?;
        Ok(Self::new(cli, image, wrapping, Vec::new()))
    }

    /// For `--dry-run`: as for a run where the tool and the image are there;
    /// otherwise `apptainer` and the image by name, with the reasons in its
    /// notes. Such a runtime starts nothing.
    pub fn for_description(file: &Path, wrapping: Wrapping) -> Self {
        let mut unusable = Vec::new();
        let cli = ContainerCli::find().unwrap_or_else(|e| {
            unusable.push(e);
            ContainerCli { program: "apptainer".into(), flavor: Flavor::Apptainer }
        });
        let image = SingularityImage::open(file).unwrap_or_else(|e| {
            unusable.push(e);
            SingularityImage { path: file.to_path_buf(), digest: String::new() }
        });
        Self::new(cli, image, wrapping, unusable)
    }

    fn new(cli: ContainerCli, image: SingularityImage, wrapping: Wrapping, unusable: Vec<SingularityError>) -> Self {
        let traits = Traits {
            container: Some(Container {
                runtime: Some(cli.flavor.program().into()),
                image: Some(image.path.display().to_string()),
                digest: Some(image.digest.clone()),
                ..Container::default()
            }),
            notes: unusable.iter().map(|e| format!("singularity: {e}\n")).collect(),
            ..Traits::default()
        };
        let unusable = unusable.into_iter().next().map(Arc::new);
        SingularityRuntime { cli, image, wrapping, unusable, traits }
    }
}

impl Backend for SingularityRuntime {
    fn launch(&self, instance: &Instance) -> Result<Launch, RuntimeError> {
        if let Some(e) = &self.unusable {
            return Err(RuntimeError::Singularity(Arc::clone(e)));
        }
        Ok(Launch::Process(self.cli.launch(&self.image, &self.wrapping.spec(instance))))
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

    fn traits(&self) -> &Traits {
        &self.traits
    }
}
