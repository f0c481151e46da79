//! What a backend makes of one instance: a typed [`Launch`], started by the
//! site where the instance runs (this host, or a Slurm task on its node,
//! which reads the same typed launch from its step plan).

use super::{Output, Running, RuntimeError};
use serde::{Deserialize, Serialize};
use std::process::Command;
use std::sync::Arc;

/// How one instance is started.
pub enum Launch {
    /// A process, wherever the instance runs.
    Process(ProcessLaunch),
    /// A container run by the backend's engine, from this host (Docker's API).
    Container(Box<dyn ContainerLaunch>),
}

/// A container ready to be run by its engine.
pub trait ContainerLaunch: Send {
    /// Runs it; its output lines go to `output`.
    fn start(self: Box<Self>, output: Arc<dyn Output>) -> Result<Box<dyn Running>, RuntimeError>;
}

/// One instance as a process: program, arguments, environment, and the
/// container that wraps it, if any.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProcessLaunch {
    /// The program and its arguments (`mlb worker ...`, a `cmd` job's
    /// program, or `apptainer exec ... IMAGE mlb worker ...`).
    pub argv: Vec<String>,
    /// Its environment, added to the one it inherits.
    pub env: Vec<(String, String)>,
    /// The container around it.
    pub wrapper: Wrapper,
}

/// The container around a process.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Wrapper {
    /// None: the process runs as it is.
    #[default]
    Bare,
    /// The program starts the container with a clean environment
    /// (`apptainer exec --cleanenv`): a host variable reaches it as
    /// `PREFIX` + its name (`APPTAINERENV_`).
    Exec {
        /// The prefix.
        env_prefix: String,
    },
    /// The step that starts the process runs it in a container (pyxis):
    /// the step starter's flags (`srun --container-image ...`).
    Step {
        /// The flags.
        flags: Vec<String>,
    },
}

impl ProcessLaunch {
    /// The process, its environment added; the host variables `pass`, when
    /// set, reach the inside of an `Exec` container too. Stray host
    /// variables of the container's prefix are not inherited.
    pub fn command(&self, pass: &[&str]) -> Command {
        let mut cmd = Command::new(self.argv.first().map_or("", String::as_str));
        cmd.args(self.argv.iter().skip(1));
        if let Wrapper::Exec { env_prefix } = &self.wrapper {
            for (key, _) in std::env::vars_os() {
                if key.to_string_lossy().starts_with(env_prefix.as_str()) {
                    cmd.env_remove(key);
                }
            }
        }
        cmd.envs(self.env.iter().map(|(k, v)| (k, v)));
        if let Wrapper::Exec { env_prefix } = &self.wrapper {
            for name in pass {
                if let Ok(value) = std::env::var(name) {
                    cmd.env(format!("{env_prefix}{name}"), value);
                }
            }
        }
        cmd
    }

    /// The flags of the step that starts it (empty unless a `Step` wrapper).
    pub fn step_flags(&self) -> &[String] {
        match &self.wrapper {
            Wrapper::Step { flags } => flags,
            _ => &[],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env_of(cmd: &Command) -> Vec<(String, String)> {
        let text = |s: &std::ffi::OsStr| s.to_string_lossy().into_owned();
        cmd.get_envs().filter_map(|(k, v)| Some((text(k), text(v?)))).collect()
    }

    #[test]
    fn a_bare_process_is_its_argv_and_env() {
        let launch = ProcessLaunch {
            argv: vec!["/bin/mlb".into(), "worker".into()],
            env: vec![("JOB_ID".into(), "1".into())],
            wrapper: Wrapper::Bare,
        };
        let cmd = launch.command(&["PATH"]);
        assert_eq!(cmd.get_program(), "/bin/mlb");
        assert_eq!(cmd.get_args().collect::<Vec<_>>(), ["worker"]);
        assert_eq!(env_of(&cmd), [("JOB_ID".to_string(), "1".to_string())], "nothing passed in: no container");
        assert!(launch.step_flags().is_empty());
    }

    #[test]
    fn an_exec_container_gets_the_passed_variables_through_its_prefix() {
        let launch = ProcessLaunch {
            argv: vec!["apptainer".into(), "exec".into()],
            env: vec![],
            wrapper: Wrapper::Exec { env_prefix: "APPTAINERENV_".into() },
        };
        let cmd = launch.command(&["PATH", "MLB_SURELY_UNSET_VARIABLE"]);
        let env = env_of(&cmd);
        assert!(env.iter().any(|(k, _)| k == "APPTAINERENV_PATH"), "{env:?}");
        assert!(!env.iter().any(|(k, _)| k.ends_with("MLB_SURELY_UNSET_VARIABLE")), "{env:?}");
    }

    #[test]
    fn a_launch_reads_back_as_written() {
        let launch = ProcessLaunch {
            argv: vec!["mlb".into()],
            env: vec![("A".into(), "b".into())],
            wrapper: Wrapper::Step { flags: vec!["--container-image=x".into()] },
        };
        let text = serde_json::to_string(&launch).unwrap();
        assert_eq!(serde_json::from_str::<ProcessLaunch>(&text).unwrap(), launch);
        assert_eq!(launch.step_flags(), ["--container-image=x"]);
    }
}
