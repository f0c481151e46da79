//! `mlb accept`: verdicts on a run. Rules (a YAML rules file, or the
//! default rules: the original score's pass criteria) are applied to the
//! figures `mlb report` computes, giving one [`Verdict`] per rule, bench,
//! GPU and node, with the measured value, the bound and the margin
//! (docs/accept.md).

mod apply;
mod args;
mod error;
mod evaluate;
mod pattern;
pub mod record;
pub mod render;
mod rules;
mod verdict;

pub use args::{AcceptArgs, Format};
pub use error::AcceptError;
pub use evaluate::evaluate;
pub use verdict::{Evaluation, Input, Kind, Origin, Outcome, Role, Subject, Verdict};

use mlb_record::contract::record::Output;
use std::path::PathBuf;

/// What `mlb accept` is asked to judge: the paths and options of its
/// command line that the verdicts depend on (not how they are printed).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Request {
    /// The run's reports folder.
    pub reports: PathBuf,
    /// The rules file; none: the default rules.
    pub rules: Option<PathBuf>,
    /// The target table file (`--targets FILE`).
    pub targets: Option<PathBuf>,
    /// The target table by GPU model name (`--gpu-model NAME`), when no file is given.
    pub gpu_model: Option<String>,
    /// The baseline run's reports folder (`--baseline DIR`).
    pub baseline: Option<PathBuf>,
    /// Only the reports of this suite (`--suite NAME`, as `mlb report` selects them).
    pub suite: Option<String>,
}

/// Runs `mlb accept`: what to print on stdout and the exit status (0 when
/// every verdict passed, 1 otherwise). With `--out FILE` the output goes
/// there, whole or not at all, and stdout gets the summary line.
pub fn run(args: &AcceptArgs) -> Result<(String, i32), AcceptError> {
    if let Some(record) = &args.record.verify {
        return Ok(record::run_verify(record, args.record.allowed_signers.as_deref())?);
    }
    let request = args.request();
    let key = args.record.ready(&request)?;
    let out = match &args.out {
        Some(path) => Some(Output::at(path).map_err(|source| AcceptError::Out { path: path.clone(), source })?),
        None => None,
    };
    let evaluation = evaluate(&request)?;
    let mut output = match args.format {
        Format::Text => render::text::render(&evaluation, &request.reports),
        Format::Json => render::json(&evaluation),
        Format::Csv => render::csv::render(&evaluation),
        Format::Html => render::html::page(&evaluation, &request.reports),
    };
    let code = evaluation.exit_code();
    let recorded = match &args.record.record {
        Some(path) => record::write(path, &request, &evaluation, key.as_ref())?,
        None => String::new(),
    };
    let Some(out) = out else {
        if args.format == Format::Text {
            output.push_str(&recorded);
        }
        return Ok((output, code));
    };
    let path = out.path().to_path_buf();
    out.put(output.as_bytes()).map_err(|source| AcceptError::Out { path: path.clone(), source })?;
    Ok((format!("{}\nwritten to {}\n{recorded}", render::summary(&evaluation), path.display()), code))
}
