//! Singularity/Apptainer through its command line: one `exec` per instance.
//!
//! Apptainer runs in the host's cgroup namespace and sets no limits itself,
//! so the launcher places the `exec` process in the slot's cgroup (add its
//! `pre_exec` placement to the [`Command`] built here, or move the child
//! before it starts the workload) exactly as for a bare instance.

use crate::runtime::spec::ContainerSpec;
use crate::runtime::{ProcessLaunch, Wrapper};
use mlb_record::contract::env as vars;
use mlb_record::contract::Container;
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

/// Which command line tool runs the images.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flavor {
    /// `apptainer` (the Linux Foundation project).
    Apptainer,
    /// `singularity` (SingularityCE, or Singularity before the rename).
    Singularity,
}

impl Flavor {
    /// The program's name, also recorded as the container runtime.
    pub fn program(self) -> &'static str {
        match self {
            Flavor::Apptainer => "apptainer",
            Flavor::Singularity => "singularity",
        }
    }

    /// Prefix of host variables the tool passes into a `--cleanenv` container.
    pub fn env_prefix(self) -> &'static str {
        match self {
            Flavor::Apptainer => "APPTAINERENV_",
            Flavor::Singularity => "SINGULARITYENV_",
        }
    }
}

/// Singularity/Apptainer is unusable.
#[derive(Debug, thiserror::Error)]
pub enum SingularityError {
    /// Neither tool is installed.
    #[error(
        "neither `apptainer` nor `singularity` is on PATH: install Apptainer \
         (https://apptainer.org/docs/admin/main/installation.html) or run with --docker or bare"
    )]
    NotInstalled,
    /// The image file cannot be read.
    #[error("cannot read the Singularity image {path}: {source}; build it with `apptainer build IMAGE.sif Singularity.KIND`")]
    Image {
        /// The image file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
}

/// An installed `apptainer` or `singularity`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ContainerCli {
    /// The program's path.
    pub program: PathBuf,
    /// Which tool it is.
    pub flavor: Flavor,
}

impl ContainerCli {
    /// The first `apptainer`, else the first `singularity`, on `PATH`.
    pub fn find() -> Result<Self, SingularityError> {
        Self::find_in(&std::env::var_os("PATH").unwrap_or_default())
    }

    /// As [`ContainerCli::find`], searching the folders of `path` (a `PATH` value).
    pub fn find_in(path: &OsStr) -> Result<Self, SingularityError> {
        [Flavor::Apptainer, Flavor::Singularity]
            .into_iter()
            .find_map(|flavor| {
                std::env::split_paths(path)
                    .map(|dir| dir.join(flavor.program()))
                    .find(|p| is_executable(p))
                    .map(|program| ContainerCli { program, flavor })
            })
            .ok_or(SingularityError::NotInstalled)
    }

    /// The arguments after the program: `exec`, the GPU flag (`--nv`,
    /// `--rocm`), `--cleanenv`, a `--bind` per bind, `--pwd`, the image, the
    /// instance's argv.
    pub fn exec_args(&self, image: &SingularityImage, spec: &ContainerSpec) -> Vec<OsString> {
        let mut args: Vec<OsString> = vec!["exec".into()];
        if let Some(gpus) = &spec.resources.gpus {
            args.push(gpus.vendor.ops().apptainer_flag().into());
        }
        args.push("--cleanenv".into());
        for bind in &spec.binds {
            let mut value = bind.host.clone().into_os_string();
            value.push(":");
            value.push(&bind.container);
            if bind.read_only {
                value.push(":ro");
            }
            args.extend(["--bind".into(), value]);
        }
        if let Some(dir) = &spec.workdir {
            args.extend(["--pwd".into(), dir.clone().into_os_string()]);
        }
        args.push(image.path.clone().into_os_string());
        args.extend(spec.argv.iter().map(OsString::from));
        args
    }

    /// The instance's environment as the tool's prefixed host variables:
    /// the spec's, plus the `MLB_*` provenance variables.
    pub fn exec_env(&self, image: &SingularityImage, spec: &ContainerSpec) -> Vec<(String, String)> {
        let prefix = self.flavor.env_prefix();
        let own = vars::container_env(&Container {
            runtime: Some(self.flavor.program().into()),
            image: Some(image.path.to_string_lossy().into_owned()),
            digest: Some(image.digest.clone()),
            limits: None,
        });
        let mut env: Vec<(String, String)> =
            spec.env.iter().filter(|(k, _)| !own.iter().any(|(o, _)| o == k)).cloned().chain(own.clone()).collect();
        for (key, _) in &mut env {
            key.insert_str(0, prefix);
        }
        env
    }

    /// The `exec` process of one instance: the host's environment is kept
    /// for the tool itself (minus any stray prefixed variables), and
    /// `--cleanenv` keeps it out of the container.
    pub fn launch(&self, image: &SingularityImage, spec: &ContainerSpec) -> ProcessLaunch {
        let args = self.exec_args(image, spec).into_iter().map(|a| a.to_string_lossy().into_owned());
        ProcessLaunch {
            argv: std::iter::once(self.program.display().to_string()).chain(args).collect(),
            env: self.exec_env(image, spec),
            wrapper: Wrapper::Exec { env_prefix: self.flavor.env_prefix().to_string() },
        }
    }
}

/// An image file (`.sif`) and its digest, computed once per run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SingularityImage {
    /// The image file.
    pub path: PathBuf,
    /// `sha256:` of the file's content.
    pub digest: String,
}

