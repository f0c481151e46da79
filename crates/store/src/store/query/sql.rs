//! A statement built from fixed SQL text and bound values: each value is
//! written as a `$N` placeholder (read by both SQLite and PostgreSQL) and
//! bound in order, so that no name a user gives ever becomes SQL.

use crate::store::{Store, StoreError};
use sqlx::any::{AnyArguments, AnyRow};
use sqlx::query::Query;
use sqlx::{Any, Decode, FromRow, Row, Type};

/// A value bound to a placeholder.
#[derive(Clone, Debug, PartialEq)]
pub enum Bind {
    /// Text: a name, a tag, a time.
    Text(String),
    /// An integer: an id, a count.
    Int(i64),
    /// A number: a bound of a figure.
    Real(f64),
}

/// SQL text with its bound values.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Sql {
    /// The text, with `$1`, `$2`... where the values go.
    pub text: String,
    /// The values, in placeholder order.
    pub binds: Vec<Bind>,
}

impl Sql {
    /// Starts a statement with fixed `text`.
    pub fn new(text: &str) -> Sql {
        Sql { text: text.to_string(), binds: Vec::new() }
    }

    /// The statement `select` (ending in `= `) of the run `id`, then `rest`.
    pub fn of_run(select: &str, id: i64, rest: &str) -> Sql {
        let mut sql = Sql::new(select);
        sql.bind(Bind::Int(id)).push(rest);
        sql
    }

    /// Appends fixed SQL text.
    pub fn push(&mut self, text: &str) -> &mut Sql {
        self.text.push_str(text);
        self
    }

    /// Appends a placeholder for `value`.
    pub fn bind(&mut self, value: Bind) -> &mut Sql {
        self.binds.push(value);
        self.text.push_str(&format!("${}", self.binds.len()));
        self
    }

    /// Appends a placeholder for the text `value`.
    pub fn text(&mut self, value: &str) -> &mut Sql {
        self.bind(Bind::Text(value.to_string()))
    }

    /// The statement, ready to run.
    pub fn query(&self) -> Query<'_, Any, AnyArguments<'_>> {
        self.binds.iter().fold(sqlx::query(&self.text), |q, b| match b {
            Bind::Text(t) => q.bind(t.as_str()),
            Bind::Int(i) => q.bind(*i),
            Bind::Real(v) => q.bind(*v),
        })
    }

    /// Runs the statement on `store` and reads each row into a `T` by the
    /// names of its columns; `what` names the work in an error (`"listing runs"`).
    pub fn rows<T>(&self, store: &Store, what: &str) -> Result<Vec<T>, StoreError>
    where
        T: for<'r> FromRow<'r, AnyRow> + Send + Unpin,
    {
        self.read(store, what, |row| T::from_row(&row))
    }

    /// Runs a statement of one column on `store` and reads its values.
    pub fn scalars<T>(&self, store: &Store, what: &str) -> Result<Vec<T>, StoreError>
    where
        T: for<'r> Decode<'r, Any> + Type<Any> + Send + Unpin,
    {
        self.read(store, what, |row| row.try_get(0))
    }

    /// Runs the statement on `store` and reads each row with `read` (for
    /// rows that no [`FromRow`] type describes whole).
    pub fn read<T: Send + Unpin>(
        &self,
        store: &Store,
        what: &str,
        read: impl FnMut(AnyRow) -> Result<T, sqlx::Error> + Send,
    ) -> Result<Vec<T>, StoreError> {
        let rows = store.block_on(self.query().try_map(read).fetch_all(store.pool()));
        rows.map_err(|e| StoreError::query(store.location(), what, &e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_become_numbered_placeholders() {
        let mut sql = Sql::new("SELECT 1 WHERE a = ");
        sql.text("x'; DROP TABLE runs; --").push(" AND b = ").bind(Bind::Int(3));
        assert_eq!(sql.text, "SELECT 1 WHERE a = $1 AND b = $2");
        assert_eq!(sql.binds, [Bind::Text("x'; DROP TABLE runs; --".into()), Bind::Int(3)]);
    }
}
