//! `mlb plugins list` and the loader's refusals, on real libraries: spin,
//! and small C libraries compiled here that stand for broken or foreign
//! plugins (another ABI version, no entry symbol, a malformed table, a crash
//! while loading).

use crate::common;

use serde_json::Value;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Command;

const V2_PLUGIN: &str = r#"
struct table { unsigned long size; unsigned int abi_version; };
static struct table t = { sizeof(struct table), 2 };
const struct table *mlb_plugin_v2(void) { return &t; }
"#;

const NO_SYMBOL: &str = "int not_a_plugin(void) { return 1; }\n";

const SHORT_TABLE: &str = r#"
struct table { unsigned long size; unsigned int abi_version; };
static struct table t = { sizeof(struct table), 1 };
const struct table *mlb_plugin_v1(void) { return &t; }
"#;

const CRASH_ON_LOAD: &str = r#"
__attribute__((constructor)) static void boom(void) { *(volatile int *)0 = 1; }
int x(void) { return 0; }
"#;

fn list(dirs: &[&Path]) -> Vec<Value> {
    let mut cmd = Command::new(common::mlb());
    cmd.args(["plugins", "list", "--format", "json"]);
    for d in dirs {
        cmd.arg("--plugin-dir").arg(d);
    }
    let out = cmd.env_remove("MLB_PLUGIN_PATH").output().unwrap();
    assert!(out.status.success(), "listing must not fail: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice::<Value>(&out.stdout).unwrap().as_array().unwrap().clone()
}

fn entry<'a>(entries: &'a [Value], path: &Path) -> &'a Value {
    entries
        .iter()
        .find(|e| e["path"] == path.to_string_lossy().as_ref())
        .unwrap_or_else(|| panic!("{} not listed in {entries:?}", path.display()))
}

fn private_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    dir
}

#[test]
fn listing_shows_plugins_and_refusals_without_crashing() {
    let good = private_dir();
    let bad = private_dir();
    let spin = good.path().join("libspin.so");
    std::fs::copy(common::spin_plugin(), &spin).unwrap();
    let shadow = bad.path().join("libspin_copy.so");
    std::fs::copy(common::spin_plugin(), &shadow).unwrap();
    let v2 = common::c_library(bad.path(), "libv2.so", V2_PLUGIN);
    let nosym = common::c_library(bad.path(), "libnosym.so", NO_SYMBOL);
    let short = common::c_library(bad.path(), "libshort.so", SHORT_TABLE);
    let crash = common::c_library(bad.path(), "libcrash.so", CRASH_ON_LOAD);
    let text = bad.path().join("libtext.so");
    std::fs::write(&text, "not a library").unwrap();
    let open = bad.path().join("libopen.so");
    std::fs::copy(common::spin_plugin(), &open).unwrap();
    std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o666)).unwrap();

    let entries = list(&[good.path(), bad.path()]);
    let e = entry(&entries, &spin);
    assert_eq!(
        (e["status"].as_str(), e["name"].as_str(), e["abi_version"].as_u64()),
        (Some("ok"), Some("spin"), Some(1))
    );
    assert_eq!(e["default_args"]["size"], 64);
    assert!(e["description"].as_str().unwrap().contains("matrix"));
    assert_eq!(e["version"], env!("CARGO_PKG_VERSION"));

    let s = entry(&entries, &shadow);
    assert_eq!((s["status"].as_str(), s["by"].as_str()), (Some("shadowed"), spin.to_str()));

    let reason = |p: &Path| {
        let e = entry(&entries, p);
        assert_eq!(e["status"], "refused", "{e}");
        e["reason"].as_str().unwrap().to_string()
    };
    let r = reason(&v2);
    assert!(r.contains("built for plugin ABI v2") && r.contains("ABI v1") && r.contains("rebuild"), "{r}");
    assert!(reason(&nosym).contains("exports no `mlb_plugin_v1` symbol"));
    assert!(reason(&short).contains("malformed plugin table"));
    assert!(reason(&crash).contains("crashed while loading (signal 11)"));
    assert!(reason(&text).contains("not a loadable library"));
    assert!(reason(&open).contains("writable by other users"));
}

