//! `mlb plugins list|show`: the workload plugins this install finds, from
//! their manifests (or loaded in a child process with `--verify`), one line
//! per workload fitted to the width, or JSON; one workload's description and
//! what each of its arguments does (docs/plugins.md).

use clap::Subcommand;
use mlb_present::Width;
use mlb_run::plugins::{self, listing, show, SearchPath};
use std::path::PathBuf;

/// `mlb plugins ...`
#[derive(Debug, Subcommand)]
pub enum PluginsCommand {
    /// Lists every plugin found, and every file refused with the reason.
    ///
    /// Plugins are described by their manifest (read from the file, without
    /// loading it); files without one are loaded in a child process.
    List {
        /// Print JSON instead of one line per workload.
        #[arg(long)]
        json: bool,
        /// Load every file in a child process (as `mlb worker` would) instead
        /// of trusting manifests: slower, and checks each manifest against the
        /// library's own tables.
        #[arg(long)]
        verify: bool,
    },
    /// One workload: its description, version, file, and what each of its arguments does, with its default.
    Show {
        /// The workload's name (as in `mlb plugins list`).
        name: String,
    },
}

/// Runs `mlb plugins ...` over the search path that starts with
/// `plugin_dirs`: what to print on stdout.
pub fn run(command: &PluginsCommand, plugin_dirs: &[PathBuf]) -> Result<String, crate::edge::MlbError> {
    let search = SearchPath::from_env(plugin_dirs)?;
    let columns = Width::of_stdout().columns;
    match command {
        PluginsCommand::List { json, verify } => {
            let entries = if *verify { plugins::verify(&search) } else { plugins::list(&search) };
            let text = if *json { listing::to_json(&entries) } else { listing::to_text(&entries, &search, columns) };
            Ok(format!("{text}\n"))
        }
        PluginsCommand::Show { name } => Ok(show::show(&plugins::list(&search), name, columns)?),
    }
}
