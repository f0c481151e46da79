//! The crate's build script: what `mlb --version` says besides the crate's version: the commit it was
//! built from and the libtorch its plugins were built against, e.g.
//! `0.1.0 (commit 1a2b3c4d5e6f, libtorch 2.11.0+cu130)`, set as
//! `MLB_BUILD_VERSION` for the crate (`cli.rs` reads it with `env!`).
//!
//! The commit is `$MLB_COMMIT` when set (a build from a copy of the source
//! without `.git`: a container image), else what `git rev-parse
//! --short=12 HEAD` says, else `unknown`. The build reruns when HEAD moves:
//! HEAD's own file, the branch's ref file (or `packed-refs` while it has
//! none), as git names them (a worktree's HEAD is outside the tree).
//!
//! The libtorch is `$MLB_LIBTORCH_VERSION` (exported by
//! `scripts/torch-env.sh` and `containers/install-mlb.sh`, which build the
//! libtorch plugins), else `none`: a build of the launcher alone. Changing
//! it reruns this script, and so rebuilds the crate.

use std::process::Command;

const COMMIT_VAR: &str = "MLB_COMMIT";
const LIBTORCH_VAR: &str = "MLB_LIBTORCH_VERSION";

/// Emits `MLB_BUILD_VERSION` and the lines that rerun this script when
/// what it names changes.
fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-env-changed={COMMIT_VAR}");
    println!("cargo::rerun-if-env-changed={LIBTORCH_VAR}");
    let commit = match std::env::var(COMMIT_VAR).ok().filter(|c| !c.is_empty()) {
        Some(commit) => commit,
        None => {
            watch_head();
            git(&["rev-parse", "--short=12", "HEAD"]).unwrap_or_else(|| "unknown".into())
        }
    };
    let libtorch = std::env::var(LIBTORCH_VAR).ok().filter(|v| !v.is_empty()).unwrap_or_else(|| "none".into());
    let version = std::env::var("CARGO_PKG_VERSION").unwrap_or_default();
    println!("cargo::rustc-env=MLB_BUILD_VERSION={version} (commit {commit}, libtorch {libtorch})");
}

/// Reruns the build when HEAD names another commit: HEAD's file, and the
/// file of the ref it points to, or `packed-refs` where that ref is packed.
fn watch_head() {
    let Some(head) = git(&["rev-parse", "--git-path", "HEAD"]) else { return };
    println!("cargo::rerun-if-changed={head}");
    let Some(branch) = git(&["symbolic-ref", "-q", "HEAD"]) else { return };
    let Some(file) = git(&["rev-parse", "--git-path", &branch]) else { return };
    if std::path::Path::new(&file).exists() {
        println!("cargo::rerun-if-changed={file}");
    } else if let Some(packed) = git(&["rev-parse", "--git-path", "packed-refs"]) {
        println!("cargo::rerun-if-changed={packed}");
    }
}

/// What `git ARGS` prints, trimmed; None when git is missing or fails
/// (no repository).
fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    let text = String::from_utf8(out.stdout).ok()?.trim().to_string();
    (out.status.success() && !text.is_empty()).then_some(text)
}
