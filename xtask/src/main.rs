//! `cargo xtask`: the one entry point that builds mlb and runs what needs a
//! build (the test tiers, the smoke suite, the benches, the GPU pack), so
//! that each job builds through [`build::build`] instead of a `cargo build`
//! of its own.
//! `scripts/main.sh` and `scripts/test.sh` are thin callers of it.

mod build;
mod cmd;
mod data_check;
mod dist;
mod gpu_check;
mod gpu_pack;
mod layers;
mod smoke;
mod tiers;

use clap::{Parser, Subcommand, ValueEnum};
use std::path::PathBuf;
use std::process::ExitCode;

/// Builds mlb and runs its tests, smoke suite and benches.
#[derive(Parser)]
#[command(name = "cargo xtask", bin_name = "cargo xtask")]
struct Cli {
    #[command(subcommand)]
    task: Task,
}

#[derive(Subcommand)]
enum Task {
    /// Release build: mlb and spin, or with --torch every plugin (in the
    /// PyTorch environment of scripts/torch-env.sh).
    Build {
        #[arg(long)]
        torch: bool,
    },
    /// Runs test tiers in order (default: all of them): unit, root, docker,
    /// slurm, browser, torch, smoke. Each tier sets up what it needs first.
    Test {
        #[arg(value_enum)]
        tiers: Vec<tiers::Tier>,
    },
    /// Prepares the small data sets, runs a suite through `mlb --jobs` and
    /// prints its report summary.
    Smoke(smoke::Options),
    /// The release tarball a site installs, and its debug information in a
    /// second one: everything built, stripped, staged as installed.
    Dist {
        /// The folder to write them into (relative to the workspace);
        /// default: the target folder's `dist/`.
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// Builds what a bench measures and runs it.
    Bench {
        #[arg(value_enum)]
        bench: Bench,
        /// Extra arguments for the bench (bench-slurm: the number of runs).
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// Checks that every dependency between the workspace's crates points to
    /// a lower layer of `[workspace.metadata.layers]` (the lint tier runs it).
    Layers,
    /// Writes the folder a GPU host runs mlb's GPU check from: the release,
    /// bench/gpu-check and the PyTorch references (docs/gpu-check.md).
    GpuPack {
        /// The folder (relative to the workspace), new, empty or an earlier pack.
        #[arg(long, default_value = "gpu-pack")]
        out: PathBuf,
    },
}

/// The benches that need more than `cargo bench` (a full install, a
/// cluster), or that a site runs together.
#[derive(Clone, Copy, ValueEnum)]
enum Bench {
    /// The launcher's own cost with every plugin installed (launcher_overhead).
    Launcher,
    /// Start-up of a Slurm step against a bare run (scripts/bench-slurm.sh).
    Slurm,
    /// The store and the server at a site's scale, one after the other:
    /// store_import, db_queries and serve_load (docs/results.md, "Speed";
    /// docs/serve.md, "Under load"). Extra arguments go to store_import
    /// (the numbers of reports).
    Store,
    /// What fingerprinting costs a deterministic run of gpt, convnet and
    /// spin, with the libtorch plugin built (determinism_cost;
    /// docs/determinism.md, "Fingerprints").
    Determinism,
}

/// The benches `cargo xtask bench store` runs, in order.
const STORE_BENCHES: [&str; 3] = ["store_import", "db_queries", "serve_load"];

fn main() -> ExitCode {
    let cli = Cli::parse();
    let root = workspace_root();
    let done = match cli.task {
        Task::Build { torch } => {
            build::build(&root, if torch { build::Set::Everything } else { build::Set::Launcher }).map(drop)
        }
        Task::Test { tiers } => tiers::run(&root, &tiers),
        Task::Smoke(options) => smoke::run(&root, &options),
        Task::Dist { out } => {
            let out = out.map_or_else(|| build::target_dir(&root).join("dist"), |out| root.join(out));
            dist::dist(&root, &out, true)
        }
        Task::Layers => layers::check(&root),
        Task::GpuPack { out } => gpu_pack::pack(&root, &root.join(out)).map(drop),
        Task::Bench { bench: Bench::Launcher, args } => build::build(&root, build::Set::Everything).and_then(|built| {
            cmd::run(
                built
                    .env
                    .cargo()
                    .args(["bench", "-p", "mlb", "--bench", "launcher_overhead", "--"])
                    .args(args)
                    .current_dir(&root),
            )
        }),
        Task::Bench { bench: Bench::Determinism, args } => {
            build::build(&root, build::Set::Everything).and_then(|built| {
                let mut bench = built.env.cargo();
                bench.args(["bench", "-p", "mlb", "--bench", "determinism_cost", "--"]).args(args).current_dir(&root);
                cmd::run(&mut bench)
            })
        }
        Task::Bench { bench: Bench::Slurm, args } => build::build(&root, build::Set::Launcher).and_then(|built| {
            cmd::run(built.env.command(root.join("scripts/bench-slurm.sh")).args(args).current_dir(&root))
        }),
        Task::Bench { bench: Bench::Store, args } => STORE_BENCHES.iter().try_for_each(|name| {
            let args: &[String] = if *name == "store_import" { &args } else { &[] };
            let mut bench = cmd::Env::default().cargo();
            bench.args(["bench", "-p", "mlb", "--bench", name, "--"]).args(args).current_dir(&root);
            cmd::run(&mut bench)
        }),
    };
    match done {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The workspace's folder: this crate's parent.
fn workspace_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).parent().expect("xtask lives in the workspace").to_path_buf()
}
