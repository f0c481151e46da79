//! The data of each page of `mlb serve`: one function per page, taking the
//! read-only store ([`Reader`]) and the page's query (a typed, checked
//! struct read from the URL's query string, the page's permalink) and
//! returning a `Serialize` struct. The API writes it as JSON or CSV
//! ([`Page::csv`]); the HTML pages render the same struct, so that a
//! page's figures and the API's cannot differ.
//!
//! - [`systems`]: every system, its description and its last run;
//! - [`runs`]: the filtered list of runs, a page at a time;
//! - [`run`]: one run as `mlb report` shows it, and its failed instances' log tails;
//! - [`compare`]: the matrix of `mlb db compare`;
//! - [`history`]: the series of `mlb db history`, regressions marked;
//! - [`acceptance`]: who vouches for a run's `acceptance.json`, and over which reports;
//! - [`shared`]: a run's report built once for the requests that ask for it at once;
//! - [`params`]: the query string, read and checked.

pub mod acceptance;
pub mod compare;
pub mod history;
pub mod params;
pub mod run;
pub mod runs;
pub mod shared;
pub mod systems;

use crate::store::query::filters::Visible;
use crate::store::query::QueryError;
use crate::store::{Location, Store, StoreError};
use mlb_judge::accept::record::AllowedSigners;
use mlb_judge::report::Targets;
use std::collections::HashMap;
use std::sync::Mutex;

/// A page's data: JSON as it serialises, and CSV.
pub trait Page: serde::Serialize {
    /// The rows a person wants in a spreadsheet, with a header line
    /// (docs/serve.md names the columns of each page).
    fn csv(&self) -> String;
}

/// The store, opened read-only, the installed target tables by GPU
/// model (read once each), and the signers of acceptance records the
/// server was told to trust; seen by one reader ([`Visible`]: which runs
/// under embargo it sees), the rest shared by all.
pub struct Reader {
    shared: std::sync::Arc<Shared>,
    visible: Visible,
}

/// What every reader of a server shares.
struct Shared {
    store: Store,
    folders: mlb_judge::targets::Folders,
    targets: Mutex<HashMap<String, Option<Targets>>>,
    signers: Option<AllowedSigners>,
    runs: shared::Shared<i64, run::Built>,
    answers: shared::Shared<String, Answer>,
}

