//! `mlb db ...`: the results store's subcommands, a file each, each turning
//! its arguments into the store's typed options ([`mlb_store::store::query`]),
//! which `mlb serve` builds from a request the same way.

pub mod compare;
pub mod export;
pub mod filters;
pub mod history;
pub mod import;
pub mod keys;
pub mod list;
pub mod pull;
pub mod push;
pub mod share;
pub mod systems;
pub mod vote;

use super::output::OutputArgs;
use clap::{Args, Subcommand};
use mlb_present::{Document, Format};
use mlb_record::exit::EXIT_OK;
use mlb_store::store::query::render;
use mlb_store::store::query::QueryError;
use mlb_store::store::{Location, Store, StoreError};

/// `mlb db ...`
#[derive(Debug, Subcommand)]
pub enum DbCommand {
    /// Imports mlb's run folders and the original suite's report folders
    /// (report files at any depth; each folder holding reports is a run).
    /// A run folder whose reports are all stored (by content hash) is
    /// skipped, one with a new or changed report is written again as it is
    /// now; each run folder is stored whole or not at all.
    Import(import::ImportArgs),
    /// Renames a system (onto a name taken, the two are one system).
    RenameSystem(systems::RenameSystemArgs),
    /// Removes a system with all its runs.
    RemoveSystem(systems::RemoveSystemArgs),
    /// The runs stored, oldest first, with their system, ids and tags.
    Runs(list::ListArgs),
    /// The systems stored, with their runs.
    Systems(list::ListArgs),
    /// The cells of the interference matrices stored (`mlb interfere --db`):
    /// each victim's slowdown beside each aggressor, with its interval.
    Interference(list::ListArgs),
    /// Benches x systems, normalised to a reference, with a score per system
    /// and its items/s per dollar and per watt.
    Compare(compare::CompareArgs),
    /// One system's figures over time, a line per bench (and an SVG chart).
    History(history::HistoryArgs),
    /// A run in Bencher Metric Format, or the long metrics table as CSV.
    Export(export::ExportArgs),
    /// The vote over deterministic runs' fingerprints across the stored
    /// runs and a new run folder (`--reports DIR`): each instance that left
    /// the majority of its config, device and stack, named with its run.
    /// Exit status 1 when a group has outliers or is not reproducible.
    Vote(vote::VoteArgs),
    /// The push keys of a collecting store (`mlb serve --accept-push`):
    /// one per submitting site, naming the systems it may push for.
    #[command(subcommand)]
    Keys(keys::KeysCommand),
    /// The log of pushes to this store: who, when, what, and the outcome.
    Pushes(keys::PushesArgs),
    /// Sends run folders to a collecting server (`mlb serve --accept-push`)
    /// with a push key; a push again stores nothing twice.
    Push(push::PushArgs),
    /// Copies the public runs of another mlb server into this store.
    Pull(pull::PullArgs),
    /// Makes (or lists, or revokes) a link that shows one run without the
    /// server's token.
    Share(share::ShareArgs),
}

/// `--db [URL]`, the results store, as every command that reads or writes
/// it spells it: `--db URL`, or `--db` alone for the default store. The
/// commands of `mlb db` and `mlb serve` use the default store without it
/// too; `mlb --jobs` and `mlb report` use a store only when it is given.
#[derive(Debug, Clone, Default, PartialEq, Eq, Args)]
pub struct DbArg {
    /// The results store: `sqlite:PATH` or `postgres://USER@HOST/DB`; `--db`
    /// alone: the default store, `MLB_DB`, else `$XDG_DATA_HOME/mlb/results.db`.
    #[arg(long, value_name = "URL", num_args = 0..=1, default_missing_value = "")]
    pub db: Option<String>,
}

impl DbArg {
    /// The store this names.
    pub fn location(&self) -> Result<Location, StoreError> {
        Location::from_env(self.db.as_deref())
    }

    /// The store this names, opened; one that does not exist yet is an
    /// error (only an import makes a store).
    pub fn open_existing(&self) -> Result<Store, StoreError> {
        Store::open_existing(&self.location()?)
    }
}

impl DbCommand {
    /// Where its result goes: `--format`, `--output`, `--wide` of a query;
    /// `None` for a command that prints what it did.
    pub fn output(&self) -> Option<&OutputArgs> {
        match self {
            DbCommand::Runs(args) | DbCommand::Systems(args) | DbCommand::Interference(args) => Some(&args.output),
            DbCommand::Compare(args) => Some(&args.output),
            DbCommand::History(args) => Some(&args.output),
            DbCommand::Vote(args) => Some(&args.output),
            DbCommand::Keys(keys::KeysCommand::List(args)) => Some(&args.output),
            DbCommand::Pushes(args) => Some(&args.output),
            DbCommand::Share(args) if args.list => Some(&args.output),
            DbCommand::Import(_)
            | DbCommand::RenameSystem(_)
            | DbCommand::RemoveSystem(_)
            | DbCommand::Export(_)
            | DbCommand::Keys(_)
            | DbCommand::Push(_)
            | DbCommand::Pull(_)
            | DbCommand::Share(_) => None,
        }
    }
}

/// Runs `command`; returns what to print and the exit status (0 but for
/// a vote that found outliers or a stack that is not reproducible).
pub fn run(command: &DbCommand) -> Result<(String, i32), QueryError> {
    let printed = match command {
        DbCommand::Import(args) => import::run(args),
        DbCommand::RenameSystem(args) => systems::rename(args),
        DbCommand::RemoveSystem(args) => systems::remove(args),
        DbCommand::Runs(args) => list::runs(args),
        DbCommand::Systems(args) => list::systems(args),
        DbCommand::Interference(args) => list::interference(args),
        DbCommand::Compare(args) => compare::run(args),
        DbCommand::History(args) => history::run(args),
        DbCommand::Export(args) => export::run(args),
        DbCommand::Vote(args) => return vote::run(args),
        DbCommand::Keys(command) => keys::run(command),
        DbCommand::Pushes(args) => keys::pushes(args),
        DbCommand::Push(args) => push::run(args),
        DbCommand::Pull(args) => pull::run(args),
        DbCommand::Share(args) => share::run(args),
    };
    Ok((printed?, EXIT_OK))
}

/// A query's result as `output` asks: JSON and CSV from its own data
/// (`data`, every figure at full precision), the other formats from its
/// document.
fn show<A>(
    output: &OutputArgs,
    document: impl FnOnce() -> Document<A>,
    data: impl FnOnce(render::Format) -> String,
) -> String {
    match output.format {
        Format::Json => data(render::Format::Json),
        Format::Csv => data(render::Format::Csv),
        Format::Text | Format::Markdown | Format::Html => output.render(&document()),
    }
}
