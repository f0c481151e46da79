//! `--docker`: one container per instance, through
//! [`runtime::docker`](crate::runtime::docker). Docker applies the slot's
//! limits itself: no cgroup is made for these instances.

use super::container::Wrapping;
use super::lines::{Lines, Stream};
use super::runtime::{End, Running, Runtime, Started};
use crate::isolation::SlotGroup;
use crate::plan::InstanceSpec;
use crate::runtime::docker::{
    container_config, Cancel, ContainerOutcome, Docker, DockerError, Exit, ImageFacts, LogStream,
};
use std::sync::Arc;
use std::thread::JoinHandle;

/// Runs instances in containers of one image.
pub struct DockerRuntime {
    docker: Arc<Docker>,
    image: ImageFacts,
    wrapping: Wrapping,
}

impl DockerRuntime {
    /// Connects to the daemon and inspects `image` (missing: the error says
    /// how to build it, `hint`).
    pub fn connect(image: &str, hint: &str, wrapping: Wrapping) -> Result<Self, DockerError> {
        let docker = Docker::connect()?;
        let image = docker.image(image, hint)?;
        Ok(DockerRuntime { docker: Arc::new(docker), image, wrapping })
    }
}

/// The exact create body of `spec`'s container, indented, for `--dry-run`.
pub fn describe(wrapping: &Wrapping, image: &ImageFacts, spec: &InstanceSpec) -> String {
    let body = container_config(&wrapping.spec(spec), image, "SESSION");
    let json = serde_json::to_string_pretty(&body).expect("a container body serializes");
    let mut out = String::from("    docker create body:\n");
    for line in json.lines() {
        out.push_str(&format!("      {line}\n"));
    }
    out
}

impl Runtime for DockerRuntime {
    fn start(&self, spec: &InstanceSpec, _: Option<&SlotGroup>, lines: Arc<Lines>) -> Started {
        let container = self.wrapping.spec(spec);
        let (docker, image, cancel) = (Arc::clone(&self.docker), self.image.clone(), Cancel::new());
        let stop = cancel.clone();
        let thread = std::thread::Builder::new()
            .name(format!("mlb-{}", container.prefix.trim()))
            .spawn(move || {
                docker.run(&container, &image, &stop, &mut |stream, line| {
                    let stream = match stream {
                        LogStream::Stdout => Stream::Stdout,
                        LogStream::Stderr => Stream::Stderr,
                    };
                    lines.line(stream, line);
                })
            })
            .map_err(|e| format!("cannot start a thread for the container: {e}"))?;
        Ok(Box::new(ContainerRun { thread: Some(thread), cancel }))
    }

    fn echoes(&self) -> bool {
        true
    }

    fn finish(&self) -> Option<String> {
        match self.docker.remove_session() {
            Ok(0) => None,
            Ok(n) => Some(format!("removed {n} container(s) of this run left behind")),
            Err(e) => Some(format!("cannot remove the containers of this run: {e}")),
        }
    }

    fn container(&self) -> Option<serde_json::Value> {
        Some(serde_json::json!({
            "runtime": crate::runtime::docker::RUNTIME_NAME,
            "image": self.image.name,
            "digest": self.image.digest,
        }))
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
