//! Why `mlb accept` refused or failed.

use crate::report::ReportError;
use mlb_record::contract::record::refused;
use mlb_record::exit::{Classify, Kind};
use mlb_record::fix::Fix;
use std::path::PathBuf;

/// Why `mlb accept` gave no verdict.
#[derive(Debug, thiserror::Error)]
pub enum AcceptError {
    /// The reports (or the baseline) or the target table cannot be used.
    #[error(transparent)]
    Report(#[from] ReportError),
    /// The rules file cannot be read.
    #[error("cannot read the rules file {path}: {source}")]
    RulesFile {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The rules file is not valid: a syntax error, an unknown kind or
    /// bench, a bound that is not a number.
    #[error("{path}:{line}:{column}: {message}")]
    Rules {
        /// The file.
        path: PathBuf,
        /// Line of the fault (from 1).
        line: usize,
        /// Column of the fault (from 1).
        column: usize,
        /// What is wrong.
        message: String,
        /// What to write instead.
        fix: String,
    },
    /// The default rules (the original score's criteria) without a target
    /// table to hold the throughput to.
    #[error("the default rules compare each bench with a target table, and none was given")]
    NoTargets,
    /// The acceptance record cannot be written, signed or verified.
    #[error(transparent)]
    Record(#[from] super::record::RecordError),
    /// The output file (`--output`) cannot be written.
    #[error("cannot write the verdicts to {path}: {source}")]
    Out {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

impl Classify for AcceptError {
    /// Bad input is refused before any verdict is given; an output file
    /// that cannot be written fails.
    fn kind(&self) -> Kind {
        match self {
            AcceptError::Report(e) => e.kind(),
            AcceptError::RulesFile { .. } | AcceptError::Rules { .. } | AcceptError::NoTargets => Kind::Refused,
            AcceptError::Record(e) => e.kind(),
            AcceptError::Out { source, .. } if refused(source) => Kind::Refused,
            AcceptError::Out { .. } => Kind::Failed,
        }
    }
}

impl Fix for AcceptError {
    fn fix(&self) -> Option<String> {
        match self {
            AcceptError::Report(e) => e.fix(),
            AcceptError::RulesFile { .. } => Some("pass a readable YAML rules file with --rules FILE".into()),
            AcceptError::Rules { fix, .. } => Some(fix.clone()),
            AcceptError::NoTargets => Some(
                "pass --targets FILE or --gpu-model NAME (`mlb targets list` shows the tables; `mlb targets derive` \
                 makes one from a reference run), or rules of your own with --rules FILE"
                    .into(),
            ),
            AcceptError::Record(e) => e.fix(),
            AcceptError::Out { .. } => Some("pass a writable --output FILE".into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_rules_are_refused_and_an_unwritable_output_fails() {
        let rules = AcceptError::Rules {
            path: "r.yaml".into(),
            line: 3,
            column: 10,
            message: "the bound `x` is not a number".into(),
            fix: "write the bound as a number".into(),
        };
        assert_eq!(
            (rules.kind(), rules.to_string().as_str()),
            (Kind::Refused, "r.yaml:3:10: the bound `x` is not a number")
        );
        assert_eq!(rules.fix().as_deref(), Some("write the bound as a number"));
        let out = AcceptError::Out { path: "v.txt".into(), source: std::io::ErrorKind::PermissionDenied.into() };
        assert_eq!(out.kind(), Kind::Failed);
    }
}
