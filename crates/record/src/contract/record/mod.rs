//! Report files (docs/worker.md, "Report files"): one strict-JSON file per (job config, run,
//! instance), named, identified and written atomically the same way whoever
//! writes it (the worker, or the launcher for an instance that crashed).
//! The file's content is [`contract::Report`](crate::contract::Report).

mod failure;
mod identity;
mod name;
mod output;
mod unique_id;
mod write;

pub use failure::{Cause, Failure};
pub use identity::Identity;
pub use name::{clean, file_name, file_name_prefix, parse_timestamp, timestamp};
pub use output::{refused, write_output, Output, OutputError, Written};
pub use unique_id::unique_id;
pub use write::{to_strict_json, write_atomic, Staged, SHARED_MODE};

/// Turns a job argument name into a report key: leading dashes dropped,
/// inner dashes to underscores (`--batch-size` -> `batch_size`).
pub fn arg_key(raw: &str) -> String {
    raw.trim_start_matches('-').replace('-', "_")
}

#[cfg(test)]
mod tests {
    #[test]
    fn arg_keys() {
        assert_eq!(super::arg_key("--batch-size"), "batch_size");
        assert_eq!(super::arg_key("-l"), "l");
        assert_eq!(super::arg_key("upscale_factor"), "upscale_factor");
    }
}
