//! A full disk under an SQLite store (root tier: a tiny tmpfs): the import
//! fails with a clear error naming the store, and what it stored is whole
//! runs only; freed, a rerun finishes.

use super::backend::write_runs;
use crate::common::launcher::root_or_skip;
use crate::hostile::full_disk::Tmpfs;
use sqlx::Row;

#[test]
fn a_full_disk_fails_clearly_and_leaves_whole_runs() {
    if !root_or_skip("a full disk under the store") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let disk = dir.path().join("disk");
    let fs = Tmpfs::mount(&disk, "1m");
    let file = disk.join("results.db");
    let url = format!("sqlite:{}", file.display());
    let reports = dir.path().join("reports");
    let (folders, per_folder) = (200, 40);
    write_runs(&reports, folders, per_folder);
    let out = std::process::Command::new(crate::common::mlb())
        .args(["db", "import", "--db", &url])
        .arg(&reports)
        .output()
        .unwrap();
    let (stdout, stderr) = crate::common::text(&out);
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{stderr}");
    assert!(stderr.contains(&format!("mlb: error: the disk of the store {url} is full")), "{stderr}");
    assert!(stderr.contains("nothing of importing the run folder"), "{stderr}");
    assert!(stderr.contains("fix: free space on the store's disk"), "{stderr}");
    // Moved to a disk with room, the store holds whole runs only.
    let roomy = dir.path().join("results.db");
    for suffix in ["", "-wal", "-shm"] {
        let from = disk.join(format!("results.db{suffix}"));
        if from.exists() {
            std::fs::copy(&from, dir.path().join(format!("results.db{suffix}"))).unwrap();
        }
    }
    drop(fs);
    let store = mlb::store::Store::open(&mlb::store::Location::Sqlite(roomy.clone())).unwrap();
    let count = |sql: &str| -> i64 { store.block_on(sqlx::query(sql).fetch_one(store.pool())).unwrap().get(0) };
    let partial = count(&format!(
        "SELECT COUNT(*) FROM (SELECT run_id FROM instances GROUP BY run_id HAVING COUNT(*) <> {per_folder}) AS p"
    ));
    assert_eq!(partial, 0, "a run stored in part");
    let stored = count("SELECT COUNT(*) FROM runs");
    assert!(stored < folders as i64, "the disk filled before the end");
    drop(store);
    let url = format!("sqlite:{}", roomy.display());
    let out = std::process::Command::new(crate::common::mlb())
        .args(["db", "import", "--db", &url])
        .arg(&reports)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let store = mlb::store::Store::open(&mlb::store::Location::Sqlite(roomy)).unwrap();
    let total: i64 =
        store.block_on(sqlx::query("SELECT COUNT(*) FROM instances").fetch_one(store.pool())).unwrap().get(0);
    assert_eq!(total, (folders * per_folder) as i64);
}
