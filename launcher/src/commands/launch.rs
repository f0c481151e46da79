//! `mlb --jobs FILE ...`: the run ([`mlb_run::launch`]), then with `--db` its
//! reports imported into the results store ([`mlb_store::store::after_run`]).
//! Composed here, so that the launcher imports no store, and the launch
//! takes typed [`Options`], not the command line's.

use super::db::push::{told, Destination};
use super::db::DbArg;
use clap::Args;
use mlb_run::faults::Fault;
use mlb_run::host::HostKind;
use mlb_run::launch::{LaunchError, Options, Recovery, MAX_PAUSE_SECONDS, MAX_SAMPLE_HZ};
use mlb_run::runtime::supervise::timeout;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The launcher's options (`mlb --jobs FILE ...`).
#[derive(Debug, Clone, Args)]
pub struct LaunchArgs {
    /// Jobs file to run (JSON, or YAML for `.yaml`/`.yml`).
    #[arg(long, value_name = "FILE")]
    pub jobs: Option<PathBuf>,

    /// Run only these jobs (comma-separated or repeated).
    #[arg(long, value_name = "JOB", value_delimiter = ',')]
    pub name: Vec<String>,

    /// Skip these jobs (comma-separated or repeated).
    #[arg(long, value_name = "JOB", value_delimiter = ',')]
    pub exclude: Vec<String>,

    /// Run id of the first run (the original's uid); seeds derive from it
    /// (run id + 100 per instance rank, which must not pass 2^64-1).
    #[arg(long, default_value_t = 0)]
    pub uid: u64,

    /// Report folder (default: `$BASE/output`).
    #[arg(long, value_name = "DIR")]
    pub outdir: Option<PathBuf>,

    /// Base folder: data in `$BASE/data`, scratch in `$BASE/tmp` (default: the current folder).
    #[arg(long, env = "BASE", value_name = "DIR")]
    pub base: Option<PathBuf>,

    /// Number of slots on a host without GPU (default 1); on a GPU host, use the first N GPUs.
    #[arg(long, value_name = "N")]
    pub devices: Option<usize>,

    /// Kill an instance that runs longer than this many seconds (finite, at least 1).
    #[arg(long, value_name = "SECONDS", allow_negative_numbers = true, value_parser = timeout)]
    pub timeout: Option<f64>,

    /// Skip job configs whose reports in the output folder are complete.
    #[arg(long)]
    pub resume: bool,

    /// Run without cgroups: instances are not confined to their slot (recorded in every report).
    #[arg(long = "no-cgroups")]
    pub no_cgroups: bool,

    /// When another mlb run holds this host, wait for it to end instead of refusing.
    #[arg(long)]
    pub wait: bool,

    /// Run the whole selection K times (K >= 1), with run ids uid..uid+K-1.
    #[arg(long, value_name = "K", default_value = "1", allow_negative_numbers = true, value_parser = at_least_one)]
    pub runs: u64,

    /// Train each instance to its quality target on MLPerf's clock instead of
    /// timing a fixed number of steps (docs/quality.md): the page cache is
    /// dropped before each config's run (as root), each report holds the
    /// time to quality, and each instance writes MLLOG lines beside it.
    #[arg(long = "to-quality")]
    pub to_quality: bool,

    /// Seconds to wait between two runs of `--runs` (0 to 86400).
    #[arg(long, value_name = "SECONDS", default_value = "10", allow_negative_numbers = true, value_parser = pause)]
    pub pause: Duration,

    /// Refuse a selection of more job configs than this (each list argument
    /// multiplies its job's configs).
    #[arg(long = "max-configs", value_name = "N", default_value = "10000", allow_negative_numbers = true, value_parser = at_least_one)]
    pub max_configs: u64,

    /// Start nothing: print every instance's command, environment, devices, CPUs, memory, cgroup and seed.
    #[arg(long = "dry-run")]
    pub dry_run: bool,

    /// Run every instance in a Docker container: of the image of the detected
    /// host kind (no value), of a kind's image (`ngc`, `rocm`, `powerai`), or of IMAGE.
    #[arg(long, value_name = "KIND|IMAGE", num_args = 0..=1, conflicts_with = "singularity")]
    pub docker: Option<Option<String>>,

    /// Image mapping (JSON, kind -> image) overriding `configs/containers.json` for `--docker`.
    #[arg(long, value_name = "FILE", requires = "docker")]
    pub images: Option<PathBuf>,

    /// Run across the nodes of the Slurm allocation this runs in: each job
    /// config as one job step, one task per slot on every node (see `mlb slurm submit`).
    #[arg(long)]
    pub slurm: bool,

    /// Run every instance with `apptainer exec` (or `singularity exec`) of this image file.
    #[arg(long, value_name = "IMAGE")]
    pub singularity: Option<PathBuf>,

