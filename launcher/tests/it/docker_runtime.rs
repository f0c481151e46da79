//! The Docker runtime against a real Docker daemon and a real image (the
//! local test image: the `mlb` and spin plugin of this build, imported
//! without any registry by `scripts/build-test-image.sh`): real containers,
//! real cpusets and memory limits, real OOM kills.
//!
//! These tests need a running daemon: they FAIL (they do not skip) when it
//! is unreachable; run `scripts/setup-docker.sh` as root first.

use crate::common;
use mlb_record::fix::Fix;

use common::docker::{docker, test_image};
use mlb::isolation::Isolation;
use mlb::runtime::docker::{Cancel, ContainerOutcome, Docker, Exit, ImageFacts, LogStream, RUN_LABEL, SESSION_LABEL};
use mlb::runtime::images::{ImageMap, IMAGE_MLB, IMAGE_PLUGIN_DIR};
use mlb::runtime::spec::{Bind, ContainerSpec, Labels, Resources};
use std::path::Path;
use std::process::Command;

const MIB: u64 = 1 << 20;

/// A daemon, the test image, an output folder and a run id of its own (so
/// tests running side by side never see each other's containers).
struct Fixture {
    docker: Docker,
    image: ImageFacts,
    out: tempfile::TempDir,
    run_id: String,
}

impl Fixture {
    fn new(test: &str) -> Self {
        let docker = docker();
        let image = test_image(&docker);
        Fixture {
            docker,
            image,
            out: tempfile::tempdir().unwrap(),
            run_id: format!("test-{}-{test}", std::process::id()),
        }
    }

    /// `mlb worker` on spin inside the image, writing into the output folder bound at `/out`.
    fn worker(&self, config: &str, instance: u32, extra: &[&str]) -> ContainerSpec {
        let plugin = format!("{IMAGE_PLUGIN_DIR}/libmlb_spin.so");
        let mut argv: Vec<String> =
            [IMAGE_MLB, "worker", "--plugin", &plugin, "--config", config].map(String::from).into();
        argv.extend(extra.iter().map(|s| s.to_string()));
        ContainerSpec {
            argv,
            env: vec![
                ("SUITE_NAME".into(), "dockertest".into()),
                ("BENCH_NAME".into(), "spin_docker".into()),
                ("RUN_ID".into(), "42".into()),
                ("JOB_ID".into(), instance.to_string()),
                ("OUTPUT_DIRECTORY".into(), "/out".into()),
            ],
            workdir: None,
            resources: Resources::default(),
            binds: vec![Bind::rw(self.out.path(), "/out")],
            labels: Labels { run_id: self.run_id.clone(), job: "spin_docker".into(), instance },
            prefix: format!("[spin_docker {instance}] "),
            shm_bytes: Some(64 * MIB),
        }
    }

    /// Runs `spec`, returning the outcome and the lines it printed.
    fn run(&self, spec: &ContainerSpec) -> (ContainerOutcome, Vec<(LogStream, String)>) {
        let mut lines = Vec::new();
        let outcome = self
            .docker
            .run(spec, &self.image, &Cancel::new(), &mut |stream, line| lines.push((stream, line.to_string())))
            .unwrap_or_else(|e| panic!("{}: {e}", spec.prefix));
        (outcome, lines)
    }

    /// The reports in the output folder.
    fn reports(&self) -> Vec<(String, serde_json::Value)> {
        common::reports(self.out.path())
    }

    fn assert_no_container_left(&self) {
        let left = self.docker.containers_labelled(RUN_LABEL, &self.run_id).unwrap();
        assert_eq!(left, Vec::<String>::new(), "containers left behind");
    }
}

