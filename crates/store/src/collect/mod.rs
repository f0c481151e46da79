//! Collecting results from many sites (docs/serve.md, "Collecting results
//! from many sites"): sites push their run folders to one server, under
//! keys and embargo; others pull the public runs.
//!
//! - [`keys`]: push keys, one per submitting site, stored hashed;
//! - [`secret`]: the secrets handed out (keys, share links) and their hashes;
//! - [`limits`]: what one push may hold, how often a key may push;
//! - [`archive`]: a run folder on the wire, packed, and unpacked as hostile;
//! - [`receive`]: a push on the server: unpacked, then imported;
//! - [`log`]: the log of every push;
//! - [`shares`]: links that show one run without the server's token;
//! - [`stored`]: a stored run as its folder's archive, for a pull;
//! - [`client`]: mlb's side of another server (push, the runs, an archive);
//! - [`pull`]: `mlb db pull`, another server's public runs into this store;
//! - [`error`]: what can go wrong, with the fix.

pub mod archive;
pub mod client;
pub mod error;
pub mod keys;
pub mod limits;
pub mod log;
pub mod pull;
pub mod receive;
pub mod secret;
pub mod shares;
pub mod stored;

pub use error::CollectError;
