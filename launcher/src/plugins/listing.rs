//! `mlb plugins list`: every candidate file with its metadata or the reason it
//! is refused.
//!
//! Each file is probed in a child process (`mlb worker --describe FILE`), so a
//! library whose initialisers crash, hang or abort cannot take the listing
//! down with it.

use super::loader::PluginMeta;
use super::search::SearchPath;
use super::trust::check_trusted;
use comfy_table::{presets::UTF8_FULL_CONDENSED, ContentArrangement, Table};
use serde::Serialize;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How long one probe may take (loading libtorch from a cold cache is slow).
const PROBE_TIMEOUT: Duration = Duration::from_secs(60);

/// One candidate file and what became of it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Entry {
    /// The file.
    pub path: PathBuf,
    /// Usable, refused or shadowed.
    #[serde(flatten)]
    pub status: Status,
}

/// What a candidate file turned out to be.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub enum Status {
    /// A usable plugin.
    Ok {
        /// Its metadata.
        #[serde(flatten)]
        meta: PluginMeta,
    },
    /// A plugin of the same name earlier in the search path wins.
    Shadowed {
        /// Its metadata.
        #[serde(flatten)]
        meta: PluginMeta,
        /// The file that wins.
        by: PathBuf,
    },
    /// Not loadable as a plugin.
    Refused {
        /// Why.
        reason: String,
    },
}

/// Probes every candidate of the search path (in parallel), in search order.
pub fn list(search: &SearchPath) -> Vec<Entry> {
    let exe = std::env::current_exe().unwrap_or_else(|_| PathBuf::from("mlb"));
    list_with(search, &exe)
}

/// As [`list`], probing with the given `mlb` binary.
pub fn list_with(search: &SearchPath, mlb: &Path) -> Vec<Entry> {
    let candidates = search.candidates();
    let statuses: Vec<Status> = std::thread::scope(|s| {
        let handles: Vec<_> = candidates.iter().map(|p| s.spawn(move || probe(mlb, p))).collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| Status::Refused { reason: "probe thread failed".into() }))
            .collect()
    });
    let mut entries: Vec<Entry> = Vec::with_capacity(candidates.len());
    for (path, status) in candidates.into_iter().zip(statuses) {
        let status = match status {
            Status::Ok { meta } => match first_named(&entries, &meta.name) {
                Some(by) => Status::Shadowed { meta, by },
                None => Status::Ok { meta },
            },
            other => other,
        };
        entries.push(Entry { path, status });
    }
    entries
}

fn first_named(entries: &[Entry], name: &str) -> Option<PathBuf> {
    entries.iter().find(|e| matches!(&e.status, Status::Ok { meta } if meta.name == name)).map(|e| e.path.clone())
}

/// Finds the usable plugin called `name`.
pub fn find<'e>(entries: &'e [Entry], name: &str) -> Option<&'e Entry> {
    entries.iter().find(|e| matches!(&e.status, Status::Ok { meta } if meta.name == name))
}

/// Names of the usable plugins, sorted.
pub fn names(entries: &[Entry]) -> Vec<String> {
    let mut names: Vec<String> = entries
        .iter()
        .filter_map(|e| match &e.status {
            Status::Ok { meta } => Some(meta.name.clone()),
            _ => None,
        })
        .collect();
    names.sort();
    names
}

fn probe(mlb: &Path, path: &Path) -> Status {
    if let Err(e) = check_trusted(path) {
        return Status::Refused { reason: e.to_string() };
    }
    let child = Command::new(mlb)
        .arg("worker")
        .arg("--describe")
        .arg(path)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn();
    let mut child = match child {
        Ok(c) => c,
        Err(e) => return Status::Refused { reason: format!("cannot start probe {}: {e}", mlb.display()) },
    };
    let deadline = Instant::now() + PROBE_TIMEOUT;
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(5)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return Status::Refused { reason: format!("loading took over {}s", PROBE_TIMEOUT.as_secs()) };
            }
        }
    }
    let out = match child.wait_with_output() {
        Ok(out) => out,
        Err(e) => return Status::Refused { reason: format!("probe failed: {e}") },
    };
    if out.status.success() {
        return match serde_json::from_slice::<PluginMeta>(&out.stdout) {
            Ok(meta) => Status::Ok { meta },
            Err(e) => Status::Refused { reason: format!("probe printed no metadata: {e}") },
        };
    }
    let stderr = String::from_utf8_lossy(&out.stderr).trim().to_string();
    let reason = match out.status.signal() {
        Some(sig) => format!("crashed while loading (signal {sig}) {stderr}").trim().to_string(),
        None => stderr.lines().last().unwrap_or("probe failed without a message").to_string(),
    };
    Status::Refused { reason }
}

/// The listing as pretty JSON (an array of entries).
pub fn to_json(entries: &[Entry]) -> String {
    serde_json::to_string_pretty(entries).unwrap_or_else(|_| "[]".into())
}

/// The listing as a table, followed by the search path.
pub fn to_table(entries: &[Entry], search: &SearchPath) -> String {
    let mut table = Table::new();
    table.load_preset(UTF8_FULL_CONDENSED).set_content_arrangement(ContentArrangement::Dynamic);
    table.set_header(["name", "version", "abi", "description", "default args", "path"]);
    for e in entries {
        let path = e.path.display().to_string();
        let row = match &e.status {
            Status::Ok { meta } => row(meta, path),
            Status::Shadowed { meta, by } => row(meta, format!("{path}\n(shadowed by {})", by.display())),
            Status::Refused { reason } => {
                vec!["-".into(), "-".into(), "-".into(), format!("REFUSED: {reason}"), "-".into(), path]
            }
        };
        table.add_row(row);
    }
    let dirs: Vec<String> = search.dirs().iter().map(|d| format!("  {}", d.display())).collect();
    format!("{table}\nsearch path (first match wins):\n{}", dirs.join("\n"))
}

fn row(meta: &PluginMeta, path: String) -> Vec<String> {
    vec![
        meta.name.clone(),
        meta.version.clone(),
        format!("v{}", meta.abi_version),
        meta.description.clone(),
        meta.default_args.to_string(),
        path,
    ]
}
