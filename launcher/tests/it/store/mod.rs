//! The results store (`mlb db import`, `mlb --db`): the same test bodies on
//! SQLite (the unit tier) and on a real PostgreSQL server (the postgres
//! tier, scripts/setup-postgres.sh), and the faults: a killed import, two
//! imports at once, a full disk (root tier), hostile names, a password;
//! the queries (`mlb db runs|systems|compare|history|export`, `mlb report --db`),
//! every view of one store giving the same figures and flags, and the vote
//! across runs (`mlb db vote`).

pub(crate) mod backend;
mod faults;
mod full_disk;
mod hygiene;
mod identity;
mod import;
mod launch;
mod password;
mod queries;
mod views;
mod vote;