/// An answer kept a moment for the next requests of the same address
/// ([`shared`]): its status, content type and body.
pub type Answer = (u16, &'static str, std::sync::Arc<[u8]>);

impl Reader {
    /// Opens the store at `location` read-only, its queries run on
    /// `runtime` ([`Store::open_read_only_on`]); target tables are looked
    /// up in `folders`; acceptance records' signers named by `signers`.
    /// It sees the public runs only.
    pub fn open(
        location: &Location,
        folders: mlb_judge::targets::Folders,
        signers: Option<AllowedSigners>,
        runtime: tokio::runtime::Handle,
    ) -> Result<Reader, StoreError> {
        Ok(Reader::over(Store::open_read_only_on(location, runtime)?, folders, signers))
    }

    /// A reader over `store`, already open (`mlb serve --accept-push`
    /// opens it to write, for the pushes: [`Store::open_existing_on`]).
    pub fn over(store: Store, folders: mlb_judge::targets::Folders, signers: Option<AllowedSigners>) -> Reader {
        let shared = Shared {
            store,
            folders,
            targets: Mutex::default(),
            signers,
            runs: shared::Shared::new(shared::RUNS_KEPT, shared::RUNS_KEPT_FOR),
            answers: shared::Shared::new(shared::ANSWERS_KEPT, shared::ANSWERS_KEPT_FOR),
        };
        Reader { shared: std::sync::Arc::new(shared), visible: Visible::Public }
    }

    /// The same store, seen by a reader who sees `visible`.
    pub fn seen_by(&self, visible: Visible) -> Reader {
        Reader { shared: std::sync::Arc::clone(&self.shared), visible }
    }

    /// Which runs under embargo this reader sees: every query of a page
    /// filters by it.
    pub fn visible(&self) -> Visible {
        self.visible
    }

    /// The run pages' report builds under way.
    pub fn runs(&self) -> &shared::Shared<i64, run::Built> {
        &self.shared.runs
    }

    /// What the store holds now, as a key an answer is kept under: an
    /// answer is given again only while the store is as it was. SQLite: the
    /// size and time of change of its file and write-ahead log (a commit
    /// changes one); PostgreSQL: the server's write-ahead log position (any
    /// write moves it). Empty when it cannot be told (the answers' short
    /// keeping alone then bounds how old an answer is).
    pub fn generation(&self) -> String {
        match self.shared.store.location() {
            Location::Sqlite(path) => {
                let mut wal = path.clone().into_os_string();
                wal.push("-wal");
                [path.as_os_str(), wal.as_os_str()]
                    .iter()
                    .filter_map(|p| std::fs::metadata(p).ok())
                    .map(|m| format!("{}:{:?};", m.len(), m.modified().ok()))
                    .collect()
            }
            Location::Postgres(_) => {
                let store = &self.shared.store;
                let lsn = sqlx::query_scalar("SELECT pg_current_wal_lsn()::text");
                store.block_on(lsn.fetch_one(store.pool())).unwrap_or_default()
            }
        }
    }

    /// The answers kept a moment, by address.
    pub fn answers(&self) -> &shared::Shared<String, Answer> {
        &self.shared.answers
    }

    /// The signers of acceptance records the server trusts, when it was given them.
    pub fn signers(&self) -> Option<&AllowedSigners> {
        self.shared.signers.as_ref()
    }

    /// The store.
    pub fn store(&self) -> &Store {
        &self.shared.store
    }

    /// The installed target table of the GPU model `model` (as `mlb report
    /// --gpu-model` finds it), if there is one.
    pub fn targets(&self, model: &str) -> Option<Targets> {
        let mut known = self.shared.targets.lock().unwrap_or_else(|e| e.into_inner());
        known
            .entry(model.to_string())
            .or_insert_with(|| mlb_judge::targets::catalog::find(&self.shared.folders, model).ok())
            .clone()
    }
}

/// Why a page has no data: the query is wrong (400), what it names is not
/// in the store (404), or the store failed (500).
#[derive(Debug, thiserror::Error)]
pub enum DataError {
    /// The query string is longer than the server reads.
    #[error("the query string is longer than {limit} bytes; pass fewer or shorter parameters")]
    TooLong {
        /// The most bytes read.
        limit: usize,
    },
    /// The query string holds too many parameters.
    #[error("the query string has more than {limit} parameters; pass fewer")]
    TooMany {
        /// The most parameters read.
        limit: usize,
    },
    /// A parameter the page does not take.
    #[error("this page takes no parameter `{name}`; pass only {}", known.join(", "))]
    Unknown {
        /// The parameter.
        name: String,
        /// The page's parameters.
        known: Vec<String>,
    },
    /// A parameter's value is out of bounds or unreadable.
    #[error("the parameter `{name}` {}: {fix}", if value.is_empty() { "is given twice".to_string() } else { format!("cannot be `{value}`") })]
    Bad {
        /// The parameter.
        name: String,
        /// Its value (control characters escaped, cut short); empty when given twice.
        value: String,
        /// What to pass instead.
        fix: String,
    },
    /// The run asked for is not in the store.
    #[error("no run {id} in the store; pass the id of a run the runs page lists")]
    NoRun {
        /// The id asked for.
        id: i64,
    },
    /// A system asked for is not in the store, or not compared.
    #[error("{0}")]
    Refused(String),
    /// The store failed (the server's log has the whole error).
    #[error("the store failed; the server's log says why")]
    Store(#[source] StoreError),
}

impl DataError {
    /// A bad `value` of the parameter `name`, and what to pass instead.
    pub fn bad(name: &str, value: &str, fix: &str) -> DataError {
        let mut value = visible(value);
        if value.chars().count() > 60 {
            value = value.chars().take(60).collect::<String>() + "...";
        }
        DataError::Bad { name: visible(name), value, fix: fix.to_string() }
    }

    /// Whether it is the store's failure rather than the request's.
    pub fn is_store(&self) -> bool {
        matches!(self, DataError::Store(_))
    }

    /// Whether what the request names is not in the store.
    pub fn is_not_found(&self) -> bool {
        matches!(self, DataError::NoRun { .. })
    }
}

impl From<StoreError> for DataError {
    fn from(error: StoreError) -> DataError {
        DataError::Store(error)
    }
}

impl From<QueryError> for DataError {
    fn from(error: QueryError) -> DataError {
        use mlb_record::fix::Fix;
        match error {
            QueryError::Store(e) => DataError::Store(e),
            other => {
                let fix = other.fix().map(|f| format!("; {f}")).unwrap_or_default();
                DataError::Refused(format!("{other}{fix}"))
            }
        }
    }
}

/// `text` with its control characters escaped.
pub fn visible(text: &str) -> String {
    mlb_record::untrusted::visible(text).into_owned()
}

/// The CSV `csv` (a header line, then a line per item) with more columns:
/// `header` appended to its header, `cells` (one per line, in order) to its lines.
pub fn with_columns(csv: &str, header: &str, cells: impl Iterator<Item = String>) -> String {
    let mut lines = csv.lines();
    let mut out = format!("{},{header}\n", lines.next().unwrap_or_default());
    for (line, more) in lines.zip(cells) {
        out.push_str(&format!("{line},{more}\n"));
    }
    out
}
