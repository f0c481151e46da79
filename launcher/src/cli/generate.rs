//! `mlb generate` (hidden): the man pages and shell completion scripts of
//! mlb's command line, rendered from the parser's own definition
//! (clap_mangen, clap_complete), so that what a release ships says what
//! its binary parses. `cargo xtask dist` runs the built binary to make
//! them (docs/install.md).

use super::Cli;
use clap::CommandFactory;
use std::path::{Path, PathBuf};

/// `mlb generate ...`
#[derive(Debug, clap::Subcommand)]
pub enum GenerateCommand {
    /// Writes the man pages into DIR: `mlb.1` and one per visible subcommand
    /// (`mlb-report.1`, `mlb-db-compare.1`, ...).
    Man {
        /// The folder to write into (made when missing).
        dir: PathBuf,
    },
    /// Prints the completion script of SHELL.
    Complete {
        /// The shell.
        shell: clap_complete::Shell,
    },
}

/// Why the man pages were not written.
#[derive(Debug, thiserror::Error)]
#[error("cannot write the man pages into {}: {source}", dir.display())]
pub struct GenerateError {
    /// The folder asked for.
    pub dir: PathBuf,
    /// Why.
    pub source: std::io::Error,
}

/// Writes the man page of mlb and of each of its visible subcommands, at
/// any depth, into `dir`.
pub fn man_pages(dir: &Path) -> Result<(), GenerateError> {
    std::fs::create_dir_all(dir)
        .and_then(|()| clap_mangen::generate_to(Cli::command(), dir))
        .map_err(|source| GenerateError { dir: dir.to_path_buf(), source })
}

/// The completion script of `shell` for `mlb`.
pub fn completion(shell: clap_complete::Shell) -> String {
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "mlb", &mut script);
    String::from_utf8_lossy(&script).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_visible_subcommand_has_a_page_and_hidden_ones_none() {
        let dir = tempfile::tempdir().unwrap();
        man_pages(dir.path()).unwrap();
        for page in ["mlb.1", "mlb-report.1", "mlb-db-compare.1", "mlb-plugins-list.1"] {
            let text = std::fs::read_to_string(dir.path().join(page)).unwrap_or_else(|e| panic!("{page}: {e}"));
            assert!(text.starts_with(".ie"), "{page} is roff: {}", &text[..40.min(text.len())]);
        }
        for hidden in ["mlb-worker.1", "mlb-generate.1"] {
            assert!(!dir.path().join(hidden).exists(), "{hidden}");
        }
    }

    #[test]
    fn each_shell_completes_the_subcommands() {
        for shell in [clap_complete::Shell::Bash, clap_complete::Shell::Zsh, clap_complete::Shell::Fish] {
            let script = completion(shell);
            assert!(script.contains("prepare") && script.contains("--jobs"), "{shell}: {script}");
        }
    }
}