#[test]
fn worker_refuses_another_abi_version_with_a_record() {
    let dir = private_dir();
    let v2 = common::c_library(dir.path(), "libv2.so", V2_PLUGIN);
    let out_dir = tempfile::tempdir().unwrap();
    let out = Command::new(common::mlb())
        .arg("worker")
        .arg("--plugin")
        .arg(&v2)
        .args(["--config", r#"{"repeat": 11, "number": 1}"#, "--outdir"])
        .arg(out_dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(6));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("was built for plugin ABI v2, this mlb speaks ABI v1"), "{stderr}");
    let (name, record) = common::only_report(out_dir.path());
    assert!(name.contains(".FAIL."));
    assert_eq!(record["failure"]["cause"], "load");
}

#[test]
fn worker_refuses_relative_paths() {
    let out = Command::new(common::mlb())
        .args(["worker", "--describe", "libmlb_spin.so"])
        .current_dir(common::spin_plugin().parent().unwrap())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(6));
    assert!(String::from_utf8_lossy(&out.stderr).contains("is not absolute"));
}

#[test]
fn search_order_is_plugin_dir_then_env_then_binary_folder() {
    let first = private_dir();
    let second = private_dir();
    let a = first.path().join("liba.so");
    let b = second.path().join("libb.so");
    std::fs::copy(common::spin_plugin(), &a).unwrap();
    std::fs::copy(common::spin_plugin(), &b).unwrap();
    // The binary, alone in a folder with one plugin beside it.
    let (bin, mlb) = common::lone_mlb();
    let beside = bin.path().join("libc.so");
    std::fs::copy(common::spin_plugin(), &beside).unwrap();
    let out = Command::new(&mlb)
        .args(["plugins", "list", "--format", "json", "--plugin-dir"])
        .arg(first.path())
        .env("MLB_PLUGIN_PATH", second.path())
        .output()
        .unwrap();
    let entries: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    let paths: Vec<&str> = entries.iter().map(|e| e["path"].as_str().unwrap()).collect();
    assert_eq!(paths[0], a.to_str().unwrap());
    assert_eq!(paths[1], b.to_str().unwrap());
    assert_eq!(entries[1]["status"], "shadowed");
    // The binary's own folder comes last.
    assert_eq!(paths[2..], [beside.to_str().unwrap()], "{paths:?}");
}

/// `mlb plugins list` and `show` of `dir` alone (no plugin beside the
/// binary, no `MLB_PLUGIN_PATH`), `columns` wide: stdout.
fn lone(args: &[&str], dir: &Path, columns: usize) -> String {
    let (_home, mlb) = common::lone_mlb();
    let out = Command::new(mlb)
        .args(args)
        .arg("--plugin-dir")
        .arg(dir)
        .env_remove("MLB_PLUGIN_PATH")
        .env("COLUMNS", columns.to_string())
        .output()
        .unwrap();
    let (stdout, stderr) = common::text(&out);
    assert!(out.status.success(), "{stderr}");
    stdout
}

/// `name` stands in `line` as a word of its own, as `grep -w` finds it.
fn has_word(line: &str, name: &str) -> bool {
    let word = |c: char| c.is_alphanumeric() || c == '_';
    line.match_indices(name).any(|(at, _)| !line[..at].ends_with(word) && !line[at + name.len()..].starts_with(word))
}

