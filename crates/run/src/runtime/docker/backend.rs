//! The Docker backend (`--docker`): one container per instance, through
//! the daemon's API. Docker applies the slot's limits itself: no cgroup is
//! made for these instances.

use super::{container_config, Cancel, ContainerOutcome, Docker, DockerError, Exit, ImageFacts, LogStream, Watch};
use crate::isolation::Isolation;
use crate::plan::Instance;
use crate::runtime::container::Wrapping;
use crate::runtime::spec::ContainerSpec;
use crate::runtime::{Backend, ContainerLaunch, End, Gone, Launch, Output, Running, RuntimeError, Stream, Traits};
use mlb_record::contract::Container;
use std::sync::Arc;
use std::thread::JoinHandle;

/// How long the daemon may take to answer whether it is still there.
const PING_WITHIN: std::time::Duration = std::time::Duration::from_secs(10);

/// Runs instances in containers of one image.
pub struct DockerRuntime {
    /// The daemon; for `--dry-run`, why it could not be reached or the image inspected.
    docker: Result<Arc<Docker>, Arc<DockerError>>,
    image: ImageFacts,
    wrapping: Wrapping,
    traits: Traits,
}

impl DockerRuntime {
    /// Connects to the daemon and inspects `image` (missing: the error says
    /// how to build it, `hint`).
    pub fn connect(image: &str, hint: &str, wrapping: Wrapping) -> Result<Self, DockerError> {
        let docker = Docker::connect()?;
        let image = docker.image(image, hint)?;
        Ok(Self::new(Ok(Arc::new(docker)), image, wrapping))
    }

    /// For `--dry-run`: connected as for a run when the daemon and the image
    /// are there; otherwise a runtime that describes containers of `image`
    /// by name, says why in its notes, and starts nothing.
    pub fn for_description(image: &str, hint: &str, wrapping: Wrapping) -> Self {
        Self::connect(image, hint, wrapping.clone()).unwrap_or_else(|e| {
            let facts = ImageFacts { name: image.to_string(), id: image.to_string(), digest: String::new() };
            Self::new(Err(Arc::new(e)), facts, wrapping)
        })
    }

    fn new(docker: Result<Arc<Docker>, Arc<DockerError>>, image: ImageFacts, wrapping: Wrapping) -> Self {
        let notes = match &docker {
            Ok(_) => format!("docker image: {} ({})\n", image.name, image.digest),
            Err(e) => format!("docker image: {} (not inspected: {})\n", image.name, mlb_record::fix::one_line(&**e)),
        };
        let traits = Traits {
            isolation: Some(Isolation::Docker),
            echoes: true,
            container: Some(Container {
                runtime: Some(super::RUNTIME_NAME.into()),
                image: Some(image.name.clone()),
                digest: Some(image.digest.clone()),
                ..Container::default()
            }),
            notes,
        };
        DockerRuntime { docker, image, wrapping, traits }
    }
}

impl Backend for DockerRuntime {
    fn launch(&self, instance: &Instance) -> Result<Launch, RuntimeError> {
        let docker = Arc::clone(self.docker.as_ref().map_err(|e| RuntimeError::Docker(Arc::clone(e)))?);
        let container = self.wrapping.spec(instance);
        Ok(Launch::Container(Box::new(DockerLaunch { docker, container, image: self.image.clone() })))
    }

    /// The exact create body of the instance's container.
    fn describe(&self, instance: &Instance) -> String {
        let body = container_config(&self.wrapping.spec(instance), &self.image, "SESSION");
        let json = serde_json::to_string_pretty(&body).expect("a container body serializes");
        let mut out = String::from("    docker create body:\n");
        for line in json.lines() {
            out.push_str(&format!("      {line}\n"));
        }
        out
    }

    fn traits(&self) -> &Traits {
        &self.traits
    }

    fn remove_left_by(&self, launcher: u32) -> Option<String> {
        match self.docker.as_ref().ok()?.remove_launched_by(launcher) {
            Ok(0) => None,
            Ok(n) => Some(format!(
                "removed {n} container(s) left by the run of launcher pid {launcher} (ended without removing them)"
            )),
            Err(e) => Some(format!("warning: the containers of launcher pid {launcher} stay: {e}")),
        }
    }