#[test]
fn two_slots_run_with_their_cpuset_and_memory_applied_and_seen() {
    let fx = Fixture::new("slots");
    let config = r#"{"repeat": 12, "number": 3, "size": 48}"#;
    let mut slots = Vec::new();
    for (i, (cpus, memory)) in [("0", 256 * MIB), ("1", 192 * MIB)].into_iter().enumerate() {
        let mut spec = fx.worker(config, i as u32, &["--vcd", &i.to_string()]);
        spec.resources = Resources {
            cpus: Some(cpus.into()),
            mems: Some("0".into()),
            memory_bytes: Some(memory),
            ..Default::default()
        };
        slots.push(spec);
    }
    // The second instance finds its output folder through its working directory.
    slots[1].workdir = Some("/out".into());
    slots[1].env.retain(|(k, _)| k != "OUTPUT_DIRECTORY");
    slots[1].env.push(("OUTPUT_DIRECTORY".into(), ".".into()));

    // Both at once, as the launcher starts the instances of a job.
    let results: Vec<_> = std::thread::scope(|s| {
        let handles: Vec<_> = slots.iter().map(|spec| s.spawn(|| fx.run(spec))).collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });

    let reports = fx.reports();
    assert_eq!(reports.len(), 2, "one report per instance: {reports:?}");
    for (spec, (outcome, lines)) in slots.iter().zip(&results) {
        let r = &spec.resources;
        let i = spec.labels.instance;
        assert_eq!(outcome.exit, Exit::Code(0), "{lines:?}");
        assert_eq!(outcome.runtime, "docker");
        assert_eq!(outcome.image, fx.image);
        // Applied: what Docker reports for the container.
        assert_eq!(outcome.applied.cpuset_cpus, r.cpus);
        assert_eq!(outcome.applied.memory_bytes, r.memory_bytes);
        assert_eq!(outcome.applied.memory_swap_bytes, r.memory_bytes, "no swap beyond the limit");
        assert_eq!(outcome.applied.cpuset_mems.as_deref(), Some("0"));
        // Streamed: every observation line, then the report line.
        let stdout: Vec<&str> =
            lines.iter().filter(|(s, _)| *s == LogStream::Stdout).map(|(_, l)| l.as_str()).collect();
        assert_eq!(stdout.iter().filter(|l| l.starts_with('[')).count(), 12, "{stdout:?}");
        let last = stdout.last().unwrap();
        assert!(
            last.starts_with("report: ") && last.contains(&format!("/dockertest.spin_docker.R42.D{i}.")),
            "{stdout:?}"
        );
        // Seen from inside: the worker's own provenance.
        let (name, report) = reports
            .iter()
            .find(|(_, r)| r["jr_id"].as_str().and_then(|s| s.parse().ok()) == Some(i))
            .expect("report of instance");
        assert!(name.starts_with(&format!("dockertest.spin_docker.R42.D{i}.")), "{name}");
        assert_eq!(report["completed"], true);
        let p = &report["provenance"];
        assert_eq!(p["cpus"], r.cpus.clone().unwrap(), "{p}");
        assert_eq!(p["cpu_count"], 1);
        assert_eq!(p["memory_limit_bytes"], r.memory_bytes.unwrap(), "{p}");
        assert_eq!(p["isolation"], Isolation::Docker.name());
        let c = &p["container"];
        assert_eq!((c["runtime"].as_str(), c["image"].as_str()), (Some("docker"), Some(fx.image.name.as_str())));
        assert_eq!(c["digest"], fx.image.digest.as_str());
        assert!(c["digest"].as_str().unwrap().starts_with("sha256:"));
        let limits = &c["limits"];
        assert_eq!(limits["cpuset_cpus"], r.cpus.clone().unwrap());
        assert_eq!(limits["memory_bytes"], r.memory_bytes.unwrap());
    }
    fx.assert_no_container_left();
}

