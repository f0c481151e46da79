//! `mlb plugins show NAME`: one workload, its quality, its arguments, their
//! kinds and their defaults.

use super::libtorch::Found;
use super::listing::{self, Entry, Status};
use mlb_plugin::manifest::PluginMeta;
use mlb_record::fix::Fix;
use std::collections::BTreeSet;
use std::fmt::Write;

/// `mlb plugins show NAME` found no usable workload of that name.
#[derive(Debug, thiserror::Error)]
#[error("no plugin named `{name}`; plugins found: {available}")]
pub struct NoSuchPlugin {
    /// The name asked for.
    pub name: String,
    /// Usable plugins, comma-separated (or `none`).
    pub available: String,
}

/// The description of workload `name` among `entries`: name, version, ABI,
/// file, description, the quality its evaluation measures, the libtorch it
/// was built for and the one it will load, then each argument (declared or
/// with a default) on a line of its own: name, kind (`-` when undeclared),
/// default (`-` when none).
pub fn show(entries: &[Entry], name: &str) -> Result<String, NoSuchPlugin> {
    let Some(entry) = listing::find(entries, name) else {
        let names = listing::names(entries);
        let available = if names.is_empty() { "none".into() } else { names.join(", ") };
        return Err(NoSuchPlugin { name: name.to_string(), available });
    };
    let Status::Ok { meta } = &entry.status else { unreachable!("find returns usable plugins only") };
    Ok(describe(meta, &entry.path.display().to_string(), entry.libtorch.as_ref()))
}

fn describe(meta: &PluginMeta, path: &str, found: Option<&Found>) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{} {} (plugin ABI v{})", meta.name, meta.version, meta.abi_version);
    let _ = writeln!(out, "file: {path}");
    let _ = writeln!(out, "{}", meta.description);
    let _ = match &meta.quality {
        Some(q) => writeln!(
            out,
            "quality: {} ({}), {} is better, default target {}",
            q.metric,
            if q.unit.is_empty() { "no unit" } else { &q.unit },
            if q.higher_is_better { "higher" } else { "lower" },
            q.target
        ),
        None => writeln!(out, "quality: none (no evaluation)"),
    };
    let _ = match (&meta.libtorch, found) {
        (Some(built), Some(found)) => writeln!(
            out,
            "libtorch: built for {built}; loads {} in {} (found through {})",
            found.version.as_deref().unwrap_or("a libtorch of no version"),
            found.dir.display(),
            found.via
        ),
        (Some(built), None) => writeln!(out, "libtorch: built for {built}"),
        (None, _) => writeln!(out, "libtorch: none"),
    };
    let _ = writeln!(out, "arguments (kind, default):");
    let defaults = meta.default_args.as_object();
    let names: BTreeSet<&String> = meta.arg_kinds.keys().chain(defaults.into_iter().flat_map(|d| d.keys())).collect();
    if names.is_empty() {
        out.push_str("  (none declared)\n");
    }
    let width = names.iter().map(|n| n.len()).max().unwrap_or(0);
    for name in names {
        let kind = meta.arg_kinds.get(name).map_or("-", |k| k.name());
        let default = defaults.and_then(|d| d.get(name)).map_or("-".to_string(), |v| v.to_string());
        let _ = writeln!(out, "  {name:<width$}  {kind:<6}  {default}");
    }
    out
}

impl Fix for NoSuchPlugin {
    fn fix(&self) -> Option<String> {
        Some("see `mlb plugins list`, or add the plugin's folder with --plugin-dir".into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plugins::libtorch::Via;
    use mlb_plugin::{ArgKind, QualitySpec};
    use serde_json::json;

    fn entry(name: &str, args: serde_json::Value) -> Entry {
        let meta = PluginMeta {
            name: name.into(),
            version: "1.2.0".into(),
            abi_version: 1,
            description: "trains a toy".into(),
            default_args: args,
            arg_kinds: [("batch_size", ArgKind::Count), ("lr", ArgKind::Number), ("data", ArgKind::Text)]
                .into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect(),
            quality: Some(QualitySpec {
                metric: "top1".into(),
                unit: "fraction".into(),
                higher_is_better: true,
                target: 0.75,
            }),
            libtorch: None,
        };
        Entry { path: format!("/p/libmlb_{name}.so").into(), status: Status::Ok { meta }, libtorch: None }
    }

    #[test]
    fn a_workload_with_its_arguments_one_per_line() {
        let entries = [entry("toy", json!({"repeat": 20, "batch_size": 64, "lr": 0.1}))];
        assert_eq!(
            show(&entries, "toy").unwrap(),
            "toy 1.2.0 (plugin ABI v1)\nfile: /p/libmlb_toy.so\ntrains a toy\nquality: top1 (fraction), higher is better, default target 0.75\nlibtorch: none\narguments (kind, default):\n  batch_size  count   64\n  data        text    -\n  lr          number  0.1\n  repeat      -       20\n"
        );
        let mut bare = entry("toy", json!({}));
        if let Status::Ok { meta } = &mut bare.status {
            meta.arg_kinds.clear();
            meta.quality = None;
        }
        let bare = show(&[bare], "toy").unwrap();
        assert!(
            bare.ends_with(
                "quality: none (no evaluation)\nlibtorch: none\narguments (kind, default):\n  (none declared)\n"
            ),
            "{bare}"
        );
    }

    #[test]
    fn a_libtorch_workload_says_what_it_was_built_for_and_what_it_loads() {
        let mut torch = entry("toy", json!({}));
        if let Status::Ok { meta } = &mut torch.status {
            meta.libtorch = Some("2.11.0+cu130".into());
        }
        let built = show(&[torch.clone()], "toy").unwrap();
        assert!(built.contains("\nlibtorch: built for 2.11.0+cu130\n"), "{built}");
        torch.libtorch =
            Some(Found { version: Some("2.11.0+cpu".into()), dir: "/opt/t/lib".into(), via: Via::LdLibraryPath });
        let text = show(&[torch], "toy").unwrap();
        assert!(
            text.contains(
                "\nlibtorch: built for 2.11.0+cu130; loads 2.11.0+cpu in /opt/t/lib (found through LD_LIBRARY_PATH)\n"
            ),
            "{text}"
        );
    }

    #[test]
    fn an_unknown_name_lists_the_plugins() {
        let err = show(&[entry("toy", json!({}))], "nope").unwrap_err();
        assert_eq!(err.available, "toy");
        assert_eq!(err.to_string(), "no plugin named `nope`; plugins found: toy");
        assert!(err.fix().is_some_and(|f| f.contains("mlb plugins list")));
    }
}
