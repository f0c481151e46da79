//! `mlb plugins list`: every candidate file with its metadata or the reason it
//! is refused.
//!
//! A file is described by its manifest (a section of the library, read
//! without loading it: see [`super::manifest`]). A file without one (an older
//! build, a plugin written in C) is probed in a child process
//! (`mlb worker --describe FILE`), so a library whose initialisers crash, hang
//! or abort cannot take the listing down with it. [`verify`] (`mlb plugins
//! list --verify`) probes every file, manifest or not: the library itself
//! then says what it exports, and the probe refuses a library whose manifest
//! does not match its tables.
//!
//! A library may export several workloads: it then has one entry per
//! workload, all with the same path.

use super::loader::{LoadError, PluginMeta};
use super::manifest;
use super::search::SearchPath;
use super::trust::check_trusted;
use comfy_table::{presets::UTF8_FULL_CONDENSED, ContentArrangement, Table};
use mlb_plugin::abi::ABI_VERSION;
use serde::Serialize;
use std::io::IsTerminal;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How long one probe may take (loading libtorch from a cold cache is slow).
const PROBE_TIMEOUT: Duration = Duration::from_secs(60);

/// One workload of a candidate file (or the file, when refused) and what
/// became of it.
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

/// How candidates are described.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// From their manifests; only files without one are probed.
    Manifest,
    /// Every file is probed in a child process that loads it.
    Verify,
}

/// Every candidate of the search path, in search order, described by its
/// manifest (files without one are probed, in parallel).
pub fn list(search: &SearchPath) -> Vec<Entry> {
    list_with(search, &current_mlb(), Mode::Manifest)
}

/// As [`list`], but every candidate is probed (loaded in a child process),
/// manifest or not: `mlb plugins list --verify`.
pub fn verify(search: &SearchPath) -> Vec<Entry> {
    list_with(search, &current_mlb(), Mode::Verify)
}

fn current_mlb() -> PathBuf {
    std::env::current_exe().unwrap_or_else(|_| PathBuf::from("mlb"))
}

/// As [`list`] or [`verify`], probing with the given `mlb` binary.
pub fn list_with(search: &SearchPath, mlb: &Path, mode: Mode) -> Vec<Entry> {
    let candidates = search.candidates();
    // Trust first, then the manifest; `None`: ask the library (probe).
    let known: Vec<Option<Vec<Status>>> = candidates
        .iter()
        .map(|path| match check_trusted(path) {
            Err(e) => Some(vec![Status::Refused { reason: e.to_string() }]),
            Ok(_) if mode == Mode::Verify => None,
            Ok(real) => from_manifest(&real),
        })
        .collect();
    let probed: Vec<Option<Vec<Status>>> = std::thread::scope(|s| {
        let handles: Vec<_> =
            candidates.iter().zip(&known).map(|(p, k)| k.is_none().then(|| s.spawn(move || probe(mlb, p)))).collect();
        handles
            .into_iter()
            .map(|h| {
                h.map(|h| h.join().unwrap_or_else(|_| vec![Status::Refused { reason: "probe thread failed".into() }]))
            })
            .collect()
    });
    let mut entries: Vec<Entry> = Vec::with_capacity(candidates.len());
    for ((path, known), probed) in candidates.into_iter().zip(known).zip(probed) {
        for status in known.or(probed).unwrap_or_default() {
            let status = match status {
                Status::Ok { meta } => match first_named(&entries, &meta.name) {
                    Some(by) => Status::Shadowed { meta, by },
                    None => Status::Ok { meta },
                },
                other => other,
            };
            entries.push(Entry { path: path.clone(), status });
        }
    }
    entries
}

