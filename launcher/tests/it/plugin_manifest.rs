//! Plugin manifests: the metadata `export_workload!` writes into a section of
//! the library, read by mlb without loading the library.
//!
//! On real libraries: spin (read back, then copies of it with the section
//! altered, corrupted or removed) and small C libraries compiled here (a
//! plugin without a manifest, a library exporting two workloads, a library
//! whose manifest is fine but whose initialisers crash).

use crate::common;

use mlb::plugins::{self, LoadError, ManifestReadError, PluginMeta};
use mlb_plugin::manifest::{self, Entry, HEADER_LEN};
use mlb_plugin::{Workload, WorkloadArgs};
use object::{Object, ObjectSection};
use serde_json::Value;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A private folder (plugin folders must not be writable by others).
pub(crate) fn private_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    dir
}

/// A copy of the spin plugin in `dir`.
pub(crate) fn spin_copy(dir: &Path, name: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::copy(common::spin_plugin(), &p).unwrap();
    p
}

/// The entries of `dir` in `mlb plugins list --format json [--verify] --plugin-dir
/// dir` (the binary's own folder, searched too, is left out).
fn list(dir: &Path, verify: bool) -> Vec<Value> {
    let out = list_command(dir, verify, true);
    assert!(out.status.success(), "listing must not fail: {}", String::from_utf8_lossy(&out.stderr));
    let all: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    all.into_iter().filter(|e| Path::new(e["path"].as_str().unwrap()).starts_with(dir)).collect()
}

fn list_command(dir: &Path, verify: bool, json: bool) -> Output {
    let mut cmd = Command::new(common::mlb());
    cmd.args(["plugins", "list"]).arg("--plugin-dir").arg(dir).env_remove("MLB_PLUGIN_PATH");
    if json {
        cmd.args(["--format", "json"]);
    }
    if verify {
        cmd.arg("--verify");
    }
    cmd.output().unwrap()
}

/// The entries of `path` in a listing.
fn entries_of<'a>(entries: &'a [Value], path: &Path) -> Vec<&'a Value> {
    entries.iter().filter(|e| e["path"] == path.to_string_lossy().as_ref()).collect()
}

/// The only entry of `path`, which must be refused: its reason.
fn refusal(entries: &[Value], path: &Path) -> String {
    let mine = entries_of(entries, path);
    assert_eq!(mine.len(), 1, "{mine:?}");
    assert_eq!(mine[0]["status"], "refused", "{}", mine[0]);
    mine[0]["reason"].as_str().unwrap().to_string()
}

