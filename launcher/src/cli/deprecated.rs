//! The old spellings of flags, kept for one release: each still works,
//! hidden from `--help`, the man pages and the completions, and prints one
//! note on stderr that names the new spelling:
//!
//! ```text
//! mlb: note: --json is deprecated, use --format json; the old spelling goes in the next release
//! ```
//!
//! [`OLD`] lists them all, so that the release that removes them empties
//! it; [`command`] is mlb's command line with them, and [`parse_from`]
//! reads a command line into [`Cli`] with the notes of the old spellings
//! it used. The typed options ([`Cli`] and the commands' arguments) hold
//! only the new spellings.

use super::Cli;
use clap::builder::{ArgPredicate, EnumValueParser, PossibleValue, TypedValueParser};
use clap::parser::ValueSource;
use clap::{Arg, ArgAction, ArgMatches, Command, CommandFactory, FromArgMatches, Id, ValueEnum};
use mlb_present::Format;
use std::ffi::{OsStr, OsString};

/// An old spelling: where it was taken, and what it became.
#[derive(Clone, Copy, Debug)]
pub struct Old {
    /// The subcommand it belongs to (`["plugins", "list"]`), and every
    /// subcommand below it that has the flag it became.
    pub path: &'static [&'static str],
    /// The old flag, without its dashes (`json`), or the old value of
    /// `--format` (`table`) for [`Change::FormatValue`].
    pub old: &'static str,
    /// What it became.
    pub change: Change,
}

