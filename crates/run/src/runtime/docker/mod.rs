//! Docker through its API (bollard): one container per instance, with the
//! slot's cpuset, NUMA nodes, memory limit and GPU, the instance's binds and
//! environment, logs streamed with the instance's prefix, the exit (code,
//! signal or OOM kill) and the limits Docker applied, then removal.
//!
//! Synchronous API: [`Docker`] owns the async runtime that drives the client.
//!
//! ```no_run
//! # use mlb_run::runtime::docker::{Cancel, Docker, print_prefixed};
//! # use mlb_run::runtime::{images::ImageMap, spec::ContainerSpec};
//! # fn f(spec: ContainerSpec) -> Result<(), Box<dyn std::error::Error>> {
//! let docker = Docker::connect()?;
//! let map = ImageMap::builtin();
//! let image = docker.image("mlb:ngc", &map.build_hint("mlb:ngc"))?;
//! let cancel = Cancel::new(); // clone it into the Ctrl-C/SIGTERM handler
//! let outcome = docker.run(&spec, &image, &cancel, &mut |stream, line| print_prefixed(&spec.prefix, stream, line))?;
//! docker.remove_session()?; // on every exit path
//! # Ok(()) }
//! ```

mod backend;
mod build;
mod cancel;
mod client;
mod config;
mod error;
mod image;
mod logs;
mod run;

pub use backend::DockerRuntime;
pub use build::{build_context, BuildRequest, CONTEXT_ENTRIES};
pub use cancel::Cancel;
pub use client::{Docker, DEFAULT_ENDPOINT, INSTANCE_LABEL, JOB_LABEL, RUN_LABEL, SESSION_LABEL};
pub use config::{container_config, container_env, Limits, RUNTIME_NAME};
pub use error::DockerError;
pub use image::ImageFacts;
pub use logs::{print_prefixed, LogStream};
pub use run::{ContainerOutcome, Exit, Watch};
