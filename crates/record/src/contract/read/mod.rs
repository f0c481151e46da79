//! The one reader of report files: mlb's (strict JSON, non-finite numbers
//! as `null`), the original suite's (`NaN`, `Infinity` and `-Infinity`
//! tokens) and its oldest per-GPU files (`[` then appended `{...},` items,
//! never closed), failure records included.
//!
//! - [`text`]: the tolerant text layer every read goes through: the
//!   original's tokens, appended arrays, and [`from_text`], with which
//!   [`Report::load`](crate::contract::Report::load) reads the full model;
//! - [`entry`]: the light view of a report `mlb report` works on (only the
//!   fields it needs, read in one pass without an intermediate value), with
//!   the config's arguments told apart by [`keys`](crate::contract::keys);
//! - [`extra`]: what the results store keeps of an entry beyond that view,
//!   read in the same pass when asked for;
//! - [`intern`]: one shared copy of the texts the entries repeat;
//! - [`conditions`]: what that view keeps of the `telemetry` block;
//! - [`folder`]: finding the report files of a folder and reading them into
//!   entries, in parallel, in the original's order (for `mlb db import`,
//!   each file read once, whole; for `mlb burn`, only listed).

pub mod conditions;
pub mod entry;
pub mod extra;
pub mod folder;
pub mod intern;
pub mod text;

pub use conditions::Conditions;
pub use entry::{Entry, Losses};
pub use extra::{Extra, Metric};
pub use folder::{
    read_file, read_folder, read_folder_told, read_text, read_whole, report_files, walk_folder_no_links, FolderError,
    Reading, Unreadable, WholeFile, MAX_REPORT_BYTES,
};
pub use text::from_text;