/// What an old spelling became.
#[derive(Clone, Copy, Debug)]
pub enum Change {
    /// Another name of the same flag: `--out FILE` is `--output FILE`.
    Renamed(&'static str),
    /// A flag that means a flag with a value: `--json` is `--format json`.
    Means {
        /// The flag (`format`).
        flag: &'static str,
        /// Its value (`json`).
        value: &'static str,
    },
    /// An old value of `--format`: `--format table` is `--format text`.
    FormatValue(Format),
    /// A flag the command keeps itself, hidden, as it worked; this says
    /// what to use instead.
    Kept(&'static str),
}

/// Every old spelling that still works.
pub const OLD: &[Old] = &[
    Old { path: &["detect"], old: "json", change: Change::Means { flag: "format", value: "json" } },
    Old { path: &["doctor"], old: "json", change: Change::Means { flag: "format", value: "json" } },
    Old { path: &["burn"], old: "json", change: Change::Means { flag: "format", value: "json" } },
    Old { path: &["plugins", "list"], old: "json", change: Change::Means { flag: "format", value: "json" } },
    Old { path: &["detect"], old: "root", change: Change::Renamed("host-root") },
    Old { path: &["accept"], old: "out", change: Change::Renamed("output") },
    Old { path: &["targets", "derive"], old: "out", change: Change::Renamed("output") },
    Old { path: &["db"], old: "tag", change: Change::Renamed("label") },
    Old { path: &["db", "export"], old: "format", change: Change::Renamed("to") },
    Old { path: &["report"], old: "table", change: Change::FormatValue(Format::Text) },
    Old { path: &["report"], old: "html", change: Change::Kept("--format html --output FILE") },
    Old { path: &["db", "history"], old: "svg", change: Change::Kept("--format html --output FILE") },
];

impl Old {
    /// The note printed when a command line uses it.
    pub fn note(&self) -> String {
        let (old, new) = match self.change {
            Change::Renamed(new) => (format!("--{}", self.old), format!("--{new}")),
            Change::Means { flag, value } => (format!("--{}", self.old), format!("--{flag} {value}")),
            Change::FormatValue(new) => (format!("--format {}", self.old), format!("--format {}", new.name())),
            Change::Kept(instead) => (format!("--{}", self.old), instead.to_string()),
        };
        format!("mlb: note: {old} is deprecated, use {new}; the old spelling goes in the next release")
    }

    /// Whether it belongs to `cmd`, the subcommand at `path`.
    fn applies(&self, path: &[&str], cmd: &Command) -> bool {
        let long = match self.change {
            Change::Renamed(new) => new,
            Change::Means { flag, .. } => flag,
            Change::FormatValue(_) => "format",
            Change::Kept(_) => self.old,
        };
        path.starts_with(self.path) && id_of(cmd, long).is_some()
    }

    /// `cmd` taking it.
    fn add(&self, cmd: Command) -> Command {
        match self.change {
            Change::Renamed(new) => {
                let id = id_of(&cmd, new).expect("applies");
                cmd.mut_arg(id, |a| a.alias(self.old))
            }
            Change::Means { flag, value } => {
                let id = id_of(&cmd, flag).expect("applies");
                let old =
                    Arg::new(self.old).long(self.old).action(ArgAction::SetTrue).hide(true).conflicts_with(id.clone());
                cmd.arg(old).mut_arg(id, |a| a.default_value_if(self.old, ArgPredicate::Equals("true".into()), value))
            }
            Change::FormatValue(new) => {
                let id = id_of(&cmd, "format").expect("applies");
                let parser = OldParser { old: self.old }.map(move |f: OldOr| f.or(new));
                cmd.mut_arg(id, |a| a.value_parser(parser))
            }
            Change::Kept(_) => cmd,
        }
    }

    /// Whether `argv`, parsed into `matches` of `cmd`, spells it.
    fn used(&self, cmd: &Command, matches: &ArgMatches, argv: &[OsString]) -> bool {
        let given = |id: &str| matches.value_source(id) == Some(ValueSource::CommandLine);
        match self.change {
            Change::Renamed(new) => {
                let id = id_of(cmd, new).expect("applies");
                given(id.as_str()) && spelled(argv, self.old)
            }
            Change::Means { .. } => given(self.old),
            Change::FormatValue(_) => {
                let id = id_of(cmd, "format").expect("applies");
                given(id.as_str())
                    && matches.get_raw(id.as_str()).into_iter().flatten().any(|v| v == OsStr::new(self.old))
            }
            Change::Kept(_) => given(id_of(cmd, self.old).expect("applies").as_str()),
        }
    }
}

/// The id of `cmd`'s flag `--long`.
fn id_of(cmd: &Command, long: &str) -> Option<Id> {
    cmd.get_arguments().find(|a| a.get_long() == Some(long)).map(|a| a.get_id().clone())
}

/// Whether a word of `argv` before `--` is `--old` or `--old=VALUE`.
fn spelled(argv: &[OsString], old: &str) -> bool {
    let flag = format!("--{old}");
    argv.iter()
        .skip(1)
        .map(|w| w.to_string_lossy())
        .take_while(|w| w != "--")
        .any(|w| w == flag || w.starts_with(&format!("{flag}=")))
}

/// A `--format` value: a format, or the old value that stands for one.
#[derive(Clone, Copy, Debug)]
enum OldOr {
    /// A format by its name.
    Format(Format),
    /// The old value.
    Old,
}

impl OldOr {
    /// The format this stands for, `new` for the old value.
    fn or(self, new: Format) -> Format {
        match self {
            OldOr::Format(f) => f,
            OldOr::Old => new,
        }
    }
}

/// `--format`'s parser, taking one old value too (hidden from the
/// possible values `--help` lists).
#[derive(Clone, Debug)]
struct OldParser {
    /// The old value.
    old: &'static str,
}

impl TypedValueParser for OldParser {
    type Value = OldOr;

    fn parse_ref(&self, cmd: &Command, arg: Option<&Arg>, value: &OsStr) -> Result<OldOr, clap::Error> {
        if value == OsStr::new(self.old) {
            return Ok(OldOr::Old);
        }
        EnumValueParser::<Format>::new().parse_ref(cmd, arg, value).map(OldOr::Format)
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new(Format::value_variants().iter().filter_map(ValueEnum::to_possible_value)))
    }
}

/// mlb's command line, taking the old spellings too.
pub fn command() -> Command {
    with_old(Cli::command(), &[])
}

/// `cmd`, at `path`, and its subcommands, taking the old spellings that
/// belong to them.
fn with_old(cmd: Command, path: &[&str]) -> Command {
    let mut cmd = OLD.iter().filter(|o| o.applies(path, &cmd)).fold(cmd.clone(), |cmd, old| old.add(cmd));
    let names: Vec<String> = cmd.get_subcommands().map(|s| s.get_name().to_string()).collect();
    for name in names {
        let below: Vec<&str> = path.iter().copied().chain([name.as_str()]).collect();
        cmd = cmd.mut_subcommand(&name, |sub| with_old(sub, &below));
    }
    cmd
}

/// The notes of the old spellings `argv` uses, parsed into `matches` of
/// `cmd` at `path`.
fn notes(cmd: &Command, matches: &ArgMatches, path: &[&str], argv: &[OsString]) -> Vec<String> {
    let mut found: Vec<String> =
        OLD.iter().filter(|o| o.applies(path, cmd) && o.used(cmd, matches, argv)).map(Old::note).collect();
    if let Some((name, sub_matches)) = matches.subcommand() {
        let sub = cmd.find_subcommand(name).expect("a matched subcommand is there");
        let below: Vec<&str> = path.iter().copied().chain([name]).collect();
        found.extend(notes(sub, sub_matches, &below, argv));
    }
    found
}

/// Reads `argv` (the program's name first) into [`Cli`], old spellings
/// too; returns it with a note per old spelling used.
pub fn parse_from<I, T>(argv: I) -> Result<(Cli, Vec<String>), clap::Error>
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let argv: Vec<OsString> = argv.into_iter().map(Into::into).collect();
    let mut cmd = command();
    let matches = cmd.try_get_matches_from_mut(&argv)?;
    let cli = Cli::from_arg_matches(&matches).map_err(|e| e.format(&mut cmd))?;
    Ok((cli, notes(&cmd, &matches, &[], &argv)))
}
