//! Share links (`mlb db share RUN`): a secret address, `/share/SECRET`,
//! that shows one run without the server's token, until it is revoked.
//! The store keeps the secret's hash.

use super::error::CollectError;
use super::secret;
use crate::store::import::rows::now;
use crate::store::{Store, StoreError};
use serde::Serialize;

/// What starts every share link's secret.
pub const PREFIX: &str = "mlbs_";

/// A share link as the store keeps it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, sqlx::FromRow)]
pub struct Share {
    /// Its id (`mlb db share --revoke ID`).
    pub id: i64,
    /// The run it shows.
    pub run_id: i64,
    /// When it was made.
    pub made_at: String,
    /// When it was revoked, if it was.
    pub revoked_at: Option<String>,
}

const COLUMNS: &str = "id, run_id, made_at, revoked_at";

impl Store {
    /// Makes a link to the run `run_id`; returns it and its secret.
    pub fn share(&self, run_id: i64) -> Result<(Share, String), CollectError> {
        let exists: Option<i64> = self
            .block_on(sqlx::query_scalar("SELECT id FROM runs WHERE id = $1").bind(run_id).fetch_optional(self.pool()))
            .map_err(|e| StoreError::query(self.location(), "looking up the run to share", &e))?;
        if exists.is_none() {
            return Err(CollectError::NoRun { id: run_id });
        }
        let token = secret::new(PREFIX);
        let insert = sqlx::query("INSERT INTO shares (run_id, token_hash, made_at) VALUES ($1, $2, $3)")
            .bind(run_id)
            .bind(secret::hash(&token))
            .bind(now());
        self.block_on(insert.execute(self.pool()))
            .map_err(|e| StoreError::query(self.location(), "making the share link", &e))?;
        let sql = format!("SELECT {COLUMNS} FROM shares WHERE token_hash = $1");
        let made: Share = self
            .block_on(sqlx::query_as(&sql).bind(secret::hash(&token)).fetch_one(self.pool()))
            .map_err(|e| StoreError::query(self.location(), "reading the share link made", &e))?;
        Ok((made, token))
    }

    /// Every share link, newest last.
    pub fn shares(&self) -> Result<Vec<Share>, StoreError> {
        let sql = format!("SELECT {COLUMNS} FROM shares ORDER BY id");
        self.block_on(sqlx::query_as(&sql).fetch_all(self.pool()))
            .map_err(|e| StoreError::query(self.location(), "listing the share links", &e))
    }

    /// Revokes the link `id`.
    pub fn revoke_share(&self, id: i64) -> Result<Share, CollectError> {
        let update =
            sqlx::query("UPDATE shares SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL").bind(now()).bind(id);
        self.block_on(update.execute(self.pool()))
            .map_err(|e| StoreError::query(self.location(), "revoking a share link", &e))?;
        self.shares()?.into_iter().find(|s| s.id == id).ok_or(CollectError::NoShare { id })
    }

    /// The run the link `given` shows, unless it is unknown or revoked.
    pub fn shared_run(&self, given: &str) -> Result<Option<i64>, StoreError> {
        if !given.starts_with(PREFIX) {
            return Ok(None);
        }
        let sql = "SELECT run_id FROM shares WHERE token_hash = $1 AND revoked_at IS NULL";
        self.block_on(sqlx::query_scalar(sql).bind(secret::hash(given)).fetch_optional(self.pool()))
            .map_err(|e| StoreError::query(self.location(), "looking up a share link", &e))
    }
}
