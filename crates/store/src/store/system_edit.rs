//! `mlb db rename-system OLD NEW` and `mlb db remove-system NAME`: a
//! system's name changed (every row of that name, each fingerprint made
//! again; onto a name taken with the same identity, the two rows become
//! one), or a system removed with its runs, their instances, metrics,
//! labels, report texts and documents.

use super::import::system::SystemRow;
use super::query::compare::system_names;
use super::query::QueryError;
use super::{Store, StoreError};
use sqlx::{AnyConnection, Connection};

/// A system's row and its id.
#[derive(sqlx::FromRow)]
struct Stored {
    id: i64,
    #[sqlx(flatten)]
    system: SystemRow,
}

impl Store {
    /// Renames the system `old` to `new` (a name [`super::name::check`]
    /// takes); returns what it did, for a person.
    pub fn rename_system(&self, old: &str, new: &str) -> Result<String, QueryError> {
        self.known_system(old)?;
        let what = format!("renaming the system `{old}`");
        self.block_on(async {
            let mut conn = self.pool().acquire().await?;
            let mut tx = conn.begin().await?;
            let select = format!("SELECT id, {} FROM systems WHERE name = $1", SystemRow::COLUMNS);
            let rows: Vec<Stored> = sqlx::query_as(&select).bind(old).fetch_all(&mut *tx).await?;
            for Stored { id, system } in rows {
                rename_row(&mut tx, id, &SystemRow { name: new.to_string(), ..system }).await?;
            }
            tx.commit().await
        })
        .map_err(|e| StoreError::query(self.location(), what, &e))?;
        Ok(format!("renamed the system `{old}` to `{new}` in {}\n", self.location()))
    }

    /// Removes the system `name` and all its runs; returns what it did.
    pub fn remove_system(&self, name: &str) -> Result<String, QueryError> {
        self.known_system(name)?;
        let what = format!("removing the system `{name}`");
        let runs: i64 = self
            .block_on(async {
                let mut conn = self.pool().acquire().await?;
                let mut tx = conn.begin().await?;
                let runs: i64 = sqlx::query_scalar(
                    "SELECT COUNT(*) FROM runs WHERE system_id IN (SELECT id FROM systems WHERE name = $1)",
                )
                .bind(name)
                .fetch_one(&mut *tx)
                .await?;
                // Cascades to instances, metrics, tags, report texts, documents.
                sqlx::query("DELETE FROM runs WHERE system_id IN (SELECT id FROM systems WHERE name = $1)")
                    .bind(name)
                    .execute(&mut *tx)
                    .await?;
                remove_orphan_tails(&mut tx).await?;
                sqlx::query("DELETE FROM systems WHERE name = $1").bind(name).execute(&mut *tx).await?;
                tx.commit().await?;
                Ok::<_, sqlx::Error>(runs)
            })
            .map_err(|e| StoreError::query(self.location(), what, &e))?;
        Ok(format!(
            "removed the system `{name}`: {runs} run{} from {}\n",
            if runs == 1 { "" } else { "s" },
            self.location()
        ))
    }

    /// Refuses a name that is no system of the store.
    fn known_system(&self, name: &str) -> Result<(), QueryError> {
        let known = system_names(self, crate::store::query::filters::Visible::All)?;
        match known.iter().any(|k| k == name) {
            true => Ok(()),
            false => Err(QueryError::UnknownSystem { name: name.to_string(), known }),
        }
    }
}

/// Gives the system row `id` the name and fingerprint of `system`; when a
/// row of that fingerprint is there already (the same system under the new
/// name), its runs move to that row and `id` is removed.
async fn rename_row(conn: &mut AnyConnection, id: i64, system: &SystemRow) -> Result<(), sqlx::Error> {
    let fingerprint = system.fingerprint();
    let taken: Option<i64> = sqlx::query_scalar("SELECT id FROM systems WHERE fingerprint = $1")
        .bind(fingerprint.as_str())
        .fetch_optional(&mut *conn)
        .await?;
    let Some(keep) = taken else {
        sqlx::query("UPDATE systems SET name = $1, fingerprint = $2 WHERE id = $3")
            .bind(system.name.as_str())
            .bind(fingerprint.as_str())
            .bind(id)
            .execute(&mut *conn)
            .await?;
        return Ok(());
    };
    // A folder is one run: one of the same folder under the row kept holds
    // its instances already (an instance is in one run only).
    sqlx::query(
        "UPDATE runs SET system_id = $1 WHERE system_id = $2 AND folder NOT IN \
         (SELECT folder FROM runs WHERE system_id = $1)",
    )
    .bind(keep)
    .bind(id)
    .execute(&mut *conn)
    .await?;
    sqlx::query("DELETE FROM runs WHERE system_id = $1").bind(id).execute(&mut *conn).await?;
    sqlx::query("DELETE FROM systems WHERE id = $1").bind(id).execute(&mut *conn).await?;
    Ok(())
}

/// Removes the log tails no instance refers to any more.
async fn remove_orphan_tails(conn: &mut AnyConnection) -> Result<(), sqlx::Error> {
    sqlx::query(
        "DELETE FROM log_tails WHERE NOT EXISTS (SELECT 1 FROM instances i \
         WHERE i.report_hash = log_tails.report_hash AND i.entry = log_tails.entry)",
    )
    .execute(&mut *conn)
    .await?;
    Ok(())
}
