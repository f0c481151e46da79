//! Plugin files another user could swap for their own code, libraries that
//! hang while loading, and a launch whose every plugin is refused.
//!
//! Real files with real modes and owners (the tests run as root and hand
//! files to uid/gid 1000), real symlinks, and a C library whose constructor
//! never returns.

use crate::common;
use nix::unistd::{chown, Gid, Uid};
use serde_json::Value;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

/// A user and group that are not root.
const OTHER: u32 = 1000;

fn chmod(path: &Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// A folder only root can write.
fn private_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    chmod(dir.path(), 0o755);
    dir
}

/// `dir/name`, made with `mode`.
fn folder(dir: &Path, name: &str, mode: u32) -> PathBuf {
    let p = dir.join(name);
    std::fs::create_dir(&p).unwrap();
    chmod(&p, mode);
    p
}

/// A copy of spin at `dir/libmlb_spin.so`.
fn spin_in(dir: &Path) -> PathBuf {
    let p = dir.join("libmlb_spin.so");
    std::fs::copy(common::spin_plugin(), &p).unwrap();
    chmod(&p, 0o644);
    p
}

/// `mlb plugins list --format json [--verify]` over `dirs` (no `MLB_PLUGIN_PATH`).
fn list(dirs: &[&Path], verify: bool, env: &[(&str, &str)]) -> (Vec<Value>, String) {
    let mut cmd = Command::new(common::mlb());
    cmd.args(["plugins", "list", "--format", "json"]).env_remove("MLB_PLUGIN_PATH").envs(env.iter().copied());
    if verify {
        cmd.arg("--verify");
    }
    for d in dirs {
        cmd.arg("--plugin-dir").arg(d);
    }
    let out = cmd.output().unwrap();
    let (stdout, stderr) = common::text(&out);
    assert!(out.status.success(), "listing must not fail: {stderr}");
    (serde_json::from_str::<Value>(&stdout).unwrap().as_array().unwrap().clone(), stderr)
}

/// The status of the only entry of `path`, and its reason when refused.
fn status_of(entries: &[Value], path: &Path) -> (String, String) {
    let mine: Vec<&Value> = entries.iter().filter(|e| e["path"] == path.to_str().unwrap()).collect();
    assert_eq!(mine.len(), 1, "{} in {entries:?}", path.display());
    (mine[0]["status"].as_str().unwrap().into(), mine[0]["reason"].as_str().unwrap_or_default().into())
}

/// Asserts `path` is refused by the listing and by the worker, for a reason
/// holding every one of `words`; returns the reason.
fn assert_refused(dir: &Path, path: &Path, words: &[&str]) -> String {
    let (entries, _) = list(&[dir], false, &[]);
    let (status, reason) = status_of(&entries, path);
    assert_eq!(status, "refused", "{}: {entries:?}", path.display());
    for w in words {
        assert!(reason.contains(w), "`{w}` missing from: {reason}");
    }
    let out = Command::new(common::mlb()).arg("worker").arg("--describe").arg(path).output().unwrap();
    let (_, stderr) = common::text(&out);
    assert_eq!(out.status.code(), Some(6), "the worker refuses it too: {stderr}");
    assert!(words.iter().all(|w| stderr.contains(w)), "{stderr}");
    reason
}

fn assert_accepted(dir: &Path, path: &Path) {
    let (entries, _) = list(&[dir], false, &[]);
    assert_eq!(status_of(&entries, path), ("ok".into(), String::new()));
}

#[test]
fn a_plugin_group_writable_by_another_group_is_refused() {
    let dir = private_dir();
    let spin = spin_in(dir.path());
    chown(&spin, None, Some(Gid::from_raw(OTHER))).unwrap();
    chmod(&spin, 0o664);
    let file = spin.to_str().unwrap();
    let fix = format!("chmod g-w,o-w {file}");
    assert_refused(dir.path(), &spin, &[file, "mode 0664", "gid 1000", &fix]);
    // Group-writable by root's group: only root can write it.
    chown(&spin, None, Some(Gid::from_raw(0))).unwrap();
    assert_accepted(dir.path(), &spin);
}

