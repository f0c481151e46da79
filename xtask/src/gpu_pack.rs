//! `cargo xtask gpu-pack`: the folder a GPU host runs mlb's GPU check from
//! (docs/gpu-check.md), with the host's own PyTorch and nothing else:
//!
//! ```text
//! gpu-check.sh                      the one command to run there (bench/gpu-check/gpu-check.sh)
//! mlb-VERSION-x86_64-linux.tar.gz   the release (`cargo xtask dist`)
//! all_reduce                        mlb's NCCL all-reduce timing (plugins/mlb-torch/examples/all_reduce.rs), stripped
//! bench/gpu-check/                  the check (its Python files)
//! bench/parity/                     the references it runs ([`PARITY`]), where the check finds them in the repository too
//! ```
//!
//! It stays under [`LIMIT`], so that it travels to a GPU host beside the
//! repository within what such a host is sent.

use crate::build;
use crate::cmd::{self, Env, Error};
use crate::dist;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The most a pack may weigh, in bytes.
pub const LIMIT: u64 = 60 << 20;

/// The files of bench/parity the check runs or imports.
const PARITY: [&str; 7] =
    ["run.py", "reference.py", "gemm.py", "membw.py", "ddp.py", "gpt/reference.py", "vit/reference.py"];

/// Writes the pack into `out`, which must be new, empty or an earlier
/// pack (it is then replaced): its size in bytes.
pub fn pack(root: &Path, out: &Path) -> Result<u64, Error> {
    make_empty(out)?;
    // The check runs the release; its debug tarball (three times its size)
    // stays out of what travels to the GPU host.
    dist::dist(root, out, false)?;
    let env = Env::torch(root)?;
    // The example with the whole workspace, as `dist` built it: built
    // alone, mlb-torch's dependencies unify other features, and the library
    // would be built again (its file has one name for both).
    cmd::run(env.cargo().args(["build", "--release", "--workspace", "--example", "all_reduce"]).current_dir(root))?;
    let all_reduce = build::target_dir(root).join("release/examples/all_reduce");
    cmd::run(Command::new("strip").arg("-o").arg(out.join("all_reduce")).arg(all_reduce))?;
    copy(&root.join("bench/gpu-check/gpu-check.sh"), &out.join("gpu-check.sh"))?;
    copy_python(&root.join("bench/gpu-check"), &out.join("bench/gpu-check"))?;
    for file in PARITY {
        copy(&root.join("bench/parity").join(file), &out.join("bench/parity").join(file))?;
    }
    let size = size(out)?;
    if size > LIMIT {
        return Err(Error::Pack(format!("{} weighs {size} bytes, over its limit of {LIMIT}", out.display())));
    }
    eprintln!("xtask: GPU pack {}: {:.1} MiB", out.display(), size as f64 / f64::from(1 << 20));
    Ok(size)
}

/// Makes `out` an empty folder; refuses one that holds anything but an
/// earlier pack (its `gpu-check.sh`).
fn make_empty(out: &Path) -> Result<(), Error> {
    let io = |source| Error::Io { path: out.to_path_buf(), source };
    if out.join("gpu-check.sh").is_file() {
        std::fs::remove_dir_all(out).map_err(io)?;
    } else if out.read_dir().is_ok_and(|mut entries| entries.next().is_some()) {
        return Err(Error::Pack(format!(
            "{} holds files and no earlier pack: give a new or empty folder",
            out.display()
        )));
    }
    std::fs::create_dir_all(out).map_err(io)
}

/// Copies `from` to `to`, making `to`'s folder.
fn copy(from: &Path, to: &Path) -> Result<(), Error> {
    if let Some(folder) = to.parent() {
        std::fs::create_dir_all(folder).map_err(|source| Error::Io { path: folder.to_path_buf(), source })?;
    }
    std::fs::copy(from, to).map(drop).map_err(|source| Error::Io { path: from.to_path_buf(), source })
}

/// Copies the `.py` files under `from` (at any depth) to the same places under `to`.
fn copy_python(from: &Path, to: &Path) -> Result<(), Error> {
    for path in files(from)? {
        if path.extension().is_some_and(|e| e == "py") {
            copy(&path, &to.join(path.strip_prefix(from).unwrap_or(&path)))?;
        }
    }
    Ok(())
}

/// The bytes of the files under `folder`.
fn size(folder: &Path) -> Result<u64, Error> {
    let mut total = 0;
    for path in files(folder)? {
        total += path.symlink_metadata().map_err(|source| Error::Io { path: path.clone(), source })?.len();
    }
    Ok(total)
}

/// The files under `folder`, at any depth (as `dist` walks a tree to pack).
fn files(folder: &Path) -> Result<Vec<PathBuf>, Error> {
    let mut found = Vec::new();
    dist::walk(folder, &mut found)?;
    Ok(found.into_iter().filter(|p| p.symlink_metadata().is_ok_and(|m| !m.is_dir())).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_earlier_pack_is_replaced_and_another_folder_refused() {
        let dir = tempfile::tempdir().unwrap();
        let earlier = dir.path().join("earlier");
        std::fs::create_dir_all(earlier.join("bench")).unwrap();
        std::fs::write(earlier.join("gpu-check.sh"), "").unwrap();
        make_empty(&earlier).unwrap();
        assert_eq!(std::fs::read_dir(&earlier).unwrap().count(), 0);
        make_empty(&earlier).unwrap();
        let fresh = dir.path().join("fresh/pack");
        make_empty(&fresh).unwrap();
        assert!(fresh.is_dir());
        std::fs::write(dir.path().join("notes.txt"), "mine").unwrap();
        let refused = make_empty(dir.path()).unwrap_err().to_string();
        assert!(refused.contains("no earlier pack"), "{refused}");
        assert!(dir.path().join("notes.txt").exists());
    }

    #[test]
    fn the_python_files_are_copied_in_their_folders_and_the_size_counts_every_file() {
        let dir = tempfile::tempdir().unwrap();
        let (from, to) = (dir.path().join("from"), dir.path().join("to"));
        std::fs::create_dir_all(from.join("steps/__pycache__")).unwrap();
        std::fs::write(from.join("check.py"), "12345").unwrap();
        std::fs::write(from.join("steps/mfu.py"), "123").unwrap();
        std::fs::write(from.join("steps/__pycache__/mfu.cpython-311.pyc"), "x").unwrap();
        std::fs::write(from.join("gpu-check.sh"), "xx").unwrap();
        copy_python(&from, &to).unwrap();
        assert!(to.join("check.py").is_file() && to.join("steps/mfu.py").is_file());
        assert!(!to.join("gpu-check.sh").exists() && !to.join("steps/__pycache__/mfu.cpython-311.pyc").exists());
        assert_eq!(size(&to).unwrap(), 8);
    }
}
