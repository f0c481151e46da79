//! `mlb db push RUN_DIR... --to URL --key-file F`: run folders sent to a
//! collecting server (`mlb serve --accept-push`), a request each
//! ([`mlb_store::collect::client::Client::push`]).

use clap::Args;
use mlb_store::collect::client::{Client, PushAnswer};
use mlb_store::collect::CollectError;
use mlb_store::store::query::filters::day_or_time;
use mlb_store::store::query::QueryError;
use std::path::{Path, PathBuf};

/// `mlb db push RUN_DIR... --to URL --key-file F`
#[derive(Debug, Args)]
pub struct PushArgs {
    /// The run folders to push (each as `mlb db import` reads it).
    #[arg(value_name = "RUN_DIR", required = true)]
    pub dirs: Vec<PathBuf>,
    /// Where they go, and as whom.
    #[command(flatten)]
    pub destination: Destination,
}

/// Where a run goes, and as whom (`mlb --jobs F --push URL` names the same
/// with flags of its own).
#[derive(Clone, Debug, Args)]
pub struct Destination {
    /// The collecting server (`https://results.example.org`).
    #[arg(long, value_name = "URL")]
    pub to: String,
    /// The file holding the push key the server's operator made.
    #[arg(long, value_name = "FILE")]
    pub key_file: PathBuf,
    /// The system to store them under (one the key may push for; needed
    /// when it may push for several).
    #[arg(long, value_name = "NAME")]
    pub system: Option<String>,
    /// Keep them private to the key until this day (`2027-01-31`) or RFC
    /// 3339 time; they become public by themselves then.
    #[arg(long, value_name = "DATE", value_parser = day_or_time)]
    pub embargo: Option<String>,
}

impl Destination {
    /// Pushes `dir`.
    pub fn push(&self, dir: &Path) -> Result<PushAnswer, CollectError> {
        let key = super::keys::read_key(&self.key_file)?;
        Client::new(&self.to)?.push(&key, dir, self.system.as_deref(), self.embargo.as_deref())
    }

    /// The command that pushes `dir` again.
    pub fn retry(&self, dir: &Path) -> String {
        let mut command =
            format!("mlb db push {} --to {} --key-file {}", dir.display(), self.to, self.key_file.display());
        if let Some(system) = &self.system {
            command.push_str(&format!(" --system {system}"));
        }
        if let Some(embargo) = &self.embargo {
            command.push_str(&format!(" --embargo {embargo}"));
        }
        command
    }
}

/// What the server stored of `dir`, for a person.
pub fn told(dir: &Path, to: &str, answer: &PushAnswer) -> String {
    let embargo = answer.embargo_until.as_deref().map(|e| format!(", under embargo until {e}")).unwrap_or_default();
    let mut out = format!(
        "pushed {} to {to} as {} of {}: {} report{} new, {} updated, {} report file{} already stored{embargo}\n",
        dir.display(),
        answer.folder,
        answer.system,
        answer.instances,
        if answer.instances == 1 { "" } else { "s" },
        answer.updated,
        answer.skipped_files,
        if answer.skipped_files == 1 { "" } else { "s" },
    );
    for left in &answer.left_out {
        out.push_str(&format!("left out {left}\n"));
    }
    out
}

/// Pushes each folder `args` name, in turn; stops at the first refused.
pub fn run(args: &PushArgs) -> Result<String, QueryError> {
    let mut out = String::new();
    for dir in &args.dirs {
        let answer = args.destination.push(dir)?;
        out.push_str(&told(dir, &args.destination.to, &answer));
    }
    Ok(out)
}