impl SingularityImage {
    /// Opens `path` and hashes it (reads the whole file once).
    pub fn open(path: &Path) -> Result<Self, SingularityError> {
        let err = |source| SingularityError::Image { path: path.into(), source };
        let file = std::fs::File::open(path).map_err(err)?;
        let (_, sha256) = mlb_record::digest::sha256_of(file).map_err(err)?;
        Ok(SingularityImage { path: path.into(), digest: format!("sha256:{sha256}") })
    }
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.metadata().is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpu::{ContainerGpus, DeviceIndex, Vendor};
    use crate::runtime::spec::{Bind, Resources};

    fn gpus(vendor: Vendor, devices: &[u32]) -> Option<ContainerGpus> {
        Some(ContainerGpus { vendor, devices: devices.iter().copied().map(DeviceIndex).collect() })
    }

    fn image() -> SingularityImage {
        SingularityImage { path: "/img/mlb-ngc.sif".into(), digest: "sha256:ab".into() }
    }

    fn spec(gpus: Option<ContainerGpus>) -> ContainerSpec {
        ContainerSpec {
            argv: vec!["mlb".into(), "worker".into(), "--plugin".into(), "/opt/p.so".into()],
            env: vec![("JOB_ID".into(), "2".into()), ("CUDA_VISIBLE_DEVICES".into(), "2".into())],
            workdir: Some("/out".into()),
            resources: Resources { gpus, ..Default::default() },
            binds: vec![Bind::rw("/res", "/out"), Bind::ro("/data", "/data")],
            ..Default::default()
        }
    }

    fn strings(args: Vec<OsString>) -> Vec<String> {
        args.into_iter().map(|a| a.into_string().unwrap()).collect()
    }

    #[test]
    fn command_per_host_kind() {
        let cli = ContainerCli { program: "/usr/bin/apptainer".into(), flavor: Flavor::Apptainer };
        let tail = [
            "--cleanenv",
            "--bind",
            "/res:/out",
            "--bind",
            "/data:/data:ro",
            "--pwd",
            "/out",
            "/img/mlb-ngc.sif",
            "mlb",
            "worker",
            "--plugin",
            "/opt/p.so",
        ];
        let with = |flag: Option<&'static str>| ["exec"].into_iter().chain(flag).chain(tail).collect::<Vec<_>>();
        // ngc and powerai: NVIDIA; rocm: AMD; a GPU-less host: neither flag.
        assert_eq!(strings(cli.exec_args(&image(), &spec(gpus(Vendor::Nvidia, &[2])))), with(Some("--nv")));
        let rocm = spec(gpus(Vendor::Amd, &[2]));
        assert_eq!(strings(cli.exec_args(&image(), &rocm)), with(Some("--rocm")));
        assert_eq!(strings(cli.exec_args(&image(), &spec(None))), with(None));
    }

    #[test]
    fn environment_goes_through_prefixed_variables() {
        for (flavor, prefix) in [(Flavor::Apptainer, "APPTAINERENV_"), (Flavor::Singularity, "SINGULARITYENV_")] {
            let cli = ContainerCli { program: flavor.program().into(), flavor };
            let env = cli.exec_env(&image(), &spec(gpus(Vendor::Nvidia, &[2])));
            let get = |k: &str| env.iter().find(|(key, _)| key == &format!("{prefix}{k}")).map(|(_, v)| v.as_str());
            assert_eq!(get("JOB_ID"), Some("2"));
            assert_eq!(get("CUDA_VISIBLE_DEVICES"), Some("2"), "--nv shows every GPU: host index kept");
            assert_eq!(get(vars::CONTAINER_RUNTIME), Some(flavor.program()));
            assert_eq!(get(vars::CONTAINER_IMAGE), Some("/img/mlb-ngc.sif"));
            assert_eq!(get(vars::CONTAINER_DIGEST), Some("sha256:ab"));
            assert!(env.iter().all(|(k, _)| k.starts_with(prefix)));
        }
    }

    #[test]
    fn finds_apptainer_first_then_singularity_else_says_what_to_install() {
        use std::os::unix::fs::PermissionsExt;
        let a = tempfile::tempdir().unwrap();
        let b = tempfile::tempdir().unwrap();
        let make = |dir: &Path, name: &str, mode: u32| {
            std::fs::write(dir.join(name), "#!/bin/sh\n").unwrap();
            std::fs::set_permissions(dir.join(name), std::fs::Permissions::from_mode(mode)).unwrap();
        };
        let path = std::env::join_paths([a.path(), b.path()]).unwrap();
        let err = ContainerCli::find_in(&path).unwrap_err().to_string();
        assert!(err.contains("neither `apptainer` nor `singularity`") && err.contains("install Apptainer"), "{err}");
        make(a.path(), "apptainer", 0o644); // not executable: skipped
        make(a.path(), "singularity", 0o755);
        assert_eq!(ContainerCli::find_in(&path).unwrap().flavor, Flavor::Singularity);
        make(b.path(), "apptainer", 0o755);
        let found = ContainerCli::find_in(&path).unwrap();
        assert_eq!((found.flavor, found.program), (Flavor::Apptainer, b.path().join("apptainer")));
    }

    #[test]
    fn image_digest_is_the_content_hash() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("x.sif");
        std::fs::write(&file, "abc").unwrap();
        let digest = SingularityImage::open(&file).unwrap().digest;
        assert_eq!(digest, "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        let err = SingularityImage::open(&dir.path().join("none.sif")).unwrap_err().to_string();
        assert!(err.contains("none.sif") && err.contains("apptainer build"), "{err}");
    }
}
