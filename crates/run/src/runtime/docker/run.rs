//! Running one instance in its own container: create, check the applied
//! limits, start, stream the logs, wait, inspect, remove.

use super::cancel::Cancel;
use super::client::{remove, Docker};
use super::config::{container_config, Limits, RUNTIME_NAME};
use super::error::DockerError;
use super::image::ImageFacts;
use super::logs::{LineSplitter, LogStream};
use crate::runtime::spec::ContainerSpec;
use bollard::query_parameters::LogsOptionsBuilder;
use futures_util::StreamExt;

/// What is told of a running container: its output lines and, once it has
/// started, its main process.
pub trait Watch {
    /// One output line (without its newline).
    fn line(&mut self, stream: LogStream, line: &str);

    /// Container `id` started; its main process is `pid` on the daemon's host.
    fn started(&mut self, _pid: u32, _id: &str) {}
}

/// Lines alone, to a closure.
struct OnLine<'a>(&'a mut dyn FnMut(LogStream, &str));

impl Watch for OnLine<'_> {
    fn line(&mut self, stream: LogStream, line: &str) {
        (self.0)(stream, line);
    }
}

/// How an instance's container ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    /// The instance exited with this code (0: success; the worker's codes
    /// otherwise, see `worker::exit`).
    Code(i32),
    /// The instance died of this signal (Docker reports `128 + signal`).
    Signal(i32),
    /// The kernel killed the instance for exceeding its memory limit
    /// (`State.OOMKilled`): an oom failure of the instance.
    OomKilled,
    /// The run was cancelled; the container was killed and removed.
    Cancelled,
}

impl Exit {
    /// The exit of a container whose wait returned `code`.
    pub fn from_status(code: i64, oom_killed: bool) -> Self {
        match code {
            _ if oom_killed => Exit::OomKilled,
            129..=192 => Exit::Signal((code - 128) as i32),
            _ => Exit::Code(i32::try_from(code).unwrap_or(i32::MAX)),
        }
    }
}

/// The end of an instance and what it ran in, for the report's provenance.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ContainerOutcome {
    /// How it ended.
    pub exit: Exit,
    /// The container's id (already removed).
    pub container_id: String,
    /// The image it ran.
    pub image: ImageFacts,
    /// The runtime: `docker`.
    pub runtime: &'static str,
    /// The limits Docker reported for the container (inspect, before start).
    pub applied: Limits,
}

impl Docker {
    /// Runs `spec` in a new container of `image` and returns when it has
    /// ended and been removed. Each output line goes to `on_line` (use
    /// [`print_prefixed`](super::print_prefixed) with `spec.prefix` for the
    /// terminal). A non-zero exit, a signal and an OOM kill are outcomes,
    /// not errors; errors are failures to talk to Docker or a limit Docker
    /// did not apply. The container is removed on every path, and at once
    /// when `cancel` is pulled.
    pub fn run(
        &self,
        spec: &ContainerSpec,
        image: &ImageFacts,
        cancel: &Cancel,
        on_line: &mut dyn FnMut(LogStream, &str),
    ) -> Result<ContainerOutcome, DockerError> {
        self.run_watched(spec, image, cancel, &mut OnLine(on_line))
    }

    /// [`run`](Self::run), telling `watch` the container's main process
    /// once it has started, as well as each line.
    pub fn run_watched(
        &self,
        spec: &ContainerSpec,
        image: &ImageFacts,
        cancel: &Cancel,
        watch: &mut dyn Watch,
    ) -> Result<ContainerOutcome, DockerError> {
        self.block_on(async {
            let body = container_config(spec, image, self.session());
            let created = self
                .client
                .create_container(None, body)
                .await
                .map_err(|e| DockerError::api(format!("create the container of {}", spec.prefix.trim()), e))?;
            let result = self.drive(&created.id, spec, image, cancel, watch).await;
            let removed = remove(&self.client, &created.id).await;
            let outcome = result?;
            removed?;
            Ok(outcome)
        })
    }

