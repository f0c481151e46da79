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
//! A launch ([`resolve`]) probes only the files it needs: those without a
//! manifest that come, in search order, before the first manifest naming each
//! plugin it runs (any of them could hold that plugin and win).
//!
//! A file whose manifest names the libtorch it was built for is refused when
//! the libtorch it would load is another release, or none is found
//! ([`super::libtorch`]); the one found is kept with its entries (for the
//! workers of a launch, and `--json`). A launch whose workers run in a
//! container image does not look for it: the image has its own.
//!
//! A probe is bounded ([`PROBE_TIMEOUT_ENV`], 20 s by default): a library
//! still loading then is killed and refused, and mlb says so on stderr.
//! What a probe started is killed with it, and a library that left a process
//! running is refused ([`super::probe`]). Ctrl-C (or SIGTERM, SIGHUP) while
//! probing kills the probes and what they started, then ends mlb with
//! status 130.
//!
//! A library may export several workloads: it then has one entry per
//! workload, all with the same path.

use super::interrupt::Interrupt;
use super::libtorch::{self, Found};
use super::loader::LoadError;
use super::manifest;
use super::probe::{probe, Probed};
use super::search::SearchPath;
use super::trust::check_trusted;
use crate::console::Console;
use mlb_plugin::abi::ABI_VERSION;
use mlb_plugin::manifest::PluginMeta;
use mlb_present::text::{cut, cut_start};
use mlb_present::{Body, Cell, Document, Mark};
use mlb_record::fix::one_line;
use mlb_record::untrusted::visible;
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Environment variable bounding one probe, in whole seconds.
pub const PROBE_TIMEOUT_ENV: &str = "MLB_PROBE_TIMEOUT";

/// How long one probe may take by default: loading libtorch from a cold
/// cache takes seconds; a library that takes this long is taken to hang.
const DEFAULT_PROBE_TIMEOUT: Duration = Duration::from_secs(20);

/// One workload of a candidate file (or the file, when refused) and what
/// became of it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Entry {
    /// The file.
    pub path: PathBuf,
    /// Usable, refused or shadowed.
    #[serde(flatten)]
    pub status: Status,
    /// The libtorch the file will load, when its manifest names one
    /// ([`super::libtorch`]).
    #[serde(rename = "libtorch_found", skip_serializing_if = "Option::is_none")]
    pub libtorch: Option<Found>,
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
pub enum Mode<'n> {
    /// From their manifests; only files without one are probed.
    Manifest,
    /// Every file is probed in a child process that loads it.
    Verify,
    /// From their manifests; a file without one is probed only if it comes
    /// before the first manifest naming one of these plugins (it is left out
    /// otherwise).
    Resolve {
        /// The plugins.
        names: &'n [String],
        /// Whether the workers run on this host, and the libtorch a manifest
        /// names is looked for here: not when they run in a container image,
        /// whose own plugins and libtorch they use.
        here: bool,
    },
}

impl Mode<'_> {
    /// Whether the libtorch a manifest names is looked for on this host.
    fn finds_libtorch(self) -> bool {
        !matches!(self, Mode::Resolve { here: false, .. })
    }
}

/// Every candidate of the search path, in search order, described by its
/// manifest (files without one are probed, in parallel).
pub fn list(search: &SearchPath) -> Vec<Entry> {
    list_with(search, &current_mlb(), Mode::Manifest, &|| ())
}

/// As [`list`], but every candidate is probed (loaded in a child process),
/// manifest or not: `mlb plugins list --verify`. `probe_done` is called
/// as each probe ends.
pub fn verify(search: &SearchPath, probe_done: &(dyn Fn() + Sync)) -> Vec<Entry> {
    list_with(search, &current_mlb(), Mode::Verify, probe_done)
}

/// The entries a launch running the plugins `names` needs: as [`list`], but
/// a file without a manifest is probed (and listed) only when it could hold
/// one of them, that is when it comes before the first file whose manifest
/// names that plugin. The libtorch a manifest names is looked for only when
/// the workers run `here`, on this host.
pub fn resolve(search: &SearchPath, names: &[String], here: bool) -> Vec<Entry> {
    list_with(search, &current_mlb(), Mode::Resolve { names, here }, &|| ())
}

fn current_mlb() -> PathBuf {
    std::env::current_exe().unwrap_or_else(|_| PathBuf::from("mlb"))
}

