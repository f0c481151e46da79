//! The command line of `mlb burn`.

use crate::commands::output::OutputArgs;
use clap::Args;
use mlb_run::launch::Options as LaunchOptions;
use std::path::PathBuf;
use std::time::Duration;

/// `mlb burn` options.
#[derive(Debug, Clone, Args)]
pub struct BurnArgs {
    /// How long each stress workload runs on every slot, in seconds (`90`),
    /// or with a unit (`90s`, `5m`, `1h`). gemm runs for it, then membw
    /// (then, with `--sdc`, the deterministic gpt).
    #[arg(long, value_name = "D", default_value = "60", value_parser = duration)]
    pub duration: Duration,

    /// Precision of gemm's products: fp32, tf32 (CUDA), bf16, fp16, fp8.
    #[arg(long, value_name = "P", default_value = "bf16", value_parser = ["fp32", "tf32", "bf16", "fp16", "fp8"])]
    pub precision: String,

    /// A slot fails below this share of the best slot's TFLOPS and bandwidth.
    #[arg(long, value_name = "RATIO", default_value = "0.9", value_parser = ratio)]
    pub tolerance: f64,

    /// A GPU fails below this share of the dense peak TFLOPS of its model in
    /// the precision (the peak table of `mlb report`'s MFU).
    #[arg(long = "min-peak", value_name = "RATIO", default_value = "0.5", value_parser = ratio)]
    pub min_peak: f64,

    /// A slot fails when a GPU, or its CPU quota, throttled more than this
    /// share of its window.
    #[arg(long = "max-throttled", value_name = "RATIO", default_value = "0.05", value_parser = ratio)]
    pub max_throttled: f64,

    /// Also train a small gpt deterministically on every slot for the
    /// duration (after membw) and fail the slots that compute other bits
    /// than the majority of the slots: silent data corruption.
    #[arg(long)]
    pub sdc: bool,

    /// Skip the all-reduce check that follows gemm and membw.
    #[arg(long = "no-collectives")]
    pub no_collectives: bool,

    /// A link fails when the all-reduce's bus bandwidth is below this share
    /// of the nominal rate of the interface it crossed.
    #[arg(long = "min-link", value_name = "RATIO", default_value_t = MIN_LINK, value_parser = ratio)]
    pub min_link: f64,

    /// Sizes of the tensors the all-reduce check sums, in MB.
    #[arg(long = "sizes-mb", value_name = "MB,..", default_value = SIZES_MB)]
    pub sizes_mb: String,

    /// The network interface the all-reduce's Gloo binds (default:
    /// `GLOO_SOCKET_IFNAME`, else the route to the first node).
    #[arg(long, value_name = "IF")]
    pub interface: Option<String>,

    /// Folder of the reports and of `burn.json` (default: `./burn`); it must
    /// hold no report yet.
    #[arg(long, value_name = "DIR", default_value = "burn")]
    pub outdir: PathBuf,

    /// Number of slots on a host without GPU (default 1); on a GPU host, the first N GPUs.
    #[arg(long, value_name = "N")]
    pub devices: Option<usize>,

    /// Burn every node of the Slurm allocation this runs in at once (one job
    /// step per workload, one task per slot on every node).
    #[arg(long)]
    pub slurm: bool,

    /// With `--slurm`: run the printed `scontrol update ... state=drain`
    /// command for each failed node.
    #[arg(long, requires = "slurm")]
    pub drain: bool,

    /// Run without cgroups: instances are not confined to their slot.
    #[arg(long = "no-cgroups")]
    pub no_cgroups: bool,

    /// When another mlb run holds this host, wait for it to end instead of refusing.
    #[arg(long)]
    pub wait: bool,

    /// `--format`, `--output`, `--wide`.
    #[command(flatten)]
    pub output: OutputArgs,

    /// Take this lock file instead of the host's (tests running side by side).
    #[arg(long = "lock", env = "MLB_LOCK", value_name = "FILE", hide = true)]
    pub lock: Option<PathBuf>,
}

/// Seconds a step of the stress workloads lasts when the duration allows
/// two of them at least.
pub const STEP_SECONDS: f64 = 1.0;

/// The longest the all-reduce check runs, whatever `--duration`: its figure
/// settles in seconds, and a link's faults do not build up with time as a
/// GPU's heat does.
pub const COLLECTIVE_SECONDS: f64 = 30.0;

/// Steps of the sdc check's gpt between two fingerprints, and in one of
/// its observations (each observation ends on a fingerprint).
pub const SDC_EVERY: u64 = 10;

/// The fewest fingerprints the sdc check takes: enough for a flipped bit
/// to show at one and stay at the next.
pub const SDC_FINGERPRINTS: u64 = 3;

/// About what a step of the sdc check's gpt takes (tiny, 4 sequences of 64
/// tokens, fp32), in seconds: its steps are counted, not timed, so this
/// sizes the run to the duration.
pub const SDC_STEP_SECONDS: f64 = 0.02;

