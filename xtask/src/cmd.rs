//! Child processes: the environment they run in and their failures.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Why a task stopped.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("`{command}` did not start: {source}")]
    Start { command: String, source: std::io::Error },
    #[error("`{command}` failed ({status})")]
    Failed { command: String, status: std::process::ExitStatus },
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error("the smoke suite's reports did not read the prepared data: {0}")]
    Data(String),
    #[error("the GPU pack: {0}")]
    Pack(String),
    #[error("the GPU check in CPU mode: {0}")]
    GpuCheck(String),
    #[error("the crates' layers (Cargo.toml, [workspace.metadata.layers]):\n  {0}")]
    Layers(String),
    #[error("the {tier} tier failed: {source}")]
    Tier { tier: &'static str, source: Box<Error> },
}

/// Runs `command` to its end; an error unless it exits with 0.
pub fn run(command: &mut Command) -> Result<(), Error> {
    let shown = show(command);
    eprintln!("xtask: {shown}");
    let status = command.status().map_err(|source| Error::Start { command: shown.clone(), source })?;
    if status.success() {
        Ok(())
    } else {
        Err(Error::Failed { command: shown, status })
    }
}

/// `command` as a shell line, for messages.
fn show(command: &Command) -> String {
    std::iter::once(command.get_program())
        .chain(command.get_args())
        .map(OsStr::to_string_lossy)
        .collect::<Vec<_>>()
        .join(" ")
}

/// Variables set on top of this process's environment for every command of
/// a task (the PyTorch build environment, or none).
#[derive(Default)]
pub struct Env {
    vars: Vec<(OsString, OsString)>,
}

impl Env {
    /// The variables `scripts/torch-env.sh` exports (it sets the PyTorch
    /// venv up on first use), with the values its `eval` gives them.
    pub fn torch(root: &Path) -> Result<Env, Error> {
        let script = r#"out=$(scripts/torch-env.sh) && eval "$out" &&
            for name in $(printf '%s\n' "$out" | sed -n 's/^export \([A-Za-z_][A-Za-z0-9_]*\)=.*/\1/p'); do
                printf '%s=%s\0' "$name" "${!name}"
            done"#;
        let shown = "eval \"$(scripts/torch-env.sh)\"".to_string();
        let out = Command::new("bash")
            .args(["-c", script])
            .current_dir(root)
            .stderr(std::process::Stdio::inherit())
            .output()
            .map_err(|source| Error::Start { command: shown.clone(), source })?;
        if !out.status.success() {
            return Err(Error::Failed { command: shown, status: out.status });
        }
        let vars = out
            .stdout
            .split(|&b| b == 0)
            .filter_map(|entry| {
                let (key, value) = std::str::from_utf8(entry).ok()?.split_once('=')?;
                Some((key.into(), value.into()))
            })
            .collect();
        Ok(Env { vars })
    }

    /// `program`, to be run with these variables.
    pub fn command(&self, program: impl AsRef<OsStr>) -> Command {
        let mut c = Command::new(program);
        c.envs(self.vars.iter().map(|(k, v)| (k, v)));
        c
    }

    /// Cargo (the one running this task), with these variables.
    pub fn cargo(&self) -> Command {
        self.command(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()))
    }
}
