//! `mlb accept` options.

use super::Request;
use clap::{Args, ValueEnum};
use std::path::PathBuf;

/// How the verdicts are printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// One line per verdict, failed first, within 100 columns.
    Text,
    /// The evaluation: every verdict and the files read.
    Json,
    /// One line per verdict.
    Csv,
    /// A self-contained HTML page.
    Html,
}

/// `mlb accept`: verdicts on a run, from a rules file or the default rules.
#[derive(Debug, Args)]
pub struct AcceptArgs {
    /// Folder of the run's report files (read with its sub-folders).
    #[arg(long, value_name = "DIR", required_unless_present = "verify")]
    pub reports: Option<PathBuf>,

    /// YAML rules file (docs/accept.md); without it, the default rules: the
    /// original score's pass criteria.
    #[arg(long, value_name = "FILE")]
    pub rules: Option<PathBuf>,

    /// Target table (CSV `bench,target,perf_target,sd_target`).
    #[arg(long, value_name = "FILE")]
    pub targets: Option<PathBuf>,

    /// The target table of this GPU model (any case): a shipped one, else
    /// `MODEL.csv` in the user's, then the installation's target folder.
    #[arg(long = "gpu-model", value_name = "MODEL", conflicts_with = "targets")]
    pub gpu_model: Option<String>,

    /// Folder of a baseline run's reports, for `baseline` rules.
    #[arg(long, value_name = "DIR")]
    pub baseline: Option<PathBuf>,

    /// Only reports of this suite: their `suite` field is NAME, or their file
    /// name matches the original's pattern `NAME[_.]*.json` (as `mlb report --suite`).
    #[arg(long, value_name = "NAME")]
    pub suite: Option<String>,

    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,

    /// Write the output to FILE instead of stdout (stdout then gets the summary line).
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,

    /// The acceptance record: --record, --sign, --verify, --allowed-signers.
    #[command(flatten)]
    pub record: super::record::RecordArgs,
}

impl AcceptArgs {
    /// What the verdicts depend on.
    pub fn request(&self) -> Request {
        Request {
            reports: self.reports.clone().unwrap_or_default(),
            rules: self.rules.clone(),
            targets: self.targets.clone(),
            gpu_model: self.gpu_model.clone(),
            baseline: self.baseline.clone(),
            suite: self.suite.clone(),
        }
    }
}