/// The default least share of a link's nominal rate: Gloo moves one TCP
/// stream per peer, which on a healthy link reaches well above a quarter of
/// its rate (and on loopback is not judged).
pub const MIN_LINK: f64 = 0.25;

/// The default sizes of the all-reduce check, in MB (as nccl-tests' sweep
/// and DDP's 25 MB buckets).
pub const SIZES_MB: &str = "1,25,100";

impl BurnArgs {
    /// A burn of `duration` into `outdir` with the defaults (`mlb doctor --deep`).
    pub fn short(outdir: PathBuf, duration: Duration, devices: Option<usize>) -> BurnArgs {
        BurnArgs {
            duration,
            precision: "bf16".into(),
            tolerance: 0.9,
            max_throttled: 0.05,
            min_peak: 0.5,
            sdc: false,
            no_collectives: false,
            min_link: MIN_LINK,
            sizes_mb: SIZES_MB.into(),
            interface: None,
            outdir,
            devices,
            slurm: false,
            drain: false,
            no_cgroups: false,
            wait: false,
            output: OutputArgs::default(),
            lock: None,
        }
    }

    /// The launch of `jobs`, the burn's jobs file: its slots and isolation.
    pub fn launch(&self, jobs: PathBuf) -> LaunchOptions {
        LaunchOptions {
            jobs: Some(jobs),
            outdir: Some(self.outdir.clone()),
            devices: self.devices,
            slurm: self.slurm,
            no_cgroups: self.no_cgroups,
            wait: self.wait,
            lock: self.lock.clone(),
            pause: Duration::ZERO,
            ..LaunchOptions::default()
        }
    }

    /// The steps of each workload and their length: `duration` in steps of
    /// [`STEP_SECONDS`], or in two steps when it is shorter than two (the
    /// first step is the warm-up).
    pub fn steps(&self) -> (u64, f64) {
        steps_of(self.duration.as_secs_f64())
    }

    /// The observations of the sdc check, of [`SDC_EVERY`] steps each: as
    /// many as fill the duration at [`SDC_STEP_SECONDS`] a step, and
    /// [`SDC_FINGERPRINTS`] at least.
    pub fn sdc_observations(&self) -> u64 {
        let steps = self.duration.as_secs_f64() / SDC_STEP_SECONDS;
        ((steps / SDC_EVERY as f64).round() as u64).max(SDC_FINGERPRINTS)
    }

    /// The steps of the all-reduce check: as [`Self::steps`], for at most
    /// [`COLLECTIVE_SECONDS`].
    pub fn collective_steps(&self) -> (u64, f64) {
        steps_of(self.duration.as_secs_f64().min(COLLECTIVE_SECONDS))
    }
}

/// `total` seconds in steps of [`STEP_SECONDS`], two at least.
fn steps_of(total: f64) -> (u64, f64) {
    let steps = (total / STEP_SECONDS).round().max(2.0);
    (steps as u64, total / steps)
}

/// `--duration`: seconds, or a number with `s`, `m` or `h`; above zero and
/// at most a day.
fn duration(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let (number, unit) = match text.char_indices().find(|(_, c)| c.is_ascii_alphabetic()) {
        Some((at, _)) => text.split_at(at),
        None => (text, "s"),
    };
    let scale = match unit {
        "s" => 1.0,
        "m" => 60.0,
        "h" => 3600.0,
        other => return Err(format!("unknown unit `{other}`: use s, m or h (`90`, `90s`, `5m`)")),
    };
    match number.trim().parse::<f64>() {
        Ok(n) if n.is_finite() && n > 0.0 && n * scale <= 86_400.0 => Ok(Duration::from_secs_f64(n * scale)),
        _ => Err(format!("`{text}` is not a duration above 0 and at most a day (`90`, `90s`, `5m`)")),
    }
}

/// A ratio between 0 and 1.
fn ratio(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(r) if (0.0..=1.0).contains(&r) => Ok(r),
        _ => Err(format!("`{text}` is not a ratio from 0 to 1")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_take_units_and_refuse_nonsense() {
        assert_eq!(duration("90"), Ok(Duration::from_secs(90)));
        assert_eq!(duration("1.5m"), Ok(Duration::from_secs(90)));
        assert_eq!(duration("1h"), Ok(Duration::from_secs(3600)));
        for bad in ["0", "-3", "2d", "nan", "25h", ""] {
            assert!(duration(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_short_burn_still_has_a_step_after_the_warm_up() {
        #[derive(clap::Parser)]
        struct Line {
            #[command(flatten)]
            burn: BurnArgs,
        }
        let args = |d: &str| <Line as clap::Parser>::parse_from(["burn", "--duration", d]).burn;
        assert_eq!(args("1m").steps(), (60, 1.0));
        assert_eq!(args("1").steps(), (2, 0.5));
        assert_eq!(args("90").launch("j.json".into()).runs, 1);
        assert_eq!((args("5m").collective_steps(), args("3").collective_steps()), ((30, 1.0), (3, 1.0)));
        assert_eq!((args("1m").sdc_observations(), args("0.1").sdc_observations()), (300, SDC_FINGERPRINTS));
    }
}
