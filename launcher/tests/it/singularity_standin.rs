//! Singularity/Apptainer end to end against a STAND-IN: Apptainer cannot be
//! installed on the machines that run these tests, so each test writes a
//! small `apptainer` script that honours the `exec` contract mlb relies on,
//! and runs the real `mlb worker` on spin through the command mlb builds:
//!
//! - `--bind SRC:DST[:ro]`: real bind mounts in a private mount namespace
//!   (`unshare --mount`), read-only ones remounted read-only;
//! - `--cleanenv`: the host environment is dropped; only `APPTAINERENV_*`
//!   variables enter, without their prefix;
//! - `--pwd DIR`: the working directory;
//! - `--nv` / `--rocm`: accepted and recorded (no GPU here).
//!
//! What the stand-in does not do is swap the root filesystem for the image's:
//! the instance runs the host's `mlb`. The image file must exist.

use crate::common;

use mlb::gpu::{ContainerGpus, DeviceIndex, Vendor};
use mlb::runtime::singularity::{ContainerCli, Flavor, SingularityImage};
use mlb::runtime::spec::{Bind, ContainerSpec, Labels, Resources};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// A folder holding the stand-in `apptainer`, and an image file.
struct StandIn {
    dir: tempfile::TempDir,
    image: SingularityImage,
}

impl StandIn {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let program = dir.path().join("bin/apptainer");
        std::fs::create_dir_all(program.parent().unwrap()).unwrap();
        std::fs::write(&program, common::standin::STAND_IN).unwrap();
        std::fs::set_permissions(&program, std::fs::Permissions::from_mode(0o755)).unwrap();
        let sif = dir.path().join("mlb-ngc.sif");
        std::fs::write(&sif, "stand-in image").unwrap();
        let image = SingularityImage::open(&sif).unwrap();
        StandIn { dir, image }
    }

    fn cli(&self) -> ContainerCli {
        let cli = ContainerCli::find_in(self.dir.path().join("bin").as_os_str()).unwrap();
        assert_eq!(cli.flavor, Flavor::Apptainer);
        cli
    }

    /// A path "inside the container" (created by the stand-in as a mount point).
    fn inside(&self, name: &str) -> PathBuf {
        self.dir.path().join("ctr").join(name)
    }
}

fn spec(argv: Vec<String>, binds: Vec<Bind>, workdir: &Path) -> ContainerSpec {
    ContainerSpec {
        argv,
        env: vec![
            ("SUITE_NAME".into(), "sing".into()),
            ("BENCH_NAME".into(), "spin_sing".into()),
            ("RUN_ID".into(), "5".into()),
            ("JOB_ID".into(), "1".into()),
            ("CUDA_VISIBLE_DEVICES".into(), "1".into()),
        ],
        workdir: Some(workdir.into()),
        resources: Resources {
            gpus: Some(ContainerGpus { vendor: Vendor::Nvidia, devices: vec![DeviceIndex(1)] }),
            ..Default::default()
        },
        binds,
        labels: Labels { run_id: "5".into(), job: "spin_sing".into(), instance: 1 },
        prefix: "[spin_sing 1] ".into(),
        shm_bytes: None,
    }
}

#[test]
fn worker_runs_through_the_exec_command_with_binds_env_and_workdir() {
    let stand_in = StandIn::new();
    let out = tempfile::tempdir().unwrap();
    let plugin_dir = common::spin_plugin().parent().unwrap().to_path_buf();
    let (ctr_out, ctr_plugins) = (stand_in.inside("out"), stand_in.inside("plugins"));
    let argv = [
        common::mlb().to_str().unwrap(),
        "worker",
        "--plugin",
        ctr_plugins.join("libmlb_spin.so").to_str().unwrap(),
        "--config",
        r#"{"repeat": 12, "number": 2, "size": 8}"#,
        "--outdir",
        ".",
    ]
    .map(String::from)
    .to_vec();
    let binds = vec![Bind::rw(out.path(), &ctr_out), Bind::ro(&plugin_dir, &ctr_plugins)];
    let spec = spec(argv, binds, &ctr_out);
    let output = stand_in.cli().launch(&stand_in.image, &spec).command(&[]).output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert!(stderr.contains("stand-in: gpu=nvidia"), "--nv passed for an NVIDIA slot: {stderr}");

    // The report went through the read-write bind; identity came from the prefixed variables.
    let (name, report) = common::only_report(out.path());
    assert!(name.starts_with("sing.spin_sing.R5.D1."), "{name}");
    assert_eq!((report["jr_id"].as_str(), report["completed"].as_bool()), (Some("1"), Some(true)));
    let container = &report["provenance"]["container"];
    assert_eq!(container["runtime"], "apptainer");
    assert_eq!(container["image"], stand_in.image.path.to_str().unwrap());
    assert_eq!(container["digest"], stand_in.image.digest.as_str());
    assert!(std::fs::read_dir(&ctr_out).unwrap().next().is_none(), "the mount point itself stays empty");
}

#[test]
fn environment_is_clean_and_read_only_binds_refuse_writes() {
    let stand_in = StandIn::new();
    let data = tempfile::tempdir().unwrap();
    let ctr_data = stand_in.inside("data");
    let script = format!("pwd; env | sort; touch {}/x || echo WRITE REFUSED", ctr_data.display());
    let argv = ["sh", "-c", &script].map(String::from).to_vec();
    let spec = spec(argv, vec![Bind::ro(data.path(), &ctr_data)], &ctr_data);
    let mut command = stand_in.cli().launch(&stand_in.image, &spec).command(&[]);
    command.env("HOST_ONLY_SECRET", "leak");
    let output = command.output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines[0], ctr_data.to_str().unwrap(), "--pwd");
    for var in ["JOB_ID=1", "RUN_ID=5", "CUDA_VISIBLE_DEVICES=1", "MLB_CONTAINER_RUNTIME=apptainer"] {
        assert!(lines.contains(&var), "{var} missing: {stdout}");
    }
    assert!(!stdout.contains("HOST_ONLY_SECRET"), "--cleanenv keeps the host environment out: {stdout}");
    assert!(stdout.contains("WRITE REFUSED"), "{stdout}");
    assert_eq!(std::fs::read_dir(data.path()).unwrap().count(), 0);
}
