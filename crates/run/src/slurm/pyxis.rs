//! pyxis, the srun plugin that runs tasks in containers imported by enroot:
//! whether this cluster's srun has it, the flags of a step in an image, and
//! the backend of `--slurm --docker` ([`Pyxis`]): each task a bare process
//! that the step runs in the image.

use crate::plan::Instance;
use crate::runtime::bare::Bare;
use crate::runtime::spec::Bind;
use crate::runtime::{Backend, Launch, ProcessLaunch, RuntimeError, Traits, Wrapper};
use std::process::Command;

/// Runs instances as planned, in the image the step runs them in.
pub struct Pyxis {
    bare: Bare,
    flags: Vec<String>,
    traits: Traits,
}

impl Pyxis {
    /// Tasks in `image`, seeing `binds`.
    pub fn new(image: &str, binds: &[Bind]) -> Self {
        Pyxis { bare: Bare::new(), flags: flags(image, binds), traits: Traits::default() }
    }
}

impl Backend for Pyxis {
    fn launch(&self, instance: &Instance) -> Result<Launch, RuntimeError> {
        let process = self.bare.process(instance);
        Ok(Launch::Process(ProcessLaunch { wrapper: Wrapper::Step { flags: self.flags.clone() }, ..process }))
    }

    fn describe(&self, _: &Instance) -> String {
        String::new()
    }

    fn traits(&self) -> &Traits {
        &self.traits
    }
}

/// Whether `srun --help` lists pyxis's `--container-image`.
pub fn present() -> bool {
    Command::new("srun")
        .arg("--help")
        .output()
        .is_ok_and(|out| String::from_utf8_lossy(&out.stdout).contains("--container-image"))
}

/// An image name as enroot reads it: `nvcr.io/nvidia/pytorch:24.01-py3`
/// becomes `nvcr.io#nvidia/pytorch:24.01-py3` (a registry is separated by
/// `#`); a Docker Hub name is left as it is.
pub fn enroot_image(image: &str) -> String {
    match image.split_once('/') {
        Some((registry, rest)) if registry.contains('.') || registry.contains(':') || registry == "localhost" => {
            format!("{registry}#{rest}")
        }
        _ => image.to_string(),
    }
}

/// The srun flags that run every task of a step in `image`: the binds (the
/// output, data and jobs folders, mlb and the plugins, at their host paths),
/// and one named container per image on each node, so that each node
/// imports the image once and later steps reuse it.
pub fn flags(image: &str, binds: &[Bind]) -> Vec<String> {
    let mounts: Vec<String> = binds
        .iter()
        .map(|b| {
            let mode = if b.read_only { ":ro" } else { "" };
            format!("{}:{}{mode}", b.host.display(), b.container.display())
        })
        .collect();
    let name: String =
        image.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '.' { c } else { '_' }).collect();
    vec![
        format!("--container-image={}", enroot_image(image)),
        format!("--container-mounts={}", mounts.join(",")),
        format!("--container-name=mlb-{name}"),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn enroot_names() {
        assert_eq!(enroot_image("nvcr.io/nvidia/pytorch:24.01-py3"), "nvcr.io#nvidia/pytorch:24.01-py3");
        assert_eq!(enroot_image("rocm/pytorch:latest"), "rocm/pytorch:latest");
        assert_eq!(enroot_image("ubuntu"), "ubuntu");
    }

    #[test]
    fn step_flags() {
        let binds =
            vec![Bind::rw(Path::new("/out"), Path::new("/out")), Bind::ro(Path::new("/data"), Path::new("/data"))];
        assert_eq!(
            flags("nvcr.io/nvidia/pytorch:24.01-py3", &binds),
            vec![
                "--container-image=nvcr.io#nvidia/pytorch:24.01-py3".to_string(),
                "--container-mounts=/out:/out,/data:/data:ro".to_string(),
                "--container-name=mlb-nvcr.io_nvidia_pytorch_24.01-py3".to_string(),
            ]
        );
    }
}
