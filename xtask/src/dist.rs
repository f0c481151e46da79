//! `cargo xtask dist`: the release a site installs. One build of
//! everything, staged as installed (`bin/mlb`, `lib/mlb/plugins/*.so`,
//! `share/mlb/configs/`, man pages, shell completions) in
//! `mlb-VERSION-ARCH-linux/`, packed as `mlb-VERSION-ARCH-linux.tar.gz`.
//! Binaries and plugins ship stripped; their debug information goes to
//! `.debug` files of the same tree, named by each file's `.gnu_debuglink`,
//! in `mlb-VERSION-ARCH-linux-debug.tar.gz`: unpacked over the release,
//! each lies beside its file, where gdb looks (docs/install.md).

use crate::build::{self, Set};
use crate::cmd::{self, Error};
use std::fs::File;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Where each shell's completion script goes in the tree, as
/// `mlb generate complete SHELL` prints it.
const COMPLETIONS: [(&str, &str); 3] = [
    ("bash", "share/bash-completion/completions/mlb"),
    ("zsh", "share/zsh/site-functions/_mlb"),
    ("fish", "share/fish/vendor_completions.d/mlb.fish"),
];

/// Builds everything and writes the release tarball into `out`, and its
/// debug tarball when `with_debug`; prints their sizes and those of the
/// stripped files.
pub fn dist(root: &Path, out: &Path, with_debug: bool) -> Result<(), Error> {
    let built = build::build(root, Set::Everything)?;
    let name = format!("mlb-{}-{}-linux", env!("CARGO_PKG_VERSION"), std::env::consts::ARCH);
    create_dir(out)?;
    // Both trees are staged under `out` and removed with `staging`.
    let staging = tempfile::tempdir_in(out).map_err(|source| Error::Io { path: out.to_path_buf(), source })?;
    let release = staging.path().join("release");
    let debug = staging.path().join("debug");
    let (tree, debug_tree) = (release.join(&name), debug.join(&name));

    let mut shipped = vec![PathBuf::from("bin/mlb")];
    for plugin in plugins(&built.bin_dir)? {
        shipped.push(Path::new("lib/mlb/plugins").join(plugin.file_name().unwrap_or_default()));
    }
    for file in &shipped {
        let from = built.bin_dir.join(file.file_name().unwrap_or_default());
        split_debug(&from, &tree.join(file), &debug_tree.join(debug_name(file)))?;
    }
    let configs = tree.join("share/mlb/configs");
    create_dir(&configs)?;
    cmd::run(Command::new("cp").arg("-R").arg(root.join("configs/.")).arg(&configs))?;
    generate(&tree.join("bin/mlb"), &tree)?;

    let tarball = out.join(format!("{name}.tar.gz"));
    let debug_tarball = out.join(format!("{name}-debug.tar.gz"));
    pack(&release, &name, &tarball)?;
    let mut written = vec![tarball];
    if with_debug {
        pack(&debug, &name, &debug_tarball)?;
        written.push(debug_tarball);
    }
    for path in &written {
        eprintln!("xtask: {} {}", size(path)?, path.display());
    }
    for file in &shipped {
        eprintln!("xtask:   {} {} (stripped)", size(&tree.join(file))?, file.display());
    }
    Ok(())
}

/// The libraries of the release folder: every workload plugin built
/// (`lib*.so`), by name.
fn plugins(bin_dir: &Path) -> Result<Vec<PathBuf>, Error> {
    let entries = std::fs::read_dir(bin_dir).map_err(|source| Error::Io { path: bin_dir.to_path_buf(), source })?;
    let mut found = Vec::new();
    for entry in entries {
        let path = entry.map_err(|source| Error::Io { path: bin_dir.to_path_buf(), source })?.path();
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        if name.starts_with("lib") && name.ends_with(".so") {
            found.push(path);
        }
    }
    found.sort();
    Ok(found)
}

/// `bin/mlb` -> `bin/mlb.debug`: the debug file beside its file.
fn debug_name(file: &Path) -> PathBuf {
    let mut name = file.as_os_str().to_owned();
    name.push(".debug");
    name.into()
}

