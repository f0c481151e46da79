//! `mlb db pull --from URL`: the public runs of another mlb server copied
//! into this store, each unpacked as hostile ([`super::archive::unpack`])
//! and imported as `mlb db import` imports a folder, under the system name
//! the server gives it and named `URL/runs/ID` (a pull again stores
//! nothing twice: the report files hash as they did).

use super::client::Client;
use super::error::CollectError;
use super::limits::Limits;
use crate::store::import::{import, Imported, Labels, Origin};
use crate::store::Store;

/// What a pull did.
#[derive(Debug, Default)]
pub struct Pulled {
    /// Runs the server listed.
    pub listed: usize,
    /// What their imports did, summed.
    pub imported: Imported,
}

impl Pulled {
    /// What it did, for a person.
    pub fn render(&self, from: &str, store: &Store) -> String {
        let i = &self.imported;
        format!(
            "pulled {} run{} from {from} into {}: {} report{} new, {} updated, {} report file{} already stored\n",
            self.listed,
            if self.listed == 1 { "" } else { "s" },
            store.location(),
            i.instances,
            if i.instances == 1 { "" } else { "s" },
            i.updated,
            i.skipped_files,
            if i.skipped_files == 1 { "" } else { "s" },
        ) + &i.unreadable.iter().map(|u| format!("left out {}: {}\n", u.path.display(), u.reason)).collect::<String>()
    }
}

/// Copies the runs `client`'s server shows (with `token`), of `system`
/// alone when given, into `store`; `each` is told each run as it is done.
pub fn pull(
    store: &Store,
    client: &Client,
    token: Option<&str>,
    system: Option<&str>,
    each: &dyn Fn(u64),
) -> Result<Pulled, CollectError> {
    let runs = client.runs(token, system)?;
    let mut pulled = Pulled { listed: runs.len(), ..Pulled::default() };
    let limits = Limits::default();
    for run in runs {
        // The server's name for the system becomes this store's: one it takes.
        crate::store::name::check(&run.system).map_err(|e| CollectError::BadAnswer {
            url: format!("{}/api/runs", client.url()),
            why: format!("run {} names a system this store cannot take: {e}", run.id),
        })?;
        let work = tempfile::Builder::new().prefix("mlb-pull-").tempdir().map_err(CollectError::Spool)?;
        client.archive(token, run.id, work.path(), &limits)?;
        let root = work.path().canonicalize().map_err(CollectError::Spool)?;
        let labels = Labels {
            system: Some(run.system.clone()),
            origin: Some(Origin { root: root.clone(), name: format!("{}/runs/{}", client.url(), run.id) }),
            ..Labels::default()
        };
        pulled.imported.absorb(import(store, &[root], &labels, &|_| {})?);
        each(1);
    }
    Ok(pulled)
}