    /// Everything between create and remove.
    async fn drive(
        &self,
        id: &str,
        spec: &ContainerSpec,
        image: &ImageFacts,
        cancel: &Cancel,
        watch: &mut dyn Watch,
    ) -> Result<ContainerOutcome, DockerError> {
        let api = |action: &str| {
            let action = format!("{action} the container of {}", spec.prefix.trim());
            move |e| DockerError::api(action, e)
        };
        let inspect = self.client.inspect_container(id, None).await.map_err(api("inspect"))?;
        let applied = Limits::from_host_config(&inspect.host_config.unwrap_or_default());
        check_applied(&Limits::of(spec), &applied, &spec.prefix)?;
        let outcome = |exit| ContainerOutcome {
            exit,
            container_id: id.to_string(),
            image: image.clone(),
            runtime: RUNTIME_NAME,
            applied: applied.clone(),
        };
        if cancel.is_cancelled() {
            return Ok(outcome(Exit::Cancelled));
        }
        self.client.start_container(id, None).await.map_err(api("start"))?;
        let started = self.client.inspect_container(id, None).await.map_err(api("inspect"))?;
        // A container that exited already has no pid left (0).
        if let Some(pid) = started.state.and_then(|s| s.pid).and_then(|p| u32::try_from(p).ok()).filter(|&p| p > 0) {
            watch.started(pid, id);
        }
        let on_line = &mut |stream: LogStream, line: &str| watch.line(stream, line);

        let logs = async {
            let options = LogsOptionsBuilder::default().follow(true).stdout(true).stderr(true).build();
            let mut stream = self.client.logs(id, Some(options));
            let mut split = LineSplitter::default();
            while let Some(chunk) = stream.next().await {
                split.push(chunk.map_err(api("read the logs of"))?, on_line);
            }
            split.finish(on_line);
            Ok::<(), DockerError>(())
        };
        let wait = async {
            match self.client.wait_container(id, None).next().await {
                Some(Ok(response)) => Ok(response.status_code),
                // bollard reports a non-zero exit as an error carrying the code.
                Some(Err(bollard::errors::Error::DockerContainerWaitError { code, .. })) => Ok(code),
                Some(Err(e)) => Err(api("wait for")(e)),
                None => Err(DockerError::api(
                    format!("wait for the container of {}", spec.prefix.trim()),
                    bollard::errors::Error::DockerStreamError {
                        error: "the wait stream ended without a status".into(),
                    },
                )),
            }
        };
        let code = tokio::select! {
            (logs, code) = futures_util::future::join(logs, wait) => { logs?; code? }
            () = cancel.cancelled() => return Ok(outcome(Exit::Cancelled)),
        };
        let state = self.client.inspect_container(id, None).await.map_err(api("inspect"))?.state.unwrap_or_default();
        Ok(outcome(Exit::from_status(code, state.oom_killed == Some(true))))
    }
}

/// Fails when Docker did not apply a limit `asked` for.
fn check_applied(asked: &Limits, applied: &Limits, prefix: &str) -> Result<(), DockerError> {
    let checks = [
        ("cpuset", asked.cpuset_cpus.clone(), applied.cpuset_cpus.clone()),
        ("NUMA memory nodes", asked.cpuset_mems.clone(), applied.cpuset_mems.clone()),
        ("memory limit", asked.memory_bytes.map(|m| m.to_string()), applied.memory_bytes.map(|m| m.to_string())),
    ];
    for (what, asked, applied) in checks {
        if asked.is_some() && asked != applied {
            return Err(DockerError::LimitNotApplied {
                what,
                instance: prefix.trim().to_string(),
                asked: asked.unwrap_or_default(),
                applied: applied.unwrap_or_else(|| "none".into()),
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_status_mapping() {
        assert_eq!(Exit::from_status(0, false), Exit::Code(0));
        assert_eq!(Exit::from_status(3, false), Exit::Code(3));
        assert_eq!(Exit::from_status(137, false), Exit::Signal(9));
        assert_eq!(Exit::from_status(134, false), Exit::Signal(6));
        assert_eq!(Exit::from_status(137, true), Exit::OomKilled);
        assert_eq!(Exit::from_status(255, false), Exit::Code(255));
    }

    #[test]
    fn a_limit_not_applied_is_named() {
        let asked = Limits { cpuset_cpus: Some("2-3".into()), memory_bytes: Some(100), ..Default::default() };
        let applied = Limits { cpuset_cpus: Some("2-3".into()), ..Default::default() };
        let msg = check_applied(&asked, &applied, "[toy 1/2] ").unwrap_err().to_string();
        assert!(msg.contains("memory limit of instance [toy 1/2]: asked 100, applied none"), "{msg}");
        assert!(check_applied(&asked, &asked, "").is_ok());
        assert!(check_applied(&Limits::default(), &applied, "").is_ok(), "nothing asked, nothing checked");
    }
}
