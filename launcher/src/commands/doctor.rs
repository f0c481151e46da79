//! `mlb doctor` with load: the doctor's checks, then with `--diag` the
//! vendors' diagnostics ([`mlb_run::doctor::diag`]), and with `--deep` those
//! and a short burn, whose failed slots become failed checks. Everything
//! goes into `doctor.json`; the diagnostics also into `system.json`. A
//! command of its own, since it composes the doctor and a burn (a launch).

use crate::commands::burn::{BurnArgs, BurnError};
use crate::commands::output::OutputArgs;
use crate::edge::MlbError;
use clap::Args;
use mlb_present::{Format, Progress};
use mlb_record::exit::{EXIT_FAILED, EXIT_OK};
use mlb_run::check::{Check, Status};
use mlb_run::doctor::{self, diag, Verdict};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// `mlb doctor` options.
#[derive(Debug, Clone, Args)]
pub struct DoctorArgs {
    /// Folder for the verdict (default: `./output`).
    #[arg(long, value_name = "DIR", default_value = "output")]
    pub outdir: PathBuf,
    /// `--format`, `--output`, `--wide`.
    #[command(flatten)]
    pub output: OutputArgs,
    /// Also run the vendors' diagnostics that are installed (`dcgmi diag`,
    /// `rvs`), keeping every test's result.
    #[arg(long)]
    pub diag: bool,
    /// The level of the vendors' diagnostics (`dcgmi diag -r LEVEL`: 1 quick,
    /// 2 medium, 3 long, 4 extended; `rvs -r LEVEL`).
    #[arg(long = "diag-level", value_name = "LEVEL", default_value = "1", value_parser = clap::value_parser!(u8).range(1..=4))]
    pub diag_level: u8,
    /// `--diag` and a short burn of every slot (`mlb burn`, its reports in
    /// `OUTDIR/burn`): a slot that fails the burn fails the doctor.
    #[arg(long)]
    pub deep: bool,
    /// Seconds of each workload of the `--deep` burn.
    #[arg(long = "burn-seconds", value_name = "S", default_value = "10", requires = "deep")]
    pub burn_seconds: u64,
    /// Slots of the `--deep` burn (as `mlb burn --devices`).
    #[arg(long, value_name = "N", requires = "deep")]
    pub devices: Option<usize>,
}

/// Runs `mlb doctor`: the text to print and the exit status (1 when a check failed).
pub fn doctor(args: &DoctorArgs, plugin_dirs: &[PathBuf]) -> Result<(String, i32), MlbError> {
    let host = mlb_run::host::detect(&mlb_run::host::Probe::this_host());
    let mut verdict = doctor::examine(&host, &args.outdir, &[]);
    if args.diag || args.deep {
        let progress = Progress::on_stderr("mlb doctor: vendor diagnostics", None, "diagnostics");
        verdict.diagnostics = diag::run_all(args.diag_level);
        progress.add(verdict.diagnostics.len() as u64);
        progress.finish(None);
        if verdict.diagnostics.is_empty() {
            verdict.checks.push(Check::pass("diagnostics", "no vendor diagnostic installed (dcgmi, rvs)"));
        }
        verdict.checks.extend(verdict.diagnostics.iter().flat_map(diag::checks));
        let mut system = mlb_run::system::describe(&host, Path::new("/"), 1, None);
        system.diagnostics = verdict.diagnostics.clone();
        mlb_run::system::write(&args.outdir, &system)
            .map_err(|source| MlbError::Verdict { path: args.outdir.join(mlb_run::system::FILE), source })?;
    }
    if args.deep {
        verdict.checks.extend(burn_checks(args, plugin_dirs)?);
    }
    let file = verdict
        .write(&args.outdir)
        .map_err(|source| MlbError::Verdict { path: args.outdir.join(doctor::FILE), source })?;
    let code = if failed(&verdict) { EXIT_FAILED } else { EXIT_OK };
    let text = match args.output.format {
        Format::Json => mlb_present::json::render(&verdict),
        _ => args.output.render(&verdict.document()),
    };
    // Where the verdict went: part of the text, a note beside the other formats.
    let written = format!("verdict: {}\n", file.display());
    if args.output.format == Format::Text {
        return Ok((format!("{text}\n{written}"), code));
    }
    mlb_run::console::Console::Err.print(&written);
    Ok((text, code))
}

fn failed(verdict: &Verdict) -> bool {
    verdict.failed().next().is_some()
}

/// A short burn of every slot into `OUTDIR/burn`: a check per failed slot,
/// or one passed check.
fn burn_checks(args: &DoctorArgs, plugin_dirs: &[PathBuf]) -> Result<Vec<Check>, BurnError> {
    let burn_args =
        BurnArgs::short(args.outdir.join("burn"), Duration::from_secs(args.burn_seconds.max(1)), args.devices);
    let Some(burn) = crate::commands::burn::burn(&burn_args, plugin_dirs)? else {
        return Ok(vec![Check::not(Status::Fail, "burn", "interrupted", "run mlb doctor --deep again")]);
    };
    let file = burn_args.outdir.join(crate::commands::burn::FILE);
    let fix =
        format!("see {} and burn the slot again (`mlb burn`); a GPU that fails again needs service", file.display());
    if burn.failed.is_empty() {
        let mut slots: Vec<String> = burn.verdicts.iter().map(|v| v.slot.label()).collect();
        slots.dedup();
        let found = format!("every slot passed ({} slot(s), {} s per workload)", slots.len(), args.burn_seconds);
        return Ok(vec![Check::pass("burn", found)]);
    }
    let check = |f: &crate::commands::burn::Failed| {
        Check::not(Status::Fail, format!("burn slot {}", f.slot), f.reason.clone(), fix.clone())
    };
    Ok(burn.failed.iter().map(check).collect())
}