#[test]
fn a_plugin_under_a_folder_others_can_write_is_refused() {
    let base = private_dir();
    // An ancestor anyone can write, without the sticky bit: anyone can
    // rename `plugins` away and put their own in its place.
    let open = folder(base.path(), "open", 0o777);
    let plugins = folder(&open, "plugins", 0o755);
    let spin = spin_in(&plugins);
    let o = open.to_str().unwrap();
    let fix = format!("chmod g-w,o-w {o}");
    assert_refused(&plugins, &spin, &[spin.to_str().unwrap(), o, "mode 0777", &fix]);
    // With the sticky bit (as /tmp) only the owner of `plugins` may rename it.
    chmod(&open, 0o1777);
    assert_accepted(&plugins, &spin);
    // ...but a folder in it that another user owns is theirs to swap.
    let theirs = folder(&open, "theirs", 0o755);
    chown(&theirs, Some(Uid::from_raw(OTHER)), Some(Gid::from_raw(OTHER))).unwrap();
    let spin = spin_in(&theirs);
    assert_refused(&theirs, &spin, &[theirs.to_str().unwrap(), "uid 1000"]);
    // An ancestor group-writable by another group.
    let shared = folder(base.path(), "shared", 0o775);
    chown(&shared, None, Some(Gid::from_raw(OTHER))).unwrap();
    let plugins = folder(&shared, "plugins", 0o755);
    let spin = spin_in(&plugins);
    assert_refused(&plugins, &spin, &[shared.to_str().unwrap(), "mode 0775", "gid 1000"]);
}

#[test]
fn the_plugin_folder_itself_may_not_be_writable_by_others_even_sticky() {
    let base = private_dir();
    let drop_box = folder(base.path(), "plugins", 0o1777);
    let spin = spin_in(&drop_box);
    assert_refused(&drop_box, &spin, &[drop_box.to_str().unwrap(), "mode 1777"]);
}

#[test]
fn a_symlink_is_judged_by_the_file_it_resolves_to() {
    let base = private_dir();
    let open = folder(base.path(), "open", 0o777);
    let real = spin_in(&open);
    let plugins = folder(base.path(), "plugins", 0o755);
    let link = plugins.join("libmlb_spin.so");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    assert_refused(&plugins, &link, &[link.to_str().unwrap(), open.to_str().unwrap(), "mode 0777"]);
    // A link to a file in a private folder is fine.
    let safe = folder(base.path(), "safe", 0o755);
    std::fs::remove_file(&link).unwrap();
    std::os::unix::fs::symlink(spin_in(&safe), &link).unwrap();
    assert_accepted(&plugins, &link);
}

/// A library without a manifest whose constructor creates `marker`, then
/// never returns.
fn hanging_library(dir: &Path, name: &str, marker: &Path) -> PathBuf {
    let source = format!(
        "#include <fcntl.h>\n#include <unistd.h>\n\
         __attribute__((constructor)) static void hang(void) {{ close(open(\"{}\", O_CREAT | O_WRONLY, 0600)); for (;;) pause(); }}\n\
         int not_a_plugin(void) {{ return 0; }}\n",
        marker.display()
    );
    let lib = common::c_library(dir, name, &source);
    chmod(&lib, 0o755);
    lib
}

