//! The test tiers, by what their tests need besides a build: cheap ones
//! first, so that a broken build or unit test stops a run before the slow
//! tiers start. The tests of the default members are split into tiers by the
//! test groups of `.config/nextest.toml`; the libtorch workloads' tests run
//! in release after the one build of everything; the smoke tier runs the main job end to end.

use crate::build::{self, Set};
use crate::cmd::{self, Env, Error};
use crate::gpu_check;
use crate::layers;
use crate::smoke;
use std::path::Path;
use std::time::{Duration, Instant};

/// One tier of the test suite.
#[derive(Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Tier {
    /// The gates before any test: the crates' layers (xtask/src/layers.rs),
    /// `cargo fmt --check` and clippy with every warning an error (the
    /// workspace's `[workspace.lints]`), default members.
    Lint,
    /// Every test that needs nothing but a build (and `cc`); the benches are built too.
    Unit,
    /// Real cgroups, tmpfs mounts and full disks: needs root.
    Root,
    /// The results store on a real PostgreSQL server (scripts/setup-postgres.sh).
    Postgres,
    /// Containers: needs a Docker daemon (scripts/setup-docker.sh) and root.
    Docker,
    /// The two-node Slurm test cluster (scripts/setup-slurm.sh).
    Slurm,
    /// The HTML report in a headless Chromium (scripts/setup-chromium.sh).
    Browser,
    /// The libtorch workloads: the whole workspace built in the PyTorch
    /// environment, the GPU check in CPU mode from its pack
    /// (xtask/src/gpu_check.rs), then mlb-torch's tests in release, then the
    /// launcher's tests that run Python in the PyTorch venv (nextest group
    /// `torch`).
    Torch,
    /// The smoke suite on prepared data (`cargo xtask smoke --check-data`).
    Smoke,
}

/// Every tier, in the order a full run takes them.
const ALL: [Tier; 9] = [
    Tier::Lint,
    Tier::Unit,
    Tier::Root,
    Tier::Postgres,
    Tier::Docker,
    Tier::Slurm,
    Tier::Browser,
    Tier::Torch,
    Tier::Smoke,
];

impl Tier {
    fn name(self) -> &'static str {
        match self {
            Tier::Lint => "lint",
            Tier::Unit => "unit",
            Tier::Root => "root",
            Tier::Postgres => "postgres",
            Tier::Docker => "docker",
            Tier::Slurm => "slurm",
            Tier::Browser => "browser",
            Tier::Torch => "torch",
            Tier::Smoke => "smoke",
        }
    }

    /// The nextest test group holding this tier's tests, for the tiers run by nextest.
    fn group(self) -> Option<&'static str> {
        match self {
            Tier::Unit => Some("@global"),
            Tier::Root | Tier::Postgres | Tier::Docker | Tier::Slurm | Tier::Browser => Some(self.name()),
            Tier::Lint | Tier::Torch | Tier::Smoke => None,
        }
    }

    /// The script that installs or starts what the tier needs (idempotent).
    fn setup(self) -> Option<&'static str> {
        match self {
            Tier::Postgres => Some("scripts/setup-postgres.sh"),
            Tier::Docker => Some("scripts/setup-docker.sh"),
            Tier::Slurm => Some("scripts/setup-slurm.sh"),
            Tier::Browser => Some("scripts/setup-chromium.sh"),
            Tier::Lint | Tier::Unit | Tier::Root | Tier::Torch | Tier::Smoke => None,
        }
    }
}

/// Runs `tiers` (all of them when empty) in the order of [`ALL`], stopping
/// at the first that fails; prints the time each took.
pub fn run(root: &Path, tiers: &[Tier]) -> Result<(), Error> {
    let chosen: Vec<Tier> = ALL.into_iter().filter(|t| tiers.is_empty() || tiers.contains(t)).collect();
    if chosen.iter().any(|t| t.group().is_some()) {
        ensure_nextest(root)?;
    }
    let mut times = Vec::new();
    let mut outcome = Ok(());
    for tier in chosen {
        eprintln!("xtask: --- tier {} ---", tier.name());
        let start = Instant::now();
        let done = run_one(root, tier);
        times.push((tier.name(), start.elapsed()));
        if let Err(e) = done {
            outcome = Err(Error::Tier { tier: tier.name(), source: Box::new(e) });
            break;
        }
    }
    eprintln!("xtask: tier times:{}", summary(&times));
    outcome
}

