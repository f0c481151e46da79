//! `mlb plugins show NAME`: one workload, its quality, its arguments, their
//! kinds, their defaults and what each does.

use super::libtorch::Found;
use super::listing::{self, Entry, Status};
use mlb_plugin::manifest::PluginMeta;
use mlb_present::text::wrap;
use mlb_record::fix::Fix;
use mlb_record::untrusted::visible;
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
/// was built for and the one it will load, whether it can run
/// deterministically and whether it can checkpoint, then each argument (declared or
/// with a default): name, kind (`-` when undeclared), default (`-` when
/// none) and what it does (its unit and range; `(not described)` from a
/// plugin built before descriptions), wrapped under itself to `columns`.
pub fn show(entries: &[Entry], name: &str, columns: usize) -> Result<String, NoSuchPlugin> {
    let Some(entry) = listing::find(entries, name) else {
        let names = listing::names(entries);
        let available = if names.is_empty() { "none".into() } else { names.join(", ") };
        return Err(NoSuchPlugin { name: name.to_string(), available });
    };
    let Status::Ok { meta } = &entry.status else { unreachable!("find returns usable plugins only") };
    Ok(describe(meta, &entry.path.display().to_string(), entry.libtorch.as_ref(), columns))
}

/// What `show` prints for `meta`, found at `path`.
fn describe(meta: &PluginMeta, path: &str, found: Option<&Found>, columns: usize) -> String {
    let mut out = String::new();
    let (name, version) = (visible(&meta.name), visible(&meta.version));
    let _ = writeln!(out, "{name} {version} (plugin ABI v{})", meta.abi_version);
    let _ = writeln!(out, "file: {}", visible(path));
    let _ = writeln!(out, "{}", visible(&meta.description));
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
    let _ = match meta.deterministic {
        true => writeln!(out, "deterministic: yes (fingerprinted with `deterministic: true`)"),
        false => writeln!(out, "deterministic: no (refused with `deterministic: true`)"),
    };
    let _ = match meta.checkpoint {
        true => writeln!(out, "checkpoint: yes (saves its state; a restart resumes from the last checkpoint)"),
        false => writeln!(out, "checkpoint: no (a restart starts it afresh)"),
    };
    // Each line of the head wrapped at the width, its next lines indented.
    let mut out: String = out.lines().flat_map(|l| wrap(l, "", 2, columns)).map(|l| l + "\n").collect();
    let _ = writeln!(out, "arguments (kind, default, what it does):");
    let defaults = meta.default_args.as_object();
    let names: BTreeSet<&String> =
        meta.arg_kinds.keys().chain(meta.arg_help.keys()).chain(defaults.into_iter().flat_map(|d| d.keys())).collect();
    if names.is_empty() {
        out.push_str("  (none declared)\n");
    }
    let rows: Vec<[String; 4]> = names
        .into_iter()
        .map(|name| {
            let kind = meta.arg_kinds.get(name).map_or("-", |k| k.name());
            let default = defaults.and_then(|d| d.get(name)).map_or("-".to_string(), |v| v.to_string());
            let help = meta.arg_help.get(name).filter(|h| !h.is_empty()).map_or("(not described)", String::as_str);
            [visible(name).into_owned(), kind.to_string(), visible(&default).into_owned(), visible(help).into_owned()]
        })
        .collect();
    let width = |c: usize| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0);
    let (name_w, kind_w, default_w) = (width(0), width(1), width(2));
    // The descriptions in a column of their own while it keeps half the
    // width, else each under its argument.
    let indent = 2 + name_w + 2 + kind_w + 2 + default_w + 2;
    for [name, kind, default, help] in rows {
        if indent <= columns / 2 {
            let first = format!("  {name:<name_w$}  {kind:<kind_w$}  {default:<default_w$}  ");
            out.extend(wrap(&help, &first, indent, columns).into_iter().map(|l| l + "\n"));
        } else {
            let _ = writeln!(out, "  {name}  {kind}  {default}");
            out.extend(wrap(&help, "      ", 6, columns).into_iter().map(|l| l + "\n"));
        }
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
            arg_help: [
                ("batch_size", "Samples per step."),
                ("lr", "SGD learning rate, above 0; the rate of every parameter group at every step of the run."),
                ("data", "A data folder (synthetic data when absent)."),
            ]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
            quality: Some(QualitySpec {
                metric: "top1".into(),
                unit: "fraction".into(),
                higher_is_better: true,
                target: 0.75,
            }),
            libtorch: None,
            deterministic: true,
            checkpoint: true,
        };
        Entry { path: format!("/p/libmlb_{name}.so").into(), status: Status::Ok { meta }, libtorch: None }
    }

    #[test]
    fn a_workload_with_its_arguments_one_per_line() {
        let entries = [entry("toy", json!({"repeat": 20, "batch_size": 64, "lr": 0.1}))];
        assert_eq!(
            show(&entries, "toy", 80).unwrap(),
            "toy 1.2.0 (plugin ABI v1)\nfile: /p/libmlb_toy.so\ntrains a toy\n\
             quality: top1 (fraction), higher is better, default target 0.75\nlibtorch: none\n\
             deterministic: yes (fingerprinted with `deterministic: true`)\n\
             checkpoint: yes (saves its state; a restart resumes from the last checkpoint)\n\
             arguments (kind, default, what it does):\n\
             \x20 batch_size  count   64   Samples per step.\n\
             \x20 data        text    -    A data folder (synthetic data when absent).\n\
             \x20 lr          number  0.1  SGD learning rate, above 0; the rate of every\n\
             \x20                          parameter group at every step of the run.\n\
             \x20 repeat      -       20   (not described)\n"
        );
        // Too narrow for a column: each description under its argument.
        let narrow = show(&entries, "toy", 40).unwrap();
        assert!(
            narrow.contains("\n  lr  number  0.1\n      SGD learning rate, above 0; the\n      rate of every"),
            "{narrow}"
        );
        assert!(narrow.lines().all(|l| l.chars().count() <= 40), "{narrow}");
        let mut bare = entry("toy", json!({}));
        if let Status::Ok { meta } = &mut bare.status {
            meta.arg_kinds.clear();
            meta.quality = None;
            meta.arg_help.clear();
            meta.deterministic = false;
            meta.checkpoint = false;
        }
        let bare = show(&[bare], "toy", 80).unwrap();
        assert!(
            bare.ends_with(
                "quality: none (no evaluation)\nlibtorch: none\ndeterministic: no (refused with `deterministic: true`)\n\
                 checkpoint: no (a restart starts it afresh)\n\
                 arguments (kind, default, what it does):\n  (none declared)\n"
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
        let built = show(&[torch.clone()], "toy", 200).unwrap();
        assert!(built.contains("\nlibtorch: built for 2.11.0+cu130\n"), "{built}");
        torch.libtorch =
            Some(Found { version: Some("2.11.0+cpu".into()), dir: "/opt/t/lib".into(), via: Via::LdLibraryPath });
        let text = show(&[torch], "toy", 200).unwrap();
        assert!(
            text.contains(
                "\nlibtorch: built for 2.11.0+cu130; loads 2.11.0+cpu in /opt/t/lib (found through LD_LIBRARY_PATH)\n"
            ),
            "{text}"
        );
    }

    #[test]
    fn an_unknown_name_lists_the_plugins() {
        let err = show(&[entry("toy", json!({}))], "nope", 80).unwrap_err();
        assert_eq!(err.available, "toy");
        assert_eq!(err.to_string(), "no plugin named `nope`; plugins found: toy");
        assert!(err.fix().is_some_and(|f| f.contains("mlb plugins list")));
    }
}
