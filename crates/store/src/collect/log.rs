//! The log of pushes (`mlb db pushes`): who pushed, when, what, and what
//! the server answered. Every push of a known key is a row, refused or
//! not; a request naming no known key goes to the server's stderr only,
//! so that nobody without a key can write the store.

use crate::store::import::rows::now;
use crate::store::{Store, StoreError};
use serde::Serialize;

/// One push, as logged.
#[derive(Clone, Debug, PartialEq, Serialize, sqlx::FromRow)]
pub struct Pushed {
    /// When it came (RFC 3339, UTC).
    pub at: String,
    /// The key's name.
    pub key: String,
    /// The address it came from.
    pub peer: String,
    /// The system it pushed for, once known.
    pub system: Option<String>,
    /// The run folder's name, once known.
    pub folder: Option<String>,
    /// The bytes received.
    pub bytes: i64,
    /// The files unpacked.
    pub files: i64,
    /// The HTTP status answered.
    pub status: i64,
    /// What was answered: what was stored, or why nothing was.
    pub outcome: String,
}

/// A push to log, of the key `key_id`.
#[derive(Clone, Debug, Default)]
pub struct Entry {
    pub key_id: i64,
    pub peer: String,
    pub system: Option<String>,
    pub folder: Option<String>,
    pub bytes: u64,
    pub files: u64,
    pub status: u16,
    pub outcome: String,
}

impl Store {
    /// Logs `entry`, now.
    pub fn log_push(&self, entry: &Entry) -> Result<(), StoreError> {
        let insert = sqlx::query(
            "INSERT INTO push_log (at, key_id, peer, system, folder, bytes, files, status, outcome) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
        )
        .bind(now())
        .bind(entry.key_id)
        .bind(entry.peer.as_str());
        let insert = crate::store::bind_text(insert, entry.system.as_deref());
        let insert = crate::store::bind_text(insert, entry.folder.as_deref())
            .bind(i64::try_from(entry.bytes).unwrap_or(i64::MAX))
            .bind(i64::try_from(entry.files).unwrap_or(i64::MAX))
            .bind(i64::from(entry.status))
            .bind(entry.outcome.as_str());
        self.block_on(insert.execute(self.pool()))
            .map(|_| ())
            .map_err(|e| StoreError::query(self.location(), "logging a push", &e))
    }

    /// The pushes logged, oldest first; of the key `key` alone when given.
    pub fn pushes(&self, key: Option<&str>) -> Result<Vec<Pushed>, StoreError> {
        let sql = "SELECT l.at, k.name AS key, l.peer, l.system, l.folder, l.bytes, l.files, l.status, l.outcome \
                   FROM push_log l JOIN push_keys k ON k.id = l.key_id WHERE k.name = $1 OR $2 = 0 ORDER BY l.id";
        let query = sqlx::query_as(sql).bind(key.unwrap_or_default()).bind(i64::from(key.is_some()));
        self.block_on(query.fetch_all(self.pool()))
            .map_err(|e| StoreError::query(self.location(), "listing the pushes", &e))
    }
}
