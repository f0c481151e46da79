//! mlb's results store and its dashboard: `mlb db` (SQLite and PostgreSQL,
//! the versioned migrations, the import of report folders, the typed
//! queries of compare, history, systems and export) and `mlb serve`, the
//! web server over the same queries (read-only, unless it collects pushes
//! from other sites: `collect`).
//!
//! Figures come from the figures crate and run pages from the judgment
//! crate's report, so the store and the pages cannot disagree with `mlb
//! report`.

pub mod collect;
pub mod serve;
pub mod store;
