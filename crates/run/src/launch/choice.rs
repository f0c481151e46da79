//! How the instances are wrapped (bare, `--docker [KIND|IMAGE]` or
//! `--singularity IMAGE`; pyxis for `--slurm --docker`) and where they run
//! (this host, or a Slurm step with `--slurm`); opened for a run, or for
//! `--dry-run`.

use super::error::LaunchError;
use super::options::Options;
use super::setup::Prepared;
use crate::host::HostKind;
use crate::plan::WorkerPaths;
use crate::runtime::bare::Bare;
use crate::runtime::container::Wrapping;
use crate::runtime::docker::DockerRuntime;
use crate::runtime::images::{ContainerKind, ImageMap};
use crate::runtime::singularity::SingularityRuntime;
use crate::runtime::spec::Bind;
use crate::runtime::{Backend, Host, Runtime};
use crate::slurm::{pyxis, SlurmError, SlurmSite};
use std::path::{Path, PathBuf};

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
    /// The choice of `options` on a host of `kind`.
    pub fn of(options: &Options, kind: HostKind) -> Result<Choice, LaunchError> {
        if let Some(file) = &options.singularity {
            return Ok(Choice::Singularity(file.clone()));
        }
        let Some(arg) = &options.docker else { return Ok(Choice::Bare) };
        let map = match &options.images {
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

    /// The backend for a real run: connects to Docker and inspects the image,
    /// or finds Apptainer/Singularity and hashes the image.
    pub fn open(&self, wrapping: Wrapping) -> Result<Box<dyn Backend>, LaunchError> {
        Ok(match self {
            Choice::Bare => Box::new(Bare::new()),
            Choice::Docker { image, hint } => Box::new(DockerRuntime::connect(image, hint, wrapping)?),
            Choice::Singularity(file) => Box::new(SingularityRuntime::open(file, wrapping)?),
        })
    }

    /// The backend for `--dry-run`: the same backend, opened as for a run
    /// where it can be; what is unavailable is in its notes, not fatal.
    pub fn open_for_description(&self, wrapping: Wrapping) -> Box<dyn Backend> {
        match self {
            Choice::Bare => Box::new(Bare::new()),
            Choice::Docker { image, hint } => Box::new(DockerRuntime::for_description(image, hint, wrapping)),
            Choice::Singularity(file) => Box::new(SingularityRuntime::for_description(file, wrapping)),
        }
    }
}

/// The runtime of `choice` for `prepared`: opened for a run, or for
/// `--dry-run` when `describe`. Under `--slurm`, each config is a job step
/// whose tasks run instances as that backend would on one host; `--docker`
/// then goes through pyxis (`srun --container-image`), never a daemon.
pub fn runtime(
    choice: &Choice,
    prepared: &Prepared,
    timeout: Option<f64>,
    describe: bool,
) -> Result<Runtime, LaunchError> {
    let wrapping = wrapping(prepared);
    let open = |wrapping: Wrapping| -> Result<Box<dyn Backend>, LaunchError> {
        if describe {
            Ok(choice.open_for_description(wrapping))
        } else {
            choice.open(wrapping)
        }
    };
    let Some(allocation) = &prepared.allocation else {
        return Ok(Runtime { backend: open(wrapping)?, site: Box::new(Host) });
    };
    let backend = match choice {
        Choice::Docker { image, .. } => {
            if !pyxis::present() {
                return Err(SlurmError::NoPyxis.into());
            }
            let mut binds = wrapping.binds.clone();
            let mlb = WorkerPaths::host().mlb;
            let plugin_dirs = prepared.plugins.values().filter_map(|p| p.path.parent());
            for dir in mlb.parent().into_iter().chain(plugin_dirs) {
                if !binds.iter().any(|b| b.host == dir) {
                    binds.push(Bind::ro(dir, dir));
                }
            }
            Box::new(pyxis::Pyxis::new(image, &binds))
        }
        _ => open(wrapping)?,
    };
    let site = SlurmSite::new(allocation.clone(), prepared.slots.len(), prepared.outdir.clone(), timeout);
    Ok(Runtime { backend, site: Box::new(site) })
}

/// How `prepared`'s instances are wrapped in containers: the output folder
/// read-write, the data folder and the jobs file's folder (when they exist:
/// a built-in suite has none) read-only.
pub fn wrapping(prepared: &Prepared) -> Wrapping {
    let var = |name: &str| prepared.variables.iter().find(|(k, _)| k == name).map(|(_, v)| PathBuf::from(v));
    let mut binds = vec![Bind::rw(&prepared.outdir, &prepared.outdir)];
    if let Some(data) = var("DATA_DIRECTORY").filter(|d| d.is_dir()) {
        binds.push(Bind::ro(&data, &data));
    }
    let jobs_dir = std::path::absolute(&prepared.file.path).ok().and_then(|p| p.parent().map(Path::to_path_buf));
    if let Some(dir) = jobs_dir.filter(|d| d.is_dir() && !binds.iter().any(|b| &b.host == d)) {
        binds.push(Bind::ro(&dir, &dir));
    }
    // A folder before the folders inside it, so that no bind hides another.
    binds.sort_by_key(|b| b.container.components().count());
    Wrapping {
        kind: prepared.host.kind,
        gpus: !prepared.host.gpus.is_empty(),
        binds,
        shm_all: prepared.host.memory.usable_bytes,
    }
}
