//! One flag set: the flags several commands share are spelled, valued and
//! explained alike wherever they appear; the old spellings still work for
//! one release, hidden, each with its note; and the docs quote only
//! command lines and flags that `mlb` takes.

use crate::common;
use clap::error::ErrorKind;
use clap::{Arg, Command, CommandFactory};
use mlb::cli::deprecated::{self, Change, OLD};
use mlb::cli::Cli;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Every subcommand of `cmd` with its path (`mlb db runs`), `cmd` first.
fn commands(cmd: &Command, path: &str) -> Vec<(String, Command)> {
    let mut found = vec![(path.to_string(), cmd.clone())];
    for sub in cmd.get_subcommands() {
        found.extend(commands(sub, &format!("{path} {}", sub.get_name())));
    }
    found
}

/// Every `--LONG` of the command tree: where, and how it is defined.
fn occurrences(long: &str) -> Vec<(String, Arg)> {
    commands(&Cli::command(), "mlb")
        .into_iter()
        .flat_map(|(path, cmd)| {
            cmd.get_arguments()
                .filter(|a| a.get_long() == Some(long))
                .map(|a| (path.clone(), a.clone()))
                .collect::<Vec<_>>()
        })
        .collect()
}

/// What a user sees of a flag: its value names, how many values an
/// occurrence takes, its help and its possible values.
fn shape(arg: &Arg) -> String {
    let values: Vec<String> = arg.get_possible_values().iter().map(|v| v.get_name().to_string()).collect();
    format!(
        "value {:?}, arity {:?}, help {:?}, values {values:?}",
        arg.get_value_names(),
        arg.get_num_args(),
        arg.get_help().map(ToString::to_string)
    )
}

/// The shapes of `--LONG` and where each appears.
fn shapes(long: &str) -> BTreeMap<String, Vec<String>> {
    let mut found: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (path, arg) in occurrences(long) {
        found.entry(shape(&arg)).or_default().push(path);
    }
    found
}

#[test]
fn shared_flags_read_alike_wherever_they_appear() {
    // `--price` is `USD` where there is one system, `NAME=USD` where there
    // are several; `--label` sets labels on an import and selects runs by
    // them in a query.
    for (long, kinds, at_least) in [
        ("format", 1, 10),
        ("output", 1, 11),
        ("wide", 1, 10),
        ("db", 1, 10),
        ("reports", 1, 4),
        ("host-root", 1, 2),
        ("price", 2, 2),
        ("label", 2, 6),
    ] {
        let found = shapes(long);
        assert!(found.len() <= kinds, "--{long} is defined {} ways: {found:#?}", found.len());
        let places: usize = found.values().map(Vec::len).sum();
        assert!(places >= at_least, "--{long} is in {places} commands only: {found:#?}");
    }
    for (path, arg) in occurrences("format") {
        let values: Vec<String> = arg.get_possible_values().iter().map(|v| v.get_name().to_string()).collect();
        assert_eq!(values, ["text", "json", "csv", "markdown", "html"], "{path}");
    }
    let prices: Vec<String> = occurrences("price").iter().map(|(_, a)| format!("{:?}", a.get_value_names())).collect();
    assert!(prices.iter().all(|p| p.contains("\"USD\"") || p.contains("\"NAME=USD\"")), "{prices:?}");
    for (path, arg) in occurrences("label") {
        assert_eq!(arg.get_value_names().unwrap(), ["KEY=VALUE"], "{path}");
    }
}

#[test]
fn no_old_spelling_shows() {
    for (path, cmd) in commands(&Cli::command(), "mlb") {
        for arg in cmd.get_arguments().filter(|a| !a.is_hide_set()) {
            let long = arg.get_long().unwrap_or_default();
            assert!(!["json", "out", "html", "root"].contains(&long), "{path} shows --{long}");
            if long == "tag" {
                assert_eq!(
                    (path.as_str(), arg.get_value_names().unwrap()),
                    ("mlb containers build", &["IMAGE".into()][..])
                );
            }
        }
    }
    let help = deprecated::command().find_subcommand_mut("detect").unwrap().render_long_help().to_string();
    assert!(!help.contains("--json") && !help.contains("--root"), "{help}");
}

