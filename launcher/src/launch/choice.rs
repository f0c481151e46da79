//! Which runtime wraps the instances: bare, `--docker [KIND|IMAGE]` or
//! `--singularity IMAGE`; the runtime itself for a run, or its description
//! of each instance for `--dry-run`.

use super::args::LaunchArgs;
use super::container::Wrapping;
use super::docker::{self, DockerRuntime};
use super::error::LaunchError;
use super::runtime::{Bare, Runtime};
use super::singularity::{self, SingularityRuntime};
use crate::host::HostKind;
use crate::plan::InstanceSpec;
use crate::runtime::docker::{Docker, ImageFacts};
use crate::runtime::images::{ContainerKind, ImageMap};
use crate::runtime::singularity::{ContainerCli, Flavor, SingularityImage};
use std::path::PathBuf;

/// How each instance would be wrapped, as indented lines (`--dry-run`).
pub type Describe = Box<dyn Fn(&InstanceSpec) -> String>;

/// The runtime asked for on the command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Choice {
    /// On the host.
    Bare,
    /// Docker, this image; `hint` says how to build it.
    Docker {
        /// Image name.
        image: String,
        /// How to obtain it when missing.
        hint: String,
    },
    /// Singularity/Apptainer, this image file.
    Singularity(PathBuf),
}

impl Choice {
    /// The choice of `args` on a host of `kind`.
    pub fn of(args: &LaunchArgs, kind: HostKind) -> Result<Choice, LaunchError> {
        if let Some(file) = &args.singularity {
            return Ok(Choice::Singularity(file.clone()));
        }
        let Some(arg) = &args.docker else { return Ok(Choice::Bare) };
        let map = match &args.images {
            Some(file) => ImageMap::with_overrides(file)?,
            None => ImageMap::builtin(),
        };
        let detected = match kind {
            HostKind::Ngc => Some(ContainerKind::Ngc),
            HostKind::Rocm => Some(ContainerKind::Rocm),
            HostKind::Powerai => Some(ContainerKind::Powerai),
            HostKind::Cpu => None,
        };
        let image = map.resolve(arg.as_deref(), detected)?;
        Ok(Choice::Docker { hint: map.build_hint(&image), image })
    }

    /// The isolation recorded for slot instances: `docker`, else the cgroups' (`cgroup_mode`).
    pub fn isolation<'a>(&self, cgroup_mode: &'a str) -> &'a str {
        match self {
            Choice::Docker { .. } => crate::runtime::docker::RUNTIME_NAME,
            _ => cgroup_mode,
        }
    }

    /// Whether slot instances need the launcher's cgroups (Docker makes its own).
    pub fn needs_cgroups(&self) -> bool {
        !matches!(self, Choice::Docker { .. })
    }

    /// The runtime for a real run: connects to Docker and inspects the image,
    /// or finds Apptainer/Singularity and hashes the image.
    pub fn open(&self, wrapping: Wrapping) -> Result<Box<dyn Runtime>, LaunchError> {
        Ok(match self {
            Choice::Bare => Box::new(Bare),
            Choice::Docker { image, hint } => Box::new(DockerRuntime::connect(image, hint, wrapping)?),
            Choice::Singularity(file) => {
                let cli = ContainerCli::find()?;
                let image = SingularityImage::open(file)?;
                Box::new(SingularityRuntime { cli, image, wrapping })
            }
        })
    }

    /// For `--dry-run`: a note on the runtime (what could not be checked),
    /// and a function describing how each instance is wrapped. Nothing needs
    /// to be running: what is unavailable is said, not fatal.
    pub fn describer(&self, wrapping: Wrapping) -> (String, Describe) {
        match self {
            Choice::Bare => (String::new(), Box::new(|_: &InstanceSpec| String::new())),
            Choice::Docker { image, hint } => {
                let (facts, note) = match Docker::connect().and_then(|d| d.image(image, hint)) {
                    Ok(facts) => (facts.clone(), format!("docker image: {} ({})\n", facts.name, facts.digest)),
                    Err(e) => {
                        let facts = ImageFacts { name: image.clone(), id: image.clone(), digest: String::new() };
                        (facts, format!("docker image: {image} (not inspected: {e})\n"))
                    }
                };
                (note, Box::new(move |spec: &InstanceSpec| docker::describe(&wrapping, &facts, spec)))
            }
            Choice::Singularity(file) => {
                let mut note = String::new();
                let cli = ContainerCli::find().unwrap_or_else(|e| {
                    note.push_str(&format!("singularity: {e}\n"));
                    ContainerCli { program: "apptainer".into(), flavor: Flavor::Apptainer }
                });
                let image = SingularityImage::open(file).unwrap_or_else(|e| {
                    note.push_str(&format!("singularity: {e}\n"));
                    SingularityImage { path: file.clone(), digest: String::new() }
                });
                (note, Box::new(move |spec: &InstanceSpec| singularity::describe(&cli, &image, &wrapping, spec)))
            }
        }
    }
}