/// The listing fits the width, one line per workload under its file, with
/// a long path and a refusal: every name whole (`grep -w` finds it), and no
/// default-args JSON.
#[test]
fn the_list_fits_every_width_and_never_cuts_a_name() {
    let dir = private_dir();
    let deep = dir.path().join("a-rather-long-folder-name-for-plugins/and-another-one-below-it");
    std::fs::create_dir_all(&deep).unwrap();
    std::fs::copy(common::spin_plugin(), deep.join("libmlb_spin.so")).unwrap();
    common::c_library(&deep, "libmlb_v2.so", V2_PLUGIN);
    let listed: Vec<Value> = serde_json::from_str(&lone(&["plugins", "list", "--json"], &deep, 100)).unwrap();
    let names: Vec<&str> = listed.iter().filter_map(|e| e["name"].as_str()).collect();
    assert_eq!(names, ["spin"]);
    for columns in [80, 100, 160] {
        let text = lone(&["plugins", "list"], &deep, columns);
        let widest = text.lines().map(|l| l.chars().count()).max().unwrap();
        assert!(widest <= columns, "{widest} columns over {columns}:\n{text}");
        for name in &names {
            assert!(text.lines().any(|l| has_word(l, name)), "`{name}` is not whole at {columns}:\n{text}");
        }
        assert!(text.lines().any(|l| l.starts_with("  REFUSED: ")), "{text}");
        assert!(!text.contains("\"repeat\""), "no default-args JSON:\n{text}");
    }
    // The layout, wide enough for nothing to be cut: this run's folder
    // redacted, the search path (the binary's folders) left out.
    let text = lone(&["plugins", "list"], &deep, 300);
    let shown = text.split("search path").next().unwrap().replace(deep.to_str().unwrap(), "[plugins]");
    insta::assert_snapshot!("plugins_list_text", shown);
}

#[test]
fn has_word_is_grep_w() {
    assert!(has_word("  convnet_distributed  0.1.0", "convnet_distributed"));
    assert!(!has_word("  convnet_distribute…", "convnet_distributed"));
    assert!(!has_word("  convnet_distributed  0.1.0", "convnet"));
    assert!(has_word("convnet, convnet_fp16", "convnet"));
}

/// `plugins show` says what every argument does: a description on each
/// argument's line (or the lines below it), never `(not described)`.
#[test]
fn show_describes_every_argument() {
    let dir = private_dir();
    std::fs::copy(common::spin_plugin(), dir.path().join("libmlb_spin.so")).unwrap();
    let listed: Vec<Value> = serde_json::from_str(&lone(&["plugins", "list", "--json"], dir.path(), 100)).unwrap();
    let kinds = listed[0]["arg_kinds"].as_object().unwrap();
    assert_eq!(listed[0]["arg_help"].as_object().unwrap().len(), kinds.len(), "{:?}", listed[0]);
    let text = lone(&["plugins", "show", "spin"], dir.path(), 200);
    assert!(text.starts_with("spin ") && text.contains("arguments (kind, default, what it does):\n"), "{text}");
    for (name, kind) in kinds {
        let line = text.lines().find(|l| l.trim_start().starts_with(&format!("{name} "))).unwrap_or("");
        let words: Vec<&str> = line.split_whitespace().collect();
        assert!(words.len() > 3 && words[1] == kind, "`{name}`: {line:?}\n{text}");
        assert!(!line.contains("(not described)"), "`{name}`: {line:?}");
    }
    let size = text.lines().find(|l| l.starts_with("  size ")).unwrap();
    assert_eq!(size.split_whitespace().take(3).collect::<Vec<_>>(), ["size", "count", "64"], "{text}");
    assert!(size.ends_with("Side of the matrices (0: a step does no work)."), "{size}");
    let narrow = lone(&["plugins", "show", "spin"], dir.path(), 80);
    assert!(narrow.lines().all(|l| l.chars().count() <= 80), "{narrow}");
    let missing = Command::new(common::mlb())
        .args(["plugins", "show", "nope", "--plugin-dir"])
        .arg(dir.path())
        .env_remove("MLB_PLUGIN_PATH")
        .output()
        .unwrap();
    assert_eq!(missing.status.code(), Some(2));
    assert!(common::text(&missing).1.contains("no plugin named `nope`; plugins found: spin"));
}