fn run_one(root: &Path, tier: Tier) -> Result<(), Error> {
    let env = Env::default();
    if let Some(script) = tier.setup() {
        cmd::run(env.command(root.join(script)).current_dir(root))?;
    }
    if tier == Tier::Lint {
        layers::check(root)?;
        cmd::run(env.cargo().args(["fmt", "--all", "--check"]).current_dir(root))?;
        return cmd::run(env.cargo().args(["clippy", "--all-targets", "--", "-D", "warnings"]).current_dir(root));
    }
    if tier == Tier::Unit {
        // Benches and examples are not run by a tier, but must build; nextest
        // does not run doc-tests, so cargo runs them here.
        cmd::run(env.cargo().args(["build", "--all-targets"]).current_dir(root))?;
        cmd::run(env.cargo().args(["test", "--doc"]).current_dir(root))?;
    }
    match tier.group() {
        Some(group) => cmd::run(
            env.cargo()
                .args(["nextest", "run", "--profile", "ci", "-E"])
                .arg(format!("group({group})"))
                .current_dir(root),
        ),
        None if tier == Tier::Torch => torch(root, &env),
        None => smoke::run(root, &smoke::Options::checking_data()),
    }
}

/// Installs cargo-nextest (from crates.io) when cargo has no `nextest` command.
fn ensure_nextest(root: &Path) -> Result<(), Error> {
    let env = Env::default();
    let present = env.cargo().args(["nextest", "--version"]).output().is_ok_and(|o| o.status.success());
    if present {
        return Ok(());
    }
    cmd::run(env.cargo().args(["install", "--locked", "cargo-nextest"]).current_dir(root))
}

/// `name 12.3s` for each tier, one per line.
fn summary(times: &[(&str, Duration)]) -> String {
    times.iter().map(|(name, took)| format!("\n  {name:<8} {:>8.1}s", took.as_secs_f64())).collect()
}

/// The tests of the libtorch workloads that judge whether a model learns
/// (nextest filter): a seeded trajectory of one of them depends on the order
/// in which the CPU's matrix kernels sum, so they run again under MKL's
/// other code paths ([`MKL_PATHS`]).
const LEARNING: &str = "test(/learns|loss_decreases|_falls$|_falls_below|_rises$/)";

/// MKL's code paths the learning tests run under, besides the CPU's own
/// default, named by the variable that picks each: the bitwise-reproducible
/// compatible path (on any CPU, a path other than the default) and the
/// AVX2 kernels (on a CPU with AVX-512, not the default; elsewhere, the
/// default again). A test that holds on one float path only (cart's seed 0
/// learned on AVX2 and not on AVX-512) thus fails on any CI machine.
const MKL_PATHS: [(&str, &str); 2] = [("MKL_CBWR", "COMPATIBLE"), ("MKL_ENABLE_INSTRUCTIONS", "AVX2")];

/// The torch tier: the whole workspace built in release in the PyTorch
/// environment; the GPU check in CPU mode, from its pack
/// ([`gpu_check::cpu_mode`]); clippy on mlb-torch; mlb-torch's tests, then its learning tests
/// under each of [`MKL_PATHS`], then its doc tests; then the launcher's
/// tests that run Python in the venv (group `torch`).
fn torch(root: &Path, env: &Env) -> Result<(), Error> {
    // The libtorch tests load the release library and `mlb` of the one
    // build, so they run in release, in the build's environment.
    let built = build::build(root, Set::Everything)?;
    // Right after the build, whose artifacts the pack takes: mlb-torch's
    // tests, built by package, build the library again with the features
    // their dependencies unify to, and the pack's build would then redo it.
    gpu_check::cpu_mode(root, &built.env)?;
    // mlb-torch is outside the default members the lint tier lints: its
    // lints, as every member's, here where libtorch is.
    let lint = ["clippy", "--release", "-p", "mlb-torch", "--all-targets", "--", "-D", "warnings"];
    cmd::run(built.env.cargo().args(lint).current_dir(root))?;
    ensure_nextest(root)?;
    // One test at a time, each in a process of its own: libtorch's CPU
    // generator is one per process (a seeded test that learns, cart's,
    // failed when other tests drew from it meanwhile), and the data-parallel
    // tests leave c10d's threads (stores, Gloo) behind in the process that
    // ran them: run one after another in one process,
    // `overlapped_averaging_...` crashed (SIGSEGV) in two CI runs; alone, in
    // 30 runs, it never did.
    let nextest = || {
        let mut c = built.env.cargo();
        c.args(["nextest", "run", "--release", "--profile", "ci", "--test-threads", "1"]);
        c.args(["-p", "mlb-torch", "-p", "mlb-torch-build"]).current_dir(root);
        c
    };
    cmd::run(&mut nextest())?;
    for (variable, value) in MKL_PATHS {
        eprintln!("xtask: the learning tests with {variable}={value}");
        cmd::run(nextest().args(["-E", LEARNING]).env(variable, value))?;
    }
    cmd::run(
        built
            .env
            .cargo()
            .args(["test", "--release", "--doc", "-p", "mlb-torch", "-p", "mlb-torch-build"])
            .current_dir(root),
    )?;
    cmd::run(env.cargo().args(["nextest", "run", "--profile", "ci", "-E", "group(torch)"]).current_dir(root))
}
