//! The Docker backend (`--docker`): one container per instance, through
//! the daemon's API. Docker applies the slot's limits itself: no cgroup is
//! made for these instances.

use super::{container_config, Cancel, ContainerOutcome, Docker, DockerError, Exit, ImageFacts, LogStream, Watch};
use crate::contract::Container;
use crate::isolation::{Isolation, SlotGroup};
use crate::plan::Instance;
use crate::runtime::container::Wrapping;
use crate::runtime::{End, Output, Running, Runtime, Started, Stream};
use std::sync::Arc;
use std::thread::JoinHandle;

/// Runs instances in containers of one image.
pub struct DockerRuntime {
    /// The daemon; for `--dry-run`, why it could not be reached or the image inspected.
    docker: Result<Arc<Docker>, String>,
    image: ImageFacts,
    wrapping: Wrapping,
}

impl DockerRuntime {
    /// Connects to the daemon and inspects `image` (missing: the error says
    /// how to build it, `hint`).
    pub fn connect(image: &str, hint: &str, wrapping: Wrapping) -> Result<Self, DockerError> {
        let docker = Docker::connect()?;
        let image = docker.image(image, hint)?;
        Ok(DockerRuntime { docker: Ok(Arc::new(docker)), image, wrapping })
    }

    /// For `--dry-run`: connected as for a run when the daemon and the image
    /// are there; otherwise a runtime that describes containers of `image`
    /// by name, says why in its notes, and starts nothing.
    pub fn for_description(image: &str, hint: &str, wrapping: Wrapping) -> Self {
        Self::connect(image, hint, wrapping.clone()).unwrap_or_else(|e| DockerRuntime {
            docker: Err(e.to_string()),
            image: ImageFacts { name: image.to_string(), id: image.to_string(), digest: String::new() },
            wrapping,
        })
    }
}

impl Runtime for DockerRuntime {
    fn start(&self, instance: &Instance, _: Option<&SlotGroup>, output: Arc<dyn Output>) -> Started {
        let docker = Arc::clone(self.docker.as_ref().map_err(Clone::clone)?);
        let container = self.wrapping.spec(instance);
        let (image, cancel) = (self.image.clone(), Cancel::new());
        let stop = cancel.clone();
        let thread = std::thread::Builder::new()
            .name(format!("mlb-{}", container.prefix.trim()))
            .spawn(move || docker.run_watched(&container, &image, &stop, &mut Watched(output)))
            .map_err(|e| format!("cannot start a thread for the container: {e}"))?;
        Ok(Box::new(ContainerRun { thread: Some(thread), cancel }))
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

    fn notes(&self) -> String {
        match &self.docker {
            Ok(_) => format!("docker image: {} ({})\n", self.image.name, self.image.digest),
            Err(e) => format!("docker image: {} (not inspected: {e})\n", self.image.name),
        }
    }

    fn needs_cgroups(&self) -> bool {
        false
    }

    fn own_isolation(&self) -> Option<Isolation> {
        Some(Isolation::Docker)
    }

    fn echoes(&self) -> bool {
        true
    }

    fn finish(&self) -> Option<String> {
        match self.docker.as_ref().ok()?.remove_session() {
            Ok(0) => None,
            Ok(n) => Some(format!("removed {n} container(s) of this run left behind")),
            Err(e) => Some(format!("cannot remove the containers of this run: {e}")),
        }
    }

    fn container(&self) -> Option<Container> {
        Some(Container {
            runtime: Some(super::RUNTIME_NAME.into()),
            image: Some(self.image.name.clone()),
            digest: Some(self.image.digest.clone()),
            ..Container::default()
        })
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
            Ok(Err(e)) => End { error: Some(e.to_string()), ..End::default() },
            Err(_) => End { error: Some("the thread running the container panicked".into()), ..End::default() },
        })
    }

    fn kill(&mut self) {
        self.cancel.cancel();
    }
}

/// What the launcher makes of a container's exit.
fn end_of(exit: Exit) -> End {
    const SIGKILL: i32 = 9;
    match exit {
        Exit::Code(code) => End { code: Some(code), ..End::default() },
        Exit::Signal(signal) => End { signal: Some(signal), ..End::default() },
        Exit::OomKilled => End { signal: Some(SIGKILL), oom_killed: true, ..End::default() },
        // Killed by the launcher (timeout, Ctrl-C): it knows which.
        Exit::Cancelled => End { signal: Some(SIGKILL), ..End::default() },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exits_become_ends() {
        assert_eq!(end_of(Exit::Code(5)).code, Some(5));
        assert_eq!(end_of(Exit::Signal(11)).signal, Some(11));
        assert!(end_of(Exit::OomKilled).oom_killed);
        assert_eq!(end_of(Exit::Cancelled), End { signal: Some(9), ..End::default() });
    }
}
