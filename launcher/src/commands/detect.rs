//! `mlb detect`: this host as mlb sees it ([`mlb_run::host`]): its
//! document in any format, JSON from the description itself.

use super::output::OutputArgs;
use clap::Args;
use mlb_present::Format;
use mlb_run::host::HostKind;
use std::path::PathBuf;

/// `mlb detect` options.
#[derive(Debug, Args)]
pub struct DetectArgs {
    /// `--format`, `--output`, `--wide`.
    #[command(flatten)]
    pub output: OutputArgs,

    /// Treat the host as this kind instead of the detected one.
    #[arg(long, value_name = "KIND")]
    pub host: Option<HostKind>,

    /// Read the host description under this folder instead of `/` (fixture trees).
    #[arg(long = "host-root", value_name = "DIR", hide = true)]
    pub host_root: Option<PathBuf>,
}

/// Runs `mlb detect`: the host in `--format`.
pub fn run(args: &DetectArgs) -> String {
    let found = mlb_run::host::detect(&mlb_run::host::Probe::under(args.host_root.clone())).with_kind(args.host);
    match args.output.format {
        Format::Json => format!("{}\n", mlb_run::host::show::json(&found)),
        _ => args.output.render(&mlb_run::host::show::document(&found)),
    }
}
