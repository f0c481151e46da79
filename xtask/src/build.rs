//! The one build of a task: every command that needs mlb built goes
//! through [`build`], so a job builds once and in one way.

use crate::cmd::{self, Env, Error};
use std::path::{Path, PathBuf};

/// What a task needs built (release profile).
#[derive(Clone, Copy)]
pub enum Set {
    /// mlb and the spin plugin: no libtorch needed.
    Launcher,
    /// The whole workspace, every libtorch plugin included, in the PyTorch
    /// environment of `scripts/torch-env.sh`.
    Everything,
}

/// A finished build: where its binaries are and the environment to run them in.
pub struct Built {
    /// The release folder holding `mlb` and the plugins.
    pub bin_dir: PathBuf,
    /// The environment the build ran in (the PyTorch one for [`Set::Everything`]).
    pub env: Env,
}

impl Built {
    /// The built `mlb`.
    pub fn mlb(&self) -> PathBuf {
        self.bin_dir.join("mlb")
    }
}

/// Builds `set` in release mode.
pub fn build(root: &Path, set: Set) -> Result<Built, Error> {
    let env = match set {
        Set::Launcher => Env::default(),
        Set::Everything => Env::torch(root)?,
    };
    let mut cargo = env.cargo();
    cargo.args(["build", "--release"]).current_dir(root);
    match set {
        Set::Launcher => cargo.args(["-p", "mlb", "-p", "spin"]),
        Set::Everything => cargo.arg("--workspace"),
    };
    cmd::run(&mut cargo)?;
    Ok(Built { bin_dir: target_dir(root).join("release"), env })
}

/// Cargo's target folder for this workspace.
pub fn target_dir(root: &Path) -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR").map(PathBuf::from).map_or_else(|| root.join("target"), |dir| root.join(dir))
}
