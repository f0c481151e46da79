//! `mlb accept`: its options, and the command that evaluates a run against
//! rules, prints or writes the verdicts and writes the acceptance record
//! (docs/accept.md). The evaluation, the renderings and the record are
//! `mlb_judge::accept`'s; this file only puts them in order.

use super::output::OutputArgs;
use crate::edge::MlbError;
use clap::Args;
use mlb_judge::accept::{evaluate, record, render, AcceptError, Request};
use mlb_present::{Format, Progress};
use mlb_record::contract::record::Output;
use std::path::PathBuf;

/// `mlb accept`: verdicts on a run, from a rules file or the default rules.
#[derive(Debug, Args)]
pub struct AcceptArgs {
    /// Folder of report files (read with its sub-folders).
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

    /// `--format`, `--output` (stdout then gets the summary line), `--wide`.
    #[command(flatten)]
    pub output: OutputArgs,

    /// The acceptance record: --record, --sign, --verify, --allowed-signers.
    #[command(flatten)]
    pub record: RecordArgs,
}

/// The options of `mlb accept` for the record.
#[derive(Debug, Default, Args)]
pub struct RecordArgs {
    /// Write the acceptance record to FILE (JSON: every input with its
    /// SHA-256 and size, the mlb version, every verdict), whole, mode 0644.
    #[arg(long, value_name = "FILE")]
    pub record: Option<PathBuf>,

    /// Sign the record with this OpenSSH ed25519 private key (unencrypted):
    /// writes FILE.sig as `ssh-keygen -Y sign -n mlb-acceptance` does.
    #[arg(long, value_name = "KEY", requires = "record")]
    pub sign: Option<PathBuf>,

    /// Verify the record FILE: check FILE.sig first, then compute the
    /// record again from the files it names inside its folder; exit 0 only
    /// when signed by a key of --allowed-signers and nothing changed, 1
    /// otherwise (unsigned, signer not checked, bad signature, a change).
    #[arg(
        long,
        value_name = "FILE",
        conflicts_with_all = ["record", "sign", "reports", "rules", "targets", "gpu_model", "baseline", "suite", "output"]
    )]
    pub verify: Option<PathBuf>,

    /// With --verify: the keys trusted to sign records, an allowed signers
    /// file (as `ssh-keygen -Y verify -f`) or a public key file (KEY.pub).
    #[arg(long = "allowed-signers", value_name = "FILE", requires = "verify")]
    pub allowed_signers: Option<PathBuf>,
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

/// Runs `mlb accept`: what to print on stdout and the exit status (0 when
/// every verdict passed, 1 otherwise). With `--output FILE` the output goes
/// there, whole or not at all, and stdout gets the summary line.
pub fn run(args: &AcceptArgs) -> Result<(String, i32), MlbError> {
    Ok(verdicts(args)?)
}

/// [`run`] in a format `mlb accept` prints.
fn verdicts(args: &AcceptArgs) -> Result<(String, i32), AcceptError> {
    if let Some(path) = &args.record.verify {
        return Ok(record::run_verify(path, args.record.allowed_signers.as_deref())?);
    }
    let request = args.request();
    let key = record::ready(args.record.record.as_deref(), args.record.sign.as_deref(), &request)?;
    let out = match args.output.path() {
        Some(path) => Some(Output::at(path).map_err(|source| AcceptError::Out { path: path.to_path_buf(), source })?),
        None => None,
    };
    let progress = Progress::on_stderr("mlb accept", None, "report files");
    let evaluation = evaluate(&request, &|| progress.tick())?;
    let mut output = match args.output.format {
        Format::Json => render::json(&evaluation),
        Format::Csv => render::csv::render(&evaluation),
        Format::Html => render::html::page(&evaluation, &request.reports),
        Format::Text | Format::Markdown => args.output.render(&render::document(&evaluation, &request.reports)),
    };
    let code = evaluation.exit_code();
    let recorded = match &args.record.record {
        Some(path) => record::write(path, &request, &evaluation, key.as_ref())?,
        None => String::new(),
    };
    let Some(out) = out else {
        if args.output.format == Format::Text {
            output.push_str(&recorded);
        }
        // The summary once the command has done all it was asked: a failure says why alone.
        progress.finish(None);
        return Ok((output, code));
    };
    let path = out.path().to_path_buf();
    out.put(output.as_bytes()).map_err(|source| AcceptError::Out { path: path.clone(), source })?;
    progress.finish(None);
    Ok((format!("{}\nwritten to {}\n{recorded}", render::summary(&evaluation), path.display()), code))
}