/// Copies the ELF file `built` to `shipped` without its debug information
/// and symbols, which go to `debug` (`objcopy --only-keep-debug`; mode
/// 644: it is read, not run), named by `shipped`'s `.gnu_debuglink` (with
/// its checksum).
fn split_debug(built: &Path, shipped: &Path, debug: &Path) -> Result<(), Error> {
    for file in [shipped, debug] {
        create_dir(file.parent().unwrap_or(Path::new(".")))?;
    }
    cmd::run(Command::new("objcopy").arg("--only-keep-debug").arg(built).arg(debug))?;
    std::fs::set_permissions(debug, std::fs::Permissions::from_mode(0o644))
        .map_err(|source| Error::Io { path: debug.to_path_buf(), source })?;
    let mut link = std::ffi::OsString::from("--add-gnu-debuglink=");
    link.push(debug);
    cmd::run(Command::new("objcopy").arg("--strip-unneeded").arg(link).arg(built).arg(shipped))
}

/// The man pages and completion scripts of `mlb` (the staged binary, so
/// they are its own), written into the tree at `tree`.
fn generate(mlb: &Path, tree: &Path) -> Result<(), Error> {
    cmd::run(Command::new(mlb).args(["generate", "man"]).arg(tree.join("share/man/man1")))?;
    for (shell, file) in COMPLETIONS {
        let path = tree.join(file);
        create_dir(path.parent().unwrap_or(tree))?;
        let script = File::create(&path).map_err(|source| Error::Io { path: path.clone(), source })?;
        cmd::run(Command::new(mlb).args(["generate", "complete", shell]).stdout(script))?;
    }
    Ok(())
}

/// Writes `dir/name` and everything under it as the gzip tarball
/// `tarball`, the same bytes for the same files: entries in name order,
/// owned by root, one fixed date, modes 755 or 644 (tar's deterministic
/// headers), gzip without a name or date. Written beside and renamed, so
/// `tarball` is never half written.
fn pack(dir: &Path, name: &str, tarball: &Path) -> Result<(), Error> {
    let partial = tarball.with_extension("gz.partial");
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| Error::Io { path, source }
    };
    let file = File::create(&partial).map_err(io(&partial))?;
    let mut archive = tar::Builder::new(flate2::GzBuilder::new().write(file, flate2::Compression::default()));
    archive.mode(tar::HeaderMode::Deterministic);
    archive.follow_symlinks(false);
    let mut entries = Vec::new();
    walk(&dir.join(name), &mut entries)?;
    for path in entries {
        let inside = path.strip_prefix(dir).unwrap_or(&path);
        archive.append_path_with_name(&path, inside).map_err(io(&path))?;
    }
    archive.into_inner().and_then(|gz| gz.finish()).map_err(io(&partial))?;
    std::fs::rename(&partial, tarball).map_err(io(tarball))
}

/// `path` and, when it is a folder, everything under it, parents before
/// their entries, each folder's entries by name.
pub fn walk(path: &Path, found: &mut Vec<PathBuf>) -> Result<(), Error> {
    found.push(path.to_path_buf());
    if !path.symlink_metadata().map_err(|source| Error::Io { path: path.to_path_buf(), source })?.is_dir() {
        return Ok(());
    }
    let mut entries = std::fs::read_dir(path)
        .and_then(|dir| dir.map(|entry| entry.map(|e| e.path())).collect::<Result<Vec<_>, _>>())
        .map_err(|source| Error::Io { path: path.to_path_buf(), source })?;
    entries.sort();
    for entry in entries {
        walk(&entry, found)?;
    }
    Ok(())
}

/// The size of the file at `path`, in MiB, for a person.
fn size(path: &Path) -> Result<String, Error> {
    let bytes = std::fs::metadata(path).map_err(|source| Error::Io { path: path.to_path_buf(), source })?.len();
    Ok(format!("{:>6.1} MiB", bytes as f64 / (1024.0 * 1024.0)))
}

fn create_dir(dir: &Path) -> Result<(), Error> {
    std::fs::create_dir_all(dir).map_err(|source| Error::Io { path: dir.to_path_buf(), source })
}
