//! The connection to the Docker daemon: a bollard client driven by a tokio
//! runtime owned here, so callers stay synchronous.

use super::error::{is_status, DockerError};
use super::image::ImageFacts;
use bollard::query_parameters::{ListContainersOptionsBuilder, RemoveContainerOptionsBuilder};
use std::collections::HashMap;
use std::future::Future;

/// Label every mlb container carries: the launcher session that created it.
pub const SESSION_LABEL: &str = "mlb.session";
/// Label: the run id.
pub const RUN_LABEL: &str = "mlb.run";
/// Label: the job name.
pub const JOB_LABEL: &str = "mlb.job";
/// Label: the instance index.
pub const INSTANCE_LABEL: &str = "mlb.instance";

/// The default endpoint when `DOCKER_HOST` is not set.
pub const DEFAULT_ENDPOINT: &str = "unix:///var/run/docker.sock";

/// A connected Docker daemon.
///
/// Safe to share between threads: the launcher may call [`Docker::run`]
/// from one thread per instance. Every method blocks; call them from plain
/// threads, not from inside an async runtime.
pub struct Docker {
    pub(super) client: bollard::Docker,
    rt: tokio::runtime::Runtime,
    endpoint: String,
    session: String,
}

impl Docker {
    /// Connects to `DOCKER_HOST`, or to the default socket.
    pub fn connect() -> Result<Self, DockerError> {
        let endpoint = std::env::var("DOCKER_HOST").ok().filter(|h| !h.is_empty());
        Self::connect_to(endpoint.as_deref().unwrap_or(DEFAULT_ENDPOINT))
    }

    /// Connects to `endpoint` (`unix:///path`, `tcp://host:port`) and checks
    /// that the daemon answers, agreeing on the API version.
    pub fn connect_to(endpoint: &str) -> Result<Self, DockerError> {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("mlb-docker")
            .enable_all()
            .build()
            .map_err(DockerError::Runtime)?;
        let unreachable = |source| DockerError::Unreachable { endpoint: endpoint.to_string(), source };
        let client = {
            // The client is made inside the runtime that will drive it.
            let _guard = rt.enter();
            bollard::Docker::connect_with_host(endpoint).map_err(unreachable)?
        };
        let client = rt.block_on(client.negotiate_version()).map_err(unreachable)?;
        let session = format!("{}-{}", std::process::id(), chrono::Utc::now().timestamp_nanos_opt().unwrap_or(0));
        Ok(Docker { client, rt, endpoint: endpoint.to_string(), session })
    }

    /// Sets how long the daemon may take to answer a request (default 2
    /// minutes). It bounds the start of each answer only: waiting for an
    /// instance and streaming its logs last as long as the instance runs.
    pub fn with_request_timeout(mut self, timeout: std::time::Duration) -> Self {
        self.client = self.client.with_timeout(timeout);
        self
    }

    /// The daemon's endpoint.
    pub fn endpoint(&self) -> &str {
        &self.endpoint
    }

    /// The value of the [`SESSION_LABEL`] on the containers this connection creates.
    pub fn session(&self) -> &str {
        &self.session
    }

    /// Runs a future on the client's runtime.
    pub(super) fn block_on<F: Future>(&self, future: F) -> F::Output {
        self.rt.block_on(future)
    }

    /// The image `name` as the daemon has it; when missing, the error says
    /// how to obtain it (`hint`, e.g. [`ImageMap::build_hint`](crate::runtime::images::ImageMap::build_hint)).
    pub fn image(&self, name: &str, hint: &str) -> Result<ImageFacts, DockerError> {
        match self.block_on(self.client.inspect_image(name)) {
            Ok(inspect) => Ok(ImageFacts::from_inspect(name, &inspect)),
            Err(e) if is_status(&e, 404) => Err(DockerError::ImageMissing {
                image: name.to_string(),
                endpoint: self.endpoint.clone(),
                hint: hint.to_string(),
            }),
            Err(e) => Err(DockerError::api(format!("inspect image `{name}`"), e)),
        }
    }

    /// Whether the daemon still answers (its `/_ping`, within `within`).
    pub fn answers(&self, within: std::time::Duration) -> Result<(), DockerError> {
        let unreachable = |source| DockerError::Unreachable { endpoint: self.endpoint.clone(), source };
        // The timer is made inside the runtime that drives it.
        match self.block_on(async { tokio::time::timeout(within, self.client.ping()).await }) {
            Ok(answer) => answer.map(drop).map_err(unreachable),
            Err(_) => Err(unreachable(bollard::errors::Error::RequestTimeoutError)),
        }
    }

    /// Ids of the containers (running or not) carrying label `key=value`.
    pub fn containers_labelled(&self, key: &str, value: &str) -> Result<Vec<String>, DockerError> {
        let filters = HashMap::from([("label".to_string(), vec![format!("{key}={value}")])]);
        let options = ListContainersOptionsBuilder::default().all(true).filters(&filters).build();
        let list = self
            .block_on(self.client.list_containers(Some(options)))
            .map_err(|e| DockerError::api("list containers", e))?;
        Ok(list.into_iter().filter_map(|c| c.id).collect())
    }

    /// Force-removes every container carrying label `key=value` (stopping
    /// it first); returns how many were removed.
    pub fn remove_labelled(&self, key: &str, value: &str) -> Result<usize, DockerError> {
        let ids = self.containers_labelled(key, value)?;
        for id in &ids {
            self.block_on(remove(&self.client, id))?;
        }
        Ok(ids.len())
    }

    /// Force-removes every container created by a connection of the
    /// launcher whose pid was `launcher` (its [`SESSION_LABEL`] is
    /// `PID-NANOS`): the containers of a run killed before it could remove
    /// them. Returns how many were removed.
    pub fn remove_launched_by(&self, launcher: u32) -> Result<usize, DockerError> {
        let filters = HashMap::from([("label".to_string(), vec![SESSION_LABEL.to_string()])]);
        let options = ListContainersOptionsBuilder::default().all(true).filters(&filters).build();
        let list = self
            .block_on(self.client.list_containers(Some(options)))
            .map_err(|e| DockerError::api("list containers", e))?;
        let prefix = format!("{launcher}-");
        let ids: Vec<String> = list
            .into_iter()
            .filter(|c| c.labels.as_ref().and_then(|l| l.get(SESSION_LABEL)).is_some_and(|v| v.starts_with(&prefix)))
            .filter_map(|c| c.id)
            .collect();
        for id in &ids {
            self.block_on(remove(&self.client, id))?;
        }
        Ok(ids.len())
    }

    /// Removes every container this connection created: the launcher calls
    /// it on every exit path (end of run, error, Ctrl-C, SIGTERM).
    pub fn remove_session(&self) -> Result<usize, DockerError> {
        self.remove_labelled(SESSION_LABEL, &self.session)
    }
}

/// Force-removes container `id` with its anonymous volumes; one already gone is fine.
pub(super) async fn remove(client: &bollard::Docker, id: &str) -> Result<(), DockerError> {
    let options = RemoveContainerOptionsBuilder::default().force(true).v(true).build();
    match client.remove_container(id, Some(options)).await {
        Ok(()) => Ok(()),
        Err(e) if is_status(&e, 404) || is_status(&e, 409) => Ok(()), // gone, or removal already in progress
        Err(e) => Err(DockerError::api(format!("remove container {id}"), e)),
    }
}
