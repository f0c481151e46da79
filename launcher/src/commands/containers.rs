//! `mlb containers build KIND`: the image of a container kind, built from
//! this source tree by the Docker daemon and tagged with the kind's image name.

use clap::Subcommand;
use mlb_run::runtime::docker::{BuildRequest, Docker, DockerError, ImageFacts};
use mlb_run::runtime::images::{ContainerKind, ImageMap, ImageMapError};
use std::path::PathBuf;

/// `mlb containers ...`
#[derive(Debug, Subcommand)]
pub enum ContainersCommand {
    /// Builds the image of a kind from `containers/KIND/Dockerfile` through the Docker daemon.
    Build(BuildArgs),
}

/// `mlb containers build` options.
#[derive(Debug, Clone, clap::Args)]
pub struct BuildArgs {
    /// Which image: ngc (NVIDIA NGC PyTorch), rocm (AMD ROCm PyTorch), powerai (Open-CE PyTorch, ppc64le).
    #[arg(value_enum)]
    pub kind: ContainerKind,

    /// The image's name and tag, as `docker build --tag` takes it (default:
    /// the kind's image in the mapping). A label of a run is `--label`.
    #[arg(long, value_name = "IMAGE")]
    pub tag: Option<String>,

    /// Image mapping file (JSON, kind -> image) overriding `configs/containers.json`.
    #[arg(long, value_name = "FILE")]
    pub images: Option<PathBuf>,

    /// mlb's source tree (default: the one holding the current folder).
    #[arg(long, value_name = "DIR")]
    pub source: Option<PathBuf>,
}

/// `mlb containers build` failed.
#[derive(Debug, thiserror::Error)]
pub enum BuildCmdError {
    /// The image mapping is unusable.
    #[error(transparent)]
    Map(#[from] ImageMapError),
    /// Docker failed.
    #[error(transparent)]
    Docker(#[from] DockerError),
    /// No source tree to build from.
    #[error("{0} is not inside mlb's source tree (no Cargo.toml with a containers/ folder beside it): run from the source tree or pass --source DIR")]
    NoSource(PathBuf),
}

impl mlb_record::exit::Classify for BuildCmdError {
    /// The image map and the source are found before Docker is asked.
    fn kind(&self) -> mlb_record::exit::Kind {
        match self {
            BuildCmdError::Map(_) | BuildCmdError::NoSource(_) => mlb_record::exit::Kind::Refused,
            BuildCmdError::Docker(e) => e.kind(),
        }
    }
}

impl mlb_record::fix::Fix for BuildCmdError {
    fn fix(&self) -> Option<String> {
        match self {
            BuildCmdError::Docker(e) => e.fix(),
            BuildCmdError::Map(_) | BuildCmdError::NoSource(_) => None,
        }
    }
}

/// Builds the image `args` asks for, calling `on_progress` with the builder's output.
pub fn run(args: &BuildArgs, on_progress: &mut dyn FnMut(&str)) -> Result<ImageFacts, BuildCmdError> {
    let map = match &args.images {
        Some(file) => ImageMap::with_overrides(file)?,
        None => ImageMap::builtin(),
    };
    let start = match &args.source {
        Some(dir) => dir.clone(),
        None => std::env::current_dir().unwrap_or_else(|_| PathBuf::from(".")),
    };
    let source = BuildRequest::find_source(&start).ok_or(BuildCmdError::NoSource(start))?;
    let tag = match &args.tag {
        Some(tag) => tag.clone(),
        None => map.resolve(Some(args.kind.name()), None)?,
    };
    let docker = Docker::connect()?;
    Ok(docker.build(&BuildRequest { kind: args.kind, source, tag }, on_progress)?)
}
