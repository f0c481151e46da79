//! What can go wrong talking to Docker, what to do about it ([`Fix`]), and
//! whether it refused the work or failed it ([`Classify`]).

use mlb_record::exit::{Classify, Kind};
use mlb_record::fix::Fix;

/// A Docker operation failed.
#[derive(Debug, thiserror::Error)]
pub enum DockerError {
    /// The daemon does not answer (not running, wrong `DOCKER_HOST`, no permission on the socket).
    #[error("cannot reach the Docker daemon at {endpoint}: {source}")]
    Unreachable {
        /// The endpoint tried (`unix:///var/run/docker.sock`, `tcp://...`).
        endpoint: String,
        /// The cause.
        source: bollard::errors::Error,
    },
    /// The image is not in the daemon's image store.
    #[error("image `{image}` not found in the Docker daemon at {endpoint}")]
    ImageMissing {
        /// The image name.
        image: String,
        /// The daemon's endpoint.
        endpoint: String,
        /// How to obtain it.
        hint: String,
    },
    /// Docker accepted the container but did not apply a slot limit.
    #[error("Docker did not apply the {what} of instance {instance}: asked {asked}, applied {applied}")]
    LimitNotApplied {
        /// Which limit.
        what: &'static str,
        /// The instance's log prefix.
        instance: String,
        /// The value asked for.
        asked: String,
        /// The value Docker reports.
        applied: String,
    },
    /// A request to the daemon failed.
    #[error("Docker could not {action}: {source}")]
    Api {
        /// What was being done (`create the container of [job 0/2]`).
        action: String,
        /// The cause.
        source: bollard::errors::Error,
    },
    /// The image build reported an error.
    #[error("building image `{tag}` failed: {message}")]
    Build {
        /// The image tag.
        tag: String,
        /// The builder's message.
        message: String,
    },
    /// The build context could not be read.
    #[error("cannot pack the build context {path}: {source}")]
    Context {
        /// The file or folder.
        path: std::path::PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// The async runtime that drives the Docker client could not start.
    #[error("cannot start the Docker client's I/O runtime: {0}")]
    Runtime(#[source] std::io::Error),
}

impl DockerError {
    /// Wraps a failed request to the daemon.
    pub(crate) fn api(action: impl Into<String>, source: bollard::errors::Error) -> Self {
        DockerError::Api { action: action.into(), source }
    }
}

impl Fix for DockerError {
    fn fix(&self) -> Option<String> {
        match self {
            DockerError::Unreachable { .. } => Some(
                "is dockerd running? start it with `sudo systemctl start docker` or `sudo dockerd &` \
                 (`scripts/setup-docker.sh` installs and starts it), or point DOCKER_HOST at a running daemon"
                    .into(),
            ),
            DockerError::ImageMissing { hint, .. } => Some(hint.clone()),
            DockerError::LimitNotApplied { .. } => {
                Some("check that the daemon's cgroup controllers (cpuset, memory) are available".into())
            }
            DockerError::Api { .. }
            | DockerError::Build { .. }
            | DockerError::Context { .. }
            | DockerError::Runtime(_) => None,
        }
    }
}

impl Classify for DockerError {
    /// A daemon, image or build context missing (or no client runtime)
    /// refuses the work before Docker started anything; a request, a build
    /// or a limit the daemon refused fails work it started.
    fn kind(&self) -> Kind {
        match self {
            DockerError::Unreachable { .. }
            | DockerError::ImageMissing { .. }
            | DockerError::Context { .. }
            | DockerError::Runtime(_) => Kind::Refused,
            DockerError::Build { .. } | DockerError::Api { .. } | DockerError::LimitNotApplied { .. } => Kind::Failed,
        }
    }
}

/// Whether the daemon answered `status` (404: no such image or container).
pub(crate) fn is_status(error: &bollard::errors::Error, status: u16) -> bool {
    matches!(error, bollard::errors::Error::DockerResponseServerError { status_code, .. } if *status_code == status)
}