#[test]
fn over_allocation_is_reported_oom_killed() {
    let fx = Fixture::new("oom");
    let mut spec = fx.worker(r#"{"repeat": 12, "number": 1, "size": 8, "alloc_mb": 256, "alloc_at": 2}"#, 0, &[]);
    spec.resources.memory_bytes = Some(64 * MIB);
    let (outcome, lines) = fx.run(&spec);
    assert_eq!(outcome.exit, Exit::OomKilled, "{lines:?}");
    assert!(lines.iter().any(|(_, l)| l.starts_with("[  1/ 12]")), "it ran until the allocation: {lines:?}");
    assert!(fx.reports().is_empty(), "a killed worker writes nothing");
    // The same instance under a limit it fits in completes.
    spec.resources.memory_bytes = Some(512 * MIB);
    assert_eq!(fx.run(&spec).0.exit, Exit::Code(0));
    fx.assert_no_container_left();
}

#[test]
fn exit_codes_and_signals_are_outcomes() {
    let fx = Fixture::new("exits");
    let error = fx.worker(r#"{"repeat": 12, "number": 1, "error_at": 3}"#, 0, &[]);
    assert_eq!(fx.run(&error).0.exit, Exit::Code(3), "the worker's error exit code");
    let abort = fx.worker(r#"{"repeat": 12, "number": 1, "abort_at": 2}"#, 1, &[]);
    assert_eq!(fx.run(&abort).0.exit, Exit::Signal(6), "death by SIGABRT, as on bare metal");
    fx.assert_no_container_left();
}

#[test]
fn instances_outlast_the_request_timeout() {
    let mut fx = Fixture::new("long");
    fx.docker = fx.docker.with_request_timeout(std::time::Duration::from_secs(1));
    let spec = fx.worker(r#"{"repeat": 12, "number": 1, "size": 4, "sleep_ms": 250}"#, 0, &[]);
    let (outcome, lines) = fx.run(&spec);
    assert_eq!(outcome.exit, Exit::Code(0), "3 s of instance under a 1 s request timeout: {lines:?}");
    assert_eq!(fx.reports().len(), 1);
}

#[test]
fn read_only_binds_refuse_writes() {
    let fx = Fixture::new("ro");
    let data = tempfile::tempdir().unwrap();
    let mut spec = fx.worker(r#"{"repeat": 12, "number": 1, "size": 4}"#, 0, &["--outdir", "/data"]);
    spec.binds.push(Bind::ro(data.path(), "/data"));
    let (outcome, lines) = fx.run(&spec);
    assert_eq!(outcome.exit, Exit::Code(7), "the report cannot be written: {lines:?}");
    let stderr: String = lines.iter().filter(|(s, _)| *s == LogStream::Stderr).map(|(_, l)| l.as_str()).collect();
    assert!(stderr.contains("Read-only file system"), "{stderr}");
    assert_eq!(std::fs::read_dir(data.path()).unwrap().count(), 0);
}

#[test]
fn cancel_mid_run_kills_and_removes_the_container() {
    let fx = Fixture::new("cancel");
    let spec = fx.worker(r#"{"repeat": 1000, "number": 1, "size": 4, "sleep_ms": 100}"#, 0, &[]);
    let cancel = Cancel::new();
    let (started_tx, started_rx) = std::sync::mpsc::channel();
    // Another thread pulls the switch, as the launcher's signal thread does on SIGINT.
    let canceller = {
        let cancel = cancel.clone();
        let fx = &fx;
        move || {
            started_rx.recv().unwrap();
            let running = fx.docker.containers_labelled(RUN_LABEL, &fx.run_id).unwrap();
            assert_eq!(running.len(), 1, "running before the cancel");
            cancel.cancel();
        }
    };
    let (outcome, lines) = std::thread::scope(|s| {
        s.spawn(canceller);
        let mut lines = Vec::new();
        let outcome = fx.docker.run(&spec, &fx.image, &cancel, &mut |_, line| {
            if lines.is_empty() {
                started_tx.send(()).unwrap();
            }
            lines.push(line.to_string());
        });
        (outcome.unwrap(), lines)
    });
    assert_eq!(outcome.exit, Exit::Cancelled);
    assert!(!lines.is_empty() && lines.len() < 1000, "stopped mid-run: {} lines", lines.len());
    fx.assert_no_container_left();
    assert!(fx.reports().is_empty());
    // A switch already pulled starts nothing.
    let outcome = fx.docker.run(&spec, &fx.image, &cancel, &mut |_, _| {}).unwrap();
    assert_eq!(outcome.exit, Exit::Cancelled);
    assert_eq!(fx.docker.remove_session().unwrap(), 0, "nothing of this session is left to clean up");
}

#[test]
fn containers_left_behind_are_removed_by_label() {
    // A container of this session that no `run` owns any more (as after a
    // launcher killed before it could clean up), made with the docker CLI.
    let fx = Fixture::new("leftover");
    let label = format!("{SESSION_LABEL}={}", fx.docker.session());
    let created = Command::new("docker")
        .args(["create", "--label", &label, "--label", &format!("{RUN_LABEL}={}", fx.run_id), &fx.image.id])
        .output()
        .unwrap();
    assert!(created.status.success(), "{}", String::from_utf8_lossy(&created.stderr));
    assert_eq!(fx.docker.containers_labelled(RUN_LABEL, &fx.run_id).unwrap().len(), 1);
    assert_eq!(fx.docker.remove_session().unwrap(), 1);
    fx.assert_no_container_left();
}

#[test]
fn a_missing_image_names_the_build_command() {
    let docker = docker();
    let map = ImageMap::builtin();
    let err = docker.image("mlb:rocm", &map.build_hint("mlb:rocm")).unwrap_err();
    assert!(err.to_string().contains("image `mlb:rocm` not found"), "{err}");
    assert!(err.fix().unwrap().contains("mlb containers build rocm"), "{err}");
    let err = docker.image("mlb-test:no-such-tag", &map.build_hint("mlb-test:no-such-tag")).unwrap_err();
    let fix = err.fix().unwrap();
    assert!(fix.contains("scripts/build-test-image.sh") && fix.contains("mlb containers build"), "{fix}");
}

#[test]
fn an_unreachable_daemon_is_named_with_the_fix() {
    let dir = tempfile::tempdir().unwrap();
    // No socket at all (daemon stopped and its socket removed)...
    let missing = format!("unix://{}", dir.path().join("docker.sock").display());
    // ...and a socket nobody listens on (daemon died).
    let dead = dir.path().join("dead.sock");
    drop(std::os::unix::net::UnixListener::bind(&dead).unwrap());
    for endpoint in [missing, format!("unix://{}", dead.display())] {
        let err = mlb_record::fix::one_line(&Docker::connect_to(&endpoint).err().expect("no daemon there"));
        assert!(err.contains(&format!("cannot reach the Docker daemon at {endpoint}")), "{err}");
        assert!(err.contains("is dockerd running?") && err.contains("scripts/setup-docker.sh"), "{err}");
    }
    // The same through the command line and DOCKER_HOST.
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let out = Command::new(common::mlb())
        .args(["containers", "build", "ngc", "--source"])
        .arg(source)
        .env("DOCKER_HOST", format!("unix://{}", dir.path().join("none.sock").display()))
        .env("RUST_BACKTRACE", "0")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && stderr.contains("cannot reach the Docker daemon at unix://"), "{stderr}");
}

#[test]
fn images_build_from_the_source_tree_through_the_api() {
    use mlb::runtime::docker::BuildRequest;
    use mlb::runtime::images::ContainerKind;
    let docker = docker();
    let base = test_image(&docker);
    // A source tree whose ngc Dockerfile starts from the local test image
    // (the vendor images need a registry).
    let tree = tempfile::tempdir().unwrap();
    let write = |file: &str, text: &str| {
        std::fs::create_dir_all(tree.path().join(file).parent().unwrap()).unwrap();
        std::fs::write(tree.path().join(file), text).unwrap();
    };
    write("Cargo.toml", "[workspace]\n");
    write("configs/containers.json", r#"{"ngc": "site/ngc"}"#);
    let dockerfile = format!(
        "FROM {}\nCOPY configs/containers.json /etc/mlb/containers.json\nLABEL org.mlb.test=built\n",
        base.name
    );
    write("containers/ngc/Dockerfile", &dockerfile);
    write("containers/rocm/Dockerfile", &format!("FROM {}\nRUN true\n", base.name));
    let tag = format!("mlb-build-test:{}", std::process::id());

    let request = BuildRequest { kind: ContainerKind::Ngc, source: tree.path().into(), tag: tag.clone() };
    let mut progress = Vec::new();
    let built = docker.build(&request, &mut |line| progress.push(line.to_string())).unwrap();
    assert_eq!(built.name, tag);
    assert!(progress.iter().any(|l| l.contains("COPY configs/containers.json")), "{progress:?}");
    let label = Command::new("docker")
        .args(["image", "inspect", "--format", r#"{{ index .Config.Labels "org.mlb.test" }}"#, &tag])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&label.stdout).trim(), "built");

    // The rocm Dockerfile runs a shell the test image lacks: the builder's error comes back.
    let request = BuildRequest { kind: ContainerKind::Rocm, ..request };
    let err = docker.build(&request, &mut |_| {}).unwrap_err().to_string();
    assert!(err.starts_with(&format!("building image `{tag}` failed")), "{err}");
    let _ = Command::new("docker").args(["image", "rm", "-f", &tag]).output();
}