/// `mlb worker --plugin PATH` running a tiny job into a fresh folder.
fn worker(plugin: &Path, extra: &[&str]) -> (Output, tempfile::TempDir) {
    let out_dir = tempfile::tempdir().unwrap();
    let out = Command::new(common::mlb())
        .arg("worker")
        .arg("--plugin")
        .arg(plugin)
        .args(["--config", r#"{"repeat": 2, "number": 1, "skip": 0, "size": 0}"#, "--suite", "test", "--outdir"])
        .arg(out_dir.path())
        .args(extra)
        .env_remove("CUDA_VISIBLE_DEVICES")
        .env_remove("HIP_VISIBLE_DEVICES")
        .output()
        .unwrap();
    (out, out_dir)
}

/// Spin's metadata as its trait constants say.
fn spin_meta() -> PluginMeta {
    type Spin = mlb_spin::Spin;
    PluginMeta {
        name: Spin::NAME.into(),
        version: Spin::VERSION.into(),
        abi_version: mlb_plugin::abi::ABI_VERSION,
        description: Spin::DESCRIPTION.into(),
        default_args: serde_json::from_str(mlb_spin::Args::DEFAULTS).unwrap(),
        arg_kinds: mlb_spin::Args::DECLARED.iter().map(|a| (a.name.to_string(), a.kind)).collect(),
        arg_help: mlb_spin::Args::DECLARED.iter().map(|a| (a.name.to_string(), a.help.to_string())).collect(),
        quality: Spin::QUALITY.map(Into::into),
        libtorch: None,
        deterministic: Spin::DETERMINISTIC,
        checkpoint: Spin::CHECKPOINT,
    }
}

/// Where the manifest section lies in the file: (offset, length).
fn section_range(path: &Path) -> (usize, usize) {
    let bytes = std::fs::read(path).unwrap();
    let file = object::File::parse(&*bytes).unwrap();
    let section = file.section_by_name(manifest::SECTION).expect("spin has a manifest section");
    let (offset, len) = section.file_range().unwrap();
    (offset as usize, len as usize)
}

/// Rewrites the manifest section of `path` in place with `f`.
fn patch_section(path: &Path, f: impl FnOnce(&mut [u8])) {
    let (offset, len) = section_range(path);
    let mut bytes = std::fs::read(path).unwrap();
    f(&mut bytes[offset..offset + len]);
    std::fs::write(path, bytes).unwrap();
}

#[test]
fn spin_manifest_reads_back_as_its_trait_constants() {
    let read = plugins::manifest::read(&common::spin_plugin()).unwrap().expect("spin has a manifest");
    assert_eq!(read, vec![spin_meta()]);
    // The section holds exactly the record the macro encodes.
    let (_, len) = section_range(&common::spin_plugin());
    assert_eq!(len, manifest::encoded_len(&[Entry::of::<mlb_spin::Spin>()]));
}

#[test]
fn listing_from_the_manifest_equals_the_probe_for_spin() {
    let dir = private_dir();
    spin_copy(dir.path(), "libmlb_spin.so");
    spin_copy(dir.path(), "libmlb_spin_again.so");
    let from_manifest = list(dir.path(), false);
    let probed = list(dir.path(), true);
    assert_eq!(from_manifest.len(), 2, "{from_manifest:?}");
    assert_eq!(from_manifest[0]["status"], "ok");
    assert_eq!(from_manifest[1]["status"], "shadowed");
    assert_eq!(from_manifest, probed);
    let table = |verify| String::from_utf8(list_command(dir.path(), verify, false).stdout).unwrap();
    assert_eq!(table(false), table(true));
}

#[test]
fn a_library_without_manifest_is_probed() {
    let dir = private_dir();
    let stripped = spin_copy(dir.path(), "libstripped.so");
    let status = Command::new("objcopy").args(["--remove-section", manifest::SECTION]).arg(&stripped).status();
    assert!(status.expect("run objcopy").success());
    assert!(plugins::manifest::read(&stripped).unwrap().is_none(), "the section is gone");

    let entries = list(dir.path(), false);
    let mine = entries_of(&entries, &stripped);
    assert_eq!(mine.len(), 1);
    assert_eq!(mine[0]["status"], "ok");
    let meta: PluginMeta = serde_json::from_value(mine[0].clone()).unwrap();
    // The arguments are listed by the manifest only: the probe has none.
    assert_eq!(meta, PluginMeta { arg_kinds: Default::default(), arg_help: Default::default(), ..spin_meta() });
    // And it still runs: no manifest is not an error.
    let (out, reports) = worker(&stripped, &[]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(common::only_report(reports.path()).0.contains("spin"));
}

#[test]
fn a_manifest_that_disagrees_with_the_table_is_refused_on_load() {
    let dir = private_dir();
    let altered = spin_copy(dir.path(), "libaltered.so");
    // Same length, so the record is rewritten in place: version 0.1.0 -> 9.9.9.
    let meta = spin_meta();
    let version = "9.9.9";
    assert_eq!(version.len(), meta.version.len());
    let record = manifest::to_vec(&[Entry {
        abi_version: meta.abi_version,
        name: mlb_spin::Spin::NAME,
        version,
        description: mlb_spin::Spin::DESCRIPTION,
        default_args: mlb_spin::Args::DEFAULTS,
        args: mlb_spin::Args::DECLARED,
        quality: mlb_spin::Spin::QUALITY,
        libtorch: "",
        deterministic: false,
        checkpoint: false,
    }]);
    patch_section(&altered, |section| {
        assert_eq!(section.len(), record.len());
        section.copy_from_slice(&record);
    });

    // Listing trusts the manifest...
    let entries = list(dir.path(), false);
    assert_eq!(entries_of(&entries, &altered)[0]["version"], "9.9.9");
    // ...the worker and the verifying listing load the library and refuse it.
    let expected = format!("version is `9.9.9` in the manifest, `{}` in the table", meta.version);
    let reason = refusal(&list(dir.path(), true), &altered);
    assert!(reason.contains(&expected) && reason.contains("rebuild the plugin"), "{reason}");
    let (out, reports) = worker(&altered, &[]);
    assert_eq!(out.status.code(), Some(6));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains(altered.to_str().unwrap()) && stderr.contains(&expected), "{stderr}");
    assert_eq!(common::only_report(reports.path()).1["failure"]["cause"], "load");
    match plugins::load(&altered) {
        Err(LoadError::ManifestMismatch { path, difference }) => {
            assert_eq!(path, altered);
            assert!(difference.contains(&expected), "{difference}");
        }
        other => panic!("expected a manifest mismatch, got {other:?}"),
    }
}

#[test]
fn a_corrupt_or_truncated_manifest_is_refused_clearly() {
    let dir = private_dir();
    let flipped = spin_copy(dir.path(), "libflipped.so");
    patch_section(&flipped, |s| s[HEADER_LEN + 10] ^= 0x20);
    let truncated = spin_copy(dir.path(), "libtruncated.so");
    // The body announces more bytes than the section holds.
    patch_section(&truncated, |s| {
        let too_long = (s.len() as u32).to_le_bytes();
        s[12..16].copy_from_slice(&too_long);
    });
    let garbage = spin_copy(dir.path(), "libgarbage.so");
    patch_section(&garbage, |s| s.fill(0xff));

    let entries = list(dir.path(), false);
    for (path, what) in [(&flipped, "checksum"), (&truncated, "truncated"), (&garbage, "bad magic")] {
        let reason = refusal(&entries, path);
        assert!(reason.contains("corrupt plugin manifest") && reason.contains(what), "{reason}");
        assert!(reason.contains(path.to_str().unwrap()) && reason.contains("fix: rebuild"), "{reason}");
        // The worker refuses it too, with a record, without loading it.
        let (out, reports) = worker(path, &[]);
        assert_eq!(out.status.code(), Some(6), "{}", String::from_utf8_lossy(&out.stderr));
        assert!(String::from_utf8_lossy(&out.stderr).contains(what));
        assert_eq!(common::only_report(reports.path()).1["failure"]["cause"], "load");
        assert!(matches!(
            plugins::load(path),
            Err(LoadError::Manifest(ManifestReadError::Corrupt { section: ".mlb_manifest", .. }))
        ));
    }
}

#[test]
fn worker_checks_the_workload_name() {
    let dir = private_dir();
    let spin = spin_copy(dir.path(), "libmlb_spin.so");
    let (out, _reports) = worker(&spin, &["--workload", "spin"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let (out, _reports) = worker(&spin, &["--workload", "nope"]);
    assert_eq!(out.status.code(), Some(6));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("exports no workload `nope` (it exports: spin)"), "{stderr}");
}

/// The C declarations of the ABI (the table with its appended `eval` and
/// `quality`) and the functions of a C workload: a step of 3 items, an eval
/// of 0.25.
pub(crate) const C_ABI: &str = r#"
#include <stddef.h>
#include <stdint.h>
typedef struct { const char *ptr; size_t len; } StrRef;
typedef struct { char *ptr; size_t len; size_t cap; } OwnedStr;
typedef struct { uint64_t items; double loss; uint8_t has_loss; } StepStats;
typedef struct { size_t size; StrRef device; uint32_t threads; } SetupInfo;
typedef struct {
    size_t size; uint32_t abi_version;
    StrRef name, version, description, default_args;
    int (*create)(StrRef config, void **out);
    int (*setup)(void *inst, const SetupInfo *info);
    int (*step)(void *inst, StepStats *out);
    int (*sync)(void *inst);
    int (*report)(void *inst, OwnedStr *out);
    int (*last_error)(OwnedStr *out);
    void (*free_string)(OwnedStr s);
    void (*destroy)(void *inst);
    int (*eval)(void *inst, double *out);
    struct { StrRef metric, unit; double target; uint8_t higher_is_better; } quality;
} PluginTable;
typedef struct { size_t size; size_t count; const PluginTable *const *tables; } WorkloadList;
#define S(x) { x, sizeof(x) - 1 }
static int instance;
static int create(StrRef c, void **out) { (void)c; *out = &instance; return 0; }
static int setup(void *i, const SetupInfo *info) { (void)i; (void)info; return 0; }
static int step(void *i, StepStats *out) { (void)i; out->items = 3; out->loss = 0; out->has_loss = 0; return 0; }
static int sync_(void *i) { (void)i; return 0; }
static char empty[] = "{}";
static int report(void *i, OwnedStr *out) { (void)i; out->ptr = empty; out->len = 2; out->cap = 0; return 0; }
static int last_error(OwnedStr *out) { out->ptr = 0; out->len = 0; out->cap = 0; return 0; }
static void free_string(OwnedStr s) { (void)s; }
static void destroy(void *i) { (void)i; }
static int eval(void *i, double *out) { (void)i; *out = 0.25; return 0; }
"#;

/// A C plugin built before `eval` was appended to the table (its size ends
/// at `destroy`): `tables` are `(name, description)`; exports the workload
/// list when `list` is set, the manifest `manifest` (bytes) when given, and
/// runs `constructor` (C statements) when loaded.
pub(crate) fn c_plugin(tables: &[(&str, &str)], list: bool, manifest: Option<&[u8]>, constructor: &str) -> String {
    let mut c = String::from(C_ABI);
    for (i, (name, description)) in tables.iter().enumerate() {
        c.push_str(&format!(
            "static const PluginTable T{i} = {{ offsetof(PluginTable, eval), 1, S(\"{name}\"), S(\"1.0.0\"), S(\"{description}\"), \
             S(\"{{\\\"repeat\\\": 2, \\\"number\\\": 1}}\"), create, setup, step, sync_, report, last_error, free_string, destroy }};\n"
        ));
    }
    c.push_str("const PluginTable *mlb_plugin_v1(void) { return &T0; }\n");
    if list {
        let refs: Vec<String> = (0..tables.len()).map(|i| format!("&T{i}")).collect();
        c.push_str(&format!(
            "static const PluginTable *const TABLES[] = {{ {} }};\n\
             static const WorkloadList LIST = {{ sizeof(WorkloadList), {}, TABLES }};\n\
             const WorkloadList *mlb_plugin_v1_workloads(void) {{ return &LIST; }}\n",
            refs.join(", "),
            tables.len()
        ));
    }
    if let Some(bytes) = manifest {
        let bytes: Vec<String> = bytes.iter().map(|b| b.to_string()).collect();
        c.push_str(&format!(
            "__attribute__((used, section(\".mlb_manifest\"))) static const unsigned char MANIFEST[] = {{ {} }};\n",
            bytes.join(", ")
        ));
    }
    if !constructor.is_empty() {
        c.push_str(&format!("__attribute__((constructor)) static void on_load(void) {{ {constructor} }}\n"));
    }
    c
}

/// The manifest of [`c_plugin`]'s `tables`.
pub(crate) fn c_manifest(tables: &[(&'static str, &'static str)]) -> Vec<u8> {
    let entries: Vec<Entry> = tables
        .iter()
        .map(|&(name, description)| Entry {
            abi_version: 1,
            name,
            version: "1.0.0",
            description,
            default_args: r#"{"repeat": 2, "number": 1}"#,
            args: &[],
            quality: None,
            libtorch: "",
            deterministic: false,
            checkpoint: false,
        })
        .collect();
    manifest::to_vec(&entries)
}

#[test]
fn a_c_plugin_without_manifest_is_listed_through_the_probe() {
    let dir = private_dir();
    let lib = common::c_library(dir.path(), "libc_plain.so", &c_plugin(&[("c_plain", "plain C")], false, None, ""));
    assert!(plugins::manifest::read(&lib).unwrap().is_none());
    let entries = list(dir.path(), false);
    let mine = entries_of(&entries, &lib);
    assert_eq!(mine.len(), 1);
    assert_eq!((mine[0]["status"].as_str(), mine[0]["name"].as_str()), (Some("ok"), Some("c_plain")));
    assert_eq!(mine[0]["description"], "plain C");
}

#[test]
fn listing_reads_manifests_without_loading_the_library() {
    // The library's initialisers crash; its manifest is fine. Listing from the
    // manifest never runs them; --verify and the worker do.
    let dir = private_dir();
    let tables = [("c_crashy", "crashes when loaded")];
    let source = c_plugin(&tables, false, Some(&c_manifest(&tables)), "*(volatile int *)0 = 1;");
    let lib = common::c_library(dir.path(), "libc_crashy.so", &source);
    let entries = list(dir.path(), false);
    assert_eq!(entries_of(&entries, &lib)[0]["status"], "ok");
    assert_eq!(entries_of(&entries, &lib)[0]["name"], "c_crashy");
    let reason = refusal(&list(dir.path(), true), &lib);
    assert!(reason.contains("crashed while loading (signal 11)"), "{reason}");
}

#[test]
fn a_library_may_export_several_workloads() {
    let dir = private_dir();
    let tables = [("c_alpha", "first"), ("c_beta", "second")];
    let source = c_plugin(&tables, true, Some(&c_manifest(&tables)), "");
    let lib = common::c_library(dir.path(), "libc_two.so", &source);

    for verify in [false, true] {
        let entries = list(dir.path(), verify);
        let mine = entries_of(&entries, &lib);
        let names: Vec<&str> = mine.iter().map(|e| e["name"].as_str().unwrap()).collect();
        assert_eq!(names, ["c_alpha", "c_beta"], "verify {verify}: {entries:?}");
        assert!(mine.iter().all(|e| e["status"] == "ok"));
        assert_eq!(mine[1]["description"], "second");
    }
    assert_eq!(
        plugins::describe(&lib).unwrap().iter().map(|m| m.name.as_str()).collect::<Vec<_>>(),
        ["c_alpha", "c_beta"]
    );

    let (out, reports) = worker(&lib, &["--workload", "c_beta"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let (name, record) = common::only_report(reports.path());
    assert!(name.contains("c_beta"), "{name}");
    assert!(record["version"].as_str().unwrap().starts_with("c_beta 1.0.0"), "{record}");

    let (out, _reports) = worker(&lib, &[]);
    assert_eq!(out.status.code(), Some(6));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("exports several workloads (c_alpha, c_beta)") && stderr.contains("--workload"),
        "{stderr}"
    );
}

#[test]
fn a_manifest_missing_a_workload_of_the_library_is_refused() {
    let dir = private_dir();
    let tables = [("c_alpha", "first"), ("c_beta", "second")];
    let source = c_plugin(&tables, true, Some(&c_manifest(&tables[..1])), "");
    let lib = common::c_library(dir.path(), "libc_short.so", &source);
    let reason = refusal(&list(dir.path(), true), &lib);
    assert!(
        reason.contains("the manifest lists 1 workload(s) (c_alpha), the library exports 2 (c_alpha, c_beta)"),
        "{reason}"
    );
}

#[test]
fn a_manifest_naming_another_abi_is_refused_without_loading() {
    let dir = private_dir();
    let bytes = manifest::to_vec(&[Entry {
        abi_version: 2,
        name: "c_future",
        version: "1.0.0",
        description: "",
        default_args: "{}",
        args: &[],
        quality: None,
        libtorch: "",
        deterministic: false,
        checkpoint: false,
    }]);
    // Crashes if loaded: the refusal must come from the manifest alone.
    let source = c_plugin(&[("c_future", "")], false, Some(&bytes), "*(volatile int *)0 = 1;");
    let lib = common::c_library(dir.path(), "libc_future.so", &source);
    let reason = refusal(&list(dir.path(), false), &lib);
    assert!(reason.contains("built for plugin ABI v2, this mlb speaks ABI v1"), "{reason}");
    let (out, _reports) = worker(&lib, &[]);
    assert_eq!(out.status.code(), Some(6));
    assert!(String::from_utf8_lossy(&out.stderr).contains("built for plugin ABI v2"));
}