/// `mlb --jobs` of one spin job, `--dry-run`, with `args` before it: the
/// output and how long it took.
fn launch(mlb: &Path, args: &[&str], env: &[(&str, &str)]) -> (Output, Duration) {
    let dir = tempfile::tempdir().unwrap();
    let jobs = common::write(dir.path(), "spin.json", r#"[{"name": "s", "plugin": "spin", "args": {"size": 0}}]"#);
    let outdir = dir.path().join("out");
    let started = Instant::now();
    let out = Command::new(mlb)
        .args(args)
        .arg("--jobs")
        .arg(&jobs)
        .args(["--dry-run", "--devices", "1", "--outdir"])
        .arg(&outdir)
        .env_remove("MLB_PLUGIN_PATH")
        .envs(env.iter().copied())
        .output()
        .unwrap();
    (out, started.elapsed())
}

#[test]
fn a_launch_does_not_load_libraries_it_does_not_need() {
    let dir = private_dir();
    let later = private_dir();
    let markers = tempfile::tempdir().unwrap();
    spin_in(dir.path());
    // After spin in its own folder, and in a folder searched after it.
    let same = markers.path().join("same-folder");
    let after = markers.path().join("later-folder");
    hanging_library(dir.path(), "libzz_hang.so", &same);
    hanging_library(later.path(), "libaa_hang.so", &after);
    let (out, took) = launch(
        &common::mlb(),
        &["--plugin-dir", dir.path().to_str().unwrap()],
        &[("MLB_PLUGIN_PATH", later.path().to_str().unwrap())],
    );
    let (stdout, stderr) = common::text(&out);
    assert!(out.status.success(), "{stderr}");
    assert!(stdout.contains("libmlb_spin.so"), "{stdout}");
    assert!(!same.exists() && !after.exists(), "a library the launch did not need was loaded");
    assert!(took < Duration::from_secs(10), "took {took:?}");
}

#[test]
fn a_library_that_hangs_while_loading_is_refused_in_bounded_time_and_named() {
    let hang_dir = private_dir();
    let spin_dir = private_dir();
    let markers = tempfile::tempdir().unwrap();
    let hang = hanging_library(hang_dir.path(), "libhang.so", &markers.path().join("loaded"));
    spin_in(spin_dir.path());
    let short = [("MLB_PROBE_TIMEOUT", "2")];
    let named = |text: &str| text.contains(hang.to_str().unwrap()) && text.contains("refused");

    // `plugins list --verify` loads every file: the hanging one is refused.
    let started = Instant::now();
    let (entries, stderr) = list(&[hang_dir.path(), spin_dir.path()], true, &short);
    let took = started.elapsed();
    let (status, reason) = status_of(&entries, &hang);
    assert_eq!(status, "refused");
    assert!(named(&reason) && reason.contains("did not finish loading within 2 s"), "{reason}");
    assert!(stderr.contains(hang.to_str().unwrap()), "said while waiting: {stderr}");
    assert!(took < Duration::from_secs(10), "took {took:?}");

    // A launch must ask it (it comes first in the search path and has no
    // manifest): it waits as long, says so, and runs spin.
    let args = ["--plugin-dir", hang_dir.path().to_str().unwrap(), "--plugin-dir", spin_dir.path().to_str().unwrap()];
    let (out, took) = launch(&common::mlb(), &args, &short);
    let (_, stderr) = common::text(&out);
    assert!(out.status.success(), "{stderr}");
    assert!(named(&stderr), "{stderr}");
    assert!(took < Duration::from_secs(10), "took {took:?}");
}

#[test]
fn when_every_plugin_is_refused_the_launch_says_why() {
    let (_bin, mlb) = common::lone_mlb();
    let dir = private_dir();
    let spin = spin_in(dir.path());
    chmod(&spin, 0o666);
    let (out, _) = launch(&mlb, &["--plugin-dir", dir.path().to_str().unwrap()], &[]);
    let (stdout, stderr) = common::text(&out);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stdout.is_empty(), "{stdout}");
    assert!(stderr.contains("no plugin named `spin`; plugins found: none"), "{stderr}");
    assert!(stderr.contains(&format!("1 file refused: {}", spin.display())), "{stderr}");
    assert!(stderr.contains("mode 0666") && stderr.contains("mlb plugins list"), "{stderr}");
}
