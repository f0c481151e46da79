//! `mlb plugins list|show`: the workload plugins this install finds, from
//! their manifests (or loaded in a child process with `--verify`), one line
//! per workload fitted to the width, or JSON; one workload's description and
//! what each of its arguments does (docs/plugins.md).

use super::output::OutputArgs;
use clap::Subcommand;
use mlb_present::{Format, Progress, Width};
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
        /// `--format`, `--output`, `--wide`.
        #[command(flatten)]
        output: OutputArgs,
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

impl PluginsCommand {
    /// Where its result goes: `--format`, `--output`, `--wide` of `list`.
    pub fn output(&self) -> Option<&OutputArgs> {
        match self {
            PluginsCommand::List { output, .. } => Some(output),
            PluginsCommand::Show { .. } => None,
        }
    }
}

/// Runs `mlb plugins ...` over the search path that starts with
/// `plugin_dirs`: what to print on stdout.
pub fn run(command: &PluginsCommand, plugin_dirs: &[PathBuf]) -> Result<String, crate::edge::MlbError> {
    let search = SearchPath::from_env(plugin_dirs)?;
    let columns = Width::of_stdout().columns;
    match command {
        PluginsCommand::List { output, verify } => {
            let entries = if *verify {
                let progress = Progress::on_stderr("mlb plugins list --verify", None, "libraries probed");
                let entries = plugins::verify(&search, &|| progress.tick());
                progress.finish(None);
                entries
            } else {
                plugins::list(&search)
            };
            let text = match output.format {
                Format::Json => listing::to_json(&entries),
                Format::Text => listing::to_text(&entries, &search, output.width().columns),
                _ => output.render(&listing::document(&entries)),
            };
            Ok(format!("{text}\n"))
        }
        PluginsCommand::Show { name } => Ok(show::show(&plugins::list(&search), name, columns)?),
    }
}
