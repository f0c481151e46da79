//! The cells of a run folder's interference matrix (`interference.json`,
//! `mlb interfere`), kept as rows of `interference_cells` beside the
//! document itself: read from the document the import keeps, written with
//! the run, replacing the cells stored before.

use crate::store::{bind_f64, bind_text};
use mlb_judge::interfere::{Cell, Interference, FILE};
use sqlx::AnyConnection;
use std::path::Path;

/// The cells of the matrix among `documents` (name, text); none when the
/// folder has none, or it is not a matrix `mlb interfere` wrote.
pub fn cells(documents: &[(String, String)]) -> Vec<Cell> {
    documents
        .iter()
        .find(|(name, _)| name == FILE)
        .and_then(|(_, text)| Interference::parse(Path::new(FILE), text).ok())
        .map(|matrix| matrix.cells)
        .unwrap_or_default()
}

/// Replaces the cells of run `run_id` by `cells`.
pub async fn write(conn: &mut AnyConnection, run_id: i64, cells: &[Cell]) -> Result<(), sqlx::Error> {
    sqlx::query("DELETE FROM interference_cells WHERE run_id = $1").bind(run_id).execute(&mut *conn).await?;
    for c in cells {
        let query = sqlx::query(
            "INSERT INTO interference_cells (run_id, victim, aggressor, n, alone_mean, alone_sd, alone_low, \
             alone_high, paired_mean, paired_sd, paired_low, paired_high, slowdown, slowdown_low, slowdown_high, \
             significant, overlap, placement) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18) \
             ON CONFLICT (run_id, victim, aggressor) DO NOTHING",
        )
        .bind(run_id);
        let query = bind_text(bind_text(query, Some(c.victim.as_str())), Some(c.aggressor.as_str())).bind(c.n as i64);
        let low = |ci: Option<(f64, f64)>| ci.map(|(l, _)| l);
        let high = |ci: Option<(f64, f64)>| ci.map(|(_, h)| h);
        let figures = [
            c.alone.mean,
            c.alone.sd,
            low(c.alone.ci95),
            high(c.alone.ci95),
            c.paired.mean,
            c.paired.sd,
            low(c.paired.ci95),
            high(c.paired.ci95),
            c.slowdown,
            low(c.slowdown_ci),
            high(c.slowdown_ci),
        ];
        let query = figures.into_iter().fold(query, bind_f64).bind(i64::from(c.significant));
        let placement = serde_json::to_string(&c.placement).expect("serialises");
        bind_text(bind_f64(query, c.overlap), Some(placement.as_str())).execute(&mut *conn).await?;
    }
    Ok(())
}