/// A command line with an old spelling, and the same in the new one.
fn spellings(old: &deprecated::Old) -> (Vec<&'static str>, Vec<&'static str>) {
    let mut path: Vec<&'static str> = vec!["mlb"];
    path.extend(old.path);
    let (mut before, mut after) = (path.clone(), path);
    let extra: &[&str] = match old.path {
        ["db"] => &["runs"],
        ["db", "history"] => &["--system", "s"],
        ["accept"] | ["report"] | ["targets", "derive"] => &["--reports", "r"],
        _ => &[],
    };
    before.extend(extra);
    after.extend(extra);
    if old.path == ["targets", "derive"] {
        before.extend(["--gpu-model", "X"]);
        after.extend(["--gpu-model", "X"]);
    }
    match (old.change, old.old) {
        (Change::Renamed("output"), _) => (before.extend(["--out", "f"]), after.extend(["--output", "f"])),
        (Change::Renamed("host-root"), _) => (before.extend(["--root", "d"]), after.extend(["--host-root", "d"])),
        (Change::Renamed("label"), _) => (before.extend(["--tag", "k=v"]), after.extend(["--label", "k=v"])),
        (Change::Renamed("to"), _) => (before.extend(["--format", "csv"]), after.extend(["--to", "csv"])),
        (Change::Means { .. }, "json") => (before.push("--json"), after.extend(["--format", "json"])),
        (Change::FormatValue(_), "table") => (before.extend(["--format", "table"]), after.extend(["--format", "text"])),
        // Kept: the same flag, which the new spelling does not need.
        (Change::Kept(_), "html") => (before.extend(["--html", "p.html"]), after.extend(["--html", "p.html"])),
        (Change::Kept(_), "svg") => (before.extend(["--svg", "p.html"]), after.extend(["--svg", "p.html"])),
        other => panic!("no command line for {other:?}: add one"),
    };
    (before, after)
}

#[test]
fn every_old_spelling_still_works_and_says_so() {
    for old in OLD {
        let (before, after) = spellings(old);
        let (cli, notes) = deprecated::parse_from(&before).unwrap_or_else(|e| panic!("{before:?}: {e}"));
        assert_eq!(notes, [old.note()], "{before:?}");
        let (new, _) = deprecated::parse_from(&after).unwrap_or_else(|e| panic!("{after:?}: {e}"));
        assert_eq!(format!("{cli:?}"), format!("{new:?}"), "{before:?} is not {after:?}");
        if !matches!(old.change, Change::Kept(_)) {
            assert!(<Cli as clap::Parser>::try_parse_from(&after).is_ok(), "{after:?} needs no old spelling");
        }
    }
    let (_, notes) = deprecated::parse_from(["mlb", "detect", "--format", "json", "--host-root", "d"]).unwrap();
    assert!(notes.is_empty(), "{notes:?}");
    let (_, notes) = deprecated::parse_from(["mlb", "db", "runs", "--label", "k=v", "--label", "a=b"]).unwrap();
    assert!(notes.is_empty(), "{notes:?}");
}

#[test]
fn an_old_spelling_prints_its_note_on_stderr_and_works() {
    let out = common::run(&["detect", "--json"]);
    let (stdout, stderr) = common::text(&out);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(
        stderr,
        "mlb: note: --json is deprecated, use --format json; the old spelling goes in the next release\n"
    );
    let host: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert!(host["kind"].is_string(), "{stdout}");
}

#[test]
fn every_command_that_prints_results_prints_every_format() {
    let dir = tempfile::tempdir().unwrap();
    let outdir = dir.path().to_str().unwrap();
    let commands: [&[&str]; 4] =
        [&["plugins", "list"], &["detect"], &["targets", "list"], &["doctor", "--outdir", outdir]];
    for command in commands {
        for (format, starts) in [("csv", ""), ("markdown", "# mlb "), ("html", "<!DOCTYPE html>"), ("json", "")] {
            let out = common::run(&[command, &["--format", format]].concat());
            let (stdout, stderr) = common::text(&out);
            assert!(matches!(out.status.code(), Some(0 | 1)), "{command:?} {format}: {stderr}");
            assert!(!stdout.trim().is_empty() && stdout.starts_with(starts), "{command:?} {format}: {stdout}");
            if format == "json" {
                serde_json::from_str::<serde_json::Value>(&stdout).unwrap_or_else(|e| panic!("{command:?}: {e}"));
            }
        }
    }
}

/// The repository's root.
fn repository() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap()
}

