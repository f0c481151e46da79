//! `mlb targets`: its options, and the commands that derive a target table
//! from a reference run (through `mlb report`'s aggregation and
//! `mlb_judge::targets::derive`'s rule) and list the tables `--gpu-model`
//! finds (docs/targets.md).

use super::output::{OutputArgs, OutputFile};
use clap::{Args, Subcommand};
use mlb_judge::report::{aggregate, folder_error, GpuModel, Options};
use mlb_judge::targets::{catalog, derive, Folders, TargetsError};
use mlb_present::Progress;
use mlb_record::contract::read::read_folder_told;
use mlb_record::contract::record::Output;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// `mlb targets ...`
#[derive(Debug, Subcommand)]
pub enum TargetsCommand {
    /// Writes a target table from a reference run (docs/targets.md says by
    /// which rule); refuses a run with failures, fewer than 2 results of a
    /// bench or several GPU models unless --force.
    Derive(DeriveArgs),
    /// Every target table `--gpu-model` finds: name, where from, benches.
    List(ListArgs),
}

/// `mlb targets list`.
#[derive(Debug, Args)]
pub struct ListArgs {
    /// `--format`, `--output`, `--wide`.
    #[command(flatten)]
    pub output: OutputArgs,
}

impl TargetsCommand {
    /// Where the command's output goes, when it takes `--output`.
    pub fn output(&self) -> Option<&OutputArgs> {
        match self {
            TargetsCommand::List(args) => Some(&args.output),
            TargetsCommand::Derive(_) => None,
        }
    }
}

/// Parses `--perf`: a share in (0, 1].
fn share(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(v) if v > 0.0 && v <= 1.0 => Ok(v),
        _ => Err(format!("`{text}` is not a share of the target in (0, 1], e.g. 0.9")),
    }
}

/// `mlb targets derive`.
#[derive(Debug, Args)]
pub struct DeriveArgs {
    /// Folder of report files (read with its sub-folders).
    #[arg(long, value_name = "DIR")]
    pub reports: PathBuf,

    /// The GPU model the table is for: its name in `--gpu-model` (the file
    /// to write is `MODEL.csv` in a target folder).
    #[arg(long = "gpu-model", value_name = "MODEL")]
    pub gpu_model: String,

    /// Only reports of this suite (as `mlb report --suite`).
    #[arg(long, value_name = "NAME")]
    pub suite: Option<String>,

    /// The table's `perf_target`: the share of the target a bench must reach.
    #[arg(long, value_name = "SHARE", value_parser = share, default_value_t = derive::PERF_TARGET)]
    pub perf: f64,

    /// `--output FILE` (its folder made when missing, mode 0644).
    #[command(flatten)]
    pub output: OutputFile,

    /// Derive even from a run with failures, too few results or several
    /// GPU models.
    #[arg(long)]
    pub force: bool,
}

/// Runs `mlb targets ...`: returns what to print on stdout.
pub fn run(command: &TargetsCommand) -> Result<String, TargetsError> {
    match command {
        TargetsCommand::Derive(args) => run_derive(args),
        TargetsCommand::List(args) => Ok(args.output.render(&catalog::document(&Folders::from_env()))),
    }
}

/// Runs `mlb targets derive`: returns what to print on stdout (the table,
/// or where it was written).
fn run_derive(args: &DeriveArgs) -> Result<String, TargetsError> {
    let dir = &args.reports;
    let progress = Progress::on_stderr("mlb targets derive", None, "report files");
    let reading = read_folder_told(dir, &|| progress.tick()).map_err(folder_error)?;
    let models: BTreeSet<String> =
        reading.entries.iter().filter_map(|e| e.gpu.as_deref().map(str::to_string)).collect();
    let opts = Options { suite: args.suite.clone(), ..Options::default() };
    let report = aggregate(dir, reading, None, &opts)?;
    let system = mlb_run::system::read(dir).map(|s| s.accelerator_model_name);
    let reasons = derive::unfit(&report, &models, system.as_deref(), &args.gpu_model);
    if !reasons.is_empty() && !args.force {
        return Err(TargetsError::Unfit { reports: dir.clone(), reasons });
    }
    let benches = derive::derive(&report, args.perf);
    let text = derive::to_csv(&args.gpu_model, dir, &benches, args.perf, &reasons);
    // The summary once the command has done all it was asked: a failure says why alone.
    let Some(out) = &args.output.output else {
        progress.finish(None);
        return Ok(text);
    };
    write(out, &text)?;
    progress.finish(None);
    let mut said = format!("wrote {} ({} benches)\n", out.display(), benches.len());
    if let Some(model) = GpuModel::named(&args.gpu_model) {
        said.push_str(&format!(
            "note: `--gpu-model {}` finds the shipped table first; pass --targets {} to use this one\n",
            model.name(),
            out.display()
        ));
    }
    Ok(said)
}

/// Puts `text` at `path` whole or not at all, making its folder if needed
/// (a first table goes into a target folder that does not exist yet).
fn write(path: &Path, text: &str) -> Result<(), TargetsError> {
    let failed = |source| TargetsError::Write { path: path.to_path_buf(), source };
    let folder = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    std::fs::create_dir_all(folder).map_err(failed)?;
    Output::at(path).and_then(|o| o.put(text.as_bytes())).map_err(failed)
}
