//! What a task tells the launcher through its output, besides its
//! instance's lines: `mlb-task: start {...}` once it runs (its step id,
//! which cancelling the step needs) and `mlb-task: end {...}` with its
//! instance's outcome, classified on the node, as the last line it writes.

use crate::runtime::outcome::Outcome;
use serde::{Deserialize, Serialize};

/// The prefix of a task's own lines.
const PREFIX: &str = "mlb-task: ";

/// A task's own line.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum TaskLine {
    /// The task runs: where, in which step.
    Start {
        /// Its rank.
        rank: usize,
        /// Its node.
        node: String,
        /// Its step's id in the engine (Slurm's `SLURM_STEP_ID`).
        step: String,
    },
    /// Its instance ended.
    End {
        /// Its rank.
        rank: usize,
        /// How.
        outcome: Outcome,
        /// The task wrote its failure record.
        recorded: bool,
    },
}

impl TaskLine {
    /// The line as the task prints it.
    pub fn render(&self) -> String {
        format!("{PREFIX}{}", serde_json::to_string(self).expect("a task line serialises"))
    }

    /// A task line, if `text` is one.
    pub fn parse(text: &str) -> Option<TaskLine> {
        serde_json::from_str(text.strip_prefix(PREFIX)?).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_round_trip() {
        let end = TaskLine::End { rank: 3, outcome: Outcome::TimedOut { after: 2.5 }, recorded: true };
        assert_eq!(TaskLine::parse(&end.render()), Some(end));
        let start = TaskLine::Start { rank: 0, node: "n1".into(), step: "4".into() };
        assert_eq!(TaskLine::parse(&start.render()), Some(start));
        assert_eq!(TaskLine::parse("mlb-task: {broken"), None);
        assert_eq!(TaskLine::parse("step 3 loss 0.5"), None);
    }
}