    /// Treat the host as this kind instead of the detected one.
    #[arg(long, value_name = "KIND")]
    pub host: Option<HostKind>,

    /// Refuse to run when a pre-flight check (`mlb doctor`) fails, instead of
    /// warning; a slot that failed its last `mlb burn` fails it too.
    #[arg(long = "strict-preflight")]
    pub strict_preflight: bool,

    /// `--db [URL]`: import the run into this store when it ends (a failure
    /// to import is a warning: the exit status stays the run's).
    #[command(flatten)]
    pub store: DbArg,

    /// Push the run to this collecting server when it ends (as `mlb db
    /// push` does; a push that fails is a warning that says how to push
    /// again: the exit status stays the run's).
    #[arg(long, value_name = "URL", requires = "push_key_file")]
    pub push: Option<String>,

    /// With --push: the file holding the push key.
    #[arg(long = "push-key-file", value_name = "FILE", requires = "push")]
    pub push_key_file: Option<PathBuf>,

    /// With --push: the system to store the run under (one the key may push for).
    #[arg(long = "push-system", value_name = "NAME", requires = "push")]
    pub push_system: Option<String>,

    /// With --push: keep the run private to the key until this day or time.
    #[arg(long = "push-embargo", value_name = "DATE", requires = "push",
          value_parser = mlb_store::store::query::filters::day_or_time)]
    pub push_embargo: Option<String>,

    /// Telemetry samples per second of every instance (0 to 1000; 0: none).
    #[arg(long = "sample-hz", value_name = "HZ", default_value = "10", allow_negative_numbers = true, value_parser = sample_hz)]
    pub sample_hz: f64,

    /// Read the host description under this folder instead of `/` (fixture trees).
    #[arg(long = "host-root", value_name = "DIR", hide = true)]
    pub host_root: Option<PathBuf>,

    /// Take this lock file instead of the host's (`/run/mlb/launch.lock`): runs
    /// exclude only the runs given the same file (tests running launchers side by side).
    #[arg(long = "lock", env = "MLB_LOCK", value_name = "FILE", hide = true)]
    pub lock: Option<PathBuf>,

    /// Inject a fault into every config at a time from its start (repeatable;
    /// docs/faults.md): freeze:slot=1@60s,for=30s, kill:rank=1@120s,
    /// stop:slot=0@90s,for=20s, slow:slot=0@30s,cpu=0.2. Each config first
    /// runs once without faults, as the goodput's reference.
    #[arg(long = "inject", value_name = "FAULT", value_parser = fault)]
    pub inject: Vec<Fault>,

    /// Start a failed instance (every rank of a DDP group) again from its
    /// last checkpoint, up to N times per config.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub restarts: u32,

    /// Checkpoint every instance this often (seconds), between observations.
    #[arg(long = "checkpoint-every", value_name = "SECONDS", value_parser = checkpoint_every)]
    pub checkpoint_every: Option<f64>,

    /// With --inject: no reference run without faults first (the goodput then
    /// has no reference).
    #[arg(long = "no-reference", requires = "inject")]
    pub no_reference: bool,
}

impl LaunchArgs {
    /// The launch's options: every flag but `--db`, which is this command's.
    pub fn options(&self) -> Options {
        Options {
            jobs: self.jobs.clone(),
            name: self.name.clone(),
            exclude: self.exclude.clone(),
            uid: self.uid,
            outdir: self.outdir.clone(),
            base: self.base.clone(),
            devices: self.devices,
            timeout: self.timeout,
            resume: self.resume,
            no_cgroups: self.no_cgroups,
            wait: self.wait,
            runs: self.runs,
            to_quality: self.to_quality,
            pause: self.pause,
            max_configs: self.max_configs,
            dry_run: self.dry_run,
            docker: self.docker.clone(),
            images: self.images.clone(),
            slurm: self.slurm,
            singularity: self.singularity.clone(),
            host: self.host,
            strict_preflight: self.strict_preflight,
            sample_hz: self.sample_hz,
            host_root: self.host_root.clone(),
            lock: self.lock.clone(),
            recovery: Recovery {
                inject: self.inject.clone(),
                restarts: self.restarts,
                checkpoint_every: self.checkpoint_every,
                no_reference: self.no_reference,
            },
        }
    }

    /// Where `--push` sends the run, if it does.
    fn destination(&self) -> Option<Destination> {
        Some(Destination {
            to: self.push.clone()?,
            key_file: self.push_key_file.clone()?,
            system: self.push_system.clone(),
            embargo: self.push_embargo.clone(),
        })
    }
}

