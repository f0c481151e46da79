//! Data: where a workload's data comes from, and the loaders of the real
//! formats (MNIST idx, image class folders, word corpora).

pub mod corpus;
pub mod image_folder;
pub mod mnist;
pub mod pipeline;
pub mod prefetch;
pub mod transforms;

use std::path::{Path, PathBuf};

/// A data file or folder that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum DataError {
    /// Reading failed.
    #[error("cannot read {path}: {source}")]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The content is not in the expected format.
    #[error("{path}: {message}")]
    Format {
        /// The file.
        path: PathBuf,
        /// What is wrong and what was expected.
        message: String,
    },
    /// The folder holds none of the files the workload needs.
    #[error("no {expected} found under {path}")]
    Missing {
        /// The folder searched.
        path: PathBuf,
        /// What was looked for, and the layout expected.
        expected: String,
    },
}

impl DataError {
    /// An I/O error on `path`.
    pub fn io(path: &Path, source: std::io::Error) -> Self {
        DataError::Io { path: path.to_path_buf(), source }
    }

    /// A format error in `path`.
    pub fn format(path: &Path, message: impl Into<String>) -> Self {
        DataError::Format { path: path.to_path_buf(), message: message.into() }
    }
}

/// Where a workload's data comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DataSource {
    /// Generated in process, with the shapes of the real data.
    Synthetic {
        /// The data folder that was asked for but does not exist, if any.
        requested: Option<PathBuf>,
    },
    /// A folder (or file) of real data.
    Path(PathBuf),
}

impl DataSource {
    /// From the workload's `data` argument: absent, empty, or naming a
    /// folder that does not exist gives synthetic data (the original suite did
    /// the same when a data set was missing); the report says which.
    pub fn from_arg(arg: Option<String>) -> Self {
        match arg.map(PathBuf::from) {
            None => DataSource::Synthetic { requested: None },
            Some(path) if path.exists() => DataSource::Path(path),
            Some(path) => {
                eprintln!("data folder {} does not exist: using synthetic data of the same shapes", path.display());
                DataSource::Synthetic { requested: Some(path) }
            }
        }
    }

    /// The real data folder, if any.
    pub fn path(&self) -> Option<&Path> {
        match self {
            DataSource::Path(p) => Some(p),
            DataSource::Synthetic { .. } => None,
        }
    }

    /// The report's `data` value: `"synthetic"` or the path.
    pub fn report_value(&self) -> serde_json::Value {
        match self {
            DataSource::Synthetic { .. } => "synthetic".into(),
            DataSource::Path(p) => p.display().to_string().into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absent_or_missing_folders_mean_synthetic_data() {
        assert_eq!(DataSource::from_arg(None).report_value(), "synthetic");
        let missing = DataSource::from_arg(Some("/nonexistent/mlb/data".into()));
        assert_eq!(missing, DataSource::Synthetic { requested: Some("/nonexistent/mlb/data".into()) });
        let here = std::env::temp_dir();
        let real = DataSource::from_arg(Some(here.display().to_string()));
        assert_eq!(real.path(), Some(here.as_path()));
        assert_eq!(real.report_value(), here.display().to_string());
    }
}
