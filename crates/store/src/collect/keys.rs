//! Push keys (`mlb db keys add|list|revoke`): one per submitting site,
//! naming the systems it may push for, how many pushes a minute it may
//! make, and (below the server's) how large each may be. The key is shown once, when made; the store keeps its hash.

use super::error::CollectError;
use super::limits::Limits;
use super::secret;
use crate::store::import::rows::now;
use crate::store::{Store, StoreError};
use serde::Serialize;

/// What starts every push key.
pub const PREFIX: &str = "mlbk_";

/// Pushes a minute a key may make unless `--per-minute` says otherwise.
pub const PER_MINUTE: u32 = 30;

/// A push key as the store keeps it (never the key itself).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PushKey {
    /// Its id in the store.
    pub id: i64,
    /// Who holds it.
    pub name: String,
    /// The systems it may push for.
    pub systems: Vec<String>,
    /// The most pushes it may make in a minute.
    pub per_minute: u32,
    /// The bounds of its pushes below the server's (none: the server's).
    pub bounds: KeyBounds,
    /// When it was made (RFC 3339, UTC).
    pub made_at: String,
    /// When it was revoked, if it was.
    pub revoked_at: Option<String>,
}

/// The bounds of one key's pushes, each below the server's own.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct KeyBounds {
    /// The most bytes one push may send.
    pub max_bytes: Option<u64>,
    /// The most files one push may unpack to.
    pub max_files: Option<u64>,
}

impl PushKey {
    /// Whether it may push for the system `name`.
    pub fn may_push_for(&self, name: &str) -> bool {
        self.systems.iter().any(|s| s == name)
    }

    /// The bounds of its pushes on a server bounded by `server`: the lower of each.
    pub fn limits(&self, server: &Limits) -> Limits {
        Limits {
            body_bytes: self.bounds.max_bytes.map_or(server.body_bytes, |b| b.min(server.body_bytes)),
            files: self.bounds.max_files.map_or(server.files, |f| f.min(server.files)),
            ..*server
        }
    }
}

/// A key's row.
#[derive(sqlx::FromRow)]
struct Row {
    id: i64,
    name: String,
    systems: String,
    per_minute: i64,
    max_bytes: Option<i64>,
    max_files: Option<i64>,
    made_at: String,
    revoked_at: Option<String>,
}

impl From<Row> for PushKey {
    fn from(row: Row) -> PushKey {
        PushKey {
            id: row.id,
            name: row.name,
            systems: serde_json::from_str(&row.systems).unwrap_or_default(),
            per_minute: u32::try_from(row.per_minute).unwrap_or(0),
            bounds: KeyBounds {
                max_bytes: row.max_bytes.and_then(|b| u64::try_from(b).ok()),
                max_files: row.max_files.and_then(|f| u64::try_from(f).ok()),
            },
            made_at: row.made_at,
            revoked_at: row.revoked_at,
        }
    }
}

const COLUMNS: &str = "id, name, systems, per_minute, max_bytes, max_files, made_at, revoked_at";

impl Store {
    /// Makes the key `name` for `systems` (each a name the store takes),
    /// `per_minute` pushes a minute, each within `bounds`; returns it and
    /// the key itself, which the store does not keep.
    pub fn add_key(
        &self,
        name: &str,
        systems: &[String],
        per_minute: u32,
        bounds: KeyBounds,
    ) -> Result<(PushKey, String), CollectError> {
        crate::store::name::check(name).map_err(|e| CollectError::BadName { name: name.into(), why: e.to_string() })?;
        if systems.is_empty() {
            return Err(CollectError::NoSystems { name: name.into() });
        }
        for system in systems {
            crate::store::name::check(system)
                .map_err(|e| CollectError::BadName { name: system.clone(), why: e.to_string() })?;
        }
        if self.keys()?.iter().any(|k| k.name == name) {
            return Err(CollectError::KeyTaken { name: name.into() });
        }
        let key = secret::new(PREFIX);
        let systems_json = serde_json::to_string(systems).expect("names serialise");
        let bound = |b: Option<u64>| b.map(|b| i64::try_from(b).unwrap_or(i64::MAX));
        let insert = sqlx::query(
            "INSERT INTO push_keys (name, key_hash, systems, per_minute, max_bytes, max_files, made_at) \
             VALUES ($1, $2, $3, $4, $5, $6, $7)",
        )
        .bind(name)
        .bind(secret::hash(&key))
        .bind(systems_json)
        .bind(i64::from(per_minute))
        .bind(bound(bounds.max_bytes))
        .bind(bound(bounds.max_files))
        .bind(now());
        self.block_on(insert.execute(self.pool()))
            .map_err(|e| StoreError::query(self.location(), format!("adding the push key `{name}`"), &e))?;
        let made =
            self.keys()?.into_iter().find(|k| k.name == name).ok_or(CollectError::NoKey { name: name.into() })?;
        Ok((made, key))
    }

    /// Every key, revoked or not, by name.
    pub fn keys(&self) -> Result<Vec<PushKey>, StoreError> {
        let sql = format!("SELECT {COLUMNS} FROM push_keys ORDER BY name");
        let rows: Vec<Row> = self
            .block_on(sqlx::query_as(&sql).fetch_all(self.pool()))
            .map_err(|e| StoreError::query(self.location(), "listing the push keys", &e))?;
        Ok(rows.into_iter().map(PushKey::from).collect())
    }

    /// Revokes the key `name`: from now on it pushes nothing and sees no run under embargo.
    pub fn revoke_key(&self, name: &str) -> Result<PushKey, CollectError> {
        let update = sqlx::query("UPDATE push_keys SET revoked_at = $1 WHERE name = $2 AND revoked_at IS NULL")
            .bind(now())
            .bind(name);
        self.block_on(update.execute(self.pool()))
            .map_err(|e| StoreError::query(self.location(), format!("revoking the push key `{name}`"), &e))?;
        self.keys()?.into_iter().find(|k| k.name == name).ok_or(CollectError::NoKey { name: name.into() })
    }

    /// The key whose secret is `given`, unless it is unknown or revoked.
    pub fn key_of(&self, given: &str) -> Result<Option<PushKey>, StoreError> {
        if !given.trim().starts_with(PREFIX) {
            return Ok(None);
        }
        let sql = format!("SELECT {COLUMNS} FROM push_keys WHERE key_hash = $1 AND revoked_at IS NULL");
        let row: Option<Row> = self
            .block_on(sqlx::query_as(&sql).bind(secret::hash(given)).fetch_optional(self.pool()))
            .map_err(|e| StoreError::query(self.location(), "looking up a push key", &e))?;
        Ok(row.map(PushKey::from))
    }
}