/// Runs `args`' jobs, and stores the run when `--db` asks and pushes it
/// when `--push` does; returns the exit status (the run's own: a store or
/// a push that fails is a warning).
pub fn run(args: &LaunchArgs, plugin_dirs: &[PathBuf]) -> Result<i32, LaunchError> {
    let after = |outdir: &Path| {
        let stored = args.store.db.as_deref().map(|db| stored(db, outdir, args.jobs.as_deref()));
        let pushed = args.destination().map(|to| pushed(&to, outdir));
        let said: Vec<String> = stored.into_iter().chain(pushed).collect();
        (!said.is_empty()).then(|| said.join("\n"))
    };
    mlb_run::launch::run(&args.options(), plugin_dirs, &after)
}

/// Pushes the run in `outdir` to `to`: what the server stored, or a
/// warning that says why not and how to push it again.
fn pushed(to: &Destination, outdir: &Path) -> String {
    match to.push(outdir) {
        Ok(answer) => told(outdir, &to.to, &answer).trim_end().to_string(),
        Err(e) => format!(
            "mlb: warning: the run was not pushed: {}; its folder {} is kept: push it again with `{}`",
            mlb_record::fix::one_line(&e),
            outdir.display(),
            to.retry(outdir)
        ),
    }
}

/// Imports the run's reports in `outdir` into the store `db` names: what
/// was imported, or a warning that says why not (`mlb interfere --db` too).
pub(crate) fn stored(db: &str, outdir: &Path, jobs: Option<&Path>) -> String {
    match mlb_store::store::after_run::import_run(db, outdir, jobs) {
        Ok(said) => said.trim_end().to_string(),
        Err(e) => format!("mlb: warning: the run was not stored: {}", mlb_record::fix::one_line(&e)),
    }
}

/// `--inject`: a fault (docs/faults.md).
fn fault(text: &str) -> Result<Fault, String> {
    text.parse()
}

/// `--checkpoint-every`: a finite number of seconds above 0.
fn checkpoint_every(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(seconds) if seconds.is_finite() && seconds > 0.0 => Ok(seconds),
        _ => Err("accepted: a number of seconds above 0".into()),
    }
}

/// `--sample-hz`: 0 to [`MAX_SAMPLE_HZ`].
fn sample_hz(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(hz) if (0.0..=MAX_SAMPLE_HZ).contains(&hz) => Ok(hz),
        _ => Err(format!("accepted: 0 (no telemetry) to {MAX_SAMPLE_HZ} samples per second")),
    }
}

/// `--pause`: 0 to [`MAX_PAUSE_SECONDS`] seconds.
fn pause(text: &str) -> Result<Duration, String> {
    match text.trim().parse::<f64>() {
        Ok(seconds) if (0.0..=MAX_PAUSE_SECONDS).contains(&seconds) => Ok(Duration::from_secs_f64(seconds)),
        _ => Err(format!("accepted: 0 to {MAX_PAUSE_SECONDS} seconds")),
    }
}

/// `--runs`, `--max-configs`: a whole number, at least 1.
fn at_least_one(text: &str) -> Result<u64, String> {
    match text.trim().parse::<u64>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(format!("accepted: a whole number at least 1 (at most {})", u64::MAX)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        launch: LaunchArgs,
    }

    /// The command line's defaults and `Options::default()` (what a burn
    /// starts from) are one set of values: a launch without flags gets the
    /// same options either way.
    #[test]
    fn no_flag_gives_the_launch_defaults() {
        let args = Cli::try_parse_from(["mlb", "--jobs", "j.json"]).unwrap().launch;
        // `--base` and `--lock` also read the environment.
        let defaults = Options {
            jobs: Some("j.json".into()),
            base: args.base.clone(),
            lock: args.lock.clone(),
            ..Options::default()
        };
        assert_eq!(args.options(), defaults);
        assert_eq!(args.store.db, None);
    }

    #[test]
    fn numbers_out_of_range_are_refused_with_the_accepted_range() {
        assert_eq!(pause("0"), Ok(Duration::ZERO));
        assert_eq!(pause("86400"), Ok(Duration::from_secs(86_400)));
        for bad in ["-1", "86400.5", "1e300", "NaN", "inf"] {
            assert_eq!(pause(bad).unwrap_err(), "accepted: 0 to 86400 seconds", "{bad}");
        }
        assert_eq!(sample_hz("10"), Ok(10.0));
        assert_eq!(sample_hz("0"), Ok(0.0));
        for bad in ["-1", "1001", "NaN", "inf", "fast"] {
            assert!(sample_hz(bad).unwrap_err().contains("0 (no telemetry) to 1000"), "{bad}");
        }
        assert_eq!(at_least_one("3"), Ok(3));
        for bad in ["0", "-2", "1.5", "18446744073709551616"] {
            assert!(at_least_one(bad).unwrap_err().contains("at least 1"), "{bad}");
        }
    }
}