/// As [`list`] or [`verify`], probing with the given `mlb` binary;
/// `probe_done` is called as each probe ends.
pub fn list_with(search: &SearchPath, mlb: &Path, mode: Mode, probe_done: &(dyn Fn() + Sync)) -> Vec<Entry> {
    let candidates = search.candidates();
    let known: Vec<Known> = candidates.iter().map(|path| Known::of(path, mode)).collect();
    let needed = match mode {
        Mode::Resolve { names, .. } => names.iter().map(|n| first_in_manifest(&known, n)).max().unwrap_or(0),
        Mode::Manifest | Mode::Verify => candidates.len(),
    };
    let probed_here = |i: usize, k: &Known| match mode {
        Mode::Verify => k.trusted,
        Mode::Manifest | Mode::Resolve { .. } => k.statuses.is_none() && i < needed,
    };
    let timeout = probe_timeout(std::env::var(PROBE_TIMEOUT_ENV).ok().as_deref());
    let interrupt = Interrupt::watch();
    let probed: Vec<Option<Probed>> = std::thread::scope(|s| {
        let flag = interrupt.flag;
        let handles: Vec<_> = candidates
            .iter()
            .zip(&known)
            .enumerate()
            .map(|(i, (p, k))| {
                let library_path = k.libtorch.as_ref().and_then(Found::library_path);
                probed_here(i, k).then(|| {
                    s.spawn(move || {
                        let done = probe(mlb, p, library_path, timeout, flag);
                        probe_done();
                        done
                    })
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.map(|h| {
                    h.join().unwrap_or_else(|_| {
                        Probed::Done(vec![Status::Refused { reason: "probe thread failed".into() }])
                    })
                })
            })
            .collect()
    });
    if probed.iter().any(|p| matches!(p, Some(Probed::Interrupted))) {
        interrupt.end_mlb();
    }
    drop(interrupt);
    let mut entries: Vec<Entry> = Vec::with_capacity(candidates.len());
    for ((path, known), probed) in candidates.into_iter().zip(known).zip(probed) {
        let statuses = match probed {
            Some(Probed::Done(statuses)) => Some(statuses),
            Some(Probed::Interrupted) | None => known.statuses,
        };
        for status in statuses.unwrap_or_default() {
            let status = match status {
                Status::Ok { meta } => match first_named(&entries, &meta.name) {
                    Some(by) => Status::Shadowed { meta, by },
                    None => Status::Ok { meta },
                },
                other => other,
            };
            let libtorch = known.libtorch.clone().filter(|_| !matches!(status, Status::Refused { .. }));
            entries.push(Entry { path: path.clone(), status, libtorch });
        }
    }
    entries
}

/// What is known of a candidate file before any probe: its trust check,
/// then its manifest and the libtorch it names.
struct Known {
    /// What they say of it; `None` when it is trusted and has no manifest
    /// (the library itself must be asked).
    statuses: Option<Vec<Status>>,
    /// It passed the trust check (it may be probed).
    trusted: bool,
    /// The libtorch its manifest names, found.
    libtorch: Option<Found>,
}

impl Known {
    /// A candidate refused for `reason`.
    fn refused(reason: String, trusted: bool) -> Known {
        Known { statuses: Some(vec![Status::Refused { reason }]), trusted, libtorch: None }
    }

    /// What is known of the candidate `path`, listed in `mode`.
    fn of(path: &Path, mode: Mode) -> Known {
        let real = match check_trusted(path) {
            Ok(real) => real,
            Err(e) => return Known::refused(one_line(&e), false),
        };
        let metas = match manifest::read(&real) {
            Ok(Some(metas)) => metas,
            Ok(None) => return Known { statuses: None, trusted: true, libtorch: None },
            Err(e) => return Known::refused(one_line(&e), true),
        };
        if let Some(found) = metas.iter().map(|m| m.abi_version).find(|v| *v != ABI_VERSION) {
            return Known::refused(one_line(&LoadError::AbiMismatch { path: real, found }), true);
        }
        let libtorch = match mode.finds_libtorch().then(|| libtorch::check(&real, &metas)) {
            Some(Err(e)) => return Known::refused(one_line(&e), true),
            Some(Ok(found)) => found,
            None => None,
        };
        Known { statuses: Some(metas.into_iter().map(|meta| Status::Ok { meta }).collect()), trusted: true, libtorch }
    }
}

/// The index of the first candidate whose manifest names `name` (the number
/// of candidates when none does): files without a manifest before it could
/// hold `name`.
fn first_in_manifest(known: &[Known], name: &str) -> usize {
    known
        .iter()
        .position(|k| k.statuses.iter().flatten().any(|s| matches!(s, Status::Ok { meta } if meta.name == name)))
        .unwrap_or(known.len())
}

/// The probe timeout `MLB_PROBE_TIMEOUT` (its value) asks for: a positive
/// whole number of seconds, else the default (said on stderr when the value
/// is not one).
fn probe_timeout(value: Option<&str>) -> Duration {
    match value.map(|v| v.trim().parse::<u64>()) {
        None => DEFAULT_PROBE_TIMEOUT,
        Some(Ok(secs)) if secs > 0 => Duration::from_secs(secs),
        Some(_) => {
            Console::Err.line(&format!(
                "mlb: warning: {PROBE_TIMEOUT_ENV}={:?} is not a positive whole number of seconds; using {} s",
                value.unwrap_or_default(),
                DEFAULT_PROBE_TIMEOUT.as_secs()
            ));
            DEFAULT_PROBE_TIMEOUT
        }
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

/// Why each refused file of `entries` is refused, one reason a file, each
/// naming its file.
pub fn refusals(entries: &[Entry]) -> Vec<String> {
    entries
        .iter()
        .filter_map(|e| match &e.status {
            Status::Refused { reason } => {
                let path = e.path.display().to_string();
                Some(if reason.contains(&path) { reason.clone() } else { format!("{path}: {reason}") })
            }
            _ => None,
        })
        .collect()
}

/// The listing as pretty JSON (an array of entries).
pub fn to_json(entries: &[Entry]) -> String {
    serde_json::to_string_pretty(entries).unwrap_or_else(|_| "[]".into())
}

/// The listing as text, no line wider than `columns`: a header, then each
/// file on a line of its own (its path cut at the start when too long),
/// followed by one line per workload it holds: name, version, the quality
/// its evaluation measures with the default target (`-`: none) and its
/// description cut with `…`; a shadowed workload says which file wins, a
/// refused file why. Names are never cut (`grep -w NAME` finds each). The
/// search path follows. The arguments are in `--json` and
/// `mlb plugins show NAME`.
pub fn to_text(entries: &[Entry], search: &SearchPath, columns: usize) -> String {
    let rows: Vec<[String; 3]> = entries
        .iter()
        .filter_map(|e| match &e.status {
            Status::Ok { meta } | Status::Shadowed { meta, .. } => Some(columns_of(meta)),
            Status::Refused { .. } => None,
        })
        .collect();
    let header = ["workload".to_string(), "version".into(), "quality".into()];
    let widths: [usize; 3] =
        std::array::from_fn(|c| rows.iter().chain([&header]).map(|r| r[c].chars().count()).max().unwrap_or(0));
    let line = |[name, version, quality]: [String; 3], rest: &str| {
        let [nw, vw, qw] = widths;
        let text = format!("  {name:<nw$}  {version:<vw$}  {quality:<qw$}  {rest}");
        // Never cut into the name.
        cut(text.trim_end(), columns.max(2 + name.chars().count()))
    };
    let mut out = vec![line(header, "description")];
    let mut file: Option<&Path> = None;
    for e in entries {
        if file != Some(e.path.as_path()) {
            out.push(cut_start(&visible(&e.path.display().to_string()), columns));
            file = Some(&e.path);
        }
        out.push(match &e.status {
            Status::Ok { meta } => line(columns_of(meta), &visible(&meta.description)),
            Status::Shadowed { meta, by } => {
                line(columns_of(meta), &format!("shadowed by {}", visible(&by.display().to_string())))
            }
            Status::Refused { reason } => cut(&format!("  REFUSED: {}", visible(reason)), columns),
        });
    }
    out.push(cut("search path (first match wins):", columns));
    out.extend(
        search
            .dirs()
            .iter()
            .map(|d| format!("  {}", cut_start(&visible(&d.display().to_string()), columns.saturating_sub(2)))),
    );
    out.join("\n")
}

/// The listing as a document, for the formats other than text and JSON:
/// one row per workload (or refused file) with its file.
pub fn document(entries: &[Entry]) -> Document {
    let rows = entries
        .iter()
        .map(|e| {
            let file = Cell::from(e.path.display().to_string());
            let described = |meta: &PluginMeta, what: Cell| {
                let quality = meta.quality.as_ref().map_or("-".into(), |q| q.summary());
                vec![meta.name.as_str().into(), meta.version.as_str().into(), quality.into(), what, file.clone()]
            };
            match &e.status {
                Status::Ok { meta } => described(meta, meta.description.as_str().into()),
                Status::Shadowed { meta, by } => {
                    described(meta, Cell::marked(format!("shadowed by {}", by.display()), Mark::Warn))
                }
                Status::Refused { reason } => {
                    vec![
                        "-".into(),
                        "-".into(),
                        "-".into(),
                        Cell::marked(format!("refused: {reason}"), Mark::Fail),
                        file,
                    ]
                }
            }
        })
        .collect();
    let mut document = Document::new("mlb plugins list");
    document.push("Workloads", Body::table(["workload", "version", "quality", "description", "file"], rows));
    document
}

/// A workload's name, version and quality, as the text listing shows them.
fn columns_of(meta: &PluginMeta) -> [String; 3] {
    let quality = meta.quality.as_ref().map_or("-".into(), |q| q.summary());
    [visible(&meta.name).into_owned(), visible(&meta.version).into_owned(), visible(&quality).into_owned()]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta(name: &str) -> PluginMeta {
        PluginMeta {
            name: name.into(),
            version: "1".into(),
            abi_version: ABI_VERSION,
            description: String::new(),
            default_args: serde_json::json!({}),
            arg_kinds: Default::default(),
            arg_help: Default::default(),
            quality: None,
            libtorch: None,
            deterministic: false,
            checkpoint: false,
        }
    }

    #[test]
    fn the_text_has_one_line_per_workload_under_its_file_and_never_cuts_a_name() {
        let long = "a description of many words that goes on well past the width of any terminal ".repeat(3);
        let torch = PathBuf::from("/plugins/libmlb_torch.so");
        let ok = |name: &str| Entry {
            path: torch.clone(),
            status: Status::Ok { meta: PluginMeta { description: long.clone(), ..meta(name) } },
            libtorch: None,
        };
        let entries = [
            ok("convnet_distributed"),
            ok("toy_reg"),
            Entry {
                path: "/plugins/libmlb_v2.so".into(),
                status: Status::Refused { reason: long.clone() },
                libtorch: None,
            },
            Entry {
                path: "/later/libmlb_toy.so".into(),
                status: Status::Shadowed { meta: meta("toy_reg"), by: torch.clone() },
                libtorch: None,
            },
        ];
        let search = SearchPath::new(&["/plugins".into()], [], Path::new("/usr/bin/mlb"));
        for columns in [40, 80, 100, 160] {
            let text = to_text(&entries, &search, columns);
            assert!(text.lines().all(|l| l.chars().count() <= columns), "{columns}:\n{text}");
            let lines: Vec<&str> = text.lines().collect();
            assert!(lines[0].starts_with("  workload  ") && lines[0].contains("version"), "{text}");
            assert_eq!(lines[1], "/plugins/libmlb_torch.so", "the file once, above its workloads");
            assert!(lines[2].starts_with("  convnet_distributed  1 ") && lines[2].ends_with('…'), "{text}");
            assert!(lines[3].starts_with("  toy_reg "), "{text}");
            assert_eq!(lines[4], "/plugins/libmlb_v2.so");
            assert!(lines[5].starts_with("  REFUSED: a description") && lines[5].ends_with('…'), "{text}");
            assert_eq!(lines[6], "/later/libmlb_toy.so");
            assert!(lines[7].starts_with("  toy_reg "), "{text}");
            assert!(columns < 80 || lines[7].contains("  shadowed by /plugins/lib"), "{text}");
            assert_eq!(lines[8], "search path (first match wins):");
            assert_eq!(lines[9], "  /plugins");
        }
    }

    #[test]
    fn files_without_manifest_before_the_first_manifest_naming_a_plugin_are_needed() {
        let known = |statuses| Known { statuses, trusted: true, libtorch: None };
        let refused = Some(vec![Status::Refused { reason: "no".into() }]);
        let known = [
            known(None),
            known(Some(vec![Status::Ok { meta: meta("a") }])),
            known(refused),
            known(None),
            known(Some(vec![Status::Ok { meta: meta("b") }])),
        ];
        assert_eq!(first_in_manifest(&known, "a"), 1);
        assert_eq!(first_in_manifest(&known, "b"), 4);
        assert_eq!(first_in_manifest(&known, "c"), known.len(), "not in any manifest: every file is needed");
    }

    #[test]
    fn the_probe_timeout_is_a_positive_whole_number_of_seconds() {
        assert_eq!(probe_timeout(None), DEFAULT_PROBE_TIMEOUT);
        assert_eq!(probe_timeout(Some(" 3 ")), Duration::from_secs(3));
        for bad in ["0", "-1", "1.5", "soon", ""] {
            assert_eq!(probe_timeout(Some(bad)), DEFAULT_PROBE_TIMEOUT, "{bad:?}");
        }
    }
}
