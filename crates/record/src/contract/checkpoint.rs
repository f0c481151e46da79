//! An instance's checkpoints on disk (docs/faults.md), written by the
//! worker and listed by the launcher when it restarts the instance.
//!
//! ```text
//! <dir>/step-<N>/worker.json   the worker's loop state at step N (position first)
//! <dir>/step-<N>/workload/     what the workload's `save` wrote
//! <dir>/step-<N>.partial/      a checkpoint being written (renamed when complete)
//! ```
//!
//! Only complete checkpoints (renamed) count; the worker keeps the last
//! [`KEPT`] and removes older ones.

use super::line::Position;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Checkpoints a worker keeps: a DDP group restores the newest step every
/// rank holds, and two ranks may cut their last checkpoint one observation
/// apart.
pub const KEPT: usize = 3;

/// The worker's file in a checkpoint.
pub const WORKER_FILE: &str = "worker.json";

/// The workload's folder in a checkpoint.
pub const WORKLOAD_DIR: &str = "workload";

/// The largest worker file read back.
const MAX_WORKER_FILE: u64 = 4 << 20;

/// The folder of the complete checkpoint of step `step`.
pub fn step_dir(dir: &Path, step: u64) -> PathBuf {
    dir.join(format!("step-{step}"))
}

/// The folder a checkpoint of step `step` is written into before it is
/// complete.
pub fn partial_dir(dir: &Path, step: u64) -> PathBuf {
    dir.join(format!("step-{step}.partial"))
}

/// The steps of the complete checkpoints in `dir`, oldest first (none when
/// `dir` cannot be read). A link or a file named like one is not a
/// checkpoint.
pub fn steps(dir: &Path) -> Vec<u64> {
    let mut steps: Vec<u64> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .filter_map(|e| e.file_name().to_str()?.strip_prefix("step-")?.parse().ok())
        .collect();
    steps.sort_unstable();
    steps
}

/// Where the loop stood when a checkpoint was taken, read from its worker
/// file (at most a few MiB; `None` when missing or not one).
pub fn position(dir: &Path, step: u64) -> Option<Position> {
    let text = crate::reading::input::read_limited(&step_dir(dir, step).join(WORKER_FILE), MAX_WORKER_FILE).ok()?;
    let saved: Saved = serde_json::from_str(&text).ok()?;
    (saved.step == step).then_some(Position { step: saved.step, items: saved.items })
}

/// The head of a worker file: the position it was taken at.
#[derive(Debug, Deserialize, Serialize)]
struct Saved {
    step: u64,
    items: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn complete_checkpoints_are_listed_and_read() {
        let dir = tempfile::tempdir().unwrap();
        for step in [40, 8, 120] {
            std::fs::create_dir(step_dir(dir.path(), step)).unwrap();
        }
        std::fs::create_dir(partial_dir(dir.path(), 160)).unwrap();
        std::fs::write(dir.path().join("step-200"), "a file").unwrap();
        assert_eq!(steps(dir.path()), [8, 40, 120]);
        assert_eq!(steps(&dir.path().join("none")), Vec::<u64>::new());
        let file = step_dir(dir.path(), 40).join(WORKER_FILE);
        std::fs::write(&file, r#"{"step": 40, "items": 2560, "observations": []}"#).unwrap();
        assert_eq!(position(dir.path(), 40), Some(Position { step: 40, items: 2560 }));
        assert_eq!(position(dir.path(), 8), None, "no worker file");
        std::fs::write(&file, r#"{"step": 41, "items": 2560}"#).unwrap();
        assert_eq!(position(dir.path(), 40), None, "another step's file");
    }
}