    fn gone(&self) -> Option<Gone> {
        let docker = self.docker.as_ref().ok()?;
        let DockerError::Unreachable { source, .. } = docker.answers(PING_WITHIN).err()? else { return None };
        Some(Gone {
            why: format!("the Docker daemon at {} stopped answering during the run: {source}", docker.endpoint()),
            fix: "start the Docker daemon again (`sudo systemctl start docker`), then run again with --resume".into(),
        })
    }

    fn close(&self) -> Option<String> {
        match self.docker.as_ref().ok()?.remove_session() {
            Ok(0) => None,
            Ok(n) => Some(format!("removed {n} container(s) of this run left behind")),
            Err(e) => Some(format!("cannot remove the containers of this run: {e}")),
        }
    }
}

/// One instance's container, ready to be run by the daemon.
struct DockerLaunch {
    docker: Arc<Docker>,
    container: ContainerSpec,
    image: ImageFacts,
}

impl ContainerLaunch for DockerLaunch {
    /// Runs the container from a thread of its own.
    fn start(self: Box<Self>, output: Arc<dyn Output>) -> Result<Box<dyn Running>, RuntimeError> {
        let DockerLaunch { docker, container, image } = *self;
        let cancel = Cancel::new();
        let stop = cancel.clone();
        let thread = std::thread::Builder::new()
            .name(format!("mlb-{}", container.prefix.trim()))
            .spawn(move || docker.run_watched(&container, &image, &stop, &mut Watched(output)))
            .map_err(RuntimeError::Thread)?;
        Ok(Box::new(ContainerRun { thread: Some(thread), cancel }))
    }
}

/// An instance's output, told what its container does.
struct Watched(Arc<dyn Output>);

impl Watch for Watched {
    fn line(&mut self, stream: LogStream, line: &str) {
        let stream = match stream {
            LogStream::Stdout => Stream::Stdout,
            LogStream::Stderr => Stream::Stderr,
        };
        self.0.line(stream, line);
    }

    fn started(&mut self, pid: u32, id: &str) {
        self.0.started(pid, id);
    }
}

/// An instance's container, run by a thread of its own.
struct ContainerRun {
    thread: Option<JoinHandle<Result<ContainerOutcome, DockerError>>>,
    cancel: Cancel,
}

impl Running for ContainerRun {
    fn poll(&mut self) -> Option<End> {
        if !self.thread.as_ref()?.is_finished() {
            return None;
        }
        let result = self.thread.take()?.join();
        Some(match result {
            Ok(Ok(outcome)) => end_of(outcome.exit),
            Ok(Err(e)) => End::Failed(RuntimeError::Docker(Arc::new(e))),
            Err(_) => End::Failed(RuntimeError::Panicked),
        })
    }

    fn kill(&mut self) {
        self.cancel.cancel();
    }
}

/// What the launcher makes of a container's exit.
fn end_of(exit: Exit) -> End {
    const SIGKILL: i32 = 9;
    let (code, signal, oom_killed) = match exit {
        Exit::Code(code) => (Some(code), None, false),
        Exit::Signal(signal) => (None, Some(signal), false),
        Exit::OomKilled => (None, Some(SIGKILL), true),
        // Killed by the launcher (timeout, Ctrl-C): it knows which.
        Exit::Cancelled => (None, Some(SIGKILL), false),
    };
    End::Exit { code, signal, oom_killed }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exits_become_ends() {
        let exit = |code, signal, oom_killed| Some((code, signal, oom_killed));
        let of = |e| match end_of(e) {
            End::Exit { code, signal, oom_killed } => Some((code, signal, oom_killed)),
            _ => None,
        };
        assert_eq!(of(Exit::Code(5)), exit(Some(5), None, false));
        assert_eq!(of(Exit::Signal(11)), exit(None, Some(11), false));
        assert_eq!(of(Exit::OomKilled), exit(None, Some(9), true));
        assert_eq!(of(Exit::Cancelled), exit(None, Some(9), false));
    }
}
