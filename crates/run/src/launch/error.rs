//! Why a launch could not start.

use super::options::SEED_STEP;
use crate::isolation::CgroupError;
use crate::jobs::{ConfigCount, JobsError};
use crate::plan::SlotError;
use crate::plugins::accepts::Refusal;
use crate::plugins::SearchError;
use crate::quality::rules::RulesError;
use crate::runtime::docker::DockerError;
use crate::runtime::images::ImageMapError;
use crate::runtime::singularity::SingularityError;
use mlb_record::exit::{Classify, Kind};
use mlb_record::fix::{Fix, MARK as FIX};
use std::path::PathBuf;

/// A launch refused before any instance started, or a failure of the
/// launcher itself.
#[derive(Debug, thiserror::Error)]
pub enum LaunchError {
    /// `--slurm`: the allocation cannot hold the run, or Slurm failed.
    #[error(transparent)]
    Slurm(#[from] crate::slurm::SlurmError),
    /// The jobs file is unreadable or invalid.
    #[error(transparent)]
    Jobs(#[from] JobsError),
    /// A job uses a variable nobody defines.
    #[error("{path}: job #{position} `{job}`: unknown variable `${name}`")]
    UnknownVariable {
        /// The jobs file.
        path: PathBuf,
        /// 1-based position of the job.
        position: usize,
        /// The job.
        job: String,
        /// The variable.
        name: String,
        /// mlb's variables.
        known: String,
    },
    /// A plugin job names a plugin that is not installed (or whose file is
    /// refused).
    #[error("{path}: job #{position} `{job}`: no plugin named `{plugin}`; plugins found: {available}{}", refused_files(.refused))]
    UnknownPlugin {
        /// The jobs file.
        path: PathBuf,
        /// 1-based position of the job.
        position: usize,
        /// The job.
        job: String,
        /// The plugin asked for.
        plugin: String,
        /// Usable plugins, comma-separated (or `none`).
        available: String,
        /// Why each refused file of the search path is refused.
        refused: Box<[String]>,
    },
    /// The selected jobs expand to more configs than `--max-configs`.
    #[error("{path}: job #{position} `{job}` expands to {count} configs (the product of its list lengths){}, more than --max-configs {limit}", with_before(*before))]
    TooManyConfigs {
        /// The jobs file.
        path: PathBuf,
        /// 1-based position of the job.
        position: usize,
        /// The job.
        job: String,
        /// Its configs.
        count: ConfigCount,
        /// Configs of the selected jobs before it.
        before: usize,
        /// `--max-configs`.
        limit: usize,
    },
    /// A plugin config's arguments that its workload would refuse.
    #[error("{path}: job #{position} `{job}` (config {index}/{of}): workload `{workload}`: {refusal}")]
    WorkloadArgs {
        /// The jobs file.
        path: PathBuf,
        /// 1-based position of the job.
        position: usize,
        /// The job.
        job: String,
        /// 1-based index of the config among the job's.
        index: usize,
        /// Configs of the job.
        of: usize,
        /// The workload.
        workload: String,
        /// What it would refuse.
        refusal: Box<Refusal>,
    },
    /// A plugin config that cannot run to quality (`--to-quality`).
    #[error("{path}: job #{position} `{job}` (config {index}/{of}): {refusal}")]
    Clock {
        /// The jobs file.
        path: PathBuf,
        /// 1-based position of the job.
        position: usize,
        /// The job.
        job: String,
        /// 1-based index of the config among the job's.
        index: usize,
        /// Configs of the job.
        of: usize,
        /// Why.
        refusal: Box<RulesError>,
    },
    /// A job's name is too long for the file names of its logs and records.
    #[error("{path}: job #{position} `{}`: the name is {bytes} bytes; the files mlb names after it (logs and failure records) would have names of up to {longest} bytes, and a file name may have at most 255; with this jobs file's name and this run's devices and run ids the job's name may be at most {limit} bytes", short(job))]
    NameTooLong {
        /// The jobs file.
        path: PathBuf,
        /// 1-based position of the job.
        position: usize,
        /// The job.
        job: String,
        /// Bytes of its name.
        bytes: usize,
        /// The longest file name it would get.
        longest: usize,
        /// The most bytes its name may have.
        limit: usize,
    },
    /// `--uid` and `--runs` would make run ids past the largest.
    #[error("--uid {uid} with --runs {runs}: the run ids uid..uid+runs-1, or the seeds derived from them (run id + 100 per instance rank), would pass the largest number, {}", u64::MAX)]
    RunIds {
        /// `--uid`.
        uid: u64,
        /// `--runs`.
        runs: u64,
        /// The largest `--uid` that fits.
        largest: u64,
    },
    /// `--to-quality` with more runs than keep every seed unique.
    #[error("--to-quality with --runs {runs}: the seeds (run id + 100 per instance rank) would repeat past {SEED_STEP} runs, and a run to quality needs each instance's seed unique")]
    SeedsRepeat {
        /// `--runs`.
        runs: u64,
    },
    /// `mlb` needs `--jobs` or a subcommand.
    #[error("nothing to do: give --jobs FILE to run a jobs file, or a subcommand (see mlb --help)")]
    NoJobsFile,
    /// `--host-root` describes another host: nothing can run on it.
    #[error("--host-root reads a host description from a folder; it only works with --dry-run")]
    FixtureHost,
    /// Slots cannot be planned.
    #[error(transparent)]
    Slots(#[from] SlotError),
    /// Slot groups cannot be made.
    #[error(transparent)]
    Cgroup(#[from] CgroupError),
    /// The plugin search path cannot be built.
    #[error(transparent)]
    Search(#[from] SearchError),
    /// A file of the launcher's own could not be written.
    #[error("cannot write {path}: {source}")]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// `--docker`: the daemon or the image is unusable.
    #[error(transparent)]
    Docker(#[from] DockerError),
    /// `--docker`: no image could be chosen.
    #[error(transparent)]
    Images(#[from] ImageMapError),
    /// `--singularity`: no runtime, or the image is unreadable.
    #[error(transparent)]
    Singularity(#[from] SingularityError),
    /// Another run holds the host lock (and `--wait` was not given).
    #[error("another mlb run holds this host: {holder} (lock {lock}); two runs at once would share its CPUs and devices and measure each other")]
    Busy {
        /// The lock file.
        lock: PathBuf,
        /// The run holding it, as it describes itself.
        holder: String,
    },
    /// The host lock file is a symbolic link, a folder or another thing
    /// that is not a regular file: the run would write into what it names.
    #[error("the host lock {} is {what}, not a regular file; a run writes who it is into its lock file", lock.display())]
    LockNotAFile {
        /// The lock file.
        lock: PathBuf,
        /// What it is (`a symbolic link`, `a FIFO`).
        what: &'static str,
    },
    /// What starts the instances went away mid-run (the Docker daemon): the
    /// run stopped before its next config.
    #[error("{why}; the run stopped with {not_started} job config(s) not started; what was written stays")]
    RuntimeGone {
        /// What went away.
        why: String,
        /// What to do.
        fix: String,
        /// Job configs not started.
        not_started: usize,
    },
    /// The output folder is full: the run stopped before its next config.
    #[error("no space left in the output folder {}: cannot {what}: {source}; the run stopped with {not_started} job config(s) not started; what was written stays", outdir.display())]
    NoSpace {
        /// The output folder.
        outdir: PathBuf,
        /// What could not be written (`write the failure record PATH`).
        what: String,
        /// The cause (`ENOSPC`, `EDQUOT`).
        source: std::io::Error,
        /// Job configs (of every run) not started.
        not_started: usize,
    },
    /// A pre-flight check failed under `--strict-preflight`.
    #[error("the host failed its pre-flight checks (--strict-preflight), verdict in {}:\n{failed}fix: act on each fix above, or run without --strict-preflight to run with warnings", verdict.display())]
    Preflight {
        /// The verdict file.
        verdict: PathBuf,
        /// The failed checks, one line each.
        failed: String,
    },
    /// Signal handlers could not be installed.
    #[error("cannot install the Ctrl-C/SIGTERM handler: {0}")]
    Signals(std::io::Error),
}

/// Characters of a name shown in a message before it is cut short.
const NAME_SHOWN: usize = 40;

/// `name`, cut after [`NAME_SHOWN`] characters (`...` marks the cut).
fn short(name: &str) -> String {
    match name.char_indices().nth(NAME_SHOWN) {
        Some((at, _)) => format!("{}...", &name[..at]),
        None => name.to_string(),
    }
}

/// `, with the N configs of the jobs before it` when there are some.
fn with_before(before: usize) -> String {
    match before {
        0 => String::new(),
        n => format!(", with the {n} configs of the selected jobs before it"),
    }
}

/// Refused files listed in full in an unknown-plugin error; the others are
/// counted.
const REFUSALS_SHOWN: usize = 3;

/// `; N file(s) refused: WHY; WHY...` (each reason without its fix: `mlb
/// plugins list` gives those), or nothing.
fn refused_files(refused: &[String]) -> String {
    if refused.is_empty() {
        return String::new();
    }
    let n = refused.len();
    let mut shown: Vec<&str> =
        refused.iter().take(REFUSALS_SHOWN).map(|r| r.split_once(FIX).map_or(r.as_str(), |(why, _)| why)).collect();
    let more = (n > REFUSALS_SHOWN).then(|| format!("and {} more", n - REFUSALS_SHOWN));
    shown.extend(more.as_deref());
    format!("; {n} file{} refused: {}", if n == 1 { "" } else { "s" }, shown.join("; "))
}

/// The part of the unknown-plugin fix that is about refused files.
fn refused_fix(refused: &[String]) -> &'static str {
    if refused.is_empty() {
        ""
    } else {
        "make a refused file acceptable (`mlb plugins list` gives each one's reason and fix), "
    }
}

impl Fix for LaunchError {
    fn fix(&self) -> Option<String> {
        match self {
            LaunchError::Slurm(e) => e.fix(),
            LaunchError::Jobs(e) => e.fix(),
            LaunchError::Slots(e) => e.fix(),
            LaunchError::Cgroup(e) => e.fix(),
            LaunchError::UnknownVariable { known, .. } => {
                Some(format!("define it in the environment or use one of {known}"))
            }
            LaunchError::UnknownPlugin { refused, .. } => {
                Some(format!("build or install it, {}or add its folder with --plugin-dir", refused_fix(refused)))
            }
            LaunchError::TooManyConfigs { .. } => {
                Some("shorten its lists, select fewer jobs (--name/--exclude), or raise --max-configs".into())
            }
            LaunchError::NameTooLong { limit: 0, .. } => {
                Some("shorten the jobs file's name (the suite's), then the job's".into())
            }
            LaunchError::NameTooLong { limit, .. } => {
                Some(format!("shorten the job's name to at most {limit} bytes (or shorten the jobs file's name)"))
            }
            LaunchError::RunIds { largest, .. } => {
                Some(format!("lower --uid to at most {largest} (or give fewer --runs)"))
            }
            LaunchError::SeedsRepeat { .. } => Some(format!(
                "give at most --runs {SEED_STEP}, and run the rest as another call with --uid past the first's seeds"
            )),
            LaunchError::Busy { .. } => Some("pass --wait to start once it has ended, or stop it".into()),
            LaunchError::RuntimeGone { fix, .. } => Some(fix.clone()),
            LaunchError::LockNotAFile { .. } => {
                Some("remove it (mlb makes its lock file itself), or point MLB_LOCK at another path".into())
            }
            LaunchError::NoSpace { outdir, .. } => Some(format!(
                "free space in {} (or pass another --outdir), then run again with --resume",
                outdir.display()
            )),
            LaunchError::WorkloadArgs { refusal, .. } => refusal.fix(),
            LaunchError::Docker(e) => e.fix(),
            LaunchError::Clock { refusal, .. } => refusal.fix(),
            LaunchError::NoJobsFile
            | LaunchError::FixtureHost
            | LaunchError::Search(_)
            | LaunchError::Io { .. }
            | LaunchError::Images(_)
            | LaunchError::Singularity(_)
            | LaunchError::Preflight { .. }
            | LaunchError::Signals(_) => None,
        }
    }
}

impl Classify for LaunchError {
    /// Every launch error but one is raised before the first instance
    /// starts (an instance that fails is an outcome and the exit status, not
    /// an error): the launch is refused. A full output folder stops a run
    /// that started things: it failed.
    fn kind(&self) -> Kind {
        match self {
            LaunchError::NoSpace { .. } | LaunchError::RuntimeGone { .. } => Kind::Failed,
            LaunchError::Jobs(_)
            | LaunchError::UnknownVariable { .. }
            | LaunchError::UnknownPlugin { .. }
            | LaunchError::TooManyConfigs { .. }
            | LaunchError::NameTooLong { .. }
            | LaunchError::RunIds { .. }
            | LaunchError::SeedsRepeat { .. }
            | LaunchError::WorkloadArgs { .. }
            | LaunchError::Clock { .. }
            | LaunchError::NoJobsFile
            | LaunchError::FixtureHost
            | LaunchError::Slots(_)
            | LaunchError::Cgroup(_)
            | LaunchError::Search(_)
            | LaunchError::Io { .. }
            | LaunchError::Docker(_)
            | LaunchError::Images(_)
            | LaunchError::Singularity(_)
            | LaunchError::Busy { .. }
            | LaunchError::LockNotAFile { .. }
            | LaunchError::Preflight { .. }
            | LaunchError::Signals(_) => Kind::Refused,
            LaunchError::Slurm(e) => e.kind(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unknown(refused: Vec<String>) -> String {
        mlb_record::fix::one_line(&LaunchError::UnknownPlugin {
            path: "j.json".into(),
            position: 1,
            job: "t".into(),
            plugin: "spin".into(),
            available: "none".into(),
            refused: refused.into(),
        })
    }

    #[test]
    fn an_unknown_plugin_lists_the_refused_files_without_their_fixes() {
        assert_eq!(
            unknown(vec![]),
            "j.json: job #1 `t`: no plugin named `spin`; plugins found: none; fix: build or install it, or add its folder with --plugin-dir"
        );
        let one = unknown(vec!["/p/a.so is bad; fix: chmod o-w /p/a.so".into()]);
        assert!(one.contains("plugins found: none; 1 file refused: /p/a.so is bad; fix: build or install it, make a refused file acceptable (`mlb plugins list`"), "{one}");
        assert_eq!(one.matches(FIX).count(), 1, "one fix, the edge's: {one}");
        let five = unknown((0..5).map(|i| format!("/p/{i}.so is bad")).collect());
        assert!(
            five.contains("5 files refused: /p/0.so is bad; /p/1.so is bad; /p/2.so is bad; and 2 more; fix:"),
            "{five}"
        );
    }
}