/// The docs pages and the README.
fn pages() -> Vec<PathBuf> {
    let mut pages: Vec<PathBuf> = std::fs::read_dir(repository().join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    pages.push(repository().join("README.md"));
    pages.sort();
    pages
}

/// A command line quoted in a page: where, the words, and whether it is a
/// whole example (not a synopsis with `[OPTIONS]`, `A|B` or `...`).
struct Quoted {
    at: String,
    words: Vec<String>,
    example: bool,
}

/// The `mlb ...` lines of the code blocks of `text` (continued lines joined,
/// comments and what a pipe or a redirection adds cut) and the `mlb ...`
/// spans of its prose.
fn quoted(page: &Path, text: &str) -> Vec<Quoted> {
    let mut found = Vec::new();
    let (mut fenced, mut line_no, mut pending) = (false, 0, String::new());
    for (n, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        let at = || format!("{}:{}", name(page), n + 1);
        if fenced {
            let line = line.trim();
            let line = line.strip_prefix("$ ").unwrap_or(line);
            if pending.is_empty() && !line.starts_with("mlb ") {
                continue;
            }
            if pending.is_empty() {
                line_no = n + 1;
            }
            match line.strip_suffix('\\') {
                Some(head) => pending.push_str(head),
                None => {
                    pending.push_str(line);
                    let command = std::mem::take(&mut pending);
                    let command = cut(&command);
                    let example = !["[", "|", "...", "…", "<", "{"].iter().any(|p| command.contains(p));
                    let words = command.split_whitespace().map(|w| w.trim_matches(['\'', '"']).to_string()).collect();
                    found.push(Quoted { at: format!("{}:{line_no}", name(page)), words, example });
                }
            }
        } else {
            for span in line.split('`').skip(1).step_by(2).filter(|s| s.starts_with("mlb ")) {
                let words = cut(span).split_whitespace().map(String::from).collect();
                found.push(Quoted { at: at(), words, example: false });
            }
        }
    }
    found
}

/// `page` as the repository names it (`docs/report.md`).
fn name(page: &Path) -> String {
    page.strip_prefix(repository()).unwrap_or(page).display().to_string()
}

/// `command` without a trailing comment, pipe, redirection or next command.
fn cut(command: &str) -> &str {
    [" #", " | ", " > ", " 2>", " && ", " ; ", " || "]
        .iter()
        .filter_map(|sep| command.find(sep))
        .min()
        .map_or(command, |at| &command[..at])
        .trim()
}

/// The subcommand `words` name, its path, and the words after it; `None`
/// when the second word is neither a flag nor a subcommand (prose about mlb).
fn resolve<'a>(root: &'a Command, words: &'a [String]) -> Option<(&'a Command, Vec<&'a str>, &'a [String])> {
    let mut cmd = root;
    let mut path = Vec::new();
    let mut rest = &words[1..];
    let first = rest.first()?;
    if !first.starts_with('-') && cmd.find_subcommand(first).is_none() {
        return None;
    }
    while let Some(sub) = rest.first().and_then(|w| cmd.find_subcommand(w)) {
        path.push(sub.get_name());
        cmd = sub;
        rest = &rest[1..];
    }
    Some((cmd, path, rest))
}

#[test]
fn the_docs_quote_only_what_mlb_takes() {
    let root = Cli::command();
    let mut wrong = Vec::new();
    let mut checked = 0;
    for page in pages() {
        let text = std::fs::read_to_string(&page).unwrap();
        for q in quoted(&page, &text) {
            let Some((cmd, path, rest)) = resolve(&root, &q.words) else { continue };
            checked += 1;
            let globals: Vec<&str> =
                root.get_arguments().filter(|a| a.is_global_set()).filter_map(Arg::get_long).collect();
            let words: Vec<&String> = rest.iter().take_while(|w| *w != "--").collect();
            for (i, word) in words.iter().enumerate() {
                let Some(flag) = word.strip_prefix("--") else { continue };
                let flag = flag.split('=').next().unwrap_or_default().trim_end_matches([',', '.', ')', ':', ';']);
                let old = OLD
                    .iter()
                    .any(|o| path.starts_with(o.path) && o.old == flag && !matches!(o.change, Change::FormatValue(_)));
                let known = cmd.get_arguments().any(|a| a.get_long() == Some(flag))
                    || globals.contains(&flag)
                    || ["help", "version"].contains(&flag);
                if old || !known {
                    wrong.push(format!("{}: `mlb {}` has no --{flag}", q.at, path.join(" ")));
                }
                // A span may end at `--format`, its value on the next line.
                let value = words.get(i + 1).map_or("text", |w| w.as_str());
                let formats = ["text", "json", "csv", "markdown", "html"];
                if flag == "format" && !formats.iter().any(|f| value.starts_with(f)) {
                    wrong.push(format!("{}: `--format {value}`: the formats are {}", q.at, formats.join(", ")));
                }
            }
            if q.example {
                let refused = <Cli as clap::Parser>::try_parse_from(&q.words)
                    .err()
                    .filter(|e| !matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion));
                if let Some(e) = refused {
                    wrong.push(format!("{}: `{}` does not parse: {}", q.at, q.words.join(" "), e.kind()));
                }
            }
        }
    }
    assert!(checked > 100, "only {checked} command lines found in the docs");
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