/// What the manifest of a trusted file says; `None` when it has none.
fn from_manifest(path: &Path) -> Option<Vec<Status>> {
    match manifest::read(path) {
        Ok(Some(metas)) => match metas.iter().map(|m| m.abi_version).find(|v| *v != ABI_VERSION) {
            Some(found) => {
                Some(vec![Status::Refused { reason: LoadError::AbiMismatch { path: path.into(), found }.to_string() }])
            }
            None => Some(metas.into_iter().map(|meta| Status::Ok { meta }).collect()),
        },
        Ok(None) => None,
        Err(e) => Some(vec![Status::Refused { reason: e.to_string() }]),
    }
}

fn first_named(entries: &[Entry], name: &str) -> Option<PathBuf> {
    entries.iter().find(|e| matches!(&e.status, Status::Ok { meta } if meta.name == name)).map(|e| e.path.clone())
}

/// Finds the usable plugin called `name`: its entry's `path` is the file and
/// its metadata's `name` the workload to load from it.
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

/// Runs `mlb worker --describe path` (trust already checked): one status per
/// workload the library exports, or why it is refused.
fn probe(mlb: &Path, path: &Path) -> Vec<Status> {
    let refused = |reason: String| vec![Status::Refused { reason }];
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
        Err(e) => return refused(format!("cannot start probe {}: {e}", mlb.display())),
    };
    let deadline = Instant::now() + PROBE_TIMEOUT;
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(5)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return refused(format!("loading took over {}s", PROBE_TIMEOUT.as_secs()));
            }
        }
    }
    let out = match child.wait_with_output() {
        Ok(out) => out,
        Err(e) => return refused(format!("probe failed: {e}")),
    };
    if out.status.success() {
        // One JSON object per line, one line per workload.
        let metas: Result<Vec<PluginMeta>, _> = String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(serde_json::from_str::<PluginMeta>)
            .collect();
        return match metas {
            Ok(metas) if !metas.is_empty() => metas.into_iter().map(|meta| Status::Ok { meta }).collect(),
            Ok(_) => refused("probe printed no metadata".into()),
            Err(e) => refused(format!("probe printed no metadata: {e}")),
        };
    }
    let stderr = String::from_utf8_lossy(&out.stderr).trim().to_string();
    let reason = match out.status.signal() {
        Some(sig) => format!("crashed while loading (signal {sig}) {stderr}").trim().to_string(),
        None => stderr.lines().last().unwrap_or("probe failed without a message").to_string(),
    };
    refused(reason)
}

/// The listing as pretty JSON (an array of entries).
pub fn to_json(entries: &[Entry]) -> String {
    serde_json::to_string_pretty(entries).unwrap_or_else(|_| "[]".into())
}

/// Width of the table when stdout is no terminal (a terminal's own width otherwise).
const PIPED_WIDTH: u16 = 100;

/// The listing as a table that fits the terminal (100 columns when piped),
/// followed by the search path. The arguments are in `--json` and
/// `mlb plugins show NAME`.
pub fn to_table(entries: &[Entry], search: &SearchPath) -> String {
    let mut table = Table::new();
    table.load_preset(UTF8_FULL_CONDENSED).set_content_arrangement(ContentArrangement::Dynamic);
    if !std::io::stdout().is_terminal() {
        table.set_width(PIPED_WIDTH);
    }
    table.set_header(["name", "version", "abi", "description", "path"]);
    for e in entries {
        let path = e.path.display().to_string();
        let row = match &e.status {
            Status::Ok { meta } => row(meta, path),
            Status::Shadowed { meta, by } => row(meta, format!("{path}\n(shadowed by {})", by.display())),
            Status::Refused { reason } => {
                vec!["-".into(), "-".into(), "-".into(), format!("REFUSED: {reason}"), path]
            }
        };
        table.add_row(row);
    }
    let dirs: Vec<String> = search.dirs().iter().map(|d| format!("  {}", d.display())).collect();
    format!("{table}\nsearch path (first match wins):\n{}", dirs.join("\n"))
}

fn row(meta: &PluginMeta, path: String) -> Vec<String> {
    vec![meta.name.clone(), meta.version.clone(), format!("v{}", meta.abi_version), meta.description.clone(), path]
}
