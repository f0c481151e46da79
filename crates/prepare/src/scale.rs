//! How much data `mlb prepare` writes (`--scale`): the one setting the
//! catalog passes to every generator.

use serde::{Deserialize, Serialize};

/// How much data: the original suite's sizes, or a few MB for tests and CI.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Scale {
    /// Tens of files per set, a few MB in all: seconds to write (CI, tests).
    #[default]
    Small,
    /// The sizes of the data sets the original suite read (docs/data.md).
    Full,
}

impl Scale {
    /// `small` or `full`.
    pub fn as_str(self) -> &'static str {
        match self {
            Scale::Small => "small",
            Scale::Full => "full",
        }
    }
}

impl std::fmt::Display for Scale {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
